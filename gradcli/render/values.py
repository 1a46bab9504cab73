"""Numbers and tensors as short text, shared by every human-readable renderer (no rich here)."""

from __future__ import annotations

import math

import numpy as np

SUMMARY_THRESHOLD = 12  # tensors with more elements are summarised, as NumPy does


def _shown(array: np.ndarray, edgeitems: int) -> np.ndarray:
    """The elements a summary shows: `edgeitems` from each end of every long axis."""
    for axis, size in enumerate(array.shape):
        if size > 2 * edgeitems:
            ends = np.r_[0:edgeitems, size - edgeitems : size]
            array = array.take(ends, axis=axis)
    return array


def format_value(
    value: np.ndarray | None,
    *,
    digits: int = 5,
    edgeitems: int = 3,
    width: int = 36,
    one_line: bool = False,
    aligned: bool = False,
) -> str:
    """A scalar as 6 significant digits; a tensor summarised as NumPy does (`[1, 2, ..., 9]`).

    Tensors get 5 digits by default so a 2x2 fits an 80-column table (JSON has them all);
    `one_line` joins a matrix's rows, for tree labels and narration. `aligned` pads every
    number to one width, so a matrix's columns line up across its rows, as print(tensor) does.
    """
    if value is None:
        return "-"
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{float(array):.6g}"

    def number(v: float) -> str:
        return f"{v:.{digits}g}"

    pad = 0
    if aligned and array.size and array.dtype.kind in "fiu":
        shown = _shown(array, edgeitems) if array.size > SUMMARY_THRESHOLD else array
        pad = max(len(number(float(v))) for v in shown.flat)
    text = np.array2string(
        array,
        separator=", ",
        threshold=SUMMARY_THRESHOLD,
        edgeitems=edgeitems,
        max_line_width=width,
        formatter={"float_kind": lambda v: number(v).rjust(pad), "int_kind": lambda v: str(v).rjust(pad)},
    )
    return " ".join(part.strip() for part in text.splitlines()) if one_line else text


ELLIPSIS = "…"  # a tensor cut to fit a cell; the whole one is printed below the table
BLOCK_THRESHOLD = 100  # blocks summarise tensors with more elements, as NumPy and PyTorch do


def _cell_number(v: float, digits: int) -> str:
    return f"{float(v):.{digits}g}"


def _head_parts(array: np.ndarray, count: int, digits: int) -> tuple[list[str], list[int]]:
    """The pieces of the first `count` elements' text (each number with the brackets and comma
    before it) and, per element, how many brackets close before it (0 for the first)."""
    shape, ndim = array.shape, array.ndim
    flat = np.asarray(array.flat[:count]).tolist()  # only what is shown, even of a huge tensor
    # element i starts a new row of dim d when i is a multiple of the size of the dims after d
    inner = [math.prod(shape[d + 1 :]) for d in range(ndim - 1)]
    parts, closes = [], []
    for i, v in enumerate(flat):
        closed = sum(1 for size in inner if i % size == 0) if i else 0
        opening = "[" * ndim if not i else "]" * closed + ", " + "[" * closed
        parts.append(opening + _cell_number(v, digits))
        closes.append(closed)
    return parts, closes


def _ending(ndim: int, closes_next: int | None) -> str:
    """After the shown elements: all brackets, or `…` at the level of the first one left out."""
    if closes_next is None:
        return "]" * ndim
    return "]" * closes_next + ", " + ELLIPSIS + "]" * (ndim - closes_next)


def _head(array: np.ndarray, count: int, digits: int) -> str:
    """The first `count` elements in C order inside their brackets, then `…` if more follow."""
    parts, closes = _head_parts(array, min(count + 1, array.size), digits)
    more = closes[count] if count < array.size else None
    return "".join(parts[:count]) + _ending(array.ndim, more)


# Natural widths are measured up to this many characters: wider than any table gradcli draws
# (--width stops at 1000), and it keeps measuring a big tensor's cell from formatting it whole.
NATURAL_LIMIT = 4000


def summary(value: np.ndarray | None, width: int, *, digits: int = 4) -> str:
    """One line of at most `width` (when it can be): a scalar whole, a tensor from its start.

    Elements are never cut: `[[0.7, 0.6], [1.5, …]]` shows what fits and marks the rest.
    """
    if value is None:
        return "-"
    if isinstance(value, str):  # a cell left blank on purpose
        return value
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{float(array):.6g}"
    if array.size == 0:
        return "[]"
    width = min(width, NATURAL_LIMIT)
    most = min(array.size, width // 2 + 1)  # each element takes two characters or more
    parts, closes = _head_parts(array, min(most + 1, array.size), digits)
    # the text of the first `count` elements grows with count (the ending is ndim + 3 long
    # whenever elements are left out), so the longest that fits is found in one pass
    best, length = 0, 0
    for count in range(1, most + 1):
        length += len(parts[count - 1])
        more = closes[count] if count < array.size else None
        if length + len(_ending(array.ndim, more)) > width:
            break
        best = count
    if best == 0:
        return "[" + ELLIPSIS + "]"
    more = closes[best] if best < array.size else None
    return "".join(parts[:best]) + _ending(array.ndim, more)


def summary_floor(value: np.ndarray | None, floor: int) -> int:
    """The narrowest a value's cell may be: a scalar whole, a tensor `floor` or its whole text."""
    array = None if value is None or isinstance(value, str) else np.asarray(value)
    if array is None or array.ndim == 0 or array.size == 0:
        return len(summary(value, 10**6))
    return min(floor, len(summary(array, 10**6)))


def block(value: np.ndarray, width: int) -> list[str]:
    """A tensor whole, rows aligned as print(tensor) aligns them; big ones as NumPy summarises."""
    text = np.array2string(
        np.asarray(value),
        separator=", ",
        max_line_width=max(width, 20),
        threshold=BLOCK_THRESHOLD,
        edgeitems=3,
        precision=4,
    )
    return text.splitlines()
