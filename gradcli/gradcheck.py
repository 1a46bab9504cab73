"""Three answers for every leaf element: reverse mode, central differences, the symbolic gradient.

Like torch.autograd.gradcheck (float64, eps=1e-6, atol=1e-5, rtol=1e-3), but it shows
the numbers side by side and, where the function has a kink, explains which convention
reverse mode used instead of only failing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import limits
from .autograd import NOT_SCALAR, backward, forward
from .errors import AutogradError, GradcliError
from .graph import OP, Graph
from .results import CheckResult, CheckRow

# torch.autograd.gradcheck's step and tolerances in float64; float32 holds about 7 digits, so
# its central differences need a wider step (rounding error ~ 1e-7*|f|/eps) and looser tolerances.
DEFAULTS = {"float64": (1e-6, 1e-5, 1e-3), "float32": (1e-3, 1e-2, 1e-2)}
EPS, ATOL, RTOL = DEFAULTS["float64"]


def _close(a: float, b: float, atol: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return bool(np.isclose(a, b, atol=atol, rtol=rtol))


def _output(graph: Graph, inputs: dict[str, np.ndarray], dtype: np.dtype) -> float:
    values = forward(graph, inputs, dtype)
    return float(values[graph.output])


def _tolerance(name: str, value: float, positive: bool) -> float:
    """Steps and tolerances are finite numbers; a step of 0 divides by zero."""
    value = float(value)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        bound = "> 0" if positive else ">= 0"
        raise GradcliError(f"{name} must be a finite number {bound}, not {value:g}")
    return value


def _symbolic_values(graph: Graph, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """Each leaf's symbolic gradient as a per-element evaluator, when it is elementwise.
    Past SYMBOLIC_NODES there is none, as `grad` skips its symbolic forms there."""
    if len(graph.nodes) > limits.SYMBOLIC_NODES:
        return {}
    import sympy as sp
    from sympy.core.function import AppliedUndef

    from .symbolic import build

    result: dict[str, Any] = {}
    for name, expr in build(graph).leaf_grads.items():
        # Functions sympy does not know (sum_over, matmul, norm, index_backward, ...) are
        # tensor-level: a point-wise evaluation cannot give them a number.
        opaque = expr is None or any(isinstance(f, AppliedUndef) for f in expr.atoms(sp.Function))
        result[name] = None if opaque else expr
    return result


# sympy functions NumPy evaluates for every element at once; anything else (Piecewise,
# Max, Heaviside, erf, ...) and every non-finite number is left to sympy's evalf, element
# by element, within SYMBOLIC_EVALUATIONS.
_UFUNCS = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp, "log": np.log, "Abs": np.abs,
    "sign": np.sign, "floor": np.floor, "ceiling": np.ceil,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
}  # fmt: skip
_COMPARE = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}
SYMBOLIC_EVALUATIONS = 2_000  # expression-tree nodes evalf may visit in one check (~0.1-0.5 ms each)


class _NotNumeric(Exception):
    pass


def _tree_size(expr: Any) -> int:
    import sympy as sp

    return sum(1 for _ in sp.preorder_traversal(expr))


def _numeric(expr: Any, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """expr evaluated in float64 over whole arrays (iteratively: gradients of long chains
    nest deeper than Python's recursion limit); _NotNumeric for what NumPy cannot do."""
    done: dict[Any, Any] = {}
    stack = [expr]
    while stack:
        node = stack[-1]
        if node in done:
            stack.pop()
            continue
        pending = [arg for arg in node.args if arg not in done]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        args = [done[arg] for arg in node.args]
        kind = type(node).__name__
        if node.is_Symbol:
            if node.name not in arrays:
                raise _NotNumeric(node.name)
            done[node] = arrays[node.name]
        elif kind in ("BooleanTrue", "BooleanFalse"):
            done[node] = kind == "BooleanTrue"
        elif node.is_number and not node.args:  # 3, 1/2, pi, E; not zoo or nan
            if not node.is_finite or not node.is_real:  # zoo, nan, I*oo: evalf decides
                raise _NotNumeric(str(node))
            done[node] = float(node)
        elif node.is_Add:
            done[node] = sum(args[1:], args[0])
        elif node.is_Mul:
            value = args[0]
            for arg in args[1:]:
                value = value * arg
            done[node] = value
        elif node.is_Pow:
            done[node] = np.power(np.asarray(args[0], dtype=np.float64), args[1])
        elif getattr(node, "is_Relational", False) and node.rel_op in _COMPARE:
            done[node] = _COMPARE[node.rel_op](args[0], args[1])
        elif kind == "ExprCondPair":
            done[node] = tuple(args)
        elif kind == "Piecewise":  # the first condition that holds picks the piece
            shape = np.broadcast_shapes(*(np.shape(part) for pair in args for part in pair))
            done[node] = np.select(
                [np.broadcast_to(condition, shape) for _, condition in args],
                [np.broadcast_to(np.asarray(value, dtype=np.float64), shape) for value, _ in args],
                np.nan,
            )
        elif kind in ("Max", "Min"):
            # nan goes on to evalf, which knows what sympy's Max(nan, 1) is
            done[node] = (np.maximum if kind == "Max" else np.minimum).reduce(np.broadcast_arrays(*args))
        elif kind == "Heaviside":
            # Heaviside(x) leaves H(0) to sympy's own convention: nan here sends it to evalf
            at_zero = args[1] if len(args) == 2 else math.nan
            done[node] = np.heaviside(np.asarray(args[0], dtype=np.float64), at_zero)
        elif kind in _UFUNCS and len(args) == 1:
            done[node] = _UFUNCS[kind](np.asarray(args[0], dtype=np.float64))
        else:
            raise _NotNumeric(kind)
    return np.asarray(done[expr], dtype=np.float64)


class _Symbolic:
    """A leaf's symbolic gradient at every element: NumPy for the whole leaf at once, sympy's
    evalf (exact, as before) where NumPy cannot or gives a non-finite number, within a budget
    shared by all leaves; None where there is no value."""

    def __init__(self) -> None:
        self.budget = SYMBOLIC_EVALUATIONS

    def values(self, expr: Any, inputs: dict[str, np.ndarray], shape: tuple[int, ...]) -> list[float | None]:
        size = math.prod(shape)
        if expr is None:
            return [None] * size
        arrays = {}
        for symbol in expr.free_symbols:
            value = inputs.get(symbol.name)
            if value is None or value.shape not in ((), shape):
                return [None] * size  # broadcast between shapes: no single element to read
            arrays[symbol.name] = np.asarray(value, dtype=np.float64)
        try:
            with np.errstate(all="ignore"):
                fast = np.broadcast_to(_numeric(expr, arrays), shape).reshape(-1)
        except _NotNumeric:
            fast = np.full(size, np.nan)
        cost = _tree_size(expr)
        found: list[float | None] = []
        for flat, number in enumerate(fast.tolist()):
            if math.isfinite(number):
                found.append(number)
            elif self.budget >= cost:
                self.budget -= cost
                index = tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
                found.append(_evaluate(expr, inputs, shape, index))
            else:
                found.append(None)  # past the budget: the row shows reverse mode and differences only
        return found


def _evaluate(
    expr: Any, inputs: dict[str, np.ndarray], shape: tuple[int, ...], index: tuple[int, ...]
) -> float | None:
    import sympy as sp

    substitution = {}
    for symbol in expr.free_symbols:
        value = inputs.get(symbol.name)
        if value is None:
            return None
        if value.shape == ():
            substitution[symbol] = sp.Float(float(value))
        elif value.shape == shape:
            substitution[symbol] = sp.Float(float(value[index]))
        else:
            return None  # broadcast between shapes: no single element to read
    number = expr.xreplace(substitution).evalf()
    try:
        return float(number)
    except TypeError:  # zoo, complex: no real value
        return math.nan


def _kink_note(graph: Graph, values: list, adjoints: list, left: float, right: float, reverse: float) -> str:
    """Why the slopes part, read from the engine's own forward values and adjoints."""
    at_kink = [
        f"{node.op.name}({graph.nodes[node.operands[0]].name}) at 0"
        for node in graph.nodes
        if node.kind == OP
        and node.op.name in ("relu", "abs")
        and isinstance(node.operands[0], int)
        and np.any(values[node.operands[0]] == 0)
    ]
    from .diagnostics import backward_warnings

    cause = backward_warnings(graph, values, adjoints)
    if at_kink:
        convention = f"PyTorch's convention {', '.join(at_kink)} has derivative 0"
    elif cause:
        convention = f"in reverse mode the {cause[0]}"
    else:
        convention = "reverse mode multiplies the local derivatives PyTorch defines there"
    return (
        f"not differentiable here: slope {left:.6g} from the left, {right:.6g} from the right; "
        f"{convention}, giving {reverse:.6g}"
    )


def _one_sided(
    graph: Graph,
    inputs: dict[str, np.ndarray],
    leaf: str,
    index: tuple[int, ...],
    step: float,
    dtype: np.dtype,
    centre: float,
) -> tuple[float, float, float]:
    """Left slope, right slope and central difference with steps as the dtype can hold them;
    `centre` is the output at the point itself, as the engine's forward pass computed it."""
    x = inputs[leaf][index]
    results = []
    for signed in (-step, step):
        moved = dict(inputs)
        moved[leaf] = inputs[leaf].copy()
        moved[leaf][index] = x + dtype.type(signed)
        actual = float(moved[leaf][index]) - float(x)  # the step after rounding to the dtype
        results.append((_output(graph, moved, dtype), actual))
    (low, down), (high, up) = results
    left = (centre - low) / -down if down else math.nan
    right = (high - centre) / up if up else math.nan
    central = (high - low) / (up - down) if up != down else math.nan
    return left, right, central


def _slopes_apart(left: float, right: float, atol: float, rtol: float) -> bool:
    return not _close(left, right, max(atol, 1e-4), max(rtol, 1e-2))


# Each leaf element takes two forward passes (the central difference), and two more where
# its one-sided slopes part (a kink or a wide step).
PASSES_PER_ELEMENT = 4


def _check_work(graph: Graph, total: int) -> None:
    """Refuse before the first pass what the passes would cost, by elements and by nodes
    (a pass costs ~10 us a node however small its tensors)."""
    passes = PASSES_PER_ELEMENT * total
    for count, cap, unit in (
        (graph.elements, "MAX_DERIVATIVE_PASS_ELEMENTS", "elements"),
        (len(graph.nodes), "MAX_DERIVATIVE_PASS_NODES", "nodes"),
    ):
        limits.check(
            passes * count,
            getattr(limits, cap),
            f"check's {passes:,} forward passes (up to {PASSES_PER_ELEMENT} per leaf element) "
            f"over a graph of {count:,} {unit}",
            cap,
            hint="check fewer leaf elements (a slice of the input) or a smaller program",
        )


def check(
    expression: str,
    at: Mapping[str, Any] | None = None,
    const: Mapping[str, Any] | None = None,
    *,
    eps: float | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    dtype: str = "float64",
) -> CheckResult:
    """Compare reverse mode with central finite differences and the symbolic gradient.

    eps/atol/rtol default to torch.autograd.gradcheck's in float64, and to wider ones in
    float32 (see DEFAULTS)."""
    from .api import _at_point

    if dtype not in DEFAULTS:
        raise GradcliError(f"dtype must be float64 or float32, not {dtype!r}")
    default_eps, default_atol, default_rtol = DEFAULTS[dtype]
    eps = _tolerance("eps", default_eps if eps is None else eps, positive=True)
    atol = _tolerance("atol", default_atol if atol is None else atol, positive=False)
    rtol = _tolerance("rtol", default_rtol if rtol is None else rtol, positive=False)
    prepared, values = _at_point(expression, at, const, dtype, "gradcheck")
    graph, inputs, real = prepared.graph, prepared.arrays, prepared.dtype
    output = graph.nodes[graph.output]
    if output.shape != ():
        raise AutogradError(NOT_SCALAR, hint="check a scalar, e.g. sum(...) of the output")
    total = sum(math.prod(leaf.shape) for leaf in graph.leaves)
    limits.check(total, limits.MAX_CHECK_ELEMENTS, "leaf elements to check", "MAX_CHECK_ELEMENTS")
    _check_work(graph, total)

    with np.errstate(all="ignore"):
        adjoints = backward(graph, values, np.ones((), dtype=real), real)
        centre = float(values[graph.output])
        symbolic = _symbolic_values(graph, inputs)
        evaluate = _Symbolic()
        rows = []
        for leaf in graph.leaves:
            reverse_all = adjoints[leaf.index]
            symbolic_all = evaluate.values(symbolic.get(leaf.name), inputs, leaf.shape)
            for flat in range(math.prod(leaf.shape)):
                index = tuple(int(i) for i in np.unravel_index(flat, leaf.shape)) if leaf.shape else ()
                reverse = 0.0 if reverse_all is None else float(np.asarray(reverse_all)[index])
                left, right, finite = _one_sided(graph, inputs, leaf.name, index, eps, real, centre)
                sym = symbolic_all[flat]
                ok = _close(reverse, finite, atol, rtol) and (sym is None or _close(reverse, sym, atol, rtol))
                note = None
                # A kink keeps its one-sided slopes apart however small the step; a smooth
                # function's gap (truncation error, ~f''*eps) shrinks with the step.
                if _slopes_apart(left, right, atol, rtol):
                    small_left, small_right, _ = _one_sided(
                        graph, inputs, leaf.name, index, eps / 16, real, centre
                    )
                    if abs(small_right - small_left) > abs(right - left) / 4:
                        note = _kink_note(graph, values, adjoints, left, right, reverse)
                    elif not ok:
                        note = (
                            f"the step eps={eps:g} is too wide for this function: the one-sided "
                            f"slopes ({left:.6g}, {right:.6g}) draw together as it shrinks; try a "
                            "smaller --eps"
                        )
                rows.append(CheckRow(leaf.name, index, reverse, finite, sym, ok, note))
    return CheckResult(expression, tuple(rows), eps, atol, rtol, str(real))
