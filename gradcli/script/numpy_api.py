"""NumPy beside gradcli's torch: `torch.from_numpy` / `.numpy()` sharing memory, and a NumPy
value in a tensor's arithmetic taken as torch takes it. NumPy itself is the script's own."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .runtime import ScriptError, ScriptRuntimeError, Tensor

# torch's dtypes that gradcli's tensors have, by NumPy dtype name
TENSOR_DTYPES = frozenset({"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"})
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
    "currently supported. (You can probably work around this by making a copy of your array  with array.copy().) "
)

_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "** or pow()", ast.MatMult: "@",
}  # fmt: skip


class NumpyArrays:
    """Mixed into Interpreter: tensors on NumPy's memory, NumPy values beside tensors."""

    # -- arrays -----------------------------------------------------------------------

    def export(self, t: Tensor) -> np.ndarray:
        """t.numpy(): an array on the tensor's memory, so a write through either shows in both."""
        if t.dtype == "bfloat16":  # NumPy has no such dtype
            raise ScriptRuntimeError("Got unsupported ScalarType BFloat16", "TypeError")
        t.storage.export(t.version)
        return t.value

    def from_numpy(self, array: Any, *, share: bool = True, dtype: str | None = None) -> Tensor:
        """torch.from_numpy(a) (and as_tensor): a tensor on the array's memory."""
        if not isinstance(array, np.ndarray):
            raise ScriptRuntimeError(f"expected np.ndarray (got {self.type_name(array)})", "TypeError")
        if any(s < 0 for s in array.strides):
            raise ScriptRuntimeError(NEGATIVE_STRIDES, "ValueError")
        name = array.dtype.name
        if name not in TENSOR_DTYPES:
            raise ScriptError(
                f"line {self.line}: a NumPy array of {name} has no tensor dtype in gradcli run "
                "(float16/32/64, int8/16/32/64, uint8 and bool do)"
            )
        if not share or not array.flags.c_contiguous or (dtype is not None and dtype != name):
            return Tensor(array.copy(), dtype=dtype)
        t = Tensor(array)
        t.storage.base = array  # Tensor() took the array itself: make that explicit
        t._array = array
        t.storage.export(t.version)
        return t

    # -- NumPy values beside tensors --------------------------------------------------

    def beside_tensor(self, value: Any, op: type, left: Any) -> Any:
        """A NumPy value in a tensor's arithmetic, as torch takes it: a NumPy number is a
        Python number; an array on the right is a tensor of its dtype (torch's __radd__ does
        not take one on the left: Python's TypeError)."""
        if isinstance(value, np.generic) and value.dtype.kind in "biuf":
            return value.item()
        if not isinstance(value, np.ndarray):
            return value
        if value is left:
            if op is ast.Add:
                raise ScriptRuntimeError(
                    "Concatenation operation is not implemented for NumPy arrays, use np.concatenate() "
                    "instead. Please do not rely on this error; it may not be given on all Python "
                    "implementations.",
                    "TypeError",
                )
            raise ScriptRuntimeError(
                f"unsupported operand type(s) for {_SYMBOLS.get(op, '?')}: 'numpy.ndarray' and 'Tensor'",
                "TypeError",
            )
        return self.from_numpy(value, share=False)

    def tensor_dtype_of_numpy(self, name: str) -> str:
        if name not in TENSOR_DTYPES:
            raise ScriptError(
                f"line {self.line}: NumPy's {name} has no tensor dtype in gradcli run "
                "(float16/32/64, int8/16/32/64, uint8 and bool do)"
            )
        return name
