"""Python's `random` module, bit for bit: the Mersenne Twister of CPython's _randommodule.c
seeded as `random.seed(n)` seeds it (init_by_array over n's 32-bit words), and the methods of
Lib/random.py (3.11) that tutorials call: random, uniform, randrange, randint, choice, shuffle,
sample, gauss. A seeded script draws Python's numbers; an unseeded one draws fresh ones.

The twist and tempering are torch_random's (torch's CPU generator is the same engine; only
the seeding differs).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .torch_random import _N, _temper, _twist


def _init_genrand(seed: int) -> list[int]:
    words = [seed & 0xFFFFFFFF]
    for i in range(1, _N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return words


def _init_by_array(key: list[int]) -> np.ndarray:
    mt = _init_genrand(19650218)
    i, j = 1, 0
    for _ in range(max(_N, len(key))):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
        i, j = i + 1, j + 1
        if i >= _N:
            mt[0], i = mt[_N - 1], 1
        if j >= len(key):
            j = 0
    for _ in range(_N - 1):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
        i += 1
        if i >= _N:
            mt[0], i = mt[_N - 1], 1
    mt[0] = 0x80000000
    return np.array(mt, dtype=np.uint32)


class PythonRandom:
    """random.Random's engine and the methods of random.py that scripts use."""

    def __init__(self) -> None:
        self.seed(None)

    def seed(self, a: Any = None) -> None:
        """random.seed: an int's absolute value as 32-bit words, least significant first;
        None (the default) seeds from the OS as Python does."""
        if a is None:
            a = int.from_bytes(os.urandom(2500), "big")
        if isinstance(a, bool) or not isinstance(a, int):
            raise TypeError("gradcli run seeds random with an int (or None)")
        a = abs(a)
        key = [(a >> (32 * k)) & 0xFFFFFFFF for k in range(max(1, (a.bit_length() + 31) // 32))]
        self._state = _init_by_array(key)
        self._words: list[int] = []
        self._gauss_next: float | None = None

    def _uint32(self) -> int:
        if not self._words:
            self._state = _twist(self._state)
            self._words = _temper(self._state).tolist()[::-1]  # popped from the end: in order
        return self._words.pop()

    def random(self) -> float:
        a, b = self._uint32() >> 5, self._uint32() >> 6
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)

    def getrandbits(self, k: int) -> int:
        if k <= 32:
            return self._uint32() >> (32 - k)
        words = []
        for _ in range((k - 1) // 32 + 1):
            r = self._uint32()
            if k < 32:
                r >>= 32 - k
            words.append(r)
            k -= 32
        return sum(w << (32 * n) for n, w in enumerate(words))

    def _randbelow(self, n: int) -> int:
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return r

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            if start > 0:
                return self._randbelow(start)
            raise ValueError("empty range for randrange()")
        width = stop - start
        if step == 1:
            if width > 0:
                return start + self._randbelow(width)
            raise ValueError(f"empty range for randrange() ({start}, {stop}, {width})")
        if step > 0:
            n = (width + step - 1) // step
        elif step < 0:
            n = (width + step + 1) // step
        else:
            raise ValueError("zero step for randrange()")
        if n <= 0:
            raise ValueError("empty range for randrange()")
        return start + step * self._randbelow(n)

    def randint(self, a: int, b: int) -> int:
        return self.randrange(a, b + 1)

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()

    def choice(self, seq: Sequence[Any]) -> Any:
        if not len(seq):
            raise IndexError("Cannot choose from an empty sequence")
        return seq[self._randbelow(len(seq))]

    def shuffle(self, x: list) -> None:
        for i in reversed(range(1, len(x))):
            j = self._randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population: Sequence[Any], k: int) -> list:
        n = len(population)
        if not 0 <= k <= n:
            raise ValueError("Sample larger than population or is negative")
        result: list[Any] = [None] * k
        setsize = 21
        if k > 5:
            setsize += 4 ** math.ceil(math.log(k * 3, 4))
        if n <= setsize:
            pool = list(population)
            for i in range(k):
                j = self._randbelow(n - i)
                result[i] = pool[j]
                pool[j] = pool[n - i - 1]
        else:
            selected: set[int] = set()
            for i in range(k):
                j = self._randbelow(n)
                while j in selected:
                    j = self._randbelow(n)
                selected.add(j)
                result[i] = population[j]
        return result

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        z, self._gauss_next = self._gauss_next, None
        if z is None:
            x2pi = self.random() * (2 * math.pi)
            g2rad = math.sqrt(-2.0 * math.log(1.0 - self.random()))
            z = math.cos(x2pi) * g2rad
            self._gauss_next = math.sin(x2pi) * g2rad
        return mu + z * sigma
