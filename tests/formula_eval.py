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
    "one_hot": lambda t, n: F.one_hot(torch.as_tensor(t).long(), n),
    "where": lambda c, a, b: torch.where(torch.as_tensor(c).bool(), a, b),
    "F": F,
    "torch": torch,
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
}


class _Names(dict):
    """The run's values by name, then torch's functions (sigmoid, erf, squeeze, ...)."""

    def __missing__(self, name: str):
        if name in NAMES:
            return NAMES[name]
        found = getattr(torch, name, None) or getattr(F, name, None)
        if found is None:
            raise KeyError(name)
        if callable(found) and name not in ("ones", "zeros", "full", "tensor", "arange", "eye"):
            return _numbers_as_tensors(found)
        return found


def _numbers_as_tensors(function):
    """sqrt(2) as gradcli writes it: torch's functions take a tensor first."""

    def call(first=None, *args, **kwargs):
        if isinstance(first, (int, float)) and not isinstance(first, bool):
            first = torch.tensor(float(first), dtype=torch.float64)
        return function(*([] if first is None else [first]), *args, **kwargs)

    return call


def _tensor(value) -> torch.Tensor:
    """Floats in double precision; integer indices and boolean masks keep their kind."""
    array = np.asarray(value)
    if array.dtype.kind in "biu":
        return torch.as_tensor(array.astype(np.int64) if array.dtype.kind == "u" else array)
    return torch.as_tensor(array.astype(np.float64))


def evaluate(text: str, env: dict[str, np.ndarray]) -> np.ndarray:
    """A formula's value, with torch: the names from `env`."""
    tensors = _Names((name, _tensor(value)) for name, value in env.items())
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # where(c, 1, 1/100) in doubles, as gradcli computes
    try:
        found = eval(compile(text, "<step>", "eval"), dict(NAMES), tensors)  # noqa: S307
    finally:
        torch.set_default_dtype(default)
    return np.asarray(found.detach().numpy() if isinstance(found, torch.Tensor) else found, dtype=np.float64)
