"""Each node as the user wrote it (`relu(t2)`) and its chain-rule step (`adj_h * (t2 > 0)`).

The table shows what a learner writes for one step of backward(): a node's adjoint
from its consumers' adjoints, in node names, rather than the expanded expression.
Both come from the op registry (`Op.syntax` for the written form, `Op.step` for the
step), so a new op needs no edit here. Plain string work, linear in the graph: no sympy.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from . import engine
from .graph import Graph, Literal, Operand
from .ops import Op, broadcast_dims
from .program import Num

_PLACEHOLDER = re.compile(r"\b[abxA]\b")  # the operands in Op.syntax ("a + b", "sin(x)", "A.T")
_NUMBER = re.compile(r"\d+(\.\d*)?([eE][-+]?\d+)?")
_POWER_ONE = re.compile(r"\*\*1(?![\d.eE])")  # x**1, left by the step of x**2


def adjoint_name(name: str) -> str:
    """How a step refers to the adjoint of node NAME (the gradient backward() sends it)."""
    return f"adj_{name}"


def _number_text(value: float) -> str:
    # abs() first: int(inf) and int(nan) raise (a folded 3**700 is inf)
    return str(int(value)) if abs(value) < 1e15 and value == int(value) else format(value, ".12g")


class _Slot:
    """An operand as a template sees it; `{1:-1}` asks for the operand minus one."""

    def __init__(self, text: str, value: float | None = None) -> None:
        self.text = text
        self.value = value  # set only for a number as written, so `{1:-1}` can fold it

    def __format__(self, spec: str) -> str:
        if spec == "-1":
            if self.value is not None:
                return _slot(_number_text(self.value - 1))
            return f"({self.text} - 1)"
        return self.text


def _slot(text: str) -> str:
    """Names and unsigned numbers stand bare; anything else in parentheses."""
    return text if text.isidentifier() or _NUMBER.fullmatch(text) else f"({text})"


def _operand(graph: Graph, operand: Operand) -> _Slot:
    if isinstance(operand, int):
        return _Slot(graph.nodes[operand].name)
    assert isinstance(operand, Literal)
    if isinstance(operand.expr, Num):
        text = operand.expr.text
        return _Slot(_slot(text), operand.value if _NUMBER.fullmatch(text) else None)
    return _Slot(_slot(_number_text(operand.value)), operand.value)


def written_form(op: Op, operands: list[str], attrs: dict[str, Any]) -> str:
    """The op applied to the operands as a program writes it: `X @ W1`, `relu(t2)`, `sum(t1, dim=0)`."""
    if op.written is not None:
        return op.written(operands, attrs)
    first, order = _first_spelling(op.syntax)
    text = _PLACEHOLDER.sub(lambda m: operands[order.index(m.group())], first).replace(" ** ", "**")
    defaults = {param.name: param.default for param in op.params}
    extra = "".join(f", {k}={v!r}" for k, v in attrs.items() if k in defaults and v != defaults[k])
    if extra and text.endswith("()"):  # a method of no operands: x.view(size=(6,))
        extra = extra[2:]
    return text[:-1] + extra + ")" if extra and text.endswith(")") else text


@cache
def _first_spelling(syntax: str) -> tuple[str, list[str]]:
    """An op's first spelling ("a ** b, a ^ b, pow(a, b) ..." -> "a ** b") and its placeholders."""
    first = re.split(r", | or ", syntax)[0]
    order: list[str] = []
    for letter in _PLACEHOLDER.findall(first):
        if letter not in order:
            order.append(letter)
    return first, order


def written_forms(graph: Graph) -> list[str | None]:
    """Every op node's written form in its operands' names; None for inputs."""
    return engine.forward(
        graph.nodes,
        [None] * len(graph.nodes),
        lambda node: None,
        lambda node, _: written_form(node.op, [_operand(graph, o).text for o in node.operands], node.attrs),
    )


def _template(op: Op, position: int, shapes: tuple, attrs: dict) -> str:
    step = op.step[position]
    return step if isinstance(step, str) else step(shapes, attrs)


def _unbroadcast(term: str, operand_shape: tuple[int, ...], result_shape: tuple[int, ...]) -> str:
    """The adjoint of broadcasting is a sum: over added leading dims, then over stretched ones."""
    dims = broadcast_dims(operand_shape, result_shape)
    if not dims:
        return term
    extra = len(result_shape) - len(operand_shape)
    added = [d for d in dims if d < extra]
    stretched = [d - extra for d in dims if d >= extra]
    if added:
        term = f"sum({term}, {_dims_text(added)})"
    if stretched:
        term = f"sum({term}, {_dims_text(stretched)}, keepdim=True)"
    return term


def _dims_text(dims: list[int]) -> str:
    return str(dims[0]) if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")"


def local_steps(graph: Graph, seed: str = "1") -> list[str | None]:
    """Each node's adjoint as the sum of its consumers' steps; `seed` for the output.

    None where no gradient flows (consts, nodes the output does not depend on).
    """
    nodes = graph.nodes
    terms: list[list[str]] = [[] for _ in nodes]
    # Every grad edge, in program order (a node's terms read in the order its consumers were
    # written), including those from consumers the output does not reach: their adj_ shows
    # as "-", as the table shows such a node.
    current = None
    for node, position, operand in engine.edges(nodes, backward=False):
        if node is not current:
            current = node
            slots = [_operand(graph, o) for o in node.operands]
            shapes = tuple(graph.operand_shape(o) for o in node.operands)
            fields = {"g": adjoint_name(node.name), "out": node.name}
        template = _template(node.op, position, shapes, node.attrs)
        term = template.format(*slots, **fields)  # str.format calls _Slot.__format__ too
        if "**" in term:  # most steps have no power to tidy: skip the regex
            term = _POWER_ONE.sub("", term)
        if node.op.elementwise:  # other ops' steps already have the operand's shape
            term = _unbroadcast(term, nodes[operand].shape, node.shape)
        terms[operand].append(term)
    reached = engine.reaching(nodes, [graph.output])  # only what the output depends on gets an adjoint
    steps: list[str | None] = []
    for node in nodes:
        if node.index == graph.output:
            steps.append(seed)
        elif not reached[node.index] or not terms[node.index]:
            steps.append(None)
        else:
            steps.append(_join(terms[node.index]))
    return steps


def _join(terms: list[str]) -> str:
    text = terms[0]
    for term in terms[1:]:
        text += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return text
