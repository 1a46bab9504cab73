"""gradcli/python_random.py against CPython's own random module: the same numbers for every seed."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from gradcli.python_random import PythonRandom


def _draws(r) -> list:
    values = [r.random() for _ in range(5)]
    values += [r.randint(-3, 10**12), r.randrange(7), r.randrange(3, 100, 7), r.randrange(50, 0, -3)]
    values += [r.uniform(-1.0, 2.0), r.gauss(0.5, 2.0), r.gauss(), r.choice("abcdef"), r.getrandbits(70)]
    items = list(range(40))
    r.shuffle(items)
    return values + [items, r.sample(range(1000), 12), r.sample("abcdefgh", 3)]


@given(st.integers(min_value=-(2**130), max_value=2**130))
def test_every_seed_draws_pythons_numbers(seed: int) -> None:
    theirs = random.Random(seed)
    ours = PythonRandom()
    ours.seed(seed)
    assert _draws(ours) == _draws(theirs)


def test_a_long_stream_crosses_many_twists() -> None:
    theirs, ours = random.Random(7), PythonRandom()
    ours.seed(7)
    assert [ours.random() for _ in range(3000)] == [theirs.random() for _ in range(3000)]


def test_unseeded_generators_differ() -> None:
    assert PythonRandom().random() != PythonRandom().random()
