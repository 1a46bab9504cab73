"""torch.nn.utils.clip_grad, gradcli's: gradient clipping as torch 2.13 writes it, over
gradcli's tensors (each gradient's norm, the norm of those norms, one clamped coefficient
multiplied into every gradient in place)."""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable
from typing import Any

from ..._bridge import module_attribute
from ..._tensor import Tensor


def _torch(name: str) -> Any:
    return module_attribute("torch", name)


def _as_list(tensors: Any) -> list:
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def get_total_norm(
    tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: bool | None = None
) -> Any:
    """The norm of the tensors' norms: their norm as if they were one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _torch("tensor")(0.0)
    vector_norm = module_attribute("torch.linalg", "vector_norm")
    norms = [vector_norm(t, norm_type) for t in tensors]
    total_norm = vector_norm(_torch("stack")(norms), norm_type)
    if error_if_nonfinite and bool(_torch("logical_or")(total_norm.isnan(), total_norm.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


def clip_grads_with_norm_(
    parameters: Any, max_norm: float, total_norm: Any, foreach: bool | None = None
) -> None:
    """Each gradient times max_norm / (total_norm + 1e-6), that clamped to at most 1, in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with _torch("no_grad")():
        clip_coef = float(max_norm) / (total_norm + 1e-6)
        clip_coef_clamped = _torch("clamp")(clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)


def clip_grad_norm_(
    parameters: Any,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Any:
    """Clip the parameters' gradients in place to a total norm of at most max_norm; returns the
    total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2
            )
    with _torch("no_grad")():
        grads = [p.grad for p in parameters if p.grad is not None]
        total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
        clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_value_(parameters: Iterable | Any, clip_value: float, foreach: bool | None = None) -> None:
    """Each gradient clamped to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with _torch("no_grad")():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
