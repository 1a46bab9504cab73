"""Sizes as numbers: x.size(d), len(x), x.numel(), x.dim() (folded from shapes, never nodes)."""

from __future__ import annotations

from . import Case, uniform

CASES = [
    Case("size", "dim 1", (uniform(-2, 2, (2, 3)),), {"dim": 1}),
    Case("size", "dim -1 of 3-D", (uniform(-2, 2, (2, 3, 4)),), {"dim": -1}),
    Case("len", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("numel", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("numel", "0-d", (uniform(-2, 2, ()),)),
    Case("dim", "3-D", (uniform(-2, 2, (2, 3, 4)),)),
]
