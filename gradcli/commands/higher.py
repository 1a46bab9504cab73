"""`gradcli jacobian`, `gradcli hessian` and `gradcli check`: beyond first gradients."""

from __future__ import annotations

from typing import Any

import click

from .common import FiniteFloat, read_program
from .inputs import ValueReader, point_options
from .width import table_console, width_option

FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table (rich) or json (strict JSON).",
)
FORMAT_LATEX = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "latex"]),
    default="table",
    show_default=True,
    help="table (rich), json (strict JSON) or latex (align* block, ready to paste).",
)


def _show(result: Any, fmt: str, table: str, latex: str | None = None, width: int | None = None) -> None:
    """Print in the chosen format; `table` and `latex` name functions of render/higher.py
    (imported only when used, so JSON output never loads rich)."""
    if fmt == "json":
        click.echo(result.to_json())
        return
    from ..render import higher

    if fmt == "latex" and latex is not None:
        click.echo(getattr(higher, latex)(result))
        return
    getattr(higher, table)(result, table_console(width))


@click.command("jacobian", no_args_is_help=True)
@click.argument("expr")
@point_options
@FORMAT_LATEX
@width_option
def jacobian_command(
    expr: str, at: dict, const: dict, dtype: str, seed: int, fmt: str, width: int | None
) -> None:
    """Jacobian of the output with respect to every --at input.

    Laid out as torch.autograd.functional.jacobian returns it: for each leaf, an
    array of shape output.shape + leaf.shape. JSON: {"jacobian": {"x": ...}, "output": ...}.
    EXPR @FILE and VALUE @FILE read from files, as in `gradcli grad`.

    \b
    Examples:
      gradcli jacobian "x**2" --at "x=[1,2,3]"                # diag(2, 4, 6)
      gradcli jacobian "matmul(W, x)" --at "W=[[1,2],[3,4]]" --at "x=[1,1]"
    """
    from ..api import jacobian

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    _show(
        jacobian(read_program(expr), at_values, const_values, read.dtype_name),
        fmt,
        "render_jacobian",
        latex="jacobian_latex",
        width=width,
    )


@click.command("hessian", no_args_is_help=True)
@click.argument("expr")
@point_options
@FORMAT_LATEX
@click.option("--no-symbolic", is_flag=True, help="Skip the symbolic entries.")
@width_option
def hessian_command(
    expr: str, at: dict, const: dict, dtype: str, seed: int, fmt: str, no_symbolic: bool, width: int | None
) -> None:
    """Hessian of a scalar output for every pair of --at inputs.

    Laid out as torch.autograd.functional.hessian: block (a, b) has shape
    a.shape + b.shape. JSON: {"hessian": {"x": {"x": ..., "y": ...}, ...}, "output": ...},
    plus "hessian_symbolic" for pairs of scalar inputs. Computed by differentiating
    gradcli's own backward pass (forward-over-reverse), so PyTorch's conventions hold.
    EXPR @FILE and VALUE @FILE read from files, as in `gradcli grad`.

    \b
    Examples:
      gradcli hessian "x**3 * y" --at x=2 --at y=3
      gradcli hessian "sum(x**4)" --at "x=[1,2]" --format json
    """
    from ..api import hessian

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    result = hessian(read_program(expr), at_values, const_values, read.dtype_name, symbolic=not no_symbolic)
    _show(result, fmt, "render_hessian", latex="hessian_latex", width=width)


@click.command("check", no_args_is_help=True)
@click.argument("expr")
@point_options
@FORMAT
@click.option(
    "--eps",
    type=FiniteFloat(0, open_interval=True),
    default=None,
    help="Finite-difference step, > 0.  [default: 1e-6; 1e-3 with --dtype float32]",
)
@click.option(
    "--atol",
    type=FiniteFloat(0, open_interval=False),
    default=None,
    help="Absolute tolerance, >= 0.  [default: 1e-5; 1e-2 with --dtype float32]",
)
@click.option(
    "--rtol",
    type=FiniteFloat(0, open_interval=False),
    default=None,
    help="Relative tolerance, >= 0.  [default: 1e-3; 1e-2 with --dtype float32]",
)
@width_option
@click.pass_context
def check_command(
    ctx: click.Context,
    expr: str,
    at: dict,
    const: dict,
    dtype: str,
    seed: int,
    fmt: str,
    eps: float | None,
    atol: float | None,
    rtol: float | None,
    width: int | None,
) -> None:
    """Compare reverse mode, central finite differences and the symbolic gradient.

    Three answers side by side for every leaf element, with torch.autograd.gradcheck's
    step and tolerances in float64 (float32 computes in float32, with a wider step and
    looser tolerances). Exit 0 when they agree, 1 when any pair disagrees; at a kink
    (relu at 0, sqrt((x-1)**2) at 1), where the one-sided slopes stay apart however
    small the step, a note explains which convention reverse mode used.

    \b
    Examples:
      gradcli check "sin(x)*exp(y)" --at x=0.3 --at y=1.2    # exit 0
      gradcli check "sqrt((x-1)**2)" --at x=1                # exit 1: nan vs 0
      gradcli check "relu(x)" --at x=0                       # exit 1, explained
    """
    from ..gradcheck import check

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    result = check(
        read_program(expr), at_values, const_values, eps=eps, atol=atol, rtol=rtol, dtype=read.dtype_name
    )
    _show(result, fmt, "render_check", width=width)
    if not result.passed:
        ctx.exit(1)
