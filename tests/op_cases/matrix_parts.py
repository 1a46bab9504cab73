"""tril, triu, flip, roll, cumprod (public now) and the nan/inf tests (bool, no grad)."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

CASES = [
    Case("tril", "square", (uniform(-2, 2, (3, 3)),)),
    Case("tril", "diagonal -1 of a batch", (uniform(-2, 2, (2, 3, 4)),), {"diagonal": -1}),
    Case("triu", "wide, diagonal 1", (uniform(-2, 2, (3, 5)),), {"diagonal": 1}),
    Case("flip", "dim 0", (uniform(-2, 2, (3, 2)),), {"dims": (0,)}),
    Case("flip", "both dims", (uniform(-2, 2, (2, 3)),), {"dims": (0, 1)}),
    Case("roll", "along dim 1", (uniform(-2, 2, (2, 3)),), {"shifts": 1, "dims": 1}),
    Case("roll", "two dims", (uniform(-2, 2, (3, 2)),), {"shifts": (2, -1), "dims": (0, 1)}),
    Case("roll", "flattened", (uniform(-2, 2, (2, 3)),), {"shifts": -2}),
    Case("cumprod", "dim 1", (uniform(0.5, 2, (2, 4)),), {"dim": 1}),
    Case("cumprod", "a zero along dim 0", (np.array([[1.5, 2.0], [0.0, -1.0], [2.0, 3.0]]),), {"dim": 0}),
    Case("isnan", "with nan", (np.array([1.0, np.nan, -2.0]),)),
    Case("isinf", "with inf", (np.array([np.inf, 0.5, -np.inf]),)),
    Case("isfinite", "mixed", (np.array([np.inf, 0.5, np.nan]),)),
]

CASES += [
    Case("diagonal", "square", (uniform(-2, 2, (3, 3)),)),
    Case("diagonal", "offset 1 of a wide matrix", (uniform(-2, 2, (3, 5)),), {"offset": 1}),
    Case("diagonal", "dims 1 and 2, offset -1", (uniform(-2, 2, (2, 4, 3)),), {"offset": -1, "dim1": 1, "dim2": 2}),
    Case("trace", "rectangular", (uniform(-2, 2, (3, 4)),)),
    Case("diag", "a vector into a matrix", (uniform(-2, 2, (3,)),)),
    Case("diag", "a vector above the diagonal", (uniform(-2, 2, (2,)),), {"diagonal": 1}),
    Case("diag", "a matrix's diagonal", (uniform(-2, 2, (3, 4)),), {"diagonal": -1}),
]
