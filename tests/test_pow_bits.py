"""x**2 and x**3 are multiplied out (ops.core._power), as PyTorch's pow kernel does for those
exponents: the value and the gradient (pow_backward: grad * (3 * x.pow(2))) are torch's bits,
node by node and in blocks. NumPy's own np.power(x, 3.0) differs in about a quarter of the
elements, so a change back to it fails here."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli import blocked, grad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("exponent", [2, 3])
@pytest.mark.parametrize("nodes", [True, False])
def test_small_integer_powers_are_torchs_bits(exponent, nodes):
    rng = np.random.default_rng(exponent)
    size = blocked.MIN_ELEMENTS + 4321  # big enough for blocks when nodes=False
    x = np.concatenate([rng.random(size // 2), rng.standard_normal(size - size // 2) * 1e3])
    gradient = rng.standard_normal(size)
    r = grad(f"x**{exponent}", at={"x": x}, gradient=gradient, symbolic=False, nodes=nodes)
    t = torch.from_numpy(x).requires_grad_(True)
    out = t**exponent
    out.backward(torch.from_numpy(gradient))
    np.testing.assert_array_equal(r.value, out.detach().numpy())
    np.testing.assert_array_equal(r.grads["x"], t.grad.numpy())
    if exponent == 3:
        assert (np.power(x, 3.0) != r.value).any()  # the test can tell the two apart
