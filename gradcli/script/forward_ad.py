"""torch.autograd.forward_ad in `run`: dual tensors (`make_dual`, `unpack_dual`) inside
`dual_level()`, each op's tangent computed as its result is.

Forward mode is one more reading of the registry's rules: an op's tangent J.t is the
derivative, with respect to the upstream gradient g, of <vjp(g), t> (its VJP is linear in g),
so the one-node graph of the op runs through `higher.jvp`, the same double-vjp trick as
torch.autograd.functional.jvp. Tangents carry no autograd history here; torch gives a tangent
a grad_fn when a primal it reads requires grad, and gradcli refuses to hand such a tangent to
the script rather than show it without one."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import higher
from ..errors import GradcliError
from ..graph import CONST, LEAF, OP, Graph, Literal, Node
from ..program import Num
from . import runtime
from .runtime import FLOAT_DTYPES, ScriptError, ScriptRuntimeError, Tensor

NO_LEVEL = "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
FUNCTIONS = frozenset({"dual_level", "make_dual", "unpack_dual"})


@dataclass
class DualLevel:
    """forward_ad.dual_level(): a `with` block whose dual tensors lose their tangents at its end."""

    made: list = field(default_factory=list)  # every tensor given a tangent inside it


class UnpackedDual(tuple):
    """forward_ad.unpack_dual's namedtuple UnpackedDualTensor(primal, tangent): a pair that
    unpacks and indexes as a tuple, whose parts are also .primal and .tangent."""

    def __new__(cls, primal: Any, tangent: Any) -> UnpackedDual:
        return super().__new__(cls, (primal, tangent))

    @property
    def primal(self) -> Any:
        return self[0]

    @property
    def tangent(self) -> Any:
        return self[1]


@dataclass
class GradTangent:
    """A tangent torch would give a grad_fn (a primal it reads requires grad): not shown."""

    where: str


def op_tangent(op: Any, operands: list, attrs: dict, result: Tensor) -> np.ndarray | None:
    """J.t of one op at its operands' values: the sum over operands with a tangent."""
    if not op.differentiable or result.dtype not in FLOAT_DTYPES:
        return None
    if op.name == "_to_copy":  # x.double(), x.to(dtype): the tangent converted as the primal is
        source = operands[0]
        return None if source.tangent is None else source.tangent.value.astype(result.dtype)
    nodes: list[Node] = []
    values: list[Any] = []
    tangents: dict[str, np.ndarray] = {}
    recorded: list[Any] = []
    for position, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            number = float(operand)
            recorded.append(Literal(number, Num(number, repr(number), 0, 0)))
            continue
        index, name = len(nodes), f"a{position}"
        dual = operand.tangent is not None and operand.dtype in FLOAT_DTYPES
        nodes.append(Node(index, name, LEAF if dual else CONST, operand.shape, dual))
        values.append(operand.value)
        if dual:
            tangents[name] = np.asarray(operand.tangent.value, dtype=result.dtype)
        recorded.append(index)
    if not tangents:
        return None
    index = len(nodes)
    nodes.append(Node(index, "out", OP, result.shape, True, op, tuple(recorded), dict(attrs), op.grad_fn))
    values.append(result.value)
    try:
        found = higher.jvp(Graph(None, tuple(nodes), index), values, tangents, np.dtype(result.dtype))
    except GradcliError:
        raise ScriptError(f"forward AD through {op.grad_fn} is not supported by gradcli run") from None
    return np.asarray(found, dtype=result.dtype)


class ForwardAD:
    """Mixed into Interpreter: the forward_ad functions and the dual level's bookkeeping."""

    def forward_ad_call(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "dual_level":
            if args or kwargs:
                raise ScriptRuntimeError("dual_level() takes no arguments", "TypeError")
            return DualLevel()
        given = dict(zip(("tensor", "tangent") if name == "make_dual" else ("tensor",), args)) | kwargs
        given.pop("level", None)
        if name == "unpack_dual":
            if set(given) != {"tensor"}:
                raise ScriptRuntimeError("unpack_dual() takes one tensor", "TypeError")
            return self.unpack_dual(given["tensor"])
        if set(given) != {"tensor", "tangent"}:
            raise ScriptRuntimeError("make_dual() takes a tensor and its tangent", "TypeError")
        return self.make_dual(given["tensor"], given["tangent"], node)

    def make_dual(self, primal: Any, tangent: Any, node: ast.AST) -> Tensor:
        if not runtime.DUAL_HOOKS:
            raise ScriptRuntimeError(NO_LEVEL)
        for value in (primal, tangent):
            if not isinstance(value, Tensor):
                raise ScriptRuntimeError(
                    f"'{self.class_name(value)}' object has no attribute 'is_floating_point'",
                    "AttributeError",
                )
        if primal.dtype not in FLOAT_DTYPES:
            raise ScriptRuntimeError(
                f"Expected primal to be floating point or complex, but got: torch.{primal.dtype}",
                "ValueError",
            )
        if tangent.dtype not in FLOAT_DTYPES:
            raise ScriptRuntimeError(
                f"Expected tangent to be floating point or complex, but got: torch.{tangent.dtype}",
                "ValueError",
            )
        if primal.shape != tangent.shape:
            raise ScriptRuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(primal.shape)} while the given forward "
                f"gradient is of size {list(tangent.shape)}."
            )
        if primal.tangent is not None:
            raise ScriptRuntimeError(
                "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                "level 0 is not supported."
            )
        if primal.requires_grad and self.grad_enabled:  # torch's dual is a view: ViewBackward0
            dual = self.apply("view", [primal], {"size": primal.shape})
        else:
            dual = Tensor.alias(primal)
        self.give_tangent(dual, tangent)
        return dual

    def give_tangent(self, t: Tensor, tangent: Tensor | GradTangent) -> None:
        t.tangent = tangent
        self.dual_levels[-1].made.append(t)

    def unpack_dual(self, t: Any) -> UnpackedDual:
        if not isinstance(t, Tensor):
            raise ScriptRuntimeError(
                f"unpack_dual(): argument 'tensor' must be Tensor, not {self.class_name(t)}", "TypeError"
            )
        tangent = t.tangent
        if isinstance(tangent, GradTangent):
            raise ScriptError(
                f"line {self.line}: the tangent of {tangent.where} depends on tensors that require grad "
                "(torch gives it a grad_fn); forward-over-reverse is not supported by gradcli run"
            )
        if tangent is None:
            return UnpackedDual(t, None)
        if t.requires_grad:
            raise ScriptError(
                f"line {self.line}: unpack_dual of a dual tensor that requires grad is not supported by "
                "gradcli run (its primal is torch's Identity view)"
            )
        return UnpackedDual(Tensor.alias(t), tangent)

    # -- the dual level ---------------------------------------------------------------------

    def enter_dual_level(self, level: DualLevel, node: ast.AST) -> None:
        if runtime.DUAL_HOOKS:
            raise ScriptRuntimeError("Nested forward mode AD is not supported at the moment")

        def tangent_of(op: Any, operands: list, attrs: dict, result: Tensor) -> None:
            # a tangent costs a traced and a numeric backward of the op: counted like its forward, 4x
            unshown = next((o.tangent for o in operands if isinstance(o, Tensor) and isinstance(o.tangent, GradTangent)), None)
            if unshown is not None:  # a tangent with torch's history makes one too
                if op.differentiable and result.dtype in FLOAT_DTYPES:
                    self.give_tangent(result, unshown)
                return
            found = op_tangent(op, operands, attrs, result)
            if found is None:
                return
            reads_grad = self.grad_enabled and any(
                isinstance(o, Tensor) and o.requires_grad for o in operands
            )
            if reads_grad:
                self.give_tangent(result, GradTangent(f"{op.grad_fn} at line {self.line}"))
            else:
                self.give_tangent(result, Tensor(found, dtype=result.dtype))

        self.dual_levels.append(level)
        runtime.DUAL_HOOKS.append(tangent_of)

    def leave_dual_level(self) -> None:
        runtime.DUAL_HOOKS.pop()
        for t in self.dual_levels.pop().made:  # torch clears the level's forward grads
            t.tangent = None

    def dual_written(self, t: Tensor, result: Tensor) -> Any:
        """An in-place op on a dual tensor (or with a dual operand): t's tangent is cleared before
        the values are written, and the result's tangent returned for t to take after."""
        if result.tangent is None and t.tangent is None:
            return None
        if t.view_of is not None:
            raise ScriptError(
                f"line {self.line}: an in-place op on a view of a dual tensor is not supported by gradcli run"
            )
        t.tangent = None
        return result.tangent
