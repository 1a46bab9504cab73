"""PyTorch's backward kernels as registry records (ops.KERNELS), each against its aten op.

A kernel is what a VJP calls where torch's derivatives.yaml calls a fused kernel
(select_backward, scatter, tanh_backward, ...); under create_graph it is a node with its own
grad_fn and its own rules. For every kernel of the families here, its forward must equal the
aten op's, its VJPs must equal torch.autograd.grad through it, its VJPs must trace (so a
third derivative exists) with torch's second derivatives, and they must batch (Jacobian rows
in one sweep equal one pass per row). A kernel added without a case here fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from oracle import close, torch

from gradcli.api import _prepare
from gradcli.autograd import backward
from gradcli.batched import Batched, apply, backward_rows
from gradcli.ops import REGISTRY, indexing, kernels, reducing
from gradcli.ops.core import call
from gradcli.traced import Tape, Traced, trace_backward

RNG = np.random.default_rng(20261124)
G3 = RNG.uniform(-2, 2, (3,))
A23 = RNG.uniform(-2, 2, (2, 3))
A34 = RNG.uniform(-2, 2, (3, 4))
INDEX = np.array([[2, 0, 1, 2], [2, 1, 1, 0]])  # repeated in columns 0 and 2: scatter_add adds them up
UNIQUE = np.array([[2, 0, 1, 2]])  # one index per column, as max(x, 0) picks
MASK = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
T64 = torch.float64


def _t(value: Any) -> Any:
    return torch.tensor(value, dtype=T64)


@dataclass(frozen=True)
class KernelCase:
    operands: tuple[Any, ...]
    attrs: dict
    torch: Any  # (*tensors) -> tensor, the aten op (or torch's own composition of it)
    differentiable: tuple[int, ...] = (0,)  # operand positions that carry a gradient
    extra: dict = field(default_factory=dict)


CASES: dict[str, KernelCase] = {
    "sgn": KernelCase((A23,), {}, torch.sgn),
    "sum_to": KernelCase((A34,), {"size": (1, 4)}, lambda a: a.sum(0, keepdim=True)),
    "tanh_backward": KernelCase(
        (A23, np.tanh(A23)), {}, torch.ops.aten.tanh_backward, differentiable=(0, 1)
    ),
    "sigmoid_backward": KernelCase(
        (A23, 1 / (1 + np.exp(-A23))), {}, torch.ops.aten.sigmoid_backward, differentiable=(0, 1)
    ),
    "threshold_backward": KernelCase(
        (A23, A23 * 0.5), {"threshold": 0.0}, lambda g, a: torch.ops.aten.threshold_backward(g, a, 0.0),
        differentiable=(0, 1),
    ),
    "select_backward": KernelCase(
        (G3,), {"shape": (2, 3), "dim": 0, "index": 1},
        lambda g: torch.ops.aten.select_backward(g, [2, 3], 0, 1),
    ),
    "slice_backward": KernelCase(
        (A23[:, :2],), {"shape": (2, 4), "dim": 1, "start": 1, "end": 4, "step": 2},
        lambda g: torch.ops.aten.slice_backward(g, [2, 4], 1, 1, 4, 2),
    ),
    "index_put": KernelCase(
        (A23,), {"shape": (3, 3), "key": (("list", [2, 0]),)},
        lambda g: torch.zeros(3, 3, dtype=T64).index_put((torch.tensor([2, 0]),), g, accumulate=True),
    ),
    "index_put1": KernelCase(
        (A34[:3], np.array([1, 1, 0])), {"shape": (2, 4), "key": (("tensor", 0),)},
        lambda g, i: torch.zeros(2, 4, dtype=T64).index_put((i.long(),), g, accumulate=True),
    ),
    "masked_fill_tensor": KernelCase(
        (MASK, np.array(0.75)), {"shape": (3, 4)},
        lambda m, v: torch.zeros(3, 4, dtype=T64).masked_fill(m.bool(), v),
        differentiable=(1,),
    ),
    "scatter": KernelCase(
        (A34[:1], UNIQUE), {"dim": 0, "shape": (3, 4)},
        lambda src, i: torch.zeros(3, 4, dtype=T64).scatter(0, i.long(), src),
    ),
    "scatter_add": KernelCase(
        (A34[:2], INDEX), {"dim": 0, "shape": (3, 4)},
        lambda src, i: torch.zeros(3, 4, dtype=T64).scatter_add(0, i.long(), src),
    ),
}
# Python's index_put records IndexPutBackward0 where the kernel torch's index backward calls,
# _index_put_impl_, records IndexPutImplBackward0; at::sum_to is sum(dims, keepdim=True), whose
# SumBackward1 the oracle's a.sum(0, keepdim=True) shows too.
NAMED_OTHERWISE = {"index_put", "index_put1"}
KERNELS = {k.name: k for k in kernels.KERNELS + indexing.KERNELS + reducing.KERNELS}


def test_every_kernel_here_has_a_case() -> None:
    assert set(KERNELS) == set(CASES)


def _record(name: str) -> tuple[Tape, list, Traced]:
    """The kernel applied on a tape to leaves (its differentiable operands) and constants."""
    case = CASES[name]
    base = _prepare("a", {"a": 0.0}, {}, "float64")
    tape = Tape(base.graph, [np.zeros(())], np.dtype(np.float64))
    operands = [
        tape.leaf(v, f"k{i}") if i in case.differentiable else np.asarray(v, dtype=float)
        for i, v in enumerate(case.operands)
    ]
    return tape, operands, call(name, *operands, **case.attrs)


def _torch_run(name: str, upstream: np.ndarray) -> tuple[Any, list, tuple]:
    case = CASES[name]
    tensors = [
        _t(v).requires_grad_(i in case.differentiable) if np.issubdtype(np.asarray(v).dtype, np.floating) else _t(v)
        for i, v in enumerate(case.operands)
    ]
    out = case.torch(*tensors)
    leaves = [tensors[i] for i in case.differentiable]
    firsts = torch.autograd.grad((out * _t(upstream)).sum(), leaves, create_graph=True, allow_unused=True)
    return out, leaves, firsts


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_vjps_and_second_derivatives_equal_torchs(name: str) -> None:
    tape, operands, out = _record(name)
    upstream = RNG.uniform(-1, 1, out.shape)
    theirs, leaves, firsts = _torch_run(name, upstream)
    assert close(out.value, theirs.detach().numpy())
    if name not in NAMED_OTHERWISE:
        assert tape.nodes[out.index].grad_fn == theirs.grad_fn.name().replace("torch::autograd::", "")
    loss = tape.apply("sum", tape.apply("mul", out, tape.constant(upstream)))
    tape2, adjoints = trace_backward(tape.graph(loss), tape.values, tape.dtype)
    mine = [o for o in operands if isinstance(o, Traced)]
    weights = [RNG.uniform(-1, 1, leaf.shape) for leaf in mine]
    traced_firsts = [(f, w) for f, w in zip(firsts, weights) if f is not None and f.requires_grad]
    seconds_t = (
        torch.autograd.grad(sum((f * _t(w)).sum() for f, w in traced_firsts), leaves, allow_unused=True)
        if traced_firsts
        else [None] * len(leaves)
    )
    total = None
    for leaf, first, weight in zip(mine, firsts, weights):
        ours = adjoints[leaf.index]
        assert close(np.asarray(ours.value if isinstance(ours, Traced) else ours), first.detach().numpy(force=True))
        if isinstance(ours, Traced) and ours.requires_grad:
            term = tape2.apply("sum", tape2.apply("mul", ours, tape2.constant(weight)))
            total = term if total is None else tape2.apply("add", total, term)
    if total is None:
        assert all(s is None or not s.any() for s in seconds_t)
        return
    numeric = backward(tape2.graph(total), tape2.values, np.ones(()), tape2.dtype)
    for leaf, second in zip(mine, seconds_t):
        got = numeric[leaf.index]
        want = np.zeros(leaf.shape) if second is None else second.numpy(force=True)  # force: ZeroTensor
        assert close(np.zeros(leaf.shape) if got is None else got, want), leaf


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjps_batch_over_jacobian_rows(name: str) -> None:
    tape, operands, out = _record(name)
    graph = tape.graph(out)
    size = math.prod(out.shape)
    seeds = np.eye(size).reshape((size,) + tuple(out.shape))
    rows = backward_rows(graph, tape.values, seeds, tape.dtype)
    for k in range(size):
        one = backward(graph, tape.values, seeds[k], tape.dtype)
        for operand in operands:
            if isinstance(operand, Traced):
                got = np.broadcast_to(rows[operand.index], (size,) + operand.shape)[k]
                np.testing.assert_allclose(got, one[operand.index], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_batches_over_points(name: str) -> None:
    """The kernel on two points stacked (its differentiable operands vary, indices and masks
    do not) equals the kernel on each point: the batching rule its record declares (Op.batching)."""
    case = CASES[name]
    points = [
        [np.asarray(v, dtype=float) for v in case.operands],
        [np.asarray(v, dtype=float) * (1.3 if i in case.differentiable else 1) for i, v in enumerate(case.operands)],
    ]
    stacked = [
        Batched(np.stack([p[i] for p in points])) if i in case.differentiable else points[0][i]
        for i in range(len(case.operands))
    ]
    together = apply(name, *stacked, **case.attrs)
    for k, point in enumerate(points):
        np.testing.assert_array_equal(together.value[k], REGISTRY[name].forward(*point, **case.attrs))
