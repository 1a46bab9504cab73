"""Comparisons, torch.where, detach and *_like inside programs (issue 13), against torch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from oracle import close  # noqa: E402

from gradcli import GradcliError, grad  # noqa: E402

X = [[0.5, -1.0, 2.0], [-0.3, 0.2, -2.5]]


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("torch.where(x > 0, x, 0.0).sum()", lambda x: torch.where(x > 0, x, 0.0).sum()),
        ("torch.where(x <= 0.2, x**2, 3*x).sum()", lambda x: torch.where(x <= 0.2, x**2, 3 * x).sum()),
        ("(x * (x > 0)).sum()", lambda x: (x * (x > 0)).sum()),
        ("(x * (x != 0.5) * (x >= -1)).sum()", lambda x: (x * (x != 0.5) * (x >= -1)).sum()),
        ("y = x.detach(); (x * y).sum()", lambda x: (x * x.detach()).sum()),
        ("(x - torch.ones_like(x)).square().mean()", lambda x: (x - torch.ones_like(x)).square().mean()),
        (
            "torch.where(x < 0, torch.zeros_like(x), x).sum()",
            lambda x: torch.where(x < 0, torch.zeros_like(x), x).sum(),
        ),
        ("(x + torch.full_like(x, 2.5)).prod()", lambda x: (x + torch.full_like(x, 2.5)).prod()),
        # masked_select: the mask's values fix the result's length when the graph is built
        ("(x.masked_select(x > 0) ** 2).sum()", lambda x: (x.masked_select(x > 0) ** 2).sum()),
        (
            "torch.masked_select(x[0], x < 0.3).exp().mean()",
            lambda x: torch.masked_select(x[0], x < 0.3).exp().mean(),
        ),
    ],
)
def test_masks_and_detach_agree_with_torch(program, function):
    result = grad(program, at={"x": X})
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = function(leaf)
    out.backward()
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-13)
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-13)
    assert result.output.grad_fn == out.grad_fn.name()


def test_a_comparison_has_no_grad_fn_and_stops_the_gradient():
    result = grad("m = x > 0; out = (m * 3).sum() + x.sum()", at={"x": X})
    mask = next(n for n in result.nodes if n.name == "m")
    assert mask.grad_fn is None and not mask.requires_grad
    np.testing.assert_array_equal(result.grads["x"], np.ones((2, 3)))


def test_a_program_of_comparisons_only_is_torchs_no_grad_error():
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as torch_error:
        (leaf > 0).sum().backward()
    with pytest.raises(GradcliError) as ours:
        grad("(x > 0).sum()", at={"x": X})
    assert ours.value.message == str(torch_error.value)


def test_a_bool_mask_indexes_as_in_torch():
    """x[m] with m = x > 0 selects (IndexBackward0); more cases in tests/test_dtypes.py."""
    result = grad("m = x > 0; (x[m] ** 2).sum()", at={"x": X})
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = (x[x > 0] ** 2).sum()
    out.backward()
    assert close(result.value, out.item()) and close(result.grads["x"], x.grad.numpy())
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == [
        "IndexBackward0",
        "PowBackward0",
        "SumBackward0",
    ]


def test_masked_select_refuses_what_torch_refuses():
    leaf = torch.tensor(X, dtype=torch.float64)
    for mask in ([1, 0, 1], [True, False]):
        with pytest.raises(RuntimeError) as torch_error:
            leaf.masked_select(torch.tensor(mask))
        with pytest.raises(GradcliError) as ours:
            grad("x.masked_select(m).sum()", at={"x": X}, const={"m": mask})
        assert ours.value.message.endswith(str(torch_error.value))
