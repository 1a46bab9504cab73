"""A script's text run as `gradcli run -` runs it: on CPython, its `torch` gradcli's own."""

from __future__ import annotations

import re
from collections.abc import Callable

from torch_server import run_under_torch

from gradcli.runner import ScriptRun
from gradcli.runner import run_script as run_on_python


def run_script(
    source: str,
    trace_width: int | None = None,
    record: bool = True,
    nodes: tuple[str, ...] = (),
    explain_width: int | None = None,
    calls: frozenset[int] | None = None,
    lines: frozenset[int] | None = None,
) -> ScriptRun:
    """Run `source` as a script given on standard input; its printout kept in `.stdout`.

    trace_width, explain_width: --trace's tables and --explain's prose (that wide) among what
    it prints; record: each backward call kept in `.backward_calls`; nodes, calls, lines:
    --node, --call and --line."""
    return run_on_python(
        "-",
        source=source,
        trace_width=trace_width,
        explain_width=explain_width,
        record=record,
        nodes=nodes,
        calls=calls,
        lines=lines,
    )


_ADDRESS = re.compile(r"object at 0x[0-9a-f]+|at 0x[0-9a-f]+")


def assert_prints_as_torch(run: Callable, script: str) -> None:
    """`gradcli run -` (through the CLI runner `run`) prints what python+torch 2.13 prints for
    `script`, byte for byte but for object addresses."""
    theirs = run_under_torch(script)
    assert theirs.returncode == 0, theirs.stderr
    ours = run("run", "-", input=script)
    assert ours.exit_code == 0, ours.stderr
    assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", theirs.stdout)
