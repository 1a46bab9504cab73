"""Option parsing shared by commands: NAME=VALUE pairs, programs from stdin, output."""

from __future__ import annotations

import keyword
import os
import re
import sys
import unicodedata
from typing import Any

import click

from .. import limits
from ..errors import LimitError, ValueInputError


def assignments(ctx: click.Context, param: click.Parameter, items: tuple[str, ...]) -> dict[str, str]:
    """NAME=VALUE pairs; malformed ones are usage errors (exit 2)."""
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        # Python reads identifiers in NFKC form (a fullwidth ｘ is x); so do we.
        name = unicodedata.normalize("NFKC", name.strip())
        if not sep:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param=param)
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__"):
            raise click.BadParameter(f"{name!r} is not a valid input name", param=param)
        if name in pairs:
            raise click.BadParameter(f"{name!r} is given twice", param=param)
        pairs[name] = value
    return pairs


# A path-like EXPR (prog.py, ./f, dir/prog.txt); only an existing file is taken for one.
_PATH = re.compile(r"[\w.~-]*[/\\][\w./\\~-]*|[\w~-][\w.~-]*\.(py|txt|expr|grad|jsonl?)")


class FiniteFloat(click.types.FloatParamType):
    """A finite number above a bound; nan, inf and out-of-range values are usage errors (exit 2)."""

    name = "number"

    def __init__(self, minimum: float, *, open_interval: bool) -> None:
        self.minimum, self.open_interval = minimum, open_interval

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        import math

        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        too_small = number <= self.minimum if self.open_interval else number < self.minimum
        if not math.isfinite(number) or too_small:
            bound = ">" if self.open_interval else ">="
            self.fail(f"{value} is not a finite number {bound} {self.minimum:g}", param, ctx)
        return number


def read_program(expr: str) -> str:
    """EXPR itself; for `@FILE` the file's text; for `-` (or `@-`) standard input. Either is
    read only up to the program-length cap (`yes | gradcli grad -` must end at once)."""
    if expr.startswith("@") and expr != "@-":  # no program starts with @: it is a file
        from .files import program_file

        return program_file(expr[1:])
    if expr not in ("-", "@-"):
        if _PATH.fullmatch(expr) and os.path.isfile(expr):  # `gradcli grad prog.py`
            ctx = click.get_current_context(silent=True)
            command = ctx.command_path if ctx else "gradcli grad"
            raise ValueInputError(
                f"{expr!r} is a file, and EXPR is the program itself",
                hint=f"to read the program from the file, write @ before its name: {command} @{expr}",
            )
        return expr
    if sys.stdin is None:  # `gradcli grad - <&-`
        raise ValueInputError("standard input is closed; pipe a program into '-' or give EXPR itself")
    most = limits.MAX_PROGRAM_CHARS * 4  # UTF-8 needs at most 4 bytes a character
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        data = stream.read(most + 1)
    else:
        data = sys.stdin.read(most + 1).encode("utf-8", "surrogateescape")
    if len(data) > most:
        raise LimitError(
            f"standard input is longer than {most:,} bytes, over the limit "
            f"MAX_PROGRAM_CHARS={limits.MAX_PROGRAM_CHARS:,}"
        )
    try:
        return data.decode("utf-8").rstrip()  # `echo` adds a newline that is not part of the program
    except UnicodeDecodeError as exc:
        raise ValueInputError(f"standard input is not valid UTF-8 (byte {exc.start})") from None


def emit(result: Any, fmt: str, width: int | None = None, nodes: tuple[str, ...] = ()) -> None:
    """Print a result in the chosen format; rich is imported only for tables."""
    from .width import check_nodes

    check_nodes(result, nodes, fmt)
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "plain":
        from ..render.plain import render

        click.echo(render(result))
    elif fmt in ("latex", "latex-document"):
        from ..render.latex import document
        from ..render.latex import render as render_latex

        block = render_latex(result)
        click.echo(document(block) if fmt == "latex-document" else block)
    else:
        from ..render.table import render
        from .width import table_console

        render(result, table_console(width), nodes)
