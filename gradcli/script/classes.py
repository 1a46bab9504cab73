"""torch's objects that the interpreter's rooms keep as instances: a layer (`ModuleInstance`:
its parameters, buffers and settings), a TensorDataset, a DataLoader, the ctx of a custom
autograd.Function, and the call of such a Function recorded as one node."""

from __future__ import annotations

import ast
import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ops import REGISTRY
from . import runtime
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position
from .values import Method


@dataclass(eq=False)
class ClassValue:
    """One of torch's classes as the rooms know it: its name and what type() prints."""

    name: str
    builtin: str | None = None  # "Module", "Function", "Dataset", "Linear", ...
    qualified: str = ""  # what type() prints: __main__.Net, torch.nn.modules.linear.Linear


class Instance:
    """An instance of a script's class: its attributes, in the order they were set."""

    def __init__(self, cls: ClassValue) -> None:
        self.cls = cls
        self.attrs: dict[str, Any] = {}


class Context(Instance):
    """The ctx of a custom autograd.Function: the script's own attributes, the tensors it saved
    for backward, and which inputs need a gradient."""

    def __init__(self, cls: ClassValue, needs: tuple[bool, ...]) -> None:
        super().__init__(cls)
        self.saved: tuple = ()
        self.needs_input_grad = needs


class ModuleInstance(Instance):
    """An nn.Module: parameters, buffers and submodules in their own ordered dicts, as
    torch's Module.__setattr__ keeps them (None until Module.__init__ ran)."""

    def __init__(self, cls: ClassValue) -> None:
        super().__init__(cls)
        self.parameters: dict[str, Tensor | None] | None = None
        self.buffers: dict[str, Tensor | None] | None = None
        self.modules: dict[str, ModuleInstance | None] | None = None
        self.training = True
        self.config: dict[str, Any] = {}  # a torch layer's constructor arguments (in_features ...)

    def initialise(self) -> None:
        """Module.__init__: the dicts exist from here on."""
        if self.parameters is None:
            self.parameters, self.buffers, self.modules = {}, {}, {}


CLASS_OBJECTS = (ClassValue, Instance)


class Classes:
    """Mixed into Interpreter: class statements, instances, attributes and calls of them."""

    # -- class statements -----------------------------------------------------------

    # -- calls ------------------------------------------------------------------------

    def call_object(self, func: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        """A call of one of the interpreter's objects: none is callable (torch's layers and data
        classes are real classes in gradcli/torch/)."""
        name = func.cls.name if isinstance(func, Instance) else self.class_name(func)
        raise ScriptRuntimeError(f"'{name}' object is not callable", "TypeError")

    def call_value(self, func: Any, args: list, node: ast.AST) -> Any:
        """Call a value the script handed over (a hook, a collate function)."""
        if isinstance(func, CLASS_OBJECTS):
            return self.call_object(func, args, {}, node)
        return self.dispatch(func, args, {}, node)

    def items_of_object(self, owner: Instance, node: ast.AST | None) -> list:
        raise ScriptRuntimeError(f"'{owner.cls.name}' object is not iterable", "TypeError")

    def object_length(self, owner: Instance) -> int:
        raise ScriptRuntimeError(f"object of type '{owner.cls.name}' has no len()", "TypeError")

    def object_item(self, owner: Instance, key: Any, node: ast.AST) -> Any:
        raise ScriptRuntimeError(f"'{owner.cls.name}' object is not subscriptable", "TypeError")

    # -- custom autograd.Function --------------------------------------------------------

    def apply_custom(
        self, class_name: str, forward: Any, function: Any, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        """A custom Function's call, its forward and backward given as callables of the script."""
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = Context(
            ClassValue(f"{class_name}Backward", qualified=f"torch.autograd.function.{class_name}Backward"),
            needs,
        )
        previous, self.grad_enabled = self.grad_enabled, False
        try:
            output = self.call_function(forward, [ctx, *args], kwargs, node)
        finally:
            self.grad_enabled = previous
        tensors = [a for a in args if isinstance(a, Tensor)]
        if not (self.grad_enabled and any(needs)):
            return output
        if not isinstance(output, Tensor):
            raise ScriptError(
                f"{source_position(node)}: {class_name}.forward returned {self.class_name(output)}: gradcli "
                "records a custom Function that returns one tensor"
            )
        if function is None:
            raise ScriptRuntimeError(
                "You must implement either the backward or vjp method for your custom autograd.Function "
                "to use it with backward mode AD.",
                "NotImplementedError",
            )
        if any(output is t for t in tensors):
            output = Tensor.alias(output)  # torch returns a view of an input handed back as is
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        results: dict[int, tuple] = {}
        name = f"{class_name}Backward"

        def run(g: Any) -> tuple:
            key = id(g)
            if key not in results:
                results.clear()
                # create_graph: the backward runs with grad mode on, on the gradient's tensor
                traced = isinstance(g, runtime.Recorded)
                if hasattr(g, "apply_op") and not traced:
                    raise TypeError("a traced gradient outside a create_graph backward")
                grad = g.tensor if traced else Tensor(np.asarray(g), dtype=output.dtype)
                line, before = self.line, self.grad_enabled
                self.grad_enabled = traced
                try:
                    given = self.call_function(function, [ctx, grad], {}, node)
                finally:
                    self.line, self.grad_enabled = line, before
                given = tuple(given) if isinstance(given, (tuple, list)) else (given,)
                if len(given) != len(args):
                    raise ScriptRuntimeError(
                        f"function {name} returned an incorrect number of gradients (expected {len(args)}, "
                        f"got {len(given)})"
                    )
                grads = []
                for i in positions:
                    value = given[i]
                    if value is None:  # torch's undefined gradient: nothing reaches that input
                        grads.append(None)
                        continue
                    if not isinstance(value, Tensor):
                        raise ScriptRuntimeError(
                            f"function {name} returned a gradient different than None at position {i + 1}, "
                            "but the corresponding forward input was not a Variable"
                        )
                    if value.value.size != math.prod(args[i].shape):
                        raise ScriptRuntimeError(
                            f"Function {name} returned an invalid gradient at index {i} - got "
                            f"{list(value.shape)} but expected shape compatible with {list(args[i].shape)}"
                        )
                    if traced:
                        shaped = value if value.shape == args[i].shape else self.tensor_method(
                            value, "reshape", [tuple(args[i].shape)], {}, node
                        )
                        grads.append(g.recorder.wrap(shaped))
                        continue
                    grads.append(value.value.reshape(args[i].shape).astype(args[i].dtype))
                results[key] = tuple(grads)
            return results[key]

        def rule(k: int) -> Any:
            return lambda g, out, *operands, **attrs: run(g)[k]

        rules = tuple(rule(k) for k in range(len(positions)))
        shape = output.shape
        op = dataclasses.replace(
            REGISTRY["clone"],
            name=class_name,
            syntax=f"{class_name}.apply",
            vjp=rules,
            grad_fn=name,
            elementwise=False,
            infer_shape=lambda *shapes, **attrs: shape,
            saves_tensors=bool(ctx.saved),
            torch=f"{class_name}.apply",
            text=None,
            batching=None,
        )
        recorded = tuple(t.snapshot() for t in tensors)
        fn = runtime.Fn(op, name, {}, recorded, output.value)
        fn.context = ctx
        output.requires_grad, output.grad_fn = True, fn
        fn.output = (output.version, output.version.value)
        return output

    def context_attribute(self, ctx: Context, name: str) -> Any:
        if name == "saved_tensors":
            return ctx.saved
        if name == "needs_input_grad":
            return ctx.needs_input_grad
        if name in ("save_for_backward", "mark_non_differentiable", "set_materialize_grads", "mark_dirty"):
            return Method(ctx, name)
        if name in ctx.attrs:
            return ctx.attrs[name]
        raise ScriptRuntimeError(f"'{ctx.cls.name}' object has no attribute '{name}'", "AttributeError")

    def context_method(self, ctx: Context, name: str, args: list, kwargs: dict) -> Any:
        if name == "save_for_backward":
            if kwargs or not all(a is None or isinstance(a, Tensor) for a in args):
                raise ScriptRuntimeError(
                    "save_for_backward can only save variables, but argument 0 is not a Variable", "TypeError"
                )
            ctx.saved = tuple(args)
            return None
        return None  # mark_non_differentiable, set_materialize_grads: no effect on the values here

    # -- attributes -------------------------------------------------------------------

    def object_attribute(self, owner: Any, name: str, node: ast.AST) -> Any:
        """An attribute of a ctx, or of one of torch's layers (its parameters and settings)."""
        if isinstance(owner, ClassValue):
            raise ScriptRuntimeError(f"type object '{owner.name}' has no attribute '{name}'", "AttributeError")
        if not isinstance(owner, Instance):
            raise ScriptRuntimeError(
                f"'{self.class_name(owner)}' object has no attribute '{name}'", "AttributeError"
            )
        if isinstance(owner, Context):
            return self.context_attribute(owner, name)
        if isinstance(owner, ModuleInstance) and name == "training":
            return owner.training
        if name in owner.attrs:
            return owner.attrs[name]
        if isinstance(owner, ModuleInstance) and owner.parameters is not None:
            for table in (owner.parameters, owner.buffers, owner.modules):
                if table is not None and name in table:
                    return table[name]
        raise ScriptRuntimeError(f"'{owner.cls.name}' object has no attribute '{name}'", "AttributeError")

    def set_object_attribute(self, owner: Any, name: str, value: Any, node: ast.AST) -> None:
        if not isinstance(owner, Instance) or isinstance(owner, ModuleInstance):
            raise ScriptError(f"{source_position(node)}: attributes of {self.class_name(owner)} cannot be set")
        owner.attrs[name] = value

    def tensor_type_name(self, value: Any) -> str:
        """How torch's setattr errors name a value's type (torch.FloatTensor for a float32 tensor)."""
        if isinstance(value, Tensor):
            kinds = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool"}
            return f"torch.{kinds.get(value.dtype, 'Float')}Tensor"
        return self.class_name(value)

