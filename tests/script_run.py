"""A script's text run as `gradcli run -` runs it: on CPython, its `torch` gradcli's own."""

from __future__ import annotations

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
