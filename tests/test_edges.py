"""Singular points, non-finite numbers and backward() corner cases, pinned against PyTorch.

The random programs of test_differential.py keep away from singular points on
purpose; here each convention of SPEC section 2 is checked *at* the point itself
(relu'(0)=0, abs'(0)=0, sqrt'(0)=inf, log(0)=-inf, x**0 at 0, 0**y, nan propagation,
softplus at and above its threshold 20, overflow to inf), first with the number SPEC
states and then against torch, value and gradient. The last section holds the minimal
regression tests of bugs the differential suite found.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import close, run_torch, torch, torch_passes

from gradcli import grad
from gradcli.errors import AutogradError

NAN, INF = math.nan, math.inf


def torch_value_and_grads(source: str, at: dict, gradient=None):
    run = run_torch(source, at)
    seed = None if gradient is None else torch.tensor(np.asarray(gradient, dtype=np.float64))
    run.output.backward(seed)
    grads = {n: None if t.grad is None else t.grad.numpy() for n, t in run.leaves.items()}
    return run.output.detach().numpy(), grads


def assert_same_as_torch(source: str, at: dict, gradient=None) -> None:
    result = grad(source, at=at, gradient=gradient, symbolic=False)
    value, grads = torch_value_and_grads(source, at, gradient)
    assert close(result.value, value, rtol=0, atol=0), (result.value, value)
    for name, want in grads.items():
        got = result.grads[name]
        assert (got is None) == (want is None), name
        if want is not None:
            assert close(got, want, rtol=1e-15, atol=0), (name, got, want)


# ------------------------------------------------------------------ SPEC's conventions, as numbers


@pytest.mark.parametrize(
    ("source", "x", "value", "slope"),
    [
        ("relu(x)", 0.0, 0.0, 0.0),  # relu'(0) = 0
        ("abs(x)", 0.0, 0.0, 0.0),  # abs'(0) = 0
        ("sqrt(x)", 0.0, 0.0, INF),  # sqrt'(0) = inf
        ("log(x)", 0.0, -INF, INF),  # log(0) = -inf
        ("x**0", 0.0, 1.0, 0.0),  # x**0 has gradient 0, even at 0
        ("x**0", 5.0, 1.0, 0.0),
        ("x**2", 0.0, 0.0, 0.0),
        ("x**0.5", 0.0, 0.0, INF),
        ("0**x", 2.0, 0.0, 0.0),  # 0**y for y > 0: value 0, gradient 0 (not nan)
        ("0**x", 0.0, 1.0, 0.0),  # 0**0 = 1
        ("sin(x)", NAN, NAN, NAN),  # nan propagates
        ("relu(x)", NAN, NAN, 1.0),  # torch's threshold_backward passes g where not out <= 0
        ("abs(x)", NAN, NAN, 0.0),  # torch's sgn(nan) is 0
        ("softplus(x)", 20.0, math.log1p(math.exp(20.0)), 1 / (1 + math.exp(-20.0))),
        ("softplus(x)", 20.5, 20.5, 1.0),  # linear above the threshold 20
        ("softplus(x)", 1000.0, 1000.0, 1.0),
    ],
)
def test_spec_convention_at_the_singular_point(source: str, x: float, value: float, slope: float) -> None:
    result = grad(source, at={"x": x}, symbolic=False)
    assert close(result.value, value, rtol=1e-15, atol=0), result.value
    assert close(result.grads["x"], slope, rtol=1e-15, atol=0), result.grads["x"]
    assert_same_as_torch(source, {"x": x})


# ------------------------------------------------------------------ the same, against torch, wider


EDGE_PROGRAMS = [
    ("relu(x)", [0.0, -0.0, -1.0, 1.0, INF, -INF, NAN]),
    ("abs(x)", [0.0, -0.0, -2.0, INF, -INF, NAN]),
    ("sqrt(x)", [0.0, -1.0, INF, NAN]),
    ("log(x)", [0.0, -1.0, INF]),
    ("log1p(x)", [-1.0, -2.0, INF]),
    ("asin(x)", [1.0, -1.0, 1.5]),
    ("acos(x)", [1.0, -1.0, -1.5]),
    ("atan(x)", [INF, -INF]),
    ("tan(x)", [math.pi / 2]),
    ("exp(x)", [1000.0, -1000.0, INF, -INF]),
    ("sinh(x)", [1000.0, -1000.0]),
    ("cosh(x)", [1000.0, -1000.0]),
    ("tanh(x)", [INF, -INF, 30.0]),
    ("sigmoid(x)", [-1000.0, 1000.0, INF, -INF]),
    ("softplus(x)", [19.999, 20.0, 20.000001, -1000.0, INF, -INF]),
    ("1/x", [0.0, -0.0, INF]),
    ("x/x", [0.0, INF]),
    ("x*0", [INF, NAN]),
    ("x**0", [0.0, INF, NAN]),
    ("x**(-1)", [0.0]),
    ("x**0.5", [0.0, -1.0]),
    ("x**x", [0.0, -1.0]),
    ("0**x", [2.0, 0.0, -1.0]),
    ("(-2)**x", [2.0, 0.5]),
    ("x - x", [INF, NAN]),
    ("sum(x * y)", None),
]


@pytest.mark.parametrize(("source", "points"), [p for p in EDGE_PROGRAMS if p[1] is not None])
def test_edge_points_match_torch(source: str, points: list[float]) -> None:
    for x in points:
        assert_same_as_torch(source, {"x": x})


def test_tensor_exponent_at_a_zero_base_matches_torch() -> None:
    # pow_backward_exponent: where the base is 0 and the exponent >= 0 the grad is 0, not nan.
    at = {"x": [0.0, 0.0, 0.0, 2.0], "y": [0.0, 2.0, -1.0, 0.0]}
    assert_same_as_torch("x ** y", at, gradient=[1.0, 1.0, 1.0, 1.0])


def test_nan_propagates_through_reductions_and_matmul() -> None:
    at = {"A": [[1.0, NAN], [2.0, 3.0]], "v": [1.0, 2.0]}
    assert_same_as_torch("sum(A @ v) + mean(A)", at)


def test_output_that_is_a_leaf_gets_the_upstream_gradient() -> None:
    """`x` alone: backward on a leaf puts the gradient in its own .grad, as torch does."""
    assert_same_as_torch("x", {"x": [1.0, 2.0]}, gradient=[3.0, -1.0])
    assert grad("x", at={"x": [1.0, 2.0]}, gradient=[3.0, -1.0]).output.grad_fn is None


# ------------------------------------------------------------------ regressions found by the suite


def test_relu_and_abs_slopes_at_nan_follow_torch() -> None:
    """Found by test_edges: relu'(nan) is 1 and abs'(nan) is 0 in torch, not 0 and nan."""
    result = grad("relu(x) + 2*abs(x)", at={"x": [NAN, 1.0, -1.0]}, gradient=[1.0, 1.0, 1.0])
    assert close(result.grads["x"], [1.0, 3.0, -2.0], rtol=0, atol=0)


@pytest.mark.parametrize(
    ("source", "name"), [("x.sum(keepdim=True)", "SumBackward1"), ("x.mean(keepdim=True)", "MeanBackward1")]
)
def test_keepdim_without_dim_is_the_dim_overload(source: str, name: str) -> None:
    """Found by test_differential: torch picks the dim overload once keepdim=True is given.

    (PyTorch itself spells it x.sum(dim=None, keepdim=True); gradcli also takes the short form.)
    """
    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    reduced = x.sum(dim=None, keepdim=True) if "sum" in source else x.mean(dim=None, keepdim=True)
    assert reduced.grad_fn.name() == name
    assert grad(source, at={"x": np.ones((2, 3))}, gradient=[[1.0]]).output.grad_fn == name


def test_one_element_output_needs_no_gradient() -> None:
    """Found by test_differential: torch creates the implicit gradient when numel() == 1."""
    result = grad("x.sum(dim=0, keepdim=True) * 2", at={"x": [1.0, 2.0, 3.0]})
    assert result.output.shape == (1,)
    assert close(result.grads["x"], [2.0, 2.0, 2.0])
    assert_same_as_torch("x.sum(dim=0, keepdim=True) * 2", {"x": [1.0, 2.0, 3.0]})


def test_pass_errors_come_in_torchs_order() -> None:
    """Found by test_differential: a wrong gradient in pass 3 must not hide pass 2's freed graph.

    PyTorch checks one backward() at a time: pass 2 fails on the freed graph before pass
    3's gradient is ever looked at.
    """
    gradients = [1.0, 1.0, [1.0, 1.0, 1.0]]
    want = torch_passes("sin(x)", {"x": 0.5}, {}, gradients)
    assert want.error is not None and "a second time" in want.error
    with pytest.raises(AutogradError) as error:
        grad("sin(x)", at={"x": 0.5}, gradients=gradients)
    assert want.error in error.value.message


def test_shape_mismatch_is_checked_before_requires_grad() -> None:
    """_make_grads checks the gradient's shape first, then the engine checks requires_grad."""
    want = torch_passes("2*c", {}, {"c": [1.0, 2.0]}, [[1.0, 1.0, 1.0]])
    assert want.error is not None and want.error.startswith("Mismatch in shape")
    with pytest.raises(AutogradError) as error:
        grad("2*c", const={"c": [1.0, 2.0]}, gradient=[1.0, 1.0, 1.0])
    assert want.error in error.value.message


def test_non_scalar_output_that_requires_no_grad_fails_on_requires_grad() -> None:
    """No implicit-gradient complaint for an output that does not require grad, as in torch."""
    want = torch_passes("2*c", {}, {"c": [1.0, 2.0]}, [None])
    assert want.error is not None and want.error.startswith("element 0 of tensors")
    with pytest.raises(AutogradError) as error:
        grad("2*c", const={"c": [1.0, 2.0]})
    assert want.error in error.value.message


@pytest.mark.parametrize(
    ("args", "warning"),
    [
        (
            ["sum(x)", "--at", "x=[1e308,1e308]"],
            "value of t1 is inf: sum(a tensor of shape [2]) from finite inputs",
        ),
        (
            ["sum(x**c)", "--at", "x=[-1,2]", "--at", "c=2"],
            "adjoint of c is nan: pow'(a tensor of shape [2], 2)",
        ),
        (
            ["sum(c**k)", "--at", "c=0", "--const", "k=[0.5,2]"],
            "adjoint of c is inf: pow'(0, a tensor of shape [2])",
        ),
    ],
)
def test_nan_from_a_reduction_or_into_a_scalar_is_a_warning_not_a_crash(run, args, warning) -> None:
    result = run("grad", *args, "--format", "plain")
    assert result.exit_code == 0, result.stderr
    assert f"warning: {warning}" in result.stderr
    assert "internal error" not in result.stderr


def test_tables_show_tensors_with_inf_and_nan(run) -> None:
    # "[inf, 1]" once read as rich markup (a style named "inf, 1") and vanished.
    table = run("grad", "sum(log(x))", "--at", "x=[0,1]")
    assert "[inf, 1]" in table.stdout and "[-inf, 0]" in table.stdout
    jacobian = run("jacobian", "log(x)", "--at", "x=[0,1]")
    assert "[[inf,   0]," in jacobian.stdout and "[nan,   1]]" in jacobian.stdout  # one width: a matrix
