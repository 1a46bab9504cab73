"""`gradcli run`: a PyTorch script run on CPython as `python SCRIPT ARGS...` runs it, its `torch` gradcli's own."""

from __future__ import annotations

import json

import click

from ..errors import GradcliError
from ..render.safe_text import json_visible, visible
from .width import node_option, table_width, width_option

RUN_HELP = """Run a PyTorch script as `python SCRIPT ARGS...` runs it, with gradcli's torch.

SCRIPT is a file, or - for standard input. It runs on CPython itself: the whole language
and standard library, NumPy, math and random are the real ones, ARGS are its
sys.argv[1:], sys.exit(n) exits n. One difference from python: `import torch`, and every
torch module the script imports, is gradcli's own torch (the package gradcli.torch,
written on NumPy), which prints what torch 2.13 on CPU prints: reprs, warnings, torch's
generator bit for bit, errors. It is no sandbox, as `python SCRIPT` is none.

run's own options come before SCRIPT; everything after SCRIPT is the script's.
An uncaught exception ends the run as `error: line 12: RuntimeError: ...` on stderr
(exit 1), after what the script printed; --traceback prints Python's traceback of the
script's own frames instead. A torch name gradcli's torch lacks raises what Python would
(AttributeError, ImportError); docs/run.md lists what there is.

--trace prints, after each backward() or torch.autograd.grad call, the node table
of `gradcli grad` (grad_fn, value, adjoint, chain-rule step, named after the
script's variables) and each leaf's .grad before and after, between the script's own
lines. --explain narrates each call's chain rule instead, as grad --explain does.
--format json gives {"stdout", "warnings", "backward_calls"}, one record per call.
A training loop makes many calls: --call 50 (the 50th call), --call 1,10-12
or --line 23 (calls made on line 23) keep only those in all three.

\b
Examples:
  gradcli run tutorial.py
  gradcli run train.py --epochs 3        # sys.argv[1:] == ['--epochs', '3']
  echo 'import torch
  x = torch.tensor(2.0, requires_grad=True)
  (3 * x ** 2).backward()
  print(x.grad)' | gradcli run -
  gradcli run --trace tutorial.py
  gradcli run --explain tutorial.py
  gradcli run --trace --call 50 train.py
  gradcli run --explain --line 23 train.py
  gradcli run --format json tutorial.py
"""

# run's own options: after SCRIPT they are the script's arguments, which a user of the
# older `gradcli run SCRIPT --trace` may not expect, so a note says so
_RUN_OPTIONS = ("--trace", "--explain", "--format", "--width", "--call", "--line", "--node", "--traceback")


@click.command(
    "run",
    help=RUN_HELP,
    no_args_is_help=True,
    # as python: options up to SCRIPT are run's, everything after it the script's sys.argv[1:]
    context_settings={"allow_interspersed_args": False},
)
@click.argument("script", type=click.Path(allow_dash=True))  # a Path: shells complete file names
@click.argument("script_args", metavar="[ARGS]...", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--python", "on_python", is_flag=True, hidden=True
)  # the default now; kept for old command lines
@click.option(
    "--traceback",
    "show_traceback",
    is_flag=True,
    help="On an uncaught exception, print Python's traceback of the script's own frames.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text (what the script prints, as it prints) or json ({"stdout": ..., "warnings": [...], '
    '"backward_calls": [...]}).',
)
@click.option(
    "--trace",
    is_flag=True,
    help="After each backward call, print its node table and each leaf's .grad before and after.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="After each backward call, narrate its chain rule step by step, as grad --explain does.",
)
@click.option(
    "--call",
    "calls",
    metavar="N[-M],...",
    help="Trace, explain or record only these backward calls, numbered from 1 in the order they run "
    "(--call 3, --call 1,50, --call 10-12).",
)
@click.option(
    "--line",
    "lines",
    metavar="L[-M],...",
    help="Trace, explain or record only the backward calls made on these lines of the script "
    "(--line 14, --line 20-25); with --call, a call either names is kept.",
)
@width_option
@node_option
def run_command(
    script: str,
    script_args: tuple[str, ...],
    on_python: bool,
    show_traceback: bool,
    fmt: str,
    trace: bool,
    explain: bool,
    calls: str | None,
    lines: str | None,
    width: int | None,
    nodes: tuple[str, ...],
) -> None:
    chosen_calls, chosen_lines = _numbers("--call", calls), _numbers("--line", lines)
    if (calls or lines) and not (trace or explain or fmt == "json"):
        raise click.UsageError(
            "--call and --line choose what --trace, --explain or --format json show; add one"
        )
    if trace and fmt == "json":
        raise click.UsageError("--trace prints tables; --format json already has each call's nodes")
    if explain and fmt == "json":
        raise click.UsageError("--explain prints prose; use it with the default text format")
    if nodes and not trace:
        raise click.UsageError("--node chooses what --trace prints whole; add --trace")
    given = [a.partition("=")[0] for a in script_args if a.partition("=")[0] in _RUN_OPTIONS]
    if given:
        click.echo(
            f"note: {given[0]} comes after SCRIPT, so it is the script's own argument (sys.argv[1:]); "
            f"run's options go before SCRIPT: gradcli run {given[0]} ... SCRIPT",
            err=True,
        )
    _run_on_python(
        script, script_args, fmt, trace, explain, chosen_calls, chosen_lines, width, nodes, show_traceback
    )


def _numbers(option: str, text: str | None) -> frozenset[int] | None:
    """`3`, `1,50`, `10-12` as a set of positive numbers (a range at most 100,000 long)."""
    if text is None:
        return None
    found: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise click.UsageError(
                f"{option} takes numbers and ranges such as 3, 1,50 or 10-12, not {part.strip()!r}"
            ) from None
        if low < 1 or high < low or high - low >= 100_000:
            raise click.UsageError(
                f"{option} {part.strip()}: numbers count from 1, ranges go up (10-12), at most 100,000 long"
            )
        found.update(range(low, high + 1))
    return frozenset(found)


def _run_on_python(
    script: str,
    argv: tuple[str, ...],
    fmt: str,
    trace: bool,
    explain: bool,
    calls: frozenset[int] | None,
    lines: frozenset[int] | None,
    width: int | None,
    nodes: tuple[str, ...],
    show_traceback: bool,
) -> None:
    """The script on CPython with gradcli.torch; its stdout as it prints (text), or in the JSON
    document; its exit code."""
    import os

    from ..runner import run_script

    source = None
    if script == "-":
        source = click.get_text_stream("stdin").read()
    elif not os.path.isfile(script):  # a FIFO would block, a directory is not a script
        why = "no such file" if not os.path.exists(script) else "not a regular file"
        raise GradcliError(f"cannot read {script}: {'is a directory' if os.path.isdir(script) else why}")
    result = run_script(
        script,
        list(argv),
        source=source,
        capture=fmt == "json",
        trace_width=table_width(width) if trace else None,
        explain_width=table_width(width) if explain else None,
        record=fmt == "json",
        nodes=nodes,
        calls=calls,
        lines=lines,
        show_traceback=show_traceback,
    )
    if fmt == "json":
        click.echo(json_visible(json.dumps(result.to_dict(), ensure_ascii=False)))
    else:  # torch's warnings went to stderr through Python's warnings, as python prints them; these are gradcli's notes
        for warning in result.warnings:
            click.echo(f"warning: {visible(warning)}", err=True)
    if result.error is not None:
        if show_traceback:
            click.echo(result.error, err=True)
            raise SystemExit(1)
        raise GradcliError(result.error)
    if result.exit_code:
        raise SystemExit(result.exit_code)
