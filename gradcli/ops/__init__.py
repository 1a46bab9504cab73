"""THE registry of primitives: one record per op, holding all four of its meanings.

Each record states the op's NumPy forward, its vector-Jacobian product (one rule per
operand, HIPS/autograd style: ``g`` is the incoming gradient, ``out`` the forward
result), its sympy form (for an elementwise op also as text, so big programs need no
sympy) and its PyTorch ``grad_fn`` name. The parser, the engine, the symbolic layer,
``gradcli ops`` and the registry-parametrised tests all read it, so adding an op means
adding one record here (and its tests).

VJP formulas follow PyTorch's ``derivatives.yaml`` so float64 results agree to the
last bits, including its conventions at singular points (relu'(0)=0, abs'(0)=0,
sqrt'(0)=inf, x**0 has grad 0 everywhere).

The records live in family modules (arithmetic.py, elementwise.py, reductions.py,
layout.py, ...); adding an op means adding a record to its family (and its tests).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from . import (
    activations,
    arithmetic,
    batch_norm,
    constructors,
    conversions,
    convolution,
    dtypes,
    elementwise,
    elementwise_math,
    index_ops,
    indexing,
    joining,
    kernels,
    layer_norm,
    layout,
    logic,
    matrix_parts,
    nn,
    normalizing,
    picking,
    pooling,
    products,
    reducing,
    reductions,
    shape,
    sizes,
    sorting,
    strides,
)
from .core import (
    NUMBER,
    TENSOR,
    Composite,
    Op,
    Param,
    Shape,
    Spelling,
    broadcast_dims,
    broadcast_shapes,
    unbroadcast,
)

# A new family module joins here; it holds OPS (records) and may hold COMPOSITES.
_FAMILIES = (
    arithmetic,
    elementwise,
    reductions,
    layout,
    indexing,
    nn,
    layer_norm,
    convolution,
    pooling,
    batch_norm,
    elementwise_math,
    activations,
    reducing,
    shape,
    logic,
    joining,
    sizes,
    conversions,
    picking,
    index_ops,
    sorting,
    matrix_parts,
    normalizing,
    products,
    constructors,
)
OPS: tuple[Op, ...] = tuple(op for family in _FAMILIES for op in family.OPS)
# PyTorch's fused backward kernels: ops that VJPs call, not part of the program language.
# kernels.py holds the shared ones; a family module may hold KERNELS of its own.
KERNELS: tuple[Op, ...] = kernels.KERNELS + tuple(
    k for family in _FAMILIES for k in getattr(family, "KERNELS", ())
)
# Records a program reaches only through a composite, a rewrite or an operator (`.float()` of
# an int tensor, the squeeze in v @ W, `//` of sizes): in the registry, not in `gradcli ops`.
INTERNAL: tuple[Op, ...] = tuple(k for family in _FAMILIES for k in getattr(family, "INTERNAL", ()))
class _Registry(dict):
    """The records by name. A cat or stack of a list longer than the listed lengths has its
    record made when first asked for (joining.long_record); it is never among the items."""

    def __missing__(self, name: str) -> Op:
        found = joining.long_record(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or (isinstance(name, str) and joining.long_record(name) is not None)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[name] if name in self else default  # noqa: SIM401 - dict.get would skip __missing__


REGISTRY: dict[str, Op] = _Registry({op.name: op for op in OPS + KERNELS + INTERNAL})
# Calls that PyTorch records as several nodes, by the name a program calls them.
COMPOSITES: dict[str, Composite] = {
    c.name: c for family in _FAMILIES for c in getattr(family, "COMPOSITES", ())
}
# The family module each listed op and composite comes from: `gradcli ops --brief` groups by it.
FAMILY: dict[str, str] = {
    record.name: family.__name__.rsplit(".", 1)[-1]
    for family in _FAMILIES
    for record in (*family.OPS, *getattr(family, "COMPOSITES", ()))
}
# Calls whose tensors come as one list (torch.cat([a, b])): the record for each list length.
LISTED: dict[str, dict[int, Op]] = {
    name: by_count for family in _FAMILIES for name, by_count in getattr(family, "LISTED", {}).items()
}
LISTED_EMPTY: dict[str, str] = {
    k: v for family in _FAMILIES for k, v in getattr(family, "EMPTY_LIST", {}).items()
}
# Records the graph replaces, for some operand shapes, by the nodes torch records for them
# (v @ W with a 1-D v: unsqueeze, mm, squeeze): op name -> build(apply, *operands, shapes=...,
# dtypes=..., strides=...) returning the result, or None to record the op itself.
REWRITES: dict[str, Any] = {k: v for family in _FAMILIES for k, v in getattr(family, "REWRITES", {}).items()}
# torch's argument order where a param sits between tensors (torch.gather(input, dim, index)):
# op name -> argument names; the op's operands are the names that are not its params.
SIGNATURES: dict[str, tuple[str, ...]] = {
    k: v for family in _FAMILIES for k, v in getattr(family, "SIGNATURES", {}).items()
}
# Calls whose weight= (pos_weight=) tensors make them another record (binding.py's overload):
# name -> (the weighted record, its tensor arguments after input and target).
WEIGHTED: dict[str, tuple[str, tuple[str, ...]]] = {
    k: v for family in _FAMILIES for k, v in getattr(family, "WEIGHTED", {}).items()
}


# ---------------------------------------------------------------- spellings
# How PyTorch, NumPy and JAX users write the registry's ops. Every spelling leads to a
# record: `torch.square(x)` and `x.square()` are pow(x, 2), recorded as PyTorch records
# them (PowBackward0); the infix operators have function and method names too.


_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))
_NO_NUMPY_NAMES = {"norm"}  # Python functions in torch: no axis=/keepdims= aliases
# name -> spelling, for functions (bare, torch., F.) and methods alike.
_TORCH_ALIASES: dict[str, Spelling] = {
    "add": Spelling("add"),
    "sub": Spelling("sub"),
    "subtract": Spelling("sub"),
    "mul": Spelling("mul"),
    "multiply": Spelling("mul"),
    "div": Spelling("div"),
    "divide": Spelling("div"),
    "true_divide": Spelling("div"),
    "neg": Spelling("neg"),
    "negative": Spelling("neg"),
    "square": Spelling("pow", numbers=(2.0,)),
    "absolute": Spelling("abs"),
    "arcsin": Spelling("asin"),
    "arccos": Spelling("acos"),
    "arctan": Spelling("atan"),
    "arcsinh": Spelling("asinh"),
    "arccosh": Spelling("acosh"),
    "arctanh": Spelling("atanh"),
    "dot": Spelling("matmul"),
    "mm": Spelling("matmul"),
    "mv": Spelling("matmul"),
}
# NumPy and JAX: the same names where they mean the same thing, and NumPy's own.
_NUMPY_ALIASES: dict[str, Spelling] = {
    **_TORCH_ALIASES,
    "power": Spelling("pow"),
    "transpose": Spelling("T"),
}


def _spellings(aliases: dict[str, Spelling], renames: tuple = ()) -> dict[str, Spelling]:
    # PyTorch's function names first (torch.sigmoid), then the ops' own names, which win
    # where two records share a torch name (torch.max is max over all, or max_values).
    table = {
        op.torch.rsplit(".", 1)[-1]: Spelling(op.name, renames=renames)
        for op in OPS
        if op.torch.startswith("torch.") and not op.torch.startswith("torch.ops.")
    }
    table.update({op.name: Spelling(op.name, renames=renames) for op in OPS if op.function or op.method})
    table.update({name: Spelling(name, renames=renames) for name in COMPOSITES})
    table.update({name: Spelling(name, renames=renames) for name in LISTED})
    table.update({name: Spelling(op.name, renames=renames) for op in OPS for name in op.aliases})
    for name, spelling in aliases.items():
        if spelling.op in REGISTRY or spelling.op in COMPOSITES or spelling.op in LISTED:
            # a spelling's own renames (np.clip's a_min) join the family's (axis=)
            table[name] = Spelling(spelling.op, spelling.numbers, renames + spelling.renames)
    return table


# A family module may hold TORCH_ALIASES and NUMPY_ALIASES of its own (name -> Spelling).
for _family in _FAMILIES:
    _TORCH_ALIASES.update(getattr(_family, "TORCH_ALIASES", {}))
    _NUMPY_ALIASES.update(getattr(_family, "TORCH_ALIASES", {}))
    _NUMPY_ALIASES.update(getattr(_family, "NUMPY_ALIASES", {}))
# torch's argument parser takes NumPy's axis= and keepdims= for dim= and keepdim= in every
# native function and method; torch.norm, Tensor.norm and torch.nn.functional's Python
# functions (F.softmax) do not, so F. reads a table without them and norm keeps its own.
TORCH_SPELLINGS = {
    name: spelling
    if spelling.op in _NO_NUMPY_NAMES
    else replace(spelling, renames=_NUMPY_NAMES + spelling.renames)
    for name, spelling in _spellings(_TORCH_ALIASES).items()
}
FUNCTIONAL_SPELLINGS = _spellings(_TORCH_ALIASES)
# NumPy names whose NumPy meaning is not what gradcli's record of that name computes: refused
# under np./jnp., with the torch spelling to write (np.select(condlist, choicelist) is not
# torch.select(x, dim, index)). np.repeat and np.dot are NumPy's own (shape.py, products.py).
NUMPY_MEANS_OTHER: dict[str, str] = {
    "select": "NumPy's select(condlist, choicelist) is not supported; torch's is x.select(dim, index)",
    "sort": "NumPy's sort returns the sorted array alone; write torch.sort(x, dim).values",
    "pad": "NumPy's pad widths pad every axis; write F.pad(x, pad), whose pairs pad the last dims first",
    "logspace": "NumPy's logspace takes endpoint before base; write torch.logspace(start, end, steps, base=10.0)",
    "nan_to_num": "NumPy's second argument is copy; write torch.nan_to_num(x, nan=0.0, posinf=None, neginf=None)",
}
NUMPY_SPELLINGS = {
    name: spelling
    for name, spelling in _spellings(_NUMPY_ALIASES, _NUMPY_NAMES).items()
    if name not in NUMPY_MEANS_OTHER
}
# Python's math module: its own functions only (math.sum is no function), and not remainder
# (IEEE's, not torch's floor modulo) or prod (of an array: the product of its rows).
_PYTHON_MATH = (
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cos", "cosh", "erf", "exp",
    "exp2", "expm1", "floor", "fmod", "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2",
    "pow", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
)  # fmt: skip
MATH_SPELLINGS = {name: NUMPY_SPELLINGS[name] for name in _PYTHON_MATH if name in NUMPY_SPELLINGS}
# Module prefixes, as users import them, and which table they read.
MODULES: dict[str, dict[str, Spelling]] = {
    "torch": TORCH_SPELLINGS,
    "F": FUNCTIONAL_SPELLINGS,
    "torch.nn.functional": FUNCTIONAL_SPELLINGS,
    "nn.functional": FUNCTIONAL_SPELLINGS,
    "np": NUMPY_SPELLINGS,
    "numpy": NUMPY_SPELLINGS,
    "jnp": NUMPY_SPELLINGS,
    "jax.numpy": NUMPY_SPELLINGS,
    "math": MATH_SPELLINGS,
}
# torch.special has few names, and only these of them are records here (expit is sigmoid);
# torch.special.sin is refused, as torch has no such function.
_SPECIAL = ("erf", "erfinv", "exp2", "expm1", "log1p", "log_softmax", "logsumexp", "round", "softmax")
MODULES["torch.special"] = {name: TORCH_SPELLINGS[name] for name in _SPECIAL} | {"expit": TORCH_SPELLINGS["sigmoid"]}
# torch.linalg: the vector norms (ord is p); linalg.norm is vector_norm wherever it means a
# vector norm (ord=None, or a 1-D reduction), and refused where it means a matrix norm.
MODULES["torch.linalg"] = {
    "vector_norm": Spelling("norm", renames=(("ord", "p"),)),
    "norm": Spelling("linalg_norm"),
}
# torch.ops.aten.mul.Scalar and friends: records Python's torch.mul never makes (MulBackward1).
for _family in _FAMILIES:
    for _prefix, _names in getattr(_family, "ATEN_MODULES", {}).items():
        MODULES.setdefault(_prefix, {}).update(_names)
# What torch itself refuses, gradcli refuses too (tests/test_spellings.py checks each set
# against torch): names of the tables above that torch.nn.functional has (F.sin is refused),
# that the torch module has no function for (torch.view, torch.float), and that are no Tensor
# methods (x.softplus()). Bare names (`sin(x)`) stay gradcli's.
FUNCTIONAL = frozenset(
    [
        "avg_pool1d",
        "avg_pool2d",
        "batch_norm",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "conv1d",
        "conv2d",
        "cosine_similarity",
        "cross_entropy",
        "elu",
        "embedding",
        "gelu",
        "hardtanh",
        "huber_loss",
        "l1_loss",
        "layer_norm",
        "leaky_relu",
        "linear",
        "log_softmax",
        "logsigmoid",
        "max_pool1d",
        "max_pool2d",
        "mish",
        "mse_loss",
        "nll_loss",
        "normalize",
        "one_hot",
        "pad",
        "relu",
        "relu6",
        "selu",
        "sigmoid",
        "silu",
        "smooth_l1_loss",
        "softmax",
        "softplus",
        "softsign",
        "tanh",
        "tanhshrink",
    ]
)
NOT_IN_TORCH = frozenset(
    [
        "avg_pool2d",
        "binary_cross_entropy",
        "bool",
        "contiguous",
        "cpu",
        "cross_entropy",
        "dim",
        "double",
        "elu",
        "expand",
        "float",
        "gelu",
        "hardtanh",
        "huber_loss",
        "l1_loss",
        "leaky_relu",
        "len",
        "linalg_norm",
        "linear",
        "logsigmoid",
        "long",
        "mish",
        "mse_loss",
        "nll_loss",
        "normalize",
        "np_dot",
        "np_std",
        "np_var",
        "one_hot",
        "pad",
        "relu6",
        "repeat",
        "silu",
        "size",
        "smooth_l1_loss",
        "softplus",
        "softsign",
        "tanhshrink",
        "view",
    ]
)
# torch functions whose arguments come in another order than the F. function gradcli records:
# torch.embedding(weight, input) is refused with the spelling to use.
OTHER_ORDER = {
    "embedding": "F.embedding(input, weight)",
    "batch_norm": "F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)",
}
NOT_METHODS = frozenset(
    [
        "avg_pool1d",
        "avg_pool2d",
        "batch_norm",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "cat",
        "concat",
        "concatenate",
        "constant_pad_nd",
        "conv1d",
        "conv2d",
        "cosine_similarity",
        "cross_entropy",
        "arange",
        "elu",
        "embedding",
        "eye",
        "full",
        "full_like",
        "gelu",
        "hardtanh",
        "huber_loss",
        "l1_loss",
        "layer_norm",
        "leaky_relu",
        "len",
        "linalg_norm",
        "linear",
        "linspace",
        "logspace",
        "logsigmoid",
        "max_pool1d",
        "max_pool2d",
        "mish",
        "mse_loss",
        "nll_loss",
        "normalize",
        "np_dot",
        "np_std",
        "np_var",
        "one_hot",
        "ones",
        "ones_like",
        "pad",
        "relu6",
        "selu",
        "silu",
        "smooth_l1_loss",
        "softplus",
        "softsign",
        "stack",
        "tanhshrink",
        "tensor",
        "zeros",
        "zeros_like",
    ]
)
FUNCTIONAL_MODULES = frozenset({"F", "torch.nn.functional", "nn.functional"})
# Bare names that are Python builtins with another meaning: float(x) is a Python number.
PYTHON_BUILTINS = frozenset({"float", "bool"})

# Names callable as f(...) in a program, and as x.f(...).
FUNCTIONS: dict[str, Op] = {op.name: op for op in OPS if op.function}
METHODS: dict[str, Op] = {op.name: op for op in OPS if op.method}
# Python's operators, by ast node class name, and the registry op (or composite) each one calls:
# the program parser and the run interpreter read these tables and no others.
BINARY = {
    "Add": "add",
    "Sub": "sub",
    "Mult": "mul",
    "Div": "div",
    "Pow": "pow",
    "MatMult": "matmul",
    "FloorDiv": "floor_divide",
    "Mod": "remainder",
}
COMPARISONS = {"Gt": "gt", "Lt": "lt", "GtE": "ge", "LtE": "le", "Eq": "eq", "NotEq": "ne"}
# How formulas and messages write each comparison: its record's symbol ("gt" -> ">")
COMPARISON_SYMBOLS = {name: REGISTRY[name].symbol for name in COMPARISONS.values()}
# a & b, a | b, a ^ b, ~a: torch's bitwise functions (bool tensors: logical ops; float: torch's error)
BITWISE = {"BitAnd": "bitwise_and", "BitOr": "bitwise_or", "BitXor": "bitwise_xor", "Invert": "bitwise_not"}
# How error messages write an operator gradcli refuses somewhere.
OPERATOR_SYMBOLS = {
    "MatMult": "@",
    "FloorDiv": "//",
    "Mod": "%",
    "LShift": "<<",
    "RShift": ">>",
    "BitOr": "|",
    "BitAnd": "&",
    "BitXor": "^",
    "Invert": "~",
    "Not": "not",
}
CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


__all__ = [
    "FAMILY",
    "BINARY",
    "BITWISE",
    "COMPARISONS",
    "COMPARISON_SYMBOLS",
    "OPERATOR_SYMBOLS",
    "COMPOSITES",
    "Composite",
    "CONSTANTS",
    "FUNCTIONAL",
    "FUNCTIONAL_MODULES",
    "FUNCTIONS",
    "NOT_IN_TORCH",
    "NOT_METHODS",
    "OTHER_ORDER",
    "PYTHON_BUILTINS",
    "LISTED",
    "LISTED_EMPTY",
    "METHODS",
    "MODULES",
    "NUMBER",
    "NUMPY_SPELLINGS",
    "NUMPY_MEANS_OTHER",
    "OPS",
    "KERNELS",
    "INTERNAL",
    "REGISTRY",
    "REWRITES",
    "SIGNATURES",
    "TENSOR",
    "TORCH_SPELLINGS",
    "WEIGHTED",
    "Op",
    "Param",
    "Shape",
    "Spelling",
    "broadcast_dims",
    "broadcast_shapes",
    "dtypes",
    "strides",
    "unbroadcast",
]
