"""torch.optim's CPU optimisers and learning-rate schedulers (PyTorch 2.13), bit for bit, in NumPy.

On CPU torch runs each optimiser's single-tensor path (`_default_to_fused_or_foreach` turns
foreach and fused off there), a loop of in-place ATen ops per parameter. Their per-element
arithmetic is reproduced here as the AVX2 kernels compute it:

* A Python scalar (lr, alpha=, value=, a lerp weight) reaches a float32 kernel cast to float
  once (`Scalar::to<float>()`), so it is rounded to float32 before any arithmetic.
* `add(other, alpha=a)` is `self + a * other` (ufunc/add.h); its vectorised body is an explicit
  `vec::fmadd`, and GCC contracts the scalar tail to an FMA too, so every element is one fused
  multiply-add. `addcmul` (`self + value * t1 * t2`) likewise fuses its last product and add,
  and `lerp` is `base + coeff * (end - self)` fused, with (coeff, base) = (w, self) when
  |w| < 0.5 and (w - 1, end) otherwise. Measured against torch for every position of sizes
  1..49 (vector body and scalar tail alike) in float32 and float64: no element is unfused, so
  where the body ends, and how threads split a large tensor, does not change a bit.
* `addcdiv` is `self + (value * t1) / t2`, three roundings; mul, div, maximum and negation
  are correctly rounded, so NumPy's own ops give their bits. sqrt is not (MKL; see `Sqrt`).
* The scalar hyper-parameter maths (bias corrections, Adam's step size, Adagrad's decayed lr)
  is Python float arithmetic in torch's optimiser code; it is done here with the same Python
  expressions, so `pow` and the roundings are the same calls.

The optimiser classes keep torch's parameter groups (key order, defaults, validation texts),
state keyed by parameter index in first-use order, `state_dict()` layout and `repr`, so a
script interpreter can print them as torch does. Parameters are NumPy arrays updated in place;
a step takes the gradients as a list aligned with the parameters (None skips one, as a missing
`.grad` does in torch).
"""

from __future__ import annotations

import copy
import math
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gradcli.ops.exact import round_to_odd, two_sum

__all__ = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Optimizer",
    "LRScheduler",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "LambdaLR",
    "sgd_step",
    "adam_step",
    "adamw_step",
    "rmsprop_step",
    "adagrad_step",
    "adagrad_init_state",
    "add_scaled",
    "addcmul",
    "addcdiv",
    "lerp",
    "fma",
]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# torch.sqrt on CPU is not IEEE sqrt: ATen's vml::vsqrt calls MKL's vsSqrt/vdSqrt (VML_HA),
# whose result is off by one ulp from the correctly rounded root for ~17% of float32 inputs
# (those whose root lies more than ~0.25 ulp from a float) and ~1.3% of float64 ones; MKL
# picks its code per CPU, so no NumPy expression reproduces it portably. The steps that take
# a root (Adam, AdamW, RMSprop, Adagrad) therefore take the root function as a parameter:
# IEEE sqrt by default, torch's own in the tests, which then see every other bit agree.
Sqrt = Callable[[np.ndarray], np.ndarray]


# ---------------------------------------------------------------------------------------------
# Kernels: the per-element arithmetic of the ATen CPU ops the single-tensor path calls.
# ---------------------------------------------------------------------------------------------


def _scalar(value: float, dtype: np.dtype) -> np.floating:
    """A Python scalar as the kernel sees it: `Scalar::to<scalar_t>()`, one rounding to dtype."""
    return np.dtype(dtype).type(value)


def _fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 a * b + c rounded once: the product is exact in double, an error-free sum adds
    c, and rounding to odd first makes the last rounding to float the single correct one."""
    with np.errstate(all="ignore"):  # an overflow to inf is the result, as in the kernel
        product, addend = a.astype(np.float64) * b.astype(np.float64), c.astype(np.float64)
        total = product + addend
        # Rounding the double to float is already the single correct rounding unless the double
        # sits exactly halfway between two floats (its low 29 bits 1 followed by zeros) or in
        # float's subnormal range: only those elements need the sum's error and rounding to odd.
        bits = total.view(np.int64)
        risky = ((bits & _LOW_29) == _HALF_29) | ((np.abs(total) < _FLOAT_NORMAL) & (total != 0))
        result = total.astype(np.float32)
        if risky.any():  # (an exact zero is exact: no error to round by)
            at = np.flatnonzero(risky)
            near, error = two_sum(product.reshape(-1)[at], addend.reshape(-1)[at])
            result.reshape(-1)[at] = round_to_odd(near, error).astype(np.float32)
        return result


_LOW_29 = (1 << 29) - 1  # a double's mantissa bits below a float's last one
_HALF_29 = 1 << 28  # ... holding exactly half a float's last bit
_FLOAT_NORMAL = 2.0**-125  # below this (near float's subnormals) the low bits are not the 29 above


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant for doubles


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b as a rounded product and its exact error (Dekker), for operands in range."""
    product = a * b
    scaled_a, scaled_b = _SPLIT * a, _SPLIT * b
    a_high = scaled_a - (scaled_a - a)
    b_high = scaled_b - (scaled_b - b)
    a_low, b_low = a - a_high, b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def _fma_exact(a: float, b: float, c: float) -> float:
    """One double fma by exact rational arithmetic: for operands outside the fast path's range."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the signed zero IEEE gives an exact zero sum
    try:
        return float(exact)  # int / int: correctly rounded
    except OverflowError:
        return math.copysign(math.inf, exact)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float64 a * b + c rounded once (Boldo and Melquiond's emulation through rounding to odd).

    The error-free product needs operands whose split cannot overflow and a product whose
    error is not below the subnormal range; the rare elements outside that are done exactly
    with fractions."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (a, b, c)))
    with np.errstate(all="ignore"):
        product, product_error = _two_prod(a, b)
        total, total_error = two_sum(c, product)
        small, small_error = two_sum(total_error, product_error)
        rest = round_to_odd(small, small_error)
        result = np.where(rest == 0, total, total + rest)  # adding +0 would lose total's -0
        magnitude = np.abs(product)
        safe = (
            (np.abs(a) < 2.0**995)
            & (np.abs(b) < 2.0**995)
            & (np.abs(c) < 2.0**1020)
            & (magnitude < 2.0**1020)
            & ((magnitude >= 2.0**-960) | (a == 0) | (b == 0))
        )
    if not safe.all():
        result = np.array(result, copy=True)
        for index in zip(*np.nonzero(~safe), strict=True):
            result[index] = _fma_exact(float(a[index]), float(b[index]), float(c[index]))
    return result


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c with one rounding in the arrays' float dtype, as the AVX2 kernels' FMAs."""
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        a32, b32, c32 = np.broadcast_arrays(*(np.asarray(x, np.float32) for x in (a, b, c)))
        return _fma32(a32, b32, c32)
    return _fma64(a, b, c)


def add_scaled(self: np.ndarray, other: np.ndarray, alpha: float) -> np.ndarray:
    """torch.add(self, other, alpha=alpha): `fmadd(other, alpha, self)` with alpha cast to dtype."""
    return fma(other, np.full_like(other, _scalar(alpha, other.dtype)), self)


def addcmul(self: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float) -> np.ndarray:
    """torch.addcmul: `self + value * t1 * t2`, the last product and the add fused."""
    return fma(_scalar(value, self.dtype) * t1, t2, self)


def addcdiv(self: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float) -> np.ndarray:
    """torch.addcdiv: `self + (value * t1) / t2`, nothing to fuse (the last step is a division)."""
    return self + (_scalar(value, self.dtype) * t1) / t2


def _in_vector_body(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Which elements of a contiguous tensor cpu_kernel_vec's vectorised loop computes: whole
    rounds of two AVX2 vectors (16 floats, 8 doubles) from the start; the rest go through the
    scalar lambda. Serial: torch splits tensors of 32768 elements and more across threads,
    each chunk with its own tail, which this does not model."""
    size = int(np.prod(shape, dtype=np.int64))
    per_round = 2 * (32 // np.dtype(dtype).itemsize)
    return (np.arange(size) < size - size % per_round).reshape(shape)


def lerp(self: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """torch.lerp with a scalar weight: two branches at |w| < 0.5 for accuracy near each end
    (LerpKernel.cpp), each one fused multiply-add on `end - self`.

    From w = 0.5 on, the vector body computes `fmadd(w - 1, diff, end)` and the scalar tail
    `end - diff * (1 - w)` (contracted to a negated fma): the same value, except that an exact
    zero comes out -0 from the body and +0 from the tail when end is -0 and diff is -0."""
    w = _scalar(weight, self.dtype)
    diff = end - self
    if abs(w) < 0.5:
        return fma(np.full_like(diff, w), diff, self)
    one = self.dtype.type(1)
    body = fma(np.full_like(diff, w - one), diff, end)
    tail = fma(-diff, np.full_like(diff, one - w), end)
    return np.where(_in_vector_body(diff.shape, diff.dtype), body, tail)


def _check_pair(param: np.ndarray, grad: np.ndarray) -> None:
    """torch keeps a grad of its parameter's dtype and shape; so do the steps here."""
    if param.dtype not in _FLOATS:
        raise TypeError(f"gradcli's optimisers update float32 or float64 arrays, not {param.dtype}")
    if grad.dtype != param.dtype or grad.shape != param.shape:
        raise ValueError(
            f"a gradient must match its parameter: {grad.dtype}{list(grad.shape)} "
            f"for {param.dtype}{list(param.shape)}"
        )


def _new_step(step_dtype: Any) -> np.ndarray:
    """state['step']: torch keeps a 0-dim float32 tensor (float64 under a float64 default)."""
    return np.zeros((), dtype=step_dtype)


def _count(state: dict[str, Any]) -> float:
    """`step_t += 1` in the step's own dtype, then `.item()`: the Python float torch reads."""
    state["step"] = np.asarray(state["step"] + state["step"].dtype.type(1), state["step"].dtype)
    return float(state["step"])


# ---------------------------------------------------------------------------------------------
# Functional steps: one parameter, torch's `_single_tensor_*` loop body, in place.
# ---------------------------------------------------------------------------------------------


@np.errstate(all="ignore")  # inf and nan flow through as in torch, silently
def sgd_step(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    *,
    lr: float = 1e-3,
    momentum: float = 0,
    dampening: float = 0,
    weight_decay: float = 0,
    nesterov: bool = False,
    maximize: bool = False,
) -> None:
    """One SGD update of `param` (and state['momentum_buffer']) as `_single_tensor_sgd`."""
    _check_pair(param, grad)
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = add_scaled(grad, param, weight_decay)
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = grad.copy()
            state["momentum_buffer"] = buf
        else:
            buf *= _scalar(momentum, buf.dtype)
            buf[...] = add_scaled(buf, grad, 1 - dampening)
        grad = add_scaled(grad, buf, momentum) if nesterov else buf
    param[...] = add_scaled(param, grad, -lr)


@np.errstate(all="ignore")  # inf and nan flow through as in torch, silently
def adam_step(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    *,
    lr: float = 1e-3,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 0,
    amsgrad: bool = False,
    maximize: bool = False,
    decoupled_weight_decay: bool = False,
    step_dtype: Any = np.float32,
    sqrt: Sqrt = np.sqrt,
) -> None:
    """One Adam (or, decoupled, AdamW) update as `_single_tensor_adam`; empty state is
    initialised first, as Adam's `_init_group` does lazily."""
    _check_pair(param, grad)
    if not state:
        state["step"] = _new_step(step_dtype)
        state["exp_avg"] = np.zeros_like(param)
        state["exp_avg_sq"] = np.zeros_like(param)
        if amsgrad:
            state["max_exp_avg_sq"] = np.zeros_like(param)
    beta1, beta2 = betas
    dtype = param.dtype
    if maximize:
        grad = -grad
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    step = _count(state)
    if weight_decay != 0:
        if decoupled_weight_decay:
            param *= _scalar(1 - lr * weight_decay, dtype)
        else:
            grad = add_scaled(grad, param, weight_decay)
    exp_avg[...] = lerp(exp_avg, grad, 1 - beta1)
    exp_avg_sq *= _scalar(beta2, dtype)
    exp_avg_sq[...] = addcmul(exp_avg_sq, grad, grad, 1 - beta2)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2**0.5
    if amsgrad:
        np.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
        second = state["max_exp_avg_sq"]
    else:
        second = exp_avg_sq
    denom = sqrt(second) / _scalar(bias_correction2_sqrt, dtype) + _scalar(eps, dtype)
    param[...] = addcdiv(param, exp_avg, denom, -step_size)


def adamw_step(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    *,
    lr: float = 1e-3,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 1e-2,
    amsgrad: bool = False,
    maximize: bool = False,
    step_dtype: Any = np.float32,
    sqrt: Sqrt = np.sqrt,
) -> None:
    """AdamW is Adam with decoupled weight decay (torch's AdamW subclasses Adam so)."""
    adam_step(
        param, grad, state, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
        amsgrad=amsgrad, maximize=maximize, decoupled_weight_decay=True, step_dtype=step_dtype,
        sqrt=sqrt,
    )  # fmt: skip


@np.errstate(all="ignore")  # inf and nan flow through as in torch, silently
def rmsprop_step(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    *,
    lr: float = 1e-2,
    alpha: float = 0.99,
    eps: float = 1e-8,
    weight_decay: float = 0,
    momentum: float = 0,
    centered: bool = False,
    maximize: bool = False,
    step_dtype: Any = np.float32,
    sqrt: Sqrt = np.sqrt,
) -> None:
    """One RMSprop update as `_single_tensor_rmsprop`; empty state is initialised first."""
    _check_pair(param, grad)
    if not state:
        state["step"] = _new_step(step_dtype)
        state["square_avg"] = np.zeros_like(param)
        if momentum > 0:
            state["momentum_buffer"] = np.zeros_like(param)
        if centered:
            state["grad_avg"] = np.zeros_like(param)
    dtype = param.dtype
    if maximize:
        grad = -grad
    square_avg = state["square_avg"]
    _count(state)
    if weight_decay != 0:
        grad = add_scaled(grad, param, weight_decay)
    square_avg *= _scalar(alpha, dtype)
    square_avg[...] = addcmul(square_avg, grad, grad, 1 - alpha)
    if centered:
        grad_avg = state["grad_avg"]
        grad_avg[...] = lerp(grad_avg, grad, 1 - alpha)
        avg = sqrt(addcmul(square_avg, grad_avg, grad_avg, -1))
    else:
        avg = sqrt(square_avg)
    avg = avg + _scalar(eps, dtype)
    if momentum > 0:
        buf = state["momentum_buffer"]
        buf *= _scalar(momentum, dtype)
        buf[...] = addcdiv(buf, grad, avg, 1)
        param[...] = add_scaled(param, buf, -lr)
    else:
        param[...] = addcdiv(param, grad, avg, -lr)


def adagrad_init_state(
    param: np.ndarray, initial_accumulator_value: float = 0, step_dtype: Any = np.float32
) -> dict[str, Any]:
    """Adagrad's state, made for every parameter in its constructor (not lazily, unlike Adam)."""
    return {
        "step": _new_step(step_dtype),
        "sum": np.full_like(param, _scalar(initial_accumulator_value, param.dtype)),
    }


@np.errstate(all="ignore")  # inf and nan flow through as in torch, silently
def adagrad_step(
    param: np.ndarray,
    grad: np.ndarray,
    state: dict[str, Any],
    *,
    lr: float = 1e-2,
    lr_decay: float = 0,
    weight_decay: float = 0,
    eps: float = 1e-10,
    maximize: bool = False,
    initial_accumulator_value: float = 0,
    sqrt: Sqrt = np.sqrt,
) -> None:
    """One Adagrad update as `_single_tensor_adagrad` (dense gradients)."""
    _check_pair(param, grad)
    if not state:
        state.update(adagrad_init_state(param, initial_accumulator_value))
    step = _count(state)
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = add_scaled(grad, param, weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    state_sum = state["sum"]
    state_sum[...] = addcmul(state_sum, grad, grad, 1)
    std = sqrt(state_sum) + _scalar(eps, param.dtype)
    param[...] = addcdiv(param, grad, std, -clr)


# ---------------------------------------------------------------------------------------------
# Optimiser objects: torch.optim.Optimizer's parameter groups, state, state_dict and repr.
# ---------------------------------------------------------------------------------------------

# torch.optim's `required` sentinel is not used by these five; every default has a value.


class Optimizer:
    """torch.optim.Optimizer's bookkeeping over NumPy parameters.

    `param_groups` are dicts as torch builds them ('params' first, then the defaults each
    group did not set, in the optimiser's order); `state` maps a parameter's index (its
    position across the groups, as state_dict numbers them) to its state, in first-use order.
    """

    _single_tensor_only = ("foreach", "fused", "capturable", "differentiable")

    def __init__(
        self, params: Any, defaults: dict[str, Any], step_dtype: Any = np.float32, sqrt: Sqrt = np.sqrt
    ) -> None:
        self.defaults = defaults
        self.step_dtype = np.dtype(step_dtype)
        self.sqrt = sqrt
        self.state: dict[int, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, np.ndarray):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(dict(group))

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """torch's add_param_group: list the params, fill defaults, refuse shared parameters."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, np.ndarray):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, np.ndarray):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(param)
                )
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _indexed_groups(self) -> list[list[tuple[int, np.ndarray]]]:
        """Each group's parameters with their state_dict index (first position across groups)."""
        first: dict[int, int] = {}
        start = 0
        result = []
        for group in self.param_groups:
            # torch's state_dict numbering: a parameter listed twice in one group takes its last
            # position there (one dict update per group), one in an earlier group keeps that one
            first.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in first})
            result.append([(first[id(p)], p) for p in group["params"]])
            start += len(group["params"])
        return result

    def step(self, grads: Sequence[np.ndarray | None]) -> None:
        """One update of every parameter whose gradient is not None; `grads` follows the
        parameters' order across the groups (the order state_dict numbers them in)."""
        indexed = self._indexed_groups()
        count = sum(len(g) for g in indexed)
        if len(grads) != count:
            raise ValueError(f"step() got {len(grads)} gradients for {count} parameters")
        position = 0
        for group, members in zip(self.param_groups, indexed, strict=True):
            for flag in self._single_tensor_only:
                if group.get(flag):
                    raise NotImplementedError(
                        f"{type(self).__name__} with {flag}=True runs another kernel path; "
                        "gradcli models the default CPU (single-tensor) path"
                    )
            pairs = []
            for index, param in members:
                grad = grads[position]
                position += 1
                if grad is not None:
                    pairs.append((index, param, np.asarray(grad)))
            self._group_step(group, pairs)

    def _group_step(self, group: dict[str, Any], pairs: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
        raise NotImplementedError

    def _state_for(self, index: int) -> dict[str, Any]:
        """self.state[p] of torch's defaultdict: touching it makes the (empty) entry."""
        return self.state.setdefault(index, {})

    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: state}, 'param_groups': [group without params..., 'params': [ids]]},
        in torch's key order; arrays are the live state, as torch's tensors are."""
        groups = []
        for group, members in zip(self.param_groups, self._indexed_groups(), strict=True):
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index for index, _ in members]
            groups.append(packed)
        return {"state": dict(self.state), "param_groups": groups}

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _typename(obj: Any) -> str:
    """torch.typename's text for what is not a tensor: the type's (qualified) name."""
    if isinstance(obj, np.ndarray):
        return {np.dtype(np.float32): "torch.FloatTensor", np.dtype(np.float64): "torch.DoubleTensor"}.get(
            obj.dtype, "torch.Tensor"
        )
    kind = type(obj)
    module = kind.__module__
    return (
        kind.__qualname__ if module in ("builtins", "__builtin__", None) else f"{module}.{kind.__qualname__}"
    )


def _fused_checks(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """The RuntimeErrors torch's constructors raise for impossible fused combinations."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class SGD(Optimizer):
    """torch.optim.SGD (its defaults, validation and key order)."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _group_step(self, group: dict[str, Any], pairs: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
        for index, param, grad in pairs:
            state = self._state_for(index) if group["momentum"] != 0 else {}
            sgd_step(
                param, grad, state, lr=group["lr"], momentum=group["momentum"],
                dampening=group["dampening"], weight_decay=group["weight_decay"],
                nesterov=group["nesterov"], maximize=group["maximize"],
            )  # fmt: skip


class Adam(Optimizer):
    """torch.optim.Adam (its defaults, validation and key order)."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
        step_dtype: Any = np.float32,
        sqrt: Sqrt = np.sqrt,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults, step_dtype, sqrt)
        _fused_checks(fused, foreach, differentiable)

    def _group_step(self, group: dict[str, Any], pairs: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
        for index, param, grad in pairs:
            adam_step(
                param, grad, self._state_for(index), lr=group["lr"], betas=group["betas"],
                eps=group["eps"], weight_decay=group["weight_decay"], amsgrad=group["amsgrad"],
                maximize=group["maximize"], decoupled_weight_decay=group["decoupled_weight_decay"],
                step_dtype=self.step_dtype, sqrt=self.sqrt,
            )  # fmt: skip


class AdamW(Adam):
    """torch.optim.AdamW: Adam with decoupled_weight_decay=True and weight_decay 1e-2."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        step_dtype: Any = np.float32,
        sqrt: Sqrt = np.sqrt,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
            capturable=capturable, differentiable=differentiable, fused=fused,
            decoupled_weight_decay=True, step_dtype=step_dtype, sqrt=sqrt,
        )  # fmt: skip


class RMSprop(Optimizer):
    """torch.optim.RMSprop (its defaults, validation and key order)."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        *,
        step_dtype: Any = np.float32,
        sqrt: Sqrt = np.sqrt,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults, step_dtype, sqrt)

    def _group_step(self, group: dict[str, Any], pairs: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
        for index, param, grad in pairs:
            rmsprop_step(
                param, grad, self._state_for(index), lr=group["lr"], alpha=group["alpha"],
                eps=group["eps"], weight_decay=group["weight_decay"], momentum=group["momentum"],
                centered=group["centered"], maximize=group["maximize"], step_dtype=self.step_dtype,
                sqrt=self.sqrt,
            )  # fmt: skip


class Adagrad(Optimizer):
    """torch.optim.Adagrad (its defaults, validation and key order); state for every
    parameter is made in the constructor, as torch's is."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        step_dtype: Any = np.float32,
        sqrt: Sqrt = np.sqrt,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults, step_dtype, sqrt)
        _fused_checks(fused, foreach, differentiable)
        for members in self._indexed_groups():
            for index, param in members:
                self.state[index] = adagrad_init_state(param, initial_accumulator_value, self.step_dtype)

    def _group_step(self, group: dict[str, Any], pairs: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
        for index, param, grad in pairs:
            adagrad_step(
                param, grad, self._state_for(index), lr=group["lr"], lr_decay=group["lr_decay"],
                weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                initial_accumulator_value=group["initial_accumulator_value"], sqrt=self.sqrt,
            )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Learning-rate schedulers: torch's recursive (chainable) get_lr, in Python floats.
# ---------------------------------------------------------------------------------------------


class LRScheduler:
    """torch.optim.lr_scheduler.LRScheduler: sets group['initial_lr'], steps once at
    construction, and from then on each step() writes get_lr()'s values into the groups.

    The values are computed from the groups' current lrs with torch's own expressions, so a
    schedule drifts from its closed form exactly as torch's does."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True  # torch's _initial_mode around the constructor's step
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The next lrs, from the groups' current ones (subclasses)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The lrs the last step() wrote into the groups."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance last_epoch (or set it, using the closed form where torch has one)."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        groups = self.optimizer.param_groups
        for group, lr in zip(groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in groups]

    def _lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    # The attributes state_dict() holds, in torch's order: the subclass's own (set before
    # LRScheduler.__init__ runs), then the base class's.
    _OWN: tuple[str, ...] = ()
    _BASE = ("base_lrs", "last_epoch", "_step_count", "_is_initial", "_get_lr_called_within_step", "_last_lr")

    def state_dict(self) -> dict[str, Any]:
        """torch's LRScheduler.state_dict: every attribute but the optimiser."""
        state = {name: getattr(self, name) for name in self._OWN}
        state.update((name, getattr(self, name, False)) for name in self._BASE)
        return copy.deepcopy(state)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        for name, value in state_dict.items():
            if name != "_get_lr_called_within_step":
                setattr(self, name, copy.deepcopy(value))


class LambdaLR(LRScheduler):
    """lr = initial lr * lr_lambda(epoch), one callable for all groups or one per group."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """torch keeps a lambda out of the state (None): a function cannot be saved."""
        return super().state_dict() | {"lr_lambdas": [None] * len(self.lr_lambdas)}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict({k: v for k, v in state_dict.items() if k != "lr_lambdas"})

    def get_lr(self) -> list[float]:
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class StepLR(LRScheduler):
    """lr *= gamma every step_size epochs (recursively, from the group's current lr)."""

    _OWN = ("step_size", "gamma")

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if (self.last_epoch == 0) or (self.last_epoch % self.step_size != 0):
            return self._lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma (once per repeat) at each milestone epoch."""

    _OWN = ("milestones", "gamma")

    def __init__(
        self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [
            base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch, from the group's current lr."""

    _OWN = ("gamma",)

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing in torch's recursive form: each lr is the previous one scaled by a
    ratio of cosines (and a restart formula past T_max), so it differs from the closed form
    in the last bits exactly as torch's does."""

    _OWN = ("T_max", "eta_min")

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base_lr - self.eta_min) * (1 + math.cos((self.last_epoch) * math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups, strict=True)
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups, strict=True)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]
