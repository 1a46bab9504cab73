"""number / tensor records what torch records: Python's Tensor.__rtruediv__ is
`self.reciprocal() * other`, so MulBackward0 -> ReciprocalBackward0, with torch's values,
gradients (bit for bit), double backward and symbolic form. `gradcli run` follows through
the same registry rewrite (tests/scripts/reversed_division.py, compared in test_run.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gradcli import api

X = [7.0, 0.3, 49.0, -2.5, 1e-3]


def _chain(fn) -> list[str]:
    """grad_fn names along the first differentiable input, torch's next_functions."""
    names = []
    while fn is not None and type(fn).__name__ != "AccumulateGrad":
        names.append(type(fn).__name__)
        fn = next((f for f, _ in fn.next_functions if f is not None), None)
    return names


@pytest.mark.parametrize("number", ["1", "2", "1.0", "-3.5", "0.1"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_number_over_tensor_records_mul_then_reciprocal(number: str, dtype: str) -> None:
    x = torch.tensor(X, dtype=getattr(torch, dtype), requires_grad=True)
    y = eval(f"{number} / x")  # test-only: torch's own Python operator
    y.sum().backward()
    result = api.grad(f"sum({number}/x)", {"x": X}, dtype=dtype)
    nodes = [node for node in result.nodes if node.grad_fn]
    assert [node.grad_fn for node in nodes][:-1][::-1] == _chain(y.grad_fn)
    assert np.array_equal(result.nodes[-2].value, y.detach().numpy())
    assert np.array_equal(result.grads["x"], x.grad.numpy())


def test_double_backward_of_number_over_tensor_is_torchs() -> None:
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((2 / (x * x) + 3 / x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    result = api.grad("sum(2/(x*x) + 3/x)", {"x": X}, order=2, symbolic=False)
    assert np.array_equal(result.derivatives["x"][1], h.numpy())
    hessian = api.hessian("sum(3/x)", {"x": X[:3]}, symbolic=False).hessian["x"]["x"]
    want = torch.autograd.functional.hessian(
        lambda t: (3 / t).sum(), torch.tensor(X[:3], dtype=torch.float64)
    )
    assert np.array_equal(hessian, want.numpy())


def test_symbolic_form_of_number_over_tensor() -> None:
    result = api.grad("3/x", None, None)
    assert result.grad_symbolic["x"] == "-3/x**2"
