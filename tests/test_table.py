"""The node table at 60, 80 and 120 columns: golden files, lines within the width, no number cut."""

from __future__ import annotations

import json
import os
import re
import shlex

import numpy as np
import pytest
from click.testing import CliRunner
from golden import assert_golden
from seed_programs import CUBE, LINEAR, MEAN
from test_readme import EXAMPLES

from gradcli import grad
from gradcli.cli import main
from gradcli.commands import width as width_module

MLP_PROGRAM = "h = relu(X @ W1 + b1); out = sigmoid(h @ w2); loss = mean((out - 1)**2)"
MLP_INPUTS = {"W1": [[0.1, -0.2], [0.3, 0.4]], "b1": [0.1, -0.1], "w2": [0.5, -0.3]}
MLP = (
    MLP_PROGRAM,
    *[arg for name, v in MLP_INPUTS.items() for arg in ("--at", f"{name}={v}")],
    "--const",
    "X=[[1.0,2],[3,4],[5,6]]",
)
VECTOR = ("y = w * x + 1; loss = sum(tanh(y))", "--at", "w=[0.5,-1,2,0.25,1.5]", "--const", "x=[1,2,3,4,5]")
LOGISTIC = (
    "p = sigmoid(X @ w + b); loss = -mean(y*log(p) + (1 - y)*log(1 - p))",
    *("--at", "w=[0.5,-1]", "--at", "b=0.1"),
    *("--const", "X=[[1.0,2],[3,4],[5,6]]", "--const", "y=[1.0,0,1]"),
)
SOFTMAX_CE = (
    "logits = X @ W + b; loss = cross_entropy(logits, t)",
    *("--at", "W=[[0.5,-1,0.2],[0.1,0.2,0.3]]", "--at", "b=[0.1,0.2,0.3]"),
    *("--const", "X=[[1.0,2],[3,4],[5,6]]", "--const", "t=[0,2,1]"),
)
PROGRAMS = {
    "scalar": CUBE,
    "vector": VECTOR,
    "matrix": LINEAR,
    "network": MLP,
    "logistic": LOGISTIC,
    "softmax_ce": SOFTMAX_CE,
}
WIDTHS = (60, 80, 120)


def table(*args: str, env: dict | None = None) -> str:
    result = CliRunner().invoke(main, ["grad", *args], env={"NO_COLOR": "1", **(env or {})})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PROGRAMS)
def test_table_golden(name, width):
    assert_golden(f"table_{name}_{width}.txt", table(*PROGRAMS[name], "--width", str(width)))


# Every table in the README and docs/, the seeds' programs and the network, at each width.
README_TABLES = [
    tuple(shlex.split(command)[2:])
    for command, shown in EXAMPLES
    if command.startswith("gradcli grad ") and "--format" not in command and "--explain" not in command
    if not (shown and shown[0].startswith("error:"))
]
WALKTHROUGH = (
    "y = 2*x; z = y**3",
    "--at",
    "x=[[2.5212,1.2730],[0.0366,0.0750]]",
    "--retain-graph",
    "--zero-grad",
    *("--gradient", "[[1,1],[1,1]]", "--gradient", "[[0,1],[0,1]]", "--gradient", "[[1,1],[0,0]]"),
)
CASES = [*README_TABLES, CUBE, MEAN, LINEAR, WALKTHROUGH, MLP, VECTOR, ("(2*x)**3",)]
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")


def _numbers_shown(args: tuple[str, ...]) -> np.ndarray:
    """Every number the table may print: each tensor's elements, the program's literals, sizes."""
    program, at, const, gradients = args[0], {}, {}, []
    for flag, value in zip(args[1:], args[2:]):
        if flag in ("--at", "--const"):
            name, _, text = value.partition("=")
            (at if flag == "--at" else const)[name] = eval(text, {"__builtins__": {}})  # noqa: S307 - test data
        elif flag == "--gradient":
            gradients.append(eval(value, {"__builtins__": {}}))  # noqa: S307 - test data
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", " ".join(args))] + list(range(200))
    if at or const:
        result = grad(
            program, at=at, const=const, gradients=gradients or None, retain_graph=True, zero_grad=True
        )
        for node in result.nodes:
            numbers += np.ravel(node.value).tolist()
            numbers += [] if node.adjoint is None else np.ravel(node.adjoint).tolist()
        for record in result.passes:
            numbers += np.ravel(record.gradient).tolist()
            numbers += [v for g in record.grads.values() if g is not None for v in np.ravel(g).tolist()]
    return np.array(numbers, dtype=float)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", CASES, ids=lambda a: a[0][:40])
def test_lines_fit_the_width_and_no_number_is_cut(args, width):
    text = table(*args, "--width", str(width))
    assert max(len(line) for line in text.splitlines()) <= width
    shown = _numbers_shown(args)
    for line in text.splitlines():
        for token in NUMBER.findall(line):
            value = abs(float(token))
            # A number cut in two ("0.23" + "17") is not close to any number the program has.
            assert np.any(np.isclose(np.abs(shown), value, rtol=5e-3, atol=5e-5)), (token, line)


def test_the_cut_check_catches_a_cut_number():
    shown = _numbers_shown(MLP)
    assert not np.any(np.isclose(shown, float("0.23"), rtol=5e-3, atol=5e-5))  # from 0.2317
    assert np.any(np.isclose(shown, float("-0.2317"), rtol=5e-3, atol=5e-5))


def test_the_mlp_is_one_row_per_node_and_short_at_80_columns():
    text = table(*MLP, "--width", "80")
    assert len(text.splitlines()) <= 60
    rows = [
        line.split()[0]
        for line in text.splitlines()
        if re.match(r"  \w+(?: \(out\))? +(None|\w+Backward\d)", line)
    ]
    assert rows == ["X", "W1", "t1", "b1", "t2", "h", "w2", "t3", "out", "t4", "t5", "loss"]
    assert (
        "adj_t2 = adj_h*(h > 0)" in text  # relu's rule reads its result, as torch's does
        and "h = relu(t2)" in text
        and "Max(0" not in text.split("Leaf")[0]
    )
    assert "adj_t3 = adj_out*out*(1 - out)" in text and "adj_W1 = X.T @ adj_t1" in text


def test_columns_env_sets_the_width_and_the_option_beats_it():
    assert table(*MLP, env={"COLUMNS": "60"}) == table(*MLP, "--width", "60")
    assert table(*MLP, "--width", "120", env={"COLUMNS": "60"}) == table(*MLP, "--width", "120")


def test_without_columns_the_width_comes_from_a_terminal_else_80(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(width_module, "_terminal_columns", lambda: 132)
    assert width_module.table_width() == 132
    assert width_module.table_width(70) == 70
    monkeypatch.setattr(width_module, "_terminal_columns", lambda: None)
    assert width_module.table_width() == 80


def test_the_terminal_behind_stderr_gives_the_width_through_a_pipe(monkeypatch):
    class Pipe:
        def fileno(self) -> int:
            raise ValueError("not a terminal")

    class Terminal:
        def fileno(self) -> int:
            return 2

    monkeypatch.setattr(width_module.sys, "stdout", Pipe())
    monkeypatch.setattr(width_module.sys, "stderr", Terminal())
    sizes = {2: 97}

    def terminal_size(fd: int):
        if fd not in sizes:
            raise OSError("not a terminal")
        return os.terminal_size((sizes[fd], 24))

    monkeypatch.setattr(width_module.os, "get_terminal_size", terminal_size)
    assert width_module._terminal_columns() == 97


def test_node_option_prints_the_tensors_whole_with_rows_aligned():
    text = table(*MLP, "--width", "80", "--node", "t1")
    block = text.split("Chosen with --node, whole:")[1].split("Leaf gradients")[0]
    assert "t1 = X @ W1  [3, 2]" in block
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("value"))
    rows = lines[start : start + 3]
    assert [r.strip().removeprefix("value").strip() for r in rows] == [
        "[[0.7, 0.6],",
        "[1.5, 1. ],",
        "[2.3, 1.4]]",
    ]
    assert len({r.index("]") for r in rows}) == 1  # rows aligned, as print(tensor) aligns them


def test_unknown_node_is_a_usage_error_naming_the_nodes():
    result = CliRunner().invoke(main, ["grad", *CUBE, "--node", "q"], env={"NO_COLOR": "1"})
    assert result.exit_code == 2
    assert "no node named 'q'" in result.stderr and "x, t1, t2" in result.stderr


def test_big_tensors_are_summarised_as_numpy_does():
    text = table("sum(x*x)", "--at", "x=arange(1000)", "--width", "80", "--node", "x")
    assert "[  0.,   1.,   2., ..., 997., 998., 999.]" in text
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize("width", [60, 80])
def test_every_ops_example_table_fits_the_width(run, width):
    """Every op's example (tests/op_cases), long grad_fn names included, fits 60 and 80 columns."""
    from op_cases import example

    from gradcli.ops import OPS

    for op in OPS:
        program, at, const = example(op.name)
        args = [f"--at={n}={json.dumps(v)}" for n, v in at.items()]
        args += [f"--const={n}={json.dumps(v)}" for n, v in const.items()]
        result = run("grad", program, *args, "--width", str(width))
        assert result.exit_code == 0, (program, result.stderr)
        too_wide = [line for line in result.stdout.splitlines() if len(line.rstrip()) > width]
        assert not too_wide, (op.name, too_wide)
