"""sort and topk values (SortBackward0, TopkBackward0) and argsort (int64, no grad)."""

from __future__ import annotations

from oracle import TORCH_OPS, torch

from . import Case, uniform

# torch.sort and torch.topk return (values, indices); the records are the values.
TORCH_OPS["sort"] = lambda a, dim=-1, descending=False, stable=None: torch.sort(
    a, dim=dim, descending=descending, **({} if stable is None else {"stable": stable})
).values
TORCH_OPS["argsort"] = lambda a, dim=-1, descending=False, stable=None: torch.argsort(
    a, dim=dim, descending=descending, **({} if stable is None else {"stable": stable})
)
TORCH_OPS["topk"] = lambda a, k=None, dim=-1, largest=True, sorted=True: torch.topk(
    a, k, dim=dim, largest=largest, sorted=sorted
).values

CASES = [
    Case("sort", "last dim", (uniform(-2, 2, (3, 4)),)),
    Case("sort", "dim 0, descending", (uniform(-2, 2, (3, 4)),), {"dim": 0, "descending": True}),
    Case("sort", "1-D", (uniform(-2, 2, (6,)),), {"dim": 0}),
    Case("sort", "stable=True: sort.stable, SortBackward1", (uniform(-2, 2, (2, 3)),), {"stable": True}),
    Case("argsort", "last dim", (uniform(-2, 2, (3, 4)),)),
    Case("argsort", "dim 0, descending", (uniform(-2, 2, (4, 3)),), {"dim": 0, "descending": True}),
    Case("topk", "k 2 of the last dim", (uniform(-2, 2, (3, 5)),), {"k": 2}),
    Case("topk", "smallest 3 along dim 0", (uniform(-2, 2, (4, 2)),), {"k": 3, "dim": 0, "largest": False}),
    Case("topk", "1-D, every element", (uniform(-2, 2, (5,)),), {"k": 5}),
]
