"""The reducing family end to end (amax/amin, max/min, prod, logsumexp, var/std, norm, cumsum).

Each program is written as a PyTorch or NumPy user writes it and run through gradcli's API
and CLI; torch 2.13 runs the same computation as its user would write it, and is the
oracle for values, leaf grads (float64 to 1e-12, float32 to its precision), grad_fn names,
error texts, Hessians and --order derivatives.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from oracle import close

from gradcli import GradcliError, grad, hessian

torch = pytest.importorskip("torch")

X = [[0.5, -1.25, 2.0, 0.75], [1.5, 0.25, -0.5, -1.75], [-0.3, 1.1, 0.9, 0.4]]
G = np.random.default_rng(13).uniform(-1.5, 1.5, (64,))  # upstream gradients, cut to shape
INF = math.inf

SPELLINGS = [
    ("torch.amax(x, 1)", lambda x: torch.amax(x, 1)),
    ("x.amax(dim=(0, 1))", lambda x: x.amax(dim=(0, 1))),
    ("torch.amin(x, -1, keepdim=True)", lambda x: torch.amin(x, -1, keepdim=True)),
    ("np.max(x, axis=1)", lambda x: torch.amax(x, 1)),
    ("np.amax(x, axis=0, keepdims=True)", lambda x: torch.amax(x, 0, keepdim=True)),
    ("np.min(x)", lambda x: torch.amin(x)),
    ("x.max()", lambda x: x.max()),
    ("torch.min(x)", lambda x: torch.min(x)),
    ("torch.prod(x)", lambda x: torch.prod(x)),
    ("x.prod(1)", lambda x: x.prod(1)),
    ("np.prod(x, axis=0, keepdims=True)", lambda x: torch.prod(x, 0, keepdim=True)),
    ("torch.logsumexp(x, 1)", lambda x: torch.logsumexp(x, 1)),
    ("x.logsumexp(0, keepdim=True)", lambda x: x.logsumexp(0, keepdim=True)),
    ("torch.var(x)", lambda x: torch.var(x)),
    ("x.var(1)", lambda x: x.var(1)),
    ("torch.var(x, 0, keepdim=True, correction=0)", lambda x: torch.var(x, 0, keepdim=True, correction=0)),
    ("x.var(unbiased=False)", lambda x: x.var(unbiased=False)),
    ("torch.var(x, 1, False, True)", lambda x: torch.var(x, 1, False, True)),
    ("np.var(x)", lambda x: torch.var(x, correction=0)),
    ("np.var(x, axis=1, ddof=1)", lambda x: torch.var(x, 1, correction=1)),
    ("torch.std(x, dim=(0, 1))", lambda x: torch.std(x, dim=(0, 1))),
    ("x.std(0, correction=2)", lambda x: x.std(0, correction=2)),
    ("np.std(x, axis=0, keepdims=True)", lambda x: torch.std(x, 0, keepdim=True, correction=0)),
    ("x.norm()", lambda x: x.norm()),
    ("torch.norm(x, 1)", lambda x: torch.norm(x, 1)),
    ("torch.norm(x, p=inf, dim=1)", lambda x: torch.norm(x, p=INF, dim=1)),
    ("torch.norm(x, -inf)", lambda x: torch.norm(x, -INF)),
    ("x.norm(dim=0, keepdim=True)", lambda x: x.norm(dim=0, keepdim=True)),
    ("torch.linalg.norm(x)", lambda x: torch.linalg.norm(x)),
    # an empty list of dims is every dim (SumBackward1 / MeanBackward1, the dim overload)
    ("x.sum(dim=()) * x.mean(dim=[])", lambda x: x.sum(dim=()) * x.mean(dim=[])),
    ("x.sum(dim=(), keepdim=True)", lambda x: x.sum(dim=(), keepdim=True)),
    ("torch.linalg.norm(x, dim=1)", lambda x: torch.linalg.norm(x, dim=1)),
    ("torch.linalg.norm(x, 3, dim=0, keepdim=True)", lambda x: torch.linalg.norm(x, 3, dim=0, keepdim=True)),
    ("torch.linalg.vector_norm(x, ord=1)", lambda x: torch.linalg.vector_norm(x, ord=1)),
    ("torch.linalg.vector_norm(x, inf, dim=(0, 1))", lambda x: torch.linalg.vector_norm(x, INF, dim=(0, 1))),
    ("torch.norm(x, 3, 1)", lambda x: torch.norm(x, 3, 1)),
    ("x.norm(p=0.5)", lambda x: x.norm(p=0.5)),
    ("torch.cumsum(x, 1)", lambda x: torch.cumsum(x, 1)),
    ("x.cumsum(dim=0)", lambda x: x.cumsum(dim=0)),
    ("np.cumsum(x, axis=-1)", lambda x: torch.cumsum(x, -1)),
]


def _torch_run(function, value, dtype):
    leaf = torch.tensor(value, dtype=dtype, requires_grad=True)
    out = function(leaf)
    upstream = torch.tensor(G[: out.numel()].reshape(tuple(out.shape)), dtype=dtype)
    out.backward(upstream)
    return out, leaf.grad, upstream.double().numpy()


@pytest.mark.parametrize(("program", "function"), SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_float64_values_grads_and_grad_fn_equal_torch(program, function):
    out, want, upstream = _torch_run(function, X, torch.float64)
    result = grad(program, at={"x": X}, gradient=upstream)
    assert close(result.value, out.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert close(result.grads["x"], want.numpy(), rtol=1e-12, atol=1e-14)
    assert result.output.grad_fn == out.grad_fn.name()


@pytest.mark.parametrize(("program", "function"), SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_float32_values_and_grads_equal_torch_to_its_precision(program, function):
    out, want, upstream = _torch_run(function, X, torch.float32)
    result = grad(program, at={"x": X}, gradient=upstream, dtype="float32")
    assert result.grads["x"].dtype == np.float32
    assert close(result.value, out.detach().numpy(), rtol=2e-6, atol=1e-6, normwise=True)
    assert close(result.grads["x"], want.numpy(), rtol=2e-6, atol=1e-6, normwise=True)


EDGES = [
    # ties share the gradient evenly, per reduced slice and over the whole tensor
    ("torch.amax(x, 1)", lambda x: torch.amax(x, 1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    ("x.amin(dim=(0, 1))", lambda x: x.amin(dim=(0, 1)), [[1.0, -3.0, 3.0], [-3.0, 2.0, -3.0]]),
    ("x.max()", lambda x: x.max(), [[1.0, 3.0, 3.0], [2.0, 3.0, 0.0]]),
    ("x.min()", lambda x: x.min(), [[1.0, -3.0], [-3.0, 0.0]]),
    ("x.max()", lambda x: x.max(), [1.0, math.nan, 2.0, math.nan]),
    ("torch.amax(x, 0)", lambda x: torch.amax(x, 0), [[1.0, math.nan], [2.0, 0.5]]),
    # prod: one zero (exclusive product), two zeros (no gradient), zeros per slice
    ("torch.prod(x)", lambda x: torch.prod(x), [[0.0, 1.5, -2.0], [0.5, 1.25, -0.75]]),
    ("torch.prod(x)", lambda x: torch.prod(x), [[0.0, 1.5, 0.0], [0.5, 1.25, -0.75]]),
    ("x.prod(1)", lambda x: x.prod(1), [[0.0, 1.5, 0.0], [0.5, 0.0, -0.75], [1.0, 2.0, 3.0]]),
    ("x.prod(0, keepdim=True)", lambda x: x.prod(0, keepdim=True), [[0.0, 1.5], [2.0, 0.0]]),
    # logsumexp: huge and infinite entries
    ("torch.logsumexp(x, 0)", lambda x: torch.logsumexp(x, 0), [1000.0, 1001.0, -5.0]),
    ("torch.logsumexp(x, 0)", lambda x: torch.logsumexp(x, 0), [-INF, -INF]),
    ("torch.logsumexp(x, 1)", lambda x: torch.logsumexp(x, 1), [[INF, 1.0], [2.0, 3.0]]),
    # var/std: too few elements for the correction, a constant slice, dim=()
    ("torch.var(x)", lambda x: torch.var(x), [2.0]),
    ("torch.var(x)", lambda x: torch.var(x), 2.0),
    ("x.std(1)", lambda x: x.std(1), [[1.0, 1.0, 1.0], [0.5, -1.0, 2.0]]),
    ("torch.var(x, dim=())", lambda x: torch.var(x, dim=()), [[1.0, 2.0], [4.0, -1.0]]),
    ("x.var(1, correction=3)", lambda x: x.var(1, correction=3), [[1.0, 2.0, 2.0], [0.5, -1.0, 2.0]]),
    # norm at zero, with |x| ties, and p=0 (torch sends no gradient through it)
    ("x.norm()", lambda x: x.norm(), [0.0, 0.0, 0.0]),
    ("x.norm(dim=1)", lambda x: x.norm(dim=1), [[0.0, 0.0], [3.0, -4.0]]),
    ("torch.norm(x, inf)", lambda x: torch.norm(x, INF), [1.5, -1.5, 0.5]),
    ("torch.norm(x, 1.5)", lambda x: torch.norm(x, 1.5), [0.0, 0.0, 0.0]),
    ("torch.norm(x, 0.5)", lambda x: torch.norm(x, 0.5), [0.0, 1.0, -4.0]),
    ("torch.norm(x, 0) + x.sum()", lambda x: torch.norm(x, 0) + x.sum(), [0.0, 1.0, -4.0]),
    ("x.cumsum(0)", lambda x: x.cumsum(0), 2.0),
]


@pytest.mark.parametrize(("program", "function", "value"), EDGES, ids=[e[0] for e in EDGES])
def test_ties_zeros_and_degenerate_cases_follow_torch(program, function, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when var's degrees of freedom are <= 0
        out, want, upstream = _torch_run(function, value, torch.float64)
    result = grad(program, at={"x": value}, gradient=upstream)
    assert close(result.value, out.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert close(result.grads["x"], want.numpy(), rtol=1e-12, atol=1e-14), (result.grads["x"], want)
    assert result.output.grad_fn == out.grad_fn.name()


def test_numpy_var_is_one_var_node_with_correction_ddof():
    result = grad("np.var(x, axis=1, ddof=0).sum()", at={"x": X})
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = torch.var(leaf, 1, correction=0).sum()
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == [
        out.grad_fn.next_functions[0][0].name(),
        out.grad_fn.name(),
    ]
    out.backward()
    assert close(result.grads["x"], leaf.grad.numpy(), rtol=1e-12)


def test_amax_in_a_chain_records_torchs_nodes():
    program = "y = torch.exp(x).amax(1); z = y.logsumexp(0); z * x.prod()"
    result = grad(program, at={"x": X})
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = torch.exp(leaf).amax(1)
    out = y.logsumexp(0) * leaf.prod()
    out.backward()
    names, stack = [], [out.grad_fn]
    while stack:  # torch's graph, depth first, as names
        node = stack.pop()
        if node is not None and "AccumulateGrad" not in node.name():
            names.append(node.name())
            stack.extend(f for f, _ in node.next_functions)
    assert sorted(n.grad_fn for n in result.nodes if n.grad_fn) == sorted(names)
    assert close(result.grads["x"], leaf.grad.numpy(), rtol=1e-12)


ERRORS = [
    ("torch.amax(x, 2)", lambda x: torch.amax(x, 2)),
    ("torch.amax(x, (1, -1))", lambda x: torch.amax(x, (1, -1))),
    ("x.prod(-3)", lambda x: x.prod(-3)),
    ("torch.logsumexp(x)", lambda x: torch.logsumexp(x)),
    ("torch.cumsum(x)", lambda x: torch.cumsum(x)),
    ("x.cumsum(5)", lambda x: x.cumsum(5)),
    ("x.var(dim=(0, 2))", lambda x: x.var(dim=(0, 2))),
    ("x.norm(dim=4)", lambda x: x.norm(dim=4)),
]


@pytest.mark.parametrize(("program", "function"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_carry_torchs_words(program, function):
    with pytest.raises((RuntimeError, IndexError, TypeError)) as theirs:
        function(torch.tensor(X, dtype=torch.float64, requires_grad=True))
    with pytest.raises(GradcliError) as ours:
        grad(program, at={"x": X})
    assert str(theirs.value).splitlines()[0] in str(ours.value)


def test_empty_reductions_fail_as_torch_does():
    with pytest.raises(RuntimeError) as theirs:
        torch.amax(torch.zeros(0, 3))
    with pytest.raises(GradcliError) as ours:
        grad("torch.amax(x)", at={"x": np.zeros((0, 3))})
    assert str(theirs.value) in str(ours.value)


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        ("torch.max(x, 1)", "returns (values, indices)"),
        ("x.min(dim=0)", "take .values or .indices"),
        ("torch.var(x, unbiased=True, correction=0)", "invalid combination of arguments"),
        ("torch.prod(x, keepdim=True)", "invalid combination of arguments"),
        ("np.var(x, ddof=True)", "ddof must be a number literal"),
        ("torch.linalg.norm(x, ord=2)", "gradcli has no matrix norms"),
    ],
)
def test_what_gradcli_refuses_is_a_clear_error(program, fragment):
    with pytest.raises(GradcliError) as raised:
        grad(program, at={"x": X})
    assert fragment in str(raised.value)


V = [0.7, -1.3, 0.4, 1.9]
HESSIANS = [
    ("sum(x**2) * prod(x)", lambda x: torch.sum(x**2) * torch.prod(x), V),
    ("sum(x**2) * prod(x)", lambda x: torch.sum(x**2) * torch.prod(x), [0.7, 0.0, 0.4]),
    ("logsumexp(x, 0)", lambda x: torch.logsumexp(x, 0), V),
    ("logsumexp(A, 1).sum()", lambda a: torch.logsumexp(a, 1).sum(), [[0.3, -1.0, 2.0], [1.5, 0.5, -0.2]]),
    ("var(x)", lambda x: torch.var(x), V),
    ("std(x) * x.sum()", lambda x: torch.std(x) * x.sum(), V),
    (
        "np.std(A, axis=1).sum()",
        lambda a: torch.std(a, 1, correction=0).sum(),
        [[0.3, -1.0, 2.0], [1.5, 0.5, -0.2]],
    ),
    ("norm(x)", lambda x: torch.norm(x), V),
    ("norm(x, 3) + norm(x, 1.5)", lambda x: torch.norm(x, 3) + torch.norm(x, 1.5), V),
    ("amax(x * x, 0) + x.max() * x.min()", lambda x: torch.amax(x * x, 0) + x.max() * x.min(), V),
    ("sum(cumsum(x, 0) ** 3)", lambda x: torch.sum(torch.cumsum(x, 0) ** 3), V),
    ("prod(A, 1).sum() ** 2", lambda a: torch.prod(a, 1).sum() ** 2, [[0.3, -1.0, 2.0], [1.5, 0.5, -0.2]]),
]


@pytest.mark.parametrize(("program", "function", "value"), HESSIANS, ids=[h[0] for h in HESSIANS])
def test_hessian_equals_torch_functional_hessian(program, function, value):
    name = "A" if "A" in program else "x"
    got = hessian(program, at={name: value}).hessian[name][name]
    want = torch.autograd.functional.hessian(function, torch.tensor(value, dtype=torch.float64))
    assert close(got, want.numpy(), rtol=1e-10, atol=1e-12), (got, want)


def test_order_two_of_a_scalar_leaf_equals_create_graph():
    c = [0.5, -1.0, 2.0]
    result = grad(
        "logsumexp(x * c, 0) + prod(x * c) + norm(x * c, 3)", at={"x": 0.7}, const={"c": c}, order=3
    )
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    ct = torch.tensor(c, dtype=torch.float64)
    current = torch.logsumexp(x * ct, 0) + torch.prod(x * ct) + torch.norm(x * ct, 3)
    want = []
    for _ in range(3):
        (current,) = torch.autograd.grad(current, x, create_graph=True)
        want.append(float(current.detach()))
    assert close(result.derivatives["x"], want, rtol=1e-10)


def test_cli_grad_and_hessian(run):
    plain = run(
        "grad", "np.var(x, axis=1).sum() + x.norm()", "--at", f"x={json.dumps(X)}", "--format", "plain"
    )
    assert plain.exit_code == 0, plain.stderr
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    (torch.var(leaf, 1, correction=0).sum() + leaf.norm()).backward()
    name, text = plain.stdout.strip().split("\t")
    assert name == "x" and close(json.loads(text), leaf.grad.numpy(), rtol=1e-12)

    doc = run("hessian", "logsumexp(x, 0)", "--at", "x=[0.5, -1.0, 2.0]", "--format", "json")
    assert doc.exit_code == 0, doc.stderr
    want = torch.autograd.functional.hessian(
        lambda t: torch.logsumexp(t, 0), torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    )
    assert close(json.loads(doc.stdout)["hessian"]["x"]["x"], want.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "program",
    [
        "torch.amax(x, (0, 1)) + x.max()",
        "x.prod(1).sum()",
        "y = x.logsumexp(0); y.sum()",
        "np.var(x, axis=0, ddof=1).sum() + x.std()",
        "torch.norm(x, inf, 1).sum() + x.norm(p=3)",
        "x.cumsum(1).sum()",
    ],
)
def test_table_and_symbolic_output_work(run, program):
    result = run("grad", program, "--at", f"x={json.dumps(X)}")
    assert result.exit_code == 0, result.stderr
    assert "x" in result.stdout and "Backward" in result.stdout
    doc = json.loads(run("grad", program, "--at", f"x={json.dumps(X)}", "--format", "json").stdout)
    assert all(node["symbolic"] for node in doc["nodes"] if node["grad_fn"])


def test_the_node_table_steps_give_the_numeric_adjoint(monkeypatch):
    """Steps of prod, logsumexp, norm and cumsum, evaluated with torch (formula_eval)."""
    import test_local_steps

    c = np.random.default_rng(3).uniform(-1, 1, (3, 4)).tolist()
    program = "p = x.prod(1); l = x.logsumexp(0); n = x.norm(dim=1); s = x.cumsum(1); sum(p) + sum(l) + sum(n) + sum(s * c)"
    assert test_local_steps.check_steps(program, {"x": X}, {"c": c}) >= 6
    assert test_local_steps.check_steps("sum(x.norm(p=1, dim=0, keepdim=True) * x)", {"x": X}) >= 3


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("x.max(1).values.sum()", lambda x: x.max(1).values.sum()),
        (
            "(x - x.max(1, keepdim=True).values).exp().sum()",
            lambda x: (x - x.max(1, keepdim=True).values).exp().sum(),
        ),
        ("torch.min(x, 0)[0].sum()", lambda x: torch.min(x, 0)[0].sum()),
        ("v, i = x.max(dim=0); (v * i).sum()", lambda x: (lambda v, i: (v * i).sum())(*x.max(dim=0))),
        ("x.max(1).indices.sum() + x.sum()", lambda x: x.max(1).indices.sum() + x.sum()),
        (
            "(x * torch.argmax(x, 1, keepdim=True)).sum()",
            lambda x: (x * torch.argmax(x, 1, keepdim=True)).sum(),
        ),
        ("(x * torch.argmin(x)).sum()", lambda x: (x * torch.argmin(x)).sum()),
    ],
)
def test_max_and_min_over_a_dim_give_values_and_indices_as_torch(program, function):
    result = grad(program, at={"x": X})
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = function(leaf)
    out.backward()
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-13)
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-13)
    names = [n.grad_fn for n in result.nodes if n.grad_fn]
    assert out.grad_fn.name() == names[-1]
