"""index_add, index_copy, index_fill and index_select by a 1-D int64 index along a dim."""

from __future__ import annotations

import numpy as np
from oracle import TORCH_OPS, torch

from . import Case, uniform

# dim sits between the tensors in torch's signatures (torch.index_add(input, dim, index, source))
TORCH_OPS["index_add"] = lambda a, index, source, dim=0, alpha=1: torch.index_add(
    a, dim, index.long(), source, alpha=alpha
)
TORCH_OPS["index_copy"] = lambda a, index, source, dim=0: torch.index_copy(a, dim, index.long(), source)
TORCH_OPS["index_fill"] = lambda a, index, value, dim=0: torch.index_fill(a, dim, index.long(), value)
TORCH_OPS["index_select"] = lambda a, index, dim=0: torch.index_select(a, dim, index.long())

CASES = [
    Case(
        "index_add",
        "dim 0, a repeated row, alpha",
        (uniform(-2, 2, (3, 2)), np.array([2.0, 0.0, 2.0]), uniform(-2, 2, (3, 2))),
        {"dim": 0, "alpha": 1.5},
        integers=(1,),
    ),
    Case(
        "index_add",
        "dim 1",
        (uniform(-2, 2, (2, 4)), np.array([3.0, 1.0]), uniform(-2, 2, (2, 2))),
        {"dim": 1},
        integers=(1,),
    ),
    Case(
        "index_copy",
        "dim 0, distinct rows",
        (uniform(-2, 2, (4, 2)), np.array([3.0, 0.0]), uniform(-2, 2, (2, 2))),
        {"dim": 0},
        integers=(1,),
    ),
    Case(
        "index_copy",
        "dim -1",
        (uniform(-2, 2, (2, 3)), np.array([1.0]), uniform(-2, 2, (2, 1))),
        {"dim": -1},
        integers=(1,),
    ),
    Case(
        "index_fill",
        "a 0-d value tensor, a repeated index",
        (uniform(-2, 2, (3, 4)), np.array([1.0, 3.0, 1.0]), uniform(-2, 2, ())),
        {"dim": 1},
        integers=(1,),
    ),
    Case(
        "index_fill",
        "a number",
        (uniform(-2, 2, (3, 2)), np.array([0.0, 2.0]), 2.5),
        {"dim": 0},
        integers=(1,),
    ),
    Case(
        "index_select",
        "dim 1, repeats",
        (uniform(-2, 2, (2, 3)), np.array([2.0, 2.0, 0.0])),
        {"dim": 1},
        integers=(1,),
    ),
]
