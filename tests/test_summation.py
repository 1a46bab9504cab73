"""Sums add in PyTorch's order, so their last bits are PyTorch's.

torch 2.13 is the oracle: every comparison here is bit for bit (np.array_equal), not to a
tolerance, over float32 and float64, C-ordered and permuted layouts, every subset of dims,
keepdim or not. Sizes stay under PyTorch's 32,768-element parallel threshold, where its
CPU sum runs one serial order whatever the thread count.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from script_run import run_script as run

from gradcli.ops.summation import torch_mean, torch_sum

torch = pytest.importorskip("torch")

SCALES = st.sampled_from([1.0, 1e-3, 1e3, 0.1])


@st.composite
def reductions(draw):
    """A tensor (shape, dtype, memory order), the dims to sum and keepdim."""
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 5, 8, 9, 16, 17, 33, 70]), min_size=ndim, max_size=ndim)))
    if ndim == 1:
        shape = (draw(st.integers(1, 3000)),)
    assume(np.prod(shape) < 32768)  # PyTorch's serial path: below its parallel grain size
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2**31))
    values = np.random.default_rng(seed).standard_normal(shape) * draw(SCALES)
    order = draw(st.permutations(range(ndim)))  # the memory order: order[-1] varies fastest
    dims = draw(st.one_of(st.none(), st.sets(st.integers(0, ndim - 1), min_size=1).map(lambda s: tuple(sorted(s)))))
    keepdim = draw(st.booleans())
    return values.astype(dtype), tuple(order), dims, keepdim


def _laid_out(values: np.ndarray, order: tuple[int, ...]):
    """The same tensor in NumPy and torch, both stored with `order`'s last dim fastest."""
    stored = np.ascontiguousarray(np.transpose(values, order))
    back = tuple(np.argsort(order))
    return np.transpose(stored, back), torch.from_numpy(stored).permute(back)


def _torch_reduce(method, tensor, dims, keepdim):
    if dims is None and not keepdim:
        return getattr(tensor, method)().numpy()
    return getattr(tensor, method)(dim=dims if dims is not None else tuple(range(tensor.dim())), keepdim=keepdim).numpy()


@settings(max_examples=300, deadline=None)
@given(reductions())
def test_sum_and_mean_equal_torch_bit_for_bit(case):
    values, order, dims, keepdim = case
    array, tensor = _laid_out(values, order)
    expected = _torch_reduce("sum", tensor, dims, keepdim)
    got = torch_sum(array, dims, keepdim)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected), (got - expected)
    assert np.array_equal(torch_mean(array, dims, keepdim), _torch_reduce("mean", tensor, dims, keepdim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_subset_of_dims_of_a_4d_tensor(dtype):
    values = (np.random.default_rng(7).standard_normal((9, 3, 17, 8)) * 10).astype(dtype)
    tensor = torch.from_numpy(values)
    for count in range(1, 5):
        for dims in itertools.combinations(range(4), count):
            assert np.array_equal(torch_sum(values, dims), tensor.sum(dims).numpy()), dims


def test_numpys_pairwise_order_differs_where_torchs_order_shows_in_print():
    tenth = np.full(10, 0.1, np.float32)
    assert np.sum(tenth) == np.float32(1.0)  # NumPy's order: exactly 1
    assert torch_sum(tenth) == torch.full((10,), 0.1).sum().item() != 1.0
    column = np.full((1000, 2), 0.1, np.float32)
    assert np.array_equal(torch_sum(column, 0), torch.full((1000, 2), 0.1).sum(0).numpy())
    assert not np.array_equal(np.sum(column, 0), torch_sum(column, 0))


def test_signed_zeros_and_specials_follow_torch():
    for values in ([-0.0, -0.0], [-0.0], [np.inf, -np.inf, 1.0], [np.nan, 1.0], [1e38, 1e38, -1e38]):
        array = np.array(values, np.float32)
        expected = torch.tensor(values, dtype=torch.float32).sum().numpy()
        got = torch_sum(array)
        assert np.array_equal(got, expected, equal_nan=True) and np.signbit(got) == np.signbit(expected)


def test_broadcast_gradients_sum_in_torchs_order():
    """at::sum_to (the adjoint of broadcasting) is one keepdim sum: b.grad is torch's."""
    script = (
        "import torch\n"
        "b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)\n"
        "w = torch.tensor([[0.3], [0.7]], requires_grad=True)\n"
        "out = (torch.full((37, 2, 3), 0.1) * w + b).sum()\n"
        "out.backward(torch.tensor(0.3))\n"
        "print(out.item(), b.grad.tolist(), w.grad.tolist())\n"
    )
    b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
    w = torch.tensor([[0.3], [0.7]], requires_grad=True)
    out = (torch.full((37, 2, 3), 0.1) * w + b).sum()
    out.backward(torch.tensor(0.3))
    expected = f"{out.item()} {b.grad.tolist()} {w.grad.tolist()}\n"
    assert run(script).stdout == expected


F = torch.nn.functional
PRINTED = [
    ("torch.tensor([0.1] * 10).sum()", lambda: torch.tensor([0.1] * 10).sum()),
    ("torch.full((1000, 2), 0.1).sum(0)", lambda: torch.full((1000, 2), 0.1).sum(0)),
    ("(torch.arange(300.) / 7).mean()", lambda: (torch.arange(300.0) / 7).mean()),
    (
        "(torch.linspace(0, 1, 999) ** 2).sum(dim=0, keepdim=True)",
        lambda: (torch.linspace(0, 1, 999) ** 2).sum(dim=0, keepdim=True),
    ),
    (
        "F.mse_loss(torch.linspace(0, 1, 77), torch.full((77,), 0.3))",
        lambda: F.mse_loss(torch.linspace(0, 1, 77), torch.full((77,), 0.3)),
    ),
    (
        "torch.logsumexp(torch.linspace(-3, 3, 50).reshape(5, 10), 1)",
        lambda: torch.logsumexp(torch.linspace(-3, 3, 50).reshape(5, 10), 1),
    ),
]


@pytest.mark.parametrize("line, oracle", PRINTED, ids=[line for line, _ in PRINTED])
def test_printed_float32_reductions_match_torch(line, oracle):
    script = f"import torch\nimport torch.nn.functional as F\nr = {line}\nprint(r)\nprint(r.tolist())\n"
    value = oracle()
    assert run(script).stdout == f"{str(value)}\n{value.tolist()}\n"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ignored", [False, True])
def test_nll_loss_adds_in_its_own_eight_level_order(dtype, ignored):
    """nll_loss (and so cross_entropy) sums its rows in NLLLoss.cpp's order, not sum()'s."""
    from gradcli.ops.nn import _nll

    rng = np.random.default_rng(3)
    for rows in [1, 2, 15, 16, 17, 33, 256, 257, 300, 4097]:
        x = (rng.standard_normal((rows, 5)) * 3).astype(dtype)
        target = rng.integers(0, 5, rows)
        if ignored:
            target[rng.random(rows) < 0.3] = -100
        for reduction in ("mean", "sum"):
            expected = torch.nn.functional.nll_loss(
                torch.from_numpy(x), torch.from_numpy(target), reduction=reduction
            ).numpy()
            got = np.asarray(_nll(x, target.astype(np.float64), -100, reduction))
            assert got.dtype == expected.dtype
            assert np.array_equal(got, expected, equal_nan=True), (rows, reduction)


def test_a_printed_cross_entropy_loss_is_torchs_to_the_last_digit():
    logits = torch.linspace(-2, 3, 300 * 4).reshape(300, 4).sin()
    target = torch.tensor([0, 1, 2, 3] * 75)
    loss = torch.nn.functional.cross_entropy(logits, target)
    script = (
        "import torch\n"
        "import torch.nn.functional as F\n"
        "logits = torch.linspace(-2, 3, 300 * 4).reshape(300, 4).sin()\n"
        "print(F.cross_entropy(logits, torch.tensor([0, 1, 2, 3] * 75)).item())\n"
    )
    assert run(script).stdout == f"{loss.item()}\n"
