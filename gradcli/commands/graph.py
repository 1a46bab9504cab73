"""`gradcli graph`: the computation graph as a terminal tree, Graphviz DOT, SVG or PNG."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys

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

\b
Examples:
  gradcli graph "(2*x)**3" --at x=2
  gradcli graph "y = 2*x; z = y**3; out = z.mean()" --at "x=[[1,2],[3,4]]"
  gradcli graph "(2*x)**3"                          # symbolic adjoints
  gradcli graph "(2*x)**3" --at x=2 --format dot | dot -Tpng > graph.png
  gradcli graph "(2*x)**3" --at x=2 -o graph.svg   # svg, from the extension
"""

INSTALL_HINT = (
    "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
    "Windows: winget install graphviz), or use --format ascii or --format dot"
)


# Graphviz's layout grows fast with the number of edges; a picture nobody waits for is an error.
DOT_TIMEOUT_SECONDS = 60.0


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
            f"Graphviz's dot took more than {DOT_TIMEOUT_SECONDS:g} s to lay out this graph; "
            "big graphs are easier to read with --format ascii"
        ) from None
    if completed.returncode != 0:
        detail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GradcliError(
            f"dot -T{fmt} failed: {detail[0] if detail else 'exit ' + str(completed.returncode)}"
        )
    return completed.stdout


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
    from ..render.graph import ascii_tree, to_dot

    read = ValueReader(dtype, seed)
    at_values, const_values = read.inputs(at, const)
    result = grad(
        read_program(expr),
        at=at_values,
        const=const_values,
        gradient=None if gradient is None else read("--gradient", "", gradient),
        dtype=dtype,
    )
    if fmt == "ascii":
        if output is None:
            table_console(width).print(ascii_tree(result))
            return
        # A file gets the same picture a terminal of 100 columns (or --width) would, without colour.
        file_console = table_console(width or 100, record=True, file=io.StringIO(), no_color=True)
        file_console.print(ascii_tree(result))
        write_file(output, file_console.export_text().encode("utf-8"))
        return
    source = to_dot(result)
    data = source.encode("utf-8") if fmt == "dot" else run_dot(source, fmt)
    if output is not None:
        write_file(output, data)
    elif fmt == "png" and sys.stdout.isatty():
        raise GradcliError("PNG is binary and stdout is a terminal; write it to a file with -o FILE")
    else:
        click.echo(data, nl=False)  # bytes go to the binary stream, untouched
