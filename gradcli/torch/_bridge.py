"""gradcli's torch, for now, over the `run` interpreter's rooms: real Python objects outside,
the interpreter's values inside.

This is the first step of running scripts on CPython (issue 40): the interpreter already
knows torch's API (binding, errors in torch's words, reprs, the generator, nn layers,
optimisers), one method per job over its own values. A `Session` is an interpreter with no
script: every call of gradcli's torch from Python comes here, its arguments unwrapped into
the interpreter's values (`runtime.Tensor`, ...), the interpreter's method run, the result
wrapped back (`Tensor`, `Proxy`), and the interpreter's errors raised as the Python
exceptions torch raises. Areas move out of the interpreter into real classes one at a time.
"""

from __future__ import annotations

import ast
import builtins
import dis
import functools
import os
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import limits
from ..errors import AutogradError, LimitError, ParseError, ShapeError
from ..script import runtime
from ..script.interpreter import Interpreter
from ..script.python import torch_kind
from ..script.runtime import ScriptError, ScriptRuntimeError
from ..script.tensor_repr import reset_print_options
from ..script.values import DType, Fixed, Function, Method, NoGrad, Picked, Size

_GRADCLI = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LISTED = "docs/run.md lists what is"


class NotInGradcli(NotImplementedError):
    """Something a script asked of torch that gradcli's torch does not model (yet): the run
    ends with the message alone, as an interpreted run's refusals did."""


class MissingName(AttributeError):
    """A torch name gradcli's torch lacks: an AttributeError, so hasattr() and getattr(m, n,
    default) answer as for a name torch lacks; the run ends with the message alone."""


class MissingImport(ImportError):
    """`from torch.x import Name` (or `import torch.x`) of what gradcli's torch lacks."""


# Named as Python's own, so a script that prints type(exc).__name__ (or a traceback) sees what
# torch's would show for a name it lacks
for _gap, _python in ((MissingName, "AttributeError"), (MissingImport, "ImportError")):
    _gap.__name__ = _gap.__qualname__ = _python
    _gap.__module__ = "builtins"


class ForeignError(BaseException):
    """An exception raised by the script's own code called back from the interpreter (a hook,
    a function given to torch.func): carried through the interpreter untouched, raised again
    as itself at the bridge. A BaseException, so no `except Exception` inside converts it."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(original)
        self.original = original


class Session(Interpreter):
    """The interpreter's state for one run of gradcli's torch (grad mode, generator, warnings,
    backward-call records); its output goes straight to the script's stdout."""

    def __init__(self) -> None:
        super().__init__("", trace_width=None, record=False)
        self.capture: list[str] | None = None

    @property
    def line(self) -> int:
        """The script's line now: the innermost calling frame outside gradcli (read when asked,
        so a call costs no frame walk unless it records a backward call or fails)."""
        frame = _script_frame()
        return frame.f_lineno if frame is not None else 1

    @line.setter
    def line(self, value: int) -> None:
        """The interpreter's rooms set it; Python's frames already say it."""

    def write(self, text: str) -> None:
        sys.stdout.write(text)

    def foreign(self, value: Any) -> bool:
        return _foreign(value)

    def warn(self, message: str) -> None:
        """torch's warning through Python's warnings, at the script's line (as torch's C++
        warnings are), so a script's filterwarnings and -W work on it."""
        frame = _script_frame()
        if frame is None:
            warnings.warn(message, UserWarning, stacklevel=2)
            return
        registry = frame.f_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(
            message,
            UserWarning,
            frame.f_code.co_filename,
            frame.f_lineno,
            module=frame.f_globals.get("__name__"),
            registry=registry,
            module_globals=frame.f_globals,
        )

    def traced(self) -> Any:
        """A record for the next backward call, its nodes named after the script's variables:
        the names bound in the calling frames (module globals first, inner frames last)."""
        if not self.record or len(self.backward_calls) >= limits.Script.MAX_RECORDED_BACKWARD_CALLS:
            return None  # past the cap a call keeps only its line (--format json's records)
        if not self.chosen_call(len(self.backward_calls) + 1, self.line):
            return None
        scopes = []
        frame = _script_frame()
        while frame is not None:
            if not frame.f_code.co_filename.startswith(_GRADCLI):
                scopes.append(frame.f_locals)
                if frame.f_back is None or frame.f_globals is not frame.f_back.f_globals:
                    scopes.append(frame.f_globals)
            frame = frame.f_back
        names: dict[int, str] = {}
        tensor = PUBLIC_TENSOR[0]
        for scope in reversed(scopes):
            for name, value in list(scope.items()):
                if isinstance(value, tensor):
                    rt = object.__getattribute__(value, "_rt")
                    names[id(rt)] = name
                    if rt.grad_fn is not None:
                        names[id(rt.grad_fn)] = name
        return runtime.Traced(names)

    def warn_once(self, message: str) -> None:
        """A warning of torch's autograd engine: one place in torch, so Python shows it once."""
        warnings.warn_explicit(message, UserWarning, _ENGINE, 1, registry=_ENGINE_WARNED)

    def call_function(self, func: Any, args: list, kwargs: dict, node: Any) -> Any:
        if _foreign(func):
            return call_foreign(func, args, kwargs)
        return super().call_function(func, args, kwargs, node)

    def dispatch(self, func: Any, args: list, kwargs: dict, node: Any) -> Any:
        if _foreign(func):
            return call_foreign(func, args, kwargs)
        return super().dispatch(func, args, kwargs, node)



def _pythons(value: Any) -> bool:
    """An object of the script's own (or Python's), not one of the interpreter's values."""
    return not (type(value).__module__ or "").startswith("gradcli.") and not isinstance(
        value, (list, tuple, dict, runtime.Tensor)
    )


def _foreign(value: Any) -> bool:
    """A callable of the script's own (a def, a lambda, a class, a bound method of its objects)."""
    module = type(value).__module__ or ""
    return callable(value) and not module.startswith("gradcli.")


def call_foreign(func: Callable, args: list, kwargs: dict) -> Any:
    try:
        result = func(*wrap(args), **wrap(kwargs))
    except ForeignError:
        raise
    except BaseException as exc:
        raise ForeignError(exc) from None
    return unwrap(result)


SESSION: list[Session] = []
# torch.Tensor and nn.Parameter (_tensor.py and nn/parameter.py put them here: they import this module)
PUBLIC_TENSOR: list[type] = []


def reset() -> Session:
    """torch's initial state: a new generator, grad mode on, default print options."""
    _ENGINE_WARNED.clear()
    reset_print_options()
    runtime.reset_work()
    SESSION[:] = [Session()]
    return SESSION[0]


def session() -> Session:
    if not SESSION:
        reset()
    return SESSION[0]


# ---------------------------------------------------------------- crossing the boundary


def wrap(value: Any) -> Any:
    """An interpreter value as the script sees it."""
    if isinstance(value, runtime.Tensor):
        held = value.__dict__.get("public")  # a weak reference: a strong one would be a cycle,
        public = held() if held is not None else None  # freed only when the gc runs, not when dropped
        if public is None or object.__getattribute__(public, "_rt") is not value:  # none, or a copy's
            public = PUBLIC_TENSOR[1 if value.__dict__.get("parameter") else 0]._of(value)
        return public
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray, np.generic)):
        return value
    if type(value) is list:
        return [wrap(v) for v in value]
    if type(value) is tuple:
        return tuple(wrap(v) for v in value)
    if type(value) is dict:
        return {k: wrap(v) for k, v in value.items()}
    if isinstance(value, Size):
        return value
    if isinstance(value, (range, slice, type(Ellipsis))):
        return value
    if not (type(value).__module__ or "").startswith("gradcli."):
        return value  # Python's, or the script's own (a Module, a Dataset, a function)
    return Proxy._of(value)


def unwrap(value: Any) -> Any:
    """A script's value as the interpreter takes it."""
    if isinstance(value, PUBLIC_TENSOR[0]):
        return object.__getattribute__(value, "_rt")
    if isinstance(value, Proxy):
        return object.__getattribute__(value, "_value")
    if type(value) is list:
        return [unwrap(v) for v in value]
    if type(value) is tuple:
        return tuple(unwrap(v) for v in value)
    if type(value) is dict:
        return {unwrap(k): unwrap(v) for k, v in value.items()}
    if type(value) is slice:
        return slice(unwrap(value.start), unwrap(value.stop), unwrap(value.step))
    if isinstance(value, types.GeneratorType):  # model.parameters() of a script's module
        return [unwrap(v) for v in value]
    return value


def _script_frame() -> Any:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_GRADCLI):
        frame = frame.f_back
    return frame


_ENGINE = os.path.join(_GRADCLI, "torch", "autograd", "__init__.py")  # where torch's is graph.py
_ENGINE_WARNED: dict = {}


_NOWHERE = ast.Name(id="_", ctx=ast.Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)


def python_exception(kind: str, message: str) -> BaseException:
    """The exception torch raises, by the name the interpreter gives it."""
    cls = getattr(builtins, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        cls = RuntimeError
    return cls(message) if message else cls()


def _place_stripped(text: str) -> str:
    """An interpreter message without its `line N[, column M]: ` (the runner adds the line)."""
    for _ in range(2):
        if text.startswith("line "):
            head, sep, rest = text.partition(": ")
            if sep and all(part.strip().split(" ")[0] in ("line", "column") for part in head.split(",")):
                text = rest
    return text


def call(method: Callable, *args: Any) -> Any:
    """Run one of the interpreter's methods for the script: its line set, its values wrapped,
    its errors the script's."""
    return wrap(call_raw(method, *args))


def is_dtype(value: Any) -> bool:
    """torch.float32 and its kin, as the bridge hands them out."""
    from ..script.values import DType

    return isinstance(value, Proxy) and isinstance(object.__getattribute__(value, "_value"), DType)


def call_raw(method: Callable, *args: Any) -> Any:
    """call() without wrapping the result: for the interpreter's own values (a layer's state)."""
    session = SESSION[0] if SESSION else reset()
    try:
        return method(session, *args)
    except ScriptRuntimeError as exc:
        raise python_exception(exc.kind, exc.message) from None
    except (AutogradError, ShapeError) as exc:
        raise python_exception(torch_kind(exc), exc.message) from None
    except ParseError as exc:
        raise TypeError(_place_stripped(exc.message)) from None
    except (ScriptError, LimitError) as exc:
        raise NotInGradcli(_place_stripped(str(exc))) from None
    except ForeignError as exc:
        raise exc.original from None


def here() -> ast.AST:
    """A node for the interpreter's rooms to place an error at: its place is dropped at the
    bridge (_place_stripped), and the line, where one is recorded, is Session.line's."""
    return _NOWHERE


# ---------------------------------------------------------------- the interpreter's verbs


def attribute(owner: Any, name: str) -> Any:
    return call(lambda s: s.attribute(owner, name, here()))


def call_value(func: Any, args: tuple, kwargs: dict) -> Any:
    a, k = unwrap(list(args)), {key: unwrap(v) for key, v in kwargs.items()}
    return call(lambda s: s.call_function(func, a, k, here()))


def module_attribute(module: str, name: str) -> Any:
    from ..script.values import Module

    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module '{module}' has no attribute '{name}'")
    try:
        return call(lambda s: s.module_attribute(Module(module), name, here()))
    except NotInGradcli:
        raise MissingName(f"{module}.{name} is not in gradcli's torch ({_LISTED})") from None


def module_function(module: str, name: str) -> Any:
    """The interpreter's own value for `module.name` (unwrapped), for calling it."""
    from ..script.values import Module

    return session().module_attribute(Module(module), name, here())


def namespace(module: str) -> Callable[[str], Any]:
    """A torch module's `__getattr__` (PEP 562): the names it has, as the interpreter gives them."""

    def lookup(name: str) -> Any:
        try:
            found = module_attribute(module, name)
        except MissingName as exc:
            caller = sys._getframe(1)  # `from torch.nn import Foo` asks here: Python would say ImportError
            if caller.f_code.co_code[caller.f_lasti] == _IMPORT_FROM:
                raise MissingImport(str(exc), name=module) from None
            raise
        if isinstance(found, Proxy) and isinstance(object.__getattribute__(found, "_value"), _FIXED_VALUES):
            # a function, dtype or constant of torch's is the same object every time (torch.float32
            # is torch.float32, as in torch): kept on the module, so the next lookup is Python's own
            python_module = sys.modules.get(f"gradcli.{module}")
            if python_module is not None:
                setattr(python_module, name, found)
        return found

    return lookup


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]
_FIXED_VALUES = (Function, DType, Fixed)  # what a torch module's name always gives


class Proxy:
    """One of the interpreter's torch objects (a function, an nn layer, an optimiser, a
    DataLoader, a grad_fn, a dtype) as a Python object: attributes, calls, items, iteration,
    `with` and printing go to the interpreter's methods for them."""

    __slots__ = ("_value", "__weakref__")

    @classmethod
    def _of(cls, value: Any) -> Proxy:
        proxy = object.__new__(cls)
        object.__setattr__(proxy, "_value", value)
        return proxy

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name not in ("__name__", "__qualname__"):
            raise AttributeError(name)
        try:
            return attribute(object.__getattribute__(self, "_value"), name)
        except NotInGradcli:
            if name in ("__name__", "__qualname__"):  # hasattr(f, "__name__") is False, as for a partial
                raise AttributeError(name) from None
            raise

    def __setattr__(self, name: str, value: Any) -> None:
        owner = object.__getattribute__(self, "_value")
        v = unwrap(value)
        call(lambda s: s.set_attribute(owner, name, v, here()))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        value = object.__getattribute__(self, "_value")
        if isinstance(value, NoGrad) and len(args) == 1 and not kwargs and callable(args[0]):
            return _in_mode(value, args[0])  # @torch.no_grad() on a def
        named = isinstance(value, Function) and value.module == "torch"
        if named and value.name in ("no_grad", "enable_grad") and len(args) == 1 and _foreign(args[0]):
            return _in_mode(NoGrad(enabled=value.name == "enable_grad"), args[0])  # @torch.no_grad, no ()
        return call_value(value, args, kwargs)

    def __repr__(self) -> str:
        value = object.__getattribute__(self, "_value")
        return call(lambda s: s.repr(value))

    def __str__(self) -> str:
        value = object.__getattribute__(self, "_value")
        return call(lambda s: s.text(value))

    def __format__(self, spec: str) -> str:
        value = object.__getattribute__(self, "_value")
        return call(lambda s: s.format(value, spec))

    def __eq__(self, other: Any) -> Any:
        return object.__getattribute__(self, "_value") == unwrap(other)

    def __ne__(self, other: Any) -> Any:
        return object.__getattribute__(self, "_value") != unwrap(other)

    def __hash__(self) -> int:
        value = object.__getattribute__(self, "_value")
        try:
            return hash(value)
        except TypeError:
            return id(value)

    def __bool__(self) -> bool:
        value = object.__getattribute__(self, "_value")
        return call(lambda s: s.truth(value))

    def __len__(self) -> int:
        value = object.__getattribute__(self, "_value")
        return call(lambda s: s.builtin("len", [value], {}, here()))

    def __iter__(self) -> Any:
        value = object.__getattribute__(self, "_value")
        if isinstance(value, Picked):
            return iter(wrap(tuple(value)))
        return iter(call(lambda s: list(s.iterable(value, here()))))

    def __getitem__(self, key: Any) -> Any:
        value = object.__getattribute__(self, "_value")
        k = unwrap(key)
        return call(lambda s: s.index_by(value, k, here()))

    def __enter__(self) -> Any:
        value = object.__getattribute__(self, "_value")
        return _enter(value)

    def __exit__(self, *exc: Any) -> None:
        value = object.__getattribute__(self, "_value")
        _leave(value)


_ENTERED: list[tuple[Any, Any]] = []  # (manager, what leaving restores), innermost last


def _enter(manager: Any) -> Any:
    from ..script.forward_ad import DualLevel
    from ..script.saved_tensors import SavedHooks

    s = session()
    if isinstance(manager, NoGrad):
        before = s.grad_enabled if manager.before is None else manager.before
        inference = runtime.INFERENCE[0]
        s.grad_enabled = manager.enabled
        runtime.INFERENCE[0] = manager.inference or inference
        _ENTERED.append((manager, (before, inference)))
        return None
    if isinstance(manager, SavedHooks):
        call(lambda s: s.enter_saved_hooks(manager, here()))
    elif isinstance(manager, DualLevel):
        call(lambda s: s.enter_dual_level(manager, here()))
    else:
        raise NotInGradcli(f"'with' of {type(manager).__name__} is not supported by gradcli's torch")
    _ENTERED.append((manager, None))
    return None


def _leave(manager: Any) -> None:
    s = session()
    for i in range(len(_ENTERED) - 1, -1, -1):
        if _ENTERED[i][0] is manager:
            _, saved = _ENTERED.pop(i)
            break
    else:
        return
    from ..script.saved_tensors import SavedHooks

    if isinstance(manager, NoGrad):
        s.grad_enabled, runtime.INFERENCE[0] = saved
    elif isinstance(manager, SavedHooks):
        call(lambda s: s.leave_saved_hooks())
    else:
        call(lambda s: s.leave_dual_level())


def _in_mode(mode: NoGrad, func: Callable) -> Callable:
    """A def decorated with @torch.no_grad() (or enable_grad): its calls run in that mode."""

    @functools.wraps(func)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        _enter(mode)
        try:
            return func(*args, **kwargs)
        finally:
            _leave(mode)

    return decorated


def reset_modes() -> None:
    _ENTERED.clear()


__all__ = [
    "ForeignError",
    "Method",
    "NotInGradcli",
    "Proxy",
    "Session",
    "attribute",
    "call",
    "call_value",
    "module_attribute",
    "namespace",
    "reset",
    "session",
    "unwrap",
    "wrap",
]
