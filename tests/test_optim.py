"""gradcli.optim against torch.optim 2.13 (CPU, single-tensor path): raw bits, not tolerances.

Parameters of sizes 1, 7, 8, 9, 33 and 1000 put elements in the AVX2 kernels' vector body
(16 floats or 8 doubles a round) and in their scalar tail. torch.sqrt is MKL's VML root, which
gradcli does not reproduce (see gradcli.optim.Sqrt): the update tests hand gradcli torch's root,
so every other rounding is checked bit for bit, and test_only_the_root_separates_ieee_sqrt
shows that with gradcli's own IEEE root nothing but the root differs.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli import optim

SIZES = (1, 7, 8, 9, 33, 1000)
STEPS = st.sampled_from([1, 5, 50])
DTYPES = st.sampled_from([np.float32, np.float64])
EXAMPLES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def torch_sqrt(values: np.ndarray) -> np.ndarray:
    """torch's own (MKL) square root, the one piece the update tests take from the oracle."""
    return torch.from_numpy(np.ascontiguousarray(values)).sqrt().numpy()


def bits(values: Any) -> np.ndarray:
    values = np.asarray(values)
    return values.view({4: np.uint32, 8: np.uint64}[values.dtype.itemsize])


def same_bits(a: Any, b: Any) -> bool:
    """Equal bit for bit, zeros' signs included; a NaN matches any NaN (payload and sign
    bits of a NaN born inside an emulated fma are not modelled)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(bits(a)[~nan], bits(b)[~nan])


def gradient_sequence(seed: int, dtype: Any, steps: int, skip: bool) -> list[list[np.ndarray | None]]:
    """Per step, one gradient per parameter: normal values at a few scales, some exact zeros,
    and (skip) parameter 2 without a gradient every third step, as a missing .grad."""
    rng = np.random.default_rng(seed)
    sequence = []
    for step in range(steps):
        grads: list[np.ndarray | None] = []
        for n in SIZES:
            g = rng.standard_normal(n) * 10.0 ** rng.integers(-4, 3)
            g[rng.random(n) < 0.05] = 0.0
            grads.append(g.astype(dtype))
        if skip and step % 3 == 1:
            grads[2] = None
        sequence.append(grads)
    return sequence


def run_both(name: str, kwargs: dict[str, Any], dtype: Any, steps: int, seed: int, skip: bool = True):
    """The same parameters and gradients through torch.optim.<name> and gradcli.optim.<name>."""
    rng = np.random.default_rng(seed + 1)
    start = [rng.standard_normal(n).astype(dtype) for n in SIZES]
    ours_params = [p.copy() for p in start]
    theirs_params = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    extra = {} if name == "SGD" else {"sqrt": torch_sqrt}
    ours = getattr(optim, name)(ours_params, **kwargs, **extra)
    theirs = getattr(torch.optim, name)(theirs_params, **kwargs)
    for grads in gradient_sequence(seed, dtype, steps, skip):
        for p, g in zip(theirs_params, grads, strict=True):
            p.grad = None if g is None else torch.from_numpy(g.copy())
        theirs.step()
        ours.step([None if g is None else g.copy() for g in grads])
    return ours, theirs


def assert_same_state(ours: optim.Optimizer, theirs: torch.optim.Optimizer) -> None:
    """Parameters, and every state entry (keys in torch's order), equal bit for bit."""
    for ours_group, theirs_group in zip(ours.param_groups, theirs.param_groups, strict=True):
        for i, (a, b) in enumerate(zip(ours_group["params"], theirs_group["params"], strict=True)):
            assert same_bits(a, b.detach().numpy()), f"parameter {i} (size {a.size}) differs"
    ours_state, theirs_state = ours.state_dict()["state"], theirs.state_dict()["state"]
    assert list(ours_state) == list(theirs_state)
    for index, entry in theirs_state.items():
        assert list(ours_state[index]) == list(entry), index
        for key, value in entry.items():
            assert same_bits(ours_state[index][key], value.numpy()), (index, key)


# ------------------------------------------------------------------------------------------------
# Updates, bit for bit
# ------------------------------------------------------------------------------------------------

positive = st.floats(1e-4, 1.0)
factor = st.one_of(st.sampled_from([0.0, 0.5, 0.9]), st.floats(0.0, 0.99))
decay = st.one_of(st.just(0.0), st.floats(1e-4, 0.5))
beta = st.one_of(st.sampled_from([0.0, 0.5, 0.9, 0.999]), st.floats(0.0, 0.999))


@EXAMPLES
@given(
    dtype=DTYPES,
    steps=STEPS,
    seed=st.integers(0, 2**32 - 1),
    lr=positive,
    momentum=factor,
    dampening=factor,
    weight_decay=decay,
    nesterov=st.booleans(),
    maximize=st.booleans(),
)
def test_sgd_updates_are_torchs_bits(
    dtype, steps, seed, lr, momentum, dampening, weight_decay, nesterov, maximize
):
    if nesterov and (momentum <= 0 or dampening != 0):
        dampening, momentum = 0.0, momentum or 0.9
    kwargs = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay)
    ours, theirs = run_both("SGD", {**kwargs, "nesterov": nesterov, "maximize": maximize}, dtype, steps, seed)
    assert_same_state(ours, theirs)


@EXAMPLES
@given(
    name=st.sampled_from(["Adam", "AdamW"]),
    dtype=DTYPES,
    steps=STEPS,
    seed=st.integers(0, 2**32 - 1),
    lr=positive,
    beta1=beta,
    beta2=beta,
    eps=st.sampled_from([1e-8, 1e-3, 0.0]),
    weight_decay=decay,
    amsgrad=st.booleans(),
    maximize=st.booleans(),
)
def test_adam_updates_are_torchs_bits(
    name, dtype, steps, seed, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize
):
    kwargs = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)
    ours, theirs = run_both(name, {**kwargs, "amsgrad": amsgrad, "maximize": maximize}, dtype, steps, seed)
    assert_same_state(ours, theirs)


@EXAMPLES
@given(
    dtype=DTYPES,
    steps=STEPS,
    seed=st.integers(0, 2**32 - 1),
    lr=positive,
    alpha=st.one_of(st.sampled_from([0.99, 0.5, 0.0]), st.floats(0.0, 1.0)),
    eps=st.sampled_from([1e-8, 1e-3]),
    weight_decay=decay,
    momentum=factor,
    centered=st.booleans(),
    maximize=st.booleans(),
)
def test_rmsprop_updates_are_torchs_bits(
    dtype, steps, seed, lr, alpha, eps, weight_decay, momentum, centered, maximize
):
    kwargs = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum)
    ours, theirs = run_both(
        "RMSprop", {**kwargs, "centered": centered, "maximize": maximize}, dtype, steps, seed
    )
    assert_same_state(ours, theirs)


@EXAMPLES
@given(
    dtype=DTYPES,
    steps=STEPS,
    seed=st.integers(0, 2**32 - 1),
    lr=positive,
    lr_decay=decay,
    weight_decay=decay,
    initial=st.sampled_from([0.0, 0.1, 1.0]),
    eps=st.sampled_from([1e-10, 1e-3]),
    maximize=st.booleans(),
)
def test_adagrad_updates_are_torchs_bits(
    dtype, steps, seed, lr, lr_decay, weight_decay, initial, eps, maximize
):
    kwargs = dict(
        lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, initial_accumulator_value=initial, eps=eps
    )
    ours, theirs = run_both("Adagrad", {**kwargs, "maximize": maximize}, dtype, steps, seed)
    assert_same_state(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
        ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
        ("AdamW", dict(lr=0.01, betas=(0.5, 0.5))),
        ("RMSprop", dict(momentum=0.9, centered=True)),
        ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ],
)
def test_a_step_per_parameter_group_uses_that_groups_options(name, kwargs, dtype):
    """Two groups, the second overriding lr (and skipped on alternate steps)."""
    rng = np.random.default_rng(3)
    start = [rng.standard_normal(n).astype(dtype) for n in (9, 33, 17)]
    extra = {} if name == "SGD" else {"sqrt": torch_sqrt}
    ours_params = [p.copy() for p in start]
    theirs_params = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    ours = getattr(optim, name)(
        [{"params": ours_params[:2]}, {"params": ours_params[2:], "lr": 0.3}], **kwargs, **extra
    )
    theirs = getattr(torch.optim, name)(
        [{"params": theirs_params[:2]}, {"params": theirs_params[2:], "lr": 0.3}], **kwargs
    )
    for step in range(6):
        grads = [rng.standard_normal(p.shape).astype(dtype) for p in start]
        if step % 2:
            grads[2] = None
        for p, g in zip(theirs_params, grads, strict=True):
            p.grad = None if g is None else torch.from_numpy(g)
        theirs.step()
        ours.step(grads)
    assert_same_state(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("Adam", dict(lr=0.01)),
        ("AdamW", dict(lr=0.01, amsgrad=True)),
        ("RMSprop", dict(centered=True, momentum=0.5)),
        ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.1)),
    ],
)
def test_only_the_root_separates_ieee_sqrt(name, kwargs, dtype):
    """With gradcli's default (IEEE) root, one step from fresh state differs from torch only
    in elements whose root MKL rounds the other way (none, where MKL's root is IEEE's)."""
    rng = np.random.default_rng(11)
    start = rng.standard_normal(1000).astype(dtype)
    grad = (rng.standard_normal(1000) * 0.1).astype(dtype)
    ours_param, theirs_param = start.copy(), torch.tensor(start.copy(), requires_grad=True)
    ours = getattr(optim, name)([ours_param], **kwargs)
    theirs = getattr(torch.optim, name)([theirs_param], **kwargs)
    theirs_param.grad = torch.from_numpy(grad.copy())
    theirs.step()
    ours.step([grad.copy()])
    state = ours.state_dict()["state"][0]
    if name == "RMSprop":
        rooted = optim.addcmul(state["square_avg"], state["grad_avg"], state["grad_avg"], -1)
    else:
        rooted = state[
            "max_exp_avg_sq" if kwargs.get("amsgrad") else "exp_avg_sq" if "exp_avg_sq" in state else "sum"
        ]
    root_differs = bits(np.sqrt(rooted)) != bits(torch_sqrt(rooted))
    differs = bits(ours_param) != bits(theirs_param.detach().numpy())
    # MKL's float32 root rounds some of these the other way on some CPU paths (AVX512, or an AMD
    # CPU); on the AVX2 path the tests pin (conftest.py) it is IEEE's and every bit agrees
    assert not (differs & ~root_differs).any()
    if not root_differs.any():
        assert not differs.any()


# ------------------------------------------------------------------------------------------------
# The kernels: fused multiply-adds in the vector body and the scalar tail
# ------------------------------------------------------------------------------------------------


def exact_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Double a * b + c rounded once, by rationals (Python's int division rounds correctly)."""
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True):
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            out.append(x * y + z)
            continue
        value = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            out.append(x * y + z if value == 0 else float(value))
        except OverflowError:
            out.append(math.copysign(math.inf, value))
    return np.array(out)


def exact_fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Float a * b + c rounded once to float: the nearest of three float candidates, ties to even."""
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True):
        value = Fraction(x) * Fraction(y) + Fraction(z)
        with np.errstate(over="ignore"):
            guess = np.float32(float(value))
        if value == 0 or not np.isfinite(guess):
            out.append(np.float32(x * y + z) if value == 0 else guess)
            continue
        candidates = [
            np.nextafter(guess, np.float32(-np.inf)),
            guess,
            np.nextafter(guess, np.float32(np.inf)),
        ]
        out.append(min(candidates, key=lambda f: (abs(Fraction(float(f)) - value), int(bits(f)) & 1)))
    return np.array(out, dtype=np.float32)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), spread=st.sampled_from([1, 30, 520]))
def test_fma_rounds_once(seed, spread):
    """Double fma, the error-free fast path and the rational fallback at extreme exponents;
    float fma through double. Operands near cancellation, where one rounding matters most."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(64) * 2.0 ** rng.integers(-spread, spread + 1, 64)
    b = rng.standard_normal(64) * 2.0 ** rng.integers(-spread, spread + 1, 64)
    c = -(a * b) * (1 + rng.uniform(-1e-6, 1e-6, 64))
    c[::4] = rng.standard_normal(16) * 2.0 ** rng.integers(-spread, spread + 1, 16)
    with np.errstate(all="ignore"):
        expected = exact_fma(a, b, c)
    assert same_bits(optim.fma(a, b, c), expected)
    with np.errstate(all="ignore"):
        a32, b32, c32 = a.astype(np.float32), b.astype(np.float32), c.astype(np.float32)
    finite = np.isfinite(a32) & np.isfinite(b32) & np.isfinite(c32)
    a32, b32, c32 = a32[finite], b32[finite], c32[finite]
    assert same_bits(optim.fma(a32, b32, c32), exact_fma32(a32, b32, c32))


def test_float_fma_rounds_once_where_the_double_sits_halfway():
    """Where a * b + c in double lands exactly halfway between two floats (or near float's
    subnormals), rounding the double again would round twice: those elements take the exact
    path, the others the double's one rounding. (1 + 2**-23) * (1 - 2**-23) is 1 - 2**-46,
    so 2**24 + 2j + that is just below a float midpoint that the double rounds onto."""
    j = np.arange(2000, dtype=np.float32)
    near_one = np.float32(1 + 2.0**-23), np.float32(1 - 2.0**-23)
    a = np.concatenate(
        [np.full_like(j, near_one[0]), np.full_like(j, -near_one[0]), j * np.float32(2.0**-100)]
    )
    b = np.concatenate(
        [np.full_like(j, near_one[1]), np.full_like(j, near_one[1]), np.full_like(j, near_one[1])]
    )
    c = np.concatenate([2.0**24 + 2 * j, -(2.0**24) - 2 * j, np.full_like(j, 2.0**-126)]).astype(np.float32)
    doubled = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    halfway = (doubled.view(np.int64) & ((1 << 29) - 1)) == 1 << 28
    assert halfway.sum() >= 4000  # the cases this test is about are there
    assert not same_bits(doubled.astype(np.float32), exact_fma32(a, b, c))  # rounding twice is wrong there
    assert same_bits(optim.fma(a, b, c), exact_fma32(a, b, c))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernels_fuse_in_body_and_tail(dtype):
    """add(alpha=), addcmul and lerp (both branches, and w = 0.5 exactly) as torch's kernels
    give them at every position of sizes 1..49, on inputs built to cancel, where a fused and
    an unfused result differ most often."""
    rng = np.random.default_rng(2)
    fused_mattered = 0
    for n in range(1, 50):
        for _ in range(4):
            b = rng.standard_normal(n).astype(dtype)
            alpha = float(rng.uniform(-2, 2))
            a = (-(dtype(alpha) * b) * dtype(1 + rng.uniform(-1e-3, 1e-3))).astype(dtype)
            theirs = torch.from_numpy(a.copy()).add_(torch.from_numpy(b), alpha=alpha).numpy()
            ours = optim.add_scaled(a, b, alpha)
            assert same_bits(ours, theirs), ("add", n)
            fused_mattered += int((bits(ours) != bits(a + dtype(alpha) * b)).sum())
            c = rng.standard_normal(n).astype(dtype)
            theirs = torch.from_numpy(a.copy()).addcmul_(
                torch.from_numpy(b), torch.from_numpy(c), value=alpha
            )
            assert same_bits(optim.addcmul(a, b, c, alpha), theirs.numpy()), ("addcmul", n)
            theirs = torch.from_numpy(a.copy()).addcdiv_(
                torch.from_numpy(b), torch.from_numpy(c), value=alpha
            )
            assert same_bits(optim.addcdiv(a, b, c, alpha), theirs.numpy()), ("addcdiv", n)
            for weight in (float(rng.uniform(0, 0.5)), 0.5, float(rng.uniform(0.5, 1)), 0.1, 0.001):
                end = (a * dtype(1 + rng.uniform(-1, 1))).astype(dtype)
                theirs = torch.from_numpy(a.copy()).lerp_(torch.from_numpy(end), weight).numpy()
                assert same_bits(optim.lerp(a, end, weight), theirs), ("lerp", n, weight)
    assert fused_mattered > 0  # the inputs do tell a fused result from an unfused one


# ------------------------------------------------------------------------------------------------
# Schedulers: the lr sequences, exactly
# ------------------------------------------------------------------------------------------------


def scheduler_pair(kind: str, args: dict[str, Any], lrs: tuple[float, float]):
    ours_opt = optim.SGD([{"params": [np.zeros(2)]}, {"params": [np.zeros(2)], "lr": lrs[1]}], lr=lrs[0])
    theirs_opt = torch.optim.SGD(
        [
            {"params": [torch.zeros(2, requires_grad=True)]},
            {"params": [torch.zeros(2, requires_grad=True)], "lr": lrs[1]},
        ],
        lr=lrs[0],
    )
    return (
        ours_opt,
        getattr(optim, kind)(ours_opt, **args),
        theirs_opt,
        getattr(torch.optim.lr_scheduler, kind)(theirs_opt, **args),
    )


schedules = st.one_of(
    st.tuples(
        st.just("StepLR"),
        st.fixed_dictionaries({"step_size": st.integers(1, 7), "gamma": st.floats(0.01, 1.5)}),
    ),
    st.tuples(
        st.just("MultiStepLR"),
        st.fixed_dictionaries(
            {"milestones": st.lists(st.integers(0, 40), max_size=5), "gamma": st.floats(0.01, 1.5)}
        ),
    ),
    st.tuples(st.just("ExponentialLR"), st.fixed_dictionaries({"gamma": st.floats(0.5, 1.0)})),
    st.tuples(
        st.just("CosineAnnealingLR"),
        st.fixed_dictionaries({"T_max": st.integers(1, 20), "eta_min": st.sampled_from([0.0, 1e-5, 0.003])}),
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    schedule=schedules, lrs=st.tuples(st.floats(1e-4, 1.0), st.floats(1e-4, 1.0)), epochs=st.integers(1, 60)
)
def test_scheduler_lrs_are_torchs(schedule, lrs, epochs):
    """get_last_lr() and the groups' lrs after every step, compared as floats (==, and repr)."""
    kind, args = schedule
    ours_opt, ours, theirs_opt, theirs = scheduler_pair(kind, args, lrs)
    assert ours.get_last_lr() == theirs.get_last_lr()
    for _ in range(epochs):
        theirs_opt.step()
        ours_opt.step([None, None])
        theirs.step()
        ours.step()
        assert repr(ours.get_last_lr()) == repr(theirs.get_last_lr())
        assert [g["lr"] for g in ours_opt.param_groups] == [g["lr"] for g in theirs_opt.param_groups]
    assert ours.last_epoch == theirs.last_epoch


def test_lambda_lr_calls_the_callable_per_epoch_and_group():
    factors = [lambda epoch: 0.95**epoch, lambda epoch: 1 / (1 + epoch // 3)]
    for lr_lambda in (factors, factors[0]):
        ours_opt, ours, theirs_opt, theirs = scheduler_pair("LambdaLR", {"lr_lambda": lr_lambda}, (0.1, 0.07))
        for _ in range(30):
            theirs_opt.step()
            theirs.step()
            ours.step()
            assert repr(ours.get_last_lr()) == repr(theirs.get_last_lr())


@pytest.mark.parametrize(
    "kind, args",
    [
        ("StepLR", {"step_size": 3, "gamma": 0.3}),
        ("MultiStepLR", {"milestones": [2, 2, 5], "gamma": 0.7}),
        ("ExponentialLR", {"gamma": 0.9}),
        ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}),
        ("LambdaLR", {"lr_lambda": lambda epoch: 1.0 / (epoch + 1)}),
    ],
)
def test_step_with_an_epoch_uses_the_closed_form(kind, args):
    """The deprecated step(epoch): the closed form where torch has one, get_lr otherwise."""
    ours_opt, ours, theirs_opt, theirs = scheduler_pair(kind, args, (0.1, 0.02))
    theirs_opt.step()
    for epoch in (4, 9, 2, 13):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs.step(epoch)
        ours.step(epoch)
        assert repr(ours.get_last_lr()) == repr(theirs.get_last_lr())


def test_cosine_recursion_is_not_the_closed_form():
    """The point of modelling the recursion: its lrs are not the closed form's bits."""
    ours_opt, ours, theirs_opt, theirs = scheduler_pair("CosineAnnealingLR", {"T_max": 10}, (0.1, 0.05))
    drift = 0
    for _ in range(40):
        theirs_opt.step()
        theirs.step()
        ours.step()
        closed = ours._get_closed_form_lr()
        assert ours.get_last_lr() == theirs.get_last_lr()
        drift += sum(a != b for a, b in zip(closed, ours.get_last_lr(), strict=True))
    assert drift > 0


# ------------------------------------------------------------------------------------------------
# repr, state_dict, validation
# ------------------------------------------------------------------------------------------------

CONFIGS = [
    ("SGD", {}),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", {}),
    ("Adam", dict(lr=0.01, betas=(0.5, 0.9), amsgrad=True, weight_decay=1e-4, foreach=False)),
    ("AdamW", {}),
    ("RMSprop", {}),
    ("RMSprop", dict(momentum=0.5, centered=True)),
    ("Adagrad", {}),
    ("Adagrad", dict(lr_decay=0.1, initial_accumulator_value=0.5)),
]


def both_optimizers(name: str, kwargs: dict[str, Any], dtype: Any = np.float32):
    rng = np.random.default_rng(0)
    start = [rng.standard_normal(n).astype(dtype) for n in (3, 4, 5)]
    ours_params = [p.copy() for p in start]
    theirs_params = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    ours = getattr(optim, name)(
        [{"params": ours_params[:1], "lr": 0.5}, {"params": ours_params[1:], "weight_decay": 0.25}], **kwargs
    )
    theirs = getattr(torch.optim, name)(
        [{"params": theirs_params[:1], "lr": 0.5}, {"params": theirs_params[1:], "weight_decay": 0.25}],
        **kwargs,
    )
    return ours, theirs, theirs_params


@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_repr_is_torchs_text(name, kwargs):
    ours, theirs, _ = both_optimizers(name, kwargs)
    assert repr(ours) == repr(theirs)
    optim.StepLR(ours, 2)
    torch.optim.lr_scheduler.StepLR(theirs, 2)
    assert repr(ours) == repr(theirs)  # now with initial_lr


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs", CONFIGS)
def test_state_dict_is_structured_as_torchs(name, kwargs, dtype):
    """Key order of every group (and 'params' last), state keyed by index in first-use order
    (parameter 2 steps first, parameter 1 never), each entry's keys, dtypes and shapes."""
    ours, theirs, theirs_params = both_optimizers(name, kwargs, dtype)

    def compare():
        a, b = ours.state_dict(), theirs.state_dict()
        assert list(a) == list(b) == ["state", "param_groups"]
        assert [list(g.items()) for g in a["param_groups"]] == [list(g.items()) for g in b["param_groups"]]
        assert list(a["state"]) == list(b["state"])
        for index, entry in b["state"].items():
            assert list(a["state"][index]) == list(entry)
            for key, value in entry.items():
                assert np.asarray(a["state"][index][key]).dtype == value.numpy().dtype, (index, key)
                assert np.asarray(a["state"][index][key]).shape == tuple(value.shape), (index, key)

    compare()
    rng = np.random.default_rng(1)
    for order in ([2], [0, 2]):
        grads: list[np.ndarray | None] = [None, None, None]
        for i in order:
            grads[i] = rng.standard_normal(theirs_params[i].shape).astype(dtype)
            theirs_params[i].grad = torch.from_numpy(grads[i])
        theirs.step()
        ours.step(grads)
        compare()
        for p in theirs_params:
            p.grad = None


INVALID = [
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict(momentum=-1)),
    ("SGD", dict(weight_decay=-1e-3)),
    ("SGD", dict(nesterov=True)),
    ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ("SGD", dict(fused=True, foreach=True)),
    ("Adam", dict(lr=-1)),
    ("Adam", dict(lr=math.nan)),
    ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.5))),
    ("Adam", dict(betas=(0, 0.999))),
    ("Adam", dict(weight_decay=-0.01)),
    ("Adam", dict(fused=True, differentiable=True)),
    ("AdamW", dict(lr=-0.5)),
    ("AdamW", dict(betas=(0.9, 1.5))),
    ("RMSprop", dict(lr=-2.0)),
    ("RMSprop", dict(eps=-1.0)),
    ("RMSprop", dict(momentum=-0.1)),
    ("RMSprop", dict(weight_decay=-3)),
    ("RMSprop", dict(alpha=-0.5)),
    ("Adagrad", dict(lr=-0.1)),
    ("Adagrad", dict(lr_decay=-0.1)),
    ("Adagrad", dict(weight_decay=-0.1)),
    ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adagrad", dict(eps=-1e-10)),
]


def raised(call) -> tuple[type, str] | None:
    try:
        call()
    except Exception as error:  # the type and text are what is compared
        return type(error), str(error)
    return None


@pytest.mark.parametrize("name, kwargs", INVALID)
def test_validation_errors_are_torchs(name, kwargs):
    ours = raised(lambda: getattr(optim, name)([np.zeros(3, np.float32)], **kwargs))
    theirs = raised(lambda: getattr(torch.optim, name)([torch.zeros(3, requires_grad=True)], **kwargs))
    assert theirs is not None
    assert ours == theirs


def test_sgd_lets_a_nan_lr_through_as_torch_does():
    """SGD tests `lr < 0.0` where the others test `not 0.0 <= lr`: nan passes only SGD."""
    assert raised(lambda: optim.SGD([np.zeros(1)], lr=math.nan)) is None
    assert raised(lambda: torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=math.nan)) is None


def test_parameter_list_errors_are_torchs():
    a, ta = np.zeros(2, np.float32), torch.zeros(2, requires_grad=True)
    cases = [
        (lambda: optim.SGD([]), lambda: torch.optim.SGD([])),
        (lambda: optim.SGD(a), lambda: torch.optim.SGD(ta)),
        (lambda: optim.SGD([a, 3]), lambda: torch.optim.SGD([ta, 3])),
        (
            lambda: optim.Adam([{"params": [a]}, {"params": [a]}]),
            lambda: torch.optim.Adam([{"params": [ta]}, {"params": [ta]}]),
        ),
        (lambda: optim.StepLR("sgd", 1), lambda: torch.optim.lr_scheduler.StepLR("sgd", 1)),
        (
            lambda: optim.LambdaLR(optim.SGD([a]), [abs, abs]),
            lambda: torch.optim.lr_scheduler.LambdaLR(torch.optim.SGD([ta]), [abs, abs]),
        ),
        (
            lambda: optim.ExponentialLR(optim.SGD([a]), 0.5, last_epoch=3),
            lambda: torch.optim.lr_scheduler.ExponentialLR(torch.optim.SGD([ta]), 0.5, last_epoch=3),
        ),
    ]
    for ours, theirs in cases:
        expected = raised(theirs)
        assert expected is not None
        assert raised(ours) == expected


def test_defaults_are_torchs():
    """Every default, read from the group each optimiser fills in."""
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"):
        ours = getattr(optim, name)([np.zeros(1, np.float32)])
        theirs = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)])
        assert ours.defaults == theirs.defaults, name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lerp_zero_signs_follow_body_and_tail(dtype):
    """At weight >= 0.5, lerp(+0, -0) is -0 in the vector body and +0 in the scalar tail."""
    for n in (1, 7, 8, 9, 15, 16, 17, 33, 100):
        start, end = np.zeros(n, dtype), np.full(n, -0.0, dtype)
        for weight in (0.5, 0.9, 1.0, 0.1):
            theirs = torch.from_numpy(start.copy()).lerp_(torch.from_numpy(end), weight).numpy()
            assert same_bits(optim.lerp(start, end, weight), theirs), (n, weight)
