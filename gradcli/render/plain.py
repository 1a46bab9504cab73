"""Plain output: one line per leaf, NAME<TAB>GRAD (compact JSON), for shell scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .json import compact

if TYPE_CHECKING:
    from ..results import GradResult


def render(result: GradResult) -> str:
    lines = []
    for leaf in result.leaves:
        if result.numeric:
            lines.append(f"{leaf.name}\t{compact(result.grads.get(leaf.name))}")
        else:
            lines.append(f"{leaf.name}\t{result.grad_symbolic.get(leaf.name)}")
    return "\n".join(lines)
