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

With `keep=True` (`grad(..., nodes=True)`, the API's default) each block also writes
every node's value and adjoint into its slice of full-size arrays, so the result holds
what the node-by-node evaluator holds, bit for bit: the output's sum or mean is taken
over the kept values by the op itself (PyTorch's order of additions), and the root's
adjoint is the reduction's own VJP. That needs no sum inside the region, so a graph in
which a scalar node receives a gradient (a scalar leaf such as `a` in `a*sin(x)`) runs
node by node instead (`keepable`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock

import numpy as np

from .autograd import evaluate, push_adjoints
from .graph import OP, Graph
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


def keepable(graph: Graph, plan: BlockPlan) -> bool:
    """Whether keep=True gives node-by-node's bits: every node a gradient reaches is full-size
    (the adjoint of a scalar node is a sum over the elements, which blocks would split)."""
    return all(graph.nodes[i].shape == plan.shape for i in _reached(graph, plan))


@dataclass(frozen=True)
class BlockResult:
    value: np.ndarray  # the output's value
    grads: dict[str, np.ndarray | None]  # every leaf's grad after the pass
    finite: bool  # no nan or inf in the value or a grad (then node by node runs, to say where)
    values: list[np.ndarray | None] | None = None  # keep=True: every node's value, as forward() has it
    adjoints: list[np.ndarray | None] | None = None  # keep=True: every node's adjoint, as backward()


class _Kept:
    """Full-size arrays that blocks fill slice by slice.

    The first block runs on the calling thread and allocates them there: from a worker
    thread glibc's malloc would map each one fresh (its per-thread heaps are too small) and
    fault every page in again on every call. A block whose array for a node is a broadcast
    of one number (the adjoint of a sum, and what add's VJP passes on) records that number
    instead; a node that every block records so, with the same number, stays a read-only
    broadcast, as it is node by node, and takes no memory."""

    def __init__(self, plan: BlockPlan, dtype: np.dtype, indices: list[int]):
        self.plan, self.dtype = plan, dtype
        self.full: dict[int, np.ndarray] = {}
        self.constant: dict[int, list[tuple[int, int, np.ndarray]]] = {index: [] for index in indices}
        self.lock = Lock()

    def put(self, index: int, start: int, stop: int, block: np.ndarray) -> None:
        if block.ndim == 1 and block.strides == (0,):
            self.constant[index].append((start, stop, block[:1].copy()))  # list.append is atomic
            return
        target = self.full.get(index)
        if target is None:
            with self.lock:  # a node broadcast in the first block but not in this one
                target = self.full.setdefault(index, np.empty(self.plan.size, self.dtype))
        target[start:stop] = block

    def get(self, index: int) -> np.ndarray:
        records = self.constant[index]
        if index not in self.full:
            first = records[0][2]
            if all(np.array_equal(first, v, equal_nan=True) for _, _, v in records):
                return np.broadcast_to(first.reshape(()), self.plan.shape)
            self.full[index] = np.empty(self.plan.size, self.dtype)
        target = self.full[index]
        for start, stop, v in records:
            target[start:stop] = v
        return target.reshape(self.plan.shape)


def threads() -> int:
    """Worker threads: the CPUs this process may use, at most 8."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(available, 8))


def run(
    graph: Graph,
    plan: BlockPlan,
    inputs: dict[str, np.ndarray],
    seed: np.ndarray,
    dtype: np.dtype,
    keep: bool = False,
) -> BlockResult:
    """The output's value and every leaf's grad after one backward pass with `seed`;
    with `keep` (only where `keepable`) also every node's value and adjoint."""
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
        out_flat = None if keep else np.empty(plan.size, dtype)
    reached = _reached(graph, plan)
    kept_ops = [n.index for n in region if n.kind == OP] if keep else []
    # keep: the root's adjoint is the seed or the reduction's VJP, set after the blocks
    kept_adjoint_nodes = [i for i in sorted(reached) if i != plan.root] if keep else []
    kept_values = _Kept(plan, dtype, [i for i in kept_ops if i in big])
    kept_adjoints = _Kept(plan, dtype, kept_adjoint_nodes)
    scalar_values: dict[int, np.ndarray] = {}  # keep: scalar ops' values, the same in every block

    def block(start: int) -> tuple[np.ndarray | None, dict[str, np.ndarray], bool]:
        stop = min(start + BLOCK, plan.size)
        here = (stop - start,)
        values: list[np.ndarray | None] = [None] * len(nodes)
        adjoints: list[np.ndarray | None] = [None] * len(nodes)
        with np.errstate(all="ignore"):  # per thread: NumPy's error state is thread-local
            for node in region:
                if node.kind != OP:
                    values[node.index] = (
                        flat[node.name][start:stop] if node.index in big else inputs[node.name]
                    )
                    continue
                values[node.index] = evaluate(node, values, dtype)
            root_value = values[plan.root]
            if plan.reduction:
                partial = None if keep else root_value.sum()
                adjoints[plan.root] = np.broadcast_to(root_adjoint, here)
            else:
                partial = None
                if out_flat is not None:
                    out_flat[start:stop] = root_value
                adjoints[plan.root] = seed_flat[start:stop]
            for node in reversed(region):
                g = adjoints[node.index]
                if g is None or node.kind != OP or not node.requires_grad:
                    continue
                push_adjoints(node, g, values, adjoints, nodes, dtype, lambda o: here if o in big else ())
            for index in kept_ops:
                if index in big:
                    kept_values.put(index, start, stop, values[index])
                elif start == 0:
                    scalar_values[index] = values[index]
            for index in kept_adjoint_nodes:
                kept_adjoints.put(index, start, stop, adjoints[index])
            scalar_parts = {}
            # Full-size results are checked here, while in cache: a finite sum has finite terms.
            sums = [] if plan.reduction else [root_value.sum()]
            for leaf in leaves:
                adjoint = adjoints[leaf.index]
                if adjoint is None:
                    continue
                if leaf.index in big:
                    big_grads[leaf.name][start:stop] = adjoint
                    sums.append(adjoint.sum())
                else:
                    scalar_parts[leaf.name] = adjoint
            finite = bool(np.isfinite(sums).all())
        return partial, scalar_parts, finite

    starts = range(0, plan.size, BLOCK)
    first = [block(0)] if keep else []  # keep: allocates the full-size arrays on this thread
    results = first + _map_blocks(block, starts[len(first) :])
    flowing = {leaf.name for leaf in leaves if leaf.index in reached}
    grads: dict[str, np.ndarray | None] = {}
    with np.errstate(all="ignore"):  # sums of inf and -inf are nan, silently, as in PyTorch
        for leaf in graph.leaves:
            if leaf.name not in flowing:
                grads[leaf.name] = None
            elif leaf.name in big_grads:
                grads[leaf.name] = big_grads[leaf.name].reshape(leaf.shape)
            else:
                partials = [scalar_parts[leaf.name] for _, scalar_parts, _ in results]
                grads[leaf.name] = np.asarray(np.sum(partials), dtype=dtype)
        small = [grads[leaf.name] for leaf in graph.leaves if leaf.name not in big_grads]
        finite = all(ok for _, _, ok in results) and all(g is None or np.isfinite(g).all() for g in small)
        values = adjoints = None
        if keep:
            values, adjoints = _kept(graph, plan, inputs, seed, dtype, kept_values, kept_adjoints, scalar_values)
            value = values[graph.output]
        elif plan.reduction:
            total = np.sum([partial for partial, _, _ in results], dtype=dtype)
            value = np.asarray(_REDUCTIONS[plan.reduction](total, plan.size), dtype=dtype)
        else:
            value = out_flat.reshape(plan.shape)
    finite = finite and (not plan.reduction or bool(np.isfinite(value)))
    return BlockResult(value, grads, finite, values, adjoints)


def _kept(
    graph: Graph,
    plan: BlockPlan,
    inputs: dict[str, np.ndarray],
    seed: np.ndarray,
    dtype: np.dtype,
    kept_values: _Kept,
    kept_adjoints: _Kept,
    scalar_values: dict[int, np.ndarray],
) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
    """Every node's value and adjoint as forward() and backward() leave them."""
    nodes = graph.nodes
    values: list[np.ndarray | None] = [None] * len(nodes)
    adjoints: list[np.ndarray | None] = [None] * len(nodes)
    for node in nodes:
        if node.kind != OP:
            values[node.index] = inputs[node.name]
        elif node.index in scalar_values:
            values[node.index] = scalar_values[node.index]
        elif not (plan.reduction and node.index == graph.output):
            values[node.index] = kept_values.get(node.index)
    adjoints[graph.output] = seed
    if plan.reduction:  # the reduction over the kept values, and its VJP, as node by node
        output = nodes[graph.output]
        values[graph.output] = evaluate(output, values, dtype)
        push_adjoints(output, seed, values, adjoints, nodes, dtype, lambda o: nodes[o].shape)
    for index in _reached(graph, plan) - {plan.root}:
        adjoints[index] = kept_adjoints.get(index)
    return values, adjoints


def _reached(graph: Graph, plan: BlockPlan) -> set[int]:
    """The nodes a gradient reaches from the root: chains of grad-requiring ops."""
    reaching = {plan.root}
    for node in reversed(graph.nodes):
        if node.index in reaching and node.kind == OP and node.requires_grad:
            reaching.update(o for o in node.inputs() if graph.nodes[o].requires_grad)
    return reaching


def _map_blocks(block: Callable, starts: range) -> list:
    """Run every block, in order of results; a Ctrl-C drops the blocks not yet started."""
    workers = threads()
    if workers == 1 or len(starts) == 1:
        return [block(start) for start in starts]
    from concurrent.futures import ThreadPoolExecutor  # with logging: only when blocks run

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gradcli-block")
    try:
        results = list(pool.map(block, starts))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results
