"""The command line: a thin click layer over gradcli.api, and the only module that prints.

One error boundary (GradcliGroup.main) turns every failure into a single `error:`
line on stderr with exit 1 (bad input) or 2 (usage), 130 on Ctrl-C, and never a
traceback unless --debug is given.
"""

from __future__ import annotations

import keyword
import sys
import traceback
from typing import Any

import click

from . import __version__
from .errors import ExitCode, GradcliError, ValueInputError

_DEBUG = False


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)


class GradcliGroup(click.Group):
    """A click group whose main() is the error boundary for every command."""

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        extra.pop("standalone_mode", None)
        try:
            result = super().main(args, prog_name or "gradcli", standalone_mode=False, **extra)
            code = result if isinstance(result, int) else ExitCode.OK
        except GradcliError as exc:
            _fail(str(exc))
            code = exc.exit_code
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "gradcli"
            _fail(f"{exc.format_message()} (see '{where} --help')")
            code = ExitCode.USAGE
        except click.ClickException as exc:
            _fail(exc.format_message())
            code = exc.exit_code
        except (click.Abort, KeyboardInterrupt):
            _fail("interrupted")
            code = ExitCode.INTERRUPTED
        except BrokenPipeError:
            code = ExitCode.OK  # the reader went away (| head): nothing more to say
        except MemoryError:
            _fail("out of memory; try smaller tensors")
            code = ExitCode.BAD_INPUT
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches a user
            if _DEBUG:
                traceback.print_exc()
            _fail(
                f"internal error: {type(exc).__name__}: {exc}. This is a bug in gradcli; "
                "please report it with the command you ran (--debug shows the traceback)"
            )
            code = ExitCode.BAD_INPUT
        sys.exit(int(code))


def _debug(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    global _DEBUG
    _DEBUG = _DEBUG or value
    return value


@click.group(cls=GradcliGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="gradcli")
@click.option(
    "--debug",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_debug,
    help="Show a traceback for internal errors.",
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


def _assignments(ctx: click.Context, param: click.Parameter, items: tuple[str, ...]) -> dict[str, str]:
    """NAME=VALUE pairs; malformed ones are usage errors (exit 2)."""
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param=param)
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__"):
            raise click.BadParameter(f"{name!r} is not a valid input name", param=param)
        if name in pairs:
            raise click.BadParameter(f"{name!r} is given twice", param=param)
        pairs[name] = value
    return pairs


def _read_program(expr: str) -> str:
    if expr != "-":
        return expr
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueInputError(f"standard input is not valid UTF-8 (byte {exc.start})") from None


GRAD_HELP = """Gradient of a program's output with respect to its inputs, as backward() computes it.

EXPR is a formula or statements separated by ';' or newlines (Python syntax, `^` is
power); the last statement is the output. Use - to read EXPR from standard input.
Inputs given with --at require grad (PyTorch leaves); --const inputs do not. With
no --at or --const at all, the symbolic gradient is printed.

VALUE is a JSON number or array (2, [1,2], [[1,2],[3,4]]) or one of zeros(2,3),
ones(2,2), full(2,2,0.5), eye(3), arange(5), linspace(0,1,11), rand(3), randn(2,2).

\b
Examples:
  gradcli grad "(2*x)**3" --at x=2                    # x.grad = 96
  gradcli grad "(2*x)**3"                             # 24*x**2
  gradcli grad "y = 2*x; z = y**3; out = z.mean()" --at "x=[[1.8528,0.2083],[1.5296,0.3136]]"
  gradcli grad "y = matmul(X, W) + b; loss = sum(y**2)" \\
      --at "W=[[1,2],[3,4]]" --at "b=[0.5,1]" --const "X=[[1,0.5],[0.2,0.8]]"
  gradcli grad "y = 2*x; z = y**3" --at "x=[[1,2],[3,4]]" --retain-graph --zero-grad \\
      --gradient "[[1,1],[1,1]]" --gradient "[[0,1],[0,1]]" --gradient "[[1,1],[0,0]]"
  gradcli grad "x**3" --at x=3 --passes 3 --retain-graph     # .grad 27, 54, 81
  echo "(2*x)**3" | gradcli grad - --at x=2 --format plain   # x<TAB>96.0
"""


@main.command("grad", help=GRAD_HELP, no_args_is_help=True)
@click.argument("expr")
@click.option(
    "--at",
    "at",
    multiple=True,
    metavar="NAME=VALUE",
    callback=_assignments,
    help="An input that requires grad (a leaf). Repeatable.",
)
@click.option(
    "--const",
    "const",
    multiple=True,
    metavar="NAME=VALUE",
    callback=_assignments,
    help="An input that does not require grad. Repeatable.",
)
@click.option(
    "--gradient",
    "gradients",
    multiple=True,
    metavar="VALUE",
    help="Upstream gradient for one backward pass; given K times, K passes run. "
    "Default: 1 for a scalar output.",
)
@click.option(
    "--passes",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Run backward N times; leaf grads accumulate as in PyTorch.",
)
@click.option("--retain-graph", is_flag=True, help="Keep the graph between passes.")
@click.option("--zero-grad", is_flag=True, help="Zero every leaf's grad before each pass after the first.")
@click.option(
    "--dtype",
    type=click.Choice(["float64", "float32"]),
    default="float64",
    show_default=True,
    help="float32 reproduces PyTorch's default precision.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "plain"]),
    default="table",
    show_default=True,
    help="table (rich), json (strict JSON) or plain (NAME<TAB>GRAD lines).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for rand()/randn() values.")
@click.option("--no-symbolic", is_flag=True, help="Skip symbolic forms (faster on big programs).")
def grad_command(
    expr: str,
    at: dict[str, str],
    const: dict[str, str],
    gradients: tuple[str, ...],
    passes: int | None,
    retain_graph: bool,
    zero_grad: bool,
    dtype: str,
    fmt: str,
    seed: int,
    no_symbolic: bool,
) -> None:
    import numpy as np

    from .api import DTYPES, grad
    from .values import parse_value

    np_dtype = np.dtype(DTYPES[dtype])
    rng = np.random.default_rng(seed)

    def read(flag: str, name: str, text: str):
        try:
            return parse_value(text, np_dtype, rng)
        except GradcliError as exc:
            raise type(exc)(f"{flag} {name}: {exc.message}", hint=exc.hint) from None

    program = _read_program(expr)
    at_values = {n: read("--at", n, v) for n, v in at.items()}
    const_values = {n: read("--const", n, v) for n, v in const.items()}
    gradient_values = [read("--gradient", f"#{i}", v) for i, v in enumerate(gradients, 1)]
    result = grad(
        program,
        at=at_values,
        const=const_values,
        dtype=dtype,
        gradients=gradient_values or None,
        symbolic=not no_symbolic,
        passes=passes,
        retain_graph=retain_graph,
        zero_grad=zero_grad,
    )
    _emit(result, fmt)


def _emit(result: Any, fmt: str) -> None:
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "plain":
        from .render.plain import render

        click.echo(render(result))
    else:
        from rich.console import Console

        from .render.table import render

        render(result, Console(highlight=False))
