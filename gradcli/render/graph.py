"""Pictures of the computation graph: a terminal tree (rich) and Graphviz DOT.

Both views read only a GradResult. They walk from the output back to the leaves,
the direction backward() travels, so a learner reads the picture in the order the
chain rule is applied. A node used by several ops is drawn once in full and then
referred to by name, so the picture stays a tree (and finite) for any DAG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .safe_text import visible
from .values import format_value

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

    from ..results import GradResult, NodeResult


def inline_value(value: np.ndarray | None) -> str:
    """A value on one line: 6 significant digits, big tensors summarised (`[1, 2, ..., 9]`)."""
    return format_value(value, digits=6, edgeitems=2, width=10**6, one_line=True)


def kind_text(node: NodeResult) -> str:
    """The node's role, as PyTorch would describe it."""
    if node.kind == "leaf":
        return "leaf, requires_grad"
    if node.kind == "const":
        return "const, no grad"
    return node.op or "op"


def walk_from_output(result: GradResult) -> list[tuple[int, int, bool]]:
    """(depth, node index, first time seen) in depth-first order from the output back to the inputs.

    Iterative, so deep programs cannot exhaust Python's recursion limit; operands are
    visited in the order they are written, so the same program draws the same picture.
    """
    index_of = {node.name: i for i, node in enumerate(result.nodes)}
    seen: set[int] = set()
    order: list[tuple[int, int, bool]] = []
    stack = [(0, result.output_index)]
    while stack:
        depth, index = stack.pop()
        first = index not in seen
        seen.add(index)
        order.append((depth, index, first))
        if first:
            children = [index_of[name] for name in dict.fromkeys(result.nodes[index].inputs)]
            stack.extend((depth + 1, child) for child in reversed(children))
    return order


# ---------------------------------------------------------------- terminal tree


def _label(result: GradResult, index: int, first: bool) -> Text:
    """One node's text: name, op and grad_fn, form; value and adjoint on the lines below."""
    from rich.text import Text

    node = result.nodes[index]
    label = Text()
    label.append(node.name, style="bold")
    if index == result.output_index:
        label.append(" (output)", style="bold")
    if not first:
        label.append("  (drawn above)", style="dim")
        return label
    if node.shape:
        label.append(f" {list(node.shape)}", style="dim")
    if node.kind == "op":
        label.append(f"  {node.op}  ")
        label.append(node.grad_fn or "grad_fn=None", style="cyan")
        if node.symbolic:
            label.append(f"  = {node.symbolic}")
    else:
        label.append(f"  {kind_text(node)}", style="dim")
    if result.numeric:
        label.append("\nvalue   ", style="dim")
        label.append(inline_value(node.value))
        if node.requires_grad:
            label.append("\nadjoint ", style="dim")
            label.append(inline_value(node.adjoint), style="green")
            if node.kind == "leaf":
                label.append(f"  = {node.name}.grad", style="dim")
    elif node.adjoint_symbolic and node.requires_grad:
        label.append(f"\nd{result.output.name}/d{node.name} = ", style="dim")
        label.append(node.adjoint_symbolic, style="green")
    return label


def ascii_tree(result: GradResult) -> RenderableType:
    """A rich Tree from the output back to the leaves; box-drawing guides join the nodes."""
    from rich.tree import Tree

    order = walk_from_output(result)
    _, root_index, _ = order[0]
    root = Tree(_label(result, root_index, True), guide_style="dim")
    parents = [root]
    for depth, index, first in order[1:]:
        del parents[depth:]
        parents.append(parents[depth - 1].add(_label(result, index, first)))
    return root


# ---------------------------------------------------------------- Graphviz DOT


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string; `\\l` ends each line left-justified. What a user wrote
    (the program is the graph's label) is shown escaped where it is not printable."""
    escaped = visible(text, keep="\n").replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "\\l".join(escaped.split("\n")) + '\\l"'


FILL = {"leaf": "lightblue", "const": "lightgrey", "output": "darkolivegreen1", "op": "white"}


def to_dot(result: GradResult) -> str:
    """Graphviz source: one box per node, arrows in the direction values flow (torchviz style)."""
    lines = [
        "digraph gradcli {",
        '  graph [rankdir=TB, fontname="Helvetica", labelloc=t, label='
        + _dot_quote(result.expression)
        + "];",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
    ]
    for index, node in enumerate(result.nodes):
        parts = [node.name + (f" {list(node.shape)}" if node.shape else "")]
        if node.kind == "op":
            parts.append(f"{node.op}: {node.grad_fn or 'grad_fn=None'}")
            if node.symbolic:
                parts.append(f"= {node.symbolic}")
        else:
            parts.append(kind_text(node))
        if result.numeric:
            parts.append(f"value {inline_value(node.value)}")
            if node.requires_grad:
                grad = f" = {node.name}.grad" if node.kind == "leaf" else ""
                parts.append(f"adjoint {inline_value(node.adjoint)}{grad}")
        elif node.adjoint_symbolic and node.requires_grad:
            parts.append(f"d{result.output.name}/d{node.name} = {node.adjoint_symbolic}")
        role = "output" if index == result.output_index else node.kind
        lines.append(f"  n{index} [label={_dot_quote(chr(10).join(parts))}, fillcolor={FILL[role]}];")
    index_of = {node.name: i for i, node in enumerate(result.nodes)}
    for index, node in enumerate(result.nodes):
        for name in node.inputs:
            lines.append(f"  n{index_of[name]} -> n{index};")
    lines.append("}")
    return "\n".join(lines) + "\n"
