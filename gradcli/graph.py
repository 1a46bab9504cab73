"""The computation graph: nodes in a stable topological order, built from a parsed program.

Nodes are kept in a list in the order the program creates them, which is already a
topological order (an operand always exists before its user), so no sort and no
recursion is needed. Sub-expressions made only of numbers are folded to Python
floats, as Python folds `2*3` before PyTorch ever sees it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from . import limits
from .errors import AutogradError, GradcliError, IndexOutOfRange, LimitError, ParseError, ShapeError
from .ops import COMPOSITES, NUMBER, REGISTRY, REWRITES, TENSOR, Op, Shape, dtypes, strides
from .ops.indexing import check_subscript, index_place
from .program import Apply, Deferred, Expr, Num, Program, Ref, Statement

LEAF, CONST, OP = "leaf", "const", "op"


@dataclass(frozen=True)
class Literal:
    """A plain number operand; `expr` is the literal sub-expression it was folded from."""

    value: float
    expr: Expr


Operand = int | Literal  # an int is the index of a node


@dataclass(frozen=True, eq=False)
class Node:
    index: int
    name: str
    kind: str  # LEAF, CONST or OP
    shape: Shape
    requires_grad: bool
    op: Op | None = None
    operands: tuple[Operand, ...] = ()
    attrs: dict = field(default_factory=dict)
    grad_fn: str | None = None
    dtype: str | None = dtypes.FLOAT  # what the tensor is in torch: float, int64 or bool; None unknown
    strides: Shape | None = None  # torch's strides (ops/strides.py); None: contiguous

    @property
    def is_leaf(self) -> bool:
        # PyTorch: tensors that do not require grad are leaves too, but only
        # requires_grad leaves get a .grad. We call inputs leaves and consts consts.
        return self.kind == LEAF

    def inputs(self) -> tuple[int, ...]:
        return tuple(o for o in self.operands if isinstance(o, int))


@dataclass(frozen=True, eq=False)
class Graph:
    program: Program
    nodes: tuple[Node, ...]
    output: int

    @property
    def leaves(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind == LEAF)

    @property
    def consts(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind == CONST)

    @property
    def elements(self) -> int:
        """Elements of every tensor in the graph: what one pass reads and writes."""
        return sum(math.prod(node.shape) for node in self.nodes)

    def operand_shape(self, operand: Operand) -> Shape:
        return self.nodes[operand].shape if isinstance(operand, int) else ()


@dataclass(frozen=True, eq=False)
class InputSpec:
    kind: str  # LEAF or CONST
    shape: Shape
    # torch's dtype of a const as its literal reads (int64 for [2, 0, 1], bool for [true]);
    # None when not known, which refuses nothing. A leaf is always floating.
    dtype: str | None = None
    value: np.ndarray | None = None  # the value, where known: a bool mask's selection needs it


def _where(program: Program, expr: Apply) -> str:
    if program.multiline:
        return f"line {expr.line}, column {expr.column}: "
    return f"column {expr.column}: "


def fold(op: Op, values: list[float], attrs: dict) -> float:
    """Evaluate an op on plain numbers as floats (9**9**9 is inf at once, not a hang)."""
    with np.errstate(all="ignore"):
        result = op.forward(*[np.float64(v) for v in values], **attrs)
    return float(np.asarray(result))


# What applying an op records, where torch's rule is not the op's own: shared by the graph
# built here and the tensors `gradcli run` records (script/runtime.apply_op).


def copies_to_view(op: Op, source_shape: Shape, source_layout: Shape, shape: Shape) -> bool:
    """A viewing op whose operand's layout cannot be viewed as `shape`: torch's reshape then
    records a clone and an _unsafe_view of the copy (at::reshape), and view refuses."""
    return bool(op.viewing) and strides.view_strides(source_shape, source_layout, shape) is None


def recorded_grad_fn(
    op: Op, kinds: list[str], shapes: list[Shape], attrs: dict, source_layout: Shape | None
) -> str:
    """The grad_fn torch records: the op's own, but ReshapeAliasBackward0 for a reshape that
    views a tensor that is not contiguous (`source_layout`: its operand's strides)."""
    if (
        op.viewing == "reshape"
        and source_layout is not None
        and not strides.is_contiguous(shapes[0], source_layout)
    ):
        return "ReshapeAliasBackward0"
    return op.grad_fn_for(kinds, shapes, attrs)


class _Builder:
    def __init__(self, program: Program, specs: dict[str, InputSpec]) -> None:
        self.program = program
        self.specs = specs
        self.nodes: list[Node] = []
        self.env: dict[str, Operand] = {}
        taken = set(program.inputs) | set(specs) | {s.target for s in program.statements if s.target}
        self.taken = taken
        self.used_names: set[str] = set()  # statement targets given to nodes so far
        self.node_names: set[str] = set()  # every node's name: node_name's check stays O(1)
        self.counter = 0
        self.elements = 0  # of every tensor in the graph so far, checked before allocating any

    def count_elements(self, shape: Shape, expr: Apply | Ref) -> None:
        """Refuse a graph whose tensors together would not fit in memory, before forward runs."""
        self.elements += math.prod(shape)
        if self.elements > limits.MAX_GRAPH_ELEMENTS:
            where = _where(self.program, expr) if isinstance(expr, Apply) else ""
            raise LimitError(
                f"{where}the graph's tensors would hold {limits.count_text(self.elements)} elements "
                f"together, over the limit MAX_GRAPH_ELEMENTS={limits.MAX_GRAPH_ELEMENTS:,}",
                hint="use smaller inputs, or split the work into several runs",
            )

    def fresh_name(self) -> str:
        while True:
            self.counter += 1
            name = f"t{self.counter}"
            if name not in self.taken:
                return name

    def add(self, node: Node) -> int:
        limits.check(len(self.nodes) + 1, limits.MAX_NODES, "number of graph nodes", "MAX_NODES")
        self.nodes.append(node)
        self.node_names.add(node.name)
        return node.index

    def resolve(self, ref: Ref) -> Operand:
        if ref.name in self.env:
            return self.env[ref.name]
        spec = self.specs.get(ref.name)
        if spec is None:  # the API checks inputs first; this is a safety net
            raise ParseError(f"name '{ref.name}' has no value", line=ref.line, column=ref.column)
        self.count_elements(spec.shape, ref)
        dtype = dtypes.FLOAT if spec.kind == LEAF else spec.dtype
        node = Node(len(self.nodes), ref.name, spec.kind, spec.shape, spec.kind == LEAF, dtype=dtype)
        index = self.add(node)
        self.env[ref.name] = index
        return index

    def apply(self, expr: Apply, operands: list[Operand], name: str | None) -> Operand:
        rewrite = REWRITES.get(expr.op)
        if rewrite is not None and any(isinstance(o, int) for o in operands):
            # v @ W with a 1-D v: the nodes torch records for these shapes (ops/products.py)
            rewritten = self.expand(expr, operands, name, rewrite)
            if rewritten is not None:
                return rewritten
        op = REGISTRY[expr.op]
        attrs = {key: self.settle(value, expr) for key, value in expr.attrs} if expr.attrs else {}
        # Each operand's facts in one pass (this runs once per op of every program).
        tensors: list[Node] = []
        kinds_of: list[str | None] = []  # dtypes, NUMBER for a number
        shapes: list[Shape] = []
        grads: list[bool] = []  # whether the operand requires grad
        numbers: list[float] = []
        for o in operands:
            if isinstance(o, int):
                node = self.nodes[o]
                tensors.append(node)
                kinds_of.append(node.dtype)
                shapes.append(node.shape)
                grads.append(node.requires_grad)
            else:
                kinds_of.append(dtypes.NUMBER)
                shapes.append(())
                grads.append(False)
                numbers.append(o.value)
        if op.refuses_masks and any(grads[1:]):  # x[w] with a leaf w: a float tensor, which torch refuses as an index
            raise ShapeError(
                f"{_where(self.program, expr)}tensors used as indices must be long, int, byte or bool tensors"
                " (give the indices with --const)"
            )
        if op.refuses_masks and any(kind == dtypes.BOOL for kind in kinds_of[1:]):
            attrs["key"] = self.mask_key(expr, operands, attrs["key"])
        if op.from_values is not None:  # F.one_hot(y): num_classes from y's values
            purpose = f"{op.name.lstrip('_')} reads its operand's values"
            attrs = op.from_values(attrs, lambda k: self.value_of(operands[k], expr, purpose))
        sizes = [v for v in attrs.values() if isinstance(v, tuple) and all(isinstance(n, int) for n in v)]
        if sizes and any(len(v) > limits.MAX_DIMS for v in sizes):  # x.reshape(1, 1, ..., 1) with 70 ones
            raise LimitError(
                f"{_where(self.program, expr)}{expr.op} asks for more than {limits.MAX_DIMS} dimensions, "
                f"over the limit MAX_DIMS={limits.MAX_DIMS}"
            )
        try:
            if expr.subscript is not None:
                check_subscript(expr.subscript, shapes[0])
            shape = op.shape(shapes, attrs)
            # after the shapes, as torch checks nll_loss's target rank before its dtype
            dtypes.check(op, kinds_of, grads)
        except IndexOutOfRange as exc:
            raise IndexOutOfRange(_where(self.program, expr) + index_place(exc.message, expr.subscript)) from None
        except ShapeError as exc:
            raise ShapeError(_where(self.program, expr) + exc.message) from None
        if len(shape) > limits.MAX_DIMS:
            raise LimitError(
                f"{_where(self.program, expr)}{expr.op} would make a tensor of {len(shape)} dimensions, "
                f"over the limit MAX_DIMS={limits.MAX_DIMS}"
            )
        if op.size_of is not None:  # x.shape[0], len(x): a number, from the shape
            try:
                size = op.size_of(shapes[0], attrs)
            except ShapeError as exc:
                raise ShapeError(_where(self.program, expr) + exc.message) from None
            return Literal(float(size), expr)
        if not tensors and op.new_dtype is None:
            # The folded expression is rebuilt from the operands' own expressions, so a
            # named constant (`n = 2; sin(n)`) appears as its number, never as a Ref.
            spelled = replace(expr, args=tuple(o.expr for o in operands))
            return Literal(fold(op, [o.value for o in operands], attrs), spelled)
        elements = math.prod(shape)
        if elements > limits.MAX_ELEMENTS:
            raise LimitError(
                f"{_where(self.program, expr)}{expr.op} would make a tensor of shape {list(shape)} "
                f"with {limits.count_text(elements)} elements, over the limit "
                f"MAX_ELEMENTS={limits.MAX_ELEMENTS:,}"
            )
        self.count_elements(shape, expr)
        if op.elementwise and all(node.strides is None for node in tensors):
            layouts, result_strides = [], None  # contiguous in, contiguous out: the common case
        else:
            layouts = [self.strides_of(o) if isinstance(o, int) else None for o in operands]
            result_strides = strides.result_strides(op, shapes, layouts, attrs, shape)
        if op.viewing and isinstance(operands[0], int):
            source = self.nodes[operands[0]]
            if copies_to_view(op, source.shape, layouts[0], shape):
                if op.viewing == "view":
                    raise ShapeError(_where(self.program, expr) + strides.VIEW_ERROR)
                # reshape of what cannot be viewed: torch copies, then views the copy
                copy = self.apply(Apply("clone", (), expr.line, expr.column), [operands[0]], None)
                size = Apply("_unsafe_view", (), expr.line, expr.column, (("size", shape),))
                return self.apply(size, [copy], name)
        requires_grad = op.differentiable and any(grads)
        dtype = dtypes.result_dtype(op, kinds_of, numbers, attrs)
        grad_fn = None
        if requires_grad:
            kinds = [TENSOR if isinstance(o, int) else NUMBER for o in operands]
            grad_fn = recorded_grad_fn(op, kinds, shapes, attrs, layouts[0] if layouts else None)
        node = Node(
            index=len(self.nodes),
            name=name or self.fresh_name(),
            kind=OP,
            shape=shape,
            requires_grad=requires_grad,
            op=op,
            operands=tuple(operands),
            attrs=attrs,
            grad_fn=grad_fn,
            dtype=dtype,
            strides=None
            if result_strides is None or strides.is_contiguous(shape, result_strides)
            else result_strides,
        )
        return self.add(node)

    def strides_of(self, index: int) -> Shape:
        node = self.nodes[index]
        return node.strides if node.strides is not None else strides.contiguous(node.shape)

    def settle(self, value: object, expr: Apply) -> object:
        """An argument as the op takes it: a size written as an expression (`x.shape[0]`,
        `range(len(x))`) becomes its int(s) now that the shapes are known."""
        if isinstance(value, tuple):
            return tuple(self.settle(item, expr) for item in value)
        if not isinstance(value, Deferred):
            return value
        numbers = []
        for part in value.exprs:
            result = self.expression(part, None)
            if value.kind == "shape":
                if not isinstance(result, int):
                    raise ShapeError(f"{_where(self.program, expr)}{value.what}: a number has no shape")
                return tuple(self.nodes[result].shape)
            number = self.number_of(result, value.what, expr)
            if not (math.isfinite(number) and number == int(number)) or abs(number) > limits.MAX_ELEMENTS:
                raise ShapeError(
                    f"{_where(self.program, expr)}{value.what} must be an integer, not {number:g}"
                )
            numbers.append(int(number))
        if value.kind != "range":
            return numbers[0]
        span = range(*numbers)
        limits.check(len(span), limits.MAX_INDEX_LITERAL, "range() length", "MAX_INDEX_LITERAL")
        return tuple(span)

    def number_of(self, operand: Operand, what: str, expr: Apply) -> float:
        """A number operand's value; a 0-d int64 --const (a batch size n) counts as its value,
        as torch's range(n) and view(n, -1) take a 0-d integer tensor through __index__."""
        if isinstance(operand, Literal):
            return operand.value
        node = self.nodes[operand]
        spec = self.specs.get(node.name) if node.kind == CONST else None
        if node.shape == () and node.dtype == dtypes.INT64 and spec is not None and spec.value is not None:
            return float(spec.value)
        raise ShapeError(f"{_where(self.program, expr)}{what} must be a number, not a tensor")

    def mask_key(self, expr: Apply, operands: list[Operand], key: tuple) -> tuple:
        """x[mask]: a bool index tensor selects where it is True, so the result's length is the
        mask's count, known from its value now: ("mask", k, dims, count) for index operand k."""
        shape = self.nodes[operands[0]].shape
        result, dim = [], 0
        for entry in key:
            if entry[0] != "tensor" or self.nodes[operands[1 + entry[1]]].dtype != dtypes.BOOL:
                result.append(entry)
                dim += 1
                continue
            needed = "indexing with a bool mask needs the mask's values"
            mask = self.value_of(operands[1 + entry[1]], expr, needed)
            if mask.ndim == 0:
                raise ShapeError(
                    f"{_where(self.program, expr)}a 0-d bool index is not supported; index with a 1-D mask"
                )
            if dim + mask.ndim > len(shape):
                raise ShapeError(
                    f"{_where(self.program, expr)}too many indices for tensor of dimension {len(shape)}"
                )
            for i, size in enumerate(mask.shape):
                if size != shape[dim + i]:
                    raise ShapeError(
                        f"{_where(self.program, expr)}The shape of the mask {list(mask.shape)} at index {i} does "
                        f"not match the shape of the indexed tensor {list(shape)} at index {dim + i}"
                    )
            result.append(("mask", entry[1], mask.ndim, int(np.count_nonzero(mask))))
            dim += mask.ndim
        return tuple(result)

    def value_of(self, operand: Operand, expr: Apply, purpose: str) -> np.ndarray:
        """An operand's value while the graph is built, from the inputs' values (iteratively);
        `purpose` says why it is needed, for the error when a value is not known."""
        if isinstance(operand, Literal):
            return np.asarray(operand.value)
        known: dict[int, np.ndarray] = {}
        stack = [operand]
        while stack:
            index = stack[-1]
            node = self.nodes[index]
            if node.kind != OP:
                spec = self.specs.get(node.name)
                if spec is None or spec.value is None:
                    raise ShapeError(
                        f"{_where(self.program, expr)}{purpose}, "
                        f"and '{node.name}' has none here (give it with --at or --const; not with --batch)"
                    )
                known[index] = np.asarray(spec.value)
                stack.pop()
                continue
            missing = [o for o in node.inputs() if o not in known]
            if missing:
                stack.extend(missing)
                continue
            args = [known[o] if isinstance(o, int) else o.value for o in node.operands]
            with np.errstate(all="ignore"):
                known[index] = np.asarray(node.op.forward(*args, **node.attrs))
            stack.pop()
        value = known[operand]
        return value != 0 if self.nodes[operand].dtype == dtypes.BOOL else value

    def expression(self, root: Expr, target: str | None) -> Operand:
        """Post-order walk with an explicit stack; the root op takes the statement's name.

        Operands wait on a value stack, first operand deepest, as in parse.convert.
        """
        values: list[Operand] = []
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            expr, ready = stack.pop()
            if isinstance(expr, Num):
                values.append(Literal(expr.value, expr))
            elif isinstance(expr, Ref):
                values.append(self.resolve(expr))
            elif not ready:
                stack.append((expr, True))
                stack.extend([(arg, False) for arg in reversed(expr.args)])
            else:
                arity = len(expr.args)  # 0 for a constructor: values[-0:] would be every value
                operands = values[len(values) - arity :]
                del values[len(values) - arity :]
                name = target if expr is root else None
                if expr.op in REGISTRY:
                    values.append(self.apply(expr, operands, name))
                else:
                    values.append(self.expand(expr, operands, name))
        return values[0]

    def expand(
        self,
        expr: Apply,
        operands: list[Operand],
        name: str | None,
        build: Callable[..., Operand | None] | None = None,
    ) -> Operand | None:
        """A shaped composite (cross_entropy, linear): the nodes torch records for these shapes.

        `build` is a registry rewrite instead (ops.REWRITES): it may return None, and the op
        is then recorded as itself (its inner use of the same op has other shapes)."""
        rewrite = build is not None
        if build is None:
            composite = COMPOSITES[expr.op]
            build, arity = composite.build, composite.arity
        else:
            arity = len(operands)
        if not any(isinstance(o, int) for o in operands):
            raise ShapeError(f"{_where(self.program, expr)}{expr.op}() takes tensors, not only numbers")
        padded = [*operands, *[None] * (arity - len(operands))]
        shapes = tuple(
            None if o is None else self.nodes[o].shape if isinstance(o, int) else () for o in padded
        )
        kinds = tuple(self.nodes[o].dtype if isinstance(o, int) else dtypes.NUMBER for o in padded)
        layouts = tuple(self.strides_of(o) if isinstance(o, int) else None for o in padded)
        first = len(self.nodes)

        def apply(op_name: str, *args: Operand | float, **given: object) -> Operand:
            op = REGISTRY[op_name]
            attrs = {param.name: param.default for param in op.params}
            attrs.update(given)
            args_ = [
                a
                if isinstance(a, (int, Literal))
                else Literal(float(a), Num(float(a), repr(float(a)), expr.line, expr.column))
                for a in args
            ]
            return self.apply(Apply(op_name, (), expr.line, expr.column, tuple(attrs.items())), args_, None)

        try:
            # a rewrite also reads which operands require grad (at::matmul's should_fold does)
            grads = tuple(isinstance(o, int) and self.nodes[o].requires_grad for o in padded)
            extra = {"grads": grads} if rewrite else {}
            # sizes written as expressions (stride=x.shape[0]) settled: the build reads them as ints
            attrs = {key: self.settle(value, expr) for key, value in expr.attrs}
            result = build(apply, *padded, shapes=shapes, dtypes=kinds, strides=layouts, **extra, **attrs)
            if result is None:
                return None
        except ShapeError as exc:  # the composite's own checks (label_smoothing) need the location
            where = _where(self.program, expr)
            if exc.message.startswith(where):
                raise
            raise ShapeError(where + exc.message) from None
        if name is not None and isinstance(result, int) and result >= first:
            self.nodes[result] = replace(self.nodes[result], name=name)  # the statement's name
            self.node_names.add(name)
        return result

    def node_name(self, target: str) -> str:
        """The name a statement's result shows: its target, or for a rebinding (`y = y + 1`,
        `c += 1`) the target with its binding's number, `y_2`, so the table tells them apart."""
        first = target not in self.used_names and target not in self.program.inputs
        if first and target not in self.node_names:
            self.used_names.add(target)
            return target
        number = 2
        while f"{target}_{number}" in self.taken or f"{target}_{number}" in self.used_names:
            number += 1
        self.used_names.add(f"{target}_{number}")
        return f"{target}_{number}"

    def check_in_place(self, statement: Statement) -> None:
        """PyTorch refuses an in-place op on a leaf that requires grad."""
        current = self.env.get(statement.target) if statement.target else None
        if current is None and statement.target in self.specs:
            spec = self.specs[statement.target]
            leaf = spec.kind == LEAF
        else:
            leaf = (
                isinstance(current, int) and self.nodes[current].is_leaf and self.nodes[current].requires_grad
            )
        if leaf:
            raise AutogradError(
                "a leaf Variable that requires grad is being used in an in-place operation.",
                hint=f"write {statement.target}2 = {statement.target} + ... to make a new tensor instead",
            )

    def build(self) -> Graph:
        output: Operand | None = None
        for statement in self.program.statements:
            if statement.in_place:
                self.check_in_place(statement)
            name = None if statement.target is None else self.node_name(statement.target)
            output = self.expression(statement.expr, name)
            if statement.target is not None:
                self.env[statement.target] = output
        if isinstance(output, Literal):
            raise GradcliError(
                f"the output is the constant number {output.value:g}; it must depend on an input",
                hint='give it a name with a value, as in "(2*x)**3" --at x=2',
            )
        assert output is not None
        return Graph(self.program, tuple(self.nodes), output)


def build_graph(program: Program, specs: dict[str, InputSpec]) -> Graph:
    """Nodes for every input used and every op applied, in a topological order."""
    return _Builder(program, specs).build()
