"""The command line: a thin click layer over gradcli.api, and the only module that prints.

One error boundary (GradcliGroup.main) turns every failure into a single `error:`
line on stderr with exit 1 (bad input) or 2 (usage), 130 on Ctrl-C, and never a
traceback unless --debug is given.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import warnings
from typing import Any

import click

from . import __version__
from .commands import LazyCommands
from .errors import CLI_WORDS, ExitCode, GradcliError
from .render.safe_text import visible

_DEBUG = False


_MAX_MESSAGE = 2_000  # characters of one error line; a hostile value must not flood the terminal


def _fail(message: str) -> None:
    """Print exactly one `error:` line, whatever the message holds."""
    line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    # The message may quote what a user wrote (a program, a file name, a value): what a
    # terminal would obey (ESC, C1, bidi overrides) is shown escaped, never sent raw.
    line = visible(line)
    if len(line) > _MAX_MESSAGE:
        line = line[: _MAX_MESSAGE - 3] + "..."
    with contextlib.suppress(OSError):  # stderr is gone too; the exit code still tells
        click.echo(f"error: {line}", err=True)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _silence_stdout() -> None:
    """After the reader of a pipe has gone, point stdout at /dev/null so that Python's
    final flush does not print "Exception ignored ... BrokenPipeError" (Python docs, signal)."""
    # ValueError/AttributeError: not a real file (CliRunner), nothing is flushed at exit anyway.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextlib.contextmanager
def _fewer_collections():
    """Run a command with the cyclic GC triggered about 300 times less often.

    A command builds big acyclic structures (a 10,000-statement program is ~150,000 parse
    nodes, 30,000 graph nodes, a 30,000-object result) that live until it ends. CPython's
    default thresholds (700, 10, 10) re-traverse them over and over and free nothing:
    a quarter of the run. Reference counting frees all of it anyway; cycles are still
    collected, just in larger batches, so a long --batch stream stays in constant memory.
    """
    previous = gc.get_threshold()
    gc.set_threshold(200_000, 30, 30)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


class _Interrupted(Exception):
    """Ctrl-C inside a command, carried past click (which would print a blank line first)."""


class _ReaderGone(Exception):
    """stdout's reader closed the pipe, carried past click (which would exit 1)."""


def _program_first(args: list[str], command: click.Command) -> list[str]:
    """`gradcli grad "-log(p)" --at p=0.3`: a program that starts with a minus sign is not an
    option. The first such argument (not a known option, not an option's value, not a
    `--name`) is moved behind `--`, where click reads it as EXPR."""
    if "--" in args or not any(isinstance(p, click.Argument) and p.name == "expr" for p in command.params):
        return args
    takes_value, known = set(), set()
    for param in command.params:
        if isinstance(param, click.Option):
            names = param.opts + param.secondary_opts
            known.update(names)
            if not param.is_flag and not param.count:
                takes_value.update(names)
    known.update(["-h", "--help"])
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in takes_value:
            skip = True
            continue
        if not arg.startswith("-") or arg == "-":
            return args  # EXPR came first, as usual
        name = arg.split("=", 1)[0]
        if arg in known or (arg.startswith("--") and (name in known or name[2:].replace("-", "").isalnum())):
            continue  # an option (or an unknown --name, which click reports)
        if len(name) > 2 and name[:2] in takes_value:
            continue  # -ograph.svg, -o/tmp/g.dot: a short option with its value attached, as click reads it
        return args[:index] + args[index + 1 :] + ["--", arg]
    return args


def _closest_first(exc: click.UsageError) -> str:
    """click's message, but with "did you mean" in order of closeness (difflib's order), not
    alphabetical: `--fromat` suggests --format first, then --at."""
    close = getattr(exc, "possibilities", None)
    if not isinstance(exc, click.NoSuchOption) or not close:
        return exc.format_message()
    shown = ", ".join(repr(name) for name in close)
    if len(close) == 1:
        return f"{exc.message} (Did you mean {shown}?)"
    return f"{exc.message} (Did you mean one of: {shown}?)"


class GradcliGroup(click.Group):
    """A click group whose main() is the error boundary for every command."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            rest = _program_first(list(rest), command)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None
        except BrokenPipeError:
            raise _ReaderGone from None

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        global _DEBUG
        args = list(sys.argv[1:] if args is None else args)
        # --debug is accepted anywhere before `--`, after the command name too (the
        # internal-error message tells users to add it, wherever they typed the rest).
        end = args.index("--") if "--" in args else len(args)
        _DEBUG = "--debug" in args[:end]  # per invocation: tests run many in one process
        args = [a for a in args[:end] if a != "--debug"] + args[end:]
        extra.pop("standalone_mode", None)
        try:
            # Python and NumPy warnings (a mean of an empty tensor, a 0/0) are not for users:
            # gradcli reports non-finite results itself, in its own words.
            words = CLI_WORDS.set(True)  # the engine's hints name options (--gradient, not gradient=)
            try:
                with _fewer_collections(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = super().main(args, prog_name or "gradcli", standalone_mode=False, **extra)
            finally:
                CLI_WORDS.reset(words)
            code = result if isinstance(result, int) else ExitCode.OK
            if sys.stdout is None:  # `gradcli ... >&-`: Python had nowhere to put stdout
                raise GradcliError("cannot write the result: standard output is closed")
            sys.stdout.flush()  # a closed pipe or a full disk shows up here, inside the boundary
        except GradcliError as exc:
            _fail(str(exc))
            code = exc.exit_code
        except click.exceptions.NoArgsIsHelpError as exc:
            if exc.ctx is None or exc.ctx.parent is None:
                exc.show()  # `gradcli` alone: the list of commands, as click prints it
            else:  # `gradcli grad` alone: one line that says what is missing, not 70 lines of help
                path = exc.ctx.command_path
                _fail(f"missing EXPR, as in: {path} \"(2*x)**3\" --at x=2 (see '{path} --help')")
            code = ExitCode.USAGE
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "gradcli"
            message = _closest_first(exc)
            if "unexpected extra argument" in message:  # --at x=[1, 2] split by the shell
                message += '; quote VALUEs that contain spaces, as in --at "x=[1, 2]"'
            elif "No such option" in message and where != "gradcli":
                message += f'; a program that looks like an option goes after --, as in {where} -- "--x"'
            _fail(f"{message} (see '{where} --help')")
            code = ExitCode.USAGE
        except click.ClickException as exc:
            _fail(exc.format_message())
            code = exc.exit_code
        except (_Interrupted, click.Abort, KeyboardInterrupt):
            if _isatty(sys.stderr):
                click.echo(err=True)  # end the terminal's "^C" echo so the error is one clean line
            _fail("interrupted")
            code = ExitCode.INTERRUPTED
        except (_ReaderGone, BrokenPipeError):
            _silence_stdout()
            code = ExitCode.OK  # the reader went away (| head): nothing more to say
        except OSError as exc:  # writing to /dev/full, a vanished file: the system, not a bug
            _silence_stdout()
            where = f" ({exc.filename})" if exc.filename else ""
            _fail(f"cannot complete the command: {exc.strerror or exc}{where}")
            code = ExitCode.BAD_INPUT
        except MemoryError:
            _fail("out of memory; try smaller tensors")
            code = ExitCode.BAD_INPUT
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches a user
            if _DEBUG:
                import traceback  # only for --debug: a normal run never prints one

                # Its messages may quote the program: escaped as the error line is.
                click.echo(visible(traceback.format_exc(), keep="\n"), err=True, nl=False)
            detail = str(exc)
            detail = detail if len(detail) <= 300 else detail[:297] + "..."
            _fail(
                f"internal error: {type(exc).__name__}: {detail}. This is a bug in gradcli; "
                "please report it with the command you ran (--debug shows the traceback)"
            )
            code = ExitCode.BAD_INPUT
        sys.exit(int(code))


@click.group(
    cls=GradcliGroup, commands=LazyCommands(), context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, "--version", prog_name="gradcli")
@click.option(
    "--debug",
    is_flag=True,
    expose_value=False,
    help="Show a traceback for internal errors (accepted after the command name too).",
)
def main() -> None:
    """gradcli: gradients of formulas and PyTorch-style programs, with backward()'s semantics.

    \b
    Examples:
      gradcli grad "(2*x)**3" --at x=2
      gradcli grad "(2*x)**3"                      # symbolic: 24*x**2
      gradcli grad "y = 2*x; z = y**3; out = z.mean()" --at "x=[[1,2],[3,4]]"
      gradcli grad "(2*x)**3" --at x=2 --format json | jq .leaves.x.grad
    """
