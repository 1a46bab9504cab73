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
from .values import SUMMARY_THRESHOLD, format_value

if TYPE_CHECKING:
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


# ---------------------------------------------------------------- terminal tree

INDENT = 4  # columns each level of the tree indents by ("├── ", "│   ")
LABEL_COLUMNS = 40  # a label keeps this many columns however deep its node: grad_fn names stay whole
SEE_ABOVE = "-> see above"
CONTINUED_BELOW = "-> continued below"


def max_depth(width: int) -> int:
    """How deep a tree goes before the rest of it is drawn as its own tree, further down."""
    return max(2, (width - LABEL_COLUMNS) // INDENT)


def _label(result: GradResult, index: int, note: str = "") -> list[Text]:
    """One node's text: name, op and grad_fn, form; value and adjoint on the lines below."""
    from rich.text import Text

    node = result.nodes[index]
    head = Text()
    head.append(node.name, style="bold")
    if index == result.output_index:
        head.append(" (output)", style="bold")
    if note:
        head.append(f" ({note})", style="bold")
    if node.shape:
        head.append(f" {list(node.shape)}", style="dim")
    if node.kind == "op":
        head.append(f"  {node.op}  ")
        head.append(node.grad_fn or "grad_fn=None", style="cyan")
        if node.written or node.symbolic:  # the table's form: relu(t2), X @ W1
            head.append(f"  = {node.written or node.symbolic}")
    else:
        head.append(f"  {kind_text(node)}", style="dim")
    lines = [head]
    if result.numeric:
        lines.append(Text.assemble(("value   ", "dim"), inline_value(node.value)))
        if node.requires_grad:
            adjoint = Text.assemble(("adjoint ", "dim"), (inline_value(node.adjoint), "green"))
            if node.kind == "leaf":
                adjoint.append(f"  = {node.name}.grad", style="dim")
            lines.append(adjoint)
    elif node.adjoint_local and node.requires_grad:  # the table's chain-rule step
        lines.append(Text.assemble((f"adj_{node.name} = ", "dim"), (node.adjoint_local, "green")))
    return lines


def _reference(result: GradResult, index: int, where: str) -> list[Text]:
    """A node drawn elsewhere in the picture: its name and where to find it."""
    from rich.text import Text

    return [Text.assemble((result.nodes[index].name, "bold"), "  ", (where, "dim"))]


class _TreeWriter:
    """Lines of the tree, each label wrapped at spaces in the columns its depth leaves."""

    def __init__(self, width: int) -> None:
        from rich.console import Console

        self.width = width
        self.console = Console(width=width, highlight=False, markup=False)
        self.lines: list[Text] = []

    def add(self, label: list[Text], prefix: str, connector: str, below: str) -> None:
        """Label lines after `prefix + connector` (first) or `prefix + below` (the rest)."""
        from rich.text import Text

        room = max(1, self.width - len(prefix) - len(connector))
        first = True
        for line in label:
            # most lines fit: wrapping (rich's, at spaces) only those that do not
            parts = [line] if line.cell_len <= room else line.wrap(self.console, room, overflow="fold")
            for part in parts:
                part.rstrip()
                guide = prefix + (connector if first else below)
                if guide:
                    guided = Text(guide, style="dim")
                    guided.append_text(part)
                    part = guided
                self.lines.append(part)
                first = False


def tree_lines(result: GradResult, width: int) -> list[Text]:
    """The graph as a tree from the output back to the leaves, one rich Text per line.

    Every node is drawn once in full, where the walk (operands in the order they are written,
    so the same program draws the same picture) first meets it; a later use says `-> see
    above`. A subtree deeper than the width allows (`max_depth`) is cut with `-> continued
    below` and drawn as a tree of its own after this one, so labels keep their columns and
    every node, down to the leaves, is drawn whatever the program's depth. Iterative:
    100,000-node programs cannot exhaust Python's recursion limit.
    """
    from rich.text import Text

    index_of = {node.name: i for i, node in enumerate(result.nodes)}
    deepest = max_depth(width)
    writer = _TreeWriter(width)
    drawn: set[int] = set()
    continued: set[int] = set()
    roots = [(result.output_index, "")]
    summarised = False
    while roots:
        root, note = roots.pop(0)
        if writer.lines:
            writer.lines.append(Text())
        # (depth, node, guides of its ancestors, its own connector, the guide under it)
        stack = [(0, root, "", "", "")]
        while stack:
            depth, index, prefix, connector, below = stack.pop()
            if index in drawn or (index in continued and depth):
                where = SEE_ABOVE if index in drawn else CONTINUED_BELOW
                writer.add(_reference(result, index, where), prefix, connector, below)
                continue
            node = result.nodes[index]
            # a leaf's label is short: drawn in place one level deeper rather than cut
            if depth > deepest + (node.kind != "op"):
                continued.add(index)
                roots.append((index, "continued"))
                writer.add(_reference(result, index, CONTINUED_BELOW), prefix, connector, below)
                continue
            drawn.add(index)
            summarised = summarised or node.value is not None and node.value.size > SUMMARY_THRESHOLD
            writer.add(_label(result, index, note if depth == 0 else ""), prefix, connector, below)
            children = [index_of[name] for name in dict.fromkeys(node.inputs)]
            inner = prefix + below
            for position in range(len(children) - 1, -1, -1):
                last = position == len(children) - 1
                stack.append(
                    (
                        depth + 1,
                        children[position],
                        inner,
                        "└── " if last else "├── ",
                        "    " if last else "│   ",
                    )
                )
    if summarised:
        writer.lines.append(Text())
        note = f"(tensors of more than {SUMMARY_THRESHOLD} elements summarised: gradcli grad ... --node NAME)"
        writer.add([Text(note, style="dim")], "", "", "")
    return writer.lines


# ---------------------------------------------------------------- Graphviz DOT


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string; `\\l` ends each line left-justified. What a user wrote
    (the program is the graph's label) is shown escaped where it is not printable."""
    escaped = visible(text, keep="\n").replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "\\l".join(escaped.split("\n")) + '\\l"'


TITLE_LINES = 12  # a long program titles its picture with its first lines and how many follow


def _title(expression: str) -> str:
    """The program as the picture's title; a long one cut, saying how much was left out."""
    lines = [part.strip() for part in expression.replace(";", "\n").splitlines() if part.strip()]
    if len(lines) <= TITLE_LINES:
        return expression
    rest = len(lines) - TITLE_LINES
    return "\n".join([*lines[:TITLE_LINES], f"... and {rest:,} more statements"])


FILL = {"leaf": "lightblue", "const": "lightgrey", "output": "darkolivegreen1", "op": "white"}


def to_dot(result: GradResult) -> str:
    """Graphviz source: one box per node, arrows in the direction values flow (torchviz style)."""
    lines = [
        "digraph gradcli {",
        '  graph [rankdir=TB, fontname="Helvetica", labelloc=t, label='
        + _dot_quote(_title(result.expression))
        + "];",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
    ]
    for index, node in enumerate(result.nodes):
        parts = [node.name + (f" {list(node.shape)}" if node.shape else "")]
        if node.kind == "op":
            parts.append(f"{node.op}: {node.grad_fn or 'grad_fn=None'}")
            if node.written or node.symbolic:
                parts.append(f"= {node.written or node.symbolic}")
        else:
            parts.append(kind_text(node))
        if result.numeric:
            parts.append(f"value {inline_value(node.value)}")
            if node.requires_grad:
                grad = f" = {node.name}.grad" if node.kind == "leaf" else ""
                parts.append(f"adjoint {inline_value(node.adjoint)}{grad}")
        elif node.adjoint_local and node.requires_grad:
            parts.append(f"adj_{node.name} = {node.adjoint_local}")
        role = "output" if index == result.output_index else node.kind
        lines.append(f"  n{index} [label={_dot_quote(chr(10).join(parts))}, fillcolor={FILL[role]}];")
    index_of = {node.name: i for i, node in enumerate(result.nodes)}
    for index, node in enumerate(result.nodes):
        for name in node.inputs:
            lines.append(f"  n{index_of[name]} -> n{index};")
    lines.append("}")
    return "\n".join(lines) + "\n"
