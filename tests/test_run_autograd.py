"""`gradcli run` past one backward: create_graph, several outputs, CopySlices, --explain.

Printed output is compared with torch 2.13 running the same text (object addresses
masked); what torch prints to stderr (warnings) is compared as gradcli words it. The
corpus in tests/scripts/ covers these in tutorial-sized scripts; these are the edges.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from script_run import assert_prints_as_torch
from torch_server import run_under_torch

from gradcli import run as run_api
from gradcli.script.autograd_api import REFERENCE_CYCLE

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "tests" / "scripts").glob("*.py")) + sorted(
    (ROOT / "docs" / "examples").glob("*.py")
)


def _torch(script: str) -> subprocess.CompletedProcess:
    return run_under_torch(script)


EDGES = {
    "second derivative of tanh": (
        "import torch\nx = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "g, = torch.autograd.grad(torch.tanh(x).sum(), x, create_graph=True)\n"
        "print(g, g.grad_fn.next_functions)\n"
        "h, = torch.autograd.grad(g.sum(), x)\nprint(h)\n"
    ),
    "x.grad of backward(create_graph=True) is CopyBackwards, then AddBackward0": (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x ** 3).sum().backward(create_graph=True)\nprint(x.grad, x.grad.grad_fn.name())\n"
        "print(x.grad.grad_fn.next_functions)\n"
        "(x.sin()).sum().backward(create_graph=True)\nprint(x.grad)\n"
        "x.grad.sum().backward()\nprint(x.grad)\n"
    ),
    "retain_grad with create_graph is CloneBackward0": (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "h = x * x\nh.retain_grad()\n(h ** 2).sum().backward(create_graph=True)\nprint(h.grad)\n"
    ),
    "create_graph keeps the graph (retain_graph defaults to it)": (
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x.exp() * x\n"
        "g, = torch.autograd.grad(y, x, create_graph=True)\ng2, = torch.autograd.grad(y, x)\n"
        "print(g, g2)\n"
    ),
    "grad_outputs that require grad stay in the graph": (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "v = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "g, = torch.autograd.grad(x ** 2, x, grad_outputs=v, create_graph=True)\n"
        "print(g)\ng.sum().backward()\nprint(x.grad, v.grad)\n"
    ),
    "a gradient that does not depend on x has no grad_fn": (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "g, = torch.autograd.grad((3 * x).sum(), x, create_graph=True)\nprint(g, g.requires_grad)\n"
    ),
    "several outputs, one shared root, several grad_outputs": (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n"
        "torch.autograd.backward([y, y], [torch.ones(2), torch.tensor([1.0, 3.0])])\nprint(x.grad)\n"
        "a, b = torch.autograd.grad([x.sum(), (x * 3).sum()], [x, x])\nprint(a, b)\n"
    ),
    "x.backward() on a leaf among several roots": (
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\n"
        "torch.autograd.backward([x, x * 3])\nprint(x.grad)\n"
    ),
    "CopySlices with a tensor that requires grad": (
        "import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "w = torch.tensor(5.0, requires_grad=True)\ny = x * 2\ny[1:] = w\n"
        "print(y, y.grad_fn.next_functions[1][0].name())\n"
        "(y * y).sum().backward()\nprint(x.grad, w.grad)\n"
    ),
    "index_put with a mask is IndexPutBackward0": (
        "import torch\nx = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)\ny = x * 1\n"
        "y[y < 0] = 0.5\nprint(y)\ny.sum().backward()\nprint(x.grad)\n"
    ),
    "a view taken before the write is regenerated": (
        "import torch\nx = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\ny = x + 0\n"
        "first = y[0]\ny[0, 1] = 10.0\nprint(first, first.grad_fn.next_functions)\n"
        "(first * 3).sum().backward()\nprint(x.grad)\n"
    ),
    "a tensor hook sees, and may replace, a gradient that has a graph (create_graph)": (
        "import torch\nx = torch.tensor([0.5, -1.0], requires_grad=True)\ny = x.tanh()\n"
        "seen = []\ny.register_hook(lambda g: seen.append(g) or g * x)\n"
        "g, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)\n"
        "print(seen[0], seen[0].grad_fn.name())\nprint(g, g.grad_fn.name())\n"
        "h, = torch.autograd.grad(g.sum(), x)\nprint(h)\n"
    ),
    "a leaf's hook with backward(create_graph=True), then the gradient differentiated": (
        "import torch\nw = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "w.register_hook(lambda g: g * g)\n(w ** 3).sum().backward(create_graph=True)\n"
        "print(w.grad, w.grad.grad_fn.name())\nw.grad.sum().backward()\nprint(w.grad)\n"
    ),
    "a hook returning None under create_graph keeps the gradient and its graph": (
        "import torch\nx = torch.tensor(1.5, requires_grad=True)\ny = x.exp()\n"
        "y.register_hook(lambda g: print('hook', g, g.requires_grad, g.grad_fn))\n"
        "g, = torch.autograd.grad(y * y, x, create_graph=True)\nprint(g, torch.autograd.grad(g, x))\n"
    ),
    "generator expressions": (
        "xs = [1.5, 2.5]\nprint(sum(v * 2 for v in xs), ', '.join(f'{v:.1f}' for v in xs if v > 2))\n"
    ),
}


@pytest.mark.parametrize("script", EDGES.values(), ids=EDGES.keys())
def test_prints_what_torch_prints(run, script):
    assert_prints_as_torch(run, script)


def test_backward_with_create_graph_warns_once_in_torchs_words(run):
    script = (
        "import torch\nx = torch.tensor(1.0, requires_grad=True)\n"
        "(x * x).backward(create_graph=True)\n(x * x * x).backward(create_graph=True)\n"
    )
    theirs = _torch(script)
    assert REFERENCE_CYCLE.split(" (Triggered")[0] in theirs.stderr
    result = run("run", "-", input=script)
    assert result.exit_code == 0
    # as python prints it: at torch's own engine file (gradcli's copy of it), once a process
    assert f": UserWarning: {REFERENCE_CYCLE}\n" in result.stderr
    assert result.stderr.count("reference cycle") == 1
    assert theirs.stderr.count("reference cycle") == 1


def test_create_graph_through_an_op_that_does_not_trace_is_one_error_line(run):
    # every op's gradient builds a graph now; prod at a zero does so once (cumprod's own
    # backward at a zero is a scan), so a second create_graph through it is the case left
    script = (
        "import torch\nx = torch.tensor([0.0, 2.0, 3.0], requires_grad=True)\nprint('before')\n"
        "g, = torch.autograd.grad(x.prod(), x, create_graph=True)\n"
        "h, = torch.autograd.grad(g.sum(), x, create_graph=True)\n"
    )
    result = run("run", "-", input=script)
    assert result.exit_code == 1 and result.stdout == "before\n"
    assert result.stderr.splitlines() == [
        "error: line 5: create_graph=True through CumprodBackward0 is not supported yet: the gradient "
        "of cumprod does not build a graph in gradcli; differentiate once, or rewrite it with other ops"
    ]


def test_allow_unused_false_is_torchs_error(run):
    script = (
        "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = torch.tensor(2.0, requires_grad=True)\n"
        "torch.autograd.grad(x * 2, [x, y])\n"
    )
    theirs = _torch(script)
    result = run("run", "-", input=script)
    assert result.exit_code == 1
    assert result.stderr == f"error: line 4: {theirs.stderr.strip().splitlines()[-1]}\n"


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_every_mode_runs_every_script(run, path):
    """--format json, --trace and --explain run each corpus script to the same end as plain run:
    the same exit code, the script's own lines in order, and never an internal error."""
    plain = run("run", str(path))
    recorded = run_api(str(path))
    assert recorded.stdout == plain.stdout
    if len(recorded.backward_calls) > 30:  # a training loop: a document, table or story per step is slow
        return
    document = json.loads(run("run", "--format", "json", str(path)).stdout)
    assert document["stdout"] == plain.stdout and len(document["backward_calls"]) == len(
        recorded.backward_calls
    )
    for mode in ("--trace", "--explain"):
        shown = run("run", mode, str(path))
        assert shown.exit_code == plain.exit_code
        assert "internal error" not in shown.stderr
        remaining = iter(shown.stdout.splitlines())
        assert all(any(line == other for other in remaining) for line in plain.stdout.splitlines())


def test_explain_narrates_each_backward_call_and_what_it_adds_to_grad(run):
    path = ROOT / "docs" / "examples" / "accumulate.py"
    result = run("run", "--explain", str(path))
    assert result.exit_code == 0
    text = result.stdout
    assert text.count("Backward pass, from the output loss back to the leaves:") == 2
    assert "── line 5: loss.backward(retain_graph=True) " in text
    assert "    dloss/dw = [1, -2] + [1, -2] = [2, -4]" in text
    assert "  w.grad: None -> tensor([ 2., -4.])" in text
    assert "  w.grad: tensor([ 2., -4.]) -> tensor([ 4., -8.])" in text
    assert text.endswith("tensor([ 4., -8.])\n")


def test_explain_of_autograd_grad_and_a_gradient_argument(run):
    script = (
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3\n"
        "g, = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, -1.0]))\nprint(g)\n"
    )
    result = run("run", "--explain", "-", input=script)
    assert result.exit_code == 0
    assert "start: v = [1, -1], the upstream gradient" in result.stdout
    assert "torch.autograd.grad returns these gradients; no .grad changes." in result.stdout
    assert result.stdout.endswith("tensor([ 3., -3.])\n")


def test_explain_refuses_json(run):
    result = run("run", "--explain", "--format", "json", "-", input="print(1)\n")
    assert result.exit_code == 2 and "--explain prints prose" in result.stderr


def test_python_api_runs_create_graph():
    result = run_api(
        "-",
        source="import torch\nx = torch.tensor(3.0, requires_grad=True)\n"
        "g, = torch.autograd.grad(x ** 3, x, create_graph=True)\ng.backward()\nprint(g, x.grad)\n",
    )
    assert result.error is None
    assert result.stdout == "tensor(27., grad_fn=<MulBackward0>) tensor(18.)\n"


# -- one graph: a tensor holds its grad_fn, each grad_fn its operands', and backward walks them


def _recorded(name, operands):
    from gradcli.script import runtime

    return runtime.apply_op(name, operands, {}, True)


def test_grad_fns_nobody_holds_are_freed_as_torchs_are():
    import weakref

    import numpy as np

    from gradcli.script import runtime

    x = runtime.Tensor(np.ones(3), requires_grad=True)
    y = _recorded("sin", [_recorded("mul", [x, 2.0])])
    outer, inner = weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.operands[0].grad_fn)
    assert outer() is not None and inner() is not None
    del y  # no list of every node anywhere: dropping the output drops its graph
    assert outer() is None and inner() is None


def test_a_backward_walks_only_the_nodes_it_reaches(monkeypatch):
    import numpy as np

    from gradcli.script import runtime

    x = runtime.Tensor(np.ones(3), requires_grad=True)
    long = x
    for _ in range(2000):  # a long graph beside the one differentiated
        long = _recorded("sin", [long])
    small = _recorded("sum", [_recorded("mul", [x, 2.0])])
    visited = []
    flows = runtime._flows
    monkeypatch.setattr(runtime, "_flows", lambda node: visited.append(node) or flows(node))
    runtime.run_backward([small], [None], retain_graph=False)
    assert len(visited) <= 3 * 3  # sum, mul and x: the 2,000 sines are never visited
    assert np.array_equal(x._grad.value, np.full(3, 2.0))
    assert not long.grad_fn.freed  # nor freed by a backward that did not reach them
