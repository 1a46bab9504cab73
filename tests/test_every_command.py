"""Issue 11's cases, one test each: what a new user tried on every command, and what they get now.

Each was an internal error, a leaked warning, non-strict JSON or an unhelpful message.
PyTorch is the oracle wherever a number is involved.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import strict_loads

torch = pytest.importorskip("torch")

from gradcli import hessian  # noqa: E402
from gradcli.gradcheck import check  # noqa: E402
from gradcli.values import parse_value  # noqa: E402


def one_error_line(result, exit_code: int = 1) -> str:
    """The single `error:` line of a failed run, after checking the exit code and that nothing leaked."""
    assert result.exit_code == exit_code, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "internal error" not in lines[0] and "Traceback" not in result.stderr
    return lines[0]


# ---------------------------------------------------------------- abs in second derivatives


@pytest.mark.parametrize("points", [[-1.5, 0.0, 2.0], [0.7, -0.3, 0.0]])
def test_hessian_of_a_program_with_abs_is_torchs(points):
    program = "sum(abs(x)*x**2 + abs(x*y))"
    at = {"x": points, "y": [0.5, -2.0, 1.5]}
    ours = hessian(program, at=at)
    tensors = tuple(torch.tensor(v, dtype=torch.float64) for v in at.values())
    theirs = torch.autograd.functional.hessian(lambda x, y: (x.abs() * x**2 + (x * y).abs()).sum(), tensors)
    for i, a in enumerate(at):
        for j, b in enumerate(at):
            np.testing.assert_allclose(ours.hessian[a][b], theirs[i][j].numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("x", [0.0, -2.0, 1.5])
def test_second_derivative_of_abs_is_zero_as_in_torch(run_json, x):
    document = run_json("grad", "abs(x)*x", "--at", f"x={x}", "--order", "2")
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (first,) = torch.autograd.grad(t.abs() * t, t, create_graph=True)
    (second,) = torch.autograd.grad(first, t)
    assert document["leaves"]["x"]["grad"] == second.item()


# ---------------------------------------------------------------- --batch with non-finite points


@pytest.mark.parametrize("program", ["sum(x**2*y)", "x**2*y"])
def test_batch_points_with_nan_infinity_and_1e400_are_computed_as_torch_and_echoed_strictly(run, program):
    lines = [
        '{"x": NaN, "y": 2}',
        '{"x": Infinity, "y": 1e400}',
        '{"x": 1e400, "y": -Infinity}',
        '{"x": 3, "y": 2}',
    ]
    result = run("grad", program, "--batch", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    out = [strict_loads(line) for line in result.stdout.splitlines()]
    assert [o["point"] for o in out] == [
        {"x": "nan", "y": 2},
        {"x": "inf", "y": "inf"},
        {"x": "inf", "y": "-inf"},
        {"x": 3, "y": 2},
    ]
    for line, o in zip(lines, out):
        point = json.loads(line)
        x, y = (torch.tensor(float(point[n]), dtype=torch.float64, requires_grad=True) for n in "xy")
        value = (x**2 * y).sum()
        value.backward()
        for got, want in ((o["value"], value), (o["grads"]["x"], x.grad), (o["grads"]["y"], y.grad)):
            want = want.item()
            assert (
                (got == "nan" and math.isnan(want))
                or got == json.loads(json.dumps(want))
                or (got in ("inf", "-inf") and want == float(got))
            ), (line, got, want)


def test_batch_skip_reports_bad_lines_and_goes_on(run):
    lines = [
        '{"x": [1, 2], "y": 1}',
        "not json",
        '{"x": [1, [2]], "y": 1}',
        '{"z": 1}',
        '{"x": [1, 2], "y": 2}',
    ]
    result = run("grad", "sum(x**2*y)", "--batch", "-", "--batch-errors", "skip", input="\n".join(lines))
    assert result.exit_code == 0, result.stderr
    out = [strict_loads(line) for line in result.stdout.splitlines()]
    assert [o.get("line") for o in out] == [None, 2, 3, 4, None]
    assert out[-1]["grads"] == {"x": [4.0, 8.0], "y": 5.0}


# ---------------------------------------------------------------- check's options and notes


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--eps", "0", "> 0"),
        ("--eps", "nan", "> 0"),
        ("--eps", "-1", "> 0"),
        ("--eps", "inf", "> 0"),
        ("--atol", "-1", ">= 0"),
        ("--rtol", "nan", ">= 0"),
    ],
)
def test_impossible_check_options_are_usage_errors_naming_the_range(run, option, value, says):
    line = one_error_line(run("check", "x**3", "--at", "x=1", option, value), exit_code=2)
    assert option in line and says in line


def test_a_wide_step_on_a_smooth_function_is_not_called_a_kink(run):
    result = run("check", "x**3", "--at", "x=1", "--eps", "0.5")
    assert result.exit_code == 1
    assert "not differentiable" not in result.stdout
    assert "smaller --eps" in result.stdout


@pytest.mark.parametrize(("program", "at"), [("relu(x)", "x=0"), ("sqrt((x-1)**2)", "x=1")])
def test_a_real_kink_is_explained(run, program, at):
    result = run("check", program, "--at", at)
    assert result.exit_code == 1
    assert "not differentiable here" in result.stdout


def test_check_in_float32_computes_in_float32():
    result = check("sin(x)*exp(y)", at={"x": 0.3, "y": 1.2}, dtype="float32")
    assert result.passed and result.dtype == "float32"
    x = torch.tensor(0.3, requires_grad=True)
    y = torch.tensor(1.2, requires_grad=True)
    (torch.sin(x) * torch.exp(y)).backward()
    rows = {row.leaf: row for row in result.rows}
    # float32's own reverse-mode result, not float64's rounded afterwards
    assert rows["x"].reverse == pytest.approx(x.grad.item(), rel=1e-6)
    float64 = check("sin(x)*exp(y)", at={"x": 0.3, "y": 1.2})
    assert rows["x"].reverse != {row.leaf: row for row in float64.rows}["x"].reverse


# ---------------------------------------------------------------- seeds, warnings, graph files, --debug


def test_negative_seeds_work_as_torch_manual_seed_accepts_them(run):
    first = run(
        "grad", "sum(x*y)", "--at", "x=1", "--const", "y=randn(3)", "--seed", "-5", "--format", "plain"
    )
    again = run(
        "grad", "sum(x*y)", "--at", "x=1", "--const", "y=randn(3)", "--seed", "-5", "--format", "plain"
    )
    other = run(
        "grad", "sum(x*y)", "--at", "x=1", "--const", "y=randn(3)", "--seed", "5", "--format", "plain"
    )
    assert first.exit_code == 0 and first.stdout == again.stdout != other.stdout
    line = one_error_line(run("grad", "x", "--at", "x=1", "--seed", str(2**64)), exit_code=2)
    assert "--seed" in line


def test_mean_of_an_empty_tensor_leaks_no_numpy_warning(run):
    for fmt in ("json", "table", "plain"):
        result = run("grad", "mean(x)", "--at", "x=[]", "--format", fmt)
        assert result.exit_code == 0
        assert "RuntimeWarning" not in result.stderr and "site-packages" not in result.stderr
        if fmt == "json":
            document = strict_loads(result.stdout)
            assert document["output"]["value"] == "nan"
            assert document["leaves"]["x"]["grad_symbolic"] == "nan"  # once sympy's "zoo"


@pytest.mark.parametrize(
    ("name", "start"), [("g.dot", "digraph"), ("g.gv", "digraph"), ("g.txt", "t2 (output)")]
)
def test_graph_output_format_follows_the_file_extension(run, tmp_path, name, start):
    path = tmp_path / name
    result = run("graph", "(2*x)**3", "--at", "x=2", "-o", str(path))
    assert result.exit_code == 0, result.stderr
    assert path.read_text().startswith(start)


def test_graph_refuses_a_format_the_file_name_contradicts(run, tmp_path):
    path = tmp_path / "g.png"
    line = one_error_line(run("graph", "x*2", "--at", "x=2", "--format", "dot", "-o", str(path)), exit_code=2)
    assert "g.dot" in line and not path.exists()


def test_graph_dash_writes_to_stdout(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("graph", "(2*x)**3", "--at", "x=2", "-o", "-", "--format", "dot")
    assert result.exit_code == 0 and result.stdout.startswith("digraph")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_is_accepted_before_and_after_the_command_name(run, where):
    args = ["grad", "x*2", "--at", "x=1", "--format", "plain"]
    args = ["--debug", *args] if where == "before" else [*args, "--debug"]
    result = run(*args)
    assert result.exit_code == 0 and result.stdout == "x\t2.0\n"


# ---------------------------------------------------------------- VALUEs as people type them


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.", 3.0),
        (".5", 0.5),
        ("+1", 1.0),
        ("1e-3", 1e-3),
        ("[1.,2.]", [1.0, 2.0]),
        ("pi", math.pi),
        ("-pi/2", -math.pi / 2),
        ("1/3", 1 / 3),
        ("2**0.5", 2**0.5),
        ("(1,2)", [1.0, 2.0]),
        ("[(1, 2), (3, -e)]", [[1.0, 2.0], [3.0, -math.e]]),
        ("-inf", -math.inf),
    ],
)
def test_values_read_as_python_reads_them(text, expected):
    assert parse_value(text).tolist() == expected


def test_value_errors_point_at_the_character(run):
    line = one_error_line(run("grad", "x", "--at", "x=[1, 2, 3y]"))
    assert "column 8" in line
    line = one_error_line(run("grad", "x", "--at", "x=\u22121"))
    assert "'-1'" in line  # the Unicode minus, with its fix


def test_values_never_execute_code(run, tmp_path):
    canary = tmp_path / "canary"
    line = one_error_line(run("grad", "x", "--at", f"x=[__import__('os').system('touch {canary}')]"))
    assert "cannot read value" in line and not canary.exists()


# ---------------------------------------------------------------- near misses


def test_grad_without_a_program_is_one_error_line(run):
    line = one_error_line(run("grad"), exit_code=2)
    assert "missing EXPR" in line


@pytest.mark.parametrize(
    ("program", "suggestion"),
    [
        ("2x + 1", "2*x + 1"),
        ("x\u00b2", "x**2"),
        ("sin x", "sin(x)"),
        ("\u2212x", "-x"),
        ("3x*1e3", "3*x*1e3"),
    ],
)
def test_near_misses_suggest_the_fix(run, program, suggestion):
    line = one_error_line(run("grad", program, "--at", "x=1"))
    assert f"did you mean '{suggestion}'" in line


def test_a_file_name_as_the_program_says_how_to_read_a_file(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text("x**2\n")
    line = one_error_line(run("grad", "prog.py", "--at", "x=1"))
    assert "grad @prog.py" in line


def test_no_symbolic_without_a_point_is_a_usage_error(run):
    line = one_error_line(run("grad", "(2*x)**3", "--no-symbolic"), exit_code=2)
    assert "--no-symbolic" in line and "--at" in line


def test_folded_constants_print_every_digit_they_hold(run_json):
    # 10*(x + 2**0.5) once printed its constant as 14.142135623731 (sympy's 15 digits).
    document = run_json("grad", "sin((x1+2**0.5)*1e1)", "--at", "x1=0.3")
    assert document["leaves"]["x1"]["grad_symbolic"] == f"10*cos(10*x1 + {10 * 2**0.5!r})"


# ---------------------------------------------------------------- the API speaks the API's words


@pytest.mark.parametrize(
    ("call", "api_words", "cli_args", "cli_words"),
    [
        (dict(at={"x": [1.0, 2.0]}), "gradient=[1, 1]", ["--at", "x=[1,2]"], '--gradient "[1, 1]"'),
        (
            dict(at={"x": 1.0}, passes=2),
            "retain_graph=True to keep",
            ["--at", "x=1", "--passes", "2"],
            "--retain-graph",
        ),
        (dict(at={"y": 1.0}), "at['y']", ["--at", "y=1"], "--at y"),
        (
            dict(at={"x": [1.0, 2.0]}, gradient=[1, 2, 3]),
            "pass gradient= with",
            ["--at", "x=[1,2]", "--gradient", "[1,2,3]"],
            "pass --gradient with",
        ),
    ],
)
def test_errors_name_the_setting_as_the_asker_spells_it(run, call, api_words, cli_args, cli_words):
    from gradcli import GradcliError, grad

    with pytest.raises(GradcliError) as raised:
        grad("x*2", **call)
    assert api_words in str(raised.value) and "--" not in str(raised.value)
    assert cli_words in one_error_line(run("grad", "x*2", *cli_args))


def test_after_several_passes_the_symbolic_column_says_it_is_one_pass(run):
    result = run("grad", "x**3", "--at", "x=3", "--passes", "3", "--retain-graph")
    assert result.exit_code == 0
    leaf_row = next(line for line in result.stdout.splitlines() if line.split()[:2] == ["x", "81"])
    assert "3*x**2" in leaf_row and "symbolic (one pass)" in result.stdout
    single = run("grad", "x**3", "--at", "x=3")
    assert "one pass" not in single.stdout


@pytest.mark.parametrize("program", ["A/3**700", "x/3**700 + x*nan + inf", "x*(0*3**700)"])
def test_constants_that_fold_to_inf_or_nan_are_written_not_crashed_on(run, program):
    """Found by the long fuzz: a folded 3**700 is inf, and int(inf) raised in the table's forms."""
    for args in (
        ["--format", "plain"],
        ["--at", "A=1"] if "A" in program else ["--at", "x=1"],
    ):
        result = run("grad", program, *args)
        assert result.exit_code == 0, result.stderr
        assert "internal error" not in result.stderr


# ---------------------------------------------------------------- found by the hostile hunt of the new grammar


def test_loss_options_bind_by_keyword_only_as_in_torch():
    from gradcli import GradcliError, grad

    # torch's third positional argument is the legacy size_average (weight for cross_entropy)
    with pytest.raises(GradcliError, match="takes 2 argument"):
        grad("F.mse_loss(x, y, 'sum')", at={"x": [1.0, 2.0]}, const={"y": [0.0, 0.0]})
    with pytest.raises(GradcliError, match="takes 1 argument"):
        grad("F.gelu(x, 'tanh')", at={"x": [1.0]})
    result = grad("F.mse_loss(x, y, reduction='sum')", at={"x": [1.0, 2.0]}, const={"y": [0.0, 0.0]})
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.mse_loss(x, torch.zeros(2, dtype=torch.float64), reduction="sum").backward()
    np.testing.assert_array_equal(result.grads["x"], x.grad.numpy())


@pytest.mark.parametrize("attached", ["-o{}/g.dot", "-o./g.dot"])
def test_a_short_option_with_its_value_attached_stays_an_option(run, tmp_path, monkeypatch, attached):
    monkeypatch.chdir(tmp_path)
    result = run("graph", attached.format(tmp_path), "x*2", "--at", "x=1")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


def test_check_takes_tensor_functions_as_opaque_not_as_disagreement(run):
    for program in ("x.norm()", "x[[0, 1]].sum()", "torch.where(x > 0, x, 0).sum()", "x.cumsum(0).sum()"):
        result = run("check", program, "--at", "x=[1,2]")
        assert result.exit_code == 0, (program, result.stdout)


def test_batch_runs_programs_that_need_tensor_points(run):
    result = run("grad", "x[0] * x[1]", "--batch", "-", input='{"x": [2, 3]}\n{"x": [1, 5]}\n')
    assert result.exit_code == 0, result.stderr
    assert [strict_loads(line)["grads"]["x"] for line in result.stdout.splitlines()] == [
        [3.0, 2.0],
        [5.0, 1.0],
    ]
