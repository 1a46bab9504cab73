"""Resource caps, checked before work starts so hostile input cannot hang or exhaust us.

Each cap is named in the error it raises and listed in README's "Safety and limits".
"""

from __future__ import annotations

from .errors import LimitError

MAX_PROGRAM_CHARS = 2_000_000
MAX_NODES = 200_000
MAX_NESTING = 200  # parentheses, as deep as Python's own parser allows
MAX_DEPTH = 1_000  # operators in one expression
MAX_ELEMENTS = 100_000_000
MAX_PASSES = 10_000


def check(value: int, cap: int, what: str, name: str) -> None:
    """Raise LimitError naming the cap when value exceeds it."""
    if value > cap:
        raise LimitError(f"{what} ({value:,}) exceeds the limit {name}={cap:,}")
