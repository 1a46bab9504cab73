"""`gradcli run` on CPython: the script runs as `python SCRIPT ARGS...` runs it, with every
`torch` module it imports bound to gradcli's own (`gradcli.torch`).

For one script: `torch` and `torch.*` in `sys.modules` are gradcli.torch's modules (the same
module object whichever way it is imported); `sys.argv`, `sys.path` (the script's folder
first), `__name__ == "__main__"` as python sets them; gradcli.torch starts from torch's
initial state. Afterwards everything changed is put back: the `torch*` entries of
`sys.modules` (the real torch too, in a process that had imported it), the script's own
modules (those from its folder), `sys.path`, `sys.argv`, the working directory, stdout and
the warning filters. It is no sandbox, as
`python SCRIPT` is none.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import io
import os
import runpy
import sys
import traceback
import warnings
from dataclasses import dataclass
from typing import Any

from .script.values import RunResult

_GRADCLI = os.path.dirname(os.path.abspath(__file__)) + os.sep
# A fresh interpreter's warnings.filters (Python 3.10-3.13, no -W options)
_PYTHON_FILTERS = [
    ("default", None, DeprecationWarning, "__main__", 0),
    ("ignore", None, DeprecationWarning, None, 0),
    ("ignore", None, PendingDeprecationWarning, None, 0),
    ("ignore", None, ImportWarning, None, 0),
    ("ignore", None, ResourceWarning, None, 0),
]


@dataclass
class ScriptRun(RunResult):
    """What a script did, as an interpreted run reports it (stdout when captured, torch's
    warnings, backward calls, the error `line N: Kind: message`), and its exit code."""

    exit_code: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and self.exit_code == 0


def _torch_modules() -> dict[str, Any]:
    """gradcli.torch's modules under the names a script imports them by."""
    import gradcli.torch  # noqa: F401  (imports every submodule)

    prefix = "gradcli.torch"
    return {
        "torch" + name[len(prefix) :]: module
        for name, module in list(sys.modules.items())
        if (name == prefix or name.startswith(prefix + ".")) and not name.rpartition(".")[2].startswith("_")
    }


# torch's sibling libraries: built on torch's C++ core, which gradcli's torch does not have
_SIBLINGS = (
    "torchvision",
    "torchaudio",
    "torchtext",
    "torchdata",
    "torchrec",
    "torch_geometric",
    "functorch",
)


# A script on CPython runs as long as python would: no caps on its Python. A tensor past the
# memory available fails as torch's allocator fails (runtime.check_allocation).
class _TorchNames(importlib.abc.MetaPathFinder):
    """Ahead of every other finder during a run: a torch submodule gradcli's torch lacks, or one of
    torch's sibling libraries, is an ImportError naming it (never the real one, if installed)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        from .torch._bridge import MissingImport

        top = fullname.partition(".")[0]
        if fullname.startswith("torch.") and fullname not in sys.modules:
            raise MissingImport(
                f"{fullname} is not in gradcli's torch (docs/run.md lists what is)", name=fullname
            )
        if top in _SIBLINGS:
            raise MissingImport(
                f"{top} is not in gradcli's torch: gradcli run --python runs scripts that need torch alone "
                "(docs/run.md)",
                name=fullname,
            )
        return None


def _show_warning(
    message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    """Python's own printing of a warning (a fresh interpreter's `warnings.showwarning`)."""
    with contextlib.suppress(OSError, ValueError):
        (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))


def _inside(path: str | None, folder: str) -> bool:
    return path is not None and os.path.abspath(path).startswith(folder.rstrip(os.sep) + os.sep)


def _script_line(exc: BaseException, filename: str) -> int | None:
    """The line of the innermost frame of the script's own file in the exception's traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _last_line(exc: BaseException) -> str:
    from .torch._bridge import MissingImport, MissingName, NotInGradcli

    if isinstance(exc, (NotInGradcli, MissingName, MissingImport)):  # gradcli's own gaps: the message says it
        return str(exc)
    return traceback.format_exception_only(type(exc), exc)[-1].rstrip("\n")


def _user_traceback(exc: BaseException) -> str:
    """Python's traceback of the script's frames only (never gradcli's or runpy's)."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith(_GRADCLI) and "runpy" not in os.path.basename(f.filename)
    ]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)


def run_script(
    path: str,
    argv: list[str] | tuple[str, ...] = (),
    *,
    source: str | None = None,
    capture: bool = True,
    trace_width: int | None = None,
    explain_width: int | None = None,
    record: bool = False,
    nodes: tuple[str, ...] = (),
    calls: frozenset[int] | None = None,
    lines: frozenset[int] | None = None,
    show_traceback: bool = False,
) -> ScriptRun:
    """Run a script file (or `source`, named `path`, for `-`) on CPython with gradcli's torch.

    capture: keep stdout in the result (else it goes to sys.stdout as the script prints).
    The other options are run's: --trace, --explain, --format json's records, --node,
    --call, --line, --traceback."""
    from .torch import _bridge, _threads

    filename = "<stdin>" if source is not None and path == "-" else os.path.abspath(path)
    saved_modules = dict(sys.modules)
    saved_path, saved_argv, saved_cwd, saved_stdout = list(sys.path), list(sys.argv), os.getcwd(), sys.stdout
    buffer = io.StringIO() if capture else None
    folder = os.path.dirname(filename) if source is None else os.getcwd()
    session = _bridge.reset()
    _bridge.reset_modes()
    _threads.reset()
    session.trace_width = trace_width
    session.explain_width = explain_width
    session.record = record or trace_width is not None or explain_width is not None
    session.trace_nodes = tuple(nodes)
    session.chosen_calls, session.chosen_lines = calls, lines
    if source is None:
        with open(filename, encoding="utf-8", errors="replace") as handle:
            source_text = handle.read()
    else:
        source_text = source
    session.lines = source_text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # a call's line, shown
    error: str | None = None
    code = 0
    recording: Any = None
    caught: list = []
    finder: Any = None
    try:
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(_torch_modules())
        finder = _TorchNames()
        sys.meta_path.insert(0, finder)
        sys.argv = [path, *argv]
        sys.path.insert(0, folder if source is None else "")
        if buffer is not None:
            sys.stdout = buffer
        # Python's own warning filters, as a fresh `python` has them (gradcli's CLI silences
        # NumPy's); a captured run keeps the warnings for its result instead of printing them
        recording = warnings.catch_warnings(record=buffer is not None)
        log = recording.__enter__()  # the list warnings go to, when recorded
        caught = log if log is not None else []
        warnings.filters[:] = _PYTHON_FILTERS
        if buffer is None:  # printed as python prints them, even where a caller (pytest) replaced the printer
            warnings.showwarning = _show_warning
        try:
            if source is None:
                runpy.run_path(filename, run_name="__main__")
            else:
                code_object = compile(source, filename, "exec")
                main = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": filename}
                exec(code_object, main)  # the script given on stdin, run as python runs `python -`
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if stop.code is not None and not isinstance(stop.code, int):
                sys.stderr.write(f"{stop.code}\n")
        except KeyboardInterrupt:
            code = 130
        except BaseException as exc:  # noqa: BLE001  (the script's own error: reported, not raised)
            if isinstance(exc, BrokenPipeError) and buffer is None:
                raise  # stdout's reader went away (| head): the CLI ends quietly, as it does for grad
            code = 1
            if show_traceback:
                error = _user_traceback(exc).rstrip("\n")
            else:
                line = _script_line(exc, filename)
                if isinstance(exc, SyntaxError) and exc.filename == filename:  # raised before any frame ran
                    line = exc.lineno
                error = (f"line {line}: " if line is not None else "") + _last_line(exc)
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
    finally:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        sys.stdout = saved_stdout
        if recording is not None:
            recording.__exit__(None, None, None)
        for name, module in list(sys.modules.items()):  # the script's own modules, not Python's or gradcli's
            if (
                name not in saved_modules
                and not name.startswith("gradcli")
                and _inside(getattr(module, "__file__", None), folder)
            ):
                del sys.modules[name]
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update({n: m for n, m in saved_modules.items() if n == "torch" or n.startswith("torch.")})
        sys.path[:], sys.argv[:] = saved_path, saved_argv
        with contextlib.suppress(OSError):
            os.chdir(saved_cwd)
    said = [f"line {w.lineno}: {w.category.__name__}: {w.message}" for w in caught]
    return ScriptRun(
        buffer.getvalue() if buffer is not None else "",
        said + list(session.warnings),  # gradcli's own notes (an unseeded generator)
        list(session.backward_calls),
        error,
        code,
    )
