"""Indexing, shape, joining and reducing ops under create_graph and batching, inside programs
where their gradients carry a graph (a cube after the op), against torch.

tests/test_double_backward.py tries each op on its first case, summed: for a linear op the
first gradient is then a constant and the chain is None on both sides. Here each op's
backward kernel shows: select's gradient is SelectBackwardBackward0, cat's a SliceBackward0,
max(dim)'s a ScatterBackward0, ... as torch.autograd.grad(create_graph=True) records them.
The same programs run batched (Jacobian rows in one sweep; many points stacked) and must
give what one pass per row or per point gives, without falling back.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import close, run_torch, torch
from test_double_backward import _next_order, _numpy, _our_chain, _torch_chain

from gradcli import hessian
from gradcli.api import _prepare
from gradcli.autograd import backward, forward
from gradcli.batched import Batched, backward_rows, forward_points
from gradcli.higher import CANNOT_BATCH, CANNOT_TRACE
from gradcli.traced import Traced, trace_backward

RNG = np.random.default_rng(20261123)
X = RNG.uniform(-2, 2, (3, 4))
Y = RNG.uniform(-2, 2, (3, 4))
X3 = RNG.uniform(-2, 2, (2, 3, 4))
W = RNG.uniform(0.5, 2, (3, 4))  # positive: prod, norm with p < 1
ZERO = np.where(np.arange(12).reshape(3, 4) == 5, 0.0, W)  # one zero: prod's exclusive products
TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, -1.0, 0.5], [2.0, -4.0, 2.0, -4.0]])
IDX = [2, 0, 2]  # integers, as a program's index tensor must hold

# (inner program, leaves, consts): the double-backward test differentiates sum(inner)
PROGRAMS = [
    ("x.select(0, 1) ** 3", {"x": X}, {}),
    ("x[:, -1] ** 3", {"x": X}, {}),
    ("x[1:3] ** 3", {"x": X}, {}),
    ("x[:, ::2] ** 3", {"x": X}, {}),
    ("x[[2, 0, 2]] ** 3", {"x": X}, {}),
    ("x[:, [1, 1, 3]] ** 3", {"x": X}, {}),
    ("x[i] ** 3", {"x": X}, {"i": IDX}),
    ("x[i, 1:] ** 3", {"x": X}, {"i": IDX}),
    # separated advanced indices: NumPy and torch put their dims first, the batch axis must follow
    ("x[[0, 1], :, [2, 0]] ** 3", {"x": X3}, {}),
    ("x[:, [0, 2], [1, 1]] ** 3", {"x": X3}, {}),
    ("x[1, :, i] ** 3", {"x": X3}, {"i": [3, 0]}),
    ("x.transpose(0, 1) ** 3", {"x": X}, {}),
    ("x.mT ** 3", {"x": X}, {}),
    ("x.T ** 3", {"x": X}, {}),
    ("x.unsqueeze(0).squeeze() ** 3", {"x": X}, {}),
    ("x.unsqueeze(1) ** 3", {"x": X}, {}),
    ("x.T.reshape(12) ** 3", {"x": X}, {}),
    ("x.T.flatten() ** 3", {"x": X}, {}),
    ("x.repeat(2, 1) ** 3", {"x": X}, {}),
    ("x.repeat(2, 2, 3) ** 3", {"x": X}, {}),
    ("torch.cat([x, y, x], 1) ** 3", {"x": X, "y": Y}, {}),
    ("torch.stack([x, y], -1) ** 3", {"x": X, "y": Y}, {}),
    ("amax(x, 1) ** 3", {"x": TIES}, {}),
    ("amax(x.T, 1) ** 3", {"x": TIES}, {}),
    ("amin(x) ** 3", {"x": TIES}, {}),
    ("amax(x, 0, keepdim=True) * x", {"x": TIES}, {}),
    ("max(x) ** 3", {"x": TIES}, {}),
    ("min(x) * x", {"x": X}, {}),
    ("x.max(1).values ** 3", {"x": TIES}, {}),
    ("x.min(0, keepdim=True).values * x", {"x": X}, {}),
    ("logsumexp(x, 1) ** 2", {"x": X}, {}),
    ("logsumexp(x, 0, keepdim=True) * x", {"x": X}, {}),
    ("prod(x) * x", {"x": W}, {}),
    ("prod(x, 1) ** 2", {"x": X}, {}),
    ("x.prod() * x", {"x": ZERO}, {}),  # a zero: the exclusive-products path
    ("x.prod(1) ** 2", {"x": ZERO}, {}),
    ("norm(x) * x", {"x": X}, {}),
    ("norm(x, dim=1) ** 3", {"x": X}, {}),
    ("norm(x, p=1) * x", {"x": X}, {}),
    ("norm(x, p=3, dim=0) ** 2", {"x": X}, {}),
    ("norm(x, p=1.5) * x", {"x": X}, {}),
    ("norm(x, p=0.5, dim=1) * x[:, 0]", {"x": W}, {}),
    ("norm(x, p=inf, dim=1) ** 2", {"x": TIES}, {}),
    ("var(x) * x", {"x": X}, {}),
    ("var(x, 1) ** 2", {"x": X}, {}),
    ("std(x) * x", {"x": X}, {}),
    ("std(x, 0, keepdim=True, correction=0) * x", {"x": X}, {}),
    ("cumsum(x, 1) ** 3", {"x": X}, {}),
    ("sum(x, 1) ** 3", {"x": X}, {}),
    # Python numbers in x * 2 and x / 2 are tensors to torch (wrapped numbers): MulBackward0
    ("(x * 2) ** 3", {"x": X}, {}),
    ("(2 * x) ** 3", {"x": X}, {}),
    ("(x / 2) ** 3", {"x": X}, {}),
]
# programs whose third order does not trace (a ratchet, as the gap lists are): cumprod's
# backward at a zero (prod's exclusive products) is a scan, not registry ops
THIRD_ORDER_GAPS = {"x.prod() * x", "x.prod(1) ** 2"}
# programs whose --batch points run one by one (a ratchet): none now, prod's zero path included
NOT_BY_POINTS: set[str] = set()


def _ids(programs: list) -> list[str]:
    return [p[0] for p in programs]


@pytest.mark.parametrize(("inner", "at", "const"), PROGRAMS, ids=_ids(PROGRAMS))
def test_create_graph_chain_and_orders_2_and_3_equal_torch(inner: str, at: dict, const: dict) -> None:
    program = f"sum({inner})"
    prepared = _prepare(program, at, const, "float64")
    values = forward(prepared.graph, prepared.arrays, prepared.dtype)
    tape, adjoints = trace_backward(prepared.graph, values, prepared.dtype)
    run = run_torch(program, at, const)
    names = list(run.leaves)
    leaves = [run.leaves[n] for n in names]
    firsts = torch.autograd.grad(run.output, leaves, create_graph=True, allow_unused=True)
    for name, first in zip(names, firsts):
        leaf = next(n for n in prepared.graph.leaves if n.name == name)
        ours = adjoints[leaf.index]
        assert isinstance(ours, Traced) and ours.requires_grad, name
        assert close(ours.value, _numpy(first)), name
        assert _our_chain(tape, ours.index) == _torch_chain(first.grad_fn), name
        seconds = torch.autograd.grad(first.sum(), leaves, create_graph=True, allow_unused=True)
        found, _ = _next_order(tape, ours, prepared.graph.leaves)
        for other, second in zip(names, seconds):
            assert close(found[other], _numpy(second)), f"d2/d{name}d{other}"
        # order 3: the second gradient traced in turn (the kernels' own rules), summed, differentiated
        summed = tape.apply("sum", ours)
        if inner in THIRD_ORDER_GAPS:
            with pytest.raises(CANNOT_TRACE):
                trace_backward(tape.graph(summed), tape.values, prepared.dtype)
            continue
        tape2, seconds_traced = trace_backward(tape.graph(summed), tape.values, prepared.dtype)
        for other, second in zip(names, seconds):
            leaf2 = next(n for n in prepared.graph.leaves if n.name == other)
            traced = seconds_traced[leaf2.index]
            if second is None or not second.requires_grad or not isinstance(traced, Traced):
                continue
            thirds = torch.autograd.grad(second.sum(), leaves, retain_graph=True, allow_unused=True)
            found3, _ = _next_order(tape2, traced, prepared.graph.leaves)
            for third_name, third in zip(names, thirds):
                want, got = _numpy(third), found3[third_name]
                if want is None or got is None:
                    assert not np.any(want if got is None else got), f"d3/d{name}d{other}d{third_name}"
                else:
                    assert close(got, want), f"d3/d{name}d{other}d{third_name}"


@pytest.mark.parametrize(("inner", "at", "const"), PROGRAMS, ids=_ids(PROGRAMS))
def test_batched_rows_and_points_without_fallback(inner: str, at: dict, const: dict) -> None:
    prepared = _prepare(inner, at, const, "float64")
    graph, dtype = prepared.graph, prepared.dtype
    values = forward(graph, prepared.arrays, dtype)
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    seeds = np.eye(size, dtype=dtype).reshape((size,) + out_shape)
    rows = backward_rows(graph, values, seeds, dtype)
    for k in range(size):
        one = backward(graph, values, seeds[k], dtype)
        for leaf in graph.leaves:
            got = np.broadcast_to(rows[leaf.index], (size,) + leaf.shape)[k]
            np.testing.assert_allclose(got, one[leaf.index], rtol=1e-13, atol=1e-15)
    points = [prepared.arrays, {n: v * 1.3 - 0.2 if n in at else v for n, v in prepared.arrays.items()}]
    inputs = {n: Batched(np.stack([p[n] for p in points])) if n in at else v for n, v in points[0].items()}
    stacked = forward_points(graph, inputs, dtype)
    seed = np.ones((len(points),) + out_shape, dtype)
    if inner in NOT_BY_POINTS:
        with pytest.raises(CANNOT_BATCH):
            backward_rows(graph, stacked, seed, dtype)
        return
    adjoints = backward_rows(graph, stacked, seed, dtype)
    for i, point in enumerate(points):
        alone = forward(graph, point, dtype)
        np.testing.assert_allclose(stacked[graph.output].value[i], alone[graph.output], rtol=1e-13)
        grads = backward(graph, alone, np.ones(out_shape, dtype), dtype)
        for leaf in graph.leaves:
            np.testing.assert_allclose(adjoints[leaf.index][i], grads[leaf.index], rtol=1e-13, atol=1e-15)


# Ties, nans, zeros and empty parts: torch's conventions hold in the second derivative too
# (amax's ties share, max(x) with a nan, a zero norm, var with no degrees of freedom, ...).
EDGES = [
    ("sum(x.repeat(0, 1) * 2)", [[1.0, 2.0]]),
    ("sum(x[2:2] * 3)", [1.0, 2.0, 3.0]),
    ("sum(x.select(0, -1) ** 2)", [[1.0, 2.0], [3.0, 4.0]]),
    ("sum(torch.cat([x[:0], x], 0) ** 2)", [1.0, 2.0]),
    ("sum(amax(x, 0) ** 2)", [[1.0, 1.0], [1.0, 1.0]]),
    ("sum(x.max(0).values ** 2)", [[1.0, 1.0], [1.0, 1.0]]),
    ("sum(max(x) ** 2)", [float("nan"), 1.0]),
    ("sum(prod(x) ** 2)", [0.0, 0.0, 2.0]),
    ("sum(prod(x, 0) ** 2)", [[0.0, 1.0], [0.0, 2.0]]),
    ("sum(norm(x) ** 2)", [0.0, 0.0]),
    ("sum(std(x) ** 2)", [1.0, 1.0]),
    ("sum(var(x, correction=2) * x)", [1.0, 2.0]),
    ("sum(logsumexp(x, 0) ** 2)", [float("-inf"), float("-inf")]),
    ("sum(x[[0, 0, 0]] ** 2)", [1.0, 2.0]),
]


@pytest.mark.parametrize(("program", "x"), EDGES, ids=[e[0] for e in EDGES])
def test_hessians_at_ties_nans_and_zeros_equal_torchs(program: str, x: list) -> None:
    run = run_torch(program, {"x": x}, {})
    leaf = run.leaves["x"]
    (first,) = torch.autograd.grad(run.output, leaf, create_graph=True)
    rows = []
    for k in range(first.numel()):
        element = first.reshape(-1)[k]
        row = torch.autograd.grad(element, leaf, retain_graph=True)[0] if element.requires_grad else None
        rows.append(torch.zeros_like(leaf) if row is None else row)
    want = torch.stack(rows).reshape(leaf.shape + leaf.shape).detach().numpy()
    got = np.asarray(hessian(program, at={"x": x}, symbolic=False).hessian["x"]["x"])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
