"""grad(..., nodes=True) on big elementwise programs runs in blocks too, keeping every node.

The result must be the node-by-node evaluator's, bit for bit: the output (its sum in
PyTorch's order), every grad, and every node's value and adjoint, with the same dtypes and
shapes. An adjoint that is one number broadcast over the block (a sum's) is kept as a
read-only broadcast view, as node by node it often is: the benchmark's adjoints take no
memory there either. Graphs whose blocks
would have to split a sum (a scalar node receiving a gradient) run node by node.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import examples
from test_blocked import BIG, blockable_programs, node_by_node

from gradcli import blocked, grad

torch = pytest.importorskip("torch")


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = blocked.run

    def run(*args, **kwargs):
        calls.append(kwargs.get("keep", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(blocked, "run", run)
    return calls


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def broadcast(a) -> bool:
    return a is not None and np.ndim(a) > 0 and 0 in np.asarray(a).strides


def assert_same_result(ours, reference) -> None:
    assert same(ours.value, reference.value)
    assert ours.grads.keys() == reference.grads.keys()
    for name, expected in reference.grads.items():
        assert same(ours.grads[name], expected), name
    assert len(ours.nodes) == len(reference.nodes)
    for node, expected in zip(ours.nodes, reference.nodes, strict=True):
        assert same(node.value, expected.value), node.name
        assert same(node.adjoint, expected.adjoint), node.name
    assert ours.warnings == reference.warnings


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_benchmark_program_keeps_node_by_node_bits(spy, dtype):
    x = np.random.default_rng(0).random(BIG)
    source = "sum(sin(x)*exp(x) + x**3)"
    ours = grad(source, at={"x": x}, symbolic=False, dtype=dtype)
    assert spy == [True]
    reference = node_by_node(source, at={"x": x}, symbolic=False, dtype=dtype)
    assert_same_result(ours, reference)
    views = [node.name for node in reference.nodes if broadcast(node.adjoint)]
    assert [reference.nodes[i].op for i in (3, 4, 5)] == ["mul", "pow", "add"]
    assert views == ["t3", "t4", "t5"]  # the sum's adjoint, passed on by add
    assert [node.name for node in ours.nodes if broadcast(node.adjoint)] == views
    if dtype == "float64":
        t = torch.from_numpy(x).requires_grad_(True)
        (torch.sin(t) * torch.exp(t) + t**3).sum().backward()
        np.testing.assert_allclose(ours.grads["x"], t.grad.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("source", "at", "const", "gradient"),
    [
        ("mean(tanh(x)**2 * exp(-x))", {"x": (300, BIG // 300 + 1)}, {}, False),
        ("x*sigmoid(x)", {"x": (BIG,)}, {}, True),
        ("y = 2*x; sum(y**3 + c*y)", {"x": (BIG,)}, {"c": (BIG,)}, False),
        ("sum(x*b - b**2)", {"x": (BIG,)}, {"b": ()}, False),  # a scalar const: values only
        ("sum(x + 1)", {"x": (BIG,)}, {}, False),
        ("sum(u*v)", {"u": (BIG,), "v": (BIG,)}, {}, False),
    ],
)
def test_programs_keep_node_by_node_bits(spy, source, at, const, gradient):
    rng = np.random.default_rng(1)
    kwargs = dict(
        at={name: rng.random(shape) for name, shape in at.items()},
        const={name: rng.random(shape) for name, shape in const.items()},
        gradient=rng.standard_normal(at["x"]) if gradient else None,
        symbolic=False,
    )
    ours = grad(source, **kwargs)
    assert spy == [True]
    assert_same_result(ours, node_by_node(source, **kwargs))


def test_results_do_not_depend_on_the_number_of_threads(monkeypatch):
    x = np.random.default_rng(2).normal(size=BIG)
    results = []
    for count in (1, 3):
        monkeypatch.setattr(blocked, "threads", lambda count=count: count)
        results.append(grad("sum(relu(x)*2 + abs(x)**1.5)", at={"x": x}, symbolic=False))
    assert_same_result(results[0], results[1])


def test_a_scalar_receiving_a_gradient_runs_node_by_node(spy):
    x = np.random.default_rng(3).random(BIG)
    r = grad("sum(a*sin(x)**2)", at={"x": x, "a": 0.5}, symbolic=False)
    assert spy == []  # the adjoint of a is a sum over elements: blocks would change its bits
    assert_same_result(r, node_by_node("sum(a*sin(x)**2)", at={"x": x, "a": 0.5}, symbolic=False))


def test_a_nan_falls_back_and_the_warning_says_where_it_began(spy):
    x = np.linspace(0, 1, BIG)
    r = grad("sum(log(x) * x)", at={"x": x}, symbolic=False)
    assert spy == [True]  # tried, then handed over
    assert r.warnings
    assert_same_result(r, node_by_node("sum(log(x) * x)", at={"x": x}, symbolic=False))


@settings(
    max_examples=examples(0.1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=blockable_programs())
def test_random_programs_keep_node_by_node_bits(monkeypatch, case):
    monkeypatch.setattr(blocked, "BLOCK", 2)
    monkeypatch.setattr(blocked, "MIN_ELEMENTS", 3)
    source, at, const, gradient, _ = case
    kwargs = dict(at=at, const=const, gradient=gradient, symbolic=False)
    assert_same_result(grad(source, **kwargs), node_by_node(source, **kwargs))


@pytest.mark.parametrize("nodes", [True, False])
def test_a_nan_or_inf_in_an_elementwise_output_alone_falls_back_too(spy, nodes):
    # The blocks check their own slices of the output and of each grad; here only the
    # output (1/0 in one element of the last, partial block) is not finite.
    c = np.ones(BIG)
    c[-1] = 0.0
    kwargs = dict(at={"x": np.ones(BIG)}, const={"c": c}, gradient=np.ones(BIG), symbolic=False)
    r = grad("x*2 + 1/c", **kwargs, nodes=nodes)
    assert spy == [nodes]  # tried, then handed over
    reference = node_by_node("x*2 + 1/c", **kwargs, nodes=nodes)
    assert r.warnings == reference.warnings and r.warnings
    assert same(r.value, reference.value) and same(r.grads["x"], reference.grads["x"])
