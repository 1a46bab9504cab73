"""`gradcli graph`: the ascii tree (golden files), DOT that Graphviz accepts, svg/png, errors."""

from __future__ import annotations

import re
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
    assert "└── x  -> see above" in out


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


# ---------------------------------------------------------------- pictures of deep and big programs


def chain(steps: int) -> str:
    """h_i = tanh(h_{i-1})*0.5 + h_{i-1}*0.5: deep, and every h_i used twice."""
    lines = ["h1 = tanh(x)*0.5 + x*0.5"]
    lines += [f"h{i} = tanh(h{i - 1})*0.5 + h{i - 1}*0.5" for i in range(2, steps + 1)]
    return "\n".join(lines)


def drawn_in_full(out: str) -> list[str]:
    """The node names whose label is drawn (not a `-> see above` / `-> continued below` line)."""
    head = re.compile(r"(\S+)( \((output|continued)\))*( \[[^\]]*\])?  (\S+  \S+Backward\d|leaf, |const, )")
    return [match.group(1) for line in out.splitlines() if (match := head.match(line.lstrip("│├└─ ")))]


def test_an_8_step_chain_at_80_columns_is_pinned(run):
    result = run("graph", chain(8), "--at", "x=0.3", "--width", "80")
    assert result.exit_code == 0, result.stderr
    assert_golden("graph_chain8_80.txt", result.stdout)


def test_a_deep_chain_draws_every_node_once_with_whole_labels(run):
    from gradcli import grad

    out = run("graph", chain(8), "--at", "x=0.3", "--width", "80").stdout
    names = [node.name for node in grad(chain(8), at={"x": 0.3}).nodes]
    assert sorted(drawn_in_full(out)) == sorted(names)  # each once, down to the leaf
    assert "x  leaf, requires_grad" in out and "adjoint 0.728699  = x.grad" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert out.count("MulBackward0") == 16 and out.count("TanhBackward0") == 8  # never wrapped
    assert all(line == line.rstrip() for line in out.splitlines())


def test_a_cut_says_where_the_rest_is_drawn(run):
    out = run("graph", chain(8), "--at", "x=0.3", "--width", "80").stdout
    cut = [
        line.split("── ")[1].split()[0] for line in out.splitlines() if line.endswith("-> continued below")
    ]
    assert cut
    for name in cut:  # each cut subtree is drawn further down as a tree of its own
        assert f"\n{name} (continued)  " in out


def test_a_wider_terminal_needs_fewer_cuts(run):
    narrow = run("graph", chain(8), "--at", "x=0.3", "--width", "80").stdout
    wide = run("graph", chain(8), "--at", "x=0.3", "--width", "200").stdout
    assert wide.count("(continued)") < narrow.count("(continued)")


def test_3000_statements_draw_down_to_the_leaf(run):
    """No time bound here: a quadratic drawing would make this test minutes long, not fail it."""
    program = chain(3000)
    result = run("graph", "-", "--at", "x=0.3", "--width", "80", input=program)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "x  leaf, requires_grad" in out and "h3000 (output)  add  AddBackward0" in out
    assert len(drawn_in_full(out)) == 4 * 3000 + 1
    assert max(len(line) for line in out.splitlines()) <= 80


def test_big_tensors_say_how_to_see_them_whole(run):
    out = run("graph", "(x*2).sum()", "--at", "x=arange(20)").stdout
    assert (
        "..." in out and "(tensors of more than 12 elements summarised: gradcli grad ... --node NAME)" in out
    )
    assert "--node" not in run("graph", *CUBE).stdout


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_a_graph_too_big_for_graphviz_fails_at_once_naming_what_shows_it(run, monkeypatch, fmt):
    def never(*args):
        raise AssertionError("dot should not be started")

    monkeypatch.setattr(graph_module, "run_dot", never)
    monkeypatch.setattr(graph_module, "MAX_LAYOUT_NODES", 100)
    result = run("graph", chain(30), "--at", "x=0.3", "--format", fmt)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: this graph has 121 nodes")
    assert "--format ascii draws every node" in lines[0] and "--format dot" in lines[0]


def test_dot_of_a_long_program_titles_it_with_its_first_lines(run):
    source = run("graph", chain(40), "--at", "x=0.3", "--format", "dot").stdout
    assert "h12 = tanh(h11)" in source and "h13 = tanh(h12)*0.5 + h12*0.5\\l" not in source.split("\n")[1]
    assert "... and 28 more statements" in source
    assert source.count("[label=") == 4 * 40 + 1  # every node is still there


def test_a_shrunk_png_is_a_warning(run, monkeypatch, tmp_path):
    fake = tmp_path / "dot"
    fake.write_text(
        "#!/bin/sh\ncat > /dev/null\necho 'dot: graph is too large. Scaling by 0.157446 to fit' >&2\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(graph_module, "find_dot", lambda: str(fake))
    result = run("graph", *CUBE, "-o", str(tmp_path / "g.png"))
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: Graphviz drew this PNG at 0.16 of its size")
