"""Result dtypes as torch infers them, and the dtype errors torch raises, per registry op.

gradcli computes every value in the program's floating dtype (a mask is 0.0/1.0, a class
index a whole float); what a tensor *is* in torch (float, int64 or bool) is tracked on the
graph's nodes, so that torch's dtype rules decide what it decides: a bool tensor indexes
as a mask, an int64 one as indices, a float cond in torch.where and an int matrix in `@`
with a float one are torch's errors. A dtype of None means unknown (an input given without
one, as `gradcli --explain` rebuilds a graph): nothing is refused for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .core import Op

FLOAT, INT64, BOOL = "float", "int64", "bool"
_RANK = {BOOL: 0, INT64: 1, FLOAT: 2}
_TORCH_NAMES = {FLOAT: "Double", INT64: "Long", BOOL: "Bool"}

# The result has the first operand's dtype: moving, copying or picking elements.
_SAME = {
    "select", "slice", "index", "index1", "reshape", "view", "flatten", "squeeze", "unsqueeze",
    "permute", "transpose", "expand", "repeat", "mT", "_unsafe_view", "clone", "t", "T", "detach",
    "zeros_like", "ones_like", "masked_fill", "neg", "abs", "relu", "sign", "floor", "ceil",
    "trunc", "round", "amax", "amin", "max", "min", "max_values", "min_values", "relu6", "hardtanh",
    "gather", "clamp_min", "clamp_max", "sort", "topk", "tril", "triu", "flip", "diagonal", "diag", "pad",
    "nan_to_num", "masked_select", "index_add", "index_copy", "index_fill", "index_select",
}  # fmt: skip
# torch's type promotion of the tensor operands (a float number makes an integer result float).
_PROMOTE = {
    "add", "sub", "mul", "pow", "maximum", "minimum", "clamp", "matmul", "where", "remainder", "fmod",
    "floor_divide", "_div_rounded",
}  # fmt: skip
# Integer results: sums of integers and bools (torch sums bools as int64), and positions.
INTEGER_RESULTS = {
    "argmax", "argmin", "long", "_one_hot", "argsort", "topk_indices",
    "_int_bitwise_and", "_int_bitwise_or", "_int_bitwise_xor", "_int_bitwise_not",
}  # fmt: skip
_SUMS = {"sum", "prod", "cumsum", "cumprod"}


NUMBER = "number"  # a Python number operand, in the per-operand lists below

# float32 ops whose torch kernels land on the correctly rounded result far more often than
# NumPy's float32 loops do: gradcli computes their float32 inputs in double and rounds once.
# For exp, tanh, sin, cos, log, log10, log2 and asin torch 2.13's x86 wheels call MKL's VML
# (vmsSin ... in VML_HA mode, through at::vml: bit-identical to torch on 100,000 inputs each,
# whatever ATEN_CPU_CAPABILITY says), closed code no NumPy expression reproduces; the others
# are ATen's own vectorized kernels. Share of 5,000 random float32 inputs where the result differs from
# torch 2.13 (float32 loop -> double then round): exp 40% -> 1%, tanh 32% -> 0%, sinh 26% -> 0.2%,
# cosh 20% -> 0.2%, cos 18% -> 5%, atanh 19% -> 0.1%, log10 16% -> 0.1%, sin 12% -> 5%,
# expm1 10% -> 0.1%, log 10% -> 6%, log1p 9% -> 0.7%, asin 8% -> 5%, elu 5% -> 0%,
# logsigmoid 23% -> 17%. Ops where double loses (rsqrt, selu, asinh, acosh, acos) keep float32;
# sigmoid, silu and softplus round between their steps as torch's kernels do (core.wide).
WIDE_FLOAT32 = frozenset({
    "exp", "tanh", "sinh", "cosh", "cos", "sin", "atanh", "log10", "log2", "expm1", "log", "log1p",
    "asin", "elu", "logsigmoid",
})  # fmt: skip


# float64 ops where NumPy's double loops miss torch's (nearly always correctly rounded) result
# often: computed in x87 extended precision (np.longdouble) and rounded once. Share of 100,001
# inputs in [-3, 3] that differ from torch 2.13: tanh 21% -> 0.7%, sinh 26% -> 0.05%, cosh
# 20% -> 0.03%, expm1 10% -> 0.05%, log1p 9% -> 2%. Extended precision is 4-7x slower, so
# only `gradcli run` takes it, for tensors up to EXTENDED_ELEMENTS (tutorial sizes): the
# graph's blocked and batched paths must agree with its node-by-node one bit for bit, and
# they see other array sizes.
WIDE_FLOAT64 = frozenset({"tanh", "sinh", "cosh", "expm1", "log1p"})
EXTENDED_ELEMENTS = 1 << 16


def extended(name: str, operands: list[Any]) -> list[Any]:
    """A float64 op's operands as its forward should take them: long doubles for WIDE_FLOAT64 ops."""
    if name not in WIDE_FLOAT64:
        return operands
    return [
        o.astype(np.longdouble)
        if type(o) is np.ndarray and o.dtype == np.float64 and o.size <= EXTENDED_ELEMENTS
        else o
        for o in operands
    ]


def widened(name: str, operands: list[Any]) -> list[Any]:
    """A float32 op's operands as its forward should take them: doubles for WIDE_FLOAT32 ops."""
    if name not in WIDE_FLOAT32:
        return operands
    return [o.astype(np.float64) if getattr(o, "dtype", None) == np.float32 else o for o in operands]


def _promote(dtypes: Sequence[str]) -> str:
    return max(dtypes, key=_RANK.__getitem__) if dtypes else FLOAT


def _whole(value: float) -> bool:
    return value == value and abs(value) != float("inf") and value == int(value)


def result_dtype(
    op: Op, operands: Sequence[str | None], numbers: Sequence[float], attrs: dict | None = None
) -> str | None:
    """The dtype torch gives this op's result, or None when an operand's dtype is unknown.

    `operands` holds each operand's dtype in order (NUMBER for a number, None if unknown),
    `numbers` the number operands' values (a whole number keeps an integer result integer),
    `attrs` the call's arguments (a constructor's dtype comes from them)."""
    if op.new_dtype is not None:
        return op.new_dtype(attrs or {})
    if op.gives_mask:
        return BOOL
    if op.name in INTEGER_RESULTS:
        return INT64
    tensors = [d for d in operands if d != NUMBER]
    if any(d is None for d in tensors):
        return None
    name = op.name.rstrip("0123456789") if op.name.startswith(("cat", "stack")) else op.name
    if name in ("cat", "stack"):
        return _promote(tensors)
    if name == "embedding":  # rows of the weight (the second operand), in its dtype
        return tensors[1]
    if name in _SAME:
        return tensors[0] if tensors else FLOAT
    if name in _SUMS:
        return FLOAT if tensors and tensors[0] == FLOAT else INT64
    if name == "_div_rounded" and (attrs or {}).get("rounding_mode") == "none":
        return FLOAT  # rounding_mode=None written out: true division
    if name in _PROMOTE:
        result = _promote(tensors[1:] if name == "where" else tensors)
        if result != FLOAT and not all(_whole(v) for v in numbers):
            return FLOAT
        if result == BOOL and numbers:
            return INT64  # True + 1 is 2
        return result
    return FLOAT  # div, the math functions, softmax, the losses: floating results


def widens_integers(op: Op) -> bool:
    """Whether an integer result is int64 whatever the integer operands (sums, positions)."""
    return op.name in INTEGER_RESULTS or op.name in _SUMS


_SHAPED_FROM_A_TENSOR = frozenset({"expand", "flatten", "repeat", "reshape", "unsqueeze", "view"})


# Operands torch takes as tensors but gives no gradient (derivatives.yaml lists no formula):
# op name -> (operand position, the ATen function torch names, the argument's name). A
# tensor there that requires grad is torch's error at the call, before anything runs.
NOT_DIFFERENTIABLE: dict[str, tuple[tuple[int, str, str], ...]] = {
    "nll_loss_weighted": ((2, "nll_loss_forward", "weight"),),
    "binary_cross_entropy_weighted": ((2, "binary_cross_entropy", "weight"),),
    "binary_cross_entropy_with_logits_weighted": (
        (2, "binary_cross_entropy_with_logits", "weight"),
        (3, "binary_cross_entropy_with_logits", "pos_weight"),
    ),
    # the index of index_add/index_copy/index_fill/index_select: an integer tensor (no edge)
    **{name: ((1, name, "index"),) for name in ("index_add", "index_copy", "index_fill", "index_select")},
}


def check(
    op: Op, operands: Sequence[str | None], leaves: Sequence[bool] = (), single: bool = False
) -> None:
    """torch's refusals that depend on dtypes alone, in its words (unknown dtypes pass).

    `leaves` marks operands that require grad: a class-index target given with --at gets the
    engine's own hint (give it with --const) rather than the dtype error. `single`: the
    floating tensors are float32, which torch names Float (float64 is Double)."""
    torch_names = {**_TORCH_NAMES, FLOAT: "Float"} if single else _TORCH_NAMES
    cpp_names = {**_CPP_NAMES, FLOAT: "float"} if single else _CPP_NAMES
    name = op.name
    for position, function, argument in NOT_DIFFERENTIABLE.get(name, ()):
        if len(leaves) > position and leaves[position]:  # torch refuses this at the call
            raise ShapeError(
                f"The function '{function}' is not differentiable with respect to argument '{argument}'. "
                "This input cannot have requires_grad True."
            )
    tensors = [d for d in operands if d != NUMBER]
    if not tensors and name in _SHAPED_FROM_A_TENSOR:
        # A number folds as a number; these would make a 1-element tensor of it, where torch's
        # binding takes only a tensor (`torch.flatten(2.5)` is its TypeError).
        raise ShapeError(f"{name}(): argument 'input' (position 1) must be Tensor, not a Python number")
    if not tensors and name.rstrip("12345678") in ("stack", "cat"):  # torch.stack((1, 2)): the same
        raise ShapeError("expected Tensor as element 0 in argument 0, but got a Python number")
    if any(d is None for d in tensors):
        return
    if name == "matmul" and len(set(tensors)) > 1:
        a, b = (cpp_names[d] for d in tensors[:2])
        raise ShapeError(f"expected m1 and m2 to have the same dtype, but got: {a} != {b}")
    if name == "where" and operands[0] not in (BOOL, NUMBER):
        raise ShapeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{torch_names[operands[0]]}"
        )
    if name == "embedding" and operands[0] not in (INT64, None):
        found = f"torch.{torch_names[operands[0]]}Tensor"
        raise ShapeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {found} instead (while checking arguments for embedding)"
        )
    if name == "masked_select" and operands[1] != BOOL:
        raise ShapeError("masked_select: expected BoolTensor for mask")
    if name == "masked_fill" and operands[1] not in (BOOL, NUMBER):
        raise ShapeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {cpp_names[operands[1]]}"
        )
    if name == "neg" and operands[0] == BOOL:
        raise ShapeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    if name == "sub" and tensors == [BOOL, BOOL]:
        raise ShapeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if name in ("sub", "rsub") and BOOL in tensors:  # x - mask, mask - 1: one bool operand
        raise ShapeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if name in ("mean", "var", "std") and operands[0] in (INT64, BOOL):
        raise ShapeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {torch_names[operands[0]]}"
        )
    if (
        name in ("nll_loss", "nll_loss_weighted")
        and operands[1] == FLOAT
        and not (len(leaves) > 1 and leaves[1])
    ):
        raise ShapeError(f"expected target dtype to be Long or Byte, but got {torch_names[FLOAT]}")
    if name == "gather" and operands[1] != INT64:
        raise ShapeError("gather(): Expected dtype int32/int64 for index")
    if name in _INDEX_DTYPE_ERRORS and operands[1] == NUMBER:  # x.index_select(0, 5): torch's TypeError words
        raise ShapeError(f"{name}(): argument 'index' (position 2) must be Tensor, not int")
    if name in _INDEX_DTYPE_ERRORS and operands[1] != INT64:
        raise (IndexOutOfRange if name in ("index_fill", "index_select") else ShapeError)(
            _INDEX_DTYPE_ERRORS[name].format(torch_names[operands[1]])
        )
    if name in ("index_add", "index_copy") and NUMBER not in operands[::2] and operands[0] != operands[2]:
        mine, theirs = torch_names[operands[0]], torch_names[operands[2]]
        raise ShapeError(
            f"index_add_(): self ({mine}) and source ({theirs}) must have the same scalar type"
            if name == "index_add"
            else f"index_copy_(): self and source expected to have the same dtype, but got (self) {mine} "
            f"and (source) {theirs}"
        )
    if name == "_one_hot" and operands[0] != INT64:
        raise ShapeError("one_hot is only applicable to index tensor of type LongTensor.")
    if name in ("index", "index1") and any(d == FLOAT for d in operands[1:]):
        raise ShapeError("tensors used as indices must be long, int, byte or bool tensors")


# index_select's words where the index is not int64 (its kernel lists int too)
_INDEX_DTYPE_ERRORS = {
    "index_add": "index_add_(): Expected dtype int32/int64 for index but got: {}",
    "index_copy": "index_copy_(): Expected a long tensor for index, but got {}",
    "index_fill": "index_fill_(): Expected dtype int64 for index.",
    "index_select": "index_select(): Expected dtype int32 or int64 for index",
}
_CPP_NAMES = {FLOAT: "double", INT64: "long int", BOOL: "bool"}
