"""torch.Tensor, gradcli's: a real Python class with torch's operator protocol, over the
runtime's tensor (`script/runtime.py`: storage, views, versions, its grad_fn).

Every attribute, method and operator goes to the interpreter's room for it (`_bridge.call`),
so a tensor behaves as it does in an interpreted script, errors and reprs included.
"""

from __future__ import annotations

import ast
import copy
import weakref
from typing import Any

import numpy as np

from ..ops import BINARY, BITWISE
from ..script import runtime
from ..script.tensor_methods import tensor_method_names
from ..script.values import Method
from . import _bridge
from ._bridge import call, here, unwrap

_DEEPCOPY_LEAVES_ONLY = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
    "moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)


def _binary(kind: type, reflected: bool = False):
    def operator(self: Tensor, other: Any) -> Any:
        other_value = unwrap(other)
        if reflected:
            return call(lambda s: s.binop(other_value, kind, self._rt, here()))
        return call(lambda s: s.binop(self._rt, kind, other_value, here()))

    operator.__name__ = f"__{'r' if reflected else ''}{kind.__name__.lower()}__"
    return operator


def _compare(kind: type):
    def operator(self: Tensor, other: Any) -> Any:
        other_value = unwrap(other)
        return call(lambda s: s.compare_pair(self._rt, kind, other_value))

    return operator


def _in_place(kind: type):
    def operator(self: Tensor, other: Any) -> Any:
        name = kind.__name__
        other_value = unwrap(other)
        if name in BINARY and kind is not ast.MatMult:
            call(lambda s: s.in_place(self._rt, BINARY[name], other_value))
            return self
        if name in BITWISE:  # x &= m: torch's bitwise_and_
            call(lambda s: s.tensor_method(self._rt, BITWISE[name] + "_", [other_value], {}, here()))
            return self
        return call(lambda s: s.binop(self._rt, kind, other_value, here()))

    return operator


def _index_key(key: Any) -> Any:
    """A NumPy array in an index is the tensor torch makes of it (integers, or a mask); a slice
    bound that is a one-element integer tensor is its number (torch reads it with __index__:
    nanoGPT's `data[i:i + block_size]` for `i` in a tensor of offsets)."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, slice):
        return slice(*(_bound(b) for b in (key.start, key.stop, key.step)))
    if isinstance(key, np.ndarray) and key.dtype.kind in "iub":
        return runtime.Tensor(key.astype(bool if key.dtype.kind == "b" else np.int64), dtype=None)
    return key


def _bound(value: Any) -> Any:
    integral = isinstance(value, runtime.Tensor) and (
        value.dtype in runtime.INTEGER_DTYPES or value.dtype == "bool"
    )
    if integral and value.value.size == 1:
        return int(value.value.reshape(()))
    return value


def _made_like(self: Tensor, maker: str, args: tuple, dtype: Any, requires_grad: bool, **options: Any) -> Any:
    """x.new_ones(...) and its kin: torch's constructor with x's dtype unless told otherwise."""
    make = _bridge.module_attribute("torch", maker)
    return make(*args, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad, **options)


class Tensor:
    """A tensor of gradcli's torch (see the module's docstring)."""

    __slots__ = ("_rt", "__weakref__")
    __module__ = "torch"
    __array_priority__ = 1000  # NumPy defers `array * tensor` to __rmul__, as with torch's

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """torch.Tensor(2, 3) and torch.Tensor([1, 2]): the legacy constructor."""
        return _bridge.call_value(_bridge.module_function("torch", "Tensor"), args, kwargs)

    @classmethod
    def _of(cls, rt: runtime.Tensor) -> Tensor:
        public = object.__new__(cls)
        object.__setattr__(public, "_rt", rt)
        rt.__dict__["public"] = weakref.ref(public)  # the one public tensor while the script holds it
        return public

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        rt = object.__getattribute__(self, "_rt")
        try:
            return call(lambda s: s.attribute(rt, name, here()))
        except _bridge.NotInGradcli:  # hasattr(x, name) is False, as for a name torch lacks
            raise AttributeError(f"'Tensor' object has no attribute '{name}' in gradcli's torch") from None

    def __setattr__(self, name: str, value: Any) -> None:
        v = unwrap(value)
        call(lambda s: s.set_attribute(self._rt, name, v, here()))

    # -- printing and Python's conversions -----------------------------------------------

    def __repr__(self) -> str:
        return call(lambda s: s.repr(self._rt))

    def __format__(self, spec: str) -> str:
        return call(lambda s: s.format(self._rt, spec))

    def __bool__(self) -> bool:
        return call(lambda s: s.truth(self._rt))

    def __int__(self) -> int:
        return call(lambda s: s.builtin("int", [self._rt], {}, here()))

    def __float__(self) -> float:
        return call(lambda s: s.builtin("float", [self._rt], {}, here()))

    def __index__(self) -> int:
        rt = self._rt
        if (rt.dtype in runtime.INTEGER_DTYPES or rt.dtype == "bool") and rt.value.size == 1:
            return int(rt.value.reshape(()))
        raise TypeError("only integer tensors of a single element can be converted to an index")

    def __len__(self) -> int:
        return call(lambda s: s.builtin("len", [self._rt], {}, here()))

    def __iter__(self) -> Any:
        return iter(call(lambda s: list(s.iterable(self._rt, here()))))

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo: dict) -> Any:
        """copy.deepcopy(x), and of a module holding it: torch's rules. A leaf only; the copy
        has its own memory, the same requires_grad and a deep copy of .grad; a Parameter's copy
        is a Parameter (without .grad, as torch's Parameter.__deepcopy__ makes it)."""
        found = memo.get(id(self))
        if found is not None:
            return found
        rt = self._rt
        if rt.grad_fn is not None:
            raise RuntimeError(_DEEPCOPY_LEAVES_ONLY)
        made = runtime.Tensor(rt.value.copy(), dtype=rt.dtype)
        made.requires_grad = rt.requires_grad
        parameter = rt.__dict__.get("parameter", False)
        if parameter:
            made.parameter = True
        copied = type(self)._of(made)
        memo[id(self)] = copied
        if not parameter and rt._grad is not None:
            made._grad = object.__getattribute__(copy.deepcopy(_bridge.wrap(rt._grad), memo), "_rt")
        return copied

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        array = call(lambda s: s.tensor_method(self._rt, "numpy", [], {}, here()))
        return array if dtype is None else array.astype(dtype)

    # -- constructors like this tensor --------------------------------------------------

    def new_ones(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
    ) -> Any:
        return _made_like(self, "ones", size, dtype, requires_grad)

    def new_zeros(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
    ) -> Any:
        return _made_like(self, "zeros", size, dtype, requires_grad)

    def new_empty(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
    ) -> Any:
        return _made_like(self, "empty", size, dtype, requires_grad)

    def new_full(
        self,
        size: Any,
        fill_value: Any,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        **_: Any,
    ) -> Any:
        return _made_like(self, "full", (size, fill_value), dtype, requires_grad)

    def new_tensor(
        self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
    ) -> Any:
        return _made_like(self, "tensor", (data,), dtype, requires_grad)

    # -- indexing ------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        k = _index_key(unwrap(key))
        return call(lambda s: s.index_by(self._rt, k, here()))

    def __setitem__(self, key: Any, value: Any) -> None:
        k, v = _index_key(unwrap(key)), unwrap(value)
        call(lambda s: s.set_item_at(self._rt, k, v))

    # -- operators -----------------------------------------------------------------------

    __add__, __radd__ = _binary(ast.Add), _binary(ast.Add, True)
    __sub__, __rsub__ = _binary(ast.Sub), _binary(ast.Sub, True)
    __mul__, __rmul__ = _binary(ast.Mult), _binary(ast.Mult, True)
    __truediv__, __rtruediv__ = _binary(ast.Div), _binary(ast.Div, True)
    __floordiv__, __rfloordiv__ = _binary(ast.FloorDiv), _binary(ast.FloorDiv, True)
    __mod__, __rmod__ = _binary(ast.Mod), _binary(ast.Mod, True)
    __pow__, __rpow__ = _binary(ast.Pow), _binary(ast.Pow, True)
    __matmul__, __rmatmul__ = _binary(ast.MatMult), _binary(ast.MatMult, True)
    __and__, __rand__ = _binary(ast.BitAnd), _binary(ast.BitAnd, True)
    __or__, __ror__ = _binary(ast.BitOr), _binary(ast.BitOr, True)
    __xor__, __rxor__ = _binary(ast.BitXor), _binary(ast.BitXor, True)
    __lshift__, __rlshift__ = _binary(ast.LShift), _binary(ast.LShift, True)
    __rshift__, __rrshift__ = _binary(ast.RShift), _binary(ast.RShift, True)

    __iadd__, __isub__ = _in_place(ast.Add), _in_place(ast.Sub)
    __imul__, __itruediv__ = _in_place(ast.Mult), _in_place(ast.Div)
    __ifloordiv__, __imod__ = _in_place(ast.FloorDiv), _in_place(ast.Mod)
    __ipow__, __imatmul__ = _in_place(ast.Pow), _in_place(ast.MatMult)
    __iand__, __ior__, __ixor__ = _in_place(ast.BitAnd), _in_place(ast.BitOr), _in_place(ast.BitXor)

    __lt__, __le__ = _compare(ast.Lt), _compare(ast.LtE)
    __gt__, __ge__ = _compare(ast.Gt), _compare(ast.GtE)
    __eq__, __ne__ = _compare(ast.Eq), _compare(ast.NotEq)

    def __neg__(self) -> Any:
        return call(lambda s: s.apply("neg", [self._rt], {}))

    def __pos__(self) -> Any:
        return self

    def __invert__(self) -> Any:
        return call(lambda s: s.registry("torch", BITWISE["Invert"], None, [self._rt], {}, here()))

    def __abs__(self) -> Any:
        return call(lambda s: s.builtin("abs", [self._rt], {}, here()))


class _BoundMethod:
    """x.sin: one of torch's tensor methods bound to its tensor, printed as torch prints it."""

    __slots__ = ("_tensor", "_name")

    def __init__(self, tensor: Tensor, name: str) -> None:
        self._tensor, self._name = tensor, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        method = Method(self._tensor._rt, self._name)
        given, options = unwrap(list(args)), {k: unwrap(v) for k, v in kwargs.items()}
        return call(lambda s: s.call_function(method, given, options, here()))

    def __repr__(self) -> str:
        return f"<built-in method {self._name} of Tensor object at {hex(id(self._tensor))}>"


class _TensorMethod:
    """A method of torch.Tensor on the class itself, so `x.sin()` is found by Python's own
    lookup (no __getattr__, no proxy); the room that answers it is the interpreter's."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __get__(self, tensor: Tensor | None, owner: type) -> Any:
        if tensor is None:
            return self
        return _BoundMethod(tensor, self._name)

    def __call__(self, tensor: Tensor, *args: Any, **kwargs: Any) -> Any:
        """torch.Tensor.sin(x), map(torch.Tensor.item, xs): the method of the tensor given."""
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"descriptor '{self._name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                f"'{type(tensor).__name__}' object"
            )
        return _BoundMethod(tensor, self._name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<method '{self._name}' of 'torch._C.TensorBase' objects>"


def _install_methods() -> None:
    for name in sorted(tensor_method_names()):
        if name not in Tensor.__dict__ and not name.startswith("__"):
            setattr(Tensor, name, _TensorMethod(name))


_install_methods()
_bridge.PUBLIC_TENSOR[:1] = [Tensor]
