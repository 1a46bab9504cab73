"""torch.optim in a `run` script: the optimisers and lr schedulers of gradcli/optim.py (torch's
CPU single-tensor arithmetic) over the script's parameters.

An optimiser holds, per parameter, a NumPy array that mirrors the tensor (`ParamArray`, which
knows its tensor): step() copies each tensor's current values in, runs the update on the
mirrors with the gradients, and writes the results back into the tensors in place (their
version counters move, as torch's in-place updates under no_grad move them).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .. import optim
from .classes import ClassValue, Instance, count_instance
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .values import Generated, Method, UserFunction
from .whitelist import source_position

_OPTIMIZERS = {
    "SGD": optim.SGD,
    "Adam": optim.Adam,
    "AdamW": optim.AdamW,
    "RMSprop": optim.RMSprop,
    "Adagrad": optim.Adagrad,
}
_SCHEDULERS = {
    "StepLR": optim.StepLR,
    "MultiStepLR": optim.MultiStepLR,
    "ExponentialLR": optim.ExponentialLR,
    "CosineAnnealingLR": optim.CosineAnnealingLR,
    "LambdaLR": optim.LambdaLR,
}
OPTIMIZER_CLASS = ClassValue(
    "Optimizer", None, builtin="Optimizer", qualified="torch.optim.optimizer.Optimizer"
)
OPTIM_CLASSES = {"Optimizer": OPTIMIZER_CLASS} | {
    name: ClassValue(name, OPTIMIZER_CLASS, builtin=name, qualified=f"torch.optim.{name.lower()}.{name}")
    for name in _OPTIMIZERS
}
SCHEDULER_CLASSES = {
    name: ClassValue(name, None, builtin=name, qualified=f"torch.optim.lr_scheduler.{name}")
    for name in _SCHEDULERS
}


class ParamArray(np.ndarray):
    """The optimiser's mirror of one parameter tensor."""

    tensor: Tensor


class OptimizerInstance(Instance):
    def __init__(self, cls: ClassValue, engine: optim.Optimizer) -> None:
        super().__init__(cls)
        self.engine = engine


class SchedulerInstance(Instance):
    def __init__(self, cls: ClassValue, engine: optim.LRScheduler, optimizer: OptimizerInstance) -> None:
        super().__init__(cls)
        self.engine = engine
        self.optimizer = optimizer


def _mirror(t: Tensor) -> ParamArray:
    mirror = np.array(t.value, copy=True).view(ParamArray)
    mirror.tensor = t
    return mirror


class Optimisers:
    """Mixed into Interpreter: torch.optim's optimisers and schedulers."""

    def make_optimizer(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> Instance:
        count_instance()
        if cls.builtin in _SCHEDULERS:
            return self.make_scheduler(cls, args, kwargs, node)
        if cls.builtin not in _OPTIMIZERS:
            raise ScriptRuntimeError(f"{cls.name}() cannot be made here", "TypeError")
        if not args and "params" not in kwargs:
            raise ScriptRuntimeError(
                f"{cls.name}.__init__() missing 1 required positional argument: 'params'", "TypeError"
            )
        params = args[0] if args else kwargs.pop("params")
        for key in ("foreach", "fused", "differentiable", "capturable"):
            if kwargs.get(key):
                raise ScriptError(
                    f"{source_position(node)}: {cls.name}({key}=True) is not supported by gradcli run: it models "
                    "torch's default CPU path"
                )
        if "step_dtype" in kwargs or "sqrt" in kwargs:
            raise ScriptRuntimeError(f"{cls.name}.__init__() got an unexpected keyword argument", "TypeError")
        groups = self.parameter_groups(params)
        try:
            engine = _OPTIMIZERS[cls.builtin](groups, *args[1:], **kwargs)
        except (TypeError, ValueError, RuntimeError, KeyError) as exc:
            raise ScriptRuntimeError(str(exc), type(exc).__name__) from None
        return OptimizerInstance(cls, engine)

    def parameter_groups(self, params: Any) -> list:
        if isinstance(params, Tensor):
            raise ScriptRuntimeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + (
                    "torch.nn.parameter.Parameter"
                    if getattr(params, "parameter", False)
                    else "torch.FloatTensor"
                ),
                "TypeError",
            )
        items = self.sequence_of(params) if not isinstance(params, Generated) else list(params)
        if items and isinstance(items[0], dict):
            groups = []
            for group in items:
                if not isinstance(group, dict) or "params" not in group:
                    raise ScriptRuntimeError("param_group must be a dict with 'params'", "TypeError")
                given = group["params"]
                members = [given] if isinstance(given, Tensor) else list(self.sequence_of(given))
                groups.append({**group, "params": [self.mirror_of(p) for p in members]})
            return groups
        return [self.mirror_of(p) for p in items]

    def mirror_of(self, value: Any) -> Any:
        if not isinstance(value, Tensor):
            raise ScriptRuntimeError(
                f"optimizer can only optimize Tensors, but one of the params is {self.class_name(value)}",
                "TypeError",
            )
        if not value.is_leaf:
            raise ScriptRuntimeError("can't optimize a non-leaf Tensor", "ValueError")
        return _mirror(value)

    def make_scheduler(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> Instance:
        if not args or not isinstance(args[0], OptimizerInstance):
            given = self.class_name(args[0]) if args else "nothing"
            raise ScriptRuntimeError(f"{given} is not an Optimizer", "TypeError")
        rest = list(args[1:])
        if cls.builtin == "LambdaLR":
            function = rest[0] if rest else kwargs.get("lr_lambda")
            wrapped = self.python_callable(function)
            if rest:
                rest[0] = wrapped
            else:
                kwargs["lr_lambda"] = wrapped
        try:
            engine = _SCHEDULERS[cls.builtin](args[0].engine, *rest, **kwargs)
        except (TypeError, ValueError, RuntimeError, KeyError) as exc:
            raise ScriptRuntimeError(str(exc), type(exc).__name__) from None
        return SchedulerInstance(cls, engine, args[0])

    def python_callable(self, function: Any) -> Any:
        """A script's function as a Python callable of numbers (LambdaLR's lr_lambda)."""
        if isinstance(function, (list, tuple)):
            return [self.python_callable(f) for f in function]
        if not isinstance(function, UserFunction) and not self.foreign(function):
            raise ScriptRuntimeError("lr_lambda should be a function", "TypeError")

        def call(epoch: int) -> float:
            value = self.call_function(function, [epoch], {}, self.here())
            if isinstance(value, Tensor):
                value = value.value.item()
            return value

        return call

    # -- attributes and methods ------------------------------------------------------------

    def optim_attribute(self, owner: Instance, name: str) -> Any:
        engine = owner.engine  # type: ignore[attr-defined]
        if isinstance(owner, OptimizerInstance):
            if name == "param_groups":
                return engine.param_groups
            if name == "defaults":
                return engine.defaults
            if name == "state":
                return {self.tensor_of(i, engine): self.state_values(s) for i, s in engine.state.items()}
            if name in ("step", "zero_grad", "state_dict", "add_param_group", "load_state_dict"):
                return Method(owner, name)
        else:
            if name in ("last_epoch", "base_lrs"):
                return getattr(engine, name)
            if name == "optimizer":
                return owner.optimizer  # type: ignore[attr-defined]
            if name in ("step", "get_last_lr", "get_lr", "state_dict", "load_state_dict"):
                return Method(owner, name)
        raise ScriptRuntimeError(f"'{owner.cls.name}' object has no attribute '{name}'", "AttributeError")

    def tensor_of(self, index: int, engine: optim.Optimizer) -> Tensor:
        mirrors = [p for group in engine.param_groups for p in group["params"]]
        return mirrors[index].tensor

    def state_values(self, state: dict) -> dict:
        return {k: Tensor(np.array(v)) if isinstance(v, np.ndarray) else v for k, v in state.items()}

    def optim_method(self, owner: Instance, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        engine = owner.engine  # type: ignore[attr-defined]
        if isinstance(owner, SchedulerInstance):
            if name == "step":
                engine.step(*args, **kwargs)
                return None
            if name == "state_dict":
                return engine.state_dict()
            if name == "load_state_dict":
                if not args or not isinstance(args[0], dict):
                    raise ScriptRuntimeError("load_state_dict() expects a state dict", "TypeError")
                engine.load_state_dict(args[0])
                return None
            return list(engine.get_last_lr())
        if name == "step":
            closure = kwargs.pop("closure", args[0] if args else None)
            if len(args) > 1 or kwargs:
                raise ScriptRuntimeError(
                    f"{owner.cls.name}.step() takes from 1 to 2 positional arguments but "
                    f"{len(args) + len(kwargs) + 1} were given",
                    "TypeError",
                )
            loss = None
            if closure is not None:  # torch: `with torch.enable_grad(): loss = closure()`
                previous, self.grad_enabled = self.grad_enabled, True
                try:
                    loss = self.call_value(closure, [], node)
                finally:
                    self.grad_enabled = previous
            mirrors = [p for group in engine.param_groups for p in group["params"]]
            grads = []
            for mirror in mirrors:
                mirror[...] = mirror.tensor.value
                grad = mirror.tensor._grad
                grads.append(None if grad is None else np.asarray(grad.value))
            try:
                engine.step(grads)
            except (ValueError, NotImplementedError) as exc:
                raise ScriptRuntimeError(str(exc), type(exc).__name__) from None
            for mirror, grad in zip(mirrors, grads):
                if grad is not None:
                    mirror.tensor.assign(np.asarray(mirror))
            return loss
        if name == "zero_grad":
            set_to_none = kwargs.get("set_to_none", args[0] if args else True)
            for group in engine.param_groups:
                for mirror in group["params"]:
                    self.clear_grad(mirror.tensor, self.truth(set_to_none))
            return None
        if name == "state_dict":
            document = engine.state_dict()
            document["state"] = {i: self.state_values(s) for i, s in document["state"].items()}
            return document
        if name == "add_param_group":
            group = args[0] if args else None
            if not isinstance(group, dict):
                raise ScriptRuntimeError(
                    f"param_group must be a dict, but got {self.class_name(group)}", "TypeError"
                )
            try:
                engine.add_param_group(self.parameter_groups([group])[0])
            except (TypeError, ValueError) as exc:
                raise ScriptRuntimeError(str(exc), type(exc).__name__) from None
            return None
        raise ScriptError(f"{source_position(node)}: optimizer.{name}() is not supported by gradcli run")
