"""`gradcli run --trace` and `--format json`: each backward call's graph, as `gradcli grad` shows it.

The trace is the node table of `gradcli grad` (render/table.py) for the part of the graph a
call reaches, named after the script's variables, then each leaf's .grad before and after.
The JSON has one record per call with the same nodes as `grad --format json`.
"""

from __future__ import annotations

import json
import re

import pytest
from script_run import run_script

from gradcli import limits

CHAIN = (
    "import torch\n"
    "x = torch.tensor(2.0, requires_grad=True)\n"
    "y = 2 * x\n"
    "z = y ** 3\n"
    "print('before')\n"
    "z.backward(retain_graph=True)\n"
    "print('between')\n"
    "z.backward()\n"
    "print(x.grad)\n"
)


def _section(text: str, start: str) -> str:
    """From the line starting with `start` to the next blank line after the table."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    blank = next(i for i in range(first + 2, len(lines)) if not lines[i].strip())
    return "\n".join(lines[first:blank])


def test_trace_prints_grads_node_table_where_the_call_happens(run):
    traced = run("run", "--trace", "--width", "80", "-", input=CHAIN)
    assert traced.exit_code == 0, traced.stderr
    program = run("grad", "-", "--at", "x=2", "--width", "80", input="y = 2 * x\nz = y ** 3\nz\n")
    table = _section(program.stdout, "Graph, in topological order")
    assert _section(traced.stdout, "Graph, in topological order") == table
    out = traced.stdout
    assert out.index("before") < out.index("── line 6: z.backward(retain_graph=True)") < out.index("between")
    assert out.index("between") < out.index("── line 8: z.backward()")
    assert "  x.grad: None -> tensor(96.)\n" in out
    assert "  x.grad: tensor(96.) -> tensor(192.)\n" in out  # accumulation, where it happens
    assert out.endswith("tensor(192.)\n")


def test_without_trace_the_output_is_the_scripts_alone(run):
    assert run("run", "-", input=CHAIN).stdout == "before\nbetween\ntensor(192.)\n"


def test_trace_shows_a_zeroed_grad_and_a_gradient_mask(run):
    script = (
        "import torch\n"
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (w * w).sum()\n"
        "loss.backward()\n"
        "w.grad.zero_()\n"
        "v = w * 3\n"
        "v.backward(torch.tensor([1.0, 0.0]))\n"
    )
    out = run("run", "--trace", "--width", "100", "-", input=script).stdout
    assert "  w.grad: None -> tensor([2., 4.])\n" in out
    assert "  w.grad: tensor([0., 0.]) -> tensor([3., 0.])\n" in out
    assert re.search(r"^  v \(out\) .* gradient$", out, re.M)  # the mask is the upstream gradient


def test_trace_of_autograd_grad_names_what_it_returns(run):
    script = (
        "import torch\n"
        "a = torch.tensor(3.0, requires_grad=True)\n"
        "b = a.sin() * a\n"
        "(g,) = torch.autograd.grad(b, a)\n"
    )
    out = run("run", "--trace", "--width", "100", "-", input=script).stdout
    assert "── line 4: (g,) = torch.autograd.grad(b, a)" in out
    assert "torch.autograd.grad returns these; no .grad changes." in out
    assert "SinBackward0" in out and "MulBackward0" in out


def test_node_prints_a_node_whole_and_needs_trace(run):
    script = "import torch\nx = torch.arange(12.0, requires_grad=True)\ny = (x * x).sum()\ny.backward()\n"
    out = run("run", "--trace", "--width", "60", "--node", "x", "-", input=script).stdout
    assert "Chosen with --node, whole:" in out
    refused = run("run", "--node", "x", "-", input=script)
    assert refused.exit_code == 2 and "--node chooses what --trace prints whole" in refused.stderr
    both = run("run", "--trace", "--format", "json", "-", input=script)
    assert both.exit_code == 2


def _strict(text: str) -> dict:
    def refuse(constant: str) -> None:
        raise ValueError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_has_one_record_per_call_with_nodes_and_grads(run):
    result = run("run", "--format", "json", "-", input=CHAIN)
    assert result.exit_code == 0, result.stderr
    document = _strict(result.stdout)
    assert document["stdout"] == "before\nbetween\ntensor(192.)\n"
    first, second = document["backward_calls"]
    assert (first["line"], second["line"]) == (6, 8)
    assert first["call"] == "backward" and first["source"] == "z.backward(retain_graph=True)"
    assert [n["name"] for n in first["nodes"]] == ["x", "y", "z"]
    assert [n["grad_fn"] for n in first["nodes"]] == [None, "MulBackward0", "PowBackward0"]
    assert [n["adjoint"] for n in first["nodes"]] == [96.0, 48.0, 1.0]
    assert first["grads_before"] == {"x": None} and first["grads_after"] == {"x": 96.0}
    assert second["grads_before"] == {"x": 96.0} and second["grads_after"] == {"x": 192.0}


def test_json_of_autograd_grad_and_of_non_finite_values(run):
    script = (
        "import torch\n"
        "a = torch.tensor([0.0, 1.0], requires_grad=True)\n"
        "b = (a.log() * a).sum()\n"
        "g = torch.autograd.grad(b, [a])\n"
        "print(g)\n"
    )
    document = _strict(run("run", "--format", "json", "-", input=script).stdout)
    (call,) = document["backward_calls"]
    assert call["call"] == "autograd.grad" and "grads_before" not in call
    assert call["grads"] == {"a": ["nan", 1.0]}  # -inf + 0 / 0, as torch gives


def test_a_warning_is_a_json_list_item(run):
    script = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n"
    document = _strict(run("run", "--format", "json", "-", input=script).stdout)
    assert document["stdout"] == "None\n"
    (warning,) = document["warnings"]
    assert warning.startswith("line 4: UserWarning: The .grad attribute of a Tensor that is not a leaf")


def test_records_past_the_cap_keep_only_the_line(monkeypatch):
    monkeypatch.setattr(limits.Script, "MAX_RECORDED_BACKWARD_CALLS", 2)
    script = (
        "import torch\n"
        "w = torch.tensor(1.0, requires_grad=True)\n"
        "for i in range(4):\n"
        "    (w * w).backward()\n"
    )
    calls = run_script(script).to_dict()["backward_calls"]
    assert [c["line"] for c in calls] == [4, 4, 4, 4]
    assert ["nodes" in c for c in calls] == [True, True, False, False]


@pytest.mark.parametrize("width", ["40", "60", "200"])
def test_trace_lines_fit_the_width(run, width):
    script = (
        "import torch\n"
        "weights_of_the_first_layer = torch.tensor([[0.5, -1.5], [2.0, 0.25]], requires_grad=True)\n"
        "activations = torch.tanh(weights_of_the_first_layer @ torch.tensor([1.0, 2.0]))\n"
        "activations.sum().backward(retain_graph=True)\n"
    )
    out = run("run", "--trace", "--width", width, "-", input=script).stdout
    rules = [line for line in out.splitlines() if line.startswith("── line")]
    assert rules and all(len(line) <= max(int(width), 40) for line in rules)


_LOOP = (
    "import torch\n"
    "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
    "x = torch.tensor([0.5, 1.5])\n"
    "for step in range(5):\n"
    "    loss = ((w * x).sum() - 1.0) ** 2\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.1 * w.grad\n"
    "        w.grad.zero_()\n"
    "z = (w ** 2).sum()\n"
    "z.backward()\n"
)


@pytest.mark.parametrize(
    "options, shown",
    [
        (["--trace", "--call", "3"], [6]),
        (["--trace", "--call", "1,5-6"], [6, 6, 11]),
        (["--explain", "--line", "11"], [11]),
        (["--trace", "--line", "11", "--call", "2"], [6, 11]),
    ],
)
def test_call_and_line_choose_which_backward_calls_are_shown(run, tmp_path, options, shown):
    script = tmp_path / "loop.py"
    script.write_text(_LOOP)
    result = run("run", *options, str(script))
    assert result.exit_code == 0, result.output
    headers = re.findall(r"── line (\d+): ", result.output)
    assert [int(h) for h in headers] == shown


def test_call_and_line_keep_only_the_chosen_records_in_json(run, tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(_LOOP)
    result = run("run", "--format", "json", "--call", "2", "--line", "11", str(script))
    calls = json.loads(result.output)["backward_calls"]
    assert len(calls) == 6  # every call is listed; only the chosen ones carry their graph
    assert [c["line"] for c in calls if "nodes" in c] == [6, 11]
    assert [i for i, c in enumerate(calls, 1) if "nodes" in c] == [2, 6]


@pytest.mark.parametrize(
    "options, words",
    [
        (["--call", "2"], "add one"),
        (["--trace", "--call", "0"], "numbers count from 1"),
        (["--trace", "--line", "5-2"], "ranges go up"),
        (["--trace", "--call", "two"], "numbers and ranges"),
    ],
)
def test_call_and_line_mistakes_are_usage_errors(run, tmp_path, options, words):
    script = tmp_path / "loop.py"
    script.write_text(_LOOP)
    result = run("run", *options, str(script))
    assert result.exit_code == 2 and words in result.output
