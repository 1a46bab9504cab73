"""Numbers and tensors as short text, shared by every human-readable renderer (no rich here)."""

from __future__ import annotations

import numpy as np

SUMMARY_THRESHOLD = 12  # tensors with more elements are summarised, as NumPy does


def format_value(
    value: np.ndarray | None,
    *,
    digits: int = 5,
    edgeitems: int = 3,
    width: int = 36,
    one_line: bool = False,
) -> str:
    """A scalar as 6 significant digits; a tensor summarised as NumPy does (`[1, 2, ..., 9]`).

    Tensors get 5 digits by default so a 2x2 fits an 80-column table (JSON has them all);
    `one_line` joins a matrix's rows, for tree labels and narration.
    """
    if value is None:
        return "-"
    array = np.asarray(value)
    if array.ndim == 0:
        return f"{float(array):.6g}"
    text = np.array2string(
        array,
        separator=", ",
        threshold=SUMMARY_THRESHOLD,
        edgeitems=edgeitems,
        max_line_width=width,
        formatter={"float_kind": lambda v: f"{v:.{digits}g}"},
    )
    return " ".join(part.strip() for part in text.splitlines()) if one_line else text


ELLIPSIS = "…"  # a tensor cut to fit a cell; the whole one is printed below the table
BLOCK_THRESHOLD = 100  # blocks summarise tensors with more elements, as NumPy and PyTorch do


def _cell_number(v: float, digits: int) -> str:
    return f"{float(v):.{digits}g}"


def _head(array: np.ndarray, count: int, digits: int) -> str:
    """The first `count` elements in C order inside their brackets, then `…` if more follow."""
    shape, ndim = array.shape, array.ndim
    flat = np.asarray(array.flat[: count + 1])  # only what is shown, even of a huge tensor
    parts: list[str] = []
    previous: tuple[int, ...] | None = None
    for i in range(min(count + 1, array.size)):
        index = tuple(int(k) for k in np.unravel_index(i, shape))
        if previous is None:
            parts.append("[" * ndim)
        else:
            axis = next(d for d in range(ndim) if index[d] != previous[d])
            closes = ndim - 1 - axis
            if i == count:  # the first element left out: say more follow, at its level
                parts.append("]" * closes + ", " + ELLIPSIS + "]" * (ndim - closes))
                return "".join(parts)
            parts.append("]" * closes + ", " + "[" * closes)
        parts.append(_cell_number(flat[i], digits))
        previous = index
    parts.append("]" * ndim)
    return "".join(parts)


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
    most = min(array.size, width // 2 + 1)  # each element takes two characters or more
    if most == array.size:
        whole = _head(array, array.size, digits)
        if len(whole) <= width:
            return whole
        most -= 1
    low, high = 1, most  # the longest head that fits: binary search (text grows with count)
    if len(_head(array, 1, digits)) > width:
        return "[" + ELLIPSIS + "]"
    while low < high:
        middle = (low + high + 1) // 2
        if len(_head(array, middle, digits)) <= width:
            low = middle
        else:
            high = middle - 1
    return _head(array, low, digits)


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
