"""Errors gradcli reports to users, each kind carrying its exit code.

Engine modules raise these; only the CLI turns them into `error: ...` lines.
"""

from __future__ import annotations

from contextvars import ContextVar
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    BAD_INPUT = 1
    USAGE = 2
    INTERRUPTED = 130


class GradcliError(Exception):
    """A problem with the user's input; the message is shown as one line."""

    exit_code = ExitCode.BAD_INPUT
    # What was finished before the error, for the CLI to show first: a GradResult of the
    # backward passes that ran when a later one failed (PyTorch had finished those too).
    partial: object = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


class ParseError(GradcliError):
    """The program is not in gradcli's grammar."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        multiline: bool = False,
        hint: str | None = None,
    ) -> None:
        where = ""
        if column is not None:
            where = f"line {line}, column {column}: " if multiline else f"column {column}: "
        super().__init__(where + message, hint=hint)
        self.line = line
        self.column = column


class ValueInputError(GradcliError):
    """A VALUE (for --at, --const, --gradient) could not be read."""


class ShapeError(GradcliError):
    """Operand shapes do not fit an operation (PyTorch's wording)."""


class IndexOutOfRange(ShapeError):
    """An index or class target out of range: torch raises IndexError for these (a script's
    `except IndexError` catches it)."""


class ArgumentValueError(ShapeError):
    """A check torch.nn.functional makes in Python before ATen runs: torch raises ValueError."""


class AutogradError(GradcliError):
    """backward() would fail in PyTorch; the message carries PyTorch's words."""


class DerivativeNotImplemented(AutogradError):
    """A derivative torch declares not implemented (derivatives.yaml's not_implemented, e.g.
    acosh_'s): torch raises NotImplementedError when backward reaches it."""


class LimitError(GradcliError):
    """A documented resource limit was exceeded; refused before doing the work."""


# ---------------------------------------------------------------- words for the asker
# The engine's hints name the setting to change. A Python caller changes `gradient=`;
# a shell user changes `--gradient`. The CLI sets CLI_WORDS for the length of a command.
CLI_WORDS: ContextVar[bool] = ContextVar("CLI_WORDS", default=False)

_CLI = {"retain_graph": "--retain-graph", "dtype": "--dtype"}
_API = {"retain_graph": "retain_graph=True"}


def option(name: str) -> str:
    """How the asker spells a setting: `--gradient` on the command line, `gradient=` in Python."""
    if CLI_WORDS.get():
        return _CLI.get(name, "--" + name.replace("_", "-"))
    return _API.get(name, name + "=")


def input_label(kind: str, name: str) -> str:
    """An input as the asker gave it: `--at x` on the command line, `at['x']` in Python."""
    return f"--{kind} {name}" if CLI_WORDS.get() else f"{kind}[{name!r}]"


def input_example(name: str, value: str) -> str:
    """How to give an input: `--at x=2` on the command line, `at={'x': 2}` in Python."""
    return f"--at {name}={value}" if CLI_WORDS.get() else f"at={{{name!r}: {value}}}"
