"""`gradcli graph`: the computation graph as a terminal tree, Graphviz DOT, SVG or PNG."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from typing import Any

import click

from ..errors import GradcliError
from .common import read_program
from .inputs import ValueReader, point_options
from .width import table_console, width_option

GRAPH_HELP = """Draw the computation graph, from the output back to the leaves.

Each node shows its name, op, PyTorch grad_fn and symbolic form; with a point
(--at/--const) also its value and adjoint (the gradient backward() sends it),
without one its symbolic adjoint. ascii (the default) draws in the terminal;
dot prints Graphviz source; svg and png run Graphviz's `dot` program.

ascii draws every node once, down to the leaves, with labels whole at 80
columns, and says where it leaves something out:

\b
  h7  -> see above          a node used again, drawn where first met
  t13  -> continued below   a subtree too deep for the width, drawn after
                            as a tree of its own, "t13 (continued)"

svg and png stop at once on graphs of more than 2,000 nodes (Graphviz would
take minutes) and name the format that shows them.

\b
Examples:
  gradcli graph "(2*x)**3" --at x=2
  gradcli graph "y = 2*x; z = y**3; out = z.mean()" --at "x=[[1,2],[3,4]]"
  gradcli graph "(2*x)**3"                          # symbolic adjoints
  gradcli graph "(2*x)**3" --at x=2 --format dot | dot -Tpng > graph.png
  gradcli graph "(2*x)**3" --at x=2 -o graph.svg   # svg, from the extension
  gradcli graph "h = tanh(x)*0.5 + x*0.5; tanh(h)*0.5 + h*0.5" --at x=0.3
  gradcli graph - --at x=0.3 --width 80 < long_program.txt
"""

INSTALL_HINT = (
    "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "Windows: winget install graphviz), or use --format ascii or --format dot"
)


# Graphviz's layout time grows faster than the graph (a 2,000-node chain takes about 2 s,
# 4,000 about 9 s, 12,000 minutes): bigger graphs are refused before dot starts, and a
# picture nobody waits for is an error.
MAX_LAYOUT_NODES = 2_000
DOT_TIMEOUT_SECONDS = 60.0
WHOLE_HINT = (
    "--format ascii draws every node in seconds; --format dot -o graph.dot writes the source "
    "for `dot -Tsvg graph.dot > graph.svg` to lay out with no time limit"
)


def write_file(path: str, data: bytes) -> None:
    """Write -o FILE; a path that cannot be written is one clear error, not a traceback."""
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise GradcliError(f"cannot write {path}: {exc.strerror or exc}") from None


def find_dot() -> str | None:
    """Path of Graphviz's `dot`, or None when it is not installed."""
    return shutil.which("dot")


def run_dot(source: str, fmt: str) -> bytes:
    """Render DOT source with Graphviz; a missing or failing `dot` is one clear error."""
    dot = find_dot()
    if dot is None:
        raise GradcliError(
            f"--format {fmt} needs Graphviz's `dot` program, which was not found; {INSTALL_HINT}"
        )
    try:
        completed = subprocess.run(  # noqa: S603 - a fixed argument list, DOT text on stdin
            [dot, f"-T{fmt}"],
            input=source.encode("utf-8"),
            capture_output=True,
            check=False,
            timeout=DOT_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise GradcliError(
            f"Graphviz's dot took more than {DOT_TIMEOUT_SECONDS:g} s to lay out this graph; {WHOLE_HINT}"
        ) from None
    if completed.returncode != 0:
        detail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GradcliError(
            f"dot -T{fmt} failed: {detail[0] if detail else 'exit ' + str(completed.returncode)}"
        )
    scaled = re.search(rb"Scaling by ([0-9.]+)", completed.stderr)
    if scaled:  # cairo's bitmaps stop at 32,767 pixels: dot shrinks the picture, often past reading
        click.echo(
            f"warning: Graphviz drew this {fmt.upper()} at {float(scaled.group(1)):.2g} of its size "
            "to fit a bitmap's 32,767-pixel limit; an .svg file keeps it sharp",
            err=True,
        )
    return completed.stdout


def check_layout_size(nodes: int, fmt: str) -> None:
    """Refuse at once a graph Graphviz would take minutes over, naming what shows it whole."""
    if nodes > MAX_LAYOUT_NODES:
        raise GradcliError(
            f"this graph has {nodes:,} nodes; Graphviz's dot lays out up to {MAX_LAYOUT_NODES:,} "
            f"in seconds and may take minutes over more, so --format {fmt} stops here: {WHOLE_HINT}"
        )


FORMATS = ("ascii", "dot", "svg", "png")
_EXTENSIONS = {".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".txt": "ascii"}


def _pick_format(fmt: str | None, output: str | None) -> str:
    """--format, else the one -o FILE's extension names; a file must not get another format's bytes."""
    from pathlib import Path

    implied = _EXTENSIONS.get(Path(output).suffix.lower()) if output else None
    if fmt is None:
        return implied or "ascii"
    if implied is not None and implied != fmt:
        raise click.UsageError(
            f"-o {output} names {implied} output but --format is {fmt}; "
            f"drop --format or name the file {Path(output).stem}.{'txt' if fmt == 'ascii' else fmt}"
        )
    return fmt


def print_tree(result: Any, width: int | None, output: str | None) -> None:
    """The ascii picture to the terminal (colour where it is one) or to -o FILE.

    A file gets the picture a terminal of 100 columns (or --width) would, without colour.
    Lines are laid out once by the renderer; rich only colours them, with no second wrap.
    """
    from ..render.graph import tree_lines

    console = table_console(width if output is None else width or 100)
    lines = tree_lines(result, console.width)
    if output is None and console.color_system is not None:
        from rich.text import Text

        console.print(Text("\n").join(lines), soft_wrap=True)
        return
    text = "".join(line.plain + "\n" for line in lines)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_file(output, text.encode("utf-8"))


@click.command("graph", help=GRAPH_HELP, no_args_is_help=True)
@click.argument("expr")
@point_options
@click.option(
    "--gradient", metavar="VALUE", default=None, help="Upstream gradient (needed for a tensor output)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="ascii (terminal tree), dot (Graphviz source), svg or png (need Graphviz's dot). "
    "Default: from -o FILE's extension (.dot/.gv, .svg, .png), else ascii.",
)
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(dir_okay=False, writable=True, allow_dash=True),
    help="Write to FILE (- for stdout), not stdout.",
)
@width_option
def graph_command(
    expr: str,
    at: dict[str, str],
    const: dict[str, str],
    dtype: str,
    seed: int,
    gradient: str | None,
    fmt: str | None,
    output: str | None,
    width: int | None,
) -> None:
    if output == "-":
        output = None
    fmt = _pick_format(fmt, output)
    from ..api import grad
    from ..render.graph import to_dot

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    result = grad(
        read_program(expr),
        at=at_values,
        const=const_values,
        gradient=None if gradient is None else read("--gradient", "", gradient),
        dtype=read.dtype_name,  # a float32 file keeps the graph in float32, as grad does
    )
    if fmt == "ascii":
        print_tree(result, width, output)
        return
    if fmt in ("svg", "png"):
        check_layout_size(len(result.nodes), fmt)
    source = to_dot(result)
    data = source.encode("utf-8") if fmt == "dot" else run_dot(source, fmt)
    if output is not None:
        write_file(output, data)
    elif fmt == "png" and sys.stdout.isatty():
        raise GradcliError("PNG is binary and stdout is a terminal; write it to a file with -o FILE")
    else:
        click.echo(data, nl=False)  # bytes go to the binary stream, untouched
