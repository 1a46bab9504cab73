"""Strict RFC 8259 JSON values: non-finite numbers become "nan", "inf", "-inf".

results.py builds each result's document from these (its to_dict); this module knows no result type.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


def clean(item: Any) -> Any:
    """A number or nested list with non-finite floats as the strings "nan", "inf", "-inf"."""
    if isinstance(item, list):
        return [clean(v) for v in item]
    if isinstance(item, float) and not math.isfinite(item):
        return "nan" if math.isnan(item) else ("inf" if item > 0 else "-inf")
    return item


def encode(value: np.ndarray | None) -> Any:
    """A number or nested list of the tensor's shape; float32 keeps its shortest digits."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.ndim == 0 and array.dtype == np.float64:  # most values of a big scalar program
        number = float(array)
        return number if math.isfinite(number) else clean(number)
    if array.dtype == np.float32:
        # float(str(.)) is the shortest decimal that round-trips in float32 (0.1, not 0.100000001)
        shortest = [float(str(v)) for v in array.ravel()]
        plain = np.array(shortest, dtype=object).reshape(array.shape).tolist()
    else:
        plain = array.astype(np.float64).tolist()
    return clean(plain)


def dumps(document: dict[str, Any]) -> str:
    # allow_nan=False: if a non-finite number ever slipped past encode(), fail loudly.
    return json.dumps(document, allow_nan=False)


def compact(value: np.ndarray | None) -> str:
    """One value as compact JSON, for plain output."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))
