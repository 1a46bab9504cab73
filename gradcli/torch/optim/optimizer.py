"""torch.optim's optimisers, gradcli's: real classes over the script's tensors, whose arithmetic
is gradcli/optim.py's (torch's single-tensor CPU steps, bit for bit).

An optimiser's `param_groups` are torch's: live dicts whose "params" are the script's tensors, so
`group["lr"] = 0.01` (or a scheduler) changes the next step. A step hands the engine each
parameter's values and gradient as NumPy arrays for the duration of the call, and writes the
updated values back into the tensors in place (their version counters move, as torch's in-place
updates under no_grad move them).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ... import optim as engines
from ...script import runtime
from ...script.values import NoGrad
from .. import _bridge
from .._tensor import Tensor

# the kernel paths torch has besides its default CPU one; gradcli models that one
_OTHER_PATHS = ("foreach", "fused", "differentiable", "capturable")


def _typename(value: Any) -> str:
    """torch.typename of what a script handed an optimiser in place of a tensor."""
    if isinstance(value, Tensor):
        return "torch.nn.parameter.Parameter" if type(value).__name__ == "Parameter" else value.type()
    return engines._typename(value)  # the engine's, for what is not a tensor


def _checked(value: Any) -> Any:
    """A parameter as torch's add_param_group checks it."""
    if not isinstance(value, Tensor):
        raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(value)}")
    if not value.is_leaf:
        raise ValueError("can't optimize a non-leaf Tensor")
    return value


def _members(given: Any) -> list:
    if isinstance(given, Tensor):
        return [_checked(given)]
    if isinstance(given, set):
        raise TypeError(
            "optimizer parameters need to be organized in ordered collections, but the ordering of "
            "tensors in sets will change between runs. Please use a list instead."
        )
    return [_checked(p) for p in given]


def _groups(params: Any) -> list:
    """The script's params as torch reads them: tensors, or dicts of groups (validated)."""
    if isinstance(params, Tensor):
        raise TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
            + _typename(params)
        )
    items = list(params)
    if not items or not isinstance(items[0], dict):
        tensors = [_checked(p) for p in items]  # the engine says what an empty list is
        _check_distinct([], tensors)
        return tensors
    groups: list[dict] = []
    for group in items:
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("param_group must be a dict with 'params'")
        groups.append({**group, "params": _members(group["params"])})
        _check_distinct(groups[:-1], groups[-1]["params"])
    return groups


def _check_distinct(groups: list[dict], params: list) -> None:
    """torch's add_param_group check across groups, by the tensors themselves (within a group,
    the engine warns of a tensor listed twice: it gets one array for it)."""
    ids = {id(p) for p in params}
    if any(id(p) in ids for group in groups for p in group["params"]):
        raise ValueError("some parameters appear in more than one parameter group")


def _arrays(tensors: Iterable[Tensor], made: dict[int, np.ndarray] | None = None) -> list[np.ndarray]:
    """The engine's arrays for these tensors: one per tensor, so a tensor listed twice is one
    array the engine updates twice, as torch updates the one tensor twice."""
    made = {} if made is None else made
    for t in tensors:
        if id(t) not in made:
            made[id(t)] = np.array(object.__getattribute__(t, "_rt").value, copy=True)
    return [made[id(t)] for t in tensors]


def _as_tensor(value: Any) -> Any:
    """An engine's state value (an array, a count) as torch keeps it: a tensor."""
    return _bridge.wrap(runtime.Tensor(np.array(value))) if isinstance(value, np.ndarray) else value


class Optimizer:
    """torch.optim.Optimizer: param_groups, state, step, zero_grad, state_dict, add_param_group."""

    __module__ = "torch.optim.optimizer"
    _engine_class: type[engines.Optimizer] = engines.Optimizer

    def __init__(self, params: Any, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        if type(self) is Optimizer:
            raise TypeError(
                "torch.optim.Optimizer is a base class: use one of its subclasses (SGD, Adam, ...)"
            )
        for key in _OTHER_PATHS:
            if kwargs.get(key):
                raise _bridge.NotInGradcli(
                    f"{name}({key}=True) is not in gradcli's torch: it models torch's default CPU path"
                )
        for key in ("step_dtype", "sqrt"):  # the engine's own knobs, not torch's
            if key in kwargs:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
        groups = _groups(params)
        if groups and isinstance(groups[0], dict):
            made: dict[int, np.ndarray] = {}
            given: list = [{**g, "params": _arrays(g["params"], made)} for g in groups]
            publics = [g["params"] for g in groups]
        else:
            given, publics = _arrays(groups), [groups]
        self._engine = self._engine_class(given, *args, **kwargs)
        for group, tensors in zip(self._engine.param_groups, publics, strict=True):
            group["params"] = list(tensors)
        # a script's own Optimizer subclass keeps its state here, as torch's defaultdict(dict)
        self._own_state: collections.defaultdict = collections.defaultdict(dict)

    # -- torch's attributes --------------------------------------------------------------

    @property
    def param_groups(self) -> list[dict[str, Any]]:
        return self._engine.param_groups

    @property
    def defaults(self) -> dict[str, Any]:
        return self._engine.defaults

    def _parameters(self) -> list[Tensor]:
        return [p for group in self.param_groups for p in group["params"]]

    @property
    def state(self) -> dict:
        """{parameter: {"step": tensor, "exp_avg": tensor, ...}}, for the parameters stepped so far."""
        if self._engine_class is engines.Optimizer:  # a script's own subclass: its own bookkeeping
            return self._own_state
        tensors = self._parameters()
        return {
            tensors[index]: {k: _as_tensor(v) for k, v in values.items()}
            for index, values in self._engine.state.items()
        }

    def __repr__(self) -> str:  # the engine's, under the script's class name (a subclass's own)
        return type(self).__name__ + repr(self._engine)[len(type(self._engine).__name__) :]

    # -- torch's methods -----------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self._parameters():
            rt = object.__getattribute__(p, "_rt")
            _bridge.call_raw(lambda s, rt=rt: s.clear_grad(rt, bool(set_to_none)))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        if self._engine_class is engines.Optimizer:
            raise NotImplementedError(f"{type(self).__name__}.step is not implemented")
        loss = None
        if closure is not None:  # torch: `with torch.enable_grad(): loss = closure()`
            loss = _bridge._in_mode(NoGrad(enabled=True), closure)()
        tensors = self._parameters()
        grads = []
        for p in tensors:
            grad = object.__getattribute__(p, "_rt")._grad
            grads.append(None if grad is None else np.asarray(grad.value))
        kept = [group["params"] for group in self.param_groups]
        made: dict[int, np.ndarray] = {}
        try:
            for group in self.param_groups:
                group["params"] = _arrays(group["params"], made)
            self._engine.step(grads)
        finally:
            for group, params in zip(self.param_groups, kept, strict=True):
                group["params"] = params
        for p, grad in zip(tensors, grads, strict=True):
            if grad is not None:
                object.__getattribute__(p, "_rt").assign(made[id(p)])
        return loss

    def state_dict(self) -> dict[str, Any]:
        document = self._engine.state_dict()
        document["state"] = {
            i: {k: _as_tensor(v) for k, v in s.items()} for i, s in document["state"].items()
        }
        return document

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        raise _bridge.NotInGradcli(
            "Optimizer.load_state_dict is not in gradcli's torch (docs/run.md lists what is)"
        )

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        (group,) = _groups([param_group])
        _check_distinct(self.param_groups, group["params"])
        self._engine.add_param_group({**group, "params": _arrays(group["params"])})
        self._engine.param_groups[-1]["params"] = list(group["params"])


def _optimizer(name: str, engine: type[engines.Optimizer], module: str) -> type[Optimizer]:
    """One of torch's optimisers: its name, its module, its engine, and a step of its own (torch's
    optimisers each define step, so a wrong call names `SGD.step()`)."""

    def step(self: Optimizer, closure: Callable[[], Any] | None = None) -> Any:
        return Optimizer.step(self, closure)

    step.__qualname__ = f"{name}.step"
    return type(
        name,
        (Optimizer,),
        {
            "__module__": f"torch.optim.{module}",
            "_engine_class": engine,
            "__doc__": engine.__doc__,
            "step": step,
        },
    )


SGD = _optimizer("SGD", engines.SGD, "sgd")
Adam = _optimizer("Adam", engines.Adam, "adam")
AdamW = _optimizer("AdamW", engines.AdamW, "adamw")
RMSprop = _optimizer("RMSprop", engines.RMSprop, "rmsprop")
Adagrad = _optimizer("Adagrad", engines.Adagrad, "adagrad")
