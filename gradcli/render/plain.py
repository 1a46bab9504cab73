"""Plain output: one line per leaf, NAME<TAB>GRAD (compact JSON), for shell scripts.

Not JSON as a whole (TAB-separated), so non-finite numbers are bare `nan`, `inf`, `-inf`,
as Python, NumPy, awk and sort -g read them, not the strings strict JSON output needs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .json import compact

_BARE = {'"nan"': "nan", '"inf"': "inf", '"-inf"': "-inf"}

if TYPE_CHECKING:
    from ..results import GradResult


def render(result: GradResult) -> str:
    lines = []
    for leaf in result.leaves:
        if result.numeric:
            lines.append(f"{leaf.name}\t{_bare(compact(result.grads.get(leaf.name)))}")
        else:
            lines.append(f"{leaf.name}\t{result.grad_symbolic.get(leaf.name)}")
    return "\n".join(lines)


def _bare(text: str) -> str:
    """Compact JSON of numbers with the quotes around nan/inf taken off (no other strings occur)."""
    if '"' not in text:
        return text
    for quoted, bare in _BARE.items():
        text = text.replace(quoted, bare)
    return text
