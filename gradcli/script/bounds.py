"""What a Python-level operation on script values will cost, measured before it runs.

Python's containers carry no caps of their own: `str()` of a list that holds itself doubled
sixty times expands 2**60 items, `b == c` walks every nested element, `sorted` compares
nested lists item by item and `'x' * n`, `''.join(...)` or `'%9999999d'` build their result
before anyone can look at its length. The interpreter measures the operands here first and
refuses, naming the cap, before Python does the work. The walk is iterative, so a list
nested 100,000 deep is measured (and refused) without Python's recursion limit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import limits
from .runtime import ScriptError, Tensor

# The printed length of one number or tensor, at most: repr of a float64 is 24 characters,
# a tensor prints at most `threshold` (1,000) elements before it is summarised.
_NUMBER_CHARS = 24
_TENSOR_CHARS = 1_000 * 16


def measure(value: Any, line: int) -> tuple[int, int]:
    """(items, characters) that str(), repr(), ==, < or torch.tensor() visit in `value`,
    counting a shared list once for each place it appears (as those operations do) and a
    list that contains itself once (Python prints it as [...]). Raises a ScriptError past
    MAX_SEQUENCE items or characters, or past MAX_VALUE_NESTING levels of containers."""
    cap = limits.Script.MAX_SEQUENCE
    items = chars = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]  # (value, depth, leaving)
    while stack:
        item, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(item))
            continue
        items += 1
        if isinstance(item, str):
            chars += len(item) + 2
        elif isinstance(item, (list, tuple, set, frozenset, dict)):
            if id(item) in on_path:  # a list that contains itself prints as [...]
                chars += 5
                continue
            if depth >= limits.Script.MAX_VALUE_NESTING:
                raise ScriptError(
                    f"line {line}: lists, tuples or dicts nested deeper than MAX_VALUE_NESTING={limits.Script.MAX_VALUE_NESTING}"
                )
            chars += 2 + 2 * len(item)
            if items + len(item) > cap:
                raise _too_long(line)
            on_path.add(id(item))
            stack.append((item, depth, True))
            members = item.items() if isinstance(item, dict) else item
            stack.extend((member, depth + 1, False) for member in members)
        elif isinstance(item, range):
            chars += 24
        elif isinstance(item, int) and not isinstance(item, bool):
            chars += max(1, item.bit_length() * 10 // 33 + 2)
        elif isinstance(item, Tensor):
            chars += min(item.value.size * 16, _TENSOR_CHARS) + 64
        elif isinstance(item, np.ndarray):
            chars += min(item.size * 16, _TENSOR_CHARS) + 16
        else:
            chars += _NUMBER_CHARS
        if items > cap or chars > cap:
            raise _too_long(line)
    return items, chars


def check_sort(values: list, line: int) -> None:
    """sorted()/list.sort() compares about n*log2(n) pairs, each as deep as its items."""
    items, _ = measure(values, line)
    comparisons = items * max(1, math.ceil(math.log2(max(len(values), 2))))
    if comparisons > limits.Script.MAX_SEQUENCE * 20:
        raise ScriptError(
            f"line {line}: sorting {len(values):,} items of {items:,} elements in all exceeds "
            f"MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} (about n*log2(n) comparisons)"
        )


def check_range(value: Any, line: int) -> None:
    """A range Python would walk item by item (max, min, sum, sorted, 1.5 in range(...))."""
    if isinstance(value, range) and len(value) > limits.Script.MAX_SEQUENCE:
        raise ScriptError(
            f"line {line}: a range of {len(value):,} items exceeds MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
        )


def check_text_length(length: int, line: int) -> None:
    """A string about to be built (join, repetition, formatting), from its parts' lengths."""
    if length > limits.Script.MAX_SEQUENCE:
        raise _too_long(line)


def _too_long(line: int) -> ScriptError:
    return ScriptError(
        f"line {line}: a string or list longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} "
        "(items, or characters, counted through nested lists)"
    )
