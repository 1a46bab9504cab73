"""The engine's walks over a graph: the one forward walk, the one backward walk, the one reachability.

The backward walk follows node references (`backward_over`): a node is any object, its
edges are what `flows` says, so grad's frozen graph (graph.py: a list in topological order,
operands by index; `backward` adapts it) and a script's grad_fns (script/runtime.py: each
node referring to its operands' nodes, reached from the roots of one backward call) are
walked by the same loop. Each walk is a loop, never recursion: a 100,000-node chain costs
no stack. The walks know nothing of what a value is. A value domain comes in as callbacks: `evaluate`
gives an op node's value from its operands' for the forward walk; a pullback says what an
op node sends each operand from the gradient that reached it, for the backward walk.
Arrays, traced tensors (create_graph), batched arrays, blocks of elements, sympy
expressions and text in node names are all read off these same walks, so which edges
carry a gradient, in which order, and how contributions meet at a node used twice is
decided here once.

Pure: no I/O and no NumPy; a domain that needs NumPy's error state sets it around a walk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .graph import OP, Node

# (node, values so far) -> the op node's value; (node) -> an input's value
Evaluate = Callable[[Node, list], Any]
Read = Callable[[Node], Any]
# A domain's chain-rule step: (op node, the gradient that reached it, the positions of the
# operands a gradient flows to) -> the contribution sent to each, in that order (a list, or
# a generator: each is added into its operand before the next is asked for). One call per
# node, not per edge: the walk runs once per node of every pass.
Pullback = Callable[[Node, Any, list], Iterable[Any]]
# The edges a gradient flows along out of a node: (operand position, operand node) pairs.
Flows = Callable[[Any], Sequence[tuple[int, Any]]]
# Sees every contribution as the walk sends it: (op node, position, operand node, contribution).
EdgeHook = Callable[[Any, int, Any, Any], None]
# The same on a graph of indices: (op node, position, operand index, contribution).
IndexEdgeHook = Callable[[Node, int, int, Any], None]
Hook = Callable[[Any], Any]  # a tensor hook: the gradient reaching a node, replaced before it flows on


def forward(nodes: Iterable[Node], values: list, read: Read, evaluate: Evaluate) -> list:
    """Every node's value into `values` (indexed by node), in the nodes' topological order:
    `read` gives an input's value, `evaluate` an op's from the values of its operands."""
    for node in nodes:
        values[node.index] = evaluate(node, values) if node.kind == OP else read(node)
    return values


def edges(
    nodes: Sequence[Node], live: Sequence[Any] | None = None, backward: bool = True
) -> Iterator[tuple[Node, int, int]]:
    """The edges a gradient flows along, as (op node, operand position, operand index): from
    an op that requires grad to a tensor operand that requires grad. In the backward walk's
    order (from the output, each node's operands first to last), or the forward order with
    `backward=False`; only from op nodes whose entry in `live` is not None when it is given
    (the nodes a pass's gradient reached)."""
    for node in reversed(nodes) if backward else nodes:
        if node.kind != OP or not node.requires_grad or (live is not None and live[node.index] is None):
            continue
        for position, operand in enumerate(node.operands):
            if isinstance(operand, int) and nodes[operand].requires_grad:
                yield node, position, operand


def reach(roots: Iterable[Any], flows: Flows) -> list:
    """The nodes a backward from `roots` reaches (themselves included), following node
    references along the edges a gradient takes: each node once, in discovery order.

    Iterative, so a 100,000-node chain costs no stack; it visits only what the roots reach,
    so a backward over a graph that keeps growing (a script's) costs what it reaches."""
    seen: dict[Any, None] = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        for _, operand in flows(node):
            if operand not in seen:
                stack.append(operand)
    return list(seen)


def backward_over(
    order: Iterable[Any],
    seeds: Iterable[tuple[Any, Any]],
    flows: Flows,
    pullback: Pullback,
    *,
    hooks: Mapping[Any, Sequence[Hook]] | None = None,
    on_edge: EdgeHook | None = None,
    combine: Callable[[list], Any] | None = None,
) -> dict:
    """Every reached node's adjoint, from `seeds`: (root node, its upstream gradient) pairs,
    summed where two roots are one node. Nodes are any hashable objects, followed by reference:
    `flows(node)` gives the (operand position, operand node) pairs a gradient flows along out
    of it (none for a leaf), and `order` lists the nodes with each one before its operands
    (reverse topological order: a graph's nodes reversed, or a script's grad_fns by
    descending creation order).

    A node's adjoint is complete (every consumer has sent its contribution) before it flows
    on; a node used twice gets two contributions, so sharing is right by construction. At
    each node the gradient is first passed through `hooks[node]` in order (PyTorch's tensor
    hooks: the result is the node's adjoint and what flows on); then `pullback(node, g,
    positions)` gives the contributions along its edges, each added into its operand's
    adjoint after `on_edge(node, position, operand node, contribution)` has seen it.
    `combine`: contributions (seeds too) are kept in a list per node and combined once when
    the walk reaches it (a sympy sum built term by term is quadratic); without it they are
    added with `+` as they arrive."""
    adjoints: dict[Any, Any] = {}
    pending: dict[Any, list] | None = None
    if combine is not None:
        pending = {}
        for node, seed in seeds:
            pending.setdefault(node, []).append(seed)
    else:
        for node, seed in seeds:
            previous = adjoints.get(node)
            adjoints[node] = seed if previous is None else previous + seed
    for node in order:
        if pending is not None:
            terms = pending.pop(node, None)
            if not terms:
                continue
            adjoints[node] = g = combine(terms)  # type: ignore[misc]
        else:
            g = adjoints.get(node)
            if g is None:
                continue
        if hooks is not None:
            found = hooks.get(node)
            if found:
                for hook in found:
                    g = hook(g)
                adjoints[node] = g
        edges = flows(node)
        if not edges:
            continue
        positions = [position for position, _ in edges]
        for (position, operand), contribution in zip(edges, pullback(node, g, positions)):
            if contribution is None:  # an undefined gradient, as torch's: nothing flows on
                continue
            if on_edge is not None:
                on_edge(node, position, operand, contribution)
            if pending is not None:
                pending.setdefault(operand, []).append(contribution)
            else:
                previous = adjoints.get(operand)
                adjoints[operand] = contribution if previous is None else previous + contribution
        # the replaced adjoint and the last contribution must not stay alive while the walk
        # goes on: with 10M-element tensors each is 80 MB at the peak
        previous = contribution = g = None
    return adjoints


def backward(
    nodes: Sequence[Node],
    seeds: Iterable[tuple[int, Any]],
    pullback: Pullback,
    *,
    hooks: Mapping[int, Sequence[Hook]] | None = None,
    on_edge: IndexEdgeHook | None = None,
    combine: Callable[[list], Any] | None = None,
) -> list:
    """backward_over on a graph whose nodes are a list in topological order and whose
    operands are node indices (graph.py's): every node's adjoint by index, None where no
    gradient reaches; `seeds` and `hooks` by node index, and `on_edge(node, position,
    operand index, contribution)`."""

    def flows(node: Node) -> list[tuple[int, Node]]:
        if node.kind != OP or not node.requires_grad:
            return []
        found = []
        position = 0
        for operand in node.operands:  # a counter, not enumerate: no tuple per operand in the hot loop
            if isinstance(operand, int):
                target = nodes[operand]
                if target.requires_grad:
                    found.append((position, target))
            position += 1  # noqa: SIM113
        return found

    indexed_edge = None
    if on_edge is not None:
        told = on_edge

        def indexed_edge(node: Node, position: int, operand: Node, contribution: Any) -> None:
            told(node, position, operand.index, contribution)

    adjoints = backward_over(
        reversed(nodes),
        [(nodes[index], seed) for index, seed in seeds],
        flows,
        pullback,
        hooks=None if hooks is None else {nodes[index]: found for index, found in hooks.items()},
        on_edge=indexed_edge,
        combine=combine,
    )
    return [adjoints.get(node) for node in nodes]


def reaching(
    nodes: Sequence[Node], starts: Iterable[int], *, toward_inputs: bool = True, gradient: bool = True
) -> list[bool]:
    """Which nodes are reached from `starts` (themselves included), per node.

    Toward the inputs (the default): what the starts depend on; toward the outputs: what
    depends on a start. `gradient`: only along the edges a gradient flows (engine.edges),
    so toward the inputs these are the nodes a backward pass from the starts gives an
    adjoint; without it, along every operand."""
    reached = [False] * len(nodes)
    for index in starts:
        reached[index] = True
    if toward_inputs:
        for node in reversed(nodes):
            if not reached[node.index] or node.kind != OP or (gradient and not node.requires_grad):
                continue
            for operand in node.operands:
                if isinstance(operand, int) and (not gradient or nodes[operand].requires_grad):
                    reached[operand] = True
        return reached
    for node in nodes:
        if reached[node.index] or node.kind != OP or (gradient and not node.requires_grad):
            continue
        reached[node.index] = any(
            isinstance(operand, int) and reached[operand] and (not gradient or nodes[operand].requires_grad)
            for operand in node.operands
        )
    return reached
