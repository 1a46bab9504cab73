"""Plain-text tables fitted to a width: columns that never cut a number or a name.

rich's tables fold a cell at any character when space runs out (`He`/`aviside`,
`[[-0.05…`). Here every column knows how it may give way: a `fixed` cell never does, a
`text` cell wraps at spaces (and, for a word longer than the column, after an operator
or a comma), a `number` cell is summarised with `…` (values.summary) from the widths
`fit` hands out. Lines never pass the width unless the fixed cells alone do.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from .values import summary, summary_floor

GAP = 2  # spaces between columns
MARGIN = 2  # spaces before the first column
FIXED, TEXT, NUMBER = "fixed", "text", "number"
COMFORT = 24  # characters a tensor cell is given before text columns keep their full width


@dataclass
class Column:
    header: str
    cells: list[Any]  # text, or for NUMBER an array (None shows as "-")
    kind: str = FIXED
    right: bool = False
    style: str = ""
    floor: int = 10  # NUMBER: the narrowest a tensor summary may get
    widths: tuple[int, int] = field(default=(0, 0), init=False)  # (least, natural)

    def measure(self) -> tuple[int, int]:
        head = len(self.header)
        if self.kind == NUMBER:
            naturals = [len(summary(v, 10**6)) for v in self.cells]
            leasts = [summary_floor(v, self.floor) for v in self.cells]
        elif self.kind == TEXT:
            naturals = [len(c) for c in self.cells]
            leasts = [max((len(w) for w in c.split()), default=0) for c in self.cells]
        else:
            naturals = leasts = [len(c) for c in self.cells]
        least = max([head, *leasts])
        return least, max([least, *naturals])


def fit(columns: list[Column], width: int) -> list[int] | None:
    """Column widths within `width`, or None when even the narrowest layout does not fit.

    Fixed columns get their full width. Number columns are promised up to COMFORT
    characters first (a few elements of each tensor), then text columns wrap as far as
    they must, then numbers give way down to their floor; what is left goes to numbers
    up to their whole text.
    """
    sizes = [c.measure() for c in columns]
    room = width - MARGIN - GAP * (len(columns) - 1)
    numbers = [i for i, c in enumerate(columns) if c.kind == NUMBER]
    texts = [i for i, c in enumerate(columns) if c.kind == TEXT]
    widths = [natural for _, natural in sizes]
    for i in numbers:
        widths[i] = max(sizes[i][0], min(sizes[i][1], COMFORT))
    excess = sum(widths) - room
    for group in (texts, numbers):  # text wraps first; numbers shrink only after
        while excess > 0:
            slack = {i: widths[i] - sizes[i][0] for i in group if widths[i] > sizes[i][0]}
            if not slack:
                break
            i = max(slack, key=lambda j: (widths[j], slack[j]))  # the widest gives, a character at a time
            widths[i] -= 1
            excess -= 1
    if excess > 0:
        return None
    spare = -excess
    growing = [i for i in numbers if widths[i] < sizes[i][1]]
    while spare > 0 and growing:  # water-fill: evenly, never past a column's whole text
        share = max(1, spare // len(growing))
        for i in list(growing):
            add = min(share, sizes[i][1] - widths[i], spare)
            widths[i] += add
            spare -= add
            if widths[i] >= sizes[i][1]:
                growing.remove(i)
    return widths


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` at spaces; a longer word breaks after an operator or comma."""
    words: list[str] = []
    for word in text.split(" "):
        while len(word) > width:
            cut = max((word.rfind(ch, 0, width) for ch in ",(*/+@"), default=-1)
            cut = cut + 1 if cut > 0 else width  # no safe place: a hard break (never at width >= 40)
            words.append(word[:cut])
            word = word[cut:]
        words.append(word)
    return textwrap.wrap(" ".join(words), width, break_long_words=False, break_on_hyphens=False) or [""]


def cell_lines(column: Column, value: Any, width: int) -> list[str]:
    if column.kind == NUMBER:
        return [summary(value, width)]
    if column.kind == TEXT:
        return wrap(value, width)
    return [value]


def draw(
    columns: list[Column],
    widths: list[int],
    sublines: list[list[str]] | None = None,
    indent: int = 4,
    sub_width: int | None = None,
) -> list[Text]:
    """The header, a rule and each row (wrapped cells, then its `sublines` under it, indented,
    wrapped at `sub_width`: the console's, which a narrow table does not fill)."""
    total = MARGIN + sum(widths) + GAP * (len(widths) - 1)
    lines = [_line(columns, widths, [c.header for c in columns], header=True)]
    lines.append(Text(" " + "─" * (total - 1)))
    for row in range(len(columns[0].cells)):
        parts = [cell_lines(c, c.cells[row], w) for c, w in zip(columns, widths)]
        for depth in range(max(len(p) for p in parts)):
            lines.append(_line(columns, widths, [p[depth] if depth < len(p) else "" for p in parts]))
        for sub in (sublines or [])[row] if sublines else []:
            room = max(sub_width or total, total) - indent
            lines.extend(Text(" " * indent + part) for part in wrap(sub, max(room, 20)))
    return lines


def _line(columns: list[Column], widths: list[int], texts: list[str], header: bool = False) -> Text:
    line = Text(" " * MARGIN)
    for i, (column, width, text) in enumerate(zip(columns, widths, texts)):
        padded = text.rjust(width) if column.right else text.ljust(width)
        line.append(padded, style="bold" if header else column.style)
        if i < len(columns) - 1:
            line.append(" " * GAP)
    line.rstrip()
    return line
