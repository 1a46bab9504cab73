"""Comparisons, where, detach and the *_like constructors."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

MASK = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
CASES = [
    *[
        Case(name, "2x3 with 3 (broadcast)", (uniform(-1, 1, (2, 3)), np.array([0.5, -0.25, 0.0])))
        for name in ("gt", "lt", "ge", "le", "eq", "ne")
    ],
    Case("gt", "tensor with number", (uniform(-1, 1, (3,)), 0.0)),
    Case("where", "mask picks a or b", (MASK, uniform(-2, 2, (2, 3)), uniform(-2, 2, (3,))), masks=(0,)),
    Case("where", "b a number", (MASK, uniform(-2, 2, (2, 3)), 0.0), masks=(0,)),
    Case("masked_fill", "2x3", (uniform(-2, 2, (2, 3)), MASK), {"value": 0.5}, masks=(1,)),
    Case("masked_fill", "broadcast to the mask", (uniform(-2, 2, (3,)), MASK), {"value": -1.0}, masks=(1,)),
    Case("detach", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("any", "every element", (MASK * uniform(0.5, 1, (2, 3)),)),
    Case("all", "dim 1", (MASK,), {"dim": 1, "keepdim": False}),
    Case("any", "dims (0, 1) keepdim", (MASK,), {"dim": (0, 1), "keepdim": True}),
    Case("zeros_like", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("ones_like", "3", (uniform(-2, 2, (3,)),)),
    Case("full_like", "3, 2.5", (uniform(-2, 2, (3,)),), {"fill_value": 2.5}),
]

CASES += [
    Case("masked_select", "2x3", (uniform(-2, 2, (2, 3)), MASK), {"count": int(np.count_nonzero(MASK))}, masks=(1,)),
    Case(
        "masked_select",
        "x broadcast to the mask",
        (uniform(-2, 2, (3,)), MASK),
        {"count": int(np.count_nonzero(MASK))},
        masks=(1,),
    ),
]
