"""grad(..., nodes=False) on big elementwise programs runs in blocks: same numbers, less memory.

The blocked evaluator must give what the node-by-node evaluator gives (bit for bit for
elementwise grads; sums to rounding), fall back whenever it cannot, and raise PyTorch's
errors in PyTorch's order. Random programs run with tiny blocks, so every program of
a few elements crosses block boundaries and ends on a partial block.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import examples, programs, upstream_gradient

from gradcli import blocked, grad, pool
from gradcli.api import _prepare
from gradcli.errors import AutogradError

torch = pytest.importorskip("torch")

BIG = blocked.MIN_ELEMENTS + 1234  # a partial last block


@pytest.fixture
def spy(monkeypatch):
    """Counts the blocked runs, so a test can tell which evaluator answered."""
    calls = []
    real = blocked.run

    def run(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(blocked, "run", run)
    return calls


@pytest.fixture
def tiny_blocks(monkeypatch):
    monkeypatch.setattr(blocked, "BLOCK", 2)
    monkeypatch.setattr(blocked, "MIN_ELEMENTS", 3)


def plan_for(source: str, **shapes) -> blocked.BlockPlan | None:
    at = {name: np.zeros(shape) for name, shape in shapes.items()}
    return blocked.plan(_prepare(source, at, None, "float64").graph)


def test_the_benchmark_program_agrees_with_torch(spy):
    x = np.random.default_rng(0).random(BIG)
    r = grad("sum(sin(x)*exp(x) + x**3)", at={"x": x}, symbolic=False, nodes=False)
    t = torch.from_numpy(x).requires_grad_(True)
    out = (torch.sin(t) * torch.exp(t) + t**3).sum()
    out.backward()
    assert len(spy) == 1
    np.testing.assert_allclose(r.grads["x"], t.grad.numpy(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(r.value, out.item(), rtol=1e-12)
    assert r.grads["x"].shape == x.shape


def test_grads_equal_the_node_by_node_evaluator_bit_for_bit(spy):
    rng = np.random.default_rng(1)
    at = {"x": rng.random((300, BIG // 300 + 1)), "a": 0.7}
    const = {"c": rng.random((300, BIG // 300 + 1))}
    source = "y = a*sin(x) - c/(x + 2); z = tanh(y)**2 * exp(-x); mean(z + a**2)"
    lean = grad(source, at=at, const=const, symbolic=False, nodes=False)
    full = grad(source, at=at, const=const, symbolic=False)
    assert len(spy) == 1
    np.testing.assert_array_equal(lean.grads["x"], full.grads["x"])
    np.testing.assert_allclose(lean.grads["a"], full.grads["a"], rtol=1e-12)
    np.testing.assert_allclose(lean.value, full.value, rtol=1e-12)


def test_an_elementwise_output_takes_its_gradient_block_by_block(spy):
    x = np.linspace(-2, 2, BIG)
    gradient = np.cos(np.arange(BIG))
    lean = grad("x*sigmoid(x)", at={"x": x}, gradient=gradient, symbolic=False, nodes=False)
    full = grad("x*sigmoid(x)", at={"x": x}, gradient=gradient, symbolic=False)
    assert len(spy) == 1
    np.testing.assert_array_equal(lean.value, full.value)
    np.testing.assert_array_equal(lean.grads["x"], full.grads["x"])


def test_results_do_not_depend_on_the_number_of_threads(monkeypatch):
    x = np.random.default_rng(2).normal(size=BIG)
    source = "sum(b*relu(x) + abs(x)**1.5)"
    results = []
    for count in (1, 3):
        monkeypatch.setattr(pool, "threads", lambda limit=pool.MAX_THREADS, count=count: min(count, limit))
        monkeypatch.setattr(blocked, "threads", lambda count=count: count, raising=False)  # until blocked uses pool
        results.append(grad(source, at={"x": x, "b": 2.0}, symbolic=False, nodes=False))
    np.testing.assert_array_equal(results[0].grads["x"], results[1].grads["x"])
    assert results[0].grads["b"] == results[1].grads["b"]
    assert results[0].value == results[1].value


def test_nodes_false_keeps_inputs_output_and_grads_only(spy):
    x = np.ones(BIG)
    r = grad("y = 2*x; sum(y**3)", at={"x": x}, nodes=False)
    assert [n.value is None for n in r.nodes] == [False, True, True, False]
    assert all(n.adjoint is None for n in r.nodes)
    assert r.grads["x"][0] == 24.0 and r.value == 8.0 * BIG
    assert r.grad_symbolic["x"] == "24*x**2"
    assert '"value": null' in r.to_json()


def test_small_and_non_elementwise_programs_run_node_by_node_with_nodes_false(spy):
    r = grad("sum(x @ x)", at={"x": [[1.0, 2.0], [3.0, 4.0]]}, nodes=False)
    assert spy == []
    np.testing.assert_array_equal(r.grads["x"], [[7.0, 11.0], [9.0, 13.0]])
    assert r.nodes[1].value is None


@pytest.mark.parametrize(
    ("source", "shapes", "eligible"),
    [
        ("sum(sin(x)*y)", {"x": (BIG,), "y": ()}, True),
        ("mean(x*x)", {"x": (2, BIG)}, True),
        ("x + 1", {"x": (BIG,)}, True),
        ("sum(x)", {"x": (BIG,)}, True),
        ("sum(sin(x))", {"x": (10,)}, False),  # too small to pay for blocks
        ("sum(x, 0)", {"x": (BIG,)}, False),  # a reduction over one dim
        ("sum(x).sin()", {"x": (BIG,)}, False),  # the reduction is not the output
        ("sum(x*y)", {"x": (BIG, 1), "y": (BIG, 2)}, False),  # broadcasting between tensors
        ("sum(x.T)", {"x": (BIG,)}, False),  # not elementwise
    ],
)
def test_which_programs_run_in_blocks(source, shapes, eligible):
    assert (plan_for(source, **shapes) is not None) == eligible


def test_a_nan_falls_back_so_the_warning_can_say_where_it_began(spy):
    x = np.linspace(0, 1, BIG)
    lean = grad("sum(log(x) * x)", at={"x": x}, symbolic=False, nodes=False)
    full = grad("sum(log(x) * x)", at={"x": x}, symbolic=False)
    assert len(spy) == 1  # tried, then handed over
    assert lean.warnings == full.warnings and lean.warnings
    np.testing.assert_array_equal(lean.grads["x"], full.grads["x"])


def test_torch_errors_and_their_order_are_unchanged(spy):
    x = np.ones(BIG)
    with pytest.raises(AutogradError, match="grad can be implicitly created only for scalar outputs"):
        grad("sin(x)", at={"x": x}, nodes=False)
    with pytest.raises(AutogradError, match="Mismatch in shape"):
        grad("sum(x)", at={"x": x}, gradient=[1.0, 1.0], nodes=False)
    with pytest.raises(AutogradError, match="element 0 of tensors does not require grad"):
        grad("sum(sin(c))", const={"c": x}, nodes=False)


def test_a_leaf_the_output_does_not_use_gets_no_grad(spy):
    x = np.ones(BIG)
    r = grad("u = y*2; sum(x*3)", at={"x": x, "y": 1.0}, nodes=False)
    assert len(spy) == 1
    assert r.grads["y"] is None
    assert r.grads["x"][-1] == 3.0


def test_float32_keeps_its_dtype(spy):
    x = np.linspace(0, 1, BIG, dtype=np.float32)
    r = grad("sum(exp(x) * a)", at={"x": x, "a": 2.0}, dtype="float32", nodes=False)
    assert len(spy) == 1
    assert r.grads["x"].dtype == np.float32 and r.grads["a"].dtype == np.float32
    assert r.value.dtype == np.float32


@st.composite
def blockable_programs(draw) -> tuple[str, dict, dict, np.ndarray | None, bool]:
    """Elementwise programs over scalars and one tensor shape; a tensor output is often reduced."""
    program = draw(programs(shapes=((), (5,)), elementwise_only=True))
    source, gradient = program.source, None
    reduction = draw(st.sampled_from([None, "sum", "mean"])) if not program.scalar_output else None
    if reduction:
        *before, last = re.split(r"; |\n", source)
        last = last if last.startswith("out = ") else f"out = {last}"
        source = "; ".join([*before, last, f"{reduction}(out)"])
    elif not program.scalar_output:
        gradient = draw(upstream_gradient(program.output_shape))
    return source, program.at, program.const, gradient, not program.scalar_output


@settings(
    max_examples=examples(0.1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=blockable_programs())
def test_random_programs_agree_with_node_by_node(tiny_blocks, spy, case):
    source, at, const, gradient, tensor_output = case
    kwargs = dict(at=at, const=const, gradient=gradient, symbolic=False)
    full = grad(source, **kwargs)
    used = len(spy)
    lean = grad(source, **kwargs, nodes=False)
    if tensor_output and full.output.kind == "op":
        assert len(spy) == used + 1, source  # elementwise over (5,) and scalars: blockable
    np.testing.assert_allclose(lean.value, full.value, rtol=1e-12, atol=1e-12)
    for name, expected in full.grads.items():
        if expected is None:
            assert lean.grads[name] is None
        else:
            np.testing.assert_allclose(lean.grads[name], expected, rtol=1e-12, atol=1e-12)
            assert lean.grads[name].shape == expected.shape


def test_the_cli_runs_plain_output_in_blocks(run, spy):
    at = ["--at", f"x=linspace(-1, 1, {BIG})", "--at", "a=0.5"]
    plain = run("grad", "sum(a*sin(x)**2)", *at, "--format", "plain")
    assert plain.exit_code == 0, plain.stderr
    assert len(spy) == 1
    table = run("grad", "sum(a*sin(x)**2)", *at, "--format", "json")
    grads = {name: leaf["grad"] for name, leaf in json.loads(table.stdout)["leaves"].items()}
    lines = dict(line.split("\t") for line in plain.stdout.splitlines())
    assert json.loads(lines["x"]) == grads["x"]
    assert json.loads(lines["a"]) == pytest.approx(grads["a"], rel=1e-12)


def test_sums_of_infinities_stay_silent(spy):
    # Block sums of +inf and -inf make nan; NumPy's RuntimeWarning must not reach stderr.
    x = np.linspace(-1000, 1000, BIG)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pytest would otherwise swallow the warning
        r = grad("sum(sinh(x))", at={"x": x}, symbolic=False, nodes=False)
        s = grad("sum(a*x)", at={"x": np.full(BIG, 1e304), "a": 1e10}, symbolic=False, nodes=False)
    assert len(spy) == 2
    assert np.isnan(r.value) and r.warnings
    assert np.isinf(s.grads["a"]) and s.warnings
