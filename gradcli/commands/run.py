"""`gradcli run`: a PyTorch autograd script, interpreted (never executed), printing what torch prints."""

from __future__ import annotations

import json

import click

from ..errors import GradcliError
from .common import read_program

RUN_HELP = """Run a PyTorch-style autograd script and print what `python SCRIPT` prints under torch.

SCRIPT is a file, or - for standard input. The script is read with Python's parser and
interpreted by gradcli, never executed: imports of torch, torch.nn.functional,
torch.autograd, math and numpy; assignments, for over range or a list, if, small
defs, try/except RuntimeError, assert, with torch.no_grad(), print and f-strings;
tensors from torch.tensor, zeros, ones, full, eye, arange, linspace and every op of
`gradcli ops`; backward(gradient, retain_graph), torch.autograd.grad, .grad,
.grad.zero_(), retain_grad(), detach(), .data, in-place updates under no_grad.

Errors are PyTorch's, with the script's line: `error: line 12: RuntimeError: ...`
(exit 1), after what the script printed before. PyTorch's warnings go to stderr.

\b
Examples:
  gradcli run tutorial.py
  echo 'import torch
  x = torch.tensor(2.0, requires_grad=True)
  (3 * x ** 2).backward()
  print(x.grad)' | gradcli run -
  gradcli run tutorial.py --format json
"""


@click.command("run", help=RUN_HELP, no_args_is_help=True)
@click.argument("script")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text (what the script prints) or json ({"stdout": ..., "warnings": [...], "backward_calls": [...]}).',
)
def run_command(script: str, fmt: str) -> None:
    from ..api import run

    if script == "-":
        source = read_program("-")
    else:
        try:
            with open(script, encoding="utf-8") as handle:
                source = handle.read(4 * 500_000 + 1)
        except (OSError, UnicodeDecodeError) as exc:
            raise GradcliError(f"cannot read {script}: {getattr(exc, 'strerror', None) or exc}") from None
    result = run(source)
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        click.echo(result.stdout, nl=False)
        for warning in result.warnings:
            click.echo(f"warning: {warning}", err=True)
    if result.error is not None:
        raise GradcliError(result.error)
