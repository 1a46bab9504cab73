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
from functools import cache
from typing import Any

import numpy as np

from . import limits
from .autograd import NOT_SCALAR, backward
from .errors import AutogradError
from .graph import OP, Graph

OBJECT = np.dtype(object)


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
    """d output / d leaf, shaped output.shape + leaf.shape, one backward pass per output element."""
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    leaves = graph.leaves
    limits.check(
        size * sum(math.prod(leaf.shape) for leaf in leaves),
        limits.MAX_ELEMENTS,
        "Jacobian elements",
        "MAX_ELEMENTS",
    )
    result = {leaf.name: np.zeros(out_shape + leaf.shape, dtype=dtype) for leaf in leaves}
    for k in range(size):
        seed = np.zeros(size, dtype=dtype)
        seed[k] = 1
        adjoints = backward(graph, values, seed.reshape(out_shape), dtype)
        index = np.unravel_index(k, out_shape) if out_shape else ()
        for leaf in leaves:
            if adjoints[leaf.index] is not None:
                result[leaf.name][index] = adjoints[leaf.index]
    return result


def _require_scalar_output(graph: Graph) -> None:
    shape = graph.nodes[graph.output].shape
    if shape != ():
        raise AutogradError(
            f"{NOT_SCALAR}; the Hessian and higher orders need a scalar output, not shape {list(shape)}",
            hint="reduce it first, e.g. sum(...) or mean(...)",
        )


def _dual_gradients(graph: Graph, inputs: dict[str, Any]) -> list[Any]:
    values = _forward(graph, inputs)
    return backward(graph, values, np.asarray(np.float64(1.0), dtype=OBJECT), OBJECT)


def hessian(graph: Graph, inputs: dict[str, np.ndarray], dtype: np.dtype) -> dict[str, dict[str, np.ndarray]]:
    """d2 out / d leaf_a d leaf_b, shaped a.shape + b.shape, by forward-over-reverse passes."""
    _require_scalar_output(graph)
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


def derivatives(graph: Graph, inputs: dict[str, np.ndarray], leaf_name: str, order: int) -> list[float]:
    """[f', f'', ..., f^(order)] of a scalar output along one scalar leaf (others fixed).

    The leaf becomes x0 + e1 + ... + e_(order-1) with nested duals; after one backward
    pass the gradient's coefficient of e1*...*ek is the (k+1)-th derivative.
    """
    _require_scalar_output(graph)
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
