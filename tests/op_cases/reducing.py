"""Cases for the reducing family (gradcli/ops/reducing.py), run by tests/test_ops.py.

Ties, zeros and the p of norm are where these ops' PyTorch conventions live, so the cases
put them there: two-way ties only (a central difference splits a two-way tie evenly, as
torch does, so the finite-difference check still applies), zeros in prod's slices.
"""

from __future__ import annotations

import numpy as np

from . import Case, uniform

TIES = np.array([[1.5, -0.5, 1.5], [0.25, 2.0, -1.0]])  # a tie for the max of row 0
LOW_TIES = np.array([[-1.5, 0.5, -1.5], [0.25, -2.0, 1.0]])  # a tie for the min of row 0
ONE_ZERO = np.array([[0.0, 1.5, -2.0], [0.5, 1.25, -0.75]])
TWO_ZEROS = np.array([[0.0, 1.5, 0.0], [0.5, 0.0, -0.75]])
ABS_TIES = np.array([[1.5, -0.5, -1.5], [0.25, 2.0, -1.0]])  # |x| ties for the inf norm


def _extremum_cases() -> list[Case]:
    cases = []
    for name, tied in (("amax", TIES), ("amin", LOW_TIES)):
        for label, shape, attrs in (
            ("all", (2, 3), {}),
            ("dim=1", (2, 3), {"dim": (1,), "keepdim": False}),
            ("dim=-2 keepdim", (2, 3), {"dim": (-2,), "keepdim": True}),
            ("dims (0, 1)", (2, 3), {"dim": (0, 1), "keepdim": False}),
            ("3-D dims (0, 2)", (2, 3, 2), {"dim": (0, 2), "keepdim": False}),
            ("0-D dim=0", (), {"dim": (0,), "keepdim": False}),
        ):
            cases.append(Case(name, label, (uniform(-2, 2, shape),), attrs))
        cases.append(Case(name, "a tie in a row, dim=1", (tied.copy(),), {"dim": (1,), "keepdim": False}))
        cases.append(Case(name, "a tie overall", (tied.copy(),), {}))
    for name in ("max", "min"):
        cases.append(Case(name, "2x3", (uniform(-2, 2, (2, 3)),)))
        cases.append(Case(name, "0-D", (uniform(-2, 2, ()),)))
    # evenly_distribute_backward: two maxima share the gradient.
    cases.append(Case("max", "two maxima", (np.array([1.0, 3.0, -2.0, 3.0]),)))
    cases.append(Case("min", "two minima", (np.array([1.0, -3.0, -3.0, 2.0]),)))
    return cases


def _prod_cases() -> list[Case]:
    cases = []
    for label, operand, attrs in (
        ("all", uniform(0.5, 1.5, (2, 3)) * np.array([1, -1, 1]), {}),
        ("dim=1", uniform(0.5, 1.5, (2, 3)), {"dim": 1, "keepdim": False}),
        ("dim=0 keepdim", uniform(-1.5, 1.5, (2, 3)), {"dim": 0, "keepdim": True}),
        ("0-D", uniform(-2, 2, ()), {}),
        ("0-D dim=0", uniform(-2, 2, ()), {"dim": 0, "keepdim": False}),
        ("one zero, all", ONE_ZERO, {}),
        ("one zero, dim=1", ONE_ZERO, {"dim": 1, "keepdim": False}),
        ("two zeros, all", TWO_ZEROS, {}),
        ("two zeros in a row, dim=1", TWO_ZEROS, {"dim": 1, "keepdim": False}),
        ("zeros in columns, dim=0", TWO_ZEROS, {"dim": 0, "keepdim": True}),
    ):
        cases.append(Case("prod", label, (operand.copy(),), attrs))
    return cases


def _logsumexp_cases() -> list[Case]:
    return [
        Case("logsumexp", "dim=1", (uniform(-3, 3, (2, 3)),), {"dim": 1, "keepdim": False}),
        Case("logsumexp", "dim=0 keepdim", (uniform(-3, 3, (2, 3)),), {"dim": 0, "keepdim": True}),
        Case("logsumexp", "large values", (uniform(500, 800, (3,)),), {"dim": 0, "keepdim": False}),
        Case("logsumexp", "0-D", (uniform(-3, 3, ()),), {"dim": 0, "keepdim": False}),
    ]


def _moment_cases() -> list[Case]:
    cases = []
    for name in ("var", "std"):
        for label, shape, attrs in (
            ("all", (2, 3), {}),
            ("dim=1", (2, 3), {"dim": (1,)}),
            ("dim=0 keepdim", (2, 3), {"dim": (0,), "keepdim": True}),
            ("dims (0, 1)", (2, 3), {"dim": (0, 1)}),
            ("correction=0", (2, 3), {"correction": 0.0}),
            ("correction=2, dim=1", (2, 4), {"dim": (1,), "correction": 2.0}),
            ("unbiased=False, dim=1", (2, 3), {"dim": (1,), "unbiased": False}),
            ("1-D", (4,), {}),
        ):
            cases.append(Case(name, label, (uniform(-2, 2, shape),), attrs))
    cases.append(
        Case("std", "a constant row: std 0", (np.array([[1.0, 1.0, 1.0], [0.5, -1.0, 2.0]]),), {"dim": (1,)})
    )
    return cases


def _norm_cases() -> list[Case]:
    cases = []
    for p in (2.0, 1.0, np.inf, -np.inf, 3.0, 1.5, 0.5, -1.0):
        cases.append(Case("norm", f"p={p}", (uniform(0.3, 2, (2, 3)) * np.array([1, -1, 1]),), {"p": p}))
    cases += [
        Case("norm", "p=2 dim=1", (uniform(-2, 2, (2, 3)),), {"p": 2.0, "dim": (1,)}),
        Case(
            "norm", "p=1 dim=0 keepdim", (uniform(0.3, 2, (2, 3)),), {"p": 1.0, "dim": (0,), "keepdim": True}
        ),
        Case("norm", "p=inf dim=1, |x| ties", (ABS_TIES.copy(),), {"p": np.inf, "dim": (1,)}),
        Case("norm", "p=3 dims (0, 1)", (uniform(-2, 2, (2, 3)),), {"p": 3.0, "dim": (0, 1)}),
        Case("norm", "p=2 at zero", (np.zeros((2, 2)),), {"p": 2.0}),
        Case(
            "norm", "p=2 a zero row, dim=1", (np.array([[0.0, 0.0], [3.0, -4.0]]),), {"p": 2.0, "dim": (1,)}
        ),
        Case("norm", "0-D", (uniform(-2, 2, ()),), {}),
    ]
    return cases


def _cumsum_cases() -> list[Case]:
    return [
        Case("cumsum", "dim=1", (uniform(-2, 2, (2, 3)),), {"dim": 1}),
        Case("cumsum", "dim=-2", (uniform(-2, 2, (2, 3)),), {"dim": -2}),
        Case("cumsum", "1-D", (uniform(-2, 2, (4,)),), {"dim": 0}),
        Case("cumsum", "0-D", (uniform(-2, 2, ()),), {"dim": 0}),
        Case("cumsum", "a size-1 dim", (uniform(-2, 2, (1, 3)),), {"dim": 0}),
    ]


CASES = (
    _extremum_cases() + _prod_cases() + _logsumexp_cases() + _moment_cases() + _norm_cases() + _cumsum_cases()
)

# torch.max(x, dim) / torch.min(x, dim): the values (MaxBackward0) and the indices (no grad).
CASES += [
    Case("max_values", "dim 1", (uniform(-2, 2, (3, 4)),), {"dim": 1, "keepdim": False}),
    Case("max_values", "dim 0 keepdim", (uniform(-2, 2, (3, 4)),), {"dim": 0, "keepdim": True}),
    Case("min_values", "dim -1", (uniform(-2, 2, (2, 5)),), {"dim": -1, "keepdim": False}),
    Case("argmax", "dim 1", (uniform(-2, 2, (3, 4)),), {"dim": 1, "keepdim": False}),
    Case("argmax", "every element", (uniform(-2, 2, (3, 4)),), {"dim": None, "keepdim": False}),
    Case("argmin", "dim 0 keepdim", (uniform(-2, 2, (3, 4)),), {"dim": 0, "keepdim": True}),
]
