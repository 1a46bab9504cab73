"""--width, declared once for every command that draws a table, and the width tables get.

A pipe has no width, so `gradcli grad ... | less` used to draw at 80 columns whatever the
terminal. The width is --width, else $COLUMNS, else the terminal behind stdout, stderr
or /dev/tty (the one the user is looking at), else 80.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

import click

DEFAULT_WIDTH = 80
WIDTH_HELP = (
    "Columns to fit tables in. Default: $COLUMNS, else the terminal's width (even through a pipe), else 80."
)


def width_option(function: Callable) -> Callable:
    """The --width option, the same on grad, jacobian, hessian, check, graph and ops."""
    return click.option(
        "--width", type=click.IntRange(min=40, max=1000), default=None, metavar="N", help=WIDTH_HELP
    )(function)


def _terminal_columns() -> int | None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            return os.get_terminal_size(stream.fileno()).columns
    with contextlib.suppress(OSError):
        descriptor = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
        try:
            return os.get_terminal_size(descriptor).columns
        finally:
            os.close(descriptor)
    return None


def table_width(width: int | None = None) -> int:
    """--width if given, else $COLUMNS, else the user's terminal, else 80."""
    if width:
        return width
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    found = _terminal_columns()
    return found if found and found > 0 else DEFAULT_WIDTH


def table_console(width: int | None = None, **options: Any) -> Any:
    """A rich Console drawing at table_width(width); rich is imported only here, when needed."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich would exit 1 here; gradcli's error boundary ends a closed pipe quietly, with 0.
            self.quiet = True
            raise BrokenPipeError

    return _Console(highlight=False, markup=False, width=table_width(width), **options)


def node_option(function: Callable) -> Callable:
    """--node NAME: print these nodes' tensors whole under the table (repeatable)."""
    return click.option(
        "--node",
        "nodes",
        multiple=True,
        metavar="NAME",
        help="Print this node's value and adjoint whole under the table, rows aligned (repeatable).",
    )(function)


def check_nodes(result: Any, names: tuple[str, ...], fmt: str) -> None:
    """--node names a node of the table: a typo is a usage error that lists the names."""
    if not names:
        return
    if fmt != "table":
        raise click.UsageError("--node chooses what the table prints whole; drop it with --format " + fmt)
    known = [node.name for node in result.nodes]
    for name in names:
        if name not in known:
            raise click.BadParameter(
                f"no node named {name!r}; the nodes are {', '.join(known)}", param_hint="'--node'"
            )
