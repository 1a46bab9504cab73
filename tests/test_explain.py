"""`gradcli grad --explain`: the chain rule narrated; golden files and the numbers' consistency."""

from __future__ import annotations

import re

import numpy as np
import pytest
from golden import assert_golden
from seed_programs import CUBE, LINEAR, MEAN
from test_table import LOGISTIC, MLP, SOFTMAX_CE

from gradcli import grad
from gradcli.render.explain import _pass_adjoints, backward_steps, render

# seed 000: the elements of `gradient` weight the output's elements (whole / second column)
COLUMNS = (
    "y = 2*x; z = y**3",
    "--at",
    "x=[[2.5212,1.2730],[0.0366,0.0750]]",
    "--retain-graph",
    "--zero-grad",
    "--gradient",
    "[[1,1],[1,1]]",
    "--gradient",
    "[[0,1],[0,1]]",
)
GOLDEN = {
    "cube": CUBE,
    "cube_symbolic": ("(2*x)**3",),
    "cube_gradient": (*CUBE, "--gradient", "0.1"),
    "mean": MEAN,
    "linear": LINEAR,
    "passes": ("x**3", "--at", "x=3", "--passes", "3", "--retain-graph"),
    "columns": COLUMNS,
    "shared": ("x*x + sin(x)", "--at", "x=1"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_explanations_are_pinned(run, name):
    result = run("grad", *GOLDEN[name], "--explain")
    assert result.exit_code == 0, result.stderr
    assert "\x1b[" not in result.stdout
    assert_golden(f"explain_{name}.txt", result.stdout)


TEACHING = {"network": MLP, "logistic": LOGISTIC, "softmax_ce": SOFTMAX_CE}


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("name", sorted(TEACHING))
def test_teaching_programs_are_explained_within_the_width(run, name, width):
    result = run("grad", *TEACHING[name], "--explain", "--width", str(width))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= width, max(lines, key=len)
    assert not re.search(r"Piecewise|Heaviside|Max\(|sum_over|matmul\(|\bt\(", result.stdout)
    assert_golden(f"explain_{name}_{width}.txt", result.stdout)


def test_cube_at_two_reads_as_the_issue_asks(run):
    out = run("grad", *CUBE, "--explain").stdout
    assert "dt2/dt1 = 3*t1**2 = 48" in out
    assert "dt1/dx = 2\n" in out
    assert "dt2/dx = dt2/dt1 * dt1/dx = 24*x**2 = 48 * 2 = 96" in out
    assert "x.grad = dt2/dx = 24*x**2 = 96" in out
    assert "Graph, in topological order" not in out  # the table is replaced by the story


def test_upstream_gradient_scales_the_first_step(run):
    out = run("grad", *CUBE, "--gradient", "0.1", "--explain").stdout
    assert "v = 0.1" in out
    assert "v*dt2/dt1 = v * dt2/dt1 = 0.1 * 48 = 4.8" in out
    assert "v*dt2/dx = v*dt2/dt1 * dt1/dx = 4.8 * 2 = 9.6" in out


def test_passes_accumulate_and_zero_grad_resets(run):
    out = run("grad", "x**3", "--at", "x=3", "--passes", "3", "--retain-graph", "--explain").stdout
    assert "after pass 2: x.grad = 27 + 27 = 54" in out
    assert "after pass 3: x.grad = 54 + 27 = 81" in out
    zeroed = run("grad", "x**3", "--at", "x=3", "--passes", "2", "--retain-graph", "--zero-grad", "--explain")
    assert "after pass 2: x.grad = 0 + 27 = 27" in zeroed.stdout
    assert "--zero-grad" in zeroed.stdout


def test_a_node_used_twice_adds_its_paths(run):
    out = run("grad", "x*x + sin(x)", "--at", "x=1", "--explain").stdout
    assert "x is used 3 times" in out
    assert "dt3/dx = x + x + cos(x) = 1 + 1 + 0.540302 = 2.5403" in out  # terms and values in one order


def test_second_pass_without_retain_graph_still_fails(run):
    result = run("grad", "x**3", "--at", "x=3", "--passes", "2", "--explain")
    assert result.exit_code == 1
    assert "Trying to backward through the graph a second time" in result.stderr


def test_explain_with_json_is_a_usage_error(run):
    # Prose in front of JSON would break every pipeline that reads stdout as JSON.
    result = run("grad", *CUBE, "--explain", "--format", "json")
    assert result.exit_code == 2
    assert result.stdout == "" and "--explain prints prose" in result.stderr


@pytest.mark.parametrize("name", ["cube", "mean", "linear", "passes", "columns", "cube_symbolic"])
def test_seed_explanations_fit_80_columns(run, name):
    out = run("grad", *GOLDEN[name], "--explain").stdout
    assert max(len(line) for line in out.splitlines()) <= 80


def test_explain_is_deterministic(run):
    assert run("grad", *LINEAR, "--explain").stdout == run("grad", *LINEAR, "--explain").stdout


PROGRAMS = [
    ("(2*x)**3", {"x": 2.0}, {}, None),
    ("x*x + sin(x)", {"x": 0.7}, {}, None),
    (
        "y = matmul(X, W) + b; loss = sum(y**2)",
        {"W": [[1, 2], [3, 4]], "b": [0.5, 1]},
        {"X": [[1, 0.5], [0.2, 0.8]]},
        None,
    ),
    (
        "a = x / y; b = a.exp() * log(y) - x**y; b.sum(dim=0).mean()",
        {"x": [[1, 2], [3, 4]], "y": [[2, 3], [4, 5]]},
        {},
        None,
    ),
    ("relu(x - 1) @ W.T + tanh(x).sum()", {"x": [0.5, 2.0], "W": [[1, 2], [3, 4]]}, {}, [1.0, -2.0]),
    ("sqrt(x) * abs(x - 2) / (1 + x**2)", {"x": [0.0, 2.0, 3.0]}, {}, [1.0, 1.0, 1.0]),
]


@pytest.mark.parametrize(("expression", "at", "const", "gradient"), PROGRAMS)
def test_each_steps_contributions_add_up_to_the_engines_adjoints(expression, at, const, gradient):
    """The numbers the story tells are the engine's: the paths into a node sum to its adjoint."""
    result = grad(expression, at=at, const=const, gradient=gradient, edges=True)
    graph = result.graph
    adjoints, edges = _pass_adjoints(result.passes[-1])
    steps = backward_steps(
        graph, [np.asarray(n.value) for n in result.nodes], adjoints, True, gradient is None, edges
    )
    totals: dict[int, np.ndarray] = {}
    for step in steps:
        totals[step.operand] = totals.get(step.operand, 0) + step.contribution
    assert totals, "no steps"
    for index, total in totals.items():
        np.testing.assert_allclose(total, result.nodes[index].adjoint, rtol=1e-12, atol=1e-12)
    for leaf in result.leaves:
        np.testing.assert_allclose(totals[result.nodes.index(leaf)], result.grads[leaf.name])


@pytest.mark.parametrize(("expression", "at", "const", "gradient"), PROGRAMS)
def test_render_mentions_every_leaf_and_op(expression, at, const, gradient):
    result = grad(expression, at=at, const=const, gradient=gradient, edges=True)
    text = render(result)
    for node in result.nodes:
        if node.kind == "op" and node.requires_grad:
            assert f"[{node.grad_fn}]" in text
    for leaf in result.leaves:
        assert f"{leaf.name}.grad" in text


def test_no_symbolic_still_explains_the_numbers(run):
    result = run("grad", *CUBE, "--explain", "--no-symbolic")
    assert result.exit_code == 0, result.stderr
    assert "dt2/dx = dt2/dt1 * dt1/dx = 48 * 2 = 96" in result.stdout
    assert "**" not in result.stdout.split("Backward pass")[1]


def test_order_n_explains_the_higher_derivatives(run):
    result = run("grad", "sin(x)*y", "--at", "x=0.5", "--at", "y=2", "--order", "3", "--explain")
    assert result.exit_code == 0, result.stderr
    assert "x.grad = dt2/dx = y*cos(x) = 1.75517" in result.stdout
    assert "create_graph=True" in result.stdout
    assert "d2t2/dx2 = -0.958851" in result.stdout
    assert "d3t2/dx3 = -y*cos(x) = -1.75517" in result.stdout


def test_explain_without_symbolic_keeps_the_numbers_of_each_op(run):
    out = run("grad", *CUBE, "--explain", "--no-symbolic").stdout
    assert "t2 = pow(t1, 3)" in out and "t1 = mul(2, x)" in out
