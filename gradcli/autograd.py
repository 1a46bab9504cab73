"""Numeric forward and backward passes with PyTorch's backward() semantics.

The walks are the engine's (engine.py); this is their array domain: a node's value by the
registry's forward, the chain-rule step by its VJP rules (`pullback`, which runs unchanged
on traced and batched values too). Passes accumulate into the leaves' `.grad`
exactly as repeated `out.backward(...)` calls do, including PyTorch's errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import engine, limits
from .errors import CLI_WORDS, AutogradError, GradcliError, ShapeError, option
from .graph import OP, Graph, Node
from .ops import unbroadcast
from .ops.dtypes import widened


def torch_size(shape: tuple[int, ...]) -> str:
    return f"torch.Size([{', '.join(str(n) for n in shape)}])"


SECOND_PASS = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
NO_GRAD = "element 0 of tensors does not require grad and does not have a grad_fn"
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"


def forward(graph: Graph, inputs: dict[str, np.ndarray], dtype: np.dtype) -> list[np.ndarray]:
    """Values of every node; NumPy warnings are silenced (nan/inf follow IEEE as in PyTorch)."""
    with np.errstate(all="ignore"):
        return engine.forward(
            graph.nodes, [None] * len(graph.nodes), lambda node: inputs[node.name], evaluator(dtype)
        )


def evaluate(node: Node, values: list[np.ndarray | None], dtype: np.dtype) -> np.ndarray:
    """One op node's value from its operands' values (numbers are used as they are)."""
    return evaluator(dtype)(node, values)


def evaluator(dtype: np.dtype) -> engine.Evaluate:
    """The array domain's forward step for engine.forward: the registry's forward, in `dtype`."""
    single = dtype == np.float32

    def evaluate(node: Node, values: list[np.ndarray | None]) -> np.ndarray:
        args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
        if single:  # exp, tanh ...: double, rounded once, as torch's kernels land
            args = widened(node.op.name, args)
        return np.asarray(node.op.forward(*args, **node.attrs), dtype=dtype)

    return evaluate


EdgeHook = engine.EdgeHook


def backward(
    graph: Graph, values: list[np.ndarray], seed: np.ndarray, dtype: np.dtype, on_edge: EdgeHook | None = None
) -> list[np.ndarray | None]:
    """Adjoint of every node for one pass; None where no gradient flows.

    `on_edge(node, position, operand, contribution)` sees every gradient an op sends an
    operand, in the order backward() sends them (explain narrates from these)."""
    with np.errstate(all="ignore"):
        return engine.backward(
            graph.nodes, [(graph.output, seed)], pullback(values, dtype, graph.nodes), on_edge=on_edge
        )


def pullback(
    values: list[np.ndarray | None],
    dtype: np.dtype,
    nodes: tuple[Node, ...],
    shape_of: Callable[[int], tuple[int, ...]] | None = None,
) -> engine.Pullback:
    """The array domain's chain-rule step for engine.backward: each op's registry VJP rules
    on the forward values, summed over broadcast dims to the operand's shape.

    The same rules run on arrays, traced values (create_graph: a traced contribution stays
    traced) and batched arrays; `shape_of` gives an operand's shape where it is evaluated
    (a block, for blocked.py; by default its node's)."""

    def pull(node: Node, g: np.ndarray, positions: list[int]) -> Iterable[np.ndarray]:
        refuse_unimplemented(node.grad_fn, node.op)
        args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
        out = values[node.index]
        operands = node.operands

        def shape(position: int) -> tuple[int, ...]:
            operand = operands[position]
            return nodes[operand].shape if shape_of is None else shape_of(operand)

        if len(positions) == 1:
            position = positions[0]
            return (vjp_edge(node.op, node.attrs, g, out, args, position, shape(position), dtype),)
        # lazily: each contribution is added into its operand before the next is made, so a
        # node's contributions are never all alive at once (10M-element tensors)
        return (vjp_edge(node.op, node.attrs, g, out, args, p, shape(p), dtype) for p in positions)

    return pull


def refuse_unimplemented(grad_fn: str | None, op: Any) -> None:
    """torch records a node it has no derivative formula for, and fails when backward reaches it."""
    if grad_fn == "NotImplemented":
        raise ShapeError(f"derivative for aten::{op.torch.rsplit('.', 1)[-1]} is not implemented")


def vjp_edge(
    op: Any, attrs: dict, g: Any, out: Any, args: list, position: int, shape: tuple[int, ...], dtype: np.dtype
) -> Any:
    """What an op sends the operand at `position`: its registry VJP rule, summed over broadcast
    dims to the operand's `shape`; None where the rule gives no gradient (a custom Function's
    backward returned None)."""
    raw = op.vjp[position](g, out, *args, **attrs)
    if raw is None:
        return None
    contribution = unbroadcast(raw, shape)
    if not hasattr(contribution, "apply_op"):  # a traced value (create_graph) stays traced
        contribution = np.asarray(contribution, dtype=dtype)
    return contribution


def local_derivative(node: Node, values: list[np.ndarray], position: int) -> np.ndarray:
    """d node / d operand at `position` of an elementwise op, elementwise: its VJP rule with g = 1."""
    args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
    out = values[node.index]
    with np.errstate(all="ignore"):
        return np.asarray(node.op.vjp[position](np.ones_like(out), out, *args, **node.attrs), dtype=out.dtype)


@dataclass(frozen=True)
class PassRecord:
    index: int  # 1-based, as a user counts passes
    gradient: np.ndarray
    grads: dict[str, np.ndarray | None]  # every leaf's .grad after this pass
    adjoints: list[np.ndarray | None] | None  # every node's adjoint; kept for the last pass only
    # what each edge (op node, operand position) carried in this pass; only when asked for
    edges: dict[tuple[int, int], np.ndarray] | None = None


def edge_recorder(carried: dict[tuple[Any, int], np.ndarray], by_index: bool = True) -> EdgeHook:
    """An on_edge hook that keeps what each edge carried, by (op node's index, operand
    position); by (the node itself, position) for a graph of references (a script's grad_fns)."""

    def record(node: Any, position: int, operand: Any, contribution: Any) -> None:
        # a traced contribution (create_graph) is kept as its numbers
        key = node.index if by_index else node
        carried[(key, position)] = np.asarray(getattr(contribution, "value", contribution))

    return record


def seed_for(
    graph: Graph, gradient: np.ndarray | None, dtype: np.dtype, requires_grad: bool = True
) -> np.ndarray | None:
    """The upstream gradient, checked as torch.autograd.backward's _make_grads checks it.

    A given gradient must match the output's shape; an implicit one needs a one-element
    output (numel() == 1, so shape (1,) is fine), but only when the output requires grad:
    otherwise PyTorch lets the engine refuse with NO_GRAD instead.
    """
    shape = graph.nodes[graph.output].shape
    if gradient is None:
        if not requires_grad:
            return None
        # torch.autograd's _make_grads tests numel() == 1, so shape (1,) or (1, 1) is fine too.
        if math.prod(shape) != 1:
            ones = str(np.ones(shape, dtype=int).tolist()) if np.prod(shape) <= 6 else None
            example = ones or f"ones({', '.join(map(str, shape))})"
            raise AutogradError(
                NOT_SCALAR,
                hint=f"the output has shape {list(shape)}: pass {option('gradient')} with shape "
                f"{list(shape)}, e.g. "
                + (f'--gradient "{example}"' if CLI_WORDS.get() else f"gradient={example}"),
            )
        return np.ones(shape, dtype=dtype)
    gradient = np.asarray(gradient, dtype=dtype)
    if gradient.shape != shape:
        raise AutogradError(
            f"Mismatch in shape: grad_output[0] has a shape of {torch_size(gradient.shape)} and "
            f"output[0] has a shape of {torch_size(shape)}.",
            hint=f"pass {option('gradient')} with shape {list(shape)}",
        )
    return gradient


class PassesStopped(Exception):
    """Pass `error`'s pass failed after `records` had finished (kept, as PyTorch keeps .grad)."""

    def __init__(self, error: GradcliError, records: list[PassRecord]) -> None:
        super().__init__(str(error))
        self.error, self.records = error, records


def run_passes(
    graph: Graph,
    values: list[np.ndarray],
    gradients: list[np.ndarray | None],
    dtype: np.dtype,
    retain_graph: bool = False,
    zero_grad: bool = False,
    edges: bool = False,
) -> list[PassRecord]:
    """Run len(gradients) backward passes, accumulating leaf grads like PyTorch.

    `edges`: keep every pass's adjoints and what each edge carried (explain narrates these)."""
    limits.check(len(gradients), limits.MAX_PASSES, "number of passes", "MAX_PASSES")
    output = graph.nodes[graph.output]
    leaves = graph.leaves
    grads: dict[str, np.ndarray | None] = {leaf.name: None for leaf in leaves}
    records: list[PassRecord] = []
    freed = False
    for index, gradient in enumerate(gradients, start=1):
        # PyTorch's order within one backward(): the gradient's shape, then whether
        # anything requires grad, then (while running) whether saved tensors were freed.
        # Checking every pass's gradient up front would report a later pass's error first.
        try:
            seed = seed_for(graph, gradient, dtype, output.requires_grad)
            if not output.requires_grad:
                raise AutogradError(
                    NO_GRAD, hint=f"give at least one input that the output depends on with {option('at')}"
                )
            if freed:
                raise AutogradError(
                    SECOND_PASS, hint=f"add {option('retain_graph')} to keep the graph between passes"
                )
        except GradcliError as exc:
            if not records:
                raise
            raise PassesStopped(exc, records) from None
        if zero_grad and index > 1:
            grads = {name: None if g is None else np.zeros_like(g) for name, g in grads.items()}
        carried: dict[tuple[int, int], np.ndarray] | None = {} if edges else None
        hook = None if carried is None else edge_recorder(carried)
        adjoints = backward(graph, values, seed, dtype, on_edge=hook)
        for leaf in leaves:
            adjoint = adjoints[leaf.index]
            if adjoint is not None:
                previous = grads[leaf.name]
                grads[leaf.name] = adjoint.copy() if previous is None else np.asarray(previous + adjoint)
        if records and not edges:  # only the last pass's adjoints are shown: memory stays flat
            records[-1] = PassRecord(records[-1].index, records[-1].gradient, records[-1].grads, None)
        records.append(PassRecord(index, seed, dict(grads), adjoints, carried))
        # Ops that saved tensors for backward free them unless the graph is retained;
        # ops that saved none (add, sum, ...) can run backward again, as in PyTorch.
        freed = not retain_graph and any(
            node.kind == OP and adjoints[node.index] is not None and node.op.saves_tensors
            for node in graph.nodes
        )
    return records
