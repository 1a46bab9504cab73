"""Jacobians, Hessians and N-th derivatives, computed by the engine's own passes.

The Jacobian is reverse mode with one-hot upstream gradients, one backward pass per
output element (as torch.autograd.functional.jacobian does). Second and higher
derivatives differentiate the engine's backward pass itself: the registry's VJP
rules run unchanged on NumPy object arrays of dual numbers, so the derivative of a
gradient follows PyTorch's double-backward formulas (relu''=0, the pow conventions
at 0, ...) rather than a symbolic rewrite. Nested duals give any order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from . import limits
from .autograd import NOT_SCALAR, backward
from .autograd import forward as autograd_forward
from .batched import Unbatchable, backward_rows
from .errors import AutogradError
from .graph import OP, Graph, Node
from .traced import Traced, Untraceable, contract, trace_backward

OBJECT = np.dtype(object)
# A rule that does not run on traced (or batched) values may fail inside NumPy before our
# protocols see it (grad[key] = g asks the value for a sequence): all mean "not this way".
CANNOT_TRACE = (Untraceable, TypeError, ValueError, AttributeError)
CANNOT_BATCH = (Unbatchable, TypeError, ValueError, AttributeError)


def _zero(t: Any) -> bool:
    return not isinstance(t, Dual) and t == 0


def _scale(factor: Any, t: Any) -> Any:
    """factor * t, but exactly 0 when t is 0 (so 0 * inf stays 0 for untouched inputs)."""
    return 0.0 if _zero(t) else factor * t


def _base(x: Any) -> Any:
    while isinstance(x, Dual):
        x = x.v
    return x


class Dual:
    """v + t*eps with eps**2 = 0; v and t may themselves be Duals (higher orders)."""

    __slots__ = ("v", "t")

    def __init__(self, v: Any, t: Any = 0.0) -> None:
        self.v, self.t = v, t

    def __repr__(self) -> str:
        return f"Dual({self.v!r}, {self.t!r})"

    # -- arithmetic. With an array operand, return NotImplemented so that NumPy applies
    # the operation element by element instead of this Dual swallowing the whole array.
    def __add__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Dual(self.v + o.v, self.t + o.t) if isinstance(o, Dual) else Dual(self.v + o, self.t)

    __radd__ = __add__

    def __neg__(self) -> Dual:
        return Dual(-self.v, -self.t)

    def __pos__(self) -> Dual:
        return self

    def __sub__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return self + (-o)

    def __rsub__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return (-self) + o

    def __mul__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        if isinstance(o, Dual):
            return Dual(self.v * o.v, _scale(self.v, o.t) + _scale(o.v, self.t))
        return Dual(self.v * o, _scale(o, self.t))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        if isinstance(o, Dual):
            q = self.v / o.v
            return Dual(q, _scale(1 / o.v, self.t) - _scale(q / o.v, o.t))
        return Dual(self.v / o, _scale(1 / o, self.t))

    def __rtruediv__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        q = o / self.v
        return Dual(q, _scale(-q / self.v, self.t))

    def __pow__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        if isinstance(o, Dual):
            # PyTorch's conventions: exponent 0 gives no base term; 0**b (b >= 0) no exponent term.
            value = np.power(self.v, o.v)
            d_base = 0.0 if _base(o.v) == 0 else _scale(o.v * np.power(self.v, o.v - 1), self.t)
            skip_exp = _zero(o.t) or (_base(self.v) == 0 and _base(o.v) >= 0)
            d_exp = 0.0 if skip_exp else _scale(value * np.log(self.v), o.t)
            return Dual(value, d_base + d_exp)
        if o == 0:
            return Dual(np.power(self.v, o), 0.0)
        return Dual(np.power(self.v, o), _scale(o * np.power(self.v, o - 1), self.t))

    def __rpow__(self, o: Any) -> Dual:
        if isinstance(o, np.ndarray):
            return NotImplemented
        value = np.power(o, self.v)
        if o == 0 and _base(self.v) >= 0:
            return Dual(value, 0.0)
        return Dual(value, _scale(value * np.log(o), self.t))

    def __abs__(self) -> Dual:
        return Dual(abs(self.v), _scale(np.sign(_base(self.v)), self.t))

    # -- comparisons look at the value only (branches are constants to the derivative)
    def __gt__(self, o: Any) -> bool:
        return _base(self) > _base(o)

    def __ge__(self, o: Any) -> bool:
        return _base(self) >= _base(o)

    def __lt__(self, o: Any) -> bool:
        return _base(self) < _base(o)

    def __le__(self, o: Any) -> bool:
        return _base(self) <= _base(o)

    def __eq__(self, o: Any) -> bool:  # type: ignore[override]
        return _base(self) == _base(o)

    def __ne__(self, o: Any) -> bool:  # type: ignore[override]
        return _base(self) != _base(o)

    __hash__ = None  # type: ignore[assignment]

    # -- the functions NumPy calls on object arrays (np.sin(obj) calls obj.sin())
    def _chain(self, value: Any, derivative: Any) -> Dual:
        return Dual(value, _scale(derivative, self.t))

    def __getattr__(self, name: str) -> Any:
        """np.<ufunc>(obj) for a registry op without a method below: its own VJP rule, run
        with g = 1 on duals, is the derivative, so a new elementwise record needs nothing here."""
        op = _unary_ufunc_ops().get(name)
        if op is None:
            raise AttributeError(name)

        def apply() -> Dual:
            value = getattr(np, name)(self.v)
            return self._chain(value, op.vjp[0](np.float64(1.0), value, self.v))

        return apply

    def sin(self) -> Dual:
        return self._chain(np.sin(self.v), np.cos(self.v))

    def cos(self) -> Dual:
        return self._chain(np.cos(self.v), -np.sin(self.v))

    def tan(self) -> Dual:
        value = np.tan(self.v)
        return self._chain(value, 1 + value * value)

    def arcsin(self) -> Dual:
        return self._chain(np.arcsin(self.v), 1 / np.sqrt(1 - self.v * self.v))

    def arccos(self) -> Dual:
        return self._chain(np.arccos(self.v), -1 / np.sqrt(1 - self.v * self.v))

    def arctan(self) -> Dual:
        return self._chain(np.arctan(self.v), 1 / (1 + self.v * self.v))

    def sinh(self) -> Dual:
        return self._chain(np.sinh(self.v), np.cosh(self.v))

    def cosh(self) -> Dual:
        return self._chain(np.cosh(self.v), np.sinh(self.v))

    def tanh(self) -> Dual:
        value = np.tanh(self.v)
        return self._chain(value, 1 - value * value)

    def exp(self) -> Dual:
        value = np.exp(self.v)
        return self._chain(value, value)

    def log(self) -> Dual:
        return self._chain(np.log(self.v), 1 / self.v)

    def log1p(self) -> Dual:
        return self._chain(np.log1p(self.v), 1 / (1 + self.v))

    def sqrt(self) -> Dual:
        value = np.sqrt(self.v)
        return self._chain(value, 1 / (2 * value))


@cache
def _unary_ufunc_ops() -> dict[str, Any]:
    from .ops import OPS

    return {op.forward.__name__: op for op in OPS if isinstance(op.forward, np.ufunc) and op.arity == 1}


def _lift(array: Any) -> np.ndarray:
    """An object array whose every element is a Dual, so np.sin(obj) finds obj.sin().

    Plain numbers become Dual(np.float64(x), 0): np.float64 keeps IEEE division (inf, not
    ZeroDivisionError) and a zero tangent marks them as constants.
    """
    array = np.asarray(array, dtype=object)
    out = np.empty(array.shape, dtype=object)
    flat, source = out.reshape(-1), array.reshape(-1)
    for i, v in enumerate(source):
        flat[i] = v if isinstance(v, Dual) else Dual(np.float64(v), 0.0)
    return out


def _forward(graph: Graph, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """autograd.forward on dual numbers, lifting results that an op left as plain numbers."""
    values: list[np.ndarray] = []
    for node in graph.nodes:
        if node.kind != OP:
            values.append(_lift(inputs[node.name]))
            continue
        args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
        values.append(_lift(node.op.forward(*args, **node.attrs)))
    return values


def _tangent(x: Any) -> float:
    return float(x.t) if isinstance(x, Dual) else 0.0


def jacobian(graph: Graph, values: list[np.ndarray], dtype: np.dtype) -> dict[str, np.ndarray]:
    """d output / d leaf, shaped output.shape + leaf.shape, one backward pass per output element
    (one in all for a same-shape elementwise program, whose Jacobian is diagonal)."""
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    limits.check(
        size * sum(math.prod(leaf.shape) for leaf in graph.leaves),
        limits.MAX_ELEMENTS,
        "Jacobian elements",
        "MAX_ELEMENTS",
    )
    with np.errstate(all="ignore"):
        return _jacobian_of(graph, values, graph.leaves, dtype)


def _require_scalar_output(graph: Graph) -> None:
    shape = graph.nodes[graph.output].shape
    if math.prod(shape) != 1:  # torch's implicit gradient needs numel() == 1: [1] is fine
        raise AutogradError(
            f"{NOT_SCALAR}; the Hessian and higher orders need a scalar output, not shape {list(shape)}",
            hint="reduce it first, e.g. sum(...) or mean(...)",
        )


def _dual_gradients(graph: Graph, inputs: dict[str, Any]) -> list[Any]:
    values = _forward(graph, inputs)
    return backward(graph, values, np.asarray(np.float64(1.0), dtype=OBJECT), OBJECT)


def hessian(graph: Graph, inputs: dict[str, np.ndarray], dtype: np.dtype) -> dict[str, dict[str, np.ndarray]]:
    """d2 out / d leaf_a d leaf_b, shaped a.shape + b.shape: reverse over the gradient graph.

    backward(create_graph=True) records each leaf's gradient as a graph of registry ops
    (traced.py); the Hessian's rows are that graph's own backward passes. A gradient made
    only of same-shape elementwise ops has a diagonal Jacobian, which one pass with a seed
    of ones gives whole.
    """
    _require_scalar_output(graph)
    leaves = graph.leaves
    total = sum(math.prod(leaf.shape) for leaf in leaves)
    itemsize = np.dtype(dtype).itemsize
    limits.check(
        total * total * itemsize, limits.MAX_HESSIAN_BYTES, "bytes of the Hessian", "MAX_HESSIAN_BYTES"
    )
    values = autograd_forward(graph, inputs, dtype)
    try:
        tape, adjoints = trace_backward(graph, values, dtype)
    except CANNOT_TRACE:
        return _dual_hessian(graph, inputs, dtype)
    result = {a.name: {b.name: np.zeros(a.shape + b.shape, dtype=dtype) for b in leaves} for a in leaves}
    with np.errstate(all="ignore"):
        for a in leaves:
            gradient = adjoints[a.index]
            if not isinstance(gradient, Traced) or not gradient.requires_grad:
                continue
            rows = _jacobian_of(tape.graph(gradient), tape.values, leaves, dtype)
            for b in leaves:
                result[a.name][b.name] = rows[b.name]
    return result


def _jacobian_of(
    graph: Graph, values: list[Any], leaves: Sequence[Node], dtype: np.dtype
) -> dict[str, np.ndarray]:
    """d graph.output / d leaf for each leaf, output.shape + leaf.shape: one pass per output
    element, or one pass in all when the output is a same-shape elementwise map of the leaf."""
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    result = {leaf.name: np.zeros(out_shape + leaf.shape, dtype=dtype) for leaf in leaves}
    diagonal = _elementwise_leaves(graph)
    if diagonal:
        adjoints = backward(graph, values, np.ones(out_shape, dtype=dtype), dtype)
        for leaf in leaves:
            adjoint = adjoints[leaf.index]
            if adjoint is None:
                continue
            # With an inf or nan about, torch's rows hold 0*inf = nan off the diagonal too:
            # only the rows themselves say where.
            if leaf.name in diagonal and np.isfinite(adjoint).all() and _finite(graph, values):
                flat = result[leaf.name].reshape(size, size)
                flat[np.arange(size), np.arange(size)] = np.asarray(adjoint).reshape(-1)
            else:
                diagonal = set()  # a leaf of another shape: fall back to rows
                break
        else:
            return result
    try:
        return _batched_rows(graph, values, leaves, result, dtype)
    except CANNOT_BATCH:
        pass
    for k in range(size):
        seed = np.zeros(size, dtype=dtype)
        seed[k] = 1
        adjoints = backward(graph, values, seed.reshape(out_shape), dtype)
        index = np.unravel_index(k, out_shape) if out_shape else ()
        for leaf in leaves:
            if adjoints[leaf.index] is not None:
                result[leaf.name][index] = adjoints[leaf.index]
    return result


ROW_BLOCK_ELEMENTS = 1 << 24  # adjoint elements of one batched sweep (128 MiB in float64)


def _batched_rows(
    graph: Graph, values: list[Any], leaves: Sequence[Node], result: dict[str, np.ndarray], dtype: np.dtype
) -> dict[str, np.ndarray]:
    """The Jacobian's rows in blocks of one-hot seeds, each block one batched backward sweep."""
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    carried = sum(math.prod(node.shape) for node in _ancestors(graph) if node.requires_grad)
    block = max(1, min(size, ROW_BLOCK_ELEMENTS // max(1, carried)))
    for start in range(0, size, block):
        stop = min(size, start + block)
        seeds = np.zeros((stop - start, size), dtype=dtype)
        seeds[np.arange(stop - start), np.arange(start, stop)] = 1
        adjoints = backward_rows(graph, values, seeds.reshape((stop - start,) + out_shape), dtype)
        for leaf in leaves:
            adjoint = adjoints[leaf.index]
            if adjoint is not None:
                rows = result[leaf.name].reshape((size,) + leaf.shape)
                rows[start:stop] = adjoint
    return result


def _finite(graph: Graph, values: list[Any]) -> bool:
    return all(np.isfinite(values[node.index]).all() for node in _ancestors(graph))


def _elementwise_leaves(graph: Graph) -> set[str]:
    """Leaves of which the output is a same-shape elementwise map, or an empty set.

    Every node on a path from a leaf to the output must be an elementwise op whose
    grad-carrying operands and result all have the output's shape (numbers and constants
    of any broadcastable shape are fine): then d out[i] / d leaf[j] = 0 for i != j.
    """
    shape = graph.nodes[graph.output].shape
    if shape == ():
        return set()
    for node in _ancestors(graph):
        if not node.requires_grad:
            continue
        if node.kind == OP:
            if not node.op.elementwise or node.shape != shape:
                return set()
        elif node.shape != shape:
            return set()
    return {leaf.name for leaf in graph.leaves if leaf.requires_grad}


PURE, ELEMENTWISE, ROW_SUMS = "pure", "elementwise", "hessian_row_sums"


def vjp(graph: Graph, values: list[np.ndarray], v: np.ndarray, dtype: np.dtype) -> dict[str, np.ndarray]:
    """v^T J for every leaf, as torch.autograd.functional.vjp: one backward pass seeded with v."""
    adjoints = backward(graph, values, v, dtype)
    return {
        leaf.name: np.zeros(leaf.shape, dtype) if adjoints[leaf.index] is None else adjoints[leaf.index]
        for leaf in graph.leaves
    }


def jvp(
    graph: Graph, inputs: dict[str, np.ndarray], tangents: dict[str, np.ndarray], dtype: np.dtype
) -> np.ndarray:
    """J u (output-shaped), as torch.autograd.functional.jvp: the double-vjp trick. The
    gradients are linear in backward's upstream gradient w, so d/dw of sum(grad_a(w) * u_a)
    is J u: one traced backward and one numeric backward."""
    out_shape = graph.nodes[graph.output].shape
    values = autograd_forward(graph, inputs, dtype)
    try:
        tape, adjoints = trace_backward(
            graph, values, dtype, np.zeros(out_shape, dtype), seed_requires_grad=True
        )
    except CANNOT_TRACE:
        blocks = jacobian(graph, values, dtype)
        return sum(
            (
                np.tensordot(blocks[leaf.name], tangents[leaf.name], axes=len(leaf.shape))
                for leaf in graph.leaves
            ),
            start=np.zeros(out_shape, dtype),
        )
    total = contract(tape, [(adjoints[leaf.index], tangents[leaf.name]) for leaf in graph.leaves])
    if total is None:
        return np.zeros(out_shape, dtype)
    found = backward(tape.graph(total), tape.values, np.ones((), dtype), dtype)[len(graph.nodes)]
    return np.zeros(out_shape, dtype) if found is None else np.asarray(found, dtype=dtype)


def hvp(
    graph: Graph, inputs: dict[str, np.ndarray], vectors: dict[str, np.ndarray], dtype: np.dtype
) -> dict[str, np.ndarray]:
    """H v for every leaf, as torch.autograd.functional.hvp: the gradient graph's backward
    seeded with v (H is symmetric), one traced and one numeric pass in all."""
    _require_scalar_output(graph)
    values = autograd_forward(graph, inputs, dtype)
    try:
        tape, adjoints = trace_backward(graph, values, dtype)
    except CANNOT_TRACE:
        blocks = hessian(graph, inputs, dtype)
        return {
            a.name: sum(
                (
                    np.tensordot(blocks[a.name][b.name], vectors[b.name], axes=len(b.shape))
                    for b in graph.leaves
                ),
                start=np.zeros(a.shape, dtype),
            )
            for a in graph.leaves
        }
    total = contract(tape, [(adjoints[leaf.index], vectors[leaf.name]) for leaf in graph.leaves])
    found = (
        [None] * len(tape.nodes)
        if total is None
        else backward(tape.graph(total), tape.values, np.ones((), dtype), dtype)
    )
    return {
        leaf.name: np.zeros(leaf.shape, dtype)
        if found[leaf.index] is None
        else np.asarray(found[leaf.index], dtype)
        for leaf in graph.leaves
    }


def _ancestors(graph: Graph) -> list[Node]:
    """The nodes the output depends on (a tape also holds the forward graph's other nodes)."""
    needed = [False] * len(graph.nodes)
    needed[graph.output] = True
    for node in reversed(graph.nodes):
        if needed[node.index]:
            for operand in node.inputs():
                needed[operand] = True
    return [node for node in graph.nodes if needed[node.index]]


def derivatives(
    graph: Graph, inputs: dict[str, np.ndarray], leaf_name: str, order: int, dtype: np.dtype
) -> tuple[list[np.ndarray], str]:
    """[g1, ..., g_order] along one leaf, each gk = d(sum g(k-1)) / d leaf as PyTorch's
    repeated torch.autograd.grad(g.sum(), x, create_graph=True) gives (other leaves fixed).

    For a program elementwise in the leaf this is the elementwise k-th derivative; in
    general the sums of the previous order's rows (Hessian row sums at order 2). The
    second item says which: PURE (a one-element leaf), ELEMENTWISE or ROW_SUMS.
    """
    _require_scalar_output(graph)
    values = autograd_forward(graph, inputs, dtype)
    leaf = next(n for n in graph.leaves if n.name == leaf_name)
    try:
        found, elementwise = _traced_derivatives(graph, values, leaf, order, dtype)
    except CANNOT_TRACE:
        if leaf.shape != ():
            raise
        found = [np.asarray(v, dtype=dtype) for v in _dual_derivatives(graph, inputs, leaf_name, order)]
        return found, PURE
    return found, PURE if math.prod(leaf.shape) == 1 else ELEMENTWISE if elementwise else ROW_SUMS


def _traced_derivatives(
    graph: Graph, values: list[Any], leaf: Node, order: int, dtype: np.dtype
) -> tuple[list[np.ndarray], bool]:
    """The derivatives, and whether the gradient is an elementwise map of the leaf."""
    results: list[np.ndarray] = []
    elementwise = True
    current, current_values = graph, values
    for k in range(order):
        last = k == order - 1
        if last:
            adjoints = backward(
                current, current_values, np.ones(current.nodes[current.output].shape, dtype), dtype
            )
            gradient = adjoints[leaf.index]
            results.append(
                np.zeros(leaf.shape, dtype) if gradient is None else np.asarray(gradient, dtype=dtype)
            )
            break
        tape, adjoints = trace_backward(current, current_values, dtype)
        gradient = adjoints[leaf.index]
        if not isinstance(gradient, Traced) or not gradient.requires_grad:
            value = (
                np.zeros(leaf.shape, dtype) if gradient is None else np.asarray(_value(gradient), dtype=dtype)
            )
            results.append(value)
            results += [np.zeros(leaf.shape, dtype)] * (order - k - 1)  # a constant's derivatives
            break
        results.append(np.asarray(gradient.value, dtype=dtype))
        if k == 0:
            elementwise = leaf.name in _elementwise_leaves(tape.graph(gradient))
        current = tape.graph(tape.apply("sum", gradient))
        current_values = tape.values
    return results, elementwise


def _value(x: Any) -> Any:
    return x.value if isinstance(x, Traced) else x


def _dual_hessian(
    graph: Graph, inputs: dict[str, np.ndarray], dtype: np.dtype
) -> dict[str, dict[str, np.ndarray]]:
    """The dual-number Hessian, for programs with an op whose VJP does not trace yet."""
    leaves = graph.leaves
    total = sum(math.prod(leaf.shape) for leaf in leaves)
    limits.check(total, limits.MAX_HESSIAN_ELEMENTS, "leaf elements (one pass each)", "MAX_HESSIAN_ELEMENTS")
    objects = {name: _lift(v) for name, v in inputs.items()}
    result = {a.name: {b.name: np.zeros(a.shape + b.shape, dtype=dtype) for b in leaves} for a in leaves}
    with np.errstate(all="ignore"):
        for b in leaves:
            for j in range(math.prod(b.shape)):
                seeded = dict(objects)
                column = objects[b.name].copy()
                flat = column.reshape(-1)
                flat[j] = Dual(flat[j].v, np.float64(1.0))
                seeded[b.name] = column
                adjoints = _dual_gradients(graph, seeded)
                index_b = np.unravel_index(j, b.shape) if b.shape else ()
                for a in leaves:
                    adjoint = adjoints[a.index]
                    if adjoint is None:
                        continue
                    tangents = np.vectorize(_tangent, otypes=[np.float64])(adjoint)
                    block = result[a.name][b.name]
                    block[(...,) + tuple(index_b)] = tangents
    return result


def _dual_derivatives(graph: Graph, inputs: dict[str, np.ndarray], leaf_name: str, order: int) -> list[float]:
    """[f', ..., f^(order)] along one scalar leaf by nested duals (untraceable programs)."""
    x0 = np.float64(np.asarray(inputs[leaf_name]).reshape(()))
    point: Any = x0
    for _ in range(order - 1):
        point = Dual(point, np.float64(1.0))
    seeded = {name: _lift(v) for name, v in inputs.items()}
    seeded[leaf_name] = _lift(_wrap(point))
    with np.errstate(all="ignore"):
        adjoints = _dual_gradients(graph, seeded)
    leaf = next(n for n in graph.leaves if n.name == leaf_name)
    grad = adjoints[leaf.index]
    grad = 0.0 if grad is None else np.asarray(grad, dtype=OBJECT)[()]
    results = []
    for k in range(order):
        part = grad
        for _ in range(k):  # k tangent steps from the outside in
            part = part.t if isinstance(part, Dual) else 0.0
        results.append(float(_base(part)))
    return results


def _wrap(value: Any) -> np.ndarray:
    array = np.empty((), dtype=object)
    array[()] = value
    return array


SYMBOLIC_DERIVATIVE_LIMIT = 2_000  # tree size past which a higher symbolic derivative is not printed


def symbolic_derivative(expr: Any, name: str, times: int) -> Any:
    """d^times expr / d name^times in sympy, or None when the gradient had no printable form.

    This is for the printed formula only; the numbers come from the engine's passes above.
    """
    if expr is None:
        return None
    import sympy as sp

    result = sp.diff(expr, sp.Symbol(name, real=True), times) if times else expr
    size = sum(1 for _ in zip(range(SYMBOLIC_DERIVATIVE_LIMIT + 1), sp.preorder_traversal(result)))
    return None if size > SYMBOLIC_DERIVATIVE_LIMIT else result
