"""torch.nn.functional programs end to end (issue 13): softmax, the losses, cross_entropy, linear.

Each program runs through gradcli's API (and a few through the CLI) and in live torch 2.x,
written as a torch user writes it; values, leaf grads, the grad_fn chain torch records
(walked through `next_functions`), Hessians and error texts are compared.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from oracle import close

torch = pytest.importorskip("torch")
F = torch.nn.functional

from gradcli import GradcliError, grad, hessian  # noqa: E402

RNG = np.random.default_rng(13)
X = RNG.uniform(-2, 2, (3, 4)).round(3).tolist()
G3x4 = [[1.0, -2.0, 0.5, 3.0], [0.25, 1.5, -1.0, 2.0], [0.5, -1.0, 2.0, 0.0]]
Y = RNG.uniform(-2, 2, (3, 4)).round(3).tolist()
P = RNG.uniform(0.05, 0.95, (3, 4)).round(3).tolist()
Y01 = RNG.uniform(0, 1, (3, 4)).round(3).tolist()
CLASSES = [2, 0, 3]
G = RNG.uniform(-1, 1, (3, 4)).round(3).tolist()
X3 = RNG.uniform(-2, 2, (2, 3, 4)).round(3).tolist()
G2 = RNG.uniform(-1, 1, (3, 2)).round(3).tolist()
G3 = RNG.uniform(-1, 1, (2, 3, 2)).round(3).tolist()
W23 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
CW = [0.5, 2.0, 1.25, 3.0]  # per-class weights (and a positive running variance)  # a weight that does not fit X's 4 features


def chain(out) -> list[str]:
    """torch's recorded nodes, operands before users (post-order over next_functions)."""
    names: list[str] = []
    seen: set[int] = set()
    stack = [(out.grad_fn, False)]
    while stack:
        fn, ready = stack.pop()
        if fn is None or (not ready and id(fn) in seen) or fn.name().endswith("AccumulateGrad"):
            continue
        if ready:
            names.append(fn.name())
            continue
        seen.add(id(fn))
        stack.append((fn, True))
        stack.extend((child, False) for child, _ in reversed(fn.next_functions))
    return names


def in_torch(function, at: dict, const: dict, indices: tuple[str, ...], dtype, gradient=None):
    """Run `function(**inputs)` in torch: leaves as `dtype` with grad, class indices as int64."""
    leaves = {n: torch.tensor(v, dtype=dtype, requires_grad=True) for n, v in at.items()}
    consts = {n: torch.tensor(v, dtype=torch.int64 if n in indices else dtype) for n, v in const.items()}
    out = function(**leaves, **consts)
    out.backward(None if gradient is None else torch.tensor(gradient, dtype=dtype))
    return out, {n: t.grad.numpy() for n, t in leaves.items()}


# (gradcli program, the torch function, at, const, names holding class indices, gradient)
PROGRAMS = [
    ("F.softmax(x, dim=1)", lambda x: F.softmax(x, dim=1), {"x": X}, {}, (), G),
    ("torch.softmax(x, 0)", lambda x: torch.softmax(x, 0), {"x": X}, {}, (), G),
    ("x.softmax(-1)", lambda x: x.softmax(-1), {"x": X}, {}, (), G),
    ("F.log_softmax(x, dim=1)", lambda x: F.log_softmax(x, dim=1), {"x": X}, {}, (), G),
    ("torch.log_softmax(x, dim=0)", lambda x: torch.log_softmax(x, dim=0), {"x": X}, {}, (), G),
    ("x.log_softmax(1).square().mean()", lambda x: x.log_softmax(1).square().mean(), {"x": X}, {}, (), None),
    ("F.mse_loss(x, y)", lambda x, y: F.mse_loss(x, y), {"x": X}, {"y": Y}, (), None),
    (
        "F.mse_loss(x, y, reduction='sum')",
        lambda x, y: F.mse_loss(x, y, reduction="sum"),
        {"x": X, "y": Y},
        {},
        (),
        None,
    ),
    (
        "F.mse_loss(x, y, reduction='none')",
        lambda x, y: F.mse_loss(x, y, reduction="none"),
        {"x": X, "y": Y},
        {},
        (),
        G,
    ),
    ("torch.nn.functional.l1_loss(x, y)", lambda x, y: F.l1_loss(x, y), {"x": X, "y": Y}, {}, (), None),
    (
        "F.l1_loss(x, y, reduction='sum')",
        lambda x, y: F.l1_loss(x, y, reduction="sum"),
        {"x": X},
        {"y": Y},
        (),
        None,
    ),
    (
        "F.l1_loss(x, y, reduction='none')",
        lambda x, y: F.l1_loss(x, y, reduction="none"),
        {"x": X},
        {"y": Y},
        (),
        G,
    ),
    ("F.smooth_l1_loss(x, y)", lambda x, y: F.smooth_l1_loss(x, y), {"x": X, "y": Y}, {}, (), None),
    (
        "F.smooth_l1_loss(x, y, beta=0.5)",
        lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
        {"x": X},
        {"y": Y},
        (),
        None,
    ),
    (
        "F.smooth_l1_loss(x, y, beta=0)",
        lambda x, y: F.smooth_l1_loss(x, y, beta=0.0),
        {"x": X},
        {"y": Y},
        (),
        None,
    ),
    ("F.huber_loss(x, y)", lambda x, y: F.huber_loss(x, y), {"x": X, "y": Y}, {}, (), None),
    (
        "F.huber_loss(x, y, 'sum', 0.5)",
        lambda x, y: F.huber_loss(x, y, "sum", 0.5),
        {"x": X},
        {"y": Y},
        (),
        None,
    ),
    (
        "F.binary_cross_entropy(torch.sigmoid(x), y)",
        lambda x, y: F.binary_cross_entropy(torch.sigmoid(x), y),
        {"x": X},
        {"y": Y01},
        (),
        None,
    ),
    (
        "F.binary_cross_entropy(p, y, reduction='sum')",
        lambda p, y: F.binary_cross_entropy(p, y, reduction="sum"),
        {"p": P, "y": Y01},
        {},
        (),
        None,
    ),
    (
        "F.binary_cross_entropy_with_logits(x, y)",
        lambda x, y: F.binary_cross_entropy_with_logits(x, y),
        {"x": X, "y": Y01},
        {},
        (),
        None,
    ),
    (
        "F.binary_cross_entropy_with_logits(x, y, reduction='none')",
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="none"),
        {"x": X},
        {"y": Y01},
        (),
        G,
    ),
    (
        "F.nll_loss(F.log_softmax(x, dim=1), y)",
        lambda x, y: F.nll_loss(F.log_softmax(x, dim=1), y),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.nll_loss(x, y, reduction='none')",
        lambda x, y: F.nll_loss(x, y, reduction="none"),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        [1.0, -2.0, 0.5],
    ),
    (
        "F.nll_loss(x, y, ignore_index=0)",
        lambda x, y: F.nll_loss(x, y, ignore_index=0),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    ("F.cross_entropy(x, y)", lambda x, y: F.cross_entropy(x, y), {"x": X}, {"y": CLASSES}, ("y",), None),
    (
        "F.cross_entropy(x, y, reduction='sum')",
        lambda x, y: F.cross_entropy(x, y, reduction="sum"),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.cross_entropy(x, y, reduction='none').mean()",
        lambda x, y: F.cross_entropy(x, y, reduction="none").mean(),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.cross_entropy(x, y, ignore_index=2)",
        lambda x, y: F.cross_entropy(x, y, ignore_index=2),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    ("F.cross_entropy(v, c)", lambda v, c: F.cross_entropy(v, c), {"v": X[0]}, {"c": 1}, ("c",), None),
    (
        "F.linear(x, W, b).sum()",
        lambda x, W, b: F.linear(x, W, b).sum(),
        {"W": Y[:2], "b": [0.5, -1.0]},
        {"x": X},
        (),
        None,
    ),
    # class probabilities: a target shaped as the input (cross_entropy_loss_prob_target)
    ("F.cross_entropy(x, p)", lambda x, p: F.cross_entropy(x, p), {"x": X}, {"p": P}, (), None),
    ("F.cross_entropy(x, p)", lambda x, p: F.cross_entropy(x, p), {"x": X, "p": P}, {}, (), None),
    (
        "F.cross_entropy(x, p, reduction='sum')",
        lambda x, p: F.cross_entropy(x, p, reduction="sum"),
        {"x": X},
        {"p": P},
        (),
        None,
    ),
    (
        "F.cross_entropy(x, p, reduction='none')",
        lambda x, p: F.cross_entropy(x, p, reduction="none"),
        {"x": X},
        {"p": P},
        (),
        [1.0, -0.5, 2.0],
    ),
    ("F.cross_entropy(v, q)", lambda v, q: F.cross_entropy(v, q), {"v": X[0]}, {"q": P[0]}, (), None),
    (
        "F.cross_entropy(x, p, label_smoothing=0.1)",
        lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1),
        {"x": X, "p": P},
        {},
        (),
        None,
    ),
    # label smoothing with class indices (cross_entropy_loss_label_smoothing)
    (
        "F.cross_entropy(x, y, label_smoothing=0.1)",
        lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.cross_entropy(x, y, label_smoothing=0.25, reduction='sum')",
        lambda x, y: F.cross_entropy(x, y, label_smoothing=0.25, reduction="sum"),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.cross_entropy(x, y, label_smoothing=0.2, reduction='none')",
        lambda x, y: F.cross_entropy(x, y, label_smoothing=0.2, reduction="none"),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        [0.5, 1.0, -1.0],
    ),
    (
        "F.cross_entropy(x, y, ignore_index=0, label_smoothing=0.3)",
        lambda x, y: F.cross_entropy(x, y, ignore_index=0, label_smoothing=0.3),
        {"x": X},
        {"y": CLASSES},
        ("y",),
        None,
    ),
    (
        "F.cross_entropy(v, c, label_smoothing=0.5)",
        lambda v, c: F.cross_entropy(v, c, label_smoothing=0.5),
        {"v": X[0]},
        {"c": 1},
        ("c",),
        None,
    ),
    # linear: AddmmBackward0 for a 2-D input with a bias; views around it for other ranks
    (
        "F.linear(x, W, b)",
        lambda x, W, b: F.linear(x, W, b),
        {"x": X, "W": Y[:2], "b": [0.5, -1.0]},
        {},
        (),
        G2,
    ),
    ("F.linear(x, W)", lambda x, W: F.linear(x, W), {"x": X, "W": Y[:2]}, {}, (), G2),
    (
        "F.linear(x, weight=W, bias=b)",
        lambda x, W, b: F.linear(x, weight=W, bias=b),
        {"x": X, "W": Y[:2], "b": [0.5, -1.0]},
        {},
        (),
        G2,
    ),
    ("F.linear(x, W, None)", lambda x, W: F.linear(x, W, None), {"x": X, "W": Y[:2]}, {}, (), G2),
    (
        "torch.nn.functional.linear(v, W, b)",
        lambda v, W, b: F.linear(v, W, b),
        {"v": X[0], "W": Y[:2], "b": [0.5, -1.0]},
        {},
        (),
        [1.0, -2.0],
    ),
    (
        "F.linear(x3, W, b)",
        lambda x3, W, b: F.linear(x3, W, b),
        {"x3": X3, "W": Y[:2], "b": [0.5, -1.0]},
        {},
        (),
        G3,
    ),
    ("F.linear(x3, W)", lambda x3, W: F.linear(x3, W), {"x3": X3, "W": Y[:2]}, {}, (), G3),
    (
        "F.linear(x, W, b)",
        lambda x, W, b: F.linear(x, W, b),
        {"x": X, "W": Y[:2]},
        {"b": [0.5, -1.0]},
        {},
        G2,
    ),
    (
        "torch.addmm(b, x, W.mT, beta=0.5, alpha=2)",
        lambda b, x, W: torch.addmm(b, x, W.mT, beta=0.5, alpha=2),
        {"x": X, "W": Y[:2], "b": [0.5, -1.0]},
        {},
        (),
        G2,
    ),
    ("(x3.mT * 2).sum()", lambda x3: (x3.mT * 2).sum(), {"x3": X3}, {}, (), None),
    # F.cosine_similarity: norms cloned and clamped under no_grad, as ATen's Distance.cpp
    ("F.cosine_similarity(x, y)", lambda x, y: F.cosine_similarity(x, y), {"x": X, "y": Y}, {}, (), [1.0, -2.0, 0.5]),
    (
        "(1 - torch.cosine_similarity(x, v, dim=-1)).mean()",
        lambda x, v: (1 - torch.cosine_similarity(x, v, dim=-1)).mean(),
        {"x": X, "v": Y[0]},
        {},
        (),
        None,
    ),
    # F.layer_norm: one NativeLayerNormBackward0 over x, weight and bias
    (
        "F.layer_norm(x, (4,), w, b)",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        {"x": X, "w": Y[0], "b": Y[1]},
        {},
        (),
        G3x4,
    ),
    ("F.layer_norm(x, [3, 4], eps=1e-3)", lambda x: F.layer_norm(x, [3, 4], eps=1e-3), {"x": X}, {}, (), G3x4),
    ("F.layer_norm(x, (4,), weight=w).exp().sum()", lambda x, w: F.layer_norm(x, (4,), weight=w).exp().sum(), {"x": X, "w": Y[1]}, {}, (), None),
    # weight= of the losses: constants, no gradient (torch refuses one that requires grad)
    ("F.nll_loss(x, y, weight=w)", lambda x, y, w: F.nll_loss(x, y, weight=w), {"x": X}, {"y": CLASSES, "w": CW}, ("y",), None),
    ("F.nll_loss(x, y, w, reduction='none')", lambda x, y, w: F.nll_loss(x, y, w, reduction="none"), {"x": X}, {"y": [2, -100, 1], "w": CW}, ("y",), [1.0, 2.0, -0.5]),
    ("F.cross_entropy(x, y, weight=w, ignore_index=0)", lambda x, y, w: F.cross_entropy(x, y, weight=w, ignore_index=0), {"x": X}, {"y": CLASSES, "w": CW}, ("y",), None),
    ("F.cross_entropy(x, y, weight=w, label_smoothing=0.2)", lambda x, y, w: F.cross_entropy(x, y, weight=w, label_smoothing=0.2), {"x": X}, {"y": [2, -100, 1], "w": CW}, ("y",), None),
    ("F.cross_entropy(x, y, w, reduction='sum', label_smoothing=0.1)", lambda x, y, w: F.cross_entropy(x, y, w, reduction="sum", label_smoothing=0.1), {"x": X}, {"y": CLASSES, "w": CW}, ("y",), None),
    ("F.cross_entropy(x, p, weight=w, label_smoothing=0.1)", lambda x, p, w: F.cross_entropy(x, p, weight=w, label_smoothing=0.1), {"x": X, "p": P}, {"w": CW}, (), None),
    ("F.binary_cross_entropy(p, y, weight=w)", lambda p, y, w: F.binary_cross_entropy(p, y, weight=w), {"p": P, "y": Y01}, {"w": CW}, (), None),
    ("F.binary_cross_entropy_with_logits(x, y, weight=v, pos_weight=w, reduction='none')", lambda x, y, v, w: F.binary_cross_entropy_with_logits(x, y, weight=v, pos_weight=w, reduction="none"), {"x": X, "y": Y01}, {"w": CW, "v": P}, (), G),
    ("F.binary_cross_entropy_with_logits(x, y, pos_weight=w)", lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, pos_weight=w), {"x": X, "y": Y01}, {"w": CW}, (), None),
    # F.batch_norm: one NativeBatchNormBackward0, batch stats in training, running stats in eval
    ("F.batch_norm(x, rm, rv, w, b, training=True)", lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=True), {"x": X, "w": CW, "b": Y[1]}, {"rm": Y[0], "rv": CW}, (), G3x4),
    ("F.batch_norm(x, rm, rv, weight=w, eps=1e-3)", lambda x, rm, rv, w: F.batch_norm(x, rm, rv, weight=w, eps=1e-3), {"x": X, "w": CW}, {"rm": Y[0], "rv": CW}, (), G3x4),
    ("F.batch_norm(x3.mT, None, None, training=True).exp().sum()", lambda x3: F.batch_norm(x3.mT, None, None, training=True).exp().sum(), {"x3": X3}, {}, (), None),
    ("F.batch_norm(x3, rm, rv, w, b).sum()", lambda x3, rm, rv, w, b: F.batch_norm(x3, rm, rv, w, b).sum(), {"x3": X3, "w": CW[:3], "b": Y[1][:3]}, {"rm": Y[0][:3], "rv": CW[:3]}, (), None),
    # F.embedding: rows of W; repeated rows add up, and padding_idx's row gets no gradient
    (
        "(F.embedding(y, W) ** 2).sum()",
        lambda y, W: (F.embedding(y, W) ** 2).sum(),
        {"W": Y},
        {"y": [[0, 1], [1, 1]]},
        ("y",),
        None,
    ),
    (
        "F.embedding(y, W, padding_idx=1).exp().sum()",
        lambda y, W: F.embedding(y, W, padding_idx=1).exp().sum(),
        {"W": Y},
        {"y": [0, 1, 1]},
        ("y",),
        None,
    ),
]
IDS = [p[0] for p in PROGRAMS]
# Where gradcli records other nodes than torch: a beta=0 dispatch is missing.
FUSED = {
    # beta=0 is l1_loss in torch; gradcli's one smooth_l1_loss node takes its last node's name.
    "F.smooth_l1_loss(x, y, beta=0)": (["SubBackward0", "AbsBackward0", "MeanBackward0"], ["MeanBackward0"]),
}


@pytest.mark.parametrize(("program", "function", "at", "const", "indices", "gradient"), PROGRAMS, ids=IDS)
def test_float64_values_grads_and_grad_fn_chain_equal_torch(program, function, at, const, indices, gradient):
    result = grad(program, at=at, const=const, gradient=gradient)
    out, grads = in_torch(function, at, const, indices, torch.float64, gradient)
    assert close(result.value, out.detach().numpy(), rtol=1e-12, atol=1e-14)
    for name, want in grads.items():
        assert close(result.grads[name], want, rtol=1e-12, atol=1e-14), name
    recorded = [n.grad_fn for n in result.nodes if n.grad_fn]
    if program in FUSED:
        theirs, ours = FUSED[program]
        assert chain(out) == theirs, f"torch's chain changed: {chain(out)} (FUSED expects {theirs})"
        assert recorded == ours, f"ours: {recorded}\nFUSED expects: {ours}"
    else:
        assert recorded == chain(out), f"grad_fn chain\nours:  {recorded}\ntorch: {chain(out)}"


@pytest.mark.parametrize(("program", "function", "at", "const", "indices", "gradient"), PROGRAMS, ids=IDS)
def test_float32_values_and_grads_equal_torch(program, function, at, const, indices, gradient):
    result = grad(program, at=at, const=const, gradient=gradient, dtype="float32")
    out, grads = in_torch(function, at, const, indices, torch.float32, gradient)
    assert result.value.dtype == np.float32
    assert close(result.value, out.detach().numpy(), rtol=2e-6, atol=1e-6, normwise=True)
    for name, want in grads.items():
        assert close(result.grads[name], want, rtol=2e-6, atol=1e-6, normwise=True), name


@pytest.mark.parametrize(
    ("program", "function", "at", "const"),
    [
        ("F.mse_loss(x, y)", lambda x, y: F.mse_loss(x, y), {"x": X[0], "y": Y[0]}, {}),
        (
            "F.cross_entropy(x, y)",
            lambda x: F.cross_entropy(x, torch.tensor(CLASSES)),
            {"x": X},
            {"y": CLASSES},
        ),
        (
            "(F.log_softmax(x, 1) * w).sum()",
            lambda x: (F.log_softmax(x, 1) * torch.tensor(Y, dtype=torch.float64)).sum(),
            {"x": X},
            {"w": Y},
        ),
        (
            "(F.softmax(x, dim=0) * w).sum()",
            lambda x: (F.softmax(x, dim=0) * torch.tensor(Y[1], dtype=torch.float64)).sum(),
            {"x": X[1]},
            {"w": Y[1]},
        ),
        (
            "F.binary_cross_entropy_with_logits(x, y)",
            lambda x, y: F.binary_cross_entropy_with_logits(x, y),
            {"x": X[0], "y": Y01[0]},
            {},
        ),
        (
            "F.binary_cross_entropy(p, y)",
            lambda p: F.binary_cross_entropy(p, torch.tensor(Y01[0], dtype=torch.float64)),
            {"p": P[0]},
            {"y": Y01[0]},
        ),
        (
            "F.huber_loss(x, y, delta=0.5)",
            lambda x, y: F.huber_loss(x, y, delta=0.5),
            {"x": X[2], "y": Y[2]},
            {},
        ),
        (
            "F.smooth_l1_loss(x, y, beta=1.5)",
            lambda x, y: F.smooth_l1_loss(x, y, beta=1.5),
            {"x": X[2], "y": Y[2]},
            {},
        ),
        (
            "F.l1_loss(x, y, reduction='sum')",
            lambda x, y: F.l1_loss(x, y, reduction="sum"),
            {"x": X[2], "y": Y[2]},
            {},
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_hessian_equals_torch_autograd_functional_hessian(program, function, at, const):
    result = hessian(program, at=at, const=const)
    # consts are bound inside `function`, as torch.autograd.functional.hessian differentiates all inputs
    inputs = tuple(torch.tensor(v, dtype=torch.float64) for v in at.values())
    want = torch.autograd.functional.hessian(function, inputs)
    names = list(at)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            assert close(result.hessian[a][b], want[i][j].numpy(), rtol=1e-10, atol=1e-12), (a, b)


def _torch_error(function) -> str:
    with pytest.raises((RuntimeError, ValueError, IndexError)) as raised:
        function()
    return str(raised.value)


@pytest.mark.parametrize(
    ("program", "at", "const", "function"),
    [
        (
            "F.nll_loss(x, y)",
            {"x": X},
            {"y": [2, 0, 7]},
            lambda: F.nll_loss(torch.tensor(X), torch.tensor([2, 0, 7])),
        ),
        (
            "F.cross_entropy(x, y)",
            {"x": X},
            {"y": [2, -1, 1]},
            lambda: F.cross_entropy(torch.tensor(X), torch.tensor([2, -1, 1])),
        ),
        (
            "F.cross_entropy(x, y)",
            {"x": X},
            {"y": [2, 0]},
            lambda: F.cross_entropy(torch.tensor(X), torch.tensor([2, 0])),
        ),
        (
            "F.nll_loss(x, y)",
            {"x": X[0]},
            {"y": [1, 2]},
            lambda: F.nll_loss(torch.tensor(X[0]), torch.tensor([1, 2])),
        ),
        (
            "F.nll_loss(x, y)",
            {"x": X},
            {"y": [[1, 2, 0]] * 3},
            lambda: F.nll_loss(torch.tensor(X), torch.tensor([[1, 2, 0]] * 3)),
        ),
        (
            "F.binary_cross_entropy(x, y)",
            {"x": X},
            {"y": Y01},
            lambda: F.binary_cross_entropy(torch.tensor(X), torch.tensor(Y01)),
        ),
        (
            "F.binary_cross_entropy(p, y)",
            {"p": P},
            {"y": Y},
            lambda: F.binary_cross_entropy(torch.tensor(P), torch.tensor(Y)),
        ),
        (
            "F.binary_cross_entropy(p, y)",
            {"p": P},
            {"y": Y01[0]},
            lambda: F.binary_cross_entropy(torch.tensor(P), torch.tensor(Y01[0])),
        ),
        (
            "F.binary_cross_entropy_with_logits(x, y)",
            {"x": X},
            {"y": Y01[0]},
            lambda: F.binary_cross_entropy_with_logits(torch.tensor(X), torch.tensor(Y01[0])),
        ),
        (
            "F.mse_loss(x, y)",
            {"x": X},
            {"y": [1.0, 2.0]},
            lambda: F.mse_loss(torch.tensor(X), torch.tensor([1.0, 2.0])),
        ),
        ("F.softmax(x, dim=2)", {"x": X}, {}, lambda: F.softmax(torch.tensor(X), dim=2)),
        (
            "F.nll_loss(x, y, weight=w)",
            {"x": X},
            {"y": CLASSES, "w": CW[:3]},
            lambda: F.nll_loss(torch.tensor(X), torch.tensor(CLASSES), weight=torch.tensor(CW[:3])),
        ),
        (
            "F.cross_entropy(x, p, weight=w)",
            {"x": X},
            {"p": P, "w": CW[:3]},
            lambda: F.cross_entropy(torch.tensor(X), torch.tensor(P), weight=torch.tensor(CW[:3])),
        ),
        (
            "F.nll_loss(x, y, weight=w)",
            {"x": X, "w": CW},
            {"y": CLASSES},
            lambda: F.nll_loss(torch.tensor(X), torch.tensor(CLASSES), weight=torch.tensor(CW, requires_grad=True)),
        ),
        (
            "F.binary_cross_entropy(p, y, weight=w)",
            {"p": P},
            {"y": Y01, "w": CW[:3]},
            lambda: F.binary_cross_entropy(torch.tensor(P), torch.tensor(Y01), weight=torch.tensor(CW[:3])),
        ),
        (
            "F.binary_cross_entropy_with_logits(x, y, pos_weight=w)",
            {"x": X},
            {"y": Y01, "w": CW[:3]},
            lambda: F.binary_cross_entropy_with_logits(
                torch.tensor(X), torch.tensor(Y01), pos_weight=torch.tensor(CW[:3])
            ),
        ),
        (
            "F.binary_cross_entropy_with_logits(x, y, weight=w)",
            {"x": X},
            {"y": Y01, "w": [[CW]]},
            lambda: F.binary_cross_entropy_with_logits(torch.tensor(X), torch.tensor(Y01), weight=torch.tensor([[CW]])),
        ),
        (
            "F.batch_norm(x[:1], rm, rv, training=True)",
            {"x": X},
            {"rm": CW, "rv": CW},
            lambda: F.batch_norm(torch.tensor(X[:1]), torch.tensor(CW), torch.tensor(CW), training=True),
        ),
        (
            "F.batch_norm(x, rm, rv)",
            {"x": X},
            {"rm": CW[:3], "rv": CW},
            lambda: F.batch_norm(torch.tensor(X), torch.tensor(CW[:3]), torch.tensor(CW)),
        ),
        (
            "F.batch_norm(x, rm, rv, w, training=True)",
            {"x": X},
            {"rm": CW, "rv": CW, "w": CW[:2]},
            lambda: F.batch_norm(torch.tensor(X), torch.tensor(CW), torch.tensor(CW), torch.tensor(CW[:2]), training=True),
        ),
        (
            "F.smooth_l1_loss(x, y, beta=-1)",
            {"x": X},
            {"y": Y},
            lambda: F.smooth_l1_loss(torch.tensor(X), torch.tensor(Y), beta=-1.0),
        ),
    ],
)
def test_errors_are_torchs(program, at, const, function):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _torch_error(function)
    with pytest.raises(GradcliError) as ours:
        grad(program, at=at, const=const)
    assert ours.value.message.split(": ", 1)[-1] == expected


@pytest.mark.parametrize("program", ["F.softmax(x)", "x.log_softmax()", "torch.softmax(x, dim=None)"])
def test_softmax_requires_dim_and_says_so(program):
    with pytest.raises(GradcliError) as raised:
        grad(program, at={"x": X}, gradient=G)
    assert "needs dim" in raised.value.message and "dim=1" in raised.value.message


@pytest.mark.parametrize("value", [[2, 0.5, 1], [2, float("nan"), 1], [2.0, 0.0, 1.0]])
def test_a_float_target_of_class_indices_is_torchs_error(value):
    # A --const [2, 0, 1] is int64 as in torch.tensor; [2.0, 0.0, 1.0] is floating, which torch refuses.
    target = torch.tensor(value, dtype=torch.float64)
    torch_text = _torch_error(lambda: F.cross_entropy(torch.tensor(X, dtype=torch.float64), target))
    with pytest.raises(GradcliError) as raised:
        grad("F.cross_entropy(x, y)", at={"x": X}, const={"y": value})
    assert raised.value.message.split(": ", 1)[1] == torch_text


def test_a_target_of_class_indices_cannot_require_grad():
    torch_text = _torch_error(lambda: torch.tensor([2, 0, 1], requires_grad=True))
    with pytest.raises(GradcliError) as raised:
        grad("F.nll_loss(x, y)", at={"x": X, "y": CLASSES})
    assert raised.value.message == torch_text and "--const" in raised.value.hint


@pytest.mark.parametrize(
    ("program", "const", "function"),
    [
        (
            "F.cross_entropy(x, p, label_smoothing=1.5)",
            {"p": P},
            lambda x: F.cross_entropy(x, T(P), label_smoothing=1.5),
        ),
        (
            "F.cross_entropy(x, y, label_smoothing=2.0)",
            {"y": CLASSES},
            lambda x: F.cross_entropy(x, T(CLASSES, torch.long), label_smoothing=2.0),
        ),
        (
            "F.cross_entropy(x, p, ignore_index=1)",
            {"p": P},
            lambda x: F.cross_entropy(x, T(P), ignore_index=1),
        ),
        ("F.nll_loss(x, p)", {"p": P}, lambda x: F.nll_loss(x, T(P))),
        ("F.linear(x, W)", {"W": W23}, lambda x: F.linear(x, T(W23))),
        (
            "F.linear(x, W, b)",
            {"W": Y[:2], "b": [1.0, 2.0, 3.0]},
            lambda x: F.linear(x, T(Y[:2]), T([1.0, 2.0, 3.0])),
        ),
        (
            "torch.addmm(b, x, W)",
            {"W": Y[:2], "b": [1.0, 2.0]},
            lambda x: torch.addmm(T([1.0, 2.0]), x, T(Y[:2])),
        ),
        ("x[0].mT", {}, lambda x: x[0].mT),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_bad_targets_smoothing_and_shapes_are_torchs_errors(program, const, function):
    with pytest.raises(GradcliError) as ours:
        grad(f"({program}).sum()", at={"x": X}, const=const)
    with pytest.raises((RuntimeError, ValueError, IndexError)) as theirs:
        function(torch.tensor(X, dtype=torch.float64, requires_grad=True))
    assert ours.value.message.split(": ", 1)[1] == str(theirs.value).splitlines()[0]


def T(value, dtype=None):  # noqa: N802 - a torch constant, as a test writes it inline
    return torch.tensor(value, dtype=dtype or torch.float64)


def test_the_table_shows_the_aten_calls_torch_records():
    """Label smoothing's Scalar arithmetic is MulBackward1: written as torch.ops.aten.mul.Scalar."""
    result = grad("F.cross_entropy(x, y, label_smoothing=0.1)", at={"x": X}, const={"y": CLASSES})
    written = [n.written for n in result.nodes if n.grad_fn in ("MulBackward1", "AddmmBackward0")]
    assert written[0].startswith("torch.ops.aten.mul.Scalar(") and written[0].endswith(", 0.9)")
    result = grad("F.linear(x, W, b).sum()", at={"x": X, "W": Y[:2], "b": [0.5, -1.0]})
    assert [n.written for n in result.nodes if n.grad_fn == "AddmmBackward0"] == ["torch.addmm(b, x, t1)"]


def test_every_row_ignored_gives_nan_and_zero_grad_as_torch():
    at, const = {"x": X}, {"y": [-100, -100, -100]}
    result = grad("F.cross_entropy(x, y)", at=at, const=const)
    out, grads = in_torch(lambda x, y: F.cross_entropy(x, y), at, const, ("y",), torch.float64)
    assert np.isnan(result.value) and np.isnan(out.item())
    assert close(result.grads["x"], grads["x"])


def test_the_cli_prints_the_table_and_json_of_a_cross_entropy(run):
    args = ["F.cross_entropy(x, y)", "--at", f"x={json.dumps(X)}", "--const", "y=[2,0,3]"]
    table = run("grad", *args)
    assert table.exit_code == 0, table.stderr
    assert "NllLossBackward0" in table.stdout and "LogSoftmaxBackward0" in table.stdout
    document = json.loads(run("grad", *args, "--format", "json").stdout)
    out, grads = in_torch(lambda x, y: F.cross_entropy(x, y), {"x": X}, {"y": CLASSES}, ("y",), torch.float64)
    assert close(document["output"]["value"], out.item(), rtol=1e-12)
    assert close(document["leaves"]["x"]["grad"], grads["x"], rtol=1e-12)
    assert document["output"]["grad_fn"] == out.grad_fn.name()
    hess = run(
        "hessian", "F.mse_loss(x, y)", "--at", "x=[0.5,-1,2]", "--const", "y=[0,1,1]", "--format", "json"
    )
    assert hess.exit_code == 0, hess.stderr
    want = torch.autograd.functional.hessian(
        lambda x: F.mse_loss(x, torch.tensor([0.0, 1.0, 1.0], dtype=torch.float64)),
        torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64),
    )
    assert close(json.loads(hess.stdout)["hessian"]["x"]["x"], want.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    ("program", "at", "const"),
    [
        ("sum(F.softmax(a, dim=1) * c)", {"a": X}, {"c": Y}),
        ("sum(F.log_softmax(a, dim=0) * c)", {"a": X}, {"c": Y}),
        ("F.mse_loss(a, b)", {"a": X, "b": Y}, {}),
        ("sum(F.mse_loss(a, b, reduction='none') * c)", {"a": X, "b": Y}, {"c": G}),
        ("F.binary_cross_entropy_with_logits(a, b)", {"a": X, "b": Y01}, {}),
    ],
)
def test_table_steps_give_the_numeric_adjoint(program, at, const, monkeypatch):
    import test_local_steps

    assert test_local_steps.check_steps(program, at, const) >= 2


def test_big_softmax_kernels_run_in_row_blocks_with_the_same_bits(monkeypatch):
    """Past 65,536 elements the softmax kernels run on row blocks in threads: every row's
    numbers depend on that row only, so the result is bit for bit one call's, and torch's."""
    from gradcli.ops import nn

    rng = np.random.default_rng(7)
    x = rng.standard_normal((20_000, 5))
    g = rng.standard_normal((20_000, 5))
    # the last dim (blocks written in place), the first (blocks of columns) and a middle one
    cases = [(x, g, 1), (x, g, 0), (x.reshape(200, 100, 5), g.reshape(200, 100, 5), 1)]

    def kernels(a, b, dim):
        results = [nn._softmax(a, dim), nn._log_softmax(a, dim), nn._log_softmax_backward_data(b, a, dim)]
        return [*results, nn._softmax_backward_data(b, results[0], dim)]

    blocked = [kernels(*case) for case in cases]
    monkeypatch.setattr(nn, "_PARALLEL_ELEMENTS", 10**12)
    whole = [kernels(*case) for case in cases]
    for ours, one_call in zip(blocked, whole, strict=True):
        for a, b in zip(ours, one_call, strict=True):
            np.testing.assert_array_equal(a, b)
    y = rng.integers(0, 5, 20_000)
    result = grad("F.cross_entropy(x, y)", at={"x": x}, const={"y": y}, symbolic=False, nodes=False)
    leaf = torch.tensor(x, requires_grad=True)
    F.cross_entropy(leaf, torch.tensor(y)).backward()
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-12, atol=1e-15)
