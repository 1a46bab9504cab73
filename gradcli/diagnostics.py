"""Where did nan or inf first appear? Warnings that name the node and the reason.

A user who sees `nan` in a gradient wants the first node that produced it from finite
inputs (`log` of 0, `sqrt'` at 0, 0/0), not a wall of nans downstream.
"""

from __future__ import annotations

import numpy as np

from . import engine
from .graph import OP, Graph, Node


def _first_bad(array: np.ndarray) -> tuple[int, ...] | None:
    array = np.asarray(array)
    if array.dtype.kind != "f":
        return None
    with np.errstate(all="ignore"):
        if np.isfinite(array.sum()):  # one cheap pass: a finite sum has only finite terms
            return None
    bad = ~np.isfinite(array)
    if not bad.any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), array.shape)) if array.ndim else ()


def all_finite(arrays: list[np.ndarray | None]) -> bool:
    """True when no array holds nan or inf (None counts as finite)."""
    return all(a is None or _first_bad(a) is None for a in arrays)


def _describe(value: float) -> str:
    return "nan" if np.isnan(value) else ("inf" if value > 0 else "-inf")


def _operand_text(graph: Graph, node: Node, values: list[np.ndarray], index: tuple[int, ...]) -> str:
    """Each operand's number at the element where things went wrong, where there is one.

    A reduction, a matmul or an index from an operand's own shape has no single
    element to show: the operand is then described by its shape.
    """
    parts = []
    for operand in node.operands:
        if not isinstance(operand, int):
            parts.append(f"{operand.value:.6g}")
            continue
        value = np.asarray(values[operand])
        if value.size == 1:
            parts.append(f"{float(value.reshape(())):.6g}")
            continue
        try:
            parts.append(f"{float(np.broadcast_to(value, node.shape)[index]):.6g}")
        except (ValueError, IndexError, TypeError):
            parts.append(f"a tensor of shape {list(value.shape)}")
    return ", ".join(parts)


def _where(index: tuple[int, ...]) -> str:
    return f" at element {list(index)}" if index else ""


def forward_warnings(graph: Graph, values: list[np.ndarray]) -> list[str]:
    """The first op whose value is non-finite although all its operands are finite."""
    for node in graph.nodes:
        if node.kind != OP:
            continue
        index = _first_bad(values[node.index])
        if index is None:
            continue
        if any(_first_bad(values[o]) is not None for o in node.inputs()):
            continue
        if any(not np.isfinite(o.value) for o in node.operands if not isinstance(o, int)):
            continue
        value = float(np.asarray(values[node.index])[index]) if index else float(values[node.index])
        # an internal record by the torch function it stands for (_div_rounded is torch.div)
        name = node.op.torch.rsplit(".", 1)[-1] if node.op.name.startswith("_") else node.op.name
        return [
            f"value of {node.name} is {_describe(value)}{_where(index)}: "
            f"{name}({_operand_text(graph, node, values, index)}) from finite inputs"
        ]
    return []


def backward_warnings(graph: Graph, values: list[np.ndarray], adjoints: list[np.ndarray | None]) -> list[str]:
    """The first backward step (from the output) that turns finite adjoints into nan/inf:
    the engine's edges in the order its backward walk sent gradients along them."""
    current, sound = None, False
    for node, _, operand in engine.edges(graph.nodes, adjoints):
        if node is not current:  # a node's own adjoint and value are checked once, not per edge
            current = node
            sound = _first_bad(adjoints[node.index]) is None and _first_bad(values[node.index]) is None
        if not sound:
            continue
        adjoint = adjoints[operand]
        if adjoint is None:
            continue
        index = _first_bad(adjoint)
        if index is None:
            continue
        value = float(np.asarray(adjoint)[index]) if index else float(adjoint)
        source = graph.nodes[operand]
        at = _operand_text(graph, node, values, index if node.shape else ())
        return [
            f"adjoint of {source.name} is {_describe(value)}{_where(index)}: "
            f"{node.op.name}'({at}) in the backward of {node.name} ({node.grad_fn}) is not finite"
        ]
    return []
