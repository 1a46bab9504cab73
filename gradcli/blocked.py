"""Big elementwise programs: forward and backward in cache-sized blocks, on every core.

Node by node, `sum(sin(x)*exp(x) + x**3)` on 10 million elements makes every
intermediate value and adjoint a full-size array: about a gigabyte of fresh memory,
whose page faults cost more than the arithmetic. When every op is elementwise over one
shape (scalars allowed) and the output is that shape or its full sum or mean, each
block of elements can run the whole forward and backward pass on its own. A block's
temporaries stay in cache and are reused, and blocks run on a thread pool because
NumPy releases the GIL inside its loops.

Each block calls the registry's own forward and VJP rules, so every element's gradient
is computed exactly as the node-by-node evaluator computes it; only sums (the output's
reduction and the grads of scalar leaves) add their terms in another order. Values and
adjoints of intermediate nodes are not kept: this serves `grad(..., nodes=False)`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import engine
from .autograd import evaluator, pullback
from .graph import OP, Graph, Node
from .ops import Shape

BLOCK = 16_384  # elements per block: a block's dozen temporaries fit in a core's L2 cache
MIN_ELEMENTS = 4 * BLOCK  # below this, node by node is as fast and keeps every node

# Full reductions at the output that split across blocks: partial sums add up, and the
# adjoint each element receives is the upstream gradient (sum) or that over the count (mean).
_REDUCTIONS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "sum": lambda total, count: total,
    "mean": lambda total, count: total / count,
}


@dataclass(frozen=True)
class BlockPlan:
    shape: Shape  # every tensor node has this shape, or is a scalar
    size: int
    root: int  # the elementwise node that is the output, or that the output reduces
    reduction: str | None  # "sum" or "mean" when the output reduces the root


def plan(graph: Graph) -> BlockPlan | None:
    """How to run the graph in blocks, or None when it is small or not elementwise."""
    output = graph.nodes[graph.output]
    if output.kind == OP and output.op.elementwise:
        root, reduction = output.index, None
    elif (
        output.kind == OP
        and output.op.name in _REDUCTIONS
        and output.attrs.get("dim") is None
        and not output.attrs.get("keepdim")
        and isinstance(output.operands[0], int)
    ):
        root, reduction = output.operands[0], output.op.name
    else:
        return None
    shape = graph.nodes[root].shape
    size = math.prod(shape)
    if size < MIN_ELEMENTS:
        return None
    for node in graph.nodes:
        if reduction and node.index == graph.output:
            continue
        if node.shape not in (shape, ()) or (node.kind == OP and not node.op.elementwise):
            return None
    return BlockPlan(shape, size, root, reduction)


def run(
    graph: Graph, plan: BlockPlan, inputs: dict[str, np.ndarray], seed: np.ndarray, dtype: np.dtype
) -> tuple[np.ndarray, dict[str, np.ndarray | None]]:
    """The output's value and every leaf's grad after one backward pass with `seed`."""
    nodes = graph.nodes
    region = [n for n in nodes if not (plan.reduction and n.index == graph.output)]
    big = {n.index for n in region if n.shape == plan.shape}
    flat = {name: a.reshape(-1) for name, a in inputs.items() if a.shape == plan.shape}
    leaves = [leaf for leaf in graph.leaves if leaf.requires_grad]
    big_grads = {leaf.name: np.empty(plan.size, dtype) for leaf in leaves if leaf.index in big}
    if plan.reduction:
        root_adjoint = np.asarray(_REDUCTIONS[plan.reduction](seed, plan.size), dtype=dtype)
        out_flat = None
    else:
        seed_flat = np.asarray(seed, dtype=dtype).reshape(-1)
        out_flat = np.empty(plan.size, dtype)

    evaluate = evaluator(dtype)

    def block(start: int) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        stop = min(start + BLOCK, plan.size)
        here = (stop - start,)

        def read(node: Node) -> np.ndarray:
            return flat[node.name][start:stop] if node.index in big else inputs[node.name]

        with np.errstate(all="ignore"):  # per thread: NumPy's error state is thread-local
            values = engine.forward(region, [None] * len(nodes), read, evaluate)
            root_value = values[plan.root]
            if plan.reduction:
                partial = root_value.sum()
                root_seed = np.broadcast_to(root_adjoint, here)
            else:
                partial = None
                out_flat[start:stop] = root_value
                root_seed = seed_flat[start:stop]
            # the output (a reduction outside the region) gets no adjoint: the walk starts at the root
            adjoints = engine.backward(
                nodes,
                [(plan.root, root_seed)],
                pullback(values, dtype, nodes, lambda o: here if o in big else ()),
            )
        scalar_parts = {}
        for leaf in leaves:
            adjoint = adjoints[leaf.index]
            if adjoint is None:
                continue
            if leaf.index in big:
                big_grads[leaf.name][start:stop] = adjoint
            else:
                scalar_parts[leaf.name] = adjoint
        return partial, scalar_parts

    results = _map_blocks(block, range(0, plan.size, BLOCK))
    reached = engine.reaching(nodes, [plan.root])
    flowing = {leaf.name for leaf in leaves if reached[leaf.index]}
    grads: dict[str, np.ndarray | None] = {}
    with np.errstate(all="ignore"):  # sums of inf and -inf are nan, silently, as in PyTorch
        for leaf in graph.leaves:
            if leaf.name not in flowing:
                grads[leaf.name] = None
            elif leaf.name in big_grads:
                grads[leaf.name] = big_grads[leaf.name].reshape(leaf.shape)
            else:
                partials = [scalar_parts[leaf.name] for _, scalar_parts in results]
                grads[leaf.name] = np.asarray(np.sum(partials), dtype=dtype)
        if plan.reduction:
            total = np.sum([partial for partial, _ in results], dtype=dtype)
            value = np.asarray(_REDUCTIONS[plan.reduction](total, plan.size), dtype=dtype)
        else:
            value = out_flat.reshape(plan.shape)
    return value, grads


def _map_blocks(block: Callable, starts: range) -> list:
    """Run every block, in order of results; a Ctrl-C drops the blocks not yet started."""
    from .pool import map_in_order  # threads start only when blocks run

    return map_in_order(block, starts)
