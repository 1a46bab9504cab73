"""F.conv1d/conv2d and the max/avg pools against live torch: values, every operand's gradient,
the grad_fn chain torch records (walked through `next_functions`) and torch's error texts.

float64 convolutions agree to ~1e-12 relative: torch's CPU kernel (im2col + BLAS) and gradcli's
(one matmul per kernel offset) add the same products in different orders. float32 ones agree
to a few ulp of the result's largest element: torch's oneDNN kernel sums in float32 in its own
order, gradcli sums in float64 and rounds once, so neither is bit-exact against the other.
The pools follow ATen's CPU loops step by step and agree to the bit in both dtypes.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import close
from test_nn import chain

torch = pytest.importorskip("torch")
F = torch.nn.functional

from gradcli import GradcliError, grad, hessian  # noqa: E402

RNG = np.random.default_rng(2113)


def u(*shape):
    return RNG.uniform(-2, 2, shape).round(4)


X4 = u(2, 4, 6, 7)  # N, C, H, W
X3 = u(4, 6, 7)  # unbatched
W2 = u(6, 2, 3, 2)  # groups=2: 6 out channels, 2 in channels per group
W1x1 = u(3, 4, 1, 1)
WD = u(4, 1, 3, 3)  # depthwise over 4 channels
B6 = u(6)
B4 = u(4)
S3 = u(2, 3, 9)  # conv1d / pool1d: N, C, L
S2 = u(3, 9)
K1 = u(4, 3, 3)
TIES = np.array(
    [[[[1.0, 1.0, 0.5, 2.0], [1.0, 0.0, 2.0, 2.0], [np.nan, 3.0, 3.0, np.nan], [0.0, np.nan, -1.0, -1.0]]]]
)
NEG_INF = np.full((1, 1, 3, 3), -np.inf)

# (gradcli program, torch function, leaves)
CONV = [
    ("F.conv2d(x, w, b, groups=2)", lambda x, w, b: F.conv2d(x, w, b, groups=2), {"x": X4, "w": W2, "b": B6}),
    ("F.conv2d(x, w, groups=2)", lambda x, w: F.conv2d(x, w, groups=2), {"x": X4, "w": W2}),
    ("F.conv2d(x, w, None, 2, 1, 1, 2)", lambda x, w: F.conv2d(x, w, None, 2, 1, 1, 2), {"x": X4, "w": W2}),
    (
        "F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)",
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2),
        {"x": X4, "w": W2, "b": B6},
    ),
    (
        "F.conv2d(x, w, b, padding='same', groups=2)",
        lambda x, w, b: F.conv2d(x, w, b, padding="same", groups=2),
        {"x": X4, "w": W2, "b": B6},
    ),
    (
        "F.conv2d(x, w, padding='same', dilation=2, groups=2)",
        lambda x, w: F.conv2d(x, w, padding="same", dilation=2, groups=2),
        {"x": X4, "w": W2},
    ),
    (
        "F.conv2d(x, w, padding='valid', groups=2)",
        lambda x, w: F.conv2d(x, w, padding="valid", groups=2),
        {"x": X4, "w": W2},
    ),
    ("F.conv2d(x, w, b, groups=2)", lambda x, w, b: F.conv2d(x, w, b, groups=2), {"x": X3, "w": W2, "b": B6}),
    (
        "F.conv2d(x, w, padding='same', groups=2)",
        lambda x, w: F.conv2d(x, w, padding="same", groups=2),
        {"x": X3, "w": W2},
    ),
    (
        "torch.conv2d(x, w, bias=b, padding=1, groups=4)",
        lambda x, w, b: torch.conv2d(x, w, bias=b, padding=1, groups=4),
        {"x": X4, "w": WD, "b": B4},
    ),
    (
        "torch.nn.functional.conv2d(x, w, stride=3)",
        lambda x, w: F.conv2d(x, w, stride=3),
        {"x": X4, "w": W1x1},
    ),
    (
        "F.conv2d(x, w, b, 1, 1, 1, 2).relu().sum()",
        lambda x, w, b: F.conv2d(x, w, b, 1, 1, 1, 2).relu().sum(),
        {"x": X4, "w": W2, "b": B6},
    ),
    ("F.conv1d(x, w)", lambda x, w: F.conv1d(x, w), {"x": S3, "w": K1[:, :3]}),
    (
        "F.conv1d(x, w, b, stride=2, padding=2, dilation=2)",
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, dilation=2),
        {"x": S3, "w": K1[:, :3], "b": B4},
    ),
    (
        "F.conv1d(x, w, padding='same')",
        lambda x, w: F.conv1d(x, w, padding="same"),
        {"x": S3, "w": u(2, 3, 4)},
    ),
    ("torch.conv1d(x, w, b)", lambda x, w, b: torch.conv1d(x, w, b), {"x": S2, "w": K1[:, :3], "b": B4}),
    ("F.conv1d(x, w, groups=3)", lambda x, w: F.conv1d(x, w, groups=3), {"x": S3, "w": u(6, 1, 2)}),
]
POOL = [
    ("F.max_pool2d(x, 2)", lambda x: F.max_pool2d(x, 2), {"x": X4}),
    (
        "F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)",
        lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
        {"x": X4},
    ),
    ("F.max_pool2d(x, (2, 3), dilation=2)", lambda x: F.max_pool2d(x, (2, 3), dilation=2), {"x": X3}),
    ("F.max_pool2d(x, 3, 1, 1)", lambda x: F.max_pool2d(x, 3, 1, 1), {"x": X4}),
    ("torch.max_pool2d(x, 2, ceil_mode=True)", lambda x: torch.max_pool2d(x, 2, ceil_mode=True), {"x": X4}),
    (
        "F.max_pool2d(x, 2, 1)",
        lambda x: F.max_pool2d(x, 2, 1),
        {"x": TIES},
    ),  # first max wins, and the last NaN
    ("F.max_pool2d(x, 2, 1, 1)", lambda x: F.max_pool2d(x, 2, 1, 1), {"x": NEG_INF}),
    ("F.avg_pool2d(x, 2)", lambda x: F.avg_pool2d(x, 2), {"x": X4}),
    ("F.avg_pool2d(x, 3, stride=2, padding=1)", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), {"x": X4}),
    (
        "F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        {"x": X4},
    ),
    (
        "F.avg_pool2d(x, (3, 2), 1, (1, 0), divisor_override=5)",
        lambda x: F.avg_pool2d(x, (3, 2), 1, (1, 0), divisor_override=5),
        {"x": X3},
    ),
    ("F.avg_pool2d(x, 2, 3, 1, True)", lambda x: F.avg_pool2d(x, 2, 3, 1, True), {"x": X4}),
    ("F.avg_pool2d(x, 2, 1)", lambda x: F.avg_pool2d(x, 2, 1), {"x": TIES}),
    ("F.max_pool1d(x, 2)", lambda x: F.max_pool1d(x, 2), {"x": S3}),
    (
        "F.max_pool1d(x, 3, stride=2, padding=1, dilation=1, ceil_mode=True)",
        lambda x: F.max_pool1d(x, 3, stride=2, padding=1, ceil_mode=True),
        {"x": S2},
    ),
    ("torch.max_pool1d(x, 2, 1, 0, 2)", lambda x: torch.max_pool1d(x, 2, 1, 0, 2), {"x": S3}),
    ("F.avg_pool1d(x, 3)", lambda x: F.avg_pool1d(x, 3), {"x": S3}),
    (
        "F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)",
        lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
        {"x": S2},
    ),
    ("torch.avg_pool1d(x, 2, ceil_mode=True)", lambda x: torch.avg_pool1d(x, 2, ceil_mode=True), {"x": S3}),
    (
        "F.max_pool2d(F.conv2d(x, w, b, padding=1, groups=2).relu(), 2).sum()",
        lambda x, w, b: F.max_pool2d(F.conv2d(x, w, b, padding=1, groups=2).relu(), 2).sum(),
        {"x": X4, "w": W2, "b": B6},
    ),
]
PROGRAMS = CONV + POOL


def _ids(programs):
    return [f"{p[0]}-{'x'.join(map(str, p[2]['x'].shape))}" for p in programs]


def in_torch(function, at: dict, dtype):
    """function in torch on leaves of `dtype`, its backward with a fixed upstream gradient."""
    leaves = {n: torch.tensor(v, dtype=dtype, requires_grad=True) for n, v in at.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # padding='same' with an even kernel warns once
        out = function(**leaves)
    upstream = (
        np.random.default_rng(7).uniform(-1, 1, tuple(out.shape)).round(3) if out.ndim else np.array(1.0)
    )
    out.backward(torch.tensor(upstream, dtype=dtype))
    return out, {n: t.grad.numpy() for n, t in leaves.items()}, upstream


def ours(program, at, upstream, dtype="float64"):
    gradient = None if upstream.ndim == 0 else upstream.tolist()
    return grad(program, at={n: v.tolist() for n, v in at.items()}, gradient=gradient, dtype=dtype)


@pytest.mark.parametrize(("program", "function", "at"), PROGRAMS, ids=_ids(PROGRAMS))
def test_float64_values_grads_and_grad_fn_chain_equal_torch(program, function, at):
    out, grads, upstream = in_torch(function, at, torch.float64)
    result = ours(program, at, upstream)
    exact = (program, function, at) in POOL and "conv" not in program
    rtol, atol = (0.0, 0.0) if exact else (1e-12, 1e-13)
    assert close(result.value, out.detach().numpy(), rtol=rtol, atol=atol, normwise=True)
    for name, want in grads.items():
        assert close(result.grads[name], want, rtol=rtol, atol=atol, normwise=True), name
    recorded = [n.grad_fn for n in result.nodes if n.grad_fn]
    assert recorded == chain(out), f"grad_fn chain\nours:  {recorded}\ntorch: {chain(out)}"


@pytest.mark.parametrize(("program", "function", "at"), PROGRAMS, ids=_ids(PROGRAMS))
def test_float32_values_and_grads_equal_torch(program, function, at):
    out, grads, upstream = in_torch(function, at, torch.float32)
    result = ours(program, at, upstream, "float32")
    assert result.value.dtype == np.float32
    exact = (program, function, at) in POOL and "conv" not in program
    # 8 ulp of the largest element: torch's float32 oneDNN sums against gradcli's float64 ones
    rtol = 0.0 if exact else 8 * np.finfo(np.float32).eps
    assert close(result.value, out.detach().numpy(), rtol=rtol, atol=0.0, normwise=True)
    for name, want in grads.items():
        assert result.grads[name].dtype == np.float32
        assert close(result.grads[name], want, rtol=rtol, atol=0.0, normwise=True), name


def _torch_error(function) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((RuntimeError, ValueError, IndexError)) as raised:
            function()
    return str(raised.value)


def T(*shape):  # noqa: N802 - a torch leaf, as a test writes it inline
    return torch.ones(shape, dtype=torch.float64, requires_grad=True)


# (gradcli program, leaves' shapes, the same call in torch)
ERRORS = [
    (
        "F.conv2d(x, w)",
        {"x": (1, 1, 2, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 2, 3, 3), T(1, 1, 2, 2)),
    ),
    ("F.conv2d(x, w)", {"x": (3, 3), "w": (1, 1, 2, 2)}, lambda: F.conv2d(T(3, 3), T(1, 1, 2, 2))),
    ("F.conv2d(x, w)", {"x": (1, 1, 3, 3), "w": (1, 1, 2)}, lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2))),
    ("F.conv2d(x, w)", {"x": (1, 1, 3, 3), "w": (2,)}, lambda: F.conv2d(T(1, 1, 3, 3), T(2))),
    (
        "F.conv2d(x, w)",
        {"x": (1, 3, 5, 5), "w": (2, 2, 3, 3)},
        lambda: F.conv2d(T(1, 3, 5, 5), T(2, 2, 3, 3)),
    ),
    ("F.conv2d(x, w)", {"x": (3, 5, 5), "w": (2, 2, 3, 3)}, lambda: F.conv2d(T(3, 5, 5), T(2, 2, 3, 3))),
    (
        "F.conv2d(x, w, groups=2)",
        {"x": (1, 4, 5, 5), "w": (3, 2, 3, 3)},
        lambda: F.conv2d(T(1, 4, 5, 5), T(3, 2, 3, 3), groups=2),
    ),
    (
        "F.conv2d(x, w, groups=4)",
        {"x": (1, 4, 5, 5), "w": (3, 4, 3, 3)},
        lambda: F.conv2d(T(1, 4, 5, 5), T(3, 4, 3, 3), groups=4),
    ),
    (
        "F.conv2d(x, w, groups=0)",
        {"x": (1, 4, 5, 5), "w": (3, 2, 3, 3)},
        lambda: F.conv2d(T(1, 4, 5, 5), T(3, 2, 3, 3), groups=0),
    ),
    (
        "F.conv2d(x, w)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 4, 4)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 4, 4)),
    ),
    (
        "F.conv2d(x, w, padding=1)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 6, 6)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 6, 6), padding=1),
    ),
    (
        "F.conv2d(x, w, dilation=3)",
        {"x": (1, 1, 5, 5), "w": (1, 1, 3, 3)},
        lambda: F.conv2d(T(1, 1, 5, 5), T(1, 1, 3, 3), dilation=3),
    ),
    (
        "F.conv2d(x, w, padding=-1)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), padding=-1),
    ),
    (
        "F.conv2d(x, w, padding='same', stride=2)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), padding="same", stride=2),
    ),
    (
        "F.conv2d(x, w, padding='full')",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), padding="full"),
    ),
    (
        "F.conv2d(x, w, stride=0)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), stride=0),
    ),
    (
        "F.conv2d(x, w, stride=(1, 1, 1))",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), stride=(1, 1, 1)),
    ),
    (
        "F.conv2d(x, w, padding=(1, 1, 1))",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), padding=(1, 1, 1)),
    ),
    (
        "F.conv2d(x, w, dilation=0)",
        {"x": (1, 1, 3, 3), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(1, 1, 2, 2), dilation=0),
    ),
    (
        "F.conv2d(x, w, dilation=-1)",
        {"x": (1, 1, 5, 5), "w": (1, 1, 2, 2)},
        lambda: F.conv2d(T(1, 1, 5, 5), T(1, 1, 2, 2), dilation=-1),
    ),
    (
        "F.conv2d(x, w, b)",
        {"x": (1, 1, 3, 3), "w": (2, 1, 2, 2), "b": (3,)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(2, 1, 2, 2), T(3)),
    ),
    (
        "F.conv2d(x, w, b)",
        {"x": (1, 1, 3, 3), "w": (2, 1, 2, 2), "b": (2, 1)},
        lambda: F.conv2d(T(1, 1, 3, 3), T(2, 1, 2, 2), T(2, 1)),
    ),
    ("F.conv1d(x, w)", {"x": (1, 1, 2, 3), "w": (1, 1, 2)}, lambda: F.conv1d(T(1, 1, 2, 3), T(1, 1, 2))),
    ("F.conv1d(x, w)", {"x": (1, 3, 5), "w": (2, 2, 3)}, lambda: F.conv1d(T(1, 3, 5), T(2, 2, 3))),
    ("F.conv1d(x, w)", {"x": (1, 1, 3), "w": (1, 1, 5)}, lambda: F.conv1d(T(1, 1, 3), T(1, 1, 5))),
    ("F.conv1d(x, w)", {"x": (1, 1, 5), "w": (1, 1, 2, 2)}, lambda: F.conv1d(T(1, 1, 5), T(1, 1, 2, 2))),
    (
        "F.conv1d(x, w, padding='same', stride=2)",
        {"x": (1, 1, 3), "w": (1, 1, 2)},
        lambda: F.conv1d(T(1, 1, 3), T(1, 1, 2), padding="same", stride=2),
    ),
    ("F.max_pool2d(x, 2)", {"x": (3, 3)}, lambda: F.max_pool2d(T(3, 3), 2)),
    ("F.max_pool2d(x, 2)", {"x": (1, 1, 1, 3, 3)}, lambda: F.max_pool2d(T(1, 1, 1, 3, 3), 2)),
    ("F.max_pool2d(x, 2, padding=2)", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), 2, padding=2)),
    (
        "F.max_pool2d(x, 2, padding=-1)",
        {"x": (1, 1, 5, 5)},
        lambda: F.max_pool2d(T(1, 1, 5, 5), 2, padding=-1),
    ),
    ("F.max_pool2d(x, 0)", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), 0)),
    ("F.max_pool2d(x, 0, 1)", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), 0, 1)),
    ("F.max_pool2d(x, 2, stride=-1)", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), 2, stride=-1)),
    (
        "F.max_pool2d(x, 2, dilation=0)",
        {"x": (1, 1, 5, 5)},
        lambda: F.max_pool2d(T(1, 1, 5, 5), 2, dilation=0),
    ),
    ("F.max_pool2d(x, 3)", {"x": (1, 1, 2, 2)}, lambda: F.max_pool2d(T(1, 1, 2, 2), 3)),
    ("F.max_pool2d(x, (2, 2, 2))", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), (2, 2, 2))),
    ("F.max_pool2d(x, 2, (2, 2, 2))", {"x": (1, 1, 5, 5)}, lambda: F.max_pool2d(T(1, 1, 5, 5), 2, (2, 2, 2))),
    (
        "F.max_pool2d(x, 2, dilation=(1, 1, 1))",
        {"x": (1, 1, 5, 5)},
        lambda: F.max_pool2d(T(1, 1, 5, 5), 2, dilation=(1, 1, 1)),
    ),
    ("F.max_pool2d(x, 2)", {"x": (1, 0, 5, 5)}, lambda: F.max_pool2d(T(1, 0, 5, 5), 2)),
    ("F.avg_pool2d(x, 2)", {"x": (3, 3)}, lambda: F.avg_pool2d(T(3, 3), 2)),
    ("F.avg_pool2d(x, 2)", {"x": (1, 1, 1, 5, 5)}, lambda: F.avg_pool2d(T(1, 1, 1, 5, 5), 2)),
    ("F.avg_pool2d(x, 2, padding=2)", {"x": (1, 1, 5, 5)}, lambda: F.avg_pool2d(T(1, 1, 5, 5), 2, padding=2)),
    ("F.avg_pool2d(x, 3)", {"x": (1, 1, 2, 2)}, lambda: F.avg_pool2d(T(1, 1, 2, 2), 3)),
    (
        "F.avg_pool2d(x, 2, divisor_override=0)",
        {"x": (1, 1, 5, 5)},
        lambda: F.avg_pool2d(T(1, 1, 5, 5), 2, divisor_override=0),
    ),
    ("F.avg_pool2d(x, 0, 1)", {"x": (1, 1, 5, 5)}, lambda: F.avg_pool2d(T(1, 1, 5, 5), 0, 1)),
    (
        "F.avg_pool2d(x, 2, padding=(1, 1, 1))",
        {"x": (1, 1, 5, 5)},
        lambda: F.avg_pool2d(T(1, 1, 5, 5), 2, padding=(1, 1, 1)),
    ),
    ("F.max_pool1d(x, 2)", {"x": (3,)}, lambda: F.max_pool1d(T(3), 2)),
    ("F.max_pool1d(x, 2)", {"x": (1, 0, 3)}, lambda: F.max_pool1d(T(1, 0, 3), 2)),
    ("F.max_pool1d(x, 2, padding=2)", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 2, padding=2)),
    ("F.max_pool1d(x, 2, padding=-1)", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 2, padding=-1)),
    ("F.max_pool1d(x, 3)", {"x": (1, 1, 2)}, lambda: F.max_pool1d(T(1, 1, 2), 3)),
    ("F.max_pool1d(x, 0)", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 0)),
    ("F.max_pool1d(x, 2, 0)", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 2, 0)),
    ("F.max_pool1d(x, 2, dilation=0)", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 2, dilation=0)),
    ("F.max_pool1d(x, (2, 2))", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), (2, 2))),
    ("F.max_pool1d(x, 2, (1, 1))", {"x": (1, 1, 5)}, lambda: F.max_pool1d(T(1, 1, 5), 2, (1, 1))),
    ("F.avg_pool1d(x, 2)", {"x": (3,)}, lambda: F.avg_pool1d(T(3), 2)),
    ("F.avg_pool1d(x, 2)", {"x": (1, 1, 3, 3)}, lambda: F.avg_pool1d(T(1, 1, 3, 3), 2)),
    ("F.avg_pool1d(x, (2, 2))", {"x": (1, 1, 5)}, lambda: F.avg_pool1d(T(1, 1, 5), (2, 2))),
    ("F.avg_pool1d(x, 2, padding=2)", {"x": (1, 1, 5)}, lambda: F.avg_pool1d(T(1, 1, 5), 2, padding=2)),
    ("F.avg_pool1d(x, 3)", {"x": (1, 1, 2)}, lambda: F.avg_pool1d(T(1, 1, 2), 3)),
    ("F.avg_pool1d(x, 0)", {"x": (1, 1, 5)}, lambda: F.avg_pool1d(T(1, 1, 5), 0)),
]


@pytest.mark.parametrize(("program", "shapes", "function"), ERRORS, ids=[f"{e[0]}-{e[1]}" for e in ERRORS])
def test_errors_are_torchs(program, shapes, function):
    expected = _torch_error(function)
    with pytest.raises(GradcliError) as raised:
        grad(program, at={n: np.ones(s) for n, s in shapes.items()})
    assert raised.value.exit_code == 1
    assert raised.value.message.split(": ", 1)[-1] == expected


def test_return_indices_is_refused_clearly():
    with pytest.raises(GradcliError, match=r"return_indices=True\) is not supported"):
        grad("F.max_pool2d(x, 2, return_indices=True).sum()", at={"x": np.ones((1, 1, 4, 4)).tolist()})


def test_a_huge_convolution_is_refused_before_any_work():
    # 4.4e10 multiply-adds from a 1 MB input: refused from the shapes, at once
    with pytest.raises(GradcliError, match="MAX_OP_MULTIPLY_ADDS"):
        grad("F.conv2d(x, w).sum()", at={"x": np.zeros((1, 1, 1000, 1000)), "w": np.zeros((1, 1, 300, 300))})


def test_a_huge_pool_kernel_is_refused_before_any_work():
    with pytest.raises(GradcliError, match="MAX_OP_MULTIPLY_ADDS"):
        grad("F.avg_pool2d(x, 1000, 1).sum()", at={"x": np.zeros((1, 1, 2000, 2000))})


@pytest.mark.parametrize("program", ["F.conv2d(x, w).pow(3).sum()", "F.max_pool2d(x, 2).pow(3).sum()"])
def test_second_derivatives_are_refused_clearly(program):
    at = {"x": u(1, 1, 4, 4).tolist(), "w": u(1, 1, 2, 2).tolist()}
    if "conv" not in program:
        del at["w"]
    with pytest.raises(GradcliError, match="gradient graph gradcli cannot build yet"):
        hessian(program, at=at)


def test_the_cli_prints_json_of_a_small_cnn(run):
    x = json.dumps(u(1, 2, 4, 4).tolist())
    w = json.dumps(u(3, 2, 3, 3).tolist())
    result = run(
        "grad",
        "F.max_pool2d(F.conv2d(x, w, padding=1).relu(), 2).sum()",
        "--at",
        f"x={x}",
        "--at",
        f"w={w}",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [n["grad_fn"] for n in data["nodes"] if n["grad_fn"]] == [
        "ConvolutionBackward0",
        "ReluBackward0",
        "MaxPool2DWithIndicesBackward0",
        "SumBackward0",
    ]
    assert data["leaves"]["w"]["shape"] == [3, 2, 3, 3]
    table = run("grad", "F.avg_pool2d(x, 2).sum()", "--at", f"x={x}")
    assert table.exit_code == 0 and "AvgPool2DBackward0" in table.stdout


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 2),
    groups=st.sampled_from([1, 2]),
    c_per=st.integers(1, 2),
    o_per=st.integers(1, 2),
    size=st.tuples(st.integers(3, 7), st.integers(3, 7)),
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_convolutions_equal_torch(
    n, groups, c_per, o_per, size, kernel, stride, padding, dilation, bias, seed
):
    rng = np.random.default_rng(seed)
    at = {
        "x": rng.uniform(-2, 2, (n, groups * c_per, *size)),
        "w": rng.uniform(-1, 1, (groups * o_per, c_per, *kernel)),
    }
    if bias:
        at["b"] = rng.uniform(-1, 1, (groups * o_per,))
    args = f"stride={stride}, padding={padding}, dilation={dilation}, groups={groups}"
    program = f"F.conv2d(x, w, {'b' if bias else 'None'}, {args})"

    def function(x, w, b=None):
        return F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)

    try:
        out, grads, upstream = in_torch(function, at, torch.float64)
    except RuntimeError as exc:  # a kernel bigger than the padded input: the same words
        with pytest.raises(GradcliError) as raised:
            grad(program, at={k: v.tolist() for k, v in at.items()})
        assert raised.value.message.split(": ", 1)[-1] == str(exc)
        return
    result = ours(program, at, upstream)
    assert close(result.value, out.detach().numpy(), rtol=1e-12, atol=1e-13, normwise=True)
    for name, want in grads.items():
        assert close(result.grads[name], want, rtol=1e-12, atol=1e-13, normwise=True), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.tuples(st.integers(2, 7), st.integers(2, 7)),
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 1), st.integers(0, 1)),
    dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    ceil_mode=st.booleans(),
    count_include_pad=st.booleans(),
    kind=st.sampled_from(["max", "avg"]),
    seed=st.integers(0, 2**16),
)
def test_random_pools_equal_torch_to_the_bit(
    size, kernel, stride, padding, dilation, ceil_mode, count_include_pad, kind, seed
):
    rng = np.random.default_rng(seed)
    at = {"x": rng.integers(-3, 3, (2, 2, *size)).astype(float)}  # small integers: many ties
    if kind == "max":
        program = f"F.max_pool2d(x, {kernel}, {stride}, {padding}, {dilation}, {ceil_mode})"

        def function(x):
            return F.max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)
    else:
        program = f"F.avg_pool2d(x, {kernel}, {stride}, {padding}, {ceil_mode}, {count_include_pad})"

        def function(x):
            return F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad)

    for dtype, name in ((torch.float64, "float64"), (torch.float32, "float32")):
        try:
            out, grads, upstream = in_torch(function, at, dtype)
        except RuntimeError as exc:
            with pytest.raises(GradcliError) as raised:
                grad(program, at={"x": at["x"].tolist()})
            assert raised.value.message.split(": ", 1)[-1] == str(exc)
            return
        result = ours(program, at, upstream, name)
        assert close(result.value, out.detach().numpy(), rtol=0.0, atol=0.0)
        assert close(result.grads["x"], grads["x"], rtol=0.0, atol=0.0)
