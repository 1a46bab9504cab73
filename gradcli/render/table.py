"""Tables a teacher can project: the graph node by node, the leaves' gradients, the passes.

Each node is one row that fits the console's width: name, grad_fn, shape, form, value,
adjoint and its chain-rule step. When the width is short, the step and then the form move
to a line under the row, then grad_fn loses its "Backward" (the note says how to see it
whole); tensors too wide for their cell end in `…` and are printed whole, rows
aligned, below it for the nodes named with --node; the leaves' gradients always are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from .grid import NUMBER, TEXT, Column, draw, fit, wrap
from .safe_text import visible
from .values import ELLIPSIS, block, summary

if TYPE_CHECKING:
    from ..results import GradResult, NodeResult


MAX_TABLE_NODES = 200
NARROWEST = 40  # a width below this is treated as this


def _grad_fn(node: NodeResult, short: bool = False) -> str:
    """PyTorch shows grad_fn=None for leaves and for tensors that do not require grad."""
    if node.grad_fn:
        return node.grad_fn.replace("Backward", "") if short else node.grad_fn
    kind = {"leaf": "leaf", "const": "const"}.get(node.kind, "no grad")
    return kind if short else f"None ({kind})"


@dataclass(frozen=True)
class _Layout:
    """One way to lay the node table out; `render` takes the first that fits."""

    form_column: bool  # else the form goes under the row
    step_column: bool  # else the chain-rule step goes under the row
    short_grad_fn: bool
    floor: int  # narrowest tensor cell
    grad_fn_column: bool = True  # else grad_fn goes under the row (BinaryCrossEntropyWithLogits0 at 60)


LAYOUTS = (
    _Layout(True, True, False, 16),
    _Layout(True, False, False, 16),
    _Layout(False, False, False, 12),
    _Layout(False, False, True, 10),
    _Layout(False, False, True, 3),
    _Layout(False, False, False, 3, grad_fn_column=False),
)


def _shown(result: GradResult) -> list[int | None]:
    """Indices of the nodes in the table; None stands for the skipped middle of a huge graph."""
    count = len(result.nodes)
    if count <= MAX_TABLE_NODES:  # a 10,000-node table helps nobody and takes seconds
        return list(range(count))
    half = MAX_TABLE_NODES // 2
    return [*range(half), None, *range(count - half, count)]


def _name(result: GradResult, index: int | None, mark: bool = True) -> str:
    """The node's name; the output's says so unless space is short (the heading names it)."""
    if index is None:
        return ""  # the line under the row says how many are left out
    node = result.nodes[index]
    return node.name + (" (out)" if mark and index == result.output_index else "")


def _node_columns(result: GradResult, rows: list[int | None], layout: _Layout) -> list[Column]:
    nodes = [None if i is None else result.nodes[i] for i in rows]
    columns = [Column("node", [_name(result, i, not layout.short_grad_fn) for i in rows], style="bold")]
    if layout.grad_fn_column:
        columns.append(Column("grad_fn", [_grad_fn(n, layout.short_grad_fn) if n else "" for n in nodes]))
    if any(n.shape for n in result.nodes):
        columns.append(Column("shape", [str(list(n.shape)) if n else "" for n in nodes]))
    symbolic = any(n.written for n in result.nodes)  # --no-symbolic: no forms, no steps
    if layout.form_column and symbolic:
        columns.append(Column("form", [(n.written or "") if n else "" for n in nodes]))
    if result.numeric:
        values = [n.value if n else "" for n in nodes]
        columns.append(Column("value", values, kind=NUMBER, right=True, floor=layout.floor))
        adjoints = [n.adjoint if n else "" for n in nodes]
        columns.append(Column("adjoint", adjoints, kind=NUMBER, right=True, floor=layout.floor))
    if layout.step_column and symbolic:
        steps = [(n.adjoint_local or "-") if n else "" for n in nodes]
        columns.append(Column("chain rule", steps))
    return columns


def _sublines(result: GradResult, rows: list[int | None], layout: _Layout) -> list[list[str]]:
    """What did not fit in the row: `t1 = X @ W1;  adj_t1 = adj_t2`."""
    lines = []
    for index in rows:
        if index is None:
            lines.append(
                [f"... {len(result.nodes) - MAX_TABLE_NODES:,} more nodes (--format json has them all)"]
            )
            continue
        node = result.nodes[index]
        parts = []
        if not layout.grad_fn_column:
            parts.append(f"grad_fn={_grad_fn(node)}")
        if not layout.form_column and node.written:
            parts.append(f"{node.name} = {node.written}")
        if not layout.step_column and node.adjoint_local:
            parts.append(f"adj_{node.name} = {node.adjoint_local}")
        lines.append([";  ".join(parts)] if parts else [])
    return lines


def _cut(column: Column, value, width: int) -> bool:
    return value is not None and ELLIPSIS in summary(value, width)


def _node_table(result: GradResult, width: int) -> tuple[list[Text], set[int]]:
    """The node table's lines, and the nodes whose value or adjoint it had to cut."""
    rows = _shown(result)
    for layout in LAYOUTS:
        columns = _node_columns(result, rows, layout)
        widths = fit(columns, width)
        if widths is not None or layout is LAYOUTS[-1]:
            break
    if widths is None:  # not even the narrowest layout: fixed cells wider than the console
        widths = [c.measure()[0] for c in columns]
    output = result.output.name
    title = "Graph, in topological order"
    if result.numeric or any(n.adjoint_local for n in result.nodes):
        title += f" (adj_N = d{output}/dN, what backward() sends node N)"
    lines = [Text(title)] if len(title) <= width else [Text("Graph, in topological order"), Text(title[28:])]
    lines.append(Text(""))
    lines += draw(columns, widths, _sublines(result, rows, layout), sub_width=width)
    if layout.short_grad_fn:
        lines += _note("grad_fn without 'Backward' (Mul0 is MulBackward0); --width 80 shows it whole", width)
    cut = set()
    for column, w in zip(columns, widths):
        if column.kind == NUMBER:
            cut |= {i for i, v in zip(rows, column.cells) if i is not None and _cut(column, v, w)}
    return lines, cut


def _blocks(title: str, items: list[tuple[str, list[tuple[str, object]]]], width: int) -> list[Text]:
    """Tensors whole, one block per node: its name line, then each tensor with aligned rows."""
    lines = [Text(title)]
    for heading, tensors in items:
        lines.append(Text(""))
        lines.append(Text(heading, style="bold"))
        label = max(len(name) for name, _ in tensors) + 2
        for name, value in tensors:
            text = ["-"] if value is None else block(value, width - 2 - label)
            lines.append(Text("  " + name.ljust(label) + text[0]))
            lines.extend(Text("  " + " " * label + rest) for rest in text[1:])
    return lines


def _node_blocks(result: GradResult, cut: set[int], chosen: tuple[str, ...], width: int) -> list[Text]:
    """The nodes chosen with --node, whole; else one line on how to see the cut ones whole."""
    if not chosen:
        if not cut:
            return []
        names = [result.nodes[i].name for i in sorted(cut)]
        hint = f"--node {names[0]}" + (f" --node {names[1]}" if len(names) > 1 else "")
        return _note(f"{ELLIPSIS} cut to fit: {hint} prints a node's value and adjoint whole", width)
    items = []
    for node in _by_name(result, chosen):
        heading = node.name + (f" = {node.written}" if node.written else "") + f"  {list(node.shape)}"
        items.append((heading, [("value", node.value), ("adjoint", node.adjoint)]))
    return [Text(""), *_blocks("Chosen with --node, whole:", items, width)]


def _by_name(result: GradResult, names: tuple[str, ...]) -> list[NodeResult]:
    by_name = {n.name: n for n in result.nodes}
    return [by_name[name] for name in dict.fromkeys(names) if name in by_name]


def _grad_table(result: GradResult, width: int) -> list[Text]:
    title = "Leaf gradients (.grad)" if result.order == 1 else f"Derivatives up to order {result.order}"
    leaves = result.leaves
    columns = [Column("leaf", [leaf.name for leaf in leaves], style="bold")]
    if result.numeric and result.order > 1:
        for k in range(1, result.order + 1):
            values = [(result.derivatives.get(leaf.name) or (None,) * k)[k - 1] for leaf in leaves]
            columns.append(Column(f"order {k}", values, kind=NUMBER, right=True))
    elif result.numeric:
        columns.append(
            Column("grad", [result.grads.get(leaf.name) for leaf in leaves], kind=NUMBER, right=True)
        )
    readable = [result.grad_readable.get(leaf.name) for leaf in leaves]
    symbolic = [
        result.formula(leaf.name) if found else result.grad_symbolic.get(leaf.name) or "-"
        for leaf, found in zip(leaves, readable)
    ]
    header = "symbolic" if result.order == 1 else f"symbolic (order {result.order})"
    if len(result.passes) > 1:  # .grad has accumulated; the formula is one backward()'s
        header = "symbolic (one pass)"
    lines = [Text(title), Text("")]
    if any(found is not None and len(found) > 1 for found in readable):
        # named subexpressions: each leaf's formula under its row, each name defined once
        widths = fit(columns, width) or [c.measure()[0] for c in columns]
        return (
            lines
            + draw(columns, widths, _formula_lines(leaves, readable, symbolic), sub_width=width)
            + _cut_blocks(columns, widths, leaves, width)
        )
    widths = fit([*columns, Column(header, symbolic, kind=TEXT)], width)
    if widths is not None:
        columns.append(Column(header, symbolic, kind=TEXT))
        lines += draw(columns, widths)
    else:  # a formula too long for the row goes under it, wrapped
        widths = fit(columns, width) or [c.measure()[0] for c in columns]
        lines += draw(columns, widths, [[f"{header}: {s}"] for s in symbolic])
    return lines + _cut_blocks(columns, widths, leaves, width)


def _formula_lines(leaves, readable, symbolic) -> list[list[str]]:
    shown: set[str] = set()
    result = []
    for leaf, found, fallback in zip(leaves, readable, symbolic):
        if found is None:
            result.append([f"{leaf.name}.grad = {fallback}"])
            continue
        result.append([found[0], *(line for line in found[1:] if line not in shown)])
        shown.update(found[1:])
    return result


def _cut_blocks(columns, widths, leaves, width) -> list[Text]:
    lines: list[Text] = []
    cut = [
        (leaf.name, value)
        for column, w in zip(columns, widths)
        if column.kind == NUMBER
        for leaf, value in zip(leaves, column.cells)
        if _cut(column, value, w)
    ]
    if cut:
        items = [
            (f"{name}.grad  {list(getattr(value, 'shape', ()))}", [("grad", value)]) for name, value in cut
        ]
        lines += [Text(""), *_blocks(f"Gradients cut with {ELLIPSIS} above, whole:", items, width)]
    return lines


def _pass_table(result: GradResult, width: int) -> list[Text]:
    columns = [
        Column("pass", [str(r.index) for r in result.passes], right=True),
        Column("gradient", [r.gradient for r in result.passes], kind=NUMBER, right=True),
    ]
    for leaf in result.leaves:
        values = [r.grads.get(leaf.name) for r in result.passes]
        columns.append(Column(f"{leaf.name}.grad", values, kind=NUMBER, right=True))
    widths = fit(columns, width) or [c.measure()[0] for c in columns]
    lines = [Text("Passes: .grad after each"), Text(""), *draw(columns, widths)]
    if any(_cut(c, v, w) for c, w in zip(columns, widths) if c.kind == NUMBER for v in c.cells):
        lines += _note(f"{ELLIPSIS}: --format json has every pass's tensors whole", width)
    return lines


def _heading(result: GradResult, width: int) -> list[Text]:
    """`output loss = 0.141256  grad_fn=MeanBackward0  dtype=float64`, a tensor summarised to fit."""
    out = result.output
    prefix = f"output {out.name} = "
    suffix = f"  grad_fn={out.grad_fn}  dtype={result.dtype}"
    room = width - len(prefix) - len(suffix)
    value = summary(out.value, max(room, width - len(prefix)) if room < 12 else room)
    first = Text.assemble(("output ", "dim"), (out.name, "bold"), f" = {value}")
    if len(prefix) + len(value) + len(suffix) <= width:
        first.append(suffix, style="dim")
        return [first]
    return [first, Text(suffix.strip(), style="dim")]


def _note(text: str, width: int, style: str = "") -> list[Text]:
    return [Text(line, style=style) for line in wrap(text, width)]


def render(result: GradResult, console: Console, nodes: tuple[str, ...] = ()) -> None:
    """Print the tables at the console's width; `nodes` chooses the nodes printed whole."""
    width = max(console.width, NARROWEST)
    lines: list[Text] = _heading(result, width) if result.numeric else []
    table, cut = _node_table(result, width)
    lines += table
    if result.numeric and len(result.passes) > 1:  # one adjoint column, several passes
        last = result.passes[-1].index
        lines += _note(
            f"adjoint, chain rule: pass {last} only (the last); .grad after each pass is at the end",
            width,
            style="dim",
        )
    if result.numeric:
        lines += _node_blocks(result, cut, nodes, width)
    lines.append(Text(""))
    lines += _grad_table(result, width)
    if len(result.passes) > 1:
        lines.append(Text(""))
        lines += _pass_table(result, width)
    for warning in result.warnings:
        lines += _note(f"warning: {visible(warning)}", width, style="yellow")
    for line in lines:
        console.print(line, no_wrap=True, crop=False, overflow="ignore", soft_wrap=True)
