"""jacobian, hessian, --order and check, against torch.autograd.functional and create_graph."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import strict_loads
from oracle import close, run_torch, torch

JACOBIAN_CASES = [
    ("x**2", {"x": [1.0, 2.0, 3.0]}, {}),
    ("matmul(W, x) + b", {"W": [[1.0, 2.0], [3.0, 4.0]], "x": [0.5, -1.0], "b": [0.1, 0.2]}, {}),
    ("y = sin(x) * c; sum(y, dim=1)", {"x": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]}, {"c": [1.0, 2.0, 3.0]}),
    ("(2*x)**3", {"x": 2.0}, {}),
    ("x @ x.T", {"x": [[1.0, 2.0], [3.0, 4.0]]}, {}),
]


def _torch_function(program: str, names: list[str], const: dict):
    """program as a function of tensors, for torch.autograd.functional."""
    from oracle import TORCH_OPS

    from gradcli.graph import fold
    from gradcli.ops import REGISTRY
    from gradcli.parse import parse_program
    from gradcli.program import Apply, Num, Ref

    parsed = parse_program(program)
    constants = {n: torch.tensor(v, dtype=torch.float64) for n, v in const.items()}

    def function(*tensors):
        env = {**constants, **dict(zip(names, tensors))}

        def evaluate(expr):
            if isinstance(expr, Num):
                return expr.value
            if isinstance(expr, Ref):
                return env[expr.name]
            assert isinstance(expr, Apply)
            args = [evaluate(a) for a in expr.args]
            attrs = dict(expr.attrs)
            if all(isinstance(a, float) for a in args):
                return fold(REGISTRY[expr.op], args, attrs)
            return TORCH_OPS[expr.op](*args, **attrs)

        out = None
        for statement in parsed.statements:
            out = evaluate(statement.expr)
            if statement.target:
                env[statement.target] = out
        return out

    return function


@pytest.mark.parametrize(("program", "at", "const"), JACOBIAN_CASES)
def test_jacobian_equals_torch_functional_jacobian(run_json, program, at, const):
    args = [f"--at={n}={v}" for n, v in at.items()] + [f"--const={n}={v}" for n, v in const.items()]
    doc = run_json("jacobian", program, *args)
    names = list(at)
    inputs = tuple(torch.tensor(at[n], dtype=torch.float64) for n in names)
    want = torch.autograd.functional.jacobian(_torch_function(program, names, const), inputs)
    for name, block in zip(names, want):
        assert close(doc["jacobian"][name], block.numpy()), name


HESSIAN_CASES = [
    ("x**3 * y", {"x": 2.0, "y": 3.0}),
    ("sum(sin(x) * exp(y) + x**3 * y + relu(x) * sqrt(y))", {"x": [0.3, -1.2], "y": [1.5, 0.7]}),
    (
        "y = matmul(W, v); mean(tanh(y)**2) + sum(v**2) / 3",
        {"W": [[1.0, -2.0], [0.5, 0.25]], "v": [0.3, 0.9]},
    ),
    ("sum(x**x) + log1p(sum(sigmoid(x)))", {"x": [0.5, 1.5, 2.5]}),
    # pow(0, y) twice: torch multiplies grad outside pow_backward_exponent's where, so nan
    ("x**y", {"x": 0.0, "y": 2.0}),
    ("sum(x**y)", {"x": [0.0, 2.0, 0.0], "y": [2.0, 0.5, 0.0]}),
]


@pytest.mark.parametrize(("program", "at"), HESSIAN_CASES)
def test_hessian_equals_torch_functional_hessian(run_json, program, at):
    doc = run_json("hessian", program, *[f"--at={n}={v}" for n, v in at.items()])
    names = list(at)
    inputs = tuple(torch.tensor(at[n], dtype=torch.float64) for n in names)
    want = torch.autograd.functional.hessian(_torch_function(program, names, {}), inputs)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            assert close(doc["hessian"][a][b], want[i][j].numpy()), (a, b)


def test_hessian_of_scalar_leaves_is_symmetric_with_symbolic_entries(run_json):
    doc = run_json("hessian", "x**3 * y + sin(x*y)", "--at", "x=0.7", "--at", "y=1.3")
    assert doc["hessian"]["x"]["y"] == pytest.approx(doc["hessian"]["y"]["x"], rel=1e-12)
    import sympy as sp

    x, y = sp.symbols("x y", real=True)
    parsed = sp.parse_expr(doc["hessian_symbolic"]["x"]["x"], local_dict={"x": x, "y": y})  # test-only
    assert sp.simplify(parsed - sp.diff(x**3 * y + sp.sin(x * y), x, 2)) == 0


def test_hessian_needs_a_scalar_output(run):
    result = run("hessian", "x**2", "--at", "x=[1,2]")
    assert result.exit_code == 1 and "grad can be implicitly created only for scalar outputs" in result.stderr


def _torch_orders(program: str, at: dict, leaf: str, order: int) -> list[float]:
    run = run_torch(program, at)
    current, found = run.output, []
    for _ in range(order):
        if not current.requires_grad:
            found.append(0.0)
            current = torch.zeros((), dtype=torch.float64)
            continue
        (current,) = torch.autograd.grad(current, run.leaves[leaf], create_graph=True, allow_unused=True)
        current = current if current is not None else torch.zeros((), dtype=torch.float64)
        found.append(float(current.detach()))
    return found


@pytest.mark.parametrize(
    ("program", "at"),
    [
        ("y = x**3 * sin(x); out = log(y)", {"x": 0.7}),
        ("exp(x) * cos(2*x) + x**5", {"x": 0.3}),
        ("sigmoid(x*y) + tanh(x)**2 * y", {"x": -0.4, "y": 1.7}),
        ("sqrt(x) / (1 + x**2)", {"x": 2.5}),
        ("x**2", {"x": 3.0}),  # the third and fourth derivatives are 0
    ],
)
def test_order_n_matches_create_graph(run_json, program, at):
    args = [f"--at={n}={v}" for n, v in at.items()]
    doc = run_json("grad", program, *args, "--order", "4")
    assert doc["order"] == 4
    for leaf in at:
        want = _torch_orders(program, at, leaf, 4)
        got = doc["leaves"][leaf]["derivatives"]
        assert close(got, want, rtol=1e-9, atol=1e-9), leaf
        assert doc["leaves"][leaf]["grad"] == got[-1]


def test_order_symbolic_is_the_nth_derivative(run_json):
    doc = run_json("grad", "sin(x)", "--at", "x=0.5", "--order", "3")
    assert doc["leaves"]["x"]["grad_symbolic"] == "-cos(x)"
    assert doc["leaves"]["x"]["grad"] == pytest.approx(-np.cos(0.5), rel=1e-15)


def _torch_repeated_sum_grads(program: str, at: dict, order: int) -> dict:
    """N-1 rounds of torch.autograd.grad(g.sum(), x, create_graph=True), then one more."""
    run = run_torch(program, at)
    leaves = list(run.leaves.values())
    gradients = torch.autograd.grad(run.output, leaves, create_graph=True, allow_unused=True)
    result = {}
    for name, leaf, g in zip(run.leaves, leaves, gradients):
        for _ in range(order - 1):
            g = torch.autograd.grad(g.sum(), leaf, create_graph=True, allow_unused=True)[0]
            if g is None or not g.requires_grad:
                g = torch.zeros_like(leaf) if g is None else g
                break
        result[name] = g.detach().numpy()
    return result


@pytest.mark.parametrize(
    ("program", "at", "order"),
    [
        ("sum(x**3)", {"x": [1.0, 2.0]}, 2),
        ("sum(sin(x)*x**2)", {"x": [0.5, 1.5, 2.0]}, 3),
        ("sum(tanh(x)) * sum(x)", {"x": [0.3, -0.7]}, 2),  # not elementwise: Hessian row sums
        ("sum(relu(x)*x*y)", {"x": [0.5, -1.5], "y": 2.0}, 3),
        ("sum(x**y)", {"x": [0.5, 1.5], "y": [2.0, 3.0]}, 2),
        ("mean(sigmoid(x))", {"x": [[0.5], [1.5]]}, 4),
        ("x**3", {"x": [2.0]}, 3),  # a shape-[1] leaf
    ],
)
def test_order_n_on_tensor_leaves_equals_repeated_torch_autograd_grad(program, at, order):
    from gradcli import api

    result = api.grad(program, at=at, order=order, symbolic=False)
    expected = _torch_repeated_sum_grads(program, at, order)
    for name, value in expected.items():
        assert close(result.grads[name], value), (name, result.grads[name], value)


def test_order_on_a_tensor_leaf_prints_the_nth_derivative(run):
    result = run("grad", "sum(x**3)", "--at", "x=[1,2]", "--order", "3", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert strict_loads(result.stdout)["leaves"]["x"]["grad"] == [6.0, 6.0]


def test_check_agrees_on_a_smooth_function(run):
    result = run("check", "sin(x)*exp(y) + x**2 * y", "--at", "x=0.3", "--at", "y=1.2")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "all three agree" in result.stdout


def test_check_json_rows_hold_three_answers(run):
    result = run("check", "sum(x**3)", "--at", "x=[1, 2]", "--format", "json")
    doc = strict_loads(result.stdout)
    assert doc["passed"] is True
    assert [r["index"] for r in doc["rows"]] == [[0], [1]]
    for row, x in zip(doc["rows"], [1.0, 2.0]):
        assert row["reverse"] == 3 * x**2 == row["symbolic"]
        assert row["finite_difference"] == pytest.approx(3 * x**2, rel=1e-6)


def test_check_fails_and_explains_at_relu_kink(run):
    result = run("check", "relu(x)", "--at", "x=0")
    assert result.exit_code == 1
    assert "relu(x) at 0 has derivative 0" in result.stdout


def test_check_fails_and_explains_sqrt_of_square(run):
    # PyTorch issue 6394: sqrt((x-1)**2) has gradient nan at 1, abs(x-1) has 0.
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    torch.sqrt((x - 1) ** 2).backward()
    assert torch.isnan(x.grad)
    result = run("check", "sqrt((x-1)**2)", "--at", "x=1", "--format", "json")
    assert result.exit_code == 1
    row = strict_loads(result.stdout)["rows"][0]
    assert row["reverse"] == "nan" and row["ok"] is False
    assert "sqrt'(0)" in row["note"]
    # abs(x-1): reverse 0 (abs'(0) = 0), central difference 0: they agree, and the kink is explained.
    smooth_looking = run("check", "abs(x-1)", "--at", "x=1")
    assert smooth_looking.exit_code == 0
    assert "abs(t1) at 0 has derivative 0" in smooth_looking.stdout


def test_warning_names_the_first_node_that_made_inf(run_json):
    doc = run_json("grad", "y = log(x); z = y * 2", "--at", "x=0")
    assert doc["warnings"] == ["value of y is -inf: log(0) from finite inputs"]
    assert doc["leaves"]["x"]["grad"] == "inf"


def test_warning_names_the_backward_step_that_made_inf(run):
    result = run("grad", "sqrt((x-1)**2)", "--at", "x=1")
    assert "warning: adjoint of" in result.stdout and "sqrt'(0)" in result.stdout


def test_hessian_and_jacobian_latex_are_balanced_align_blocks(run):
    hessian = run("hessian", "x**3*y", "--at", "x=2", "--at", "y=3", "--format", "latex").stdout
    assert r"\frac{\partial^{2} t_{2}}{\partial x^{2}} &= 6 x y = 36" in hessian
    jacobian = run(
        "jacobian", "matmul(W, x)", "--at", "W=[[1,2],[3,4]]", "--at", "x=[1,1]", "--format", "latex"
    ).stdout
    assert r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}" in jacobian
    for text in (hessian, jacobian):
        assert text.count("{") == text.count("}")
        assert text.count(r"\begin{align*}") == text.count(r"\end{align*}") == 1


def test_a_derivative_whose_graph_does_not_trace_is_one_clear_error(run):
    # prod at a zero: its second derivative traces (cat, cumprod, flip), its third would
    # differentiate cumprod's backward at a zero, a scan; a clear refusal, never a wrong number
    result = run("grad", "sum(prod(x)*x)", "--at", "x=[0,2,3]", "--order", "3")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: this derivative needs a gradient graph gradcli cannot build yet")
    assert len(result.stderr.splitlines()) == 1
    second = run("grad", "sum(prod(x)*x)", "--at", "x=[0,2,3]", "--order", "2", "--format", "plain")
    assert second.exit_code == 0, second.stderr


# ---------------------------------------------------------------- table layout


def test_jacobian_cells_line_up_as_a_matrix_across_rows(run):
    result = run("jacobian", "W @ x", "--at", "W=[[1,2],[3,4]]", "--at", "x=[1.5,-100]", "--width", "80")
    assert result.exit_code == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "-100]" in line or "-0]" in line]
    assert len(rows) == 4
    # in W's block every row's comma (between its two columns) and closing bracket share a column
    assert len({line.rindex(", ") for line in rows}) == 1
    assert len({line.index("]", line.rindex("[")) for line in rows}) == 1
    assert "[[[ 1.5, -100]," in result.stdout and "[   0,   -0]]," in result.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["jacobian", "W @ x", "--at", "W=[[1,2],[3,4]]", "--at", "x=[1.5,-100]"],
        ["hessian", "sum(x**4)", "--at", "x=[1,-20]"],
        ["check", "sum(sin(x)*y)", "--at", "x=1", "--at", "y=[1,2]"],
        ["check", "relu(x)", "--at", "x=0"],
        ["hvp", "sum(x**3)", "--at", "x=[1,2]", "--v", "x=[1,0]"],
    ],
    ids=lambda argv: argv[0] + ":" + argv[1],
)
def test_tables_have_no_trailing_spaces(run, argv):
    result = run(*argv, "--width", "100")
    assert result.stdout.strip()
    assert [line for line in result.stdout.splitlines() if line != line.rstrip()] == []


def test_no_trailing_spaces_in_colour_either():
    import io

    from rich.console import Console

    from gradcli import hessian
    from gradcli.render.higher import render_hessian

    out = io.StringIO()
    render_hessian(
        hessian("sum(x**4)", {"x": [1.0, -20.0]}), Console(file=out, force_terminal=True, width=100)
    )
    text = out.getvalue()
    assert "\x1b[" in text
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in text.splitlines()]
    assert [line for line in plain if line != line.rstrip()] == []
    assert "[[  12,    0]," in "\n".join(plain)
