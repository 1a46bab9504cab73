"""The elementwise math and activation families end to end, with live torch as the oracle.

Each program is written as a PyTorch (or NumPy) user writes it and run through gradcli's API
or CLI; torch runs the same computation. Values, leaf grads (float64 to 1e-12, float32 to its
precision), grad_fn names (the whole chain for calls torch records as several nodes), Hessians,
second derivatives and error texts must agree, at kinks, ties and bounds included.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import close, torch

from gradcli import GradcliError, grad

F = torch.nn.functional

# Kinks and bounds of the ops below (0, +-1, 6) and points between them.
X = [-7.0, -2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 6.0, 7.0]
POSITIVE = [0.1, 0.5, 1.0, 2.0, 8.0]
Y = [-7.0, 1.0, -1.0, 0.3, 0.0, 0.25, -0.5, 1.0, 2.5, 6.0, -3.0]  # ties with X at 4 places

UNARY = [
    ("sum(torch.exp2(x))", lambda x: torch.sum(torch.exp2(x)), X),
    ("x.expm1().sum()", lambda x: x.expm1().sum(), X),
    ("sum(torch.log2(p))", lambda p: torch.sum(torch.log2(p)), POSITIVE),
    ("np.sum(np.log10(p))", lambda p: torch.sum(torch.log10(p)), POSITIVE),
    ("sum(p.reciprocal())", lambda p: torch.sum(p.reciprocal()), POSITIVE),
    ("sum(np.reciprocal(x) ** 2)", lambda x: torch.sum(torch.reciprocal(x) ** 2), [-2.0, -0.5, 0.5, 3.0]),
    ("sum(torch.rsqrt(p))", lambda p: torch.sum(torch.rsqrt(p)), POSITIVE),
    ("sum(torch.erf(x) * x)", lambda x: torch.sum(torch.erf(x) * x), X),
    ("torch.special.erf(x).sum()", lambda x: torch.special.erf(x).sum(), X),
    ("sum(torch.asinh(x))", lambda x: torch.sum(torch.asinh(x)), X),
    ("sum(np.arccosh(p + 1))", lambda p: torch.sum(torch.acosh(p + 1)), POSITIVE),
    ("sum(x.arctanh())", lambda x: torch.sum(x.arctanh()), [-0.9, -0.2, 0.0, 0.6]),
    ("sum(torch.sign(x) * x)", lambda x: torch.sum(torch.sign(x) * x), X),
    ("sum(np.sign(x) + x)", lambda x: torch.sum(torch.sign(x) + x), X),
    ("sum(x.floor() + x)", lambda x: torch.sum(x.floor() + x), X),
    ("sum(torch.ceil(x) * x)", lambda x: torch.sum(torch.ceil(x) * x), X),
    ("sum(torch.round(x) * x)", lambda x: torch.sum(torch.round(x) * x), X),
    ("sum(x.round(decimals=1) * x)", lambda x: torch.sum(x.round(decimals=1) * x), X),
    ("sum(np.rint(x) + x)", lambda x: torch.sum(torch.round(x) + x), X),
    ("sum(torch.trunc(x) * x)", lambda x: torch.sum(torch.trunc(x) * x), X),
    ("sum(torch.fix(x) + x)", lambda x: torch.sum(torch.fix(x) + x), X),
    ("sum(torch.clamp(x, min=0))", lambda x: torch.sum(torch.clamp(x, min=0)), X),
    ("sum(x.clamp(max=1) ** 2)", lambda x: torch.sum(x.clamp(max=1) ** 2), X),
    ("sum(torch.clamp(x, -1, 1) * x)", lambda x: torch.sum(torch.clamp(x, -1, 1) * x), X),
    ("x.clip(0, 6).sum()", lambda x: x.clip(0, 6).sum(), X),
    ("np.clip(x, -0.5, 0.5).sum()", lambda x: torch.clip(x, -0.5, 0.5).sum(), X),
    ("sum(torch.clamp(x, min=1, max=-1))", lambda x: torch.sum(torch.clamp(x, min=1, max=-1)), X),
    ("sum(F.leaky_relu(x))", lambda x: torch.sum(F.leaky_relu(x)), X),
    ("sum(F.leaky_relu(x, 0.2) ** 2)", lambda x: torch.sum(F.leaky_relu(x, 0.2) ** 2), X),
    (
        "sum(F.leaky_relu(x, negative_slope=-1.5))",
        lambda x: torch.sum(F.leaky_relu(x, negative_slope=-1.5)),
        X,
    ),
    ("sum(F.elu(x))", lambda x: torch.sum(F.elu(x)), X),
    ("sum(F.elu(x, alpha=0.5) * x)", lambda x: torch.sum(F.elu(x, alpha=0.5) * x), X),
    ("sum(F.selu(x))", lambda x: torch.sum(F.selu(x)), X),
    ("sum(F.gelu(x))", lambda x: torch.sum(F.gelu(x)), X),
    (
        "sum(F.gelu(x, approximate='tanh'))",
        lambda x: torch.sum(F.gelu(x, approximate="tanh")),
        X,
    ),
    ("sum(F.silu(x) * x)", lambda x: torch.sum(F.silu(x) * x), X),
    ("sum(F.hardtanh(x))", lambda x: torch.sum(F.hardtanh(x)), X),
    ("sum(F.hardtanh(x, -0.5, 6))", lambda x: torch.sum(F.hardtanh(x, -0.5, 6)), X),
    ("sum(F.hardtanh(x, min_val=0, max_val=0))", lambda x: torch.sum(F.hardtanh(x, min_val=0, max_val=0)), X),
    ("sum(F.relu6(x))", lambda x: torch.sum(F.relu6(x)), X),
    ("sum(F.logsigmoid(x))", lambda x: torch.sum(F.logsigmoid(x)), [*X, -800.0, 800.0]),
    ("sum(F.softsign(x))", lambda x: torch.sum(F.softsign(x)), X),
    ("sum(F.tanhshrink(x))", lambda x: torch.sum(F.tanhshrink(x)), X),
    ("sum(F.mish(x))", lambda x: torch.sum(F.mish(x)), [*X, -30.0, 30.0]),
    ("sum(torch.maximum(x, x) + x.minimum(x))", lambda x: torch.sum(torch.maximum(x, x) + x.minimum(x)), X),
    ("mean(torch.nn.functional.silu(x) ** 2)", lambda x: torch.mean(F.silu(x) ** 2), X),
    ("sum(torch.nan_to_num(x) * x)", lambda x: torch.sum(torch.nan_to_num(x) * x), [*X, math.nan, math.inf]),
    (
        "sum(x.nan_to_num(nan=2.0, posinf=9.0, neginf=-9.0))",
        lambda x: torch.sum(x.nan_to_num(nan=2.0, posinf=9.0, neginf=-9.0)),
        [*X, math.nan, math.inf, -math.inf],
    ),
    ("torch.special.expit(x).sum()", lambda x: torch.special.expit(x).sum(), X),
]

BINARY = [
    ("sum(torch.atan2(x, y))", lambda x, y: torch.sum(torch.atan2(x, y))),
    ("sum(np.arctan2(x, y) * x)", lambda x, y: torch.sum(torch.arctan2(x, y) * x)),
    ("sum(x.atan2(y))", lambda x, y: torch.sum(x.atan2(y))),
    ("sum(torch.maximum(x, y))", lambda x, y: torch.sum(torch.maximum(x, y))),
    ("sum(np.maximum(x, y) * y)", lambda x, y: torch.sum(torch.maximum(x, y) * y)),
    ("sum(x.minimum(y) ** 2)", lambda x, y: torch.sum(x.minimum(y) ** 2)),
    ("sum(np.minimum(x, y))", lambda x, y: torch.sum(torch.minimum(x, y))),
    (
        "sum(torch.div(x, y, rounding_mode='floor') * x)",
        lambda x, y: torch.sum(torch.div(x, y, rounding_mode="floor") * x),
    ),
    ("sum(x.div(y, rounding_mode='trunc') + y)", lambda x, y: torch.sum(x.div(y, rounding_mode="trunc") + y)),
    ("sum(x.div(y, rounding_mode=None))", lambda x, y: torch.sum(x.div(y, rounding_mode=None))),
]


def torch_run(function, values: list[list[float]], dtype):
    leaves = [torch.tensor(v, dtype=dtype, requires_grad=True) for v in values]
    out = function(*leaves)
    out.backward()
    return out, [leaf.grad for leaf in leaves]


def grad_fn_chain(out) -> list[str]:
    """Every grad_fn under `out`, each once, in a stable depth-first order (no AccumulateGrad)."""
    seen, names, stack = set(), [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen or node.name().endswith("AccumulateGrad"):
            continue
        seen.add(node)
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions)
    return sorted(names)


def check(program: str, function, at: dict[str, list[float]], dtype: str) -> None:
    torch_dtype = torch.float64 if dtype == "float64" else torch.float32
    rtol, atol = (1e-12, 1e-14) if dtype == "float64" else (2e-6, 1e-6)
    result = grad(program, at=at, dtype=dtype)
    out, want = torch_run(function, list(at.values()), torch_dtype)
    assert close(result.value, out.detach().numpy(), rtol=rtol, atol=atol), (result.value, out)
    for name, theirs in zip(at, want, strict=True):
        theirs = np.zeros(np.shape(at[name])) if theirs is None else theirs.numpy()
        assert close(result.grads[name], theirs, rtol=rtol, atol=atol), (name, result.grads[name], theirs)
    mine = sorted(n.grad_fn for n in result.nodes if n.grad_fn)
    assert mine == grad_fn_chain(out), (mine, grad_fn_chain(out))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("program", "function", "values"), UNARY, ids=[u[0] for u in UNARY])
def test_unary_programs_compute_what_torch_computes(program, function, values, dtype):
    name = "p" if values is POSITIVE else "x"
    check(program, function, {name: values}, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("program", "function"), BINARY, ids=[b[0] for b in BINARY])
def test_binary_programs_split_ties_as_torch_does(program, function, dtype):
    check(program, function, {"x": X, "y": Y}, dtype)


def test_atan2_at_the_origin_has_zero_gradients_as_torch():
    check(
        "sum(torch.atan2(x, y))",
        lambda x, y: torch.sum(torch.atan2(x, y)),
        {"x": [0.0, 0.0], "y": [0.0, -0.0]},
        "float64",
    )


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("F.softsign(x)", F.softsign),
        ("F.tanhshrink(x)", F.tanhshrink),
        ("F.relu6(x)", F.relu6),
        ("torch.clamp(x, min=0)", lambda x: torch.clamp(x, min=0)),
        ("torch.round(x, decimals=2)", lambda x: torch.round(x, decimals=2)),
        ("torch.round(x)", torch.round),
    ],
)
def test_the_output_node_and_its_inputs_are_the_nodes_torch_records(program, function):
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    out = function(x)
    result = grad(program, at={"x": [-1.5, 0.5, 2.0]}, gradient=[1.0, 2.0, 3.0])
    assert result.output.grad_fn == out.grad_fn.name()
    assert sorted(n.grad_fn for n in result.nodes if n.grad_fn) == grad_fn_chain(out)
    out.backward(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    assert close(result.grads["x"], x.grad.numpy(), rtol=1e-12)


def test_softsign_is_recorded_as_a_division_of_x_by_abs_plus_one():
    x = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    div = F.softsign(x).grad_fn
    add = div.next_functions[1][0]
    result = grad("F.softsign(x).sum()", at={"x": [0.5]})
    names = [n.grad_fn for n in result.nodes if n.grad_fn]
    assert names == [add.next_functions[0][0].name(), add.name(), div.name(), "SumBackward0"]


# ---------------------------------------------------------------- second derivatives

HESSIANS = [
    ("sum(gelu(x))", lambda x: torch.sum(F.gelu(x)), {"x": [-1.5, 0.3, 2.0]}),
    (
        "sum(gelu(x, approximate='tanh'))",
        lambda x: torch.sum(F.gelu(x, approximate="tanh")),
        {"x": [-1.5, 0.3, 2.0]},
    ),
    ("sum(elu(x))", lambda x: torch.sum(F.elu(x)), {"x": [-1.5, 0.3, 2.0]}),
    ("sum(elu(x, alpha=0.5) * x)", lambda x: torch.sum(F.elu(x, alpha=0.5) * x), {"x": [-1.5, 0.3, 2.0]}),
    ("sum(selu(x) * x)", lambda x: torch.sum(F.selu(x) * x), {"x": [-1.5, 0.3, 2.0]}),
    ("sum(expm1(x))", lambda x: torch.sum(torch.expm1(x)), {"x": [-1.5, 0.3, 2.0]}),
    (
        "sum(exp2(x) * log2(p) + log10(p) * x)",
        lambda x, p: torch.sum(torch.exp2(x) * torch.log2(p) + torch.log10(p) * x),
        {"x": [-1.0, 0.5], "p": [0.5, 3.0]},
    ),
    (
        "sum(reciprocal(p) + rsqrt(p) * x)",
        lambda x, p: torch.sum(torch.reciprocal(p) + torch.rsqrt(p) * x),
        {"x": [-1.0, 0.5], "p": [0.5, 3.0]},
    ),
    ("sum(erf(x) * x)", lambda x: torch.sum(torch.erf(x) * x), {"x": [-1.5, 0.3, 2.0]}),
    (
        "sum(asinh(x) + atanh(x / 3))",
        lambda x: torch.sum(torch.asinh(x) + torch.atanh(x / 3)),
        {"x": [-1.5, 0.3, 2.0]},
    ),
    (
        "sum(silu(x)) + sum(mish(x))",
        lambda x: torch.sum(F.silu(x)) + torch.sum(F.mish(x)),
        {"x": [-1.5, 0.3, 2.0]},
    ),
    ("sum(logsigmoid(x))", lambda x: torch.sum(F.logsigmoid(x)), {"x": [-1.5, 0.3, 2.0]}),
    ("sum(atan2(x, y))", lambda x, y: torch.sum(torch.atan2(x, y)), {"x": [-1.0, 0.5], "y": [2.0, -0.7]}),
    (
        "sum(maximum(x, y) ** 2 + minimum(x, y) ** 3)",
        lambda x, y: torch.sum(torch.maximum(x, y) ** 2 + torch.minimum(x, y) ** 3),
        {"x": [-1.0, 0.5, 2.0], "y": [2.0, 0.5, -0.7]},
    ),
    (
        "sum(clamp(x, min=0) ** 2 + hardtanh(x) ** 3)",
        lambda x: torch.sum(torch.clamp(x, min=0) ** 2 + F.hardtanh(x) ** 3),
        {"x": [-1.5, 0.3, 2.0]},
    ),
    (
        "sum(leaky_relu(x, 0.2) ** 2 + floor(x) * x ** 2 + sign(x) * x ** 2)",
        lambda x: torch.sum(F.leaky_relu(x, 0.2) ** 2 + torch.floor(x) * x**2 + torch.sign(x) * x**2),
        {"x": [-1.5, 0.3, 2.0]},
    ),
    (
        "sum(softsign(x) + tanhshrink(x) + relu6(x) ** 2)",
        lambda x: torch.sum(F.softsign(x) + F.tanhshrink(x) + F.relu6(x) ** 2),
        {"x": [-1.5, 0.3, 2.0]},
    ),
]


@pytest.mark.parametrize(("program", "function", "at"), HESSIANS, ids=[h[0] for h in HESSIANS])
def test_hessian_equals_torch_functional_hessian(run_json, program, function, at):
    doc = run_json("hessian", program, *[f"--at={n}={v}" for n, v in at.items()])
    inputs = tuple(torch.tensor(v, dtype=torch.float64) for v in at.values())
    want = torch.autograd.functional.hessian(function, inputs)
    for i, a in enumerate(at):
        for j, b in enumerate(at):
            assert close(doc["hessian"][a][b], want[i][j].numpy(), rtol=1e-10, atol=1e-12), (a, b)


@pytest.mark.parametrize(
    ("program", "function", "point"),
    [
        ("gelu(x)", F.gelu, -0.7),
        ("erf(x)", torch.erf, 0.4),
        ("elu(x)", F.elu, -0.3),
        ("expm1(x) * exp2(x)", lambda x: torch.expm1(x) * torch.exp2(x), 0.6),
        ("rsqrt(x)", torch.rsqrt, 1.7),
    ],
)
def test_third_derivative_equals_torch_create_graph(run_json, program, function, point):
    doc = run_json("grad", program, "--at", f"x={point}", "--order", "3")
    x = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    current, want = function(x), []
    for _ in range(3):
        (current,) = torch.autograd.grad(current, x, create_graph=True)
        want.append(current.item())
    assert close(doc["leaves"]["x"]["derivatives"], want, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- errors


def torch_error(function, *values) -> str:
    with pytest.raises((RuntimeError, ValueError)) as caught:
        function(*[torch.tensor(v, dtype=torch.float64) for v in values])
    return str(caught.value)


@pytest.mark.parametrize(
    ("program", "function", "values"),
    [
        ("torch.clamp(x)", lambda x: torch.clamp(x), {"x": [1.0, 2.0]}),
        ("F.hardtanh(x, 2, 1)", lambda x: F.hardtanh(x, 2.0, 1.0), {"x": [1.0, 2.0]}),
        ("torch.maximum(x, y)", torch.maximum, {"x": [1.0, 2.0], "y": [1.0, 2.0, 3.0]}),
        ("torch.atan2(x, y)", torch.atan2, {"x": [[1.0, 2.0]], "y": [1.0, 2.0, 3.0]}),
    ],
)
def test_errors_are_torchs(run, program, function, values):
    message = torch_error(function, *values.values())
    with pytest.raises(GradcliError) as caught:
        grad(program, at=values)
    assert message in str(caught.value)
    result = run("grad", program, *[f"--at={n}={v}" for n, v in values.items()])
    assert result.exit_code == 1 and message in result.stderr


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("sum(F.gelu(x, approximate='erf'))", lambda x: F.gelu(x, approximate="erf")),
        ("F.mse_loss(x, x, reduction='avg')", lambda x: F.mse_loss(x, x, reduction="avg")),
        ("F.pad(x, (1, 1), mode='wrap').sum()", lambda x: F.pad(x, (1, 1), mode="wrap")),
    ],
)
def test_a_choice_outside_torchs_is_torchs_input_error(run, program, function):
    with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as theirs:
        function(torch.tensor([1.0, 2.0]))
    result = run("grad", program, "--at", "x=[1, 2]")
    assert result.exit_code == 1
    assert str(theirs.value) in result.stderr and result.stderr.count("\n") == 1


# ---------------------------------------------------------------- steps and symbolic forms

POINTS = [-1.7, -0.6, -0.2, 0.3, 0.7, 1.9]  # off every kink and bound used below


@pytest.mark.parametrize(
    "program",
    [
        "sum(clamp(x, min=-0.5, max=0.8) * c)",
        "sum(x.clamp(max=0.1) * c)",
        "sum(F.leaky_relu(x, 0.2) * c)",
        "sum(F.elu(x, alpha=0.5) * c)",
        "sum(F.gelu(x) * c)",
        "sum(F.gelu(x, approximate='tanh') * c)",
        "sum(F.hardtanh(x, -0.5, 0.8) * c)",
        "sum(F.relu6(x * 4) * c)",
        "sum(x.round(decimals=1) * c)",
        "sum(F.selu(x) * c) + sum(F.mish(x) * c)",
    ],
)
def test_chain_rule_steps_of_tensor_level_records_give_the_adjoints(program, monkeypatch):
    import test_local_steps

    c = np.linspace(-1.0, 2.0, len(POINTS)).tolist()
    assert test_local_steps.check_steps(program, {"x": POINTS}, {"c": c}) >= 3


@pytest.mark.parametrize(
    "program",
    [
        "elu(x, alpha=0.5)",
        "gelu(x)",
        "gelu(x, approximate='tanh')",
        "clamp(x, min=-1, max=2) * x",
        "hardtanh(x, -0.5, 0.8) * x",
        "leaky_relu(x, 0.2) * x",
        "selu(x) + silu(x) + mish(x) + logsigmoid(x)",
        "atan2(x, 2 - x) + maximum(x, 1 - x) + minimum(x, 0.1)",
        "exp2(x) + expm1(x) + log2(x + 3) + log10(x + 3) + rsqrt(x + 3) + reciprocal(x + 3) + erf(x)",
        "floor(x) * x + round(x) * x + round(x, decimals=1) + sign(x) * x + trunc(x) + ceil(x)",
    ],
)
@pytest.mark.parametrize("point", [-0.6, 0.3, 0.7])
def test_symbolic_gradient_is_the_numeric_one(program, point):
    import sympy as sp

    from gradcli.symbolic import parse_names

    result = grad(program, at={"x": point})
    text = result.grad_symbolic["x"]
    assert text is not None
    x = sp.Symbol("x", real=True)
    rounding = {"round": sp.Function("round"), "trunc": sp.Function("trunc")}  # opaque in gradcli's forms
    names = {"x": x, "Heaviside": sp.Heaviside, **rounding, **parse_names()}
    expr = sp.parse_expr(text, local_dict=names)  # test-only sympy
    expr = expr.subs(x, point)
    for name, function in (("round", np.round), ("trunc", np.trunc)):
        expr = expr.replace(rounding[name], lambda a, *d, f=function: sp.Float(f(float(a), *map(int, d))))
    value = complex(expr.evalf(30))
    assert value.imag == 0 and close(value.real, result.grads["x"], rtol=1e-12), (text, value)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size", [3, 9, 17, 20])
@pytest.mark.parametrize("name", ["elu", "selu", "hardtanh", "relu6", "leaky_relu"])
def test_a_nan_inputs_gradient_is_torchs_at_every_position(name, size, dtype):
    """torch's CPU kernels answer a nan differently in their vector and scalar loops (hardtanh:
    0 or g, elu: nan or g*scale); gradcli follows it element by element, in memory order."""
    values = np.linspace(-2.0, 2.0, size)
    values[[0, size // 2, size - 1]] = np.nan
    result = grad(f"F.{name}(x).sum()", at={"x": values.tolist()}, dtype=dtype)
    x = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    getattr(torch.nn.functional, name)(x).sum().backward()
    rtol = 1e-14 if dtype == "float64" else 1e-6  # exp's last bits are the library's own
    np.testing.assert_allclose(
        result.grads["x"], x.grad.numpy(), rtol=rtol, equal_nan=True
    )  # nans where torch's
