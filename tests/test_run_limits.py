"""`gradcli run`'s caps live in gradcli/limits.py and are read there at run time."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gradcli import limits
from gradcli.script import runtime
from gradcli.script.interpreter import run_script

CASES = {
    "MAX_LOOP": ("for i in range(3):\n    pass\n", "for i in range(4):\n    pass\n", 3),
    "MAX_STEPS": ("a = 1\nb = 2\n", "a = 1\nb = 2\nc = 3\n", 2),
    "MAX_CALL_DEPTH": (
        "def f(n):\n    return 0 if n == 0 else f(n - 1)\nf(2)\n",
        "def f(n):\n    return 0 if n == 0 else f(n - 1)\nf(3)\n",
        3,
    ),
    "MAX_OUTPUT_CHARS": ("print('abcd')\n", "print('abcde')\n", 5),
    "MAX_SEQUENCE": ("s = 'ab' * 2\n", "s = 'ab' * 3\n", 4),
    "MAX_INT_BITS": ("n = 2 ** 30\n", "n = 2 ** 40\n", 64),  # checked as bits(2) * exponent
    "MAX_EXPR_DEPTH": ("x = -(-(1))\n", "x = -(-(-(-(1))))\n", 3),
    # ones(10) makes 10 elements; x * 2 makes 10 more and is one recorded op (OP_WORK)
    "MAX_SCRIPT_WORK": (
        "import torch\nx = torch.ones(10)\ny = x * 2\n",
        "import torch\nx = torch.ones(10)\ny = x * 2\nz = y * 2\n",
        20 + runtime.OP_WORK,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_script_cap_is_read_from_limits(monkeypatch, name):
    inside, over, cap = CASES[name]
    monkeypatch.setattr(limits.Script, name, cap)
    assert run_script(inside).error is None
    error = run_script(over).error
    assert error is not None and f"{name}=" in error


def test_the_interpreter_keeps_no_caps_of_its_own():
    """Every cap lives in gradcli/limits.py, where docs/limits.md's table and --help read it."""
    import importlib
    import pkgutil

    import gradcli.script

    rooms = [importlib.import_module(f"gradcli.script.{m.name}") for m in pkgutil.iter_modules(gradcli.script.__path__)]
    assert len(rooms) > 5
    own = [f"{room.__name__}.{name}" for room in rooms for name in vars(room) if name.startswith("MAX_")]
    assert not own


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="resident size is read from /proc")
@pytest.mark.parametrize(
    "script",
    [
        "xs = []\nfor i in range(100000):\n    xs.append([0] * 1000000)\n",
        "import torch\nxs = []\nfor i in range(100000):\n    xs.append(torch.ones(1000000))\n",
        "xs = [[0] * 1000000 for i in range(100000)]\n",
    ],
    ids=["lists", "tensors", "comprehension"],
)
def test_a_script_that_keeps_allocating_is_stopped_at_the_memory_cap(monkeypatch, script):
    monkeypatch.setattr(limits.Script, "MAX_SCRIPT_BYTES", 200_000_000)
    started = time.perf_counter()
    error = run_script(script).error
    assert error is not None and "MAX_SCRIPT_BYTES=200,000,000" in error
    assert time.perf_counter() - started < 10


def test_a_script_that_frees_what_it_makes_is_not_stopped(monkeypatch):
    monkeypatch.setattr(limits.Script, "MAX_SCRIPT_BYTES", 200_000_000)
    script = "import torch\nfor i in range(200):\n    x = torch.ones(1000000)\n    y = [0] * 1000000\n"
    assert run_script(script).error is None


def test_docs_list_every_script_cap_with_its_value():
    text = (Path(__file__).resolve().parent.parent / "docs" / "limits.md").read_text(encoding="utf-8")
    caps = {name: value for name, value in vars(limits.Script).items() if name.startswith("MAX_")}
    assert len(caps) == 13
    for name, value in caps.items():
        assert f"| `{name}` | {value:,} | `run`: " in text, name


def test_a_matmul_counts_its_multiply_adds(monkeypatch):
    monkeypatch.setattr(limits.Script, "MAX_SCRIPT_WORK", 10_000 + runtime.OP_WORK)
    assert run_script("import torch\nx = torch.ones(20, 20)\ny = x @ x\n").error is None  # 8,000 / 8
    error = run_script("import torch\nx = torch.ones(60, 60)\ny = x @ x\n").error  # 216,000 / 8
    assert error is not None and f"MAX_SCRIPT_WORK={10_000 + runtime.OP_WORK:,}" in error


def test_a_loop_of_big_tensor_ops_is_stopped_within_seconds():
    started = time.process_time()
    error = run_script("import torch\nx = torch.ones(10**7)\nfor i in range(100000):\n    y = x * 2\n").error
    assert error is not None and "MAX_SCRIPT_WORK=" in error
    assert time.process_time() - started < 40


def _nested_calls(depth: int, operators: int) -> str:
    """f calls itself `depth` times, each call inside an expression `operators` deep."""
    expression = "f(n + 1)"
    for _ in range(operators):
        expression = f"(1 + {expression})"
    return f"def f(n):\n    if n >= {depth}:\n        return 0\n    return {expression}\nprint(f(0))\n"


def test_the_deepest_script_within_the_caps_runs_without_recursion_error():
    """Every call as deep as MAX_CALL_DEPTH allows, each inside an expression near
    MAX_EXPR_DEPTH: gradcli's caps, not Python's recursion limit, bound it."""
    depth, operators = limits.Script.MAX_CALL_DEPTH - 2, limits.Script.MAX_EXPR_DEPTH - 10
    result = run_script(_nested_calls(depth, operators))
    assert result.error is None
    assert result.stdout == f"{depth * operators}\n"


def test_one_call_deeper_is_refused_by_the_call_depth_cap():
    result = run_script(_nested_calls(limits.Script.MAX_CALL_DEPTH + 5, limits.Script.MAX_EXPR_DEPTH - 10))
    assert result.error is not None and "MAX_CALL_DEPTH=" in result.error


def test_a_list_that_holds_itself_prints_as_python_prints_it():
    result = run_script("a = [1]\na.append(a)\nd = {'k': a}\nd['d'] = d\nprint(a, d, a == a)\n")
    assert result.error is None
    a = [1]
    a.append(a)
    d = {"k": a}
    d["d"] = d
    assert result.stdout == f"{a} {d} True\n"
