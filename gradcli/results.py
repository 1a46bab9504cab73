"""The frozen results the API returns and every renderer reads, and their JSON documents.

api.py builds them, the script tracer (script/trace.py) builds GradResults of backward calls,
gradcheck.py builds CheckResults, and render/ turns them into text. This module sits below all
of those: it imports no engine module (its one gradcli import is render/json.py's strict
encoding of numbers), so a renderer that reads a result never reaches the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .render.json import dumps, encode

if TYPE_CHECKING:
    from .graph import Graph

# graph.py's LEAF and CONST: node kinds as every result spells them (graph.py sits above us)
LEAF, CONST = "leaf", "const"


@dataclass(frozen=True)
class NodeResult:
    """One node of the graph as a user sees it (leaf, const or op)."""

    name: str
    kind: str  # "leaf", "const" or "op"
    op: str | None
    grad_fn: str | None
    inputs: tuple[str, ...]
    shape: tuple[int, ...]
    requires_grad: bool
    value: np.ndarray | None  # None when no point was given
    adjoint: np.ndarray | None  # last pass's adjoint; None where no gradient flows
    symbolic: str | None
    adjoint_symbolic: str | None
    # The program's spelling of the op (`relu(t2)`) and the chain-rule step that gives this
    # node's adjoint from its consumers' (`adj_h * (t2 > 0)`); None without symbolic output.
    written: str | None = None
    adjoint_local: str | None = None

    @property
    def is_leaf(self) -> bool:
        return self.kind != "op"


@dataclass(frozen=True)
class PassResult:
    index: int
    gradient: np.ndarray
    grads: dict[str, np.ndarray | None]
    # With grad(..., edges=True): every node's adjoint in this pass, and what each edge
    # (op node index, operand position) carried, as the engine's backward computed them.
    adjoints: tuple[np.ndarray | None, ...] | None = None
    edges: dict[tuple[int, int], np.ndarray] | None = None


@dataclass(frozen=True)
class GradResult:
    """Everything one `gradcli grad` computes; renderers read only this."""

    expression: str
    dtype: str
    nodes: tuple[NodeResult, ...]
    output_index: int
    passes: tuple[PassResult, ...]
    grads: dict[str, np.ndarray | None]  # each leaf's .grad after the last pass
    grad_symbolic: dict[str, str | None]  # each leaf's gradient formula, if computed
    order: int = 1
    # each leaf's formula as a person writes it: `W1.grad = X.T @ adj_t2`, then the names it uses
    grad_readable: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    derivatives: dict[str, tuple[np.ndarray, ...]] = field(default_factory=dict)  # orders 1..N
    # what --order N means for each leaf: "pure", "elementwise" or "hessian_row_sums"
    derivative_kinds: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # where nan/inf first appeared, and why
    graph: Graph | None = None  # the engine's graph, kept with edges=True (explain reads it)

    @property
    def output(self) -> NodeResult:
        return self.nodes[self.output_index]

    def formula(self, leaf: str) -> str | None:
        """The right side of the leaf's readable formula (`X.T @ adj_t2`), if it has one."""
        lines = self.grad_readable.get(leaf)
        return formula_parts(lines[0])[1] if lines else None

    @property
    def value(self) -> np.ndarray | None:
        return self.output.value

    @property
    def numeric(self) -> bool:
        return self.output.value is not None

    @property
    def leaves(self) -> tuple[NodeResult, ...]:
        return tuple(n for n in self.nodes if n.kind == LEAF)

    @property
    def consts(self) -> tuple[NodeResult, ...]:
        return tuple(n for n in self.nodes if n.kind == CONST)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of SPEC section 2, with strict-JSON-safe values."""
        return result_document(self)

    def to_json(self) -> str:
        """Strict RFC 8259 JSON text (non-finite numbers as "nan"/"inf"/"-inf")."""
        return dumps(self.to_dict())


@dataclass(frozen=True)
class JacobianResult:
    """d output / d leaf for every leaf, shaped output.shape + leaf.shape (torch's layout)."""

    expression: str
    dtype: str
    output: NodeResult
    jacobian: dict[str, np.ndarray]

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "dtype": self.dtype,
            "output": output_document(self.output),
            "jacobian": {name: encode(value) for name, value in self.jacobian.items()},
        }

    def to_json(self) -> str:
        return dumps(self.to_dict())


@dataclass(frozen=True)
class HessianResult:
    """d2 output / d a d b for every leaf pair, shaped a.shape + b.shape (torch's layout)."""

    expression: str
    dtype: str
    output: NodeResult
    hessian: dict[str, dict[str, np.ndarray]]
    symbolic: dict[str, dict[str, str | None]]  # scalar leaf pairs only, sympy-parsable
    readable: dict[str, dict[str, str | None]] = field(default_factory=dict)  # the same, as PyTorch writes

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "dtype": self.dtype,
            "output": output_document(self.output),
            "hessian": {a: {b: encode(block) for b, block in row.items()} for a, row in self.hessian.items()},
            "hessian_symbolic": self.symbolic,
        }

    def to_json(self) -> str:
        return dumps(self.to_dict())


@dataclass(frozen=True)
class ProductResult:
    """A Jacobian or Hessian product without the matrix: kind is "vjp", "jvp" or "hvp",
    as torch.autograd.functional names them. `product` is per leaf (vjp, hvp) or
    output-shaped (jvp)."""

    kind: str
    expression: str
    dtype: str
    output: NodeResult
    product: dict[str, np.ndarray] | np.ndarray

    def to_dict(self) -> dict[str, Any]:
        product = self.product
        return {
            "expression": self.expression,
            "dtype": self.dtype,
            "output": output_document(self.output),
            self.kind: {n: encode(v) for n, v in product.items()}
            if isinstance(product, dict)
            else encode(product),
        }

    def to_json(self) -> str:
        return dumps(self.to_dict())


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
    dtype: str = "float64"

    @property
    def passed(self) -> bool:
        return all(row.ok for row in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "dtype": self.dtype,
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
        return dumps(self.to_dict())


# ---------------------------------------------------------------- JSON documents (SPEC section 2)


def _node_document(node: NodeResult) -> dict[str, Any]:
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


def _leaf_document(result: GradResult, leaf: NodeResult) -> dict[str, Any]:
    document = {
        "shape": list(leaf.shape),
        "value": encode(leaf.value),
        "requires_grad": True,
        "grad": encode(result.grads.get(leaf.name)),
        "grad_symbolic": result.grad_symbolic.get(leaf.name),
        "grad_readable": _lines(result.grad_readable.get(leaf.name)),
    }
    if result.order > 1:
        document["derivatives"] = [encode(d) for d in result.derivatives.get(leaf.name, ())]
        # "pure" d^k out/dx^k; for a tensor leaf, repeated grad(g.sum(), x): "elementwise"
        # k-th derivatives, or in general "hessian_row_sums" (and their higher analogues)
        document["derivative_kind"] = result.derivative_kinds.get(leaf.name, "pure")
    return document


def formula_parts(line: str) -> tuple[str, str]:
    """A grad_readable line's two sides: `W1.grad = X.T @ adj_t2` is (W1.grad, X.T @ adj_t2)."""
    target, _, text = line.partition(" = ")
    return target, text


def _lines(found: tuple[str, ...] | None) -> list[str] | None:
    return None if found is None else list(found)


def result_document(result: GradResult) -> dict[str, Any]:
    document = {
        "expression": result.expression,
        "dtype": result.dtype,
        "output": output_document(result.output),
        "leaves": {leaf.name: _leaf_document(result, leaf) for leaf in result.leaves},
        "consts": {c.name: {"shape": list(c.shape), "value": encode(c.value)} for c in result.consts},
        "nodes": [_node_document(n) for n in result.nodes],
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
