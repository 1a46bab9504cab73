"""gather by an int64 index tensor (repeated indices add up in the gradient)."""

from __future__ import annotations

import numpy as np
from oracle import TORCH_OPS, torch

from . import Case, uniform

# torch.gather(input, dim, index): dim sits between the tensors, so the oracle cannot call the
# record's torch spelling with the operands in order (tests/oracle.py would be its home).
TORCH_OPS["gather"] = lambda a, index, dim=0: torch.gather(a, dim, index.long())

CASES = [
    Case(
        "gather",
        "dim 1, repeats",
        (uniform(-2, 2, (3, 4)), np.array([[0, 3], [2, 2], [1, 0]])),
        {"dim": 1},
        integers=(1,),
    ),
    Case(
        "gather",
        "dim 0, wider index",
        (uniform(-2, 2, (2, 3)), np.array([[1, 0, 1], [1, 1, 0], [0, 0, 0]])),
        {"dim": 0},
        integers=(1,),
    ),
    Case(
        "gather",
        "dim -1 of 3-D",
        (uniform(-2, 2, (2, 2, 3)), np.array([[[2], [0]], [[1], [1]]])),
        {"dim": -1},
        integers=(1,),
    ),
]

CASES += [
    Case(
        "embedding",
        "rows of W, one repeated",
        (np.array([[0.0, 2.0], [2.0, 3.0]]), uniform(-2, 2, (4, 3))),
        integers=(0,),
    ),
    # padding_idx (no gradient for that row, though it is used: not a derivative finite
    # differences can see) is checked against torch in tests/test_nn.py and tut_embeddings.py
    Case("embedding", "a 1-D lookup", (np.array([1.0, 0.0, 1.0]), uniform(-2, 2, (3, 2))), integers=(0,)),
]
