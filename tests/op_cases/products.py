"""torch.bmm: a batch of matrix products (BmmBackward0)."""

from __future__ import annotations

from . import Case, uniform

CASES = [
    Case("bmm", "2 batches of (3, 4) @ (4, 2)", (uniform(-2, 2, (2, 3, 4)), uniform(-2, 2, (2, 4, 2)))),
    Case("bmm", "one batch, a column", (uniform(-2, 2, (1, 2, 3)), uniform(-2, 2, (1, 3, 1)))),
]
