"""Jacobians, Hessians and N-th derivatives, computed by the engine's own passes.

The Jacobian is reverse mode with one-hot upstream gradients, one backward pass per
output element (as torch.autograd.functional.jacobian does). Second and higher
derivatives differentiate the engine's backward pass itself: backward with
create_graph=True (traced.py) records each gradient as a graph of registry ops with
PyTorch's grad_fn names, and that graph's own backward passes (batched over one-hot
seeds, batched.py) give the next order, so the derivative of a gradient follows
PyTorch's double-backward formulas (relu''=0, the pow conventions at 0, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import engine, limits
from .autograd import NOT_SCALAR, backward
from .autograd import forward as autograd_forward
from .batched import Unbatchable, backward_rows
from .errors import AutogradError, GradcliError
from .graph import OP, Graph, Node
from .traced import CANNOT_TRACE, Traced, contract, trace_backward

# A rule that does not run on batched values may fail inside NumPy before our protocols
# see it (grad[key] = g asks the value for a sequence): all mean "not this way".
CANNOT_BATCH = (Unbatchable, TypeError, ValueError, AttributeError)


def _not_traced(error: Exception) -> GradcliError:
    """Every registry op's rules trace; a rule that would not (prod's third order at a zero,
    through cumprod's backward) is a clear refusal, never a wrong or internal answer."""
    return GradcliError(
        f"this derivative needs a gradient graph gradcli cannot build yet: {error}",
        hint="a lower order (or another point) works; see docs/reference.md, 'Beyond first gradients'",
    )


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
        diagonal = _diagonal(graph, values, graph.leaves, dtype)
        if diagonal is not None:
            return diagonal
        _check_rows([graph], "the Jacobian", "output element")
        return _rows(graph, values, graph.leaves, dtype, _Spent())


def _require_scalar_output(graph: Graph) -> None:
    shape = graph.nodes[graph.output].shape
    if math.prod(shape) != 1:  # torch's implicit gradient needs numel() == 1: [1] is fine
        raise AutogradError(
            f"{NOT_SCALAR}; the Hessian and higher orders need a scalar output, not shape {list(shape)}",
            hint="reduce it first, e.g. sum(...) or mean(...)",
        )


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
    except CANNOT_TRACE as error:
        raise _not_traced(error) from None
    # Every leaf's block takes at least one pass, and a pass walks the whole gradient graph:
    # many scalar leaves cost that much before any row (1,500 of them took 100 s).
    limits.check(
        len(leaves) * len(tape.nodes),
        limits.MAX_DERIVATIVE_PASS_NODES,
        f"the Hessian's {len(leaves):,} passes (at least one per leaf) over a gradient graph of "
        f"{len(tape.nodes):,} nodes",
        "MAX_DERIVATIVE_PASS_NODES",
        hint="gather scalar inputs into one vector input",
    )
    result = {a.name: {b.name: np.zeros(a.shape + b.shape, dtype=dtype) for b in leaves} for a in leaves}
    with np.errstate(all="ignore"):
        # Each leaf's block of rows: one pass when diagonal, else a pass per row, refused
        # (all leaves together) before the first row.
        blocks: list[tuple[Node, Graph, dict[str, np.ndarray] | None]] = []
        for a in leaves:
            gradient = adjoints[a.index]
            if isinstance(gradient, Traced) and gradient.requires_grad:
                rows_of = tape.graph(gradient)
                blocks.append((a, rows_of, _diagonal(rows_of, tape.values, leaves, dtype)))
        needing_rows = [rows_of for _, rows_of, found in blocks if found is None]
        if needing_rows:
            _check_rows(needing_rows, "the Hessian", "leaf element")
        spent = _Spent()
        for a, rows_of, found in blocks:
            rows = found if found is not None else _rows(rows_of, tape.values, leaves, dtype, spent)
            for b in leaves:
                result[a.name][b.name] = rows[b.name]
    return result


def _diagonal(
    graph: Graph, values: list[Any], leaves: Sequence[Node], dtype: np.dtype
) -> dict[str, np.ndarray] | None:
    """d graph.output / d leaf in one pass when the output is a same-shape elementwise map of
    the leaves (a diagonal Jacobian) and all is finite; None when it takes a pass per row."""
    diagonal = _elementwise_leaves(graph)
    if not diagonal:
        return None
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    result = {leaf.name: np.zeros(out_shape + leaf.shape, dtype=dtype) for leaf in leaves}
    adjoints = backward(graph, values, np.ones(out_shape, dtype=dtype), dtype)
    for leaf in leaves:
        adjoint = adjoints[leaf.index]
        if adjoint is None:
            continue
        # With an inf or nan about, torch's rows hold 0*inf = nan off the diagonal too:
        # only the rows themselves say where.
        if leaf.name not in diagonal or not np.isfinite(adjoint).all() or not _finite(graph, values):
            return None  # a leaf of another shape, or a non-finite value: rows
        flat = result[leaf.name].reshape(size, size)
        flat[np.arange(size), np.arange(size)] = np.asarray(adjoint).reshape(-1)
    return result


def _elements_reached(graph: Graph) -> int:
    return sum(math.prod(node.shape) for node in _ancestors(graph))


def _check_rows(graphs: Sequence[Graph], what: str, per: str) -> None:
    """Refuse a Jacobian's rows before the first: each row is a backward pass over what the
    output depends on (batched into sweeps, but every element of every row is still touched)."""
    sizes = [math.prod(g.nodes[g.output].shape) for g in graphs]
    reached = [_elements_reached(g) for g in graphs]
    passes = sum(sizes)
    over = f"a graph of {reached[0]:,}" if len(graphs) == 1 else f"graphs of up to {max(reached):,}"
    limits.check(
        sum(size * elements for size, elements in zip(sizes, reached)),
        limits.MAX_DERIVATIVE_PASS_ELEMENTS,
        f"{what}'s {passes:,} backward passes (one per {per}) over {over} elements",
        "MAX_DERIVATIVE_PASS_ELEMENTS",
        hint="use fewer or smaller inputs",
    )


class _Spent:
    """Passes x nodes of rows run one at a time so far in one command (a Hessian has a block
    of rows per leaf), refused before each block's first row."""

    def __init__(self) -> None:
        self.node_passes = 0

    def rows(self, passes: int, nodes: int) -> None:
        self.node_passes += passes * nodes
        limits.check(
            self.node_passes,
            limits.MAX_DERIVATIVE_PASS_NODES,
            f"{passes:,} backward passes one row at a time (an op here has no batched rule) "
            f"over {nodes:,} nodes",
            "MAX_DERIVATIVE_PASS_NODES",
            hint="use fewer or smaller inputs",
        )


def _rows(
    graph: Graph, values: list[Any], leaves: Sequence[Node], dtype: np.dtype, spent: _Spent
) -> dict[str, np.ndarray]:
    """d graph.output / d leaf for each leaf, output.shape + leaf.shape: one pass per output
    element, batched into sweeps where every rule batches."""
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    result = {leaf.name: np.zeros(out_shape + leaf.shape, dtype=dtype) for leaf in leaves}
    try:
        return _batched_rows(graph, values, leaves, result, dtype)
    except CANNOT_BATCH:
        pass
    spent.rows(size, len(_ancestors(graph)))
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


def jvp(graph: Graph, values: list[Any], tangents: dict[str, np.ndarray], dtype: np.dtype) -> np.ndarray:
    """J u (output-shaped), as torch.autograd.functional.jvp: the double-vjp trick. The
    gradients are linear in backward's upstream gradient w, so d/dw of sum(grad_a(w) * u_a)
    is J u: one traced backward and one numeric backward (`values`: the forward pass's)."""
    out_shape = graph.nodes[graph.output].shape
    try:
        tape, adjoints = trace_backward(
            graph, values, dtype, np.zeros(out_shape, dtype), seed_requires_grad=True
        )
    except CANNOT_TRACE as error:
        raise _not_traced(error) from None
    total = contract(tape, [(adjoints[leaf.index], tangents[leaf.name]) for leaf in graph.leaves])
    if total is None:
        return np.zeros(out_shape, dtype)
    found = backward(tape.graph(total), tape.values, np.ones((), dtype), dtype)[len(graph.nodes)]
    return np.zeros(out_shape, dtype) if found is None else np.asarray(found, dtype=dtype)


def hvp(
    graph: Graph, values: list[Any], vectors: dict[str, np.ndarray], dtype: np.dtype
) -> dict[str, np.ndarray]:
    """H v for every leaf, as torch.autograd.functional.hvp: the gradient graph's backward
    seeded with v (H is symmetric), one traced and one numeric pass in all."""
    _require_scalar_output(graph)
    try:
        tape, adjoints = trace_backward(graph, values, dtype)
    except CANNOT_TRACE as error:
        raise _not_traced(error) from None
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
    needed = engine.reaching(graph.nodes, [graph.output], gradient=False)
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
    except CANNOT_TRACE as error:
        raise _not_traced(error) from None
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
        current_values = tape.values if values is not None else None  # a tape of formulas stays one
    return results, elementwise


def _value(x: Any) -> Any:
    return x.value if isinstance(x, Traced) else x


def symbolic_derivatives(
    graph: Graph, values: list[Any], path: Sequence[Node], wrt: Sequence[Node], dtype: np.dtype
) -> dict[str, Any]:
    """d/d b d/d path[-1] ... d/d path[0] of the output as a sympy formula for each b in `wrt`
    (None past the size limit): x's N-th derivative is path [x] * (N - 1), wrt [x]; a Hessian
    row a is path [a], wrt every leaf, one gradient graph for the whole row.

    The formula is read off the gradient graph the rules record (traced.py), differentiated
    again by the rules for each further step (the sum of the gradient in between, as
    torch.autograd.grad(g.sum(), b, create_graph=True)), so it keeps torch's conventions at
    kinks where sympy's own d/dx would not: relu'' is 0, not DiracDelta; a where() selects.
    """
    from .symbolic import read

    zeros = {b.name: read_constant(0.0) for b in wrt}  # a constant's derivatives
    current, current_values = graph, values
    known = None  # on a tape of formulas (no point given): the constants rules made
    for leaf in path:
        try:
            tape, adjoints = trace_backward(current, current_values, dtype, known=known)
        except CANNOT_TRACE:
            return {b.name: None for b in wrt}
        gradient = adjoints[leaf.index]
        if not isinstance(gradient, Traced) or not gradient.requires_grad:
            return zeros
        current = tape.graph(tape.apply("sum", gradient))
        current_values, known = (tape.values, None) if values is not None else (None, tape.values)
    try:
        tape, adjoints = trace_backward(current, current_values, dtype, known=known)
    except CANNOT_TRACE:
        return {b.name: None for b in wrt}
    found = {}
    for b in wrt:
        gradient = adjoints[b.index]
        if isinstance(gradient, Traced):
            found[b.name] = read(tape.graph(gradient), tape.values, len(graph.nodes))
        else:  # None or a rule's plain array: no graph
            found[b.name] = read_constant(0.0 if gradient is None else gradient)
    return found


def read_constant(value: Any) -> Any:
    """A gradient that carries no graph, as a formula: its number, when it holds one."""
    from .symbolic import uniform

    return uniform(value)
