"""`gradcli run`: a PyTorch autograd script, interpreted (never executed), printing what torch prints."""

from __future__ import annotations

import json

import click

from ..errors import GradcliError
from ..render.safe_text import json_visible, visible
from .common import read_program
from .width import node_option, table_width, width_option

RUN_HELP = """Run a PyTorch-style autograd script and print what `python SCRIPT` prints under torch.

SCRIPT is a file, or - for standard input. The script is read with Python's parser and
interpreted by gradcli, never executed: imports of torch, torch.nn, torch.nn.functional,
torch.autograd, torch.func, torch.optim, torch.utils.data, math, random (Python's numbers) and numpy
(arrays, math, np.random with NumPy's own numbers; from_numpy/.numpy() share memory);
classes (nn.Module and
autograd.Function subclasses too), torch.nn's layers, losses and Module API, optimisers
and lr schedulers, TensorDataset and DataLoader; assignments, for over range or a list, while (capped),
list comprehensions and generator expressions, dicts, if, small defs (@torch.no_grad()
too; a def with `yield` runs through when called and its values are iterated after),
iter/next, try/except RuntimeError (ValueError, ...), raise ValueError(message), assert, with torch.no_grad(), print, f-strings and
%-formatting; torch.device and x.to(device) (the CPU); torch.allclose, type(v),
isinstance, f(*args), max()/min() over tensors, torch.set_printoptions, int32 tensors,
x.double() of a tensor that requires grad (ToCopyBackward0);
tensors from torch.tensor, zeros, ones, full, eye, arange, linspace, rand, randn,
randint, randperm and normal (torch's own generator, modelled bit for bit: after
torch.manual_seed(n) the numbers torch draws) and every op of `gradcli ops`; backward(gradient, retain_graph, create_graph, inputs),
torch.autograd.functional.jacobian/hessian/vjp/jvp/vhp/hvp (create_graph, strict,
vectorize), torch.func.grad/grad_and_value/vjp/jacrev/jacfwd/hessian (no vmap),
torch.autograd.backward and torch.autograd.grad (several outputs, grad_outputs,
allow_unused, create_graph=True for second derivatives, Hessian-vector products and
gradient penalties), .grad, .grad.zero_(), retain_grad(), register_hook, detach(),
.data, views that share storage, in-place updates (x.clamp_(min=0), x -= ...; PyTorch's
version-counter errors included), and index assignment into a tensor in a graph (CopySlices).

Errors are PyTorch's, with the script's line: `error: line 12: RuntimeError: ...`
(exit 1), after what the script printed before. PyTorch's warnings go to stderr.

--trace prints, after each backward() or torch.autograd.grad call, the node table
of `gradcli grad` (grad_fn, value, adjoint, chain-rule step, named after the
script's variables) and each leaf's .grad before and after the call, between the
script's own lines. --explain narrates each call's chain rule instead, as grad
--explain does. --format json gives one record per call in "backward_calls".
A training loop makes many calls: --call 50 (the 50th call), --call 1,10-12
or --line 23 (calls made on line 23) keep only those in all three.

--python (in progress) runs the script on CPython itself, as `python SCRIPT ARGS...`
runs it, with `import torch` bound to gradcli's own torch (gradcli.torch): the whole
language and standard library, and no sandbox, as `python SCRIPT` is none.

\b
Examples:
  gradcli run tutorial.py
  echo 'import torch
  x = torch.tensor(2.0, requires_grad=True)
  (3 * x ** 2).backward()
  print(x.grad)' | gradcli run -
  echo 'import torch
  x = torch.tensor(2.0, requires_grad=True)
  g, = torch.autograd.grad(x ** 3, x, create_graph=True)
  g.backward()
  print(g, x.grad)' | gradcli run -
  gradcli run tutorial.py --trace
  gradcli run tutorial.py --explain
  gradcli run train.py --trace --call 50
  gradcli run train.py --explain --line 23
  gradcli run tutorial.py --format json
  gradcli run --python train.py -- --epochs 3   # sys.argv[1:] is the ARGS
"""


@click.command("run", help=RUN_HELP, no_args_is_help=True)
@click.argument("script", type=click.Path(allow_dash=True))  # a Path: shells complete file names
@click.argument("script_args", metavar="[ARGS]...", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--python",
    "on_python",
    is_flag=True,
    help="Run the script on CPython itself, as `python SCRIPT ARGS...` runs it, with `import torch` bound "
    "to gradcli's own torch (gradcli.torch); ARGS become its sys.argv[1:]. The coming default, still "
    "in progress: docs/run.md says what it runs.",
)
@click.option(
    "--traceback",
    "show_traceback",
    is_flag=True,
    help="With --python: on an uncaught exception, print Python's traceback of the script's own frames.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text (what the script prints) or json ({"stdout": ..., "warnings": [...], "backward_calls": [...]}).',
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
    from ..script.interpreter import run_script

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
    if (script_args or show_traceback) and not on_python:
        raise click.UsageError("script arguments and --traceback need --python (the script run on CPython)")
    if on_python:
        _run_on_python(
            script, script_args, fmt, trace, explain, chosen_calls, chosen_lines, width, nodes, show_traceback
        )
        return
    if script == "-":
        source = read_program("-")
    else:
        from .. import limits
        from .files import check_regular

        # a FIFO or /dev/zero would block or never end: only a regular file is opened
        most = 4 * limits.MAX_PROGRAM_CHARS  # UTF-8 needs at most 4 bytes a character
        check_regular(
            script, f"SCRIPT {script}", most, f"MAX_PROGRAM_CHARS={limits.MAX_PROGRAM_CHARS:,} characters"
        )
        try:
            with open(script, encoding="utf-8") as handle:
                source = handle.read(4 * 500_000 + 1)
        except (OSError, UnicodeDecodeError) as exc:
            raise GradcliError(f"cannot read {script}: {getattr(exc, 'strerror', None) or exc}") from None
    result = run_script(
        source,
        table_width(width) if trace else None,
        record=fmt == "json",
        nodes=nodes,
        explain_width=table_width(width) if explain else None,
        calls=chosen_calls,
        lines=chosen_lines,
    )
    if fmt == "json":
        # ensure_ascii=False keeps Greek and '·' readable; json_visible escapes what a
        # terminal would obey (C1, bidi controls), which json.dumps leaves raw in strings.
        click.echo(json_visible(json.dumps(result.to_dict(), ensure_ascii=False)))
    else:
        # The script's own print()s, byte for byte as python prints them: color=True stops
        # click from stripping ANSI sequences when stdout is not a terminal.
        click.echo(result.stdout, nl=False, color=True)
        for warning in result.warnings:
            click.echo(f"warning: {visible(warning)}", err=True)
    if result.error is not None:
        raise GradcliError(result.error)


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
    """--python: the script on CPython with gradcli.torch; its stdout as it prints (text), or
    in the JSON document; its exit code."""
    import os

    from ..runner import run_script

    source = None
    if script == "-":
        source = click.get_text_stream("stdin").read()
    elif not os.path.isfile(script):
        raise GradcliError(
            f"cannot read {script}: {'no such file' if not os.path.exists(script) else 'not a regular file'}"
        )
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
