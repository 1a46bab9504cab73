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
