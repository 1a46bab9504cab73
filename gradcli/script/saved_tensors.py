"""What a grad_fn saves for its backward, as torch 2.13 shows it: `grad_fn._saved_self`,
`_saved_other`, `_saved_result` and its other `_saved_*` values, and the hooks torch calls on
saved tensors (`torch.autograd.graph.saved_tensors_hooks(pack, unpack)` and
`grad_fn._raw_saved_self.register_hooks(pack, unpack)`).

Which tensors a node saves, in which order, and when, is read from torch itself into
`saved_table.SAVED`. The values gradcli's rules use are the ones the op recorded: an unpack
hook that hands back other values than were packed is refused rather than silently ignored."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import autograd
from ..errors import AutogradError
from . import runtime
from .runtime import Fn, Operand, ScriptError, ScriptRuntimeError, Tensor, source_position
from .saved_table import SAVED

# torch's Scalar arguments that gradcli's ops take as number operands, by position
_NUMBER_OPERANDS = {"self": 0, "other": 1, "exponent": 1}
_WRAP = 1 << 64  # torch shows a saved negative dim as the unsigned 64-bit number it stores


@dataclass
class SavedHooks:
    """torch.autograd.graph.saved_tensors_hooks(pack, unpack): a `with` block's hooks."""

    pack: Any
    unpack: Any


@dataclass(eq=False)
class RawSaved:
    """grad_fn._raw_saved_<name>: the SavedTensor object, whose register_hooks packs at once."""

    fn: Fn
    name: str
    hooked: list = field(default_factory=list)


def saved_names(fn: Fn) -> tuple[tuple, tuple]:
    """(tensors as (name, source, needed by), other values as (name, kind)) of fn's grad_fn."""
    return SAVED.get(fn.name, ((), ()))


def _is_saved(fn: Fn, needed: tuple[int, ...]) -> bool:
    """torch saves a tensor only when an operand whose gradient reads it requires grad."""
    return any(
        position < len(fn.operands)
        and isinstance(fn.operands[position], Operand)
        and fn.operands[position].requires_grad
        for position in needed
    )


class SavedTensors:
    """Mixed into Interpreter: grad_fn's `_saved_*` attributes and saved-tensor hooks."""

    def saved_attribute(self, fn: Fn, name: str, node: ast.AST) -> Any:
        raw = name.startswith("_raw_saved_")
        wanted = name[len("_raw_saved_") :] if raw else name[len("_saved_") :]
        tensors, values = saved_names(fn)
        for saved, source, needed in tensors:
            if saved != wanted:
                continue
            if source == "?":  # a tensor torch makes inside the op (sort's indices, a loss's weight)
                break
            if raw:
                return RawSaved(fn, wanted)
            if fn.freed:
                raise AutogradError(autograd.SECOND_PASS)
            if source != "result" and not _is_saved(fn, needed):
                return None
            if wanted in fn.packed:
                return fn.packed[wanted]()
            return self.saved_tensor(fn, source)
        for saved, kind in values:
            if saved == wanted and not raw:
                return self.saved_value(fn, wanted, kind, node)
        known = [s for s, *_ in tensors] + [s for s, _ in values]
        if wanted in known:
            raise ScriptError(
                f"{source_position(node)}: grad_fn.{name} of {fn.name} is not supported by gradcli run"
            )
        raise ScriptRuntimeError(f"'{fn.name}' object has no attribute '{name}'", "AttributeError")

    def saved_tensor(self, fn: Fn, source: Any) -> Any:
        """A saved input is the tensor itself (torch hands back the same object); a saved
        output a new tensor on the same values with the node as its grad_fn; a Python number
        torch wrapped, a 0-dim tensor (int64 or float64, as torch wraps them)."""
        if source == "result":
            out = Tensor(fn.out, dtype=str(fn.out.dtype), grad_fn=fn)
            out.requires_grad = True
            return out
        operand = fn.operands[source]
        if isinstance(operand, Operand):
            runtime.check_saved([fn])
            return operand.tensor
        whole = source in fn.integral
        return Tensor(np.asarray(int(operand) if whole else operand, dtype="int64" if whole else "float64"))

    def saved_value(self, fn: Fn, name: str, kind: str, node: ast.AST) -> Any:
        """A saved non-tensor value: a size, stride or element count of an operand, or one of
        the op's arguments in torch's Python kind."""
        for suffix, read in (
            ("_sym_sizes", lambda t: tuple(t.shape)),
            ("_sym_strides", lambda t: runtime.element_strides(t)),
            ("_sym_numel", lambda t: math.prod(t.shape)),
        ):
            if name.endswith(suffix):
                position = self.operand_named(fn, name[: -len(suffix)])
                operand = (
                    fn.operands[position] if position is not None and position < len(fn.operands) else None
                )
                if not isinstance(operand, Operand):
                    break
                if suffix == "_sym_strides":
                    return read(operand.tensor)
                return (
                    tuple(operand.value.shape) if suffix == "_sym_sizes" else math.prod(operand.value.shape)
                )
        else:
            if name in fn.attrs:
                return _as_kind(fn.attrs[name], kind)
            position = _NUMBER_OPERANDS.get(name)  # x ** 2: torch's Scalar exponent, a number here
            if (
                position is not None
                and position < len(fn.operands)
                and not isinstance(fn.operands[position], Operand)
            ):
                number = fn.operands[position]
                return int(number) if position in fn.integral else float(number)
        raise ScriptError(
            f"{source_position(node)}: grad_fn._saved_{name} of {fn.name} is not supported by gradcli run"
        )

    def operand_named(self, fn: Fn, name: str) -> int | None:
        """The operand torch's derivatives.yaml calls `name`: a saved tensor's source, or self."""
        for saved, source, _ in saved_names(fn)[0]:
            if saved == name and isinstance(source, int):
                return source
        return 0 if name == "self" else None

    # -- hooks ------------------------------------------------------------------------------

    def saved_tensors_hooks(self, args: list, kwargs: dict) -> SavedHooks:
        given = dict(zip(("pack_hook", "unpack_hook"), args)) | kwargs
        if set(given) != {"pack_hook", "unpack_hook"} or len(args) > 2:
            raise ScriptRuntimeError("saved_tensors_hooks() takes pack_hook and unpack_hook", "TypeError")
        return SavedHooks(given["pack_hook"], given["unpack_hook"])

    packing = False  # a pack or unpack hook is running: torch applies no saved-tensor hooks inside one

    def enter_saved_hooks(self, hooks: SavedHooks, node: ast.AST) -> None:
        if self.packing:  # a `with saved_tensors_hooks` inside a hook changes nothing there
            runtime.SAVE_HOOKS.append(lambda fn, result: None)
            return

        def pack_all(fn: Fn, result: Tensor) -> None:
            tensors, _ = saved_names(fn)
            for name, source, needed in tensors:
                if source != "result" and not _is_saved(fn, needed):
                    continue
                if source == "?":
                    raise ScriptError(
                        f"{source_position(node)}: saved_tensors_hooks around {fn.name} (it saves a tensor "
                        "torch makes inside the op) is not supported by gradcli run"
                    )
                if source != "result" and not isinstance(fn.operands[source], Operand):
                    continue  # a Python number torch wrapped: no pack hook sees it
                saved = result if source == "result" else fn.operands[source].tensor
                self.pack_saved(fn, name, saved, hooks.pack, hooks.unpack, node)

        runtime.SAVE_HOOKS.append(pack_all)

    def leave_saved_hooks(self) -> None:
        runtime.SAVE_HOOKS.pop()

    def pack_saved(self, fn: Fn, name: str, saved: Tensor, pack: Any, unpack: Any, node: ast.AST) -> None:
        """Call pack on a saved tensor now, and keep the call that unpacks it for later: as
        backward reaches the node, or as the script reads grad_fn._saved_<name>."""
        original = saved.value.copy()
        grad_fn, requires_grad = saved.grad_fn, saved.requires_grad
        packed = self.in_hook(pack, saved, node)

        def unpacked() -> Tensor:
            if fn.freed:
                raise AutogradError(autograd.SECOND_PASS)
            got = self.in_hook(unpack, packed, node)
            if not isinstance(got, Tensor):
                raise ScriptRuntimeError(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                    + self.class_name(got),
                    "TypeError",
                )
            if got.shape != original.shape or not np.array_equal(got.value, original, equal_nan=True):
                raise ScriptError(
                    f"{source_position(node)}: an unpack hook that gives other values than were packed "
                    "is not supported by gradcli run (its backward uses the values the op saw)"
                )
            # torch gives the unpacked values the saved tensor's place in the graph
            again = Tensor(got.value, dtype=got.dtype, grad_fn=grad_fn)
            again.requires_grad = requires_grad
            return again

        fn.packed[name] = unpacked

    def in_hook(self, hook: Any, value: Any, node: ast.AST) -> Any:
        """Call a pack or unpack hook as torch does: grad mode off, no saved-tensor hooks inside."""
        outer, runtime.SAVE_HOOKS[:] = list(runtime.SAVE_HOOKS), []
        grad_enabled, packing = self.grad_enabled, self.packing
        self.grad_enabled, self.packing = False, True
        try:
            return self.call_value(hook, [value], node)
        finally:
            runtime.SAVE_HOOKS[:] = outer
            self.grad_enabled, self.packing = grad_enabled, packing

    def raw_saved_method(self, raw: RawSaved, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name != "register_hooks":
            raise ScriptError(f"{source_position(node)}: SavedTensor.{name} is not supported by gradcli run")
        if len(args) + len(kwargs) != 2:
            raise ScriptRuntimeError("register_hooks() takes pack_hook and unpack_hook", "TypeError")
        given = dict(zip(("pack_hook", "unpack_hook"), args)) | kwargs
        if raw.name in raw.fn.packed:
            raise ScriptRuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
                "pair of hooks is allowed at a time."
            )
        if raw.fn.freed:
            raise AutogradError(autograd.SECOND_PASS)
        tensors, _ = saved_names(raw.fn)
        source = next(s for n, s, _ in tensors if n == raw.name)
        saved = self.saved_tensor(raw.fn, source)
        self.pack_saved(raw.fn, raw.name, saved, given["pack_hook"], given["unpack_hook"], node)
        return None


def _as_kind(value: Any, kind: str) -> Any:
    """An op's argument as torch's `_saved_*` shows it: a negative int as the unsigned number
    torch stores, dims as tuples where torch keeps a list of them."""
    if kind == "none" or value is None:
        return None
    if kind == "tuple":
        items = value if isinstance(value, (tuple, list)) else (value,)
        return tuple(int(v) + _WRAP if int(v) < 0 else int(v) for v in items)
    if kind == "int" and isinstance(value, (int, float, np.integer)) and not isinstance(value, bool):
        number = int(value) if float(value).is_integer() else value
        return number + _WRAP if isinstance(number, int) and number < 0 else number
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    return value
