"""Error-free floating-point steps, for emulating torch's fused multiply-adds exactly.

A sum's rounding error is itself a float (two_sum); rounding an inexact result to odd
before a last, coarser rounding makes that last rounding the single correct one (Boldo and
Melquiond). constructors.py (arange, linspace) and softmax_order.py (float32 kernels) use both.
"""

from __future__ import annotations

import numpy as np


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a + b as a rounded sum and its exact error (Knuth's error-free transformation)."""
    total = a + b
    virtual = total - a
    return total, (a - (total - virtual)) + (b - virtual)


def round_to_odd(value: np.ndarray, error: np.ndarray) -> np.ndarray:
    """`value + error` (error below half an ulp of value) rounded to the neighbour of `value`
    whose last bit is odd when inexact: value itself if odd, else one step toward error."""
    even = (value.view(np.int64) & 1) == 0
    toward = np.nextafter(value, np.copysign(np.inf, error))
    return np.where((error != 0) & even & np.isfinite(value), toward, value)
