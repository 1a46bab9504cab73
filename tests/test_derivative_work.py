"""check, jacobian and hessian repeat a pass per element: their work is refused before the
first pass (MAX_DERIVATIVE_PASS_ELEMENTS, MAX_DERIVATIVE_PASS_NODES), and what is accepted
still agrees with torch. The hostile sizes themselves run in tests/hostile/cases.py."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from gradcli import api, limits
from gradcli.errors import GradcliError
from gradcli.gradcheck import _evaluate, _Symbolic, _symbolic_values, check


def test_hessian_of_outer_is_refused_at_3000_elements_before_any_row() -> None:
    started = time.process_time()
    with pytest.raises(GradcliError, match=r"3,000 backward passes.*MAX_DERIVATIVE_PASS_ELEMENTS"):
        api.hessian("sum(outer(x, x))", {"x": np.zeros(3000)}, symbolic=False)
    assert time.process_time() - started < 2


def test_jacobian_rows_are_refused_but_a_diagonal_jacobian_is_one_pass() -> None:
    with pytest.raises(GradcliError, match=r"90,000 backward passes.*MAX_DERIVATIVE_PASS_ELEMENTS"):
        api.jacobian("outer(x, x)", {"x": np.zeros(300)})
    # 10,000 rows of a 40,000-element graph would be refused; diagonal, it is one pass.
    x = np.linspace(-1, 1, 10_000)
    result = api.jacobian("sin(x) * 2 + x", {"x": x}).jacobian["x"]
    assert np.array_equal(np.diag(result), 2 * np.cos(x) + 1)


def test_a_diagonal_jacobian_with_a_nan_needs_rows_and_is_refused_then() -> None:
    x = np.linspace(-1, 1, 10_000)
    x[0] = np.nan
    with pytest.raises(GradcliError, match="MAX_DERIVATIVE_PASS_ELEMENTS"):
        api.jacobian("sin(x) * 2 + x", {"x": x})


def test_accepted_rows_agree_with_torch() -> None:
    x = np.random.default_rng(0).standard_normal(60)
    found = api.hessian("sum(outer(x, x) * x)", {"x": x}, symbolic=False).hessian["x"]["x"]
    want = torch.autograd.functional.hessian(lambda t: (torch.outer(t, t) * t).sum(), torch.tensor(x))
    assert np.allclose(found, want.numpy(), rtol=1e-12, atol=1e-12)
    jac = api.jacobian("outer(x, x)", {"x": x[:30]}).jacobian["x"]
    want = torch.autograd.functional.jacobian(lambda t: torch.outer(t, t), torch.tensor(x[:30]))
    assert np.array_equal(jac, want.numpy())


def test_check_counts_its_passes_by_elements_and_by_nodes() -> None:
    with pytest.raises(GradcliError, match=r"4,000 forward passes.*MAX_DERIVATIVE_PASS_ELEMENTS"):
        check("sum(x*sum(c))", {"x": np.zeros(1000)}, {"c": np.zeros(10_000_000)})
    chain = "\n".join(["y = sum(x)"] + ["y = sin(y)"] * 300 + ["y"])
    with pytest.raises(GradcliError, match=r"400 forward passes.*302 nodes.*MAX_DERIVATIVE_PASS_NODES"):
        check(chain, {"x": np.zeros(100)})
    assert check(chain, {"x": np.full(10, 0.1)}).passed  # 20 passes of 302 nodes


def test_check_at_its_element_cap_ends_in_seconds_with_every_symbolic_value() -> None:
    x = np.random.default_rng(1).uniform(-0.5, 0.5, limits.MAX_CHECK_ELEMENTS)
    started = time.process_time()
    result = check("sum(tanh(sin(x)*exp(x) + x**3) / (1 + x**2) * elu(x))", {"x": x})
    assert time.process_time() - started < 10
    assert result.passed and all(row.symbolic is not None for row in result.rows)


@pytest.mark.parametrize(
    "program",
    [
        "sum(sin(x)*exp(x) + x**3)",
        "sum(relu(x) + abs(x) + sqrt(x) + 1/x)",
        "sum(elu(x) + gelu(x) + maximum(x, 0.5))",
        "sum(clamp(x, -0.2, 0.2) * softplus(x) + sigmoid(x) + erf(x))",
        "sum(x**2.5 + atan(x) + log(x))",
    ],
)
def test_numpy_evaluation_of_the_symbolic_gradient_equals_evalf(program: str) -> None:
    x = np.array([-1.5, -0.5, 0.0, 0.2, 0.5, 1.0, 3.0])
    inputs = {"x": x}
    prepared = api._prepare(program, inputs, None, "float64")
    expr = _symbolic_values(prepared.graph, prepared.arrays)["x"]
    found = _Symbolic().values(expr, prepared.arrays, x.shape)
    for k, value in enumerate(found):
        want = _evaluate(expr, prepared.arrays, x.shape, (k,))
        assert value == pytest.approx(want, rel=1e-12, abs=1e-300, nan_ok=True), (k, value, want)


def test_a_hessian_of_many_scalar_leaves_is_refused_by_its_passes_over_the_gradient_graph() -> None:
    def program(n: int) -> tuple[str, dict[str, float]]:
        text = "\n".join(["s = 0"] + [f"s = s + sin(x{i})*x{i + 1}" for i in range(n)] + ["s"])
        return text, {f"x{i}": 0.5 for i in range(n + 1)}

    started = time.process_time()
    with pytest.raises(
        GradcliError, match=r"1,501 passes \(at least one per leaf\).*MAX_DERIVATIVE_PASS_NODES"
    ):
        api.hessian(*program(1500), symbolic=False)
    # the gradient graph is built first (about 1 s here, 2 in a loaded full run); the passes
    # refused would take about 100 s
    assert time.process_time() - started < 5
    text, at = program(30)
    found = api.hessian(text, at, symbolic=False).hessian
    assert found["x1"]["x1"] == pytest.approx(-np.sin(0.5) * 0.5) and found["x0"]["x1"] == pytest.approx(
        np.cos(0.5)
    )


def test_repeated_passes_over_a_long_program_are_refused_before_the_first() -> None:
    """--passes on a scalar chain: each pass visits every node; one pass is always allowed."""
    program = "\n".join(["h0 = x"] + [f"h{i} = sin(h{i - 1})" for i in range(1, 2000)])
    started = time.process_time()
    with pytest.raises(GradcliError, match=r"100 passes over a graph of 2,000 nodes.*MAX_DERIVATIVE_PASS_NODES"):
        api.grad(program, {"x": 1.0}, passes=100, retain_graph=True, symbolic=False)
    assert time.process_time() - started < 2
    once = api.grad(program, {"x": 1.0}, symbolic=False)
    twice = api.grad(program, {"x": 1.0}, passes=2, retain_graph=True, symbolic=False)
    assert twice.grads["x"] == 2 * once.grads["x"]
