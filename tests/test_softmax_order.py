"""softmax and log_softmax add in the order torch's CPU kernels add.

torch 2.13 is the oracle. Where no exp is involved (softmax's backward kernel, given torch's
own output), the comparison is bit for bit: it checks the AVX2 lane order along the last dim
(float32 combines its lanes by halves, float64 in order), the slice-by-slice order along
other dims, and the fused multiply-adds torch's float32 kernels compile to. Where exp is
involved, NumPy's exp and torch's SLEEF exp differ in the last bit on some inputs, so the
forward kernels are held to a share of differing elements that a different summation order
(or a division in place of torch's reciprocal) would exceed many times over.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli import grad
from gradcli.ops import softmax_order

torch = pytest.importorskip("torch")

# sizes of the softmax dim around the lane counts (4 float64, 8 float32), the short-loop
# limit (8 chunks) and beyond it
DIM_SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 31, 33, 40, 64, 65, 100]


@st.composite
def tensors(draw):
    ndim = draw(st.integers(1, 3))
    shape = [draw(st.sampled_from([1, 2, 3, 6])) for _ in range(ndim)]
    axis = draw(st.integers(0, ndim - 1))
    shape[axis] = draw(st.sampled_from(DIM_SIZES))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    scale = draw(st.sampled_from([1.0, 5.0, 30.0]))
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    return x, g, axis


@settings(max_examples=300, deadline=None)
@given(tensors())
def test_softmax_backward_equals_torch_bit_for_bit(case):
    x, g, axis = case
    out = torch.softmax(torch.from_numpy(x), axis)
    theirs = torch._softmax_backward_data(torch.from_numpy(g), out, axis, out.dtype).numpy()
    ours = softmax_order.softmax_backward(g, out.numpy(), axis)
    if x.dtype == np.float64 and axis != x.ndim - 1:
        # float64 fused multiply-adds are not emulated (exp differs there anyway)
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)
    else:
        assert np.array_equal(ours, theirs)


def test_float32_lanes_combine_by_halves():
    """Eight float32 lanes a, b, ...: torch adds ((a+e)+(c+g)) + ((b+f)+(d+h)); in order would differ."""
    g = np.array([[1e8, -1e8, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]], np.float32)
    out = np.ones_like(g)
    theirs = torch._softmax_backward_data(torch.from_numpy(g), torch.from_numpy(out), 1, torch.float32)
    in_order = np.float32(0)
    for value in g[0]:
        in_order = np.float32(in_order + value)
    ours = softmax_order.softmax_backward(g, out, 1)
    assert np.array_equal(ours, theirs.numpy())
    assert not np.array_equal(ours, (g - in_order) * out)


def _differing_share(kernel, torch_kernel, dtype, last: bool) -> float:
    rng = np.random.default_rng(7)
    differing = total = 0
    for size in DIM_SIZES:
        shape = (40, size) if last else (size, 40)
        x = (rng.standard_normal(shape) * 5).astype(dtype)
        axis = 1 if last else 0
        differing += int(np.sum(kernel(x, axis) != torch_kernel(torch.from_numpy(x), axis).numpy()))
        total += x.size
    return differing / total


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("last", [True, False])
def test_forward_kernels_differ_from_torch_only_where_exp_does(dtype, last):
    # measured: at most 10% of softmax's elements (a row shares its sum, so one exp that
    # differs moves the whole row) and 1% of log_softmax's; summing in NumPy's order and
    # dividing gave 64% and 12%
    assert _differing_share(softmax_order.softmax, torch.softmax, dtype, last) < 0.15
    assert _differing_share(softmax_order.log_softmax, torch.log_softmax, dtype, last) < 0.02


def test_cross_entropy_grad_matches_torch_on_many_rows():
    """The blocked, threaded path (over 65,536 elements) gives torch's numbers."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((20000, 10))
    y = rng.integers(0, 10, 20000)
    ours = grad("F.cross_entropy(x, y)", at={"x": x}, const={"y": y}, symbolic=False, nodes=False)
    tx = torch.from_numpy(x).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(tx, torch.from_numpy(y))
    loss.backward()
    assert abs(float(ours.value) - loss.item()) < 1e-12
    np.testing.assert_allclose(ours.grads["x"], tx.grad.numpy(), rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_an_empty_softmax_dim_gives_empty_results(op):
    """torch returns an empty (2, 0) tensor and an empty grad; gradcli once raised an internal error."""
    result = grad(f"{op}(x, 1).sum()", at={"x": np.zeros((2, 0))}, symbolic=False)
    tx = torch.zeros(2, 0, dtype=torch.float64, requires_grad=True)
    getattr(torch, op)(tx, 1).sum().backward()
    assert float(result.value) == 0.0
    assert result.grads["x"].shape == tuple(tx.grad.shape) == (2, 0)
