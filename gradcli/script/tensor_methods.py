"""Tensors' attributes and methods in `run`: indexing and item assignment, in-place writes (with the
nodes and version counters torch records for them), conversions, and the methods the interpreter
answers itself; every other method goes to the registry through the torch namespace."""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import re
from typing import Any

import numpy as np

from ..errors import GradcliError
from ..ops import NOT_METHODS, strides
from ..ops.core import Op
from ..ops.index_ops import check_index_bounds, same_dtypes
from . import runtime
from .classes import Instance
from .runtime import (
    LEAF_IN_PLACE,
    NO_GRAD_VIEW,
    NON_LEAF_GRAD,
    VIEW_OF_LEAF,
    ScriptError,
    ScriptRuntimeError,
    Tensor,
    source_position,
)
from .torch_api import PIECE_CALLS, POSITION_CALLS, TORCH_TYPE_NAMES, check_keywords, closeness, dim_index
from .values import UNNAMED_BY_VMAP, Device, DType, Method, Size
from .writes import COPY_SLICES, VIEW_AFTER_WRITE, no_rule_in_place, not_implemented_in_place, through_view

_IN_PLACE_METHODS = {"add_": "add", "sub_": "sub", "mul_": "mul", "div_": "div", "pow_": "pow"}
# Registry records torch has no in-place variant of (no Tensor.maximum_, Tensor.isnan_, ...)
_NO_IN_PLACE = frozenset({"clone", "maximum", "minimum", "all", "any", "bool", "isfinite", "isinf", "isnan"})
# Records whose result has the operand's shape though they are not marked elementwise
_SHAPED_IN_PLACE = (
    "clamp", "clip", "clamp_min", "clamp_max", "round", "nan_to_num", "masked_fill", "tril", "triu",
    "cumsum", "cumprod",
)  # fmt: skip


def _in_place_calls() -> dict[str, str]:
    """x.sin_(), x.clamp_(min=0), x.gt_(0), ...: every method spelling of an elementwise record
    (and of the shape-keeping ones above) has torch's in-place variant, written into x."""
    from ..ops import REGISTRY, TORCH_SPELLINGS

    table = {}
    for name, spelling in TORCH_SPELLINGS.items():
        op = REGISTRY.get(spelling.op)
        if op is None or name in NOT_METHODS or f"{name}_" in _IN_PLACE_METHODS or op.name in _NO_IN_PLACE:
            continue
        if op.elementwise or op.gives_mask or name in _SHAPED_IN_PLACE:
            table[f"{name}_"] = name
    return table


_IN_PLACE_CALLS = _in_place_calls()
_DTYPE_RANK = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
_CLAMPS = ("clamp", "clip", "clamp_min", "clamp_max")
_CPP_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "int64": "long int",
    "int32": "int",
    "bool": "bool",
}


def _differentiable(name: str) -> bool:
    from ..ops import REGISTRY, TORCH_SPELLINGS

    return REGISTRY[TORCH_SPELLINGS[name].op].differentiable


# x.gt_(0) of a tensor in a graph is GtBackward0 in torch (a zero gradient): not recorded here
_DIFFERENTIABLE_CALLS = frozenset(n for n in _IN_PLACE_CALLS.values() if _differentiable(n))


def _arity(name: str) -> int:
    from ..ops import REGISTRY, TORCH_SPELLINGS

    spelling = TORCH_SPELLINGS[name]
    return REGISTRY[spelling.op].arity - len(spelling.numbers)


# The in-place view ops: x.unsqueeze_(0) changes x's shape (not its elements) and its grad_fn
# (torch's in-place overloads: UnsqueezeBackward1, SqueezeBackward3/4/5, TBackward1, ...).
_IN_PLACE_VIEWS = {"unsqueeze_": 1, "squeeze_": 3, "t_": 1, "transpose_": 1}
# torch.sin_(x), torch.relu_(x), ...: the functions torch has for in-place calls (the unary
# ones); python.dispatch sends a call of one to tensor_method(x, name, ...).
_NO_TORCH_FUNCTION = ("sign", "cumsum", "cumprod", "tril", "triu", "logical_not", "bitwise_not", "absolute", "erfinv")
TORCH_IN_PLACE_FUNCTIONS = frozenset(
    name
    for name, op_name in _IN_PLACE_CALLS.items()
    if _arity(op_name) == 1 and op_name not in _NO_TORCH_FUNCTION
)
_FALSE_PROPERTIES = {
    "is_cuda",
    "is_sparse",
    "is_quantized",
    "is_meta",
    "is_mps",
    "is_nested",
    "is_mkldnn",
    "is_complex",
}
# x.float(), x.half(), x.short(), ...: the dtype each converts to (to and type take one)
_CONVERSIONS = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
    "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool", "to": None, "type": None,
}  # fmt: skip
# Tensor methods the interpreter handles itself (the rest go to the registry's spellings)
_OWN_TENSOR_METHODS = {
    "backward", "copy_", "detach", "detach_", "is_contiguous", "item", "numpy", "register_hook",
    "register_post_accumulate_grad_hook", "requires_grad_", "retain_grad", "size", "stride", "to",
    "tolist", "zero_", "fill_", "cpu", "cuda", "dim", "ndimension", "float", "double", "long", "int",
    "half", "bfloat16", "short", "char", "byte",
    "bool", "type", "numel", "nelement", "scatter_", "scatter", "equal", "allclose", "isclose",
    "element_size", "is_floating_point",
}  # fmt: skip


@functools.cache
def tensor_method_names() -> frozenset[str]:
    """Every name x.NAME(...) may call: the interpreter's own and the registry's methods."""
    from ..ops import TORCH_SPELLINGS

    return frozenset(
        _OWN_TENSOR_METHODS
        | set(_IN_PLACE_CALLS)
        | set(_IN_PLACE_VIEWS)
        | set(_IN_PLACE_METHODS)
        | set(PIECE_CALLS)
        | set(POSITION_CALLS)
        | {f"{name}_" for name in _INDEX_WRITES}
        | {name for name in TORCH_SPELLINGS if name not in NOT_METHODS}
    )


# The keywords torch takes for calls the interpreter answers itself (None: none at all, in
# the words of a C method that takes no keywords); a call not listed is checked elsewhere.
_METHOD_KEYWORDS: dict[str, tuple[str, ...] | None] = {
    **dict.fromkeys(
        (
            "detach",
            "detach_",
            "dim",
            "item",
            "ndimension",
            "nelement",
            "numel",
            "retain_grad",
            "tolist",
            "zero_",
        ),
        None,
    ),
    "numpy": ("force",),
    "requires_grad_": ("requires_grad",),
    "copy_": ("src", "non_blocking"),
}


# An index's plan (the nodes torch records for it) by the key's form: its numbers, slices and
# where its tensors sit. Building the plan parses a synthetic subscript, which costs more than
# the op itself; a training loop indexes with the same forms again and again.
_INDEX_PLANS: dict[tuple, tuple] = {}


def _index_signature(elements: tuple, is_tuple: bool, tensors: list) -> tuple | None:
    """The key's form as index_literal reads it (None: a form not worth keeping), its tensors
    appended to `tensors` in the order index_literal meets them."""

    def form(k: Any) -> Any:
        if isinstance(k, Tensor):
            tensors.append(k)
            return Tensor
        if type(k) is int or k is None or k is Ellipsis:
            return k
        if type(k) is slice:
            if not all(v is None or type(v) is int for v in (k.start, k.stop, k.step)):
                raise TypeError
            return (slice, k.start, k.stop, k.step)
        if type(k) in (list, tuple) and len(k) <= 16:
            return (list, *(form(v) for v in k))
        raise TypeError

    try:
        return (is_tuple, *(form(k) for k in elements))
    except TypeError:
        tensors.clear()
        return None


def _index_lists(elements: tuple) -> tuple:
    """x[range(n), y] and x[torch.arange(n), y] as torch reads them: a range is its list of
    integers, and where several 1-D integer tensors index at once (the binder records one
    index node with at most one tensor operand), their values, known by now, become lists.
    The node is the same IndexBackward0 either way; only where the values came from differs."""
    elements = tuple(list(e) if isinstance(e, range) else e for e in elements)
    tensors = [e for e in elements if isinstance(e, Tensor)]
    if len(tensors) < 2:
        return elements
    return tuple(
        e.value.tolist()
        if isinstance(e, Tensor) and e.dtype in ("int64", "int32") and e.value.ndim == 1
        else e
        for e in elements
    )


_INDEX_WRITES = ("index_add", "index_copy", "index_fill")


@functools.cache
def _unique_op(kernel: str) -> Op:
    """torch.unique's node: derivatives.yaml has no formula for _unique2 / unique_dim, so its
    backward is torch's NotImplementedError."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ScriptRuntimeError(f"the derivative for '{kernel}' is not implemented.", "NotImplementedError")

    return Op(
        name=kernel,
        syntax="torch.unique(x)",
        forward=refuse,
        vjp=(refuse,),
        sympy=refuse,
        grad_fn="Unique2Backward0" if kernel == "_unique2" else "UniqueDimBackward0",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        infer_shape=lambda a, shape=(): shape,
    )


def _is_float(value: Any) -> bool:
    return isinstance(value, Tensor) and value.dtype in ("float32", "float64")


def _as_tuple(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


class TensorMethods:
    """Mixed into Interpreter: a tensor's attributes, methods, indexing and in-place writes."""

    def tensor_attribute(self, t: Tensor, name: str, node: ast.AST) -> Any:
        if name in ("normal_", "uniform_"):
            return Method(t, name)
        if t.stale_view and not t.view_of.steps and name in ("grad_fn", "requires_grad", "is_leaf", "grad"):
            t.refresh_view()  # PyTorch regenerates a view's grad_fn after its base changed in place
        if name == "grad":
            if not t.is_leaf and not t.retains_grad:
                self.warn(NON_LEAF_GRAD)
            return t._grad
        if name == "requires_grad":
            return t.requires_grad
        if name == "is_leaf":
            return t.is_leaf
        if name == "grad_fn" and t.__dict__.get("vmapped") and t.grad_fn is not None:
            raise ScriptError(f"{source_position(node)}: {UNNAMED_BY_VMAP}")
        if name == "grad_fn":
            return t.grad_fn
        if name == "data":
            return Tensor.alias(t, share_version=False)  # changes through .data go unseen by autograd
        if name == "shape":
            return Size(t.shape)
        if name == "dtype":
            return DType(t.dtype)
        if name == "ndim":
            return t.value.ndim
        if name == "device":
            return Device()
        if name == "T" or (name == "mT" and t.value.ndim <= 2):
            return self.apply("T", [t], {})
        if name == "mT":  # the last two dims of a batch: transpose(-2, -1)
            return self.apply("transpose", [t], {"dim0": -2, "dim1": -1})
        if name == "_version":  # the version counter: in-place writes to this tensor or its views
            if t.inference:
                raise ScriptRuntimeError("Inference tensors do not track version counter.")
            return t.version.value
        if name in _FALSE_PROPERTIES:  # a CPU tensor, dense, not quantized
            return False
        if name == "itemsize":
            return 2 if t.dtype == "bfloat16" else t.value.itemsize
        if name == "nbytes":
            return t.value.nbytes
        if name == "_base":  # the tensor a view was taken of (None for detach() and .data)
            return t.view_of
        if name not in tensor_method_names():
            # never a bound method to print or test for truth: x.is_cuda must not read as True
            raise ScriptError(
                f"{source_position(node)}: x.{name} is not supported by gradcli run (see 'gradcli ops')"
            )
        return Method(t, name)

    def set_attribute(self, owner: Any, name: str, value: Any, node: ast.AST) -> None:
        if isinstance(owner, Instance):
            return self.set_object_attribute(owner, name, value, node)
        if not isinstance(owner, Tensor):
            raise ScriptError(
                f"{source_position(node)}: only a tensor's .grad, .requires_grad and .data can be set"
            )
        if name == "grad":
            if value is not None:
                if not isinstance(value, Tensor):
                    raise ScriptRuntimeError(
                        "assigned grad expected to be a Tensor or None but got grad of "
                        f"type {self.type_name(value)}",
                        "TypeError",
                    )
                if value.shape != owner.shape:
                    raise ScriptRuntimeError("assigned grad has data of a different size")
            owner._grad = value
        elif name == "requires_grad":
            owner.set_requires_grad(self.truth(value))
        elif name == "data":
            if not isinstance(value, Tensor):
                raise ScriptRuntimeError("data must be a Tensor", "TypeError")
            owner.rebind(value)
        else:
            raise ScriptError(
                f"{source_position(node)}: only a tensor's .grad, .requires_grad and .data can be set"
            )

    def index_tensor(self, t: Tensor, index: int, node: ast.AST | None) -> Tensor:
        return self.apply("select", [t], {"dim": 0, "index": index})

    def index_by(self, owner: Any, key: Any, node: ast.AST) -> Any:
        """owner[key], the key evaluated."""
        if isinstance(owner, Tensor):
            mapping: dict[int, Any] = {}
            elements: tuple = ()
            if isinstance(key, Tensor) and key.dtype == "bool" and key.value.ndim > 1:
                # x[mask2d]: the masked dims merged into one, then one index (as torch does inside)
                k = key.value.ndim
                merged = (math.prod(owner.shape[:k]), *owner.shape[k:])
                if tuple(owner.shape[:k]) == key.shape:
                    owner = self.apply("reshape", [owner], {"shape": merged})
                    key = Tensor(np.flatnonzero(key.value), dtype="int64")
            for element in _as_tuple(key):  # x[mask] is x[mask.nonzero()], one index per mask dim
                if isinstance(element, Tensor) and element.dtype == "bool":
                    elements += tuple(Tensor(i, dtype="int64") for i in np.nonzero(element.value))
                else:
                    elements += (element,)
            elements = _index_lists(elements)
            if len(elements) != 1:
                key = elements
            given: list[Tensor] = []  # the key's tensors, in the order index_literal meets them
            signature = _index_signature(elements, isinstance(key, tuple), given)
            plan = _INDEX_PLANS.get(signature) if signature is not None else None
            if plan is None:
                parts = [self.index_literal(k, mapping, node) for k in elements]
                slice_node = ast.Tuple(elts=parts, ctx=ast.Load()) if isinstance(key, tuple) else parts[0]
                synthetic = ast.Subscript(
                    value=ast.Name(id="x", ctx=ast.Load()), slice=slice_node, ctx=ast.Load()
                )
                for child in ast.walk(synthetic):
                    child.lineno, child.col_offset = node.lineno, node.col_offset
                self.binder.operations = 0
                children, build = self.binder.plan_subscript(synthetic, node.lineno, node.col_offset + 1)
                order = list(mapping)  # the placeholders in the order index_literal made them
                given = list(mapping.values())
                plan = (tuple(order.index(id(c)) for c in children[1:]), build)
                if signature is not None:
                    runtime.remember(_INDEX_PLANS, signature, plan)
            positions, build = plan
            return self.evaluate(build(owner, *(given[p] for p in positions)))
        if isinstance(owner, dict):
            return self.python(lambda: owner[key])
        if isinstance(owner, Instance):
            return self.object_item(owner, key, node)
        if isinstance(owner, (list, tuple, str)):
            if isinstance(key, Tensor) and key.dtype in ("int64", "int32") and key.value.size == 1:
                key = int(key.value.reshape(()).item())  # a 0-dim integer tensor is an index (__index__)
            if not isinstance(key, (int, slice)) or isinstance(key, bool):
                raise ScriptRuntimeError(
                    f"{self.type_name(owner)} indices must be integers or slices", "TypeError"
                )
            result = self.python(lambda: owner[key])
            return Size(result) if isinstance(owner, Size) and isinstance(key, slice) else result
        raise ScriptRuntimeError(f"'{self.type_name(owner)}' object is not subscriptable", "TypeError")

    def index_literal(self, key: Any, mapping: dict, node: ast.AST) -> ast.expr:
        if isinstance(key, slice):

            def const(v):
                return None if v is None else ast.Constant(value=v)

            return ast.Slice(lower=const(key.start), upper=const(key.stop), step=const(key.step))
        if key is Ellipsis or key is None:
            return ast.Constant(value=key)
        if isinstance(key, bool):
            raise ScriptError(f"{source_position(node)}: indexing with True/False is not supported")
        if isinstance(key, int):
            return ast.Constant(value=key)
        if isinstance(key, (list, tuple, range)):
            return ast.List(elts=[self.index_literal(k, mapping, node) for k in key], ctx=ast.Load())
        if isinstance(key, Tensor):
            placeholder = ast.Name(id=f"i{len(mapping)}", ctx=ast.Load())
            mapping[id(placeholder)] = key
            return placeholder
        raise ScriptRuntimeError("only integers, slices, lists and tensors can index a tensor", "IndexError")

    def set_item_at(self, owner: Any, key: Any, value: Any) -> None:
        """owner[key] = value, the key evaluated."""
        if not isinstance(owner, Tensor):
            raise ScriptRuntimeError(
                f"'{self.type_name(owner)}' object does not support item assignment", "TypeError"
            )
        recording = self.grad_enabled and (
            owner.requires_grad or isinstance(value, Tensor) and value.requires_grad
        )
        # x[0] = v is x[0].copy_(v): an in-place op on a view; x[[0]] = v is index_put_ on x
        basic = all(isinstance(k, (int, slice)) or k is None or k is Ellipsis for k in _as_tuple(key))
        self.check_in_place(owner, recording, through_view=basic)
        if runtime.DUAL_HOOKS and (owner.tangent is not None or isinstance(value, Tensor) and value.tangent is not None):
            raise ScriptError(f"line {self.line}: {runtime.DUAL_WRITE}")
        index = self.numpy_index(key)
        if recording:
            name = "CopySlices" if basic or owner.view_of is not None else "IndexPutBackward0"
            self.record_write(owner, index, value, name)
            return
        if isinstance(value, Tensor):
            value = value.value.astype(owner.dtype, copy=False)
        self.write_elements(owner, value, index)

    def write_elements(self, owner: Tensor, value: Any, index: Any) -> None:
        """owner[index] = value in NumPy, its errors in torch's words (dimension, not axis)."""
        try:
            self.python(lambda: owner.write(value, index))
        except ScriptRuntimeError as exc:
            exc.message = re.sub(
                r"out of bounds for axis (\d+)", r"out of bounds for dimension \1", exc.message
            )
            raise

    def record_write(self, owner: Tensor, index: Any, value: Any, name: str) -> None:
        """An in-place write that autograd records: `owner[index] = value` (owner itself or a
        view of it). The base tensor's grad_fn becomes `name` (CopySlices; IndexPutBackward0
        for advanced indexing), with the old base and the written values as inputs; a view
        that was written through reads its region out of the new base (AsStridedBackward0)."""
        base = owner.view_of if owner.view_of is not None else owner
        if base.steps and owner is not base:
            raise ScriptError(
                f"line {self.line}: a recorded in-place write into a view of a tensor whose own layout was "
                "changed in place (t_, unsqueeze_, ...) or that was made by .data or detach() is not "
                "supported yet"
            )
        steps = owner.steps if owner is not base else ()
        old = base.snapshot()  # marks the array recorded, so the write below copies it first
        source = value.snapshot() if isinstance(value, Tensor) else float(value)
        written = value.value.astype(owner.dtype, copy=False) if isinstance(value, Tensor) else value
        self.write_elements(owner, written, index)
        attrs = {"steps": steps, "index": index, "shape": base.shape}
        self.install_write(base, owner, runtime.Fn(COPY_SLICES, name, attrs, (old, source), base.value))

    def numpy_index(self, key: Any) -> Any:
        if isinstance(key, tuple):
            return tuple(self.numpy_index(k) for k in key)
        if isinstance(key, Tensor):
            return key.value
        if isinstance(key, (int, slice, list)) or key is None or key is Ellipsis:
            return key
        if isinstance(key, range):  # d[range(n), y] = v, as reading d[range(n), y] takes it
            return list(key)
        raise ScriptRuntimeError("only integers, slices, lists and tensors can index a tensor", "IndexError")

    # -- tensors: methods -----------------------------------------------------------------

    def item(self, t: Tensor) -> Any:
        if t.value.size != 1:
            raise ScriptRuntimeError(f"a Tensor with {t.value.size} elements cannot be converted to Scalar")
        return t.value.reshape(()).item()

    def check_in_place(self, t: Tensor, recording: bool, through_view: bool = False) -> None:
        """PyTorch's refusals of an in-place op, in its words."""
        if not self.grad_enabled:
            return
        base = t.view_of
        if base is not None and not t.view_grad_mode and base.requires_grad:
            if through_view:
                raise ScriptRuntimeError(
                    "Output 0 of Select is a view of a view which was created in no_grad mode and is "
                    + NO_GRAD_VIEW[len("A view was created in no_grad mode and is ") :]
                )
            raise ScriptRuntimeError(NO_GRAD_VIEW)
        if t.is_leaf and t.requires_grad:  # torch words it by whether the leaf is itself a view
            raise ScriptRuntimeError(VIEW_OF_LEAF if through_view or base is not None else LEAF_IN_PLACE)
        if base is not None and base.is_leaf and base.requires_grad:
            raise ScriptRuntimeError(VIEW_OF_LEAF)

    def in_place(self, t: Tensor, name: str, other: Any, alpha: Any = None) -> Tensor:
        recording = self.grad_enabled and (
            t.requires_grad or isinstance(other, Tensor) and other.requires_grad
        )
        self.check_in_place(t, recording)
        if alpha is not None:
            other = self.apply("mul", [other, alpha], {}) if isinstance(other, Tensor) else other * alpha
        return self.write_in_place(t, self.apply(name, [t, other], {}))

    def scatter(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Tensor:
        """x.scatter_(dim, index, src or value), as one-hot targets are built: values written
        at index along dim. Only where no gradient is involved (ScatterBackward is not here)."""
        given = dict(zip(("dim", "index", "src"), args)) | kwargs
        if len(args) > 3 or any(k not in ("dim", "index", "src", "value") for k in given):
            raise ScriptRuntimeError(
                f"{name}() got an unexpected argument (reduce= is not supported)", "TypeError"
            )
        dim, index, src = given.get("dim"), given.get("index"), given.get("src", given.get("value"))
        tensors = [v for v in (t, src) if isinstance(v, Tensor)]
        if name == "scatter_":
            self.check_in_place(t, self.grad_enabled and t.requires_grad)
        if self.grad_enabled and any(v.requires_grad for v in tensors):
            raise ScriptError(
                f"{source_position(node)}: {name}() of a tensor that requires grad is not supported yet"
            )
        if not isinstance(dim, int) or not isinstance(index, Tensor):
            raise ScriptRuntimeError(f"{name}() takes (dim, index, src or value)", "TypeError")
        if index.dtype not in ("int64", "int32"):
            raise ScriptRuntimeError("scatter(): Expected dtype int32/int64 for index")
        if index.value.ndim != max(t.value.ndim, 1):
            raise ScriptRuntimeError("Index tensor must have the same number of dimensions as self tensor")
        axis = dim_index(dim, max(t.value.ndim, 1))
        positions = index.value.astype(np.int64)
        size = t.shape[axis] if t.shape else 1
        outside = positions[(positions < 0) | (positions >= size)]
        if outside.size:
            raise ScriptRuntimeError(
                f"index {int(outside.flat[0])} is out of bounds for dimension {axis} with size {size}"
            )
        array = t.value.copy()
        if isinstance(src, Tensor):
            values = src.value[tuple(slice(0, n) for n in positions.shape)].astype(array.dtype)
        else:
            values = np.asarray(src).astype(array.dtype)
        self.python(lambda: np.put_along_axis(array, positions, values, axis=axis))
        if name == "scatter":
            return Tensor(array, dtype=t.dtype)
        self.python(lambda: t.write(array))
        return t

    def into_out(self, name: str, out: Any, result: Any, node: ast.AST) -> Tensor:
        """out=: the result's values written into `out`, which torch returns; no autograd."""
        if not isinstance(out, Tensor) or not isinstance(result, Tensor):
            raise ScriptRuntimeError(f"{name}(): argument 'out' must be Tensor", "TypeError")
        if self.grad_enabled and (result.requires_grad or out.requires_grad):
            raise ScriptRuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                "but one of the arguments requires grad."
            )
        if _DTYPE_RANK[result.dtype] > _DTYPE_RANK[out.dtype]:
            raise ScriptRuntimeError(
                f"result type {TORCH_TYPE_NAMES[result.dtype]} can't be cast to the desired output type "
                f"{TORCH_TYPE_NAMES[out.dtype]}"
            )
        if out.shape != result.shape:
            raise ScriptError(
                f"{source_position(node)}: out= of another shape than the result is not supported"
            )
        self.check_in_place(out, False)
        self.python(lambda: out.write(result.value.astype(out.dtype)))
        return out

    def write_in_place(self, t: Tensor, result: Tensor, name: str = "") -> Tensor:
        """An in-place op's result written into t, with the node torch records for it."""
        if result.shape != t.shape:
            raise ScriptRuntimeError(
                f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(result.shape)}"
            )
        if _DTYPE_RANK[result.dtype] > _DTYPE_RANK[t.dtype]:  # x.sin_() of an int tensor
            # clamp's kernel names the output type as C++ does (long int)
            clamping = name in _CLAMPS
            names = _CPP_TYPE_NAMES if clamping else TORCH_TYPE_NAMES
            raise ScriptRuntimeError(
                f"result type {TORCH_TYPE_NAMES[result.dtype]} can't be cast to the desired output type "
                f"{names[t.dtype]}"
            )
        fn = result.grad_fn
        if fn is not None and fn.op.name in ("acosh", "asinh", "atanh"):  # AcoshBackward1, which raises
            fn.op = not_implemented_in_place(fn.op)
            fn.name = fn.op.grad_fn
        if fn is not None and fn.name == "NotImplemented":  # aten::floor_divide_ has no derivative
            fn.op = no_rule_in_place(fn.op)
        if fn is not None:  # PyTorch saves a clone of self for an in-place op's own backward
            first = fn.operands[0]
            fn.operands = (dataclasses.replace(first, version=None),) + fn.operands[1:]
        if fn is not None and t.view_of is not None:  # through a view: the base gets CopySlices
            first = fn.operands[0]
            if isinstance(first, runtime.Operand) and first.tensor is t:
                self.record_op_on_view(t, result)
            else:
                self.record_write(t, Ellipsis, result, "CopySlices")
            return t
        tangent = self.dual_written(t, result)
        t.assign(result.value)
        if tangent is not None:
            self.give_tangent(t, tangent)
        if fn is not None:
            t.grad_fn, t.requires_grad = fn, True
            fn.output = (t.version, t.version.value)
            fn.out = result.value
            t.autograd_writes += 1  # views of t taken before now have a stale grad_fn
        return t

    def record_op_on_view(self, t: Tensor, result: Tensor) -> None:
        """`v.mul_(w)` on a view v of y: y's grad_fn becomes CopySlices holding the op's node,
        which torch lists as y's old grad_fn then the op's other inputs (w), and whose
        backward is the op's own rule on the view's region."""
        base = t.view_of
        assert base is not None and result.grad_fn is not None
        if base.steps:
            raise ScriptError(
                f"line {self.line}: an in-place op on a view of a tensor whose own layout was changed "
                "in place (t_, unsqueeze_, ...) or that was made by .data or detach() is not supported yet"
            )
        inner = result.grad_fn
        old = base.snapshot()
        old = dataclasses.replace(old, version=None)  # the op saved a clone of the region it read
        self.write_elements(t, result.value.astype(t.dtype, copy=False), Ellipsis)
        attrs = {"steps": t.steps, "index": Ellipsis, "shape": base.shape, "inner": inner.op}
        attrs["inner_attrs"] = dict(inner.attrs)
        attrs["no_rule"] = inner.name == "NotImplemented"  # floor_divide_: backward raises
        fn = runtime.Fn(through_view(inner.op), "CopySlices", attrs, (old, *inner.operands[1:]), base.value)
        self.install_write(base, t, fn)

    def install_write(self, base: Tensor, owner: Tensor, fn: runtime.Fn) -> None:
        """A recorded write's node on the base; a view written through reads its region out of
        the new base (AsStridedBackward0)."""
        base.grad_fn, base.requires_grad = fn, True
        fn.output = (base.version, base.version.value)
        base.version.recorded = True
        base.autograd_writes += 1  # views taken before now have a stale grad_fn
        if owner is not base:
            attrs = {"steps": owner.steps, "index": Ellipsis, "shape": owner.shape}
            view_fn = runtime.Fn(
                VIEW_AFTER_WRITE, "AsStridedBackward0", attrs, (base.snapshot(),), owner.value
            )
            owner.grad_fn, owner.requires_grad = view_fn, True
            view_fn.output = (owner.version, owner.version.value)
            owner.view_writes = base.autograd_writes

    def view_in_place(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Tensor:
        """x.unsqueeze_(0), x.t_(), ...: x takes the view's shape and strides (its elements stay),
        its version moves on, and its grad_fn is the view op's in-place overload."""
        self.check_in_place(t, self.grad_enabled and t.requires_grad)
        try:
            result = self.registry("", name[:-1], t, args, kwargs, node)
        except GradcliError as exc:  # t() expects ...: torch names the in-place call
            exc.message = re.sub(rf"^{name[:-1]}\(\)", f"{name}()", exc.message)
            raise
        if not isinstance(result, Tensor) or result.storage is not t.storage:
            raise ScriptError(f"{source_position(node)}: x.{name}() of this tensor is not supported yet")
        t.steps, t._generation = result.steps, -1
        t.version.value += 1
        fn = result.grad_fn
        if fn is not None:
            number = int(re.search(r"\d+$", fn.name).group()) + _IN_PLACE_VIEWS[name]
            fn.name = re.sub(r"\d+$", str(number), fn.name)
            t.grad_fn, t.requires_grad = fn, True
            fn.output = (t.version, t.version.value)
        return t

    def index_write(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Tensor:
        """x.index_add(dim, index, source, alpha=), x.index_copy(...), x.index_fill(dim, index,
        value) and their in-place forms: the registry's record, written into x for the latter
        (the node and version counter of write_in_place, CopySlices through a view)."""
        op_name = name.rstrip("_")
        given = dict(zip(("dim", "index", "value" if op_name == "index_fill" else "source"), args)) | kwargs
        index, other = given.get("index"), given.get("source", given.get("value"))
        missing = [k for k in ("dim", "index", "value" if op_name == "index_fill" else "source") if k not in given]
        if missing:  # torch's argument parser, before anything else
            listed = ", ".join(f'"{k}"' for k in missing)
            raise ScriptRuntimeError(
                f"{name}() missing {len(missing)} required positional argument: {listed}", "TypeError"
            )
        if isinstance(index, Tensor):  # the exact dtypes (the registry's forward sees them widened)
            dim = given.get("dim")
            if isinstance(dim, int) and not isinstance(dim, bool):  # torch checks dim first
                dim = dim_index(dim, max(t.value.ndim, 1))
            same_dtypes(op_name, t.value, index.value, other.value if isinstance(other, Tensor) else other)
        if name.endswith("_"):
            tensors = [a for a in (t, other) if isinstance(a, Tensor)]
            self.check_in_place(t, self.grad_enabled and any(a.requires_grad for a in tensors))
        try:
            result = self.registry("", op_name, t, args, kwargs, node)
        except GradcliError as exc:  # torch names the in-place call: index_add_()
            if "out of bounds for dimension" in exc.message and isinstance(index, Tensor):
                # the index's exact integers (the forward saw them as floats: 10**12 rounded)
                dim = dim_index(given["dim"], max(t.value.ndim, 1))
                size = t.shape[dim] if t.shape else 1
                check_index_bounds(op_name, index.value, size, dim, given.get("alpha", 1), t.value.ndim)
            if name.endswith("_"):
                exc.message = re.sub(rf"^{op_name}\(\)", f"{name}()", exc.message)
            raise
        return self.write_in_place(t, result, op_name) if name.endswith("_") else result

    def unique(self, t: Tensor, args: list, kwargs: dict, method: bool = False) -> Any:
        """torch.unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None)
        and x.unique(...): sorted values (torch's CPU kernel sorts even for sorted=False), with
        the inverse indices and counts when asked, as a tuple. A float input in a graph gives
        Unique2Backward0 (UniqueDimBackward0 with dim), whose backward torch has no formula for."""
        names = ("sorted", "return_inverse", "return_counts", "dim")
        if len(args) > len(names):
            caller = "Tensor.unique()" if method else "_return_output()"
            raise ScriptRuntimeError(
                f"{caller} takes from 1 to 5 positional arguments but {len(args) + 1} were given", "TypeError"
            )
        for key in kwargs:
            if key not in names or key in names[: len(args)]:
                caller = "Tensor.unique()" if method else "_return_output()"
                word = "got multiple values for argument" if key in names else "got an unexpected keyword argument"
                raise ScriptRuntimeError(f"{caller} {word} '{key}'", "TypeError")
        given = {"sorted": True, "return_inverse": False, "return_counts": False, "dim": None}
        given |= dict(zip(names, args)) | kwargs
        dim = given["dim"]
        kernel = "_unique2" if dim is None else "unique_dim"
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise ScriptRuntimeError(
                f"unique_dim(): argument 'dim' (position 2) must be int, not {self.type_name(dim)}", "TypeError"
            )
        for key in names[:3]:
            if not isinstance(given[key], bool):
                raise ScriptRuntimeError(
                    f"{kernel}(): argument '{key}' must be bool, not {self.type_name(given[key])}", "TypeError"
                )
        value = t.value
        if dim is None:
            rows, shape_of_inverse = value.reshape(-1, 1), value.shape
        else:
            if value.ndim == 0:
                raise ScriptRuntimeError(
                    f"Dimension specified as {dim} but tensor has no dimensions", "IndexError"
                )
            axis = dim_index(dim, value.ndim)
            if value.size == 0 and value.shape[axis] != 0:
                raise ScriptRuntimeError(
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
                )
            width = math.prod(n for k, n in enumerate(value.shape) if k != axis)
            rows = np.moveaxis(value, axis, 0).reshape(value.shape[axis], width)
            shape_of_inverse = (value.shape[axis],)
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
        ordered = rows[order]
        starts = np.ones(len(ordered), dtype=bool)
        if len(ordered) > 1:
            starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)  # NaN is never equal: its own
        group = np.cumsum(starts) - 1
        inverse = np.empty(len(order), dtype=np.int64)
        inverse[order] = group
        counts = np.diff(np.append(np.flatnonzero(starts), len(ordered))).astype(np.int64)
        if dim is None:
            values = ordered[starts].reshape(-1)
        else:
            picked = np.moveaxis(value, axis, 0)[order[starts]]
            values = np.moveaxis(picked, 0, axis)
        out = Tensor(np.ascontiguousarray(values), dtype=t.dtype)
        if self.grad_enabled and t.requires_grad:
            op = _unique_op(kernel)
            fn = runtime.Fn(op, op.grad_fn, {"shape": out.shape}, (t.snapshot(),), out.value)
            out.requires_grad, out.grad_fn = True, fn
            fn.output = (out.version, out.version.value)
        parts = [out]
        if given["return_inverse"]:
            parts.append(Tensor(inverse.reshape(shape_of_inverse), dtype="int64"))
        if given["return_counts"]:
            parts.append(Tensor(counts, dtype="int64"))
        return tuple(parts) if len(parts) > 1 else out

    def tensor_method(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name in ("normal_", "uniform_"):
            return self.random_fill(t, name, args, kwargs)
        check_keywords(name, kwargs, _METHOD_KEYWORDS, "TensorBase.")
        if name == "backward":
            return self.backward(
                t, *self.signature(name, args, kwargs, ("gradient", "retain_graph", "create_graph", "inputs"))
            )
        if name == "is_floating_point" and not args and not kwargs:
            return t.dtype in runtime.FLOAT_DTYPES + runtime.HALF_DTYPES
        if name == "element_size" and not args and not kwargs:  # bytes per element (bfloat16: 2)
            return 2 if t.dtype == "bfloat16" else t.value.itemsize
        if name in ("equal", "allclose", "isclose"):  # x.equal(y) is torch.equal(x, y)
            return closeness(name, [t, *args], kwargs)
        if name == "item" and not args:
            return self.item(t)
        if name == "tolist" and not args:
            return t.value.tolist()
        if name == "size":
            if args or kwargs:
                dim = args[0] if args else kwargs["dim"]
                return self.python(lambda: t.shape[dim])
            return Size(t.shape)
        if name in ("dim", "ndimension") and not args:
            return t.value.ndim
        if name in ("numel", "nelement") and not args:
            return int(t.value.size)
        if name == "is_contiguous" and not args and not kwargs:
            return strides.is_contiguous(t.shape, runtime.element_strides(t))
        if name == "stride" and len(args) <= 1 and not kwargs:
            layout = runtime.element_strides(t)
            return tuple(layout) if not args else layout[dim_index(args[0], len(layout))]
        if name == "requires_grad_":
            t.set_requires_grad(self.truth(args[0]) if args else bool(kwargs.get("requires_grad", True)))
            return t
        if name == "retain_grad" and not args:
            if t.grad_fn is not None:
                t.retains_grad = True
                t.grad_fn.retained = t
            elif not t.requires_grad:
                raise ScriptRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return None
        if name == "detach" and not args:
            return Tensor.alias(t)  # shares elements and the version counter
        if name == "detach_" and not args:
            t.grad_fn, t.requires_grad = None, False
            return t
        if name == "numpy" and not args:
            if t.requires_grad:
                raise ScriptRuntimeError(
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
                )
            return t.value
        if name in ("scatter_", "scatter"):
            return self.scatter(t, name, args, kwargs, node)
        if name in ("zero_", "fill_"):
            fill = 0 if name == "zero_" else args[0]
            # torch's node: ZeroBackward0, FillBackward2 for a number, FillBackward3 for a tensor
            kind = (
                "ZeroBackward0" if name == "zero_" else f"FillBackward{3 if isinstance(fill, Tensor) else 2}"
            )
            if isinstance(fill, Tensor):
                fill = self.item(fill)
            self.check_in_place(t, self.grad_enabled and t.requires_grad)
            if self.grad_enabled and t.requires_grad:
                kind = "CopySlices" if t.view_of is not None else kind
                self.record_write(t, Ellipsis, float(fill), kind)
                return t
            self.python(lambda: t.write(fill))
            return t
        if name in _IN_PLACE_VIEWS:
            return self.view_in_place(t, name, args, kwargs, node)
        if name.rstrip("_") in _INDEX_WRITES:
            return self.index_write(t, name, args, kwargs, node)
        if name == "unique":
            return self.unique(t, args, kwargs, method=True)
        if name in _IN_PLACE_CALLS:
            others = [a for a in [*args, *kwargs.values()] if isinstance(a, Tensor)]
            recording = self.grad_enabled and (t.requires_grad or any(a.requires_grad for a in others))
            self.check_in_place(t, recording)
            if name == "square_" and not args and not kwargs:  # x.pow_(2): an int tensor stays int
                return self.in_place(t, "pow", 2)
            if self.grad_enabled and t.requires_grad and _IN_PLACE_CALLS[name] not in _DIFFERENTIABLE_CALLS:
                raise ScriptError(
                    f"{source_position(node)}: x.{name}() of a tensor that requires grad is not supported yet"
                )
            op_name = _IN_PLACE_CALLS[name]
            floats = [b for b in [*args, *kwargs.values()] if isinstance(b, float) or _is_float(b)]
            if op_name in _CLAMPS and not _is_float(t) and floats:  # a float bound makes the result float
                raise ScriptRuntimeError(
                    f"result type Float can't be cast to the desired output type {_CPP_TYPE_NAMES[t.dtype]}"
                )
            return self.write_in_place(t, self.registry("", op_name, t, args, kwargs, node), op_name)
        if name in _IN_PLACE_METHODS:
            alpha = kwargs.pop("alpha", None)
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError(f"{name}() takes one tensor or number (and alpha=)", "TypeError")
            return self.in_place(t, _IN_PLACE_METHODS[name], args[0], alpha)
        if name == "copy_" and len(args) == 1 and isinstance(args[0], Tensor):
            recording = self.grad_enabled and (t.requires_grad or args[0].requires_grad)
            self.check_in_place(t, recording)
            if recording:
                self.record_write(
                    t, Ellipsis, args[0], "CopySlices" if t.view_of is not None else "CopyBackwards"
                )
                return t
            t.assign(np.broadcast_to(args[0].value, t.shape))
            return t
        if name in ("cpu", "cuda") and not args and not kwargs:
            self.on_cpu(name)
            return t
        if name == "to":  # .to(device), .to(dtype), .to(device, dtype), .to(device=..., dtype=...)
            kwargs.pop("non_blocking", None)
            given = list(args) + [kwargs.pop(k) for k in ("device", "dtype") if k in kwargs]
            if kwargs or len(given) > 2 or not all(isinstance(g, (DType, Device, str)) for g in given):
                raise ScriptError(
                    f"{source_position(node)}: .to() takes a device and/or a dtype here, as in .to(device) or .to(torch.float64)"
                )
            for g in given:
                if not isinstance(g, DType):
                    self.on_cpu(g)
            dtypes_given = [g for g in given if isinstance(g, DType)]
            if not dtypes_given:
                return t
            args, name = dtypes_given, "to"
        if name in _CONVERSIONS and not kwargs:
            target = _CONVERSIONS[name]
            if name in ("to", "type"):
                if len(args) != 1 or not isinstance(args[0], DType):
                    raise ScriptError(
                        f"{source_position(node)}: .{name}() takes a dtype here, as in .to(torch.float64)"
                    )
                target = args[0].name
            if target == t.dtype:
                return t
            if t.dtype in ("float32", "float64") and target in ("float32", "float64"):
                return self.apply("_to_copy", [t], {"dtype": target})
            if target in runtime.HALF_DTYPES and t.requires_grad and self.grad_enabled:
                raise ScriptError(f"{source_position(node)}: autograd of {target} tensors is not supported by gradcli run")
            # an integer or bool result never requires grad in torch: no node, no gradient
            with np.errstate(all="ignore"):
                return Tensor(runtime.stored(t.value, target), dtype=target)
        if name in PIECE_CALLS:
            return self.pieces(name, t, args, kwargs)
        if name in POSITION_CALLS:
            return self.positions(name, t, args, kwargs)
        if name == "register_hook" and len(args) == 1 and not kwargs:
            return self.register_hook(t, args[0], node)
        if name == "register_post_accumulate_grad_hook":
            raise ScriptError(f"{source_position(node)}: post-accumulate hooks are not supported yet")
        return self.registry("", name, t, args, kwargs, node)
