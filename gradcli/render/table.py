"""Rich tables: the graph node by node, the leaves' gradients, and pass-by-pass accumulation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .values import format_value

if TYPE_CHECKING:
    from ..api import GradResult, NodeResult


MAX_TABLE_NODES = 200


def _grad_fn(node: NodeResult) -> str:
    """PyTorch shows grad_fn=None for leaves and for tensors that do not require grad."""
    if node.grad_fn:
        return node.grad_fn
    return {"leaf": "None (leaf)", "const": "None (const)"}.get(node.kind, "None (no grad)")


def _node_table(result: GradResult) -> Table:
    numeric = result.numeric
    table = Table(title="Graph, in topological order", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("node", style="bold", no_wrap=True)
    table.add_column("grad_fn", no_wrap=True)
    table.add_column("form", overflow="fold")
    if numeric:
        table.add_column("value", justify="right")
        table.add_column("adjoint", justify="right")
    table.add_column("adjoint (sym)", overflow="fold")
    shown = range(len(result.nodes))
    if len(result.nodes) > MAX_TABLE_NODES:  # a 10,000-node table helps nobody and takes seconds
        half = MAX_TABLE_NODES // 2
        shown = [*range(half), *range(len(result.nodes) - half, len(result.nodes))]
    for index in shown:
        if index == len(result.nodes) - MAX_TABLE_NODES // 2 and len(result.nodes) > MAX_TABLE_NODES:
            hidden = len(result.nodes) - MAX_TABLE_NODES
            table.add_row(f"... {hidden:,} more nodes", "(--format json has them all)")
        node = result.nodes[index]
        name = node.name + (" (out)" if index == result.output_index else "")
        if node.shape:
            name += f" {list(node.shape)}"
        row = [name, _grad_fn(node), node.symbolic or ""]
        if numeric:
            row += [format_value(node.value), format_value(node.adjoint)]
        row.append(node.adjoint_symbolic or "-")
        table.add_row(*row)
    return table


def _grad_table(result: GradResult) -> Table:
    title = "Leaf gradients (.grad)" if result.order == 1 else f"Derivatives up to order {result.order}"
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", min_width=26)
    table.add_column("leaf", style="bold")
    if result.numeric and result.order > 1:
        for k in range(1, result.order + 1):
            table.add_column(f"order {k}", justify="right")
    elif result.numeric:
        table.add_column("grad", justify="right")
    table.add_column("symbolic" if result.order == 1 else f"symbolic (order {result.order})", overflow="fold")
    for leaf in result.leaves:
        row = [leaf.name]
        if result.numeric and result.order > 1:
            row += [format_value(d) for d in result.derivatives.get(leaf.name, ())]
        elif result.numeric:
            row.append(format_value(result.grads.get(leaf.name)))
        row.append(result.grad_symbolic.get(leaf.name) or "-")
        table.add_row(*row)
    return table


def _pass_table(result: GradResult) -> Table:
    table = Table(title="Passes: .grad after each", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("pass", justify="right")
    table.add_column("gradient", justify="right")
    for leaf in result.leaves:
        table.add_column(f"{leaf.name}.grad", justify="right")
    for record in result.passes:
        row = [str(record.index), format_value(record.gradient)]
        row += [format_value(record.grads.get(leaf.name)) for leaf in result.leaves]
        table.add_row(*row)
    return table


def render(result: GradResult, console: Console) -> None:
    parts = []
    if result.numeric:
        out = result.output
        parts.append(
            Text.assemble(
                ("output ", "dim"),
                (out.name, "bold"),
                f" = {format_value(out.value)}",
                (f"  grad_fn={out.grad_fn}  dtype={result.dtype}", "dim"),
            )
        )
    parts.append(_node_table(result))
    parts.append(_grad_table(result))
    if len(result.passes) > 1:
        parts.append(_pass_table(result))
    parts.extend(Text(f"warning: {w}", style="yellow") for w in result.warnings)
    console.print(Group(*parts))
