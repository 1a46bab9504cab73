"""Tables for jacobian, hessian and check results."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .safe_text import one_line
from .values import format_value

if TYPE_CHECKING:
    from ..results import CheckResult, HessianResult, JacobianResult, NodeResult, ProductResult


def _heading(output: NodeResult, dtype: str) -> Text:
    return Text.assemble(
        ("output ", "dim"),
        (output.name, "bold"),
        (f" {list(output.shape)}" if output.shape else "") + f" = {format_value(output.value)}",
        (f"  dtype={dtype}", "dim"),
    )


# Spaces at a line's end, with any colour codes among them (those are kept).
_TRAILING = re.compile(r"(?:[ ]|\x1b\[[0-9;]*m)+$")


def _print(console: Console, renderable: Any) -> None:
    """Print without the spaces rich pads every line with to the table's width (they follow a
    copied table into an editor, a diff or a test)."""
    with console.capture() as capture:
        console.print(renderable)
    lines = [
        line[: m.start()] + m.group().replace(" ", "") if (m := _TRAILING.search(line)) else line
        for line in capture.get().split("\n")
    ]
    console.file.write("\n".join(lines))
    console.file.flush()


def _matrix(value: Any) -> str:
    return format_value(value, aligned=True)


def render_jacobian(result: JacobianResult, console: Console) -> None:
    table = Table(
        title="Jacobian (shape: out + leaf)", box=box.SIMPLE_HEAD, title_justify="left", min_width=32
    )
    table.add_column("leaf", style="bold")
    table.add_column("shape")
    table.add_column("jacobian")
    for name, block in result.jacobian.items():
        table.add_row(name, str(list(np.shape(block))), _matrix(block))
    _print(console, Group(_heading(result.output, result.dtype), table))


def render_hessian(result: HessianResult, console: Console) -> None:
    table = Table(title="Hessian (shape: a + b)", box=box.SIMPLE_HEAD, title_justify="left", min_width=28)
    table.add_column("a", style="bold")
    table.add_column("b", style="bold")
    table.add_column("hessian")
    table.add_column("symbolic")
    tensors = False
    for a, row in result.hessian.items():
        for b, block in row.items():
            symbolic = result.readable.get(a, {}).get(b) or result.symbolic.get(a, {}).get(b)
            tensors = tensors or a not in result.symbolic or b not in result.symbolic.get(a, {})
            table.add_row(a, b, _matrix(block), symbolic or "-")
    parts: list[Any] = [_heading(result.output, result.dtype), table]
    if tensors:
        parts.append(
            Text(
                "symbolic: scalar leaves only; a tensor leaf's block holds one second derivative per pair of "
                "elements, which no single elementwise formula states (the numbers are whole above)",
                style="dim",
            )
        )
    _print(console, Group(*parts))


def render_product(result: ProductResult, console: Console) -> None:
    names = {"vjp": "v^T J", "jvp": "J v", "hvp": "H v"}
    table = Table(
        title=f"{result.kind}: {names[result.kind]}", box=box.SIMPLE_HEAD, title_justify="left", min_width=28
    )
    product = result.product
    if isinstance(product, dict):
        table.add_column("leaf", style="bold")
        table.add_column("shape")
        table.add_column(result.kind)
        for name, value in product.items():
            table.add_row(name, str(list(np.shape(value))), _matrix(value))
    else:
        table.add_column("shape (the output's)")
        table.add_column(result.kind)
        table.add_row(str(list(np.shape(product))), _matrix(product))
    _print(console, Group(_heading(result.output, result.dtype), table))


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.10g}"


def render_check(result: CheckResult, console: Console) -> None:
    table = Table(
        title=f"gradcheck: eps={result.eps:g}, atol={result.atol:g}, rtol={result.rtol:g}",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("leaf", style="bold")
    table.add_column("reverse", justify="right")
    table.add_column("finite diff", justify="right")
    table.add_column("symbolic", justify="right")
    table.add_column("ok")
    notes = []
    for row in result.rows:
        name = row.leaf + (str(list(row.index)) if row.index else "")
        mark = "yes" if row.ok else "NO"
        table.add_row(name, _number(row.reverse), _number(row.finite_difference), _number(row.symbolic), mark)
        if row.note:
            notes.append(Text(f"note: {name}: {row.note}", style="yellow"))
    verdict = Text(
        "all three agree" if result.passed else "disagreement beyond tolerance",
        style="green" if result.passed else "bold red",
    )
    _print(console, Group(table, *notes, verdict))


def jacobian_latex(result: JacobianResult) -> str:
    """One row per leaf: d out / d leaf as a number or a bmatrix."""
    from .latex import align_block, derivative_latex, value_latex

    rows = []
    for name, block in result.jacobian.items():
        value = value_latex(block)
        rows.append((derivative_latex(result.output.name, name), value or r"\text{(too large to print)}"))
    return align_block(rows, comment=f"gradcli jacobian: {one_line(result.expression)}")


def hessian_latex(result: HessianResult) -> str:
    """One row per leaf pair: the symbolic second derivative (scalar pairs) and its value."""
    from .latex import align_block, derivative_latex, expression_latex, name_latex, value_latex
    from .latex_text import formula_latex

    names = list(result.hessian)
    rows = []
    for a, row in result.hessian.items():
        for b, block in row.items():
            value = value_latex(block) or r"\text{(too large to print)}"
            readable = result.readable.get(a, {}).get(b)  # in PyTorch's words: 2*(x > 0)
            symbolic = result.symbolic.get(a, {}).get(b)
            if readable is not None:
                right = f"{formula_latex(readable, name_latex)} = {value}"
            else:
                right = value if symbolic is None else f"{expression_latex(symbolic, names)} = {value}"
            rows.append((derivative_latex(result.output.name, a, b), right))
    return align_block(rows, comment=f"gradcli hessian: {one_line(result.expression)}")
