"""A parsed program: the small tree of numbers, names and op applications that parse.py makes
and graph.py builds a graph from (plain data, nothing evaluated)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Num:
    """A number literal (or pi/e); `text` keeps how it was written, for the symbolic form."""

    value: float
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class Ref:
    """A use of a name: an input or an earlier statement's result."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Apply:
    """An op applied to operand expressions, with its non-tensor arguments (dim=, keepdim=).

    `op` names a registry record, or a shaped Composite (cross_entropy, linear) that the
    graph expands into records once its operands' shapes are known."""

    op: str
    args: tuple[Expr, ...]
    line: int
    column: int
    attrs: tuple[tuple[str, Any], ...] = ()  # the op's params, every one given or defaulted
    # A step of a subscript such as x[0, 5]: its element's place in the index tuple (torch's
    # out-of-bounds error names that place), and on the first step the number of dims the
    # subscript indexes (torch refuses more than the tensor has first).
    subscript: tuple[int, int | None] | None = field(default=None, compare=False)


Expr = Num | Ref | Apply


@dataclass(frozen=True)
class Deferred:
    """An int argument written as an expression of sizes (`x.shape[0]`, `len(x) - 1`) or a
    `range(len(x))` index: the graph settles it once the shapes are known."""

    exprs: tuple[Expr, ...]
    what: str  # the argument's name, for errors
    kind: str = "int"  # one int; "range": range(*exprs); "shape": the sizes of exprs[0], x.shape


@dataclass(frozen=True)
class Statement:
    target: str | None  # None for a bare expression
    expr: Expr
    line: int
    in_place: bool = False  # `c += 1`: PyTorch's in-place op on the tensor `c` names


@dataclass(frozen=True)
class Program:
    """A parsed program: statements in order; the last one is the output."""

    source: str
    statements: tuple[Statement, ...]
    inputs: tuple[str, ...]  # free names, in order of first use
    multiline: bool
