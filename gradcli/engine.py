"""The engine's walks over a graph: the one forward walk, the one backward walk, the one reachability.

Nodes are kept in topological order (graph.py: an operand exists before its user), so each
walk is one loop over a list, never recursion: a 100,000-node chain costs no stack. The
walks know nothing of what a value is. A value domain comes in as callbacks: `evaluate`
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
# Sees every contribution as the walk sends it: (op node, position, operand, contribution).
EdgeHook = Callable[[Node, int, int, Any], None]
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


def backward(
    nodes: Sequence[Node],
    seeds: Iterable[tuple[int, Any]],
    pullback: Pullback,
    *,
    hooks: Mapping[int, Sequence[Hook]] | None = None,
    on_edge: EdgeHook | None = None,
    combine: Callable[[list], Any] | None = None,
) -> list:
    """Every node's adjoint (None where no gradient reaches), from `seeds`: (root node, its
    upstream gradient) pairs, summed where two roots are one node.

    The walk visits nodes in reverse topological order, so a node's adjoint is complete
    (every consumer has sent its contribution) before it flows on; a node used twice gets
    two contributions, so sharing is right by construction. At each node the gradient is
    first passed through `hooks[node]` in order (PyTorch's tensor hooks: the result is the
    node's adjoint and what flows on); then an op that requires grad asks `pullback(node, g,
    positions)` for the contributions along its edges (engine.edges) and adds each into its
    operand's adjoint, telling `on_edge` of it first. `combine`: contributions (seeds too) are kept in a list
    per node and combined once when the walk reaches it (a sympy sum built term by term is
    quadratic); without it they are added with `+` as they arrive.
    """
    adjoints: list[Any] = [None] * len(nodes)
    pending: list[list] | None = None
    if combine is not None:
        pending = [[] for _ in nodes]
        for index, seed in seeds:
            pending[index].append(seed)
    else:
        for index, seed in seeds:
            previous = adjoints[index]
            adjoints[index] = seed if previous is None else previous + seed
    for node in reversed(nodes):
        index = node.index
        if pending is not None:
            terms = pending[index]
            if not terms:
                continue
            pending[index] = []
            adjoints[index] = g = combine(terms)  # type: ignore[misc]
        else:
            g = adjoints[index]
            if g is None:
                continue
        if hooks is not None:
            for hook in hooks.get(index, ()):
                g = hook(g)
            adjoints[index] = g
        if node.kind != OP or not node.requires_grad:
            continue
        operands = node.operands  # the rule of engine.edges, inline and without a comprehension's frame
        wanted = []
        position = 0
        for operand in operands:  # a counter, not enumerate: no tuple per operand in the hot loop
            if isinstance(operand, int) and nodes[operand].requires_grad:
                wanted.append(position)
            position += 1  # noqa: SIM113
        if not wanted:
            continue
        for position, contribution in zip(wanted, pullback(node, g, wanted)):
            if contribution is None:  # an undefined gradient, as torch's: nothing flows on
                continue
            operand = operands[position]
            if on_edge is not None:
                on_edge(node, position, operand, contribution)
            if pending is not None:
                pending[operand].append(contribution)
            else:
                previous = adjoints[operand]
                adjoints[operand] = contribution if previous is None else previous + contribution
        # the replaced adjoint and the last contribution must not stay alive while the walk
        # goes on: with 10M-element tensors each is 80 MB at the peak
        previous = contribution = None
    return adjoints


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
