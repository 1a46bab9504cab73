"""torch's generators as script values: `torch.Generator()` objects, `generator=` on the draws
that take one, `torch.default_generator`, `get_rng_state`/`set_rng_state`, `seed`/`initial_seed`.

Every generator is gradcli's model of torch's CPU generator (torch_random.Generator, bit for bit),
so `g = torch.Generator().manual_seed(0); torch.rand(3, generator=g)` prints torch's numbers and
leaves the default generator where torch leaves it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..torch_random import Generator
from .runtime import ScriptRuntimeError, Tensor

GENERATOR_METHODS = frozenset({"manual_seed", "seed", "initial_seed", "get_state", "set_state"})
STATE_FUNCTIONS = frozenset({"get_rng_state", "set_rng_state", "seed", "initial_seed", "Generator"})


@dataclass(eq=False)
class TorchGenerator:
    """What torch.Generator() (or torch.default_generator) gives a script."""

    engine: Generator

    def __repr__(self) -> str:
        return "<torch._C.Generator object at 0x7f0000000000>"


class RandomGenerators:
    """Mixed into Interpreter: generator objects and the generator a draw takes."""

    def chosen_generator(self, kwargs: dict) -> Generator:
        """The generator= of a draw (popped from kwargs), or the default one."""
        given = kwargs.pop("generator", None)
        if given is None:
            return self.random
        if not isinstance(given, TorchGenerator):
            raise ScriptRuntimeError(
                f"generator must be a torch.Generator, not {self.type_name(given)}", "TypeError"
            )
        return given.engine

    def default_generator(self) -> TorchGenerator:
        if getattr(self, "_default_generator", None) is None:
            self._default_generator = TorchGenerator(self.torch_generator)
        return self._default_generator

    def state_call(self, name: str, args: list, kwargs: dict) -> Any:
        """torch.Generator(device='cpu'), torch.get_rng_state(), set_rng_state(s), seed(), initial_seed()."""
        if name == "Generator":
            device = args[0] if args else kwargs.pop("device", "cpu")
            if len(args) > 1 or kwargs:
                raise ScriptRuntimeError("Generator() takes a device only", "TypeError")
            if self.device(device).kind != "cpu":
                raise ScriptRuntimeError("Torch not compiled with CUDA enabled", "RuntimeError")
            return TorchGenerator(Generator())
        target = self.default_generator()
        if name == "set_rng_state":
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError("set_rng_state() takes one state tensor", "TypeError")
            return self.torch_generator_method(target, "set_state", args, {})
        if args or kwargs:
            raise ScriptRuntimeError(f"{name}() takes no arguments", "TypeError")
        if name == "seed":
            self.seeded.add("torch")  # reseeded on purpose: fresh numbers are what was asked for
        return self.torch_generator_method(target, {"get_rng_state": "get_state"}.get(name, name), [], {})

    def torch_generator_method(self, g: TorchGenerator, name: str, args: list, kwargs: dict) -> Any:
        if kwargs and not (name == "manual_seed" and set(kwargs) == {"seed"}):
            raise ScriptRuntimeError(f"{name}() takes no keyword arguments", "TypeError")
        args = [*args, *kwargs.values()]
        if name == "manual_seed":
            if len(args) != 1 or not isinstance(args[0], int) or isinstance(args[0], bool):
                raise ScriptRuntimeError("manual_seed() takes one integer seed", "TypeError")
            if g.engine is self.torch_generator:
                self.seeded.add("torch")
            try:
                g.engine.manual_seed(args[0])
            except ValueError as exc:
                raise ScriptRuntimeError(str(exc), "RuntimeError") from None
            return g
        if args:
            if name != "set_state" or len(args) != 1:
                raise ScriptRuntimeError(f"{name}() takes no arguments", "TypeError")
            state = args[0]
            if not isinstance(state, Tensor) or state.dtype != "uint8":
                raise ScriptRuntimeError(
                    f"set_state(): argument 'new_state' must be a torch.ByteTensor, not {self.type_name(state)}",
                    "TypeError",
                )
            if g.engine is self.torch_generator:
                self.seeded.add("torch")
            try:
                g.engine.set_state(state.value.tobytes())
            except RuntimeError as exc:
                raise ScriptRuntimeError(str(exc), "RuntimeError") from None
            return g
        if name == "seed":
            return g.engine.seed()
        if name == "initial_seed":
            return g.engine.initial_seed()
        return Tensor(np.frombuffer(g.engine.get_state(), dtype=np.uint8).copy(), dtype="uint8")
