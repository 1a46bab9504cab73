"""topk among ties picks torch's indices: libstdc++'s nth_element / sort / partial_sort steps
(gradcli/ops/stl_order.py), checked against torch on rows full of ties and nans."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from gradcli import grad  # noqa: E402
from gradcli.ops.stl_order import topk_order  # noqa: E402


@st.composite
def tied_rows(draw):
    n = draw(st.integers(1, 200))
    levels = draw(st.integers(1, 5))
    values = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=np.float64)
    if draw(st.booleans()):
        values[draw(st.lists(st.integers(0, n - 1), max_size=3))] = np.nan
    return values, draw(st.integers(0, n)), draw(st.booleans()), draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(tied_rows())
def test_a_rows_picks_are_torchs(case):
    values, k, largest, in_order = case
    want = torch.tensor(values).topk(k, largest=largest, sorted=in_order).indices.tolist()
    assert topk_order(values, k, largest, in_order) == want


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("x.topk(1, dim=1).values.sum()", lambda x: x.topk(1, dim=1).values.sum()),
        (
            "(x.topk(3, dim=0, largest=False)[0] * w[:3]).sum()",
            lambda x: (x.topk(3, dim=0, largest=False)[0] * W[:3]).sum(),
        ),
        (
            "(torch.topk(x, 2, sorted=False).values * w[0, :2]).sum()",
            lambda x: (torch.topk(x, 2, sorted=False).values * W[0, :2]).sum(),
        ),
    ],
)
def test_gradients_go_where_torchs_ties_went(program, function):
    result = grad(program, at={"x": X}, const={"w": W.tolist()} if "w" in program else {})
    leaf = torch.tensor(X, requires_grad=True)
    function(leaf).backward()
    np.testing.assert_array_equal(result.grads["x"], leaf.grad.numpy())


X = [[1.0, 1.0, 1.0, 1.0, 2.0], [2.0, 1.0, 2.0, 1.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [3.0, 3.0, 1.0, 3.0, 3.0]]
W = torch.arange(20.0, dtype=torch.float64).reshape(4, 5) - 7
