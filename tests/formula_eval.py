"""Evaluating gradcli's printed formulas with torch, for tests only.

A chain-rule step or a big program's named adjoint is written in PyTorch's vocabulary
(`adj_t3 * (t2 > 0)`, `X.T @ adj_t1`, `adj_t2.sum(0)`); evaluated with torch on the run's
own values it must give the adjoint gradcli shows. gradcli itself never evaluates text.
"""

from __future__ import annotations

import math

import numpy as np
import torch

F = torch.nn.functional
NAMES = {
    "one_hot": lambda t, n: F.one_hot(t.long(), n),
    "where": lambda c, a, b: torch.where(torch.as_tensor(c).bool(), a, b),
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
}


class _Names(dict):
    """The run's values by name, then torch's functions (sigmoid, erf, squeeze, ...)."""

    def __missing__(self, name: str):
        found = getattr(torch, name, None) or getattr(F, name, None)
        if found is None:
            raise KeyError(name)
        return found


def evaluate(text: str, env: dict[str, np.ndarray]) -> np.ndarray:
    """A formula's value, with torch: the names from `env`."""
    tensors = _Names(
        (name, torch.as_tensor(np.asarray(value, dtype=np.float64))) for name, value in env.items()
    )
    found = eval(compile(text, "<step>", "eval"), dict(NAMES), tensors)  # noqa: S307
    return np.asarray(found.detach().numpy() if isinstance(found, torch.Tensor) else found, dtype=np.float64)
