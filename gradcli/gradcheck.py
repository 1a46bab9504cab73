"""Three answers for every leaf element: reverse mode, central differences, the symbolic gradient.

Like torch.autograd.gradcheck (float64, eps=1e-6, atol=1e-5, rtol=1e-3), but it shows
the numbers side by side and, where the function has a kink, explains which convention
reverse mode used instead of only failing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .autograd import NOT_SCALAR, backward, forward
from .errors import AutogradError, LimitError
from .graph import OP, Graph

EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
MAX_CHECK_ELEMENTS = 1_000  # each element costs two forward passes and a symbolic evaluation
OPAQUE = {"sum_over", "mean", "matmul", "t"}  # tensor-level functions the point-wise evaluation cannot do


@dataclass(frozen=True)
class CheckRow:
    leaf: str
    index: tuple[int, ...]
    reverse: float
    finite_difference: float
    symbolic: float | None  # None where the symbolic gradient cannot be evaluated point-wise
    ok: bool
    note: str | None


@dataclass(frozen=True)
class CheckResult:
    expression: str
    rows: tuple[CheckRow, ...]
    eps: float
    atol: float
    rtol: float

    @property
    def passed(self) -> bool:
        return all(row.ok for row in self.rows)

    def to_dict(self) -> dict[str, Any]:
        from .render.json import encode

        return {
            "expression": self.expression,
            "passed": self.passed,
            "eps": self.eps,
            "atol": self.atol,
            "rtol": self.rtol,
            "rows": [
                {
                    "leaf": r.leaf,
                    "index": list(r.index),
                    "reverse": encode(np.float64(r.reverse)),
                    "finite_difference": encode(np.float64(r.finite_difference)),
                    "symbolic": None if r.symbolic is None else encode(np.float64(r.symbolic)),
                    "ok": r.ok,
                    "note": r.note,
                }
                for r in self.rows
            ],
        }

    def to_json(self) -> str:
        from .render.json import dumps

        return dumps(self.to_dict())


def _close(a: float, b: float, atol: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return bool(np.isclose(a, b, atol=atol, rtol=rtol))


def _output(graph: Graph, inputs: dict[str, np.ndarray]) -> float:
    values = forward(graph, inputs, np.dtype(np.float64))
    return float(values[graph.output])


def _symbolic_values(graph: Graph, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """Each leaf's symbolic gradient as a per-element evaluator, when it is elementwise."""
    import sympy as sp

    from .symbolic import build

    result: dict[str, Any] = {}
    for name, expr in build(graph).leaf_grads.items():
        if expr is None or any(str(f.func) in OPAQUE for f in expr.atoms(sp.Function)):
            result[name] = None
            continue
        result[name] = expr
    return result


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


def _kink_note(graph: Graph, inputs: dict[str, np.ndarray], left: float, right: float, reverse: float) -> str:
    values = forward(graph, inputs, np.dtype(np.float64))
    at_kink = [
        f"{node.op.name}({graph.nodes[node.operands[0]].name}) at 0"
        for node in graph.nodes
        if node.kind == OP
        and node.op.name in ("relu", "abs")
        and isinstance(node.operands[0], int)
        and np.any(values[node.operands[0]] == 0)
    ]
    from .diagnostics import backward_warnings

    adjoints = backward(graph, values, np.ones((), dtype=np.float64), np.dtype(np.float64))
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


def check(
    expression: str,
    at: Mapping[str, Any] | None = None,
    const: Mapping[str, Any] | None = None,
    *,
    eps: float = EPS,
    atol: float = ATOL,
    rtol: float = RTOL,
) -> CheckResult:
    """Compare reverse mode with central finite differences and the symbolic gradient, in float64."""
    from .api import _at_point

    prepared, values = _at_point(expression, at, const, "float64", "gradcheck")
    graph, inputs = prepared.graph, prepared.arrays
    output = graph.nodes[graph.output]
    if output.shape != ():
        raise AutogradError(NOT_SCALAR, hint="check a scalar, e.g. sum(...) of the output")
    total = sum(math.prod(leaf.shape) for leaf in graph.leaves)
    if total > MAX_CHECK_ELEMENTS:
        raise LimitError(f"check evaluates {total:,} leaf elements, over its limit {MAX_CHECK_ELEMENTS:,}")

    dtype = np.dtype(np.float64)
    with np.errstate(all="ignore"):
        adjoints = backward(graph, values, np.ones((), dtype=dtype), dtype)
        symbolic = _symbolic_values(graph, inputs)
        rows = []
        for leaf in graph.leaves:
            reverse_all = adjoints[leaf.index]
            for flat in range(math.prod(leaf.shape)):
                index = tuple(int(i) for i in np.unravel_index(flat, leaf.shape)) if leaf.shape else ()
                reverse = 0.0 if reverse_all is None else float(np.asarray(reverse_all)[index])
                shifted = {}
                for step in (eps, -eps):
                    moved = dict(inputs)
                    moved[leaf.name] = inputs[leaf.name].copy()
                    moved[leaf.name][index] += step
                    shifted[step] = _output(graph, moved)
                centre = float(values[graph.output])
                finite = (shifted[eps] - shifted[-eps]) / (2 * eps)
                expr = symbolic.get(leaf.name)
                sym = None if expr is None else _evaluate(expr, inputs, leaf.shape, index)
                ok = _close(reverse, finite, atol, rtol) and (sym is None or _close(reverse, sym, atol, rtol))
                left, right = (centre - shifted[-eps]) / eps, (shifted[eps] - centre) / eps
                note = None
                if not _close(left, right, max(atol, 1e-4), max(rtol, 1e-2)):
                    note = _kink_note(graph, inputs, left, right, reverse)
                rows.append(CheckRow(leaf.name, index, reverse, finite, sym, ok, note))
    return CheckResult(expression, tuple(rows), eps, atol, rtol)
