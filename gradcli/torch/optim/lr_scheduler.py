"""torch.optim.lr_scheduler, gradcli's: torch's learning-rate schedulers as real classes, over
gradcli/optim.py's (torch's arithmetic), writing each group's "lr" of the script's optimiser."""

from __future__ import annotations

from typing import Any

from ... import optim as engines
from .._bridge import namespace
from .optimizer import Optimizer

__getattr__ = namespace(
    "torch.optim.lr_scheduler"
)  # the names not defined here (`from torch.optim import X` asks it)


def _number(value: Any) -> Any:
    """What an lr_lambda returned, as the engine multiplies it (a 0-d tensor's number)."""
    item = getattr(value, "item", None)
    return item() if callable(item) and not isinstance(value, (int, float)) else value


def _numeric(function: Any) -> Any:
    if isinstance(function, (list, tuple)):
        return [_numeric(f) for f in function]
    if not callable(function):
        return function  # the engine calls it, and fails as torch fails
    return lambda epoch: _number(function(epoch))


class LRScheduler:
    """torch.optim.lr_scheduler.LRScheduler: step, get_last_lr, get_lr, state_dict, load_state_dict."""

    __module__ = "torch.optim.lr_scheduler"
    _engine_class: type[engines.LRScheduler] = engines.LRScheduler

    def __init__(self, optimizer: Any, *args: Any, **kwargs: Any) -> None:
        engine_optimizer = optimizer._engine if isinstance(optimizer, Optimizer) else optimizer
        if self._engine_class is engines.LambdaLR:
            if args:
                args = (_numeric(args[0]), *args[1:])
            elif "lr_lambda" in kwargs:
                kwargs["lr_lambda"] = _numeric(kwargs["lr_lambda"])
        self.optimizer = optimizer
        self._engine = self._engine_class(engine_optimizer, *args, **kwargs)

    @property
    def last_epoch(self) -> int:
        return self._engine.last_epoch

    @property
    def base_lrs(self) -> list:
        return self._engine.base_lrs

    def step(self, epoch: int | None = None) -> None:
        self._engine.step(epoch)

    def get_last_lr(self) -> list[float]:
        return list(self._engine.get_last_lr())

    def get_lr(self) -> list[float]:
        return list(self._engine.get_lr())

    def state_dict(self) -> dict[str, Any]:
        return self._engine.state_dict()

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not isinstance(state_dict, dict):
            raise TypeError("load_state_dict() expects a state dict")
        self._engine.load_state_dict(state_dict)


def _scheduler(name: str) -> type[LRScheduler]:
    engine = getattr(engines, name)
    return type(
        name,
        (LRScheduler,),
        {"__module__": "torch.optim.lr_scheduler", "_engine_class": engine, "__doc__": engine.__doc__},
    )


StepLR = _scheduler("StepLR")
MultiStepLR = _scheduler("MultiStepLR")
ExponentialLR = _scheduler("ExponentialLR")
CosineAnnealingLR = _scheduler("CosineAnnealingLR")
LambdaLR = _scheduler("LambdaLR")
