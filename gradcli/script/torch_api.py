"""The torch namespace of `run`: what `torch.`, `F.`, `math.` and `numpy.` give a script, the tensor
constructors and dtypes, and the binding of torch calls to the op registry.

Calls bind through the program parser's own binder (parse.CallBinder): the evaluated arguments are
handed to it as literals and placeholder names, so spellings, defaults and keyword checks are exactly
those of `gradcli grad`, and each tensor result is a node recorded by runtime.apply_op."""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np

from ..errors import IndexOutOfRange
from ..ops import MODULES, REGISTRY, REWRITES
from ..ops.constructors import arange_values, linspace_values, logspace_values
from ..ops.dtypes import NOT_DIFFERENTIABLE
from ..ops.indexing import check_subscript, index_place
from ..parse import returns_pair
from ..program import Apply, Num
from . import runtime
from .forward_ad import FUNCTIONS as FORWARD_AD_FUNCTIONS
from .func_api import TRANSFORMS as FUNC_TRANSFORMS
from .func_api import refuse as refuse_func
from .nn_modules import FUNCTION_CLASS, INIT_FUNCTIONS, NN_CLASSES, bind_arguments, sig
from .random_api import RANDOM_CALLS, STATE_FUNCTIONS
from .runtime import ScriptError, ScriptRuntimeError, Tensor, apply_op, source_position, stored
from .tensor_repr import set_print_options
from .values import NO_CUDA, Device, DType, Fixed, Function, Module, NoGrad, Picked, Size


def _tensor_split_bounds(sections: Any, size: int) -> list[tuple[int, int]]:
    """torch.tensor_split's pieces: n sections (the first size % n one longer), or cuts at indices."""
    if isinstance(sections, int) and not isinstance(sections, bool):
        if sections <= 0:
            raise ScriptRuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        lengths = [small + 1] * extra + [small] * (sections - extra)
        starts = [sum(lengths[:k]) for k in range(sections)]
        return [(a, a + n) for a, n in zip(starts, lengths, strict=True)]
    if isinstance(sections, (list, tuple)) and all(
        isinstance(i, int) and not isinstance(i, bool) for i in sections
    ):
        cuts = [min(max(i + size if i < 0 else i, 0), size) for i in sections]
        starts = [0, *cuts]
        ends = [*cuts, size]
        return [(a, max(a, b)) for a, b in zip(starts, ends, strict=True)]
    raise ScriptRuntimeError(
        "tensor_split(): argument 'indices_or_sections' must be an int or a list of ints", "TypeError"
    )


TORCH_VERSION = "2.13.0+cpu"
_DTYPES = {
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int64": "int64",
    "long": "int64",
    "int32": "int32",
    "int": "int32",
    "int16": "int16",
    "short": "int16",
    "int8": "int8",
    "uint8": "uint8",
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "bool": "bool",
}
PIECE_CALLS = ("chunk", "split", "unbind", "tensor_split", "var_mean", "std_mean")
POSITION_CALLS = (
    "nonzero",
    "argwhere",
    "unique",  # values, inverse indices, counts: tensor_methods.unique
)  # int64 positions: x.nonzero(), torch.argwhere(x)  # tensor methods and torch functions that return tuples
TORCH_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "float16": "Half", "bfloat16": "BFloat16",
}  # fmt: skip
CONSTRUCTORS = {
    "tensor",
    "from_numpy",
    "as_tensor",
    "Tensor",
    "FloatTensor",
    "DoubleTensor",
    "LongTensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "eye",
    "arange",
    "linspace",
    "logspace",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "no_grad",
    "enable_grad",
    "is_tensor",
    "set_grad_enabled",
    "is_grad_enabled",
    "numel",
    # random tensors come from torch's own CPU generator, modelled bit for bit (torch_random.py):
    # after manual_seed(n) a script draws torch's numbers; unseeded, fresh ones each run
    "device",
    "set_printoptions",
    "Size",
    "allclose",
    "isclose",
    "equal",
    "inference_mode",
    "manual_seed",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "normal",
    "randperm",
}
_RANDOM = {"seed"}
_CONSTRUCTOR_KEYWORDS: dict[str, tuple[str, ...] | None] = {
    "is_grad_enabled": None,
    "no_grad": (),
    "enable_grad": (),
    "inference_mode": ("mode",),
    "set_grad_enabled": ("mode",),
    "is_tensor": ("obj",),
    "numel": ("input",),
    "manual_seed": ("seed",),
}


def dim_index(dim: Any, ndim: int) -> int:
    """A dim argument as a position (negative dims count from the end), torch's IndexError else."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise ScriptRuntimeError("stride(): argument 'dim' must be int", "TypeError")
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise ScriptRuntimeError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})",
            "IndexError",
        )
    return dim % max(ndim, 1)


def check_keywords(name: str, kwargs: dict, table: dict[str, tuple[str, ...] | None], owner: str) -> None:
    if name not in table or not kwargs:
        return
    allowed = table[name]
    if allowed is None:
        raise ScriptRuntimeError(f"{owner}{name}() takes no keyword arguments", "TypeError")
    for key in kwargs:
        if key not in allowed:
            raise ScriptRuntimeError(f"{name}() got an unexpected keyword argument '{key}'", "TypeError")


# Signatures whose arguments are Tensors, not Scalars (torch's `Tensor other`): a number there
# is torch's TypeError. By position from `input`; None marks an argument of another kind.
_TENSOR_ARGUMENTS: dict[str, tuple[str | None, ...]] = {
    **dict.fromkeys(("atan2", "arctan2", "maximum", "minimum", "matmul"), ("input", "other")),
    **dict.fromkeys(("logical_and", "logical_or", "logical_xor"), ("input", "other")),
    **dict.fromkeys(("mm", "bmm"), ("input", "mat2")),
    **dict.fromkeys(("outer", "ger"), ("input", "vec2")),
    "mv": ("input", "vec"),
    "dot": ("input", "tensor"),
    "addmm": ("input", "mat1", "mat2"),
    "masked_select": ("input", "mask"),
    "gather": ("input", None, "index"),
    "cosine_similarity": ("x1", "x2"),
    "cross_entropy": ("input", "target", "weight"),
    "nll_loss": ("input", "target", "weight"),
    "binary_cross_entropy": ("input", "target", "weight"),
    "binary_cross_entropy_with_logits": ("input", "target", "weight", None, None, None, "pos_weight"),
    "layer_norm": ("input", None, "weight", "bias"),
    "batch_norm": ("input", "running_mean", "running_var", "weight", "bias"),
    "linear": ("input",),
}


def _check_tensor_arguments(name: str, method: bool, args: list, kwargs: dict, type_name: Any) -> None:
    params = _TENSOR_ARGUMENTS.get(name)
    if params is None:
        return
    params = params[1:] if method else params  # a method's receiver is its input
    for position, (param, value) in enumerate(zip(params, args), 1):
        if param is not None and isinstance(value, (int, float)):
            raise ScriptRuntimeError(
                f"{name}(): argument '{param}' (position {position}) must be Tensor, not {type_name(value)}",
                "TypeError",
            )
    for key, value in kwargs.items():
        if key in params and isinstance(value, (int, float)):
            raise ScriptRuntimeError(
                f"{name}(): argument '{key}' must be Tensor, not {type_name(value)}", "TypeError"
            )


def _check_unpackable(values: Any) -> None:
    """A Python int given to a torch op: torch unpacks it into 64 bits, or raises."""
    for number in values:
        if isinstance(number, int) and not -(2**63) <= number < 2**64:
            raise ScriptRuntimeError(
                "int too big to convert" if number > 0 else "can't convert negative int to unsigned",
                "OverflowError",
            )


def _dotted(name: str) -> ast.expr:
    parts = name.split(".")
    node: ast.expr = ast.Name(id=parts[0], ctx=ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
    return node


# The binder's plans of calls already made, by the call's shape (which arguments are tensors, the
# other arguments' values): a training loop makes the same calls over and over, and planning one
# (an AST, the binder's checks) cost most of an op's recording time.
_PLANS: dict[tuple, tuple[list, list, Any]] = {}
_MOST_PLANS = 4096


def _argument_key(value: Any) -> Any:
    if isinstance(value, Tensor):
        return "T"
    if value is None or type(value) in (int, float, bool, str):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple)):  # a Size too: literal() reads them alike
        inner = tuple(_argument_key(v) for v in value)
        return None if None in inner else ("L", inner)
    return None


def _plan_key(module: str, name: str, receiver: Any, args: list, kwargs: dict) -> tuple | None:
    """What a call's plan depends on, or None for a call not to plan again (a dtype, a module)."""
    parts = [_argument_key(a) for a in args] + [_argument_key(v) for v in kwargs.values()]
    if None in parts:
        return None
    return (module, name, receiver is not None, tuple(parts), tuple(kwargs))


def _tensors_in(value: Any, found: list) -> None:
    """The tensors of a call's arguments, in the order literal() made their placeholders."""
    if isinstance(value, Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _tensors_in(item, found)


_DEFAULTS: dict[str, dict] = {}  # each registry op's parameters and their defaults


def _direct(expression: Any, tensors: list) -> tuple | None:
    """A call the binder made one registry op over the call's tensors (x.sin(), torch.tanh(x),
    x.sum(dim=1)): (op, which tensor each operand is, attrs, what the binder may have read of
    the tensors), so the next such call on tensors alike records the op without building and
    walking the expression again (the binder reads shapes: movedim's dims become permute's).
    None for anything else (a composite, a rewrite, a subscript, a number operand, a loss's
    weight), which evaluate() walks as before."""
    if not isinstance(expression, Apply) or expression.subscript is not None:
        return None
    if expression.op in REWRITES or expression.op in NOT_DIFFERENTIABLE:
        return None
    if expression.op not in REGISTRY:
        return None
    picks = []
    for arg in expression.args:
        found = [k for k, t in enumerate(tensors) if t is arg]
        if len(found) != 1:
            return None
        picks.append(found[0])
    if not picks:
        return None
    return (expression.op, tuple(picks), expression.attrs, _kinds(tensors))


def _kinds(tensors: list) -> tuple:
    """What a binder's plan may read of its tensors: shape, strides (contiguous() of a
    contiguous tensor is the tensor itself), dtype, requires_grad."""
    found = []
    for t in tensors:
        value = t.value
        found.append((value.shape, value.strides, t.dtype, t.requires_grad))
    return tuple(found)


def _bound(mapping: dict[int, Any], node: ast.AST) -> Any:
    """The script value an operand node of the binder stands for: a placeholder's tensor, or a
    constant the binder wrote itself (clamp's missing bound is an infinite number)."""
    if id(node) in mapping:
        return mapping[id(node)]
    return node.value if isinstance(node, ast.Constant) else None


def closeness(name: str, args: list, kwargs: dict) -> Any:
    """torch.allclose / isclose / equal, as aten's isclose computes them: equal, or finite
    and |a - b| <= atol + |rtol * b|, in the tensors' own dtype."""
    params = {"rtol": 1e-05, "atol": 1e-08, "equal_nan": False}
    if name == "equal":
        params = {}
    names = ["input", "other", *params]
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
    given = dict(zip(names, args)) | kwargs
    a, b = given.get("input"), given.get("other")
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise ScriptRuntimeError(f"{name}(): arguments 'input' and 'other' must be Tensor", "TypeError")
    if name == "equal":
        return a.shape == b.shape and bool(np.array_equal(a.value, b.value))
    if a.dtype != b.dtype:
        raise ScriptRuntimeError(f"{TORCH_TYPE_NAMES[a.dtype]} did not match {TORCH_TYPE_NAMES[b.dtype]}")
    rtol, atol = float(given.get("rtol", 1e-05)), float(given.get("atol", 1e-08))
    x, y = a.value, b.value
    if x.dtype.kind in "biu":  # integers compare as the default float dtype
        x, y = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        close = x == y
        if given.get("equal_nan", False):
            close = close | (np.isnan(x) & np.isnan(y))
        if rtol or atol:
            error = np.abs(x - y)
            close = close | (np.isfinite(error) & (error <= atol + np.abs(rtol * y)))
    if name == "allclose":
        return bool(np.all(close))
    return Tensor(np.asarray(close, dtype=bool), dtype="bool")


class TorchNamespace:
    """Mixed into Interpreter: module attributes, torch constructors, calls bound to the registry."""

    def module_attribute(self, module: Module, name: str, node: ast.AST) -> Any:
        full = f"{module.name}.{name}"
        if full == "torch.__version__":  # the torch whose semantics gradcli follows
            return TORCH_VERSION
        if full == "numpy.__version__":  # the NumPy that computes a script's arrays
            return np.__version__
        if full == "functools.partial":
            return Function("functools", "partial")
        if full == "torch.autograd.graph":
            return Module(full)
        if full == "torch.autograd.graph.saved_tensors_hooks":  # saved_tensors.py
            return Function("torch.autograd.graph", name)
        if full == "torch.autograd.Variable":  # the legacy wrapper: a tensor since torch 0.4
            return Function("torch.autograd", "Variable")
        if full in ("torch.set_default_device", "torch.set_default_dtype", "torch.get_default_dtype"):
            return Function("torch", name)
        if full in (
            "torch.nn",
            "torch.autograd",
            "torch.nn.functional",
            "torch.cuda",
            "torch.backends",
            "torch.autograd.functional",
            "torch.func",
            "torch.special",
            "torch.linalg",
        ):
            return Module(full)
        if full in (
            "torch.backends.mps",
            "torch.utils",
            "torch.utils.data",
            "torch.optim",
            "torch.optim.lr_scheduler",
            "torch.nn.init",
        ):
            return Module(full)
        if full in ("torch.cuda.is_available", "torch.backends.mps.is_available", "torch.cuda.device_count"):
            return Fixed(full, False if name == "is_available" else 0)  # gradcli runs on the CPU
        if module.name == "torch":
            if name in _DTYPES:
                return DType(_DTYPES[name])
            if name in STATE_FUNCTIONS or name in RANDOM_CALLS:
                return Function("torch", name)
            if name in self.torch_in_place_functions:  # torch.sin_(x) is x.sin_() (tensor_methods)
                return Function("torch", name)
            if name == "default_generator":
                return self.default_generator()
            if name in ("pi", "e", "inf", "nan"):
                return {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}[name]
            if (
                name in CONSTRUCTORS
                or name in MODULES["torch"]
                or name in PIECE_CALLS
                or name in POSITION_CALLS
            ):
                return Function("torch", name)
            if name in _RANDOM:
                raise ScriptError(
                    f"{source_position(node)}: torch.{name}: random numbers are not supported (gradcli cannot "
                    "reproduce PyTorch's generator); write the values, e.g. torch.tensor([[0.5, -1.2]])"
                )
        elif module.name == "torch.autograd" and name == "Function":
            return FUNCTION_CLASS
        elif module.name == "torch.autograd":
            if name in ("grad", "backward"):
                return Function("torch.autograd", name)
            if name == "forward_ad":
                return Module("torch.autograd.forward_ad")
        elif module.name == "torch.nn" and name == "Parameter":
            return Function("torch.nn", name)
        elif module.name == "torch.nn" and name in NN_CLASSES:
            return NN_CLASSES[name]
        elif module.name == "torch.autograd" and name == "Function":
            return FUNCTION_CLASS
        elif module.name == "torch.func":  # torch.func's transforms: func_api.py
            if name in FUNC_TRANSFORMS:
                return Function("torch.func", name)
            raise refuse_func(name, node)
        elif module.name == "torch.autograd.forward_ad" and name in FORWARD_AD_FUNCTIONS:
            return Function(module.name, name)
        elif module.name == "torch.autograd.functional":
            if name in ("jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"):
                return Function("torch.autograd.functional", name)
        elif (
            module.name == "torch.nn.functional"
            and name == "dropout"
            or module.name == "torch.nn.init"
            and name in INIT_FUNCTIONS
        ):
            return Function(module.name, name)
        elif module.name == "torch.nn.functional" and name in MODULES["F"]:
            return Function("torch.nn.functional", name)
        elif module.name in ("torch.special", "torch.linalg") and name in MODULES[module.name]:
            return Function(module.name, name)
        raise ScriptError(
            f"{source_position(node)}: '{full}' is not supported by gradcli run (see 'gradcli ops')"
        )

    def moments(self, name: str, t: Tensor, args: list, kwargs: dict) -> tuple:
        """torch.var_mean / std_mean: (var or std, mean) over the same dims, each named as the
        one node torch records for both (VarMeanBackward0, StdMeanBackward0)."""
        node = ast.Constant(
            value=None, lineno=self.line, col_offset=0, end_lineno=self.line, end_col_offset=0
        )
        rest = args
        dim = kwargs.get("dim", rest[0] if rest and not isinstance(rest[0], bool) else None)
        keepdim = kwargs.get("keepdim", rest[2] if len(rest) >= 3 else False)
        spread = self.registry("torch", name[:3], None, [t, *args], kwargs, node)
        given = {"keepdim": keepdim} | ({} if dim is None else {"dim": dim})
        mean = self.registry("torch", "mean", None, [t], given, node)
        return self._named([spread, mean], f"{name[:3].capitalize()}MeanBackward0")

    def parameter(self, args: list, kwargs: dict) -> Tensor:
        """torch.nn.Parameter(data, requires_grad=True): a leaf on data's elements (and version
        counter, as torch's detach() shares it) that prints as 'Parameter containing:'."""
        data, requires_grad = self.signature("Parameter", args, kwargs, ("data", "requires_grad"))
        if data is None:
            data = Tensor(np.zeros(0, dtype=np.float32))
        if not isinstance(data, Tensor):
            raise ScriptRuntimeError(
                f"Parameter(): argument 'data' must be Tensor, not {self.type_name(data)}", "TypeError"
            )
        wants = True if requires_grad is None else self.truth(requires_grad)
        if wants and data.dtype not in ("float32", "float64"):
            raise ScriptRuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        made = Tensor.alias(data)
        made.requires_grad, made.grad_fn = wants, None
        made.parameter = True
        return made

    def pieces(self, name: str, t: Tensor, args: list, kwargs: dict) -> tuple:
        """x.chunk(n, dim), x.split(size or sizes, dim), x.unbind(dim): a tuple of views, each
        with the grad_fn torch names for the call (SplitBackward0, SplitWithSizesBackward0,
        UnbindBackward0); their gradients go back through the slices they are."""
        if name in ("var_mean", "std_mean"):
            return self.moments(name, t, args, kwargs)
        names = {
            "chunk": ("chunks", "dim"),
            "split": ("split_size_or_sections", "dim"),
            "unbind": ("dim",),
            "tensor_split": ("indices_or_sections", "dim"),
        }[name]
        given = dict(zip(names, args)) | kwargs
        if len(args) > len(names) or any(k not in names for k in given):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        ndim = max(t.value.ndim, 1)
        if not t.shape:
            raise ScriptRuntimeError(f"{name} expects at least a 1-dimensional tensor")
        dim = dim_index(given.get("dim", 0), ndim)
        size = t.shape[dim]
        if name == "unbind":
            parts = [self.apply("select", [t], {"dim": dim, "index": i}) for i in range(size)]
            return self._named(parts, "UnbindBackward0")
        if name == "tensor_split":  # NumPy's array_split: plain slices, SliceBackward0 each
            return tuple(
                self.apply("slice", [t], {"dim": dim, "start": a, "end": b, "step": 1})
                for a, b in _tensor_split_bounds(given.get("indices_or_sections"), size)
            )
        if name == "chunk":
            chunks = self.index_of(given.get("chunks"))
            if not isinstance(chunks, int) or isinstance(chunks, bool):
                raise ScriptRuntimeError(
                    f"chunk(): argument 'chunks' must be int, not {self.type_name(chunks)}", "TypeError"
                )
            if chunks <= 0:
                raise ScriptRuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
            step = -(-size // chunks) if size else 1
            sizes = [min(step, size - start) for start in range(0, size, step)] or [0]
            grad_fn = "SplitBackward0"
        else:
            sections = given.get("split_size_or_sections")
            if isinstance(sections, int) and not isinstance(sections, bool) and sections > 0:
                sizes = [min(sections, size - start) for start in range(0, size, sections)] or [0]
                grad_fn = "SplitBackward0"
            elif isinstance(sections, (list, tuple)) and all(isinstance(n, int) and n >= 0 for n in sections):
                if sum(sections) != size:
                    raise ScriptRuntimeError(
                        f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                        f"dimension {dim}), but got split_sizes={list(sections)}"
                    )
                sizes, grad_fn = list(sections), "SplitWithSizesBackward0"
            else:
                raise ScriptRuntimeError(
                    "split(): split_size_or_sections must be an int or a list of ints", "TypeError"
                )
        parts, start = [], 0
        for n in sizes:
            parts.append(self.apply("slice", [t], {"dim": dim, "start": start, "end": start + n, "step": 1}))
            start += n
        return self._named(parts, grad_fn)

    def positions(self, name: str, t: Tensor, args: list, kwargs: dict) -> Any:
        """torch.where(cond), x.nonzero() and torch.argwhere(x): int64 positions of the
        nonzero elements, as one tensor per dim (as_tuple) or as rows."""
        if name == "unique":
            return self.unique(t, args, kwargs)
        as_tuple = name == "where" or bool(kwargs.pop("as_tuple", False))
        if args or kwargs:
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        if not t.shape:  # a 0-d tensor: one position of no dims, or none
            count = int(bool(t.value.reshape(()) != 0))
            if as_tuple:
                return (Tensor(np.zeros(count, np.int64), dtype="int64"),)
            return Tensor(np.zeros((count, 0), np.int64), dtype="int64")
        found = np.nonzero(t.value)
        if as_tuple:
            return tuple(Tensor(np.asarray(i, dtype=np.int64), dtype="int64") for i in found)
        return Tensor(np.stack(found, axis=1).astype(np.int64), dtype="int64")

    @staticmethod
    def _named(parts: list, grad_fn: str) -> tuple:
        for part in parts:
            if isinstance(part, Tensor) and isinstance(part.grad_fn, runtime.Fn):
                part.grad_fn.name = grad_fn
        return tuple(parts)

    # -- tensors: construction -------------------------------------------------------------

    def index_of(self, value: Any) -> Any:
        """An int argument as torch reads it: a one-element integer tensor is its int (__index__)."""
        if isinstance(value, Tensor) and value.dtype in ("int64", "int32") and value.value.size == 1:
            return int(value.value.reshape(()))
        return value

    def normal_call(self, args: list, kwargs: dict, node: ast.AST) -> Tensor:
        """torch.normal(mean, std, size) with numbers, or with tensors for mean and/or std."""
        mean = args[0] if args else kwargs.pop("mean", 0.0)
        std = args[1] if len(args) > 1 else kwargs.pop("std", 1.0)
        size = args[2] if len(args) > 2 else kwargs.pop("size", None)
        generator = self.chosen_generator(kwargs)
        tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
        for v in (mean, std):
            if not isinstance(v, (int, float, Tensor)) or isinstance(v, bool):
                raise ScriptRuntimeError(
                    f"normal() received an invalid combination of arguments - got ({self.type_name(v)})",
                    "TypeError",
                )
        if not tensors:
            if size is None:
                raise ScriptRuntimeError("normal() missing required argument 'size'", "TypeError")
            shape = self.sizes([size], node)
            dtype = self.dtype_of(kwargs, "float32")
            if std < 0:
                raise ScriptRuntimeError(f"normal expects std >= 0.0, but found std {std}")
            values = generator.normal(shape, float(mean), float(std), dtype)
            return self.finish(values, dtype, kwargs, "normal", node)
        if any(t.requires_grad for t in tensors):
            raise ScriptError(
                f"{source_position(node)}: torch.normal of tensors that require grad is not supported"
            )
        dtype = tensors[0].dtype
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
        m = mean.value if isinstance(mean, Tensor) else np.asarray(mean, dtype=dtype)
        s = std.value if isinstance(std, Tensor) else np.asarray(std, dtype=dtype)
        if np.any(s < 0):
            raise ScriptRuntimeError("normal expects all elements of std >= 0.0")
        values = generator.normal(tuple(shape), np.broadcast_to(m, shape), np.broadcast_to(s, shape), dtype)
        return self.finish(values, dtype, kwargs, "normal", node)

    def draw(self, name: str, shape: tuple[int, ...], dtype: str | None, kwargs: dict) -> np.ndarray:
        """torch.rand / torch.randn from torch's generator (or generator=), drawn in the dtype they
        are made in (a float64 draw is not a widened float32 one); other dtypes are drawn as float32."""
        kind = dtype if dtype in ("float32", "float64") else "float32"
        generator = self.chosen_generator(kwargs)
        values = generator.rand(shape, kind) if name == "rand" else generator.randn(shape, kind)
        return values if dtype is None or dtype == kind else stored(values, dtype)

    def dtype_of(self, kwargs: dict, default: str | None) -> str | None:
        dtype = kwargs.pop("dtype", None)
        if dtype is None:
            return default
        if not isinstance(dtype, DType):
            raise ScriptRuntimeError("dtype must be a torch dtype such as torch.float64", "TypeError")
        return dtype.name

    def device(self, spec: Any) -> Device:
        """A device from torch.device(...), .to(...) or device=: cpu, or a named accelerator."""
        if isinstance(spec, Device):
            return spec
        if not isinstance(spec, (str, int)) or isinstance(spec, bool):
            raise ScriptRuntimeError(
                f"argument 'device' must be torch.device, not {self.type_name(spec)}", "TypeError"
            )
        if isinstance(spec, int):  # torch.device(0): the current accelerator's, which there is none of
            raise ScriptRuntimeError("Cannot access accelerator device when none is available.")
        kind, colon, number = spec.partition(":")
        if kind not in ("cpu", "cuda", "mps"):
            raise ScriptRuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {spec}"
            )
        if colon and not number.isdigit():
            raise ScriptRuntimeError(f"Invalid device string: '{spec}'")
        return Device(kind, int(number) if colon else None)

    def on_cpu(self, spec: Any) -> None:
        """Tensors live on the CPU here; moving one to cuda is torch's error without CUDA."""
        if spec is not None and self.device(spec).kind != "cpu":
            raise ScriptRuntimeError(NO_CUDA, "AssertionError")

    def finish(self, value: np.ndarray, dtype: str, kwargs: dict, name: str, node: ast.AST) -> Tensor:
        requires_grad = bool(kwargs.pop("requires_grad", False))
        self.on_cpu(kwargs.pop("device", None))
        if kwargs:
            raise ScriptRuntimeError(
                f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'", "TypeError"
            )
        runtime.check_allocation(value.size, dtype)
        t = Tensor(stored(np.asarray(value), dtype), dtype=dtype)
        if requires_grad:
            t.set_requires_grad(True)
        return t

    def sizes(self, args: list, node: ast.AST, dtype: str | None = "float32") -> tuple[int, ...]:
        """A constructor's size, checked as torch checks it before allocating (`dtype`: what
        each element takes; None: the caller weighs it once it knows its dtype)."""
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else tuple(args)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
            raise ScriptRuntimeError("size must be integers", "TypeError")
        runtime.check_shape(shape)
        if dtype is not None:
            runtime.check_allocation(math.prod(shape), dtype)
        return shape

    def default_setting(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """torch.set_default_device('cpu') and set_default_dtype(torch.float32): what gradcli
        already does; other defaults are refused rather than silently ignored."""
        value = args[0] if len(args) == 1 and not kwargs else kwargs.get("device", kwargs.get("d"))
        if name == "get_default_dtype":
            if args or kwargs:
                raise ScriptRuntimeError("get_default_dtype() takes no arguments", "TypeError")
            return DType("float32")
        if name == "set_default_device" and (value is None or self.device(value).kind == "cpu"):
            return None
        if name == "set_default_dtype" and isinstance(value, DType) and value.name == "float32":
            return None
        raise ScriptError(
            f"{source_position(node)}: torch.{name}({self.repr(value)}) is not supported by gradcli run "
            "(its defaults are the CPU and float32)"
        )

    def data_of(self, data: Any, node: ast.AST) -> tuple[np.ndarray, str | None]:
        """torch.tensor's data (numbers, nested lists of numbers, one-element tensors, NumPy
        arrays and numbers), and the dtype NumPy's values in it give the tensor, if any."""
        numpy_dtypes: list[np.dtype] = []  # NumPy arrays and numbers keep their dtype (torch's inference)

        def plain(v):
            if isinstance(v, Tensor):
                return v.value.tolist()
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, (np.ndarray, np.generic)):
                if v.dtype.kind not in "biuf":
                    raise ScriptRuntimeError(f"Could not infer dtype of {self.type_name(v)}", "TypeError")
                numpy_dtypes.append(v.dtype)
                return v.tolist()
            if isinstance(v, (int, float, bool)):
                return v
            raise ScriptRuntimeError(f"Could not infer dtype of {self.type_name(v)}", "TypeError")

        if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
            return data.copy(), data.dtype.name
        values = plain(data)
        numpy_dtype = np.result_type(*numpy_dtypes).name if numpy_dtypes else None
        flat, pending = [], [values]
        while pending:
            item = pending.pop()
            if isinstance(item, list):
                pending.extend(item)
            else:
                flat.append(item)
        if not any(isinstance(v, float) for v in flat) and any(
            not isinstance(v, bool) and not -(2**63) <= v < 2**63 for v in flat
        ):
            raise ScriptRuntimeError("Overflow when unpacking long long", "ValueError")
        try:
            array = np.array(values)
        except ValueError:
            raise ScriptRuntimeError("expected sequence of equal-length lists", "ValueError") from None
        return (array.astype(np.float64) if array.dtype.kind in "uO" else array), numpy_dtype

    def construct(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        check_keywords(name, kwargs, _CONSTRUCTOR_KEYWORDS, "torch.")
        if name == "manual_seed" and "seed" in kwargs and not args:
            args = [kwargs.pop("seed")]
        if name in ("no_grad", "enable_grad"):
            return NoGrad(name == "enable_grad")
        if name == "set_grad_enabled":  # switches at once; as a `with`, restores on exit
            before, self.grad_enabled = self.grad_enabled, self.truth(args[0])
            return NoGrad(self.grad_enabled, before)
        if name == "is_grad_enabled":
            return self.grad_enabled
        if name == "set_printoptions":
            names = ("precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode")
            given = dict(zip(names, args)) | kwargs
            if len(args) > len(names) or any(k not in names for k in given):
                raise ScriptRuntimeError("set_printoptions() got an unexpected argument", "TypeError")
            for key in ("precision", "threshold", "edgeitems", "linewidth"):
                value = given.get(key)
                if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                    raise ScriptRuntimeError(f"set_printoptions(): {key} must be a whole number", "TypeError")
            if given.get("precision") is not None and given["precision"] > 100:
                raise ScriptError(
                    f"{source_position(node)}: set_printoptions(precision=...) above 100 is refused"
                )
            try:
                set_print_options(**given)
            except ValueError as exc:
                raise ScriptRuntimeError(str(exc), "ValueError") from None
            return None
        if name == "inference_mode":  # for what a script can see, no_grad
            if args and not self.truth(args[0]) or kwargs.get("mode") is False:
                return NoGrad(self.grad_enabled)
            return NoGrad(False, inference=True)
        if name == "Size":
            if len(args) > 1 or kwargs:
                raise ScriptRuntimeError("Size() takes at most 1 argument", "TypeError")
            sizes = self.sequence_of(args[0]) if args else []
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
                raise ScriptRuntimeError("torch.Size() takes an iterable of 'int'", "TypeError")
            return Size(sizes)
        if name in ("allclose", "isclose", "equal"):
            return closeness(name, args, kwargs)
        if name == "is_tensor":
            return isinstance(args[0], Tensor)
        if name == "numel":
            return int(args[0].value.size)
        if name == "from_numpy":
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError("from_numpy() takes exactly one argument (an ndarray)", "TypeError")
            return self.from_numpy(args[0])
        if name == "as_tensor" and args and isinstance(args[0], np.ndarray):
            dtype = self.dtype_of(kwargs, None)
            self.on_cpu(kwargs.pop("device", None))
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError("as_tensor() takes data, dtype and device", "TypeError")
            return self.from_numpy(args[0], dtype=dtype)
        if name == "as_tensor":
            name = "tensor"  # of other data: a new tensor, as torch.tensor makes it
        if name in ("tensor", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor"):
            if len(args) != 1:
                if name != "tensor" and all(isinstance(a, int) for a in args):
                    raise ScriptError(
                        f"{source_position(node)}: torch.{name}(sizes) is uninitialised memory; "
                        "use torch.zeros(sizes)"
                    )
                raise ScriptRuntimeError(f"{name}() takes 1 positional argument", "TypeError")
            data = args[0]
            if name != "tensor" and isinstance(data, (int, float)) and not isinstance(data, bool):
                if isinstance(data, int):
                    raise ScriptError(
                        f"{source_position(node)}: torch.{name}(n) is uninitialised memory; use torch.zeros(n)"
                    )
                raise ScriptRuntimeError(f"{name}(): argument 'size' must be a tuple of ints", "TypeError")
            array, numpy_dtype = self.data_of(data, node)
            fixed = {
                "Tensor": "float32",
                "FloatTensor": "float32",
                "DoubleTensor": "float64",
                "LongTensor": "int64",
            }.get(name)
            inferred = "bool" if array.dtype == bool else "int64" if array.dtype.kind in "iu" else "float32"
            if numpy_dtype is not None and name == "tensor":
                inferred = self.tensor_dtype_of_numpy(numpy_dtype)
            dtype = self.dtype_of(kwargs, fixed or inferred)
            return self.finish(array, dtype, kwargs, name, node)
        if name in ("zeros", "ones", "empty"):  # torch.empty holds whatever memory held: zeros here
            if not args and "size" in kwargs:  # torch.zeros(size=(2, 1))
                args = [kwargs.pop("size")]
            dtype = self.dtype_of(kwargs, "float32")
            shape = self.sizes(args, node, dtype)
            return self.finish((np.ones if name == "ones" else np.zeros)(shape), dtype, kwargs, name, node)
        if name == "full":
            if len(args) != 2:
                raise ScriptRuntimeError("full() takes a size and a fill_value", "TypeError")
            shape = self.sizes([args[0]], node, None)
            fill = args[1]
            if isinstance(fill, Tensor) and fill.value.ndim == 0:
                fill = self.item(fill)
            if not isinstance(fill, (int, float)):
                raise ScriptRuntimeError(
                    f"full(): argument 'fill_value' (position 2) must be Number, not {self.type_name(fill)}",
                    "TypeError",
                )
            if isinstance(fill, int) and not -(2**63) <= fill < 2**63:
                if fill.bit_length() > 64:
                    raise ScriptRuntimeError("int too big to convert", "OverflowError")
                raise ScriptRuntimeError("value cannot be converted to type int64_t without overflow")
            default = "bool" if isinstance(fill, bool) else "int64" if isinstance(fill, int) else "float32"
            dtype = self.dtype_of(kwargs, default)
            runtime.check_allocation(math.prod(shape), dtype)
            return self.finish(np.full(shape, fill), dtype, kwargs, name, node)
        if name == "eye":
            n, m = (args + [None])[:2] if len(args) <= 2 else (None, None)
            shape = self.sizes([n, n if m is None else m], node)
            return self.finish(np.eye(*shape), self.dtype_of(kwargs, "float32"), kwargs, name, node)
        if name == "arange":
            if not 1 <= len(args) <= 3:
                raise ScriptRuntimeError("arange() takes 1 to 3 numbers", "TypeError")
            values = [self.item(a) if isinstance(a, Tensor) else a for a in args]
            start, end, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
            if not all(isinstance(v, (int, float)) for v in (start, end, step)):
                raise ScriptRuntimeError("arange() received an invalid combination of arguments", "TypeError")
            if not all(math.isfinite(v) for v in (start, end, step)):
                raise ScriptRuntimeError(f"unsupported range: {start} -> {end}")
            if step == 0:
                raise ScriptRuntimeError("step must be nonzero")
            count = max(0, math.ceil((end - start) / step))
            runtime.check_allocation(count, "int64" if all(isinstance(v, int) for v in values) else "float32")
            integral = all(isinstance(v, int) for v in values)
            dtype = self.dtype_of(kwargs, "int64" if integral else "float32")
            kind = dtype if dtype in ("float32", "float64") else "float64"
            array = np.arange(start, end, step) if integral else arange_values(start, end, step, kind)
            return self.finish(array, dtype, kwargs, name, node)
        if name == "linspace":
            if len(args) != 3 and "steps" not in kwargs:
                raise ScriptRuntimeError("linspace() takes start, end and steps", "TypeError")
            steps = args[2] if len(args) > 2 else kwargs.pop("steps")
            self.sizes([steps], node)
            dtype = self.dtype_of(kwargs, "float32")
            kind = dtype if dtype in ("float32", "float64") else "float64"
            return self.finish(linspace_values(args[0], args[1], steps, kind), dtype, kwargs, name, node)
        if name == "logspace":
            own = {k: kwargs.pop(k) for k in ("start", "end", "steps", "base") if k in kwargs}
            given = bind_arguments("logspace", sig("start", "end", "steps", ("base", 10.0)), args, own)
            for key in ("start", "end", "base"):
                if isinstance(given[key], Tensor):
                    given[key] = self.item(given[key])
                if not isinstance(given[key], (int, float)):
                    raise ScriptRuntimeError(
                        f"logspace() received an invalid combination of arguments - got {self.class_name(given[key])} for {key}",
                        "TypeError",
                    )
            if isinstance(given["steps"], int) and given["steps"] < 0:
                raise ScriptRuntimeError("number of steps must be non-negative")
            self.sizes([given["steps"]], node)
            dtype = self.dtype_of(kwargs, "float32")
            values = logspace_values(given["start"], given["end"], given["steps"], given["base"], dtype)
            return self.finish(values, dtype, kwargs, name, node)
        if name == "device":  # torch.device("cpu"), torch.device("cuda" if ... else "cpu"), ("cuda", 1)
            if len(args) == 2 and isinstance(args[0], str) and ":" not in args[0] and not kwargs:
                if not isinstance(args[1], int) or isinstance(args[1], bool) or args[1] < 0:
                    raise ScriptRuntimeError("device() takes a device name and an index such as 0", "TypeError")
                return Device(self.device(args[0]).kind, args[1])
            if len(args) != 1 or kwargs or not isinstance(args[0], (str, int, Device)):
                raise ScriptRuntimeError("device() takes a device name such as 'cpu'", "TypeError")
            return self.device(args[0])
        if name == "manual_seed":
            if len(args) != 1 or not isinstance(args[0], int) or isinstance(args[0], bool):
                raise ScriptRuntimeError("manual_seed() takes one integer seed", "TypeError")
            self.seeded.add("torch")
            try:
                self.torch_generator.manual_seed(args[0])
            except ValueError as exc:
                raise ScriptRuntimeError(str(exc), "RuntimeError") from None
            return None
        if name in ("rand", "randn"):
            if not args and "size" in kwargs:  # torch.randn(size=(), requires_grad=True)
                args = [kwargs.pop("size")]
            shape = self.sizes(args, node, self.dtype_of(dict(kwargs), "float32"))
            values = self.draw(name, shape, self.dtype_of(kwargs, "float32"), kwargs)
            return self.finish(values, str(values.dtype), kwargs, name, node)
        if name in ("rand_like", "randn_like"):
            source = args[0] if args else None
            if not isinstance(source, Tensor):
                raise ScriptRuntimeError(f"{name}(): argument 'input' must be Tensor", "TypeError")
            dtype = self.dtype_of(kwargs, source.dtype)
            values = self.draw(name[:-5], source.shape, dtype, kwargs)
            return self.finish(values, str(values.dtype), kwargs, name, node)
        if name == "randperm":
            if not args or not isinstance(args[0], int) or isinstance(args[0], bool) or len(args) > 1:
                raise ScriptRuntimeError("randperm() takes one integer n here", "TypeError")
            if args[0] < 0:
                raise ScriptRuntimeError(f"n must be non-negative, got{args[0]}")
            self.sizes([args[0]], node, "int64")
            dtype = self.dtype_of(kwargs, "int64")
            generator = self.chosen_generator(kwargs)
            return self.finish(stored(generator.randperm(args[0]), dtype), dtype, kwargs, name, node)
        if name == "normal":
            return self.normal_call(args, kwargs, node)
        if name == "randint":
            # randint(high=5, size=(3,)) and randint(0, high=5, size=...): torch's keywords, in order
            args = [*args, *(kwargs.pop(key) for key in ("low", "high", "size") if key in kwargs)]
            if not 2 <= len(args) <= 3 or not isinstance(args[-1], (tuple, list)):
                raise ScriptRuntimeError("randint() takes (low, high, size) or (high, size)", "TypeError")
            low, high = (self.index_of(v) for v in ((0, args[0]) if len(args) == 2 else (args[0], args[1])))
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)):
                given = ", ".join(self.type_name(a) for a in args)
                raise ScriptRuntimeError(
                    f"randint() received an invalid combination of arguments - got ({given})", "TypeError"
                )
            if any(not -(2**63) <= v < 2**63 for v in (low, high)):
                raise ScriptRuntimeError("Overflow when unpacking long long", "ValueError")
            if high <= low:
                raise ScriptRuntimeError(
                    f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
                )
            shape = self.sizes([args[-1]], node, self.dtype_of(dict(kwargs), "int64"))
            generator = self.chosen_generator(kwargs)
            return self.finish(
                generator.randint(low, high, shape), self.dtype_of(kwargs, "int64"), kwargs, name, node
            )
        if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
            source = args[0] if args else None
            if not isinstance(source, Tensor):
                raise ScriptRuntimeError(f"{name}(): argument 'input' must be Tensor", "TypeError")
            fill = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(
                name, args[1] if len(args) > 1 else kwargs.pop("fill_value", 0)
            )
            dtype = self.dtype_of(kwargs, source.dtype)
            return self.finish(np.full(source.shape, fill), dtype, kwargs, name, node)
        raise ScriptError(f"{source_position(node)}: torch.{name} is not supported")

    # -- tensors: the registry ------------------------------------------------------------

    def apply(self, name: str, operands: list, attrs: dict) -> Tensor:
        _check_unpackable(operands)
        defaults = _DEFAULTS.get(name)
        if defaults is None:
            defaults = _DEFAULTS[name] = {p.name: p.default for p in REGISTRY[name].params}
        full = {**defaults, **attrs}
        return self.rewritten(name, operands, full) or apply_op(name, operands, full, self.grad_enabled)

    def rewritten(self, name: str, operands: list, attrs: dict) -> Tensor | None:
        """The nodes torch records for these shapes where the registry has a rewrite (v @ W,
        A @ B of 3-D: ops/products.py), or None to record the op itself."""
        rewrite = REWRITES.get(name)
        if rewrite is None:
            return None
        return rewrite(
            lambda op_name, *args, **given: self.apply(op_name, list(args), given),
            *operands,
            shapes=tuple(o.shape if isinstance(o, Tensor) else () for o in operands),
            strides=tuple(runtime.element_strides(o) if isinstance(o, Tensor) else None for o in operands),
            grads=tuple(isinstance(o, Tensor) and o.requires_grad for o in operands),
            **attrs,
        )

    def evaluate(self, expr: Any) -> Any:
        """An Apply tree from the binder, with the script's values at its leaves."""
        if isinstance(expr, Apply):
            operands = [self.evaluate(a) for a in expr.args]
            if not any(isinstance(o, Tensor) for o in operands):
                raise ScriptRuntimeError(
                    f"{expr.op}(): argument 'input' must be Tensor, not "
                    f"{self.type_name(operands[0]) if operands else 'nothing'}",
                    "TypeError",
                )
            for position, function, argument in NOT_DIFFERENTIABLE.get(expr.op, ()):
                weight = operands[position] if position < len(operands) else None
                if isinstance(weight, Tensor) and weight.requires_grad and self.grad_enabled:
                    raise ScriptRuntimeError(  # a loss's weight: torch refuses it at the call
                        f"The function '{function}' is not differentiable with respect to argument "
                        f"'{argument}'. This input cannot have requires_grad True."
                    )
            try:
                if expr.subscript is not None and isinstance(operands[0], Tensor):
                    check_subscript(expr.subscript, operands[0].shape)
                return self.rewritten(expr.op, operands, dict(expr.attrs)) or apply_op(
                    expr.op, operands, dict(expr.attrs), self.grad_enabled
                )
            except IndexOutOfRange as exc:
                raise IndexOutOfRange(index_place(exc.message, expr.subscript)) from None
        if isinstance(expr, Num):
            return expr.value
        return expr

    def literal(self, value: Any, mapping: dict, node: ast.AST) -> ast.expr:
        """A value as the binder reads it: a literal, or a placeholder name for a tensor."""
        if isinstance(value, Tensor):
            placeholder = ast.Name(id=f"t{len(mapping)}", ctx=ast.Load())
            mapping[id(placeholder)] = value
            return placeholder
        if isinstance(value, (list, tuple)) and not isinstance(value, Size) or isinstance(value, Size):
            elts = [self.literal(v, mapping, node) for v in value]
            return ast.Tuple(elts=elts, ctx=ast.Load())
        if isinstance(value, (int, float, str, bool)) or value is None:
            constant = ast.Constant(value=value)
            mapping[id(constant)] = value
            return constant
        if isinstance(value, DType):
            raise ScriptError(
                f"{source_position(node)}: dtype= is not supported here; convert with .double() first"
            )
        raise ScriptRuntimeError(f"unsupported argument of type {self.type_name(value)}", "TypeError")

    def registry(
        self, module: str, name: str, receiver: Tensor | None, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        _check_tensor_arguments(name, receiver is not None, args, kwargs, self.type_name)
        misplaced = [i for i, a in enumerate(args) if isinstance(a, DType)] + [
            k for k, v in kwargs.items() if isinstance(v, DType) and k != "dtype"
        ]
        if misplaced:  # a dtype where torch's signature wants a tensor, a number or a dim
            where = misplaced[0]
            place = f"(position {where + 1})" if isinstance(where, int) else f"'{where}'"
            raise ScriptRuntimeError(f"{name}(): argument {place} must not be torch.dtype", "TypeError")
        if "out" in kwargs and receiver is None:  # torch.matmul(a, b, out=c): the result into c
            return self.into_out(
                name, kwargs.pop("out"), self.registry(module, name, None, args, kwargs, node), node
            )
        key = _plan_key(module, name, receiver, args, kwargs)
        planned = _PLANS.get(key) if key is not None else None
        if planned is not None:  # the same call with other tensors: the binder's plan again
            placeholders, operands, build, direct = planned
            tensors: list = []
            _tensors_in([receiver, args, list(kwargs.values())], tensors)
            if direct is not None and name != "batch_norm":  # one registry op over the call's tensors
                op_name, picks, attrs, kinds = direct
                if kinds == _kinds(tensors):  # what the binder may have read of them
                    return apply_op(op_name, [tensors[k] for k in picks], dict(attrs), self.grad_enabled)
            mapping = {id(p): t for p, t in zip(placeholders, tensors, strict=True)}
            result = self.evaluate(build(*[_bound(mapping, o) for o in operands]))
            if name == "batch_norm" and receiver is None:
                self.update_running_stats(args, kwargs)
            return result
        mapping: dict[int, Any] = {}
        if receiver is not None:
            func: ast.expr = ast.Attribute(
                value=self.literal(receiver, mapping, node), attr=name, ctx=ast.Load()
            )
        else:
            func = ast.Attribute(value=_dotted(module), attr=name, ctx=ast.Load())
        call = ast.Call(
            func=func,
            args=[self.literal(a, mapping, node) for a in args],
            keywords=[ast.keyword(arg=k, value=self.literal(v, mapping, node)) for k, v in kwargs.items()],
        )
        for child in ast.walk(call):
            child.lineno, child.col_offset = node.lineno, node.col_offset
            child.end_lineno, child.end_col_offset = node.end_lineno, node.end_col_offset
        self.binder.operations = 0
        receivers = [func.value] if receiver is not None else []
        if returns_pair(name, call, receivers):
            parts = []  # (values, indices), each by the binder as x.max(dim).values / .indices
            for part in (0, 1):
                operands, build = self.binder.plan_call(call, node.lineno, node.col_offset + 1, part=part)
                parts.append(self.evaluate(build(*[_bound(mapping, o) for o in operands])))
            return Picked(parts, name)
        operands, build = self.binder.plan_call(call, node.lineno, node.col_offset + 1)
        if key is not None:
            if len(_PLANS) >= _MOST_PLANS:
                _PLANS.clear()
            placeholders = [n for n in ast.walk(call) if id(n) in mapping and isinstance(mapping[id(n)], Tensor)]
            placeholders.sort(key=lambda n: int(n.id[1:]))  # type: ignore[attr-defined]  (t0, t1, ... as made)
        values = [_bound(mapping, o) for o in operands]
        expression = build(*values)
        if key is not None:
            tensors = [mapping[id(n)] for n in placeholders]
            _PLANS[key] = (placeholders, operands, build, _direct(expression, tensors))
        result = self.evaluate(expression)
        if name == "batch_norm" and receiver is None:
            self.update_running_stats(args, kwargs)
        return result

    def update_running_stats(self, args: list, kwargs: dict) -> None:
        """F.batch_norm(x, running_mean, running_var, training=True) writes the batch's stats into
        the caller's buffers in place, as torch does (the op itself takes them as constants)."""
        from ..ops.batch_norm import update_running_stats

        names = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")
        given = dict(zip(names, args)) | kwargs
        x, rm, rv = given.get("input"), given.get("running_mean"), given.get("running_var")
        if not given.get("training") or not isinstance(x, Tensor):
            return
        buffers = [t if isinstance(t, Tensor) else None for t in (rm, rv)]
        if not any(buffers):
            return
        new = update_running_stats(
            x.value, *(None if t is None else t.value for t in buffers), float(given.get("momentum", 0.1))
        )
        for buffer, values in zip(buffers, new, strict=True):
            if buffer is not None:
                buffer.assign(values)
