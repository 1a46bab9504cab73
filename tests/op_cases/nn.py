"""Cases for the torch.nn.functional family (gradcli/ops/nn.py): softmax, the losses."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

MEAN, SUM, NONE = ({"reduction": r} for r in ("mean", "sum", "none"))


def _pair(shape=(2, 3), target_shape=None):
    return uniform(-2, 2, shape), uniform(-2, 2, target_shape or shape)


CASES = [
    Case("softmax", "2x3 dim=1", (uniform(-2, 2, (2, 3)),), {"dim": 1}),
    Case("softmax", "2x3 dim=0", (uniform(-2, 2, (2, 3)),), {"dim": 0}),
    Case("softmax", "1-D dim=-1", (uniform(-2, 2, (4,)),), {"dim": -1}),
    Case("log_softmax", "2x3 dim=1", (uniform(-2, 2, (2, 3)),), {"dim": 1}),
    Case("log_softmax", "2x3 dim=-2", (uniform(-2, 2, (2, 3)),), {"dim": -2}),
    Case("log_softmax", "0-D", (np.array(0.3),), {"dim": 0}),
]
for name, extra in (
    ("mse_loss", {}),
    ("smooth_l1_loss", {"beta": 1.0}),
    ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}),
    ("huber_loss", {"delta": 1.0}),
    ("huber_loss", {"delta": 0.7}),
):
    for reduction in (MEAN, SUM, NONE):
        label = f"{reduction['reduction']} {extra}".strip()
        CASES.append(Case(name, label, _pair(), {**reduction, **extra}))
    CASES.append(Case(name, f"broadcast target {extra}", _pair((2, 3), (3,)), {**MEAN, **extra}))
for reduction in (MEAN, SUM, NONE):
    CASES.append(
        Case(
            "binary_cross_entropy",
            reduction["reduction"],
            # targets below 0.9: tests/test_batched_rows.py scales its second point by 1.1
            (uniform(0.1, 0.9, (2, 3)), uniform(0.0, 0.9, (2, 3))),
            reduction,
        )
    )
    CASES.append(Case("binary_cross_entropy_with_logits", reduction["reduction"], _pair(), reduction))
# The target is a Python number here: torch's class index is an int64 tensor that cannot be
# a leaf, and test_ops makes every tensor operand a leaf. Batches are in tests/test_nn.py.
for reduction in (MEAN, SUM, NONE):
    attrs = {"ignore_index": -100, **reduction}
    CASES.append(Case("nll_loss", f"1-D {reduction['reduction']}", (uniform(-2, 0, (4,)), 2.0), attrs))
CASES += [
    Case("nll_loss", "ignored class", (uniform(-2, 0, (4,)), 1.0), {"ignore_index": 1, "reduction": "sum"}),
]
# What F.linear and cross_entropy's C++ record: addmm, and the Scalar overloads of mul/add/div.
CASES += [
    Case("addmm", "bias row", (uniform(-2, 2, (4,)), uniform(-2, 2, (2, 3)), uniform(-2, 2, (3, 4)))),
    Case(
        "addmm",
        "full bias, beta and alpha",
        (uniform(-2, 2, (2, 4)), uniform(-2, 2, (2, 3)), uniform(-2, 2, (3, 4))),
        {"beta": 0.5, "alpha": -2.0},
    ),
    Case("addmm", "column bias", (uniform(-2, 2, (2, 1)), uniform(-2, 2, (2, 3)), uniform(-2, 2, (3, 4)))),
    Case("mul_scalar", "0.9", (uniform(-2, 2, (2, 3)),), {"other": 0.9}),
    Case("add_scalar", "0.025", (uniform(-2, 2, (2, 3)),), {"other": 0.025}),
    Case("div_scalar", "3", (uniform(-2, 2, (2, 3)),), {"other": 3.0}),
    Case("div_scalar", "0-d", (uniform(-2, 2, ()),), {"other": 2.0}),
]
