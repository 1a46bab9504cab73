"""Classes in a `run` script: the script's own (plain classes, `nn.Module` and
`torch.autograd.Function` subclasses) and torch's that they derive from, modelled as torch's
Python has them: `Module.__setattr__` sorting parameters and submodules into their own ordered
dicts, `__call__` running `forward`, `super()` walking the chain of bases.

A class is a namespace of the script's own defs and values; an instance a dict of attributes.
No metaclasses, no dunder attributes beyond the protocol methods a class defines (whitelist.py
refuses the rest before anything runs), one base per class, and caps on both.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import limits
from ..errors import AutogradError, ShapeError
from ..ops import REGISTRY
from . import runtime
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .values import ARGUMENT_SLIPS, Method, UserFunction, is_parameter
from .whitelist import source_position, yields


@dataclass(eq=False)
class ClassValue:
    """A class: the script's own (`namespace` of defs and values) or one of torch's (`builtin`)."""

    name: str
    base: ClassValue | None
    namespace: dict[str, Any] = field(default_factory=dict)
    builtin: str | None = None  # "Module", "Function", "Dataset", "Linear", ...
    qualified: str = ""  # what type() prints: __main__.Net, torch.nn.modules.linear.Linear

    def chain(self) -> list[ClassValue]:
        """The class and its bases, nearest first (the MRO of single inheritance)."""
        found, cls = [], self
        while cls is not None:
            found.append(cls)
            cls = cls.base
        return found

    def find(self, name: str, after: ClassValue | None = None) -> tuple[ClassValue, Any] | None:
        """The first class of the chain (past `after`, for super()) whose namespace has `name`."""
        chain = self.chain()
        if after is not None:
            chain = chain[chain.index(after) + 1 :] if after in chain else []
        for cls in chain:
            if name in cls.namespace:
                return cls, cls.namespace[name]
        return None

    def derives(self, builtin: str) -> bool:
        return any(cls.builtin == builtin for cls in self.chain())


@dataclass(eq=False)
class StaticMethod:
    """@staticmethod: called without the instance (autograd.Function's forward and backward)."""

    function: UserFunction


@dataclass(eq=False)
class BoundMethod:
    """obj.method: the script's def with the instance as its first argument."""

    receiver: Any
    function: UserFunction


@dataclass(eq=False)
class Super:
    """super(): attribute lookups start past `cls` in the receiver's chain."""

    cls: ClassValue
    receiver: Any


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


_INSTANCES = [0]


def count_instance() -> None:
    _INSTANCES[0] += 1
    if _INSTANCES[0] > limits.Script.MAX_INSTANCES:
        raise ScriptError(
            f"the script made more than MAX_INSTANCES={limits.Script.MAX_INSTANCES:,} instances of classes"
        )


def reset_instances() -> None:
    _INSTANCES[0] = 0


CLASS_OBJECTS = (ClassValue, Instance, BoundMethod, StaticMethod, Super)


class Classes:
    """Mixed into Interpreter: class statements, instances, attributes and calls of them."""

    # -- class statements -----------------------------------------------------------

    def define_class(self, node: ast.ClassDef) -> None:
        base = None
        if node.bases and not (isinstance(node.bases[0], ast.Name) and node.bases[0].id == "object"):
            base = self.expr(node.bases[0])
            if not isinstance(base, ClassValue):
                raise ScriptRuntimeError(
                    f"class {node.name}: a base must be a class, not {self.type_name(base)}", "TypeError"
                )
            if base.builtin not in (None, "Module", "Function", "Dataset"):
                raise ScriptError(
                    f"{source_position(node)}: class {node.name}: deriving from {base.name} is not "
                    "supported; derive from nn.Module and hold the layer as an attribute"
                )
        cls = ClassValue(node.name, base, qualified=f"__main__.{node.name}")
        for statement in node.body:
            self.steps += 1
            self.line = statement.lineno
            if isinstance(statement, ast.FunctionDef):
                cls.namespace[statement.name] = self.method_of(statement, cls)
            elif isinstance(statement, ast.Assign):
                value = self.expr(statement.value)
                for target in statement.targets:
                    assert isinstance(target, ast.Name)  # whitelist.check refuses other targets
                    cls.namespace[target.id] = value
        if len(cls.namespace) > limits.Script.MAX_ATTRIBUTES:
            raise ScriptError(
                f"line {node.lineno}: class {node.name} has more than MAX_ATTRIBUTES={limits.Script.MAX_ATTRIBUTES:,} attributes"
            )
        self.bind(node.name, cls)

    def method_of(self, node: ast.FunctionDef, cls: ClassValue) -> UserFunction | StaticMethod:
        static = bool(node.decorator_list) and _is_name(node.decorator_list[0], "staticmethod")
        mode = None if static else self.decorator(node)
        enclosing = (self.frames[-1], *self.closures[-1]) if self.frames else ()
        function = UserFunction(node, mode, yields(node), enclosing, defined_in=cls)
        return StaticMethod(function) if static else function

    def here(self) -> ast.AST:
        """A node at the current line, for calls made on the script's behalf (len(), print())."""
        return ast.Pass(lineno=self.line, col_offset=0, end_lineno=self.line, end_col_offset=0)

    # -- calls ------------------------------------------------------------------------

    def call_object(self, func: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        """A call of a class (a new instance), an instance (`model(x)`) or a method."""
        torchs = (
            isinstance(func, ClassValue)
            and func.builtin is not None
            or (isinstance(func, ModuleInstance) and func.cls.builtin not in (None, "Module"))
        )
        if not torchs:
            return self.call_script_object(func, args, kwargs, node)
        try:  # torch's own classes: an argument of a kind gradcli's code does not take is a TypeError
            return self.call_script_object(func, args, kwargs, node)
        except ARGUMENT_SLIPS:
            name = func.name if isinstance(func, ClassValue) else f"{func.cls.name}.forward"
            given = ", ".join(self.class_name(a) for a in [*args, *kwargs.values()])
            raise ScriptRuntimeError(
                f"{name}() received an invalid combination of arguments - got ({given})", "TypeError"
            ) from None

    def call_value(self, func: Any, args: list, node: ast.AST) -> Any:
        """Call a value the script handed over (Module.apply's fn, a hook): its def, a class or
        instance, or a builtin."""
        if isinstance(func, UserFunction):
            return self.call_user(func, args, {}, node)
        if isinstance(func, CLASS_OBJECTS):
            return self.call_object(func, args, {}, node)
        return self.dispatch(func, args, {}, node)

    def call_script_object(self, func: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(func, BoundMethod):
            return self.call_user(func.function, [func.receiver, *args], kwargs, node)
        if isinstance(func, StaticMethod):
            return self.call_user(func.function, args, kwargs, node)
        if isinstance(func, ClassValue):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, ModuleInstance):
            found = func.cls.find("forward")
            if found is not None and isinstance(found[1], UserFunction):
                return self.call_user(found[1], [func, *args], kwargs, node)
            if func.cls.builtin not in (None, "Module"):
                return self.layer_forward(func, args, kwargs, node)
            raise ScriptRuntimeError(
                f'Module [{func.cls.name}] is missing the required "forward" function', "NotImplementedError"
            )
        if isinstance(func, Instance):
            found = func.cls.find("__call__")
            if found is not None and isinstance(found[1], UserFunction):
                return self.call_user(found[1], [func, *args], kwargs, node)
        name = func.cls.name if isinstance(func, Instance) else self.class_name(func)
        raise ScriptRuntimeError(f"'{name}' object is not callable", "TypeError")

    def instantiate(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> Any:
        if cls.builtin in ("TensorDataset", "DataLoader"):
            return self.make_data_object(cls, args, kwargs, node)
        if cls.builtin not in (None, "Module", "Function", "Dataset"):
            return self.make_layer(cls, args, kwargs, node)
        if cls.derives("Function"):
            raise ScriptError(
                f"{source_position(node)}: {cls.name} is an autograd.Function: call {cls.name}.apply(...), "
                "not the class"
            )
        count_instance()
        instance = ModuleInstance(cls) if cls.derives("Module") else Instance(cls)
        found = cls.find("__init__")
        if found is not None and isinstance(found[1], UserFunction):
            if self.call_user(found[1], [instance, *args], kwargs, node) is not None:
                raise ScriptRuntimeError("__init__() should return None", "TypeError")
        elif args or kwargs:
            raise ScriptRuntimeError(f"{cls.name}() takes no arguments", "TypeError")
        elif isinstance(instance, ModuleInstance):
            instance.initialise()
        return instance

    def builtin_init(self, receiver: Any, cls: ClassValue, args: list, kwargs: dict) -> None:
        """torch's own __init__ reached through super(): Module's sets up its dicts."""
        if args or kwargs:
            raise ScriptRuntimeError(
                f"{cls.name}.__init__() takes 1 positional argument but {len(args) + len(kwargs) + 1} were given",
                "TypeError",
            )
        if isinstance(receiver, ModuleInstance):
            receiver.initialise()

    def super_of(self, args: list) -> Super:
        """super() in a method (its class and first argument), or super(Class, obj)."""
        if len(args) == 2 and isinstance(args[0], ClassValue):
            return Super(args[0], args[1])
        frame = self.frames[-1] if self.frames else {}
        if args or "@class" not in frame or "@self" not in frame:
            raise ScriptRuntimeError("super(): no arguments", "RuntimeError")
        return Super(frame["@class"], frame["@self"])

    def items_of_object(self, owner: Instance, node: ast.AST | None) -> list:
        """What `for` walks in an instance: a container module's children (a ModuleDict's keys),
        or a class's __getitem__ at 0, 1, ... until it raises IndexError (Python's old protocol)."""
        if isinstance(owner, ModuleInstance) and owner.cls.builtin in (
            "Sequential",
            "ModuleList",
            "ModuleDict",
        ):
            children = owner.modules or {}
            return list(children) if owner.cls.builtin == "ModuleDict" else list(children.values())
        if owner.cls.builtin == "DataLoader":
            return self.loader_batches(owner, node)
        found = owner.cls.find("__iter__")
        if found is not None and isinstance(found[1], UserFunction):  # a generator method, run through
            return self.sequence_of(self.call_user(found[1], [owner], {}, node or self.here()))
        if owner.cls.builtin == "TensorDataset":
            return [self.object_item(owner, i, node or self.here()) for i in range(self.object_length(owner))]
        found = owner.cls.find("__getitem__")
        if found is None or not isinstance(found[1], UserFunction):
            raise ScriptRuntimeError(f"'{owner.cls.name}' object is not iterable", "TypeError")
        items: list = []
        while True:
            if len(items) >= limits.Script.MAX_LOOP:
                raise ScriptError(
                    f"line {self.line}: iterating a {owner.cls.name} took more than MAX_LOOP={limits.Script.MAX_LOOP:,} items"
                )
            try:
                items.append(self.call_user(found[1], [owner, len(items)], {}, node or self.here()))
            except (ScriptRuntimeError, AutogradError, ShapeError) as exc:
                kind = exc.kind if isinstance(exc, ScriptRuntimeError) else type(exc).__name__
                if kind in (
                    "IndexError",
                    "IndexOutOfRange",
                ):  # the end of the sequence, as Python's iteration reads it
                    return items
                raise

    def object_length(self, owner: Instance) -> int:
        if isinstance(owner, ModuleInstance) and owner.cls.builtin in (
            "Sequential",
            "ModuleList",
            "ModuleDict",
        ):
            return len(owner.modules or {})
        if owner.cls.builtin == "DataLoader":
            return self.loader_length(owner)
        if owner.cls.builtin == "TensorDataset":
            tensors = owner.attrs["tensors"]
            return tensors[0].shape[0] if tensors else 0
        found = owner.cls.find("__len__")
        if found is None or not isinstance(found[1], UserFunction):
            raise ScriptRuntimeError(f"object of type '{owner.cls.name}' has no len()", "TypeError")
        length = self.call_user(found[1], [owner], {}, self.here())
        if isinstance(length, Tensor) and length.value.size == 1 and length.dtype.startswith("int"):
            length = int(length.value.reshape(()).item())
        if not isinstance(length, int):
            raise ScriptRuntimeError(
                f"'{self.class_name(length)}' object cannot be interpreted as an integer", "TypeError"
            )
        if length < 0:
            raise ScriptRuntimeError("__len__() should return >= 0", "ValueError")
        return int(length)

    def object_item(self, owner: Instance, key: Any, node: ast.AST) -> Any:
        """owner[key]: a container module's child (a slice of a Sequential is a Sequential),
        or the class's __getitem__."""
        if isinstance(owner, ModuleInstance) and owner.cls.builtin in (
            "Sequential",
            "ModuleList",
            "ModuleDict",
        ):
            children = owner.modules or {}
            if owner.cls.builtin == "ModuleDict":
                if key not in children:
                    raise ScriptRuntimeError(repr(key), "KeyError")
                return children[key]
            values = list(children.values())
            if isinstance(key, slice):  # a Sequential (ModuleList) of the slice, keeping the keys
                part = self.make_layer(owner.cls, [], {}, node)
                assert part.modules is not None
                part.modules.update(list(children.items())[key])
                return part
            if not isinstance(key, int) or isinstance(key, bool):
                raise ScriptRuntimeError(
                    f"{owner.cls.name} indices must be integers or slices, not {self.class_name(key)}",
                    "TypeError",
                )
            if not -len(values) <= key < len(values):
                raise ScriptRuntimeError(f"index {key} is out of range", "IndexError")
            return values[key]
        if owner.cls.builtin == "TensorDataset":
            return tuple(self.index_by(t, key, node) for t in owner.attrs["tensors"])
        found = owner.cls.find("__getitem__")
        if found is None or not isinstance(found[1], UserFunction):
            raise ScriptRuntimeError(f"'{owner.cls.name}' object is not subscriptable", "TypeError")
        return self.call_user(found[1], [owner, key], {}, node)

    def object_repr(self, value: Any) -> str:
        if isinstance(value, ClassValue):
            return f"<class '{value.qualified}'>"
        if isinstance(value, BoundMethod):
            owner = value.function.defined_in.name if value.function.defined_in else "?"
            return f"<bound method {owner}.{value.function.node.name} of {self.object_repr(value.receiver)}>"
        if isinstance(value, StaticMethod):
            return f"<staticmethod({self.shown(value.function, set())})>"
        if isinstance(value, Super):
            return f"<super: <class '{value.cls.name}'>, <{value.receiver.cls.name} object>>"
        assert isinstance(value, Instance)
        text = self.protocol_text(value, "__repr__")
        if text is not None:
            return text
        if isinstance(value, ModuleInstance):
            printing = self.modules_printing
            if id(value) in printing:  # a module that holds itself: Python's repr recurses forever
                raise ScriptRuntimeError("maximum recursion depth exceeded", "RecursionError")
            printing.add(id(value))
            try:
                return self.module_repr(value)
            finally:
                printing.discard(id(value))
        return f"<{value.cls.qualified} object at 0x7f0000000000>"

    def protocol_text(self, value: Instance, name: str) -> str | None:
        """What the class's own __repr__ / __str__ returns (None when it has none)."""
        found = value.cls.find(name)
        if found is None or not isinstance(found[1], UserFunction):
            return None
        text = self.call_user(found[1], [value], {}, self.here())
        if not isinstance(text, str):
            raise ScriptRuntimeError(
                f"{name} returned non-string (type {self.class_name(text)})", "TypeError"
            )
        return text

    # -- custom autograd.Function --------------------------------------------------------

    def apply_function(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> Any:
        """MyFn.apply(...): forward without recording (as torch runs it), then one node named
        MyFnBackward whose backward is the script's own, run by the engine like any rule."""
        forward, backward = cls.find("forward"), cls.find("backward")
        if forward is None or not isinstance(forward[1], StaticMethod):
            raise ScriptRuntimeError(
                "You must implement the forward function for custom autograd.Function.", "NotImplementedError"
            )
        function = backward[1].function if backward is not None and isinstance(backward[1], StaticMethod) else None
        return self.apply_custom(cls.name, forward[1].function, function, args, kwargs, node)

    def apply_custom(
        self, class_name: str, forward: Any, function: Any, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        """A custom Function's call, its forward and backward given as callables of the script."""
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        count_instance()
        ctx = Context(
            ClassValue(f"{class_name}Backward", None, qualified=f"torch.autograd.function.{class_name}Backward"),
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
                traced = hasattr(g, "apply_op")  # create_graph: the backward runs with grad mode on
                adopter = runtime.ADOPTING[-1] if traced and runtime.ADOPTING else None
                if traced and adopter is None:
                    raise TypeError("a traced gradient outside a create_graph backward")
                grad = adopter.tensor_of(g) if adopter is not None else Tensor(np.asarray(g), dtype=output.dtype)
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
                    if adopter is not None:
                        shaped = value if value.shape == args[i].shape else self.tensor_method(
                            value, "reshape", [tuple(args[i].shape)], {}, node
                        )
                        grads.append(adopter.foreign(shaped))
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
        if isinstance(owner, Super):
            cls = owner.receiver.cls if isinstance(owner.receiver, Instance) else owner.cls
            found = cls.find(name, after=owner.cls)
            if found is not None:
                return self.bound(owner.receiver, found[1])
            builtin = next((c for c in cls.chain() if c.builtin), None)
            if name == "__init__":
                return Method(owner.receiver, "@init:" + (builtin.name if builtin else "object"))
            if builtin is not None and isinstance(owner.receiver, ModuleInstance):
                return self.module_attribute_of(owner.receiver, name, node)
            raise ScriptRuntimeError(f"'super' object has no attribute '{name}'", "AttributeError")
        if isinstance(owner, ClassValue):
            found = owner.find(name)
            if found is not None:
                value = found[1]
                return value.function if isinstance(value, StaticMethod) else value
            if name == "apply" and owner.derives("Function"):
                return Method(owner, "apply")
            if name == "__init__":
                builtin = next((c for c in owner.chain() if c.builtin), None)
                return Method(None, "@init:" + (builtin.name if builtin else "object"))
            raise ScriptRuntimeError(
                f"type object '{owner.name}' has no attribute '{name}'", "AttributeError"
            )
        if isinstance(owner, BoundMethod) and name == "__name__":
            return owner.function.node.name
        assert isinstance(owner, Instance)
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
        found = owner.cls.find(name)
        if found is not None:
            return self.bound(owner, found[1])
        if isinstance(owner, ModuleInstance):
            return self.module_attribute_of(owner, name, node)
        raise ScriptRuntimeError(f"'{owner.cls.name}' object has no attribute '{name}'", "AttributeError")

    def bound(self, receiver: Any, value: Any) -> Any:
        if isinstance(value, UserFunction):
            return BoundMethod(receiver, value)
        if isinstance(value, StaticMethod):
            return value.function
        return value

    def set_object_attribute(self, owner: Any, name: str, value: Any, node: ast.AST) -> None:
        if not isinstance(owner, Instance):
            raise ScriptError(
                f"{source_position(node)}: attributes of {self.class_name(owner)} cannot be set"
            )
        if isinstance(owner, ModuleInstance):
            self.set_module_attribute(owner, name, value)
        else:
            owner.attrs[name] = value
        count = len(owner.attrs) + sum(
            len(t) for t in (getattr(owner, "parameters", None), getattr(owner, "modules", None)) if t
        )
        if count > limits.Script.MAX_ATTRIBUTES:
            raise ScriptError(
                f"line {self.line}: an instance has more than MAX_ATTRIBUTES={limits.Script.MAX_ATTRIBUTES:,} attributes"
            )

    def set_module_attribute(self, owner: ModuleInstance, name: str, value: Any) -> None:
        """torch's Module.__setattr__: a Parameter into _parameters, a Module into _modules."""
        if name == "training":  # a plain attribute in torch too; eval() and train() set it
            owner.training = value
            return
        if isinstance(value, Tensor) and is_parameter(value):
            if owner.parameters is None:
                raise ScriptRuntimeError(
                    "cannot assign parameters before Module.__init__() call", "AttributeError"
                )
            _remove_from(owner, name)
            owner.parameters[name] = value
        elif owner.parameters is not None and name in owner.parameters:
            if value is not None:
                raise ScriptRuntimeError(
                    f"cannot assign '{self.tensor_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)",
                    "TypeError",
                )
            owner.parameters[name] = None
        elif isinstance(value, ModuleInstance):
            if owner.modules is None:
                raise ScriptRuntimeError(
                    "cannot assign module before Module.__init__() call", "AttributeError"
                )
            _remove_from(owner, name)
            owner.modules[name] = value
        elif owner.modules is not None and name in owner.modules:
            if value is not None:
                raise ScriptRuntimeError(
                    f"cannot assign '{self.tensor_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)",
                    "TypeError",
                )
            owner.modules[name] = None
        elif owner.buffers is not None and name in owner.buffers:
            if value is not None and not isinstance(value, Tensor):
                raise ScriptRuntimeError(
                    f"cannot assign '{self.tensor_type_name(value)}' as buffer '{name}' "
                    "(torch.Tensor or None expected)",
                    "TypeError",
                )
            owner.buffers[name] = value
        else:
            owner.attrs[name] = value

    def tensor_type_name(self, value: Any) -> str:
        """How torch's setattr errors name a value's type (torch.FloatTensor for a float32 tensor)."""
        if isinstance(value, Tensor):
            kinds = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool"}
            return f"torch.{kinds.get(value.dtype, 'Float')}Tensor"
        return self.class_name(value)


def _remove_from(owner: ModuleInstance, name: str) -> None:
    owner.attrs.pop(name, None)
    for table in (owner.parameters, owner.buffers, owner.modules):
        if table is not None:
            table.pop(name, None)


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
