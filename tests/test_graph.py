"""`gradcli graph`: the ascii tree (golden files), DOT that Graphviz accepts, svg/png, errors."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from golden import assert_golden
from seed_programs import CUBE, LINEAR, MEAN

import gradcli.commands.graph as graph_module

SEEDS = {"cube": CUBE, "mean": MEAN, "linear": LINEAR}
MORE = [
    ("x*x + sin(x)", "--at", "x=1"),
    ("(2*x)**3",),
    ("relu(x) @ W", "--at", "x=[1,-2]", "--at", "W=[[1,2],[3,4]]", "--gradient", "[1,1]"),
    (
        "a = x / y; b = a.exp() + log(y); b.sum(dim=0, keepdim=True)",
        "--at",
        "x=[[1,2]]",
        "--at",
        "y=[[3,4]]",
        "--gradient",
        "[[1,1]]",
    ),
]
HAS_DOT = shutil.which("dot") is not None


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_ascii_view_of_seed_programs_is_pinned(run, name):
    result = run("graph", *SEEDS[name])
    assert result.exit_code == 0, result.stderr
    assert_golden(f"graph_{name}.txt", result.stdout)


def test_symbolic_ascii_view_is_pinned(run):
    result = run("graph", "(2*x)**3")
    assert result.exit_code == 0, result.stderr
    assert_golden("graph_cube_symbolic.txt", result.stdout)


def test_ascii_view_shows_every_node_with_grad_fn_value_and_adjoint(run):
    out = run("graph", *CUBE).stdout
    for text in (
        "t2 (output)",
        "PowBackward0",
        "t1",
        "MulBackward0",
        "value   64",
        "adjoint 48",
        "adjoint 96  = x.grad",
    ):
        assert text in out
    assert "└──" in out  # drawn with box characters


@pytest.mark.parametrize("args", [*SEEDS.values(), *MORE])
def test_ascii_fits_80_columns_without_colour(run, args):
    out = run("graph", *args).stdout
    assert "\x1b[" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_a_node_used_twice_is_drawn_once(run):
    out = run("graph", "x*x + sin(x)", "--at", "x=1").stdout
    assert out.count("leaf, requires_grad") == 1
    assert "x  (drawn above)" in out


def test_dot_source_is_pinned_and_deterministic(run):
    first = run("graph", *CUBE, "--format", "dot").stdout
    assert first == run("graph", *CUBE, "--format", "dot").stdout
    assert_golden("graph_cube.dot", first)


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed (CI installs it)")
@pytest.mark.parametrize("args", [*SEEDS.values(), *MORE])
def test_dot_source_is_valid_graphviz(run, args):
    source = run("graph", *args, "--format", "dot").stdout
    checked = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=False)
    assert checked.returncode == 0, checked.stderr.decode()
    assert b"<svg" in checked.stdout


def test_dot_has_one_box_per_node_and_one_edge_per_use(run):
    source = run("graph", *LINEAR, "--format", "dot").stdout
    assert source.startswith("digraph gradcli {")
    assert source.count("[label=") == 7  # X, W, t1, b, y, t2, loss
    assert source.count(" -> ") == 6
    assert "MmBackward0" in source and "fillcolor=lightblue" in source


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed (CI installs it)")
def test_svg_to_stdout_and_png_to_file(run, tmp_path):
    svg = run("graph", *CUBE, "--format", "svg")
    assert svg.exit_code == 0, svg.stderr
    assert "<svg" in svg.stdout and "PowBackward0" in svg.stdout
    target = tmp_path / "graph.png"
    png = run("graph", *CUBE, "--format", "png", "-o", str(target))
    assert png.exit_code == 0, png.stderr
    assert png.stdout == ""
    assert target.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_missing_graphviz_is_one_clear_error(run, monkeypatch, fmt):
    monkeypatch.setattr(graph_module, "find_dot", lambda: None)
    result = run("graph", *CUBE, "--format", fmt)
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert "Graphviz" in lines[0] and "apt-get install graphviz" in lines[0]


def test_ascii_to_file(run, tmp_path):
    target = tmp_path / "graph.txt"
    result = run("graph", *CUBE, "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert "PowBackward0" in target.read_text(encoding="utf-8")


def test_tensor_output_needs_a_gradient(run):
    result = run("graph", "2*x", "--at", "x=[1,2]")
    assert result.exit_code == 1
    assert "grad can be implicitly created only for scalar outputs" in result.stderr


def test_bad_input_is_an_error_line(run):
    result = run("graph", "x +", "--at", "x=1")
    assert result.exit_code == 1
    assert result.stderr.startswith("error:")


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed (CI installs it)")
def test_a_dot_that_takes_too_long_is_an_error(run, monkeypatch):
    monkeypatch.setattr(graph_module, "DOT_TIMEOUT_SECONDS", 1e-6)
    result = run("graph", *LINEAR, "--format", "svg")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Graphviz's dot took more than")


def test_no_colour_when_output_is_not_a_terminal_even_without_no_color():
    from click.testing import CliRunner

    from gradcli.cli import main

    for args in (["graph", *CUBE], ["ops"], ["grad", *CUBE]):
        result = CliRunner().invoke(main, args, env={"COLUMNS": "80", "NO_COLOR": None, "FORCE_COLOR": None})
        assert result.exit_code == 0
        assert "\x1b[" not in result.stdout


def test_colour_appears_only_when_forced():
    """The check above can fail: with FORCE_COLOR rich does colour the tree."""
    from click.testing import CliRunner

    from gradcli.cli import main

    result = CliRunner().invoke(
        main, ["graph", *CUBE], env={"COLUMNS": "80", "NO_COLOR": None, "FORCE_COLOR": "1"}
    )
    assert "\x1b[" in result.stdout


@pytest.mark.parametrize("fmt", ["ascii", "dot"])
def test_an_unwritable_output_file_is_one_error_line(run, tmp_path, fmt):
    result = run("graph", *CUBE, "--format", fmt, "-o", str(tmp_path / "missing" / "graph.out"))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot write") and len(result.stderr.splitlines()) == 1
