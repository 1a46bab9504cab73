"""Strict RFC 8259 JSON of a result: non-finite numbers become "nan", "inf", "-inf"."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..api import GradResult, NodeResult


def clean(item: Any) -> Any:
    """A number or nested list with non-finite floats as the strings "nan", "inf", "-inf"."""
    if isinstance(item, list):
        return [clean(v) for v in item]
    if isinstance(item, float) and not math.isfinite(item):
        return "nan" if math.isnan(item) else ("inf" if item > 0 else "-inf")
    return item


def encode(value: np.ndarray | None) -> Any:
    """A number or nested list of the tensor's shape; float32 keeps its shortest digits."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.ndim == 0 and array.dtype == np.float64:  # most values of a big scalar program
        number = float(array)
        return number if math.isfinite(number) else clean(number)
    if array.dtype == np.float32:
        # float(str(.)) is the shortest decimal that round-trips in float32 (0.1, not 0.100000001)
        shortest = [float(str(v)) for v in array.ravel()]
        plain = np.array(shortest, dtype=object).reshape(array.shape).tolist()
    else:
        plain = array.astype(np.float64).tolist()
    return clean(plain)


def _node(node: NodeResult) -> dict[str, Any]:
    return {
        "name": node.name,
        "op": node.op if node.op else node.kind,
        "grad_fn": node.grad_fn,
        "inputs": list(node.inputs),
        "shape": list(node.shape),
        "value": encode(node.value),
        "symbolic": node.symbolic,
        "adjoint": encode(node.adjoint),
        "adjoint_symbolic": node.adjoint_symbolic,
        "adjoint_local": node.adjoint_local,
        "is_leaf": node.is_leaf,
        "requires_grad": node.requires_grad,
    }


def output_document(output: NodeResult) -> dict[str, Any]:
    return {
        "name": output.name,
        "shape": list(output.shape),
        "value": encode(output.value),
        "grad_fn": output.grad_fn,
    }


def _leaf(result: GradResult, leaf: NodeResult) -> dict[str, Any]:
    document = {
        "shape": list(leaf.shape),
        "value": encode(leaf.value),
        "requires_grad": True,
        "grad": encode(result.grads.get(leaf.name)),
        "grad_symbolic": result.grad_symbolic.get(leaf.name),
    }
    if result.order > 1:
        document["derivatives"] = [encode(d) for d in result.derivatives.get(leaf.name, ())]
        # "pure" d^k out/dx^k; for a tensor leaf, repeated grad(g.sum(), x): "elementwise"
        # k-th derivatives, or in general "hessian_row_sums" (and their higher analogues)
        document["derivative_kind"] = result.derivative_kinds.get(leaf.name, "pure")
    return document


def result_document(result: GradResult) -> dict[str, Any]:
    document = {
        "expression": result.expression,
        "dtype": result.dtype,
        "output": output_document(result.output),
        "leaves": {leaf.name: _leaf(result, leaf) for leaf in result.leaves},
        "consts": {c.name: {"shape": list(c.shape), "value": encode(c.value)} for c in result.consts},
        "nodes": [_node(n) for n in result.nodes],
        "passes": [
            {
                "index": p.index,
                "gradient": encode(p.gradient),
                "grads": {name: encode(g) for name, g in p.grads.items()},
            }
            for p in result.passes
        ],
        "warnings": list(result.warnings),
    }
    if result.order > 1:
        document["order"] = result.order
    return document


def dumps(document: dict[str, Any]) -> str:
    # allow_nan=False: if a non-finite number ever slipped past encode(), fail loudly.
    return json.dumps(document, allow_nan=False)


def compact(value: np.ndarray | None) -> str:
    """One value as compact JSON, for plain output."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))
