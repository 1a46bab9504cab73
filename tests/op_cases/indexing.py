"""Indexing records: select, slice and advanced indexing (literal lists, an index tensor)."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

CASES = [
    Case("select", "dim 0", (uniform(-2, 2, (3, 4)),), {"dim": 0, "index": 1}),
    Case("select", "dim -1, negative index", (uniform(-2, 2, (3, 4)),), {"dim": -1, "index": -2}),
    Case("slice", "1:3", (uniform(-2, 2, (4, 3)),), {"dim": 0, "start": 1, "end": 3, "step": 1}),
    Case(
        "slice", "dim 1, step 2", (uniform(-2, 2, (2, 5)),), {"dim": 1, "start": None, "end": None, "step": 2}
    ),
    Case("index", "repeated rows", (uniform(-2, 2, (3, 2)),), {"key": (("list", (2, 0, 2)),)}),
    Case("index", "columns", (uniform(-2, 2, (2, 3)),), {"key": (("all",), ("list", (1, 1, 0)))}),
]
# index1's index tensor is an integer const; test_ops's torch oracle passes it as a long tensor.
CASES.append(
    Case(
        "index1",
        "rows by a tensor",
        (uniform(-2, 2, (3, 2)), np.array([2.0, 0.0, 2.0])),
        {"key": (("tensor", 0),)},
        integers=(1,),
    )
)
# A bool mask (a const of true/false): its True count is fixed when the graph is built.
MASK = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
CASES += [
    Case(
        "index1", "2-D bool mask", (uniform(-2, 2, (2, 3)), MASK), {"key": (("mask", 0, 2, 4),)}, masks=(1,)
    ),
    Case(
        "index1",
        "columns by a mask",
        (uniform(-2, 2, (2, 3, 2)), MASK[0]),
        {"key": (("all",), ("mask", 0, 1, 2))},
        masks=(1,),
    ),
]
