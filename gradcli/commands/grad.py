"""`gradcli grad`: gradients of a program at a point, or symbolically."""

from __future__ import annotations

import contextlib
import dataclasses

import click

from .common import emit, read_program
from .inputs import ValueReader, point_options
from .width import node_option, width_option

GRAD_HELP = """Gradient of a program's output with respect to its inputs, as backward() computes it.

EXPR is a formula or statements separated by ';' or newlines (Python syntax, `^` is
power); the last statement is the output. Use - to read EXPR from standard input,
@FILE to read it from a file (gradcli grad @prog.txt).
Functions are spelled as in PyTorch or NumPy: sin(x), torch.exp(x), F.relu(x),
x.square().sum(), np.mean(x, axis=0), F.cross_entropy(z, y), x[0, 1:], x[:, None];
constants may be made in the program: torch.tensor([2, 0]), torch.ones(3), torch.arange(4).
`gradcli ops` lists them all. A program may start with a minus sign.
Inputs given with --at require grad (PyTorch leaves); --const inputs do not. With
no --at or --const at all, the symbolic gradient is printed.

VALUE is a number or list as JSON or Python writes it (2, .5, -pi/2, 1/3, [1,2],
[[1,2],[3,4]]) or one of zeros(2,3), ones(2,2), full(2,2,0.5), eye(3), arange(5),
linspace(0,1,11), rand(3), randn(2,2). Class indices are a --const of whole numbers.
VALUE @FILE reads a .json, .npy, .npz (@f.npz:key), .csv or .txt file (never
unpickled; a float32 file computes in float32 unless --dtype is given); @- reads
standard input.

Symbolic results are cached in $XDG_CACHE_HOME/gradcli (else ~/.cache/gradcli)
for each program and its inputs' shapes, so running it again at another point is
faster. GRADCLI_CACHE_DIR=DIR moves the cache; GRADCLI_CACHE_DIR= turns it off.

\b
Examples:
  gradcli grad "(2*x)**3" --at x=2                  # x.grad = 96
  gradcli grad "(2*x)**3"                           # 24*x**2
  gradcli grad "y = 2*x; z = y**3; out = z.mean()" \\
      --at "x=[[1.8528,0.2083],[1.5296,0.3136]]"
  gradcli grad "y = matmul(X, W) + b; loss = sum(y**2)" \\
      --at "W=[[1,2],[3,4]]" --at "b=[0.5,1]" --const "X=[[1,0.5],[0.2,0.8]]"
  gradcli grad "y = 2*x; z = y**3" --at "x=[[1,2],[3,4]]" \\
      --retain-graph --zero-grad --gradient "[[1,1],[1,1]]" \\
      --gradient "[[0,1],[0,1]]" --gradient "[[1,1],[0,0]]"
  gradcli grad "x**3" --at x=3 --passes 3 --retain-graph   # 27, 54, 81
  echo "(2*x)**3" | gradcli grad - --at x=2 --format plain # x<TAB>96.0
  gradcli grad "sin(x)" --at x=0.5 --order 3               # -cos(0.5)
  gradcli grad "x*y" --batch points.jsonl                  # JSON Lines
  gradcli grad @prog.txt --at x=@x.npy --const "W=@data.npz:W"
  gradcli grad "-log(p)" --at p=0.25                      # minus first
  gradcli grad "F.cross_entropy(z, y)" --at "z=[[2,0.5]]" --const "y=[0]"
  gradcli grad "F.cross_entropy(z, torch.tensor([0]))" --at "z=[[2,0.5]]"
  gradcli grad "sum(x**2)" --at "x=arange(100)" --node x --width 60 | less

The table has a row per node: grad_fn, shape, value, adjoint (adj_N, what backward()
sends node N) and the chain-rule step giving adj_N from its consumers' adjoints.
Tensors too wide for a cell end in …; --node NAME prints that node whole.
"""


@click.command("grad", help=GRAD_HELP, no_args_is_help=True)
@click.argument("expr")
@point_options
@click.option(
    "--gradient",
    "gradients",
    multiple=True,
    metavar="VALUE",
    help="Upstream gradient for one backward pass; given K times, K passes run; "
    "given once with --passes N, every pass uses it. Default: 1 for a scalar output.",
)
@click.option(
    "--passes",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Run backward N times; leaf grads accumulate as in PyTorch (the table's adjoint column is "
    "the last pass's; a table of .grad after each pass follows).",
)
@click.option(
    "--retain-graph",
    is_flag=True,
    help="Keep the graph between passes. Without it a second pass fails as in PyTorch, after "
    "the first pass's result is printed (exit 1).",
)
@click.option("--zero-grad", is_flag=True, help="Zero every leaf's grad before each pass after the first.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "plain", "latex", "latex-document"]),
    default="table",
    show_default=True,
    help="table (rich), json (strict JSON), plain (NAME<TAB>GRAD lines, GRAD compact JSON but "
    "nan/inf bare), latex (an align* block to paste) or latex-document (the same in a whole "
    "document: pdflatex FILE.tex).",
)
@click.option(
    "--order",
    type=click.IntRange(min=1, max=8),
    default=1,
    show_default=True,
    metavar="N",
    help="N-th derivative for each leaf, as N-1 rounds of torch.autograd.grad(g.sum(), x, "
    "create_graph=True) and one more give it: pure for a scalar leaf, elementwise for a tensor "
    "leaf of an elementwise program, Hessian row sums (and their analogues) in general; JSON's "
    "derivative_kind says which.",
)
@click.option(
    "--batch",
    "batch",
    metavar="FILE",
    default=None,
    type=click.Path(allow_dash=True),
    help='JSON Lines of points ({"x": 2, "y": 3} a line; - for stdin): one JSON line out per point, '
    '{"point": ..., "value": ..., "grads": {...}}. Output is always JSON Lines: --format table '
    "(given explicitly) is a usage error with --batch.",
)
@click.option(
    "--batch-errors",
    type=click.Choice(["fail", "skip"]),
    default="fail",
    show_default=True,
    help="On a bad --batch line: stop with an error naming it, or write an error object and go on "
    "(stderr then says how many lines were skipped and the first one's number).",
)
@click.option(
    "--no-echo",
    is_flag=True,
    help="With --batch: leave the point out of each output line and write its line number instead "
    '({"line": 3, "value": ..., "grads": ...}), for big points.',
)
@click.option(
    "--explain", is_flag=True, help="Narrate the chain rule step by step, from the output back to each leaf."
)
@click.option("--no-symbolic", is_flag=True, help="Skip symbolic forms (faster on big programs).")
@click.option(
    "--expanded",
    is_flag=True,
    help="Write each leaf's formula expanded in the inputs' names (JSON's grad_symbolic) instead of "
    "as the chain composes it in the program's names (grad_readable).",
)
@width_option
@node_option
@click.pass_context
def grad_command(
    ctx: click.Context,
    expr: str,
    at: dict[str, str],
    const: dict[str, str],
    gradients: tuple[str, ...],
    passes: int | None,
    retain_graph: bool,
    zero_grad: bool,
    dtype: str,
    fmt: str,
    seed: int,
    no_symbolic: bool,
    expanded: bool,
    explain: bool,
    order: int,
    batch: str | None,
    batch_errors: str,
    no_echo: bool,
    width: int | None,
    nodes: tuple[str, ...],
) -> None:
    from ..api import grad
    from .cache import DiskCache

    if explain and fmt != "table":
        raise click.UsageError("--explain prints prose; use it with the default table format")
    if order != 1 and (gradients or passes):
        raise click.UsageError("--order runs one pass: drop --gradient and --passes")
    if no_symbolic and not at and not const and batch is None:
        raise click.UsageError(
            "--no-symbolic needs a point: without --at the symbolic gradient is the whole answer"
        )
    given = ctx.get_parameter_source("fmt") is not click.core.ParameterSource.DEFAULT
    if batch is not None and fmt != "json" and given:  # the default table means "not chosen" here
        raise click.UsageError(f"--batch writes JSON Lines; drop --format {fmt} (or give --format json)")
    if no_echo and batch is None:
        raise click.UsageError("--no-echo leaves the point out of --batch output; it needs --batch")
    read = ValueReader(dtype, seed)
    if batch is not None:
        _run_batch(
            expr, batch, read, at, const, gradients, passes, order, explain, batch_errors == "skip", no_echo
        )
        return
    program = read_program(expr)
    at_values, const_values = read.inputs(at, const)
    gradient_values = [read("--gradient", f"#{i}", v) for i, v in enumerate(gradients, 1)]
    result = _partial_or(
        grad,
        program,
        at=at_values,
        const=const_values,
        dtype=read.dtype_name,
        gradients=gradient_values or None,
        # Plain output at a point is NAME<TAB>GRAD and nothing else: symbolic forms would be
        # computed (and sympy imported) for nobody. Without a point it prints them, so they stay.
        symbolic=not no_symbolic and fmt != "plain",
        passes=passes,
        retain_graph=retain_graph,
        zero_grad=zero_grad,
        order=order,
        # Plain shows no node, so keep none: big elementwise programs then run in blocks.
        nodes=fmt != "plain" or explain,
        symbolic_cache=DiskCache.default(),
        edges=explain,  # the narration reads the engine's own pass, not a second one
    )
    result, error = result
    if expanded and fmt != "json":  # JSON has both forms under their own keys
        result = dataclasses.replace(result, grad_readable=_expanded(result))
    _show(result, fmt, width, nodes, explain)
    if error is not None:  # torch would raise here, after the passes shown had finished
        index, total = len(result.passes) + 1, len(gradients) if len(gradients) > 1 else passes
        raise type(error)(f"backward pass {index} of {total}: {error.message}", hint=error.hint)


def _expanded(result) -> dict[str, tuple[str, ...] | None]:
    """Each leaf's grad_symbolic (expanded in the inputs' names) in PyTorch's words: read back
    through latex.py's whitelist of Python's syntax tree (never eval), printed by torch_text."""
    from ..errors import GradcliError
    from ..render.latex import parse_symbolic
    from ..symbolic import torch_text

    names = [n.name for n in result.nodes]
    found: dict[str, tuple[str, ...] | None] = {}
    for leaf, text in result.grad_symbolic.items():
        if text is not None:
            with contextlib.suppress(GradcliError, ValueError, TypeError, RecursionError):
                text = torch_text(parse_symbolic(text, names))  # else sympy's own, as JSON has it
        found[leaf] = None if text is None else (f"{leaf}.grad = {text}",)
    return found


def _partial_or(function, *args, **kwargs):
    """(result, None), or when a later backward pass fails (a second pass without
    --retain-graph, a gradient of the wrong shape), (the finished passes, the error)."""
    from ..errors import GradcliError

    try:
        return function(*args, **kwargs), None
    except GradcliError as exc:
        if exc.partial is None:
            raise
        return exc.partial, exc


def _show(result, fmt: str, width: int | None, nodes: tuple[str, ...], explain: bool) -> None:
    if explain:
        from ..render.explain import render as render_explain
        from .width import table_width

        click.echo(render_explain(result, width=table_width(width)))
        return
    emit(result, fmt, width, nodes)
    if fmt == "plain":  # the table shows warnings, JSON lists them; plain keeps stdout to NAME<TAB>GRAD
        from ..render.safe_text import visible

        for warning in result.warnings:
            click.echo(f"warning: {visible(warning)}", err=True)


def _run_batch(
    expr: str,
    path: str,
    read: ValueReader,
    at: dict[str, str],
    const: dict[str, str],
    gradients: tuple[str, ...],
    passes: int | None,
    order: int,
    explain: bool,
    skip_errors: bool,
    no_echo: bool,
) -> None:
    """Stream points from FILE (or stdin) through one program, one JSON line out per point."""
    import sys

    from ..batch import BatchRunner, bounded_lines
    from ..errors import GradcliError
    from ..render.safe_text import json_visible

    if at or gradients or passes or order != 1 or explain:
        raise click.UsageError(
            "--batch takes the points from its lines: drop --at, --gradient, --passes, --order and --explain"
        )
    if path == "-" and expr in ("-", "@-"):
        raise click.UsageError("EXPR and --batch cannot both read standard input")
    _, const_values = read.inputs({}, const)
    runner = BatchRunner(
        read_program(expr), const_values, read.dtype_name, skip_errors=skip_errors, echo=not no_echo
    )
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise GradcliError(f"cannot read --batch {path}: {exc.strerror}") from None
    try:
        out = sys.stdout
        for line in runner.run(bounded_lines(stream)):
            out.write(json_visible(line) + "\n")  # a point's own text is echoed: a raw \r in it too
        out.flush()
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if runner.skipped:  # exit 0 all the same: the error objects are in the output, in place
        lines = "line" if runner.skipped == 1 else "lines"
        click.echo(
            f"warning: --batch-errors skip: skipped {runner.skipped:,} bad {lines} "
            f'(the first: line {runner.first_skipped}); each has an {{"line": N, "error": ...}} object',
            err=True,
        )
