"""Each node as the user wrote it (`relu(t2)`): the table's form column.

From the op registry (`Op.syntax`'s first spelling, or `Op.written`), so a new op needs
no edit here. Plain string work, linear in the graph: no sympy. (The chain-rule step
beside it is the op's VJP rule read off the tape of formulas: formula_text.py.)
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from . import engine
from .graph import Graph, Literal, Operand
from .ops import Op
from .program import Num

_PLACEHOLDER = re.compile(r"\b[abxA]\b")  # the operands in Op.syntax ("a + b", "sin(x)", "A.T")
_NUMBER = re.compile(r"\d+(\.\d*)?([eE][-+]?\d+)?")


def _number_text(value: float) -> str:
    # abs() first: int(inf) and int(nan) raise (a folded 3**700 is inf)
    return str(int(value)) if abs(value) < 1e15 and value == int(value) else format(value, ".12g")


def _slot(text: str) -> str:
    """Names and unsigned numbers stand bare; anything else in parentheses."""
    return text if text.isidentifier() or _NUMBER.fullmatch(text) else f"({text})"


def _operand(graph: Graph, operand: Operand) -> str:
    if isinstance(operand, int):
        return graph.nodes[operand].name
    assert isinstance(operand, Literal)
    if isinstance(operand.expr, Num):
        return _slot(operand.expr.text)
    return _slot(_number_text(operand.value))


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
        lambda node, _: written_form(node.op, [_operand(graph, o) for o in node.operands], node.attrs),
    )
