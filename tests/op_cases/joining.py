"""Joining records: torch.cat and torch.stack, one record per list length."""

from __future__ import annotations

from . import Case, uniform

CASES: list[Case] = []
for count in range(1, 9):
    # cat along dim 1 with a different width per tensor; stack along the last new axis.
    CASES.append(
        Case(
            f"cat{count}",
            f"{count} tensors, dim 1",
            tuple(uniform(-2, 2, (2, 1 + k % 3)) for k in range(count)),
            {"dim": 1},
        )
    )
    CASES.append(
        Case(
            f"stack{count}",
            f"{count} tensors, dim -1",
            tuple(uniform(-2, 2, (2, 3)) for _ in range(count)),
            {"dim": -1},
        )
    )
CASES += [
    Case("cat2", "dim 0, 1-D", (uniform(-2, 2, (3,)), uniform(-2, 2, (2,))), {"dim": 0}),
    Case("cat3", "dim -2, 3-D", tuple(uniform(-2, 2, (2, 1 + k, 2)) for k in range(3)), {"dim": -2}),
    Case("stack2", "0-d tensors", (uniform(-2, 2, ()), uniform(-2, 2, ())), {"dim": 0}),
    Case("stack3", "dim 1", tuple(uniform(-2, 2, (2, 2)) for _ in range(3)), {"dim": 1}),
]
