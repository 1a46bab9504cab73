"""The "Speak PyTorch" corpus (issue 13): programs as PyTorch users write them, and how to run them.

Each case in `cases.py` is one program modelled on a public tutorial or test suite, with
the same computation written in real torch. This module runs a case both ways:
`run_gradcli` through gradcli's Python API, `run_torch` by executing the case's torch
snippet (our own test code, never user input) on tensors made from the case's values.
`refusal` says why gradcli does not accept a case today; the test and
`bench/corpus_report.py` build on these three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcli import grad
from gradcli.api import GradResult
from gradcli.errors import GradcliError

from .cases import CASES, Case

__all__ = ["CASES", "Case", "TorchOutcome", "refusal", "run_gradcli", "run_torch", "tolerance"]


def run_gradcli(case: Case) -> GradResult:
    """The case's program through gradcli's API, as a user would call it; raises GradcliError."""
    # Numbers only: the corpus is about which programs run, and sympy would only slow it down.
    return grad(
        case.program,
        at=case.at,
        const=case.const or None,
        gradient=case.gradient,
        dtype=case.dtype,
        symbolic=False,
    )


def refusal(case: Case) -> str | None:
    """gradcli's one-line error for this case (without its hint), or None if it runs."""
    try:
        run_gradcli(case)
    except GradcliError as exc:
        return exc.message
    return None


@dataclass(frozen=True)
class TorchOutcome:
    """What PyTorch computed for a case: the output, each leaf's .grad and the output's grad_fn."""

    value: np.ndarray
    grads: dict[str, np.ndarray | None]
    grad_fn: str | None


def _torch_value(torch: Any, value: Any, dtype: Any, requires_grad: bool = False) -> Any:
    """A case's value as torch would hold it: class indices stay integer, masks stay bool.

    A plain int const (a batch size `n`) stays a Python int, as in the tutorials: it feeds
    range(n) and 1/n, which a float32 tensor would round.
    """
    if requires_grad:
        return torch.tensor(value, dtype=dtype, requires_grad=True)
    if isinstance(value, int):  # bool is an int too
        return value
    flat = np.asarray(value)
    if flat.dtype == np.bool_:
        return torch.tensor(value, dtype=torch.bool)
    if flat.dtype.kind in "iu":
        return torch.tensor(value, dtype=torch.long)
    return torch.tensor(value, dtype=dtype)


def run_torch(case: Case) -> TorchOutcome:
    """Execute the case's torch snippet (it must bind `out`) and run backward as gradcli would."""
    import torch
    import torch.nn.functional as F

    dtype = {"float64": torch.float64, "float32": torch.float32}[case.dtype]
    leaves = {name: _torch_value(torch, v, dtype, requires_grad=True) for name, v in case.at.items()}
    consts = {name: _torch_value(torch, v, dtype) for name, v in case.const.items()}
    namespace: dict[str, Any] = {"torch": torch, "F": F, "math": __import__("math"), **consts, **leaves}
    exec(compile(case.torch, f"<corpus {case.id}>", "exec"), namespace)  # noqa: S102 - our own snippet
    out = namespace["out"]
    seed = None if case.gradient is None else torch.tensor(case.gradient, dtype=out.dtype)
    out.backward(seed)
    grads = {n: (None if t.grad is None else t.grad.detach().numpy()) for n, t in leaves.items()}
    grad_fn = None if out.grad_fn is None else out.grad_fn.name()
    return TorchOutcome(out.detach().numpy(), grads, grad_fn)


def tolerance(case: Case) -> float:
    """Relative tolerance of the comparison: float64 agrees to 1e-9, float32 to a few ulps."""
    return 1e-9 if case.dtype == "float64" else 1e-5
