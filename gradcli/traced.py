"""The create_graph interpretation: the registry's rules run on traced tensors.

A VJP rule is array code written with registry ops and NumPy's spellings of them
(`g * np.cos(a)`, `call("tanh_backward", g, out)`). Given Traced operands, Python's
operators, NumPy's dispatch protocols (__array_ufunc__, __array_function__) and
`core.call` hand every step to `Tape.apply`, which applies the registry op of the same
meaning and records it as a node. So a backward pass over traced values builds a new
graph of registry ops, with PyTorch's grad_fn names, that the same engine runs forward,
backward and traces again: double backward, as torch.autograd.grad(create_graph=True).

A rule that steps outside the registry (np.asarray of a traced value, an in-place
scatter) raises Untraceable, naming the call; tests run every op through this path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .errors import GradcliError
from .graph import CONST, LEAF, OP, Graph, Literal, Node, Operand
from .ops import NUMBER, REGISTRY, TENSOR
from .ops.summation import torch_sum
from .program import Num


class Untraceable(GradcliError):
    """A rule used an array call that has no registry op of the same meaning."""


# A rule that does not run on traced values may fail inside NumPy before our protocols see
# it (grad[key] = g asks the value for a sequence): all mean "not this way".
CANNOT_TRACE = (Untraceable, TypeError, ValueError, AttributeError)


def _ufunc_ops() -> dict[str, str]:
    """NumPy's ufuncs and the registry ops that mean the same (same numbers, same
    conventions): the registry's own NumPy spellings (np.arcsin is asin, ops/__init__.py),
    then what a rule's masks mean on a tape."""
    from .ops import NUMPY_SPELLINGS

    found = {
        name: spelling.op
        for name, spelling in NUMPY_SPELLINGS.items()
        if isinstance(getattr(np, name, None), np.ufunc) and not spelling.numbers
    }
    # float_power is pow in float64, as every tape computes; masks (0/1, never requiring
    # grad) combine as numbers do
    return {**found, "float_power": "pow", "logical_and": "mul", "logical_or": "maximum"}


UFUNC_OPS = _ufunc_ops()


class Traced(NDArrayOperatorsMixin):
    """A value on a tape: the node that made it, so every use becomes a node too.

    Operators (`g * a`, `a > 0`) are NumPy's mixin: each calls __array_ufunc__ with its ufunc."""

    __slots__ = ("tape", "index")
    __array_priority__ = 1000  # ndarray op Traced defers to Traced's reflected operator

    def __init__(self, tape: Tape, index: int) -> None:
        self.tape, self.index = tape, index

    def __repr__(self) -> str:
        node = self.tape.nodes[self.index]
        return f"Traced({node.name}, {node.grad_fn or node.kind}, shape={list(node.shape)})"

    @property
    def value(self) -> np.ndarray:
        return self.tape.values[self.index]

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tape.nodes[self.index].shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        value = self.value
        return self.tape.dtype if value is None else value.dtype

    @property
    def requires_grad(self) -> bool:
        return self.tape.nodes[self.index].requires_grad

    def apply_op(self, name: str, *operands: Any, **attrs: Any) -> Any:
        """core.call's hook: a rule's registry call on a traced operand records a node."""
        return self.tape.apply(name, *operands, **attrs)

    def anywhere(self) -> bool:
        """core.anywhere's hook: the recorded numbers answer, as torch's backward reads them
        (a tape of formulas has none: its rules take the general path, no input at zero)."""
        value = self.value
        return False if value is None else bool(np.any(value))

    def sum_to(self, shape: tuple[int, ...]) -> Any:
        """unbroadcast, recorded as PyTorch's at::sum_to records it."""
        from .ops.core import _sum_to_traced

        return _sum_to_traced(self, shape)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise Untraceable("a rule turned a traced tensor into a plain array (np.asarray)")

    # Python's operators come from NDArrayOperatorsMixin, through __array_ufunc__ below.
    def __pos__(self) -> Traced:
        return self

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        raise Untraceable("a rule read a number out of a traced value")

    __int__ = __index__ = __float__  # type: ignore[assignment]

    def __len__(self) -> int:
        raise Untraceable("a rule took the length of a traced value")

    def __getitem__(self, key: Any) -> Any:
        raise Untraceable("a rule indexed a traced value")

    def __bool__(self) -> bool:
        raise Untraceable("a rule branched on a traced tensor's value")

    # -- the few array methods rules use
    @property
    def T(self) -> Any:  # noqa: N802 - NumPy's name
        return self.tape.apply("t", self) if self.ndim == 2 else self

    def sum(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _sum(self, axis, keepdims)

    def reshape(self, *shape: Any) -> Any:
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self.tape.apply("reshape", self, shape=tuple(int(n) for n in shape))

    def astype(self, dtype: Any, copy: bool = True) -> Traced:
        return self  # masks are held as 0/1 in the graph's float dtype already

    # -- NumPy's protocols
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        name = UFUNC_OPS.get(ufunc.__name__)
        if method != "__call__" or kwargs.get("out") is not None or name is None:
            raise Untraceable(
                f"a rule called np.{ufunc.__name__}{'' if method == '__call__' else '.' + method}"
            )
        return _tape_of(inputs).apply(name, *inputs)

    def __array_function__(self, func: Any, types: Any, args: Sequence[Any], kwargs: dict) -> Any:
        rule = ARRAY_FUNCTIONS.get(func.__name__)
        if rule is None:
            raise Untraceable(f"a rule called np.{func.__name__}")
        return rule(*args, **kwargs)


def _tape_of(values: Sequence[Any]) -> Tape:
    return next(v.tape for v in values if isinstance(v, Traced))


def _sum(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if not isinstance(a, Traced):
        return torch_sum(a, axis, keepdims)
    if axis is None and not keepdims:
        return a.tape.apply("sum", a)
    axes = tuple(range(a.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    if len(axes) == 1:
        return a.tape.apply("sum", a, dim=int(axes[0]), keepdim=bool(keepdims))
    kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    summed = a.tape.apply("sum_to", a, size=kept)
    if keepdims:
        return summed
    return a.tape.apply("view", summed, size=tuple(n for i, n in enumerate(a.shape) if i not in axes))


def _where(condition: Any, a: Any, b: Any) -> Any:
    return _tape_of((condition, a, b)).apply("where", condition, a, b)


def _broadcast_to(a: Any, shape: Sequence[int], subok: bool = False) -> Any:
    shape = tuple(int(n) for n in shape)
    if tuple(np.shape(a)) == shape:
        return a
    return a.tape.apply("expand", a, size=shape)


def _expand_dims(a: Any, axis: int) -> Any:
    return a.tape.apply("unsqueeze", a, dim=int(axis))


def _zeros_like(a: Any, dtype: Any = None, **kwargs: Any) -> np.ndarray:
    return np.zeros(a.shape, dtype=a.dtype)  # a constant: a zero gradient carries no graph


def _ones_like(a: Any, dtype: Any = None, **kwargs: Any) -> np.ndarray:
    return np.ones(a.shape, dtype=a.dtype)


def _outer(a: Any, b: Any) -> Any:
    tape = _tape_of((a, b))
    return tape.apply("mul", tape.apply("unsqueeze", a, dim=1), b)


ARRAY_FUNCTIONS = {
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
    "sum": _sum,
    "where": _where,
    "broadcast_to": _broadcast_to,
    "expand_dims": _expand_dims,
    "zeros_like": _zeros_like,
    "ones_like": _ones_like,
    "outer": _outer,
    "result_type": lambda *arrays: np.result_type(*(a.dtype if isinstance(a, Traced) else a for a in arrays)),
    "transpose": lambda a, axes=None: a.T if axes is None else a.tape.apply("permute", a, dims=tuple(axes)),
    "reshape": lambda a, shape, **kw: a.reshape(shape),
}


class WrappedNumber(float):
    """A Python number operand of `x * 2` or `x / 2`: torch wraps it in a 0-d tensor (mul.Tensor),
    so a rule's product with it is recorded as MulBackward0, not as a number written in a
    formula is (mul.Scalar, MulBackward1). Arithmetic on it gives plain floats."""


# Ops whose Python-number operands torch wraps as tensors, whose VJPs multiply or divide by them.
_WRAPS_NUMBERS = ("mul", "div")


def _wrapped(graph: Graph) -> Graph:
    """The graph with its number operands of mul and div marked as torch's wrapped numbers."""
    nodes = []
    for node in graph.nodes:
        if node.kind == OP and node.op.name in _WRAPS_NUMBERS and any(
            isinstance(o, Literal) for o in node.operands
        ):
            operands = tuple(
                Literal(WrappedNumber(o.value), o.expr) if isinstance(o, Literal) else o for o in node.operands
            )
            node = replace(node, operands=operands)
        nodes.append(node)
    return Graph(graph.program, tuple(nodes), graph.output)


def scalar_overload(name: str, kinds: Sequence[str], grad_fn: str) -> str:
    """derivatives.yaml's rules are C++: `grad * 2` is mul(Tensor, Scalar), MulBackward1,
    where Python's `x * 2` is MulBackward0. Rules run here, so numbers take the Scalar overload."""
    if len(kinds) != 2 or NUMBER not in kinds:
        return grad_fn
    if name in ("add", "mul"):
        return {"add": "AddBackward1", "mul": "MulBackward1"}[name]
    if name == "sub":
        return "SubBackward1" if kinds[1] == NUMBER else "RsubBackward1"
    if name == "div" and kinds[1] == NUMBER:
        return "DivBackward1"
    return grad_fn


class Tape:
    """The nodes of a graph under construction, with their values, in creation order.

    Without `values` it records formulas only (symbolic.py reads them): each op's node and
    shape, no numbers, so a symbolic gradient costs no tensor arithmetic. The constants
    rules make keep their values (a formula reads a uniform one as its number)."""

    def __init__(
        self, graph: Graph, values: Sequence[Any] | None, dtype: np.dtype, known: Sequence[Any] | None = None
    ) -> None:
        self.program = graph.program
        self.nodes: list[Node] = list(graph.nodes)
        self.numeric = values is not None
        self.values: list[Any] = (
            [np.asarray(v) for v in values] if values is not None else [None] * len(self.nodes)
        )
        if values is None and known is not None:  # a tape of formulas over one: its constants
            self.values = list(known)
        self.dtype = dtype

    def traced(self, index: int) -> Traced:
        return Traced(self, index)

    def constant(self, value: Any, name: str | None = None) -> Traced:
        """A tensor that requires no grad (an upstream gradient, a rule's zeros)."""
        index = len(self.nodes)
        value = np.asarray(value, dtype=self.dtype)
        self.nodes.append(Node(index, name or f"c{index}", CONST, value.shape, False))
        self.values.append(value)
        return Traced(self, index)

    def leaf(self, value: Any, name: str) -> Traced:
        """A tensor that requires grad, made here (jvp's upstream gradient, to differentiate by)."""
        index = len(self.nodes)
        value = np.asarray(value, dtype=self.dtype)
        self.nodes.append(Node(index, name, LEAF, value.shape, True))
        self.values.append(value)
        return Traced(self, index)

    def _operand(self, x: Any) -> Operand:
        if isinstance(x, Traced):
            if x.tape is not self:
                raise Untraceable("a rule mixed tensors of two graphs")
            return x.index
        if isinstance(x, (bool, int, float, np.generic)) or (isinstance(x, np.ndarray) and x.ndim == 0):
            number = float(x)
            return Literal(number, Num(number, repr(number), 0, 0))
        return self.constant(x).index

    def apply(self, name: str, *operands: Any, **attrs: Any) -> Any:
        """Record registry op `name` on these operands; its value by the op's own forward."""
        op = REGISTRY[name]
        recorded = [self._operand(o) for o in operands]
        args = [self.values[o] if isinstance(o, int) else o.value for o in recorded]
        kinds = [TENSOR if isinstance(o, int) else NUMBER for o in recorded]
        # a wrapped number is a tensor to the overload torch picks (mul.Tensor: MulBackward0)
        overload = [TENSOR if isinstance(o, WrappedNumber) else k for o, k in zip(operands, kinds)]
        shapes = [self.nodes[o].shape if isinstance(o, int) else () for o in recorded]
        shape = op.shape(shapes, attrs)
        value = None
        if self.numeric:
            with np.errstate(all="ignore"):
                value = np.asarray(op.forward(*args, **attrs), dtype=self.dtype)
        requires_grad = op.differentiable and any(
            isinstance(o, int) and self.nodes[o].requires_grad for o in recorded
        )
        index = len(self.nodes)
        grad_fn = (
            scalar_overload(name, overload, op.grad_fn_for(kinds, shapes, attrs)) if requires_grad else None
        )
        self.nodes.append(
            Node(index, f"t{index}", OP, shape, requires_grad, op, tuple(recorded), attrs, grad_fn)
        )
        self.values.append(value)
        return Traced(self, index)

    def graph(self, output: Traced) -> Graph:
        return Graph(self.program, tuple(self.nodes), output.index)


def is_traced(value: Any) -> bool:
    return isinstance(value, Traced)


def trace_backward(
    graph: Graph,
    values: Sequence[Any] | None,
    dtype: np.dtype,
    gradient: Any = None,
    seed_requires_grad: bool = False,
    known: Sequence[Any] | None = None,
) -> tuple[Tape, list]:
    """backward(create_graph=True): every node's adjoint as a traced value on a new tape.

    The tape starts with the forward graph's own nodes (saved values such as tanh's output
    stay connected, as in PyTorch), then the upstream gradient: a constant, or a leaf when
    `seed_requires_grad` (the adjoints are linear in it, which is how jvp differentiates).
    """
    from .autograd import backward

    tape = Tape(graph, values, dtype, known)
    output = graph.nodes[graph.output]
    seed = np.ones(output.shape, dtype=dtype) if gradient is None else gradient
    traced_values = [tape.traced(i) for i in range(len(graph.nodes))]
    made = tape.leaf if seed_requires_grad else tape.constant
    adjoints = backward(_wrapped(graph), traced_values, made(seed, "grad_output"), dtype)
    return tape, adjoints


def contract(tape: Tape, pairs: Sequence[tuple[Any, np.ndarray]]) -> Traced | None:
    """The sum over pairs of sum(traced * vector): a scalar to differentiate (None if none traces)."""
    total = None
    for traced, vector in pairs:
        if isinstance(traced, Traced) and traced.requires_grad:
            term = tape.apply("sum", tape.apply("mul", traced, tape.constant(vector)))
            total = term if total is None else tape.apply("add", total, term)
    return total


def formula_backward(graph: Graph, on_edge: Any = None) -> tuple[Any, list, dict[int, tuple[Node, int, int]]]:
    """backward(create_graph=True) on a tape of formulas: every node's adjoint as a traced
    value whose gradient graph the VJP rules recorded (a Tape without numbers).

    A rule that does not trace (a convolution's, written in NumPy) leaves its contribution
    as a constant node standing for `op_backward(g, operands)`: the third item maps that
    node to (the op's node, the operand's position, g's tape node). `on_edge` sees each
    contribution as engine.backward sends it."""
    from . import engine
    from .autograd import pullback

    dtype = np.dtype(np.float64)
    wrapped = _wrapped(graph)
    tape = Tape(graph, None, dtype)
    values = [tape.traced(i) for i in range(len(graph.nodes))]
    rules = pullback(values, dtype, wrapped.nodes)
    opaque: dict[int, tuple[Node, int, int]] = {}

    def pull(node: Node, g: Any, positions: list[int]) -> list:
        try:
            if REGISTRY.get(node.op.name) is not node.op:  # a script's own Function or write:
                raise Untraceable(node.op.name)  # its backward runs only on numbers
            return list(rules(node, g, positions))
        except CANNOT_TRACE:
            g = g if hasattr(g, "index") else tape.constant(g)
            found = []
            for position in positions:
                operand = node.operands[position]
                stand_in = tape.constant(
                    np.zeros(graph.nodes[operand].shape), name=f"{node.op.name}_backward"
                )
                opaque[stand_in.index] = (node, position, g.index)
                found.append(stand_in)
            return found

    output = graph.nodes[graph.output]
    seed = tape.constant(np.ones(output.shape), "grad_output")
    adjoints = engine.backward(wrapped.nodes, [(graph.output, seed)], pull, on_edge=on_edge)
    return tape, adjoints, opaque
