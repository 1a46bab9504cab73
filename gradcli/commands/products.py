"""`gradcli vjp`, `gradcli jvp` and `gradcli hvp`: products with a Jacobian or Hessian, without the matrix."""

from __future__ import annotations

import click

from .common import assignments, read_program
from .higher import FORMAT
from .inputs import ValueReader, point_options
from .width import table_console, width_option

VECTORS = click.option(
    "--v",
    "v",
    multiple=True,
    metavar="NAME=VALUE",
    callback=assignments,
    help="The vector for input NAME, of its shape (torch.autograd.functional's v). Give one for every --at input.",
)


def _show(result, fmt: str, width: int | None) -> None:
    if fmt == "json":
        click.echo(result.to_json())
        return
    from ..render.higher import render_product

    render_product(result, table_console(width))


@click.command("vjp", no_args_is_help=True)
@click.argument("expr")
@point_options
@click.option(
    "--v",
    "v",
    metavar="VALUE",
    default=None,
    help="The vector v, of the output's shape (may be left out for a one-element output).",
)
@FORMAT
@width_option
def vjp_command(
    expr: str, at: dict, const: dict, dtype: str, seed: int, v: str | None, fmt: str, width: int | None
) -> None:
    """v^T J for every --at input, as torch.autograd.functional.vjp: one backward pass with v
    as the upstream gradient (what `gradcli grad --gradient v` computes, without the tables).

    \b
    Examples:
      gradcli vjp "x**2" --at "x=[1,2,3]" --v "[1,0,1]"         # [2, 0, 6]
      gradcli vjp "W @ x" --at "W=[[1,2],[3,4]]" --at "x=[1,1]" --v "[1,-1]" --format json
    """
    from ..api import vjp

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    vector = None if v is None else read("--v", "", v)
    _show(vjp(read_program(expr), at_values, vector, const_values, read.dtype_name), fmt, width)


@click.command("jvp", no_args_is_help=True)
@click.argument("expr")
@point_options
@VECTORS
@FORMAT
@width_option
def jvp_command(
    expr: str, at: dict, const: dict, dtype: str, seed: int, v: dict, fmt: str, width: int | None
) -> None:
    """J v (the output's shape), as torch.autograd.functional.jvp: the directional derivative
    along v, by the double-vjp trick (a create_graph backward, then a backward through it).

    \b
    Examples:
      gradcli jvp "sin(x)*y" --at "x=[0,1]" --at y=2 --v "x=[1,1]" --v y=0
      gradcli jvp "W @ x" --at "W=[[1,2],[3,4]]" --at "x=[1,1]" --v "W=[[0,0],[0,0]]" --v "x=[1,0]"
    """
    from ..api import jvp

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    vectors = {n: read("--v", n, text) for n, text in v.items()}
    _show(jvp(read_program(expr), at_values, vectors, const_values, read.dtype_name), fmt, width)


@click.command("hvp", no_args_is_help=True)
@click.argument("expr")
@point_options
@VECTORS
@FORMAT
@width_option
def hvp_command(
    expr: str, at: dict, const: dict, dtype: str, seed: int, v: dict, fmt: str, width: int | None
) -> None:
    """H v for every --at input, as torch.autograd.functional.hvp, without forming the Hessian:
    a create_graph backward, then one backward through the gradient graph. The output must
    have one element.

    \b
    Examples:
      gradcli hvp "sum(x**3)" --at "x=[1,2]" --v "x=[1,0]"       # [6, 0]
      gradcli hvp "sum(tanh(W @ x)**2)" --at "x=[1,2]" --const "W=[[1.0,0],[2,1]]" --v "x=[0,1]"
    """
    from ..api import hvp

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    vectors = {n: read("--v", n, text) for n, text in v.items()}
    _show(hvp(read_program(expr), at_values, vectors, const_values, read.dtype_name), fmt, width)
