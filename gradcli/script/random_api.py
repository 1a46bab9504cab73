"""torch's generators as script values: `torch.Generator()` objects, `generator=` on the draws
that take one, `torch.default_generator`, `get_rng_state`/`set_rng_state`, `seed`/`initial_seed`.

Every generator is gradcli's model of torch's CPU generator (torch_random.Generator, bit for bit),
so `g = torch.Generator().manual_seed(0); torch.rand(3, generator=g)` prints torch's numbers and
leaves the default generator where torch leaves it."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..torch_random import Generator
from .runtime import ScriptError, ScriptRuntimeError, Tensor, stored

GENERATOR_METHODS = frozenset({"manual_seed", "seed", "initial_seed", "get_state", "set_state"})
_HERE = ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)  # a node for calls made here
STATE_FUNCTIONS = frozenset({"get_rng_state", "set_rng_state", "seed", "initial_seed", "Generator"})


@dataclass(eq=False)
class TorchGenerator:
    """What torch.Generator() (or torch.default_generator) gives a script."""

    engine: Generator

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


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


# draws a script calls as torch functions, and as tensor methods (in place but multinomial)
RANDOM_CALLS = frozenset({"bernoulli", "multinomial", "randint_like"})
RANDOM_METHODS = frozenset({"bernoulli_", "bernoulli", "exponential_", "random_", "multinomial"})


class RandomDraws:
    """Mixed into Interpreter: torch.bernoulli / multinomial / randint_like and the in-place
    draws x.bernoulli_(p), x.exponential_(), x.random_(...), from torch's generator model."""

    def random_call(self, name: str, args: list, kwargs: dict) -> Any:
        if not args or not isinstance(args[0], Tensor):
            raise ScriptRuntimeError(f"{name}(): argument 'input' (position 1) must be Tensor", "TypeError")
        if name == "randint_like":
            source, rest = args[0], list(args[1:])
            bounds = [rest.pop(0) for _ in range(min(len(rest), 2))]
            for key in ("low", "high"):
                if key in kwargs:
                    bounds.append(kwargs.pop(key))
            low, high = (
                (0, bounds[0]) if len(bounds) == 1 else tuple(bounds) if len(bounds) == 2 else (None, None)
            )
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)):
                raise ScriptRuntimeError(
                    "randint_like() takes integer bounds (high) or (low, high)", "TypeError"
                )
            generator = self.chosen_generator(kwargs)
            dtype = self.dtype_of(kwargs, source.dtype)
            if high <= low:
                raise ScriptRuntimeError(
                    f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
                )
            values = self.python_draw(lambda: generator.random_(source.shape, _drawn(dtype), low, high))
            return self.finish(stored(values, dtype), dtype, kwargs, name, None)
        return self.random_method(args[0], name, list(args[1:]), kwargs)

    def random_method(self, t: Tensor, name: str, args: list, kwargs: dict) -> Any:
        generator = self.chosen_generator(kwargs)
        if name == "multinomial":
            names = ["num_samples", "replacement"]
            given = dict(zip(names, args)) | kwargs
            if len(args) > 2 or set(kwargs) - set(names) or "num_samples" not in given:
                raise ScriptRuntimeError("multinomial() takes num_samples and replacement", "TypeError")
            count, replace = given["num_samples"], self.truth(given.get("replacement", False))
            if not isinstance(count, int) or isinstance(count, bool):
                raise ScriptRuntimeError("multinomial(): argument 'num_samples' must be int", "TypeError")
            if t.dtype not in ("float32", "float64") or t.value.ndim not in (1, 2):
                raise ScriptRuntimeError("prob_dist must be 1 or 2 dim")
            if count <= 0:
                raise ScriptRuntimeError("cannot sample n_sample <= 0 samples")
            if not replace and count > t.shape[-1]:
                raise ScriptRuntimeError(
                    "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
                )
            values = self.python_draw(lambda: generator.multinomial(t.value, count, replace))
            return Tensor(values, dtype="int64")
        if name == "bernoulli":  # torch.bernoulli(p) / p.bernoulli(): a new tensor of 0s and 1s
            if args or kwargs:
                raise ScriptRuntimeError("bernoulli() takes the probabilities only", "TypeError")
            self.check_float(t, "bernoulli")
            return Tensor(
                self.python_draw(lambda: generator.bernoulli(t.value, None, t.dtype)), dtype=t.dtype
            )
        if self.grad_enabled and t.requires_grad:
            raise ScriptRuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        if name == "bernoulli_":
            p = args[0] if args else kwargs.pop("p", 0.5)
            if args[1:] or kwargs:
                raise ScriptRuntimeError("bernoulli_() takes p and generator", "TypeError")
            self.check_float(t, "bernoulli_")
            chance = p.value if isinstance(p, Tensor) else p
            if not isinstance(chance, (int, float, np.ndarray)) or isinstance(chance, bool):
                raise ScriptRuntimeError("bernoulli_(): argument 'p' must be float or Tensor", "TypeError")
            if not isinstance(chance, np.ndarray) and not 0 <= chance <= 1:
                raise ScriptRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={chance:g}")
            values = self.python_draw(lambda: generator.bernoulli(chance, t.shape, t.dtype))
        elif name == "exponential_":
            lambd = args[0] if args else kwargs.pop("lambd", 1.0)
            if args[1:] or kwargs:
                raise ScriptRuntimeError("exponential_() takes lambd and generator", "TypeError")
            self.check_float(t, "exponential_")
            if not isinstance(lambd, (int, float)) or isinstance(lambd, bool):
                raise ScriptRuntimeError("exponential_(): argument 'lambd' must be float", "TypeError")
            if not lambd > 0:  # C++ prints the double as %g does
                raise ScriptRuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
            values = self.python_draw(lambda: generator.exponential(t.shape, float(lambd), t.dtype))
        else:  # random_(), random_(to), random_(from, to)
            bounds = [*args, *(kwargs.pop(k) for k in ("from", "to") if k in kwargs)]
            if (
                len(bounds) > 2
                or kwargs
                or any(not isinstance(v, int) or isinstance(v, bool) for v in bounds if v is not None)
            ):
                raise ScriptRuntimeError("random_() takes integer bounds (to) or (from, to)", "TypeError")
            low, high = (None, None) if not bounds else (0, bounds[0]) if len(bounds) == 1 else tuple(bounds)
            values = self.python_draw(lambda: generator.random_(t.shape, _drawn(t.dtype), low, high))
        t.assign(values)
        return t

    def check_float(self, t: Tensor, name: str) -> None:
        if t.dtype not in ("float32", "float64"):
            raise ScriptRuntimeError(
                f"\"{name.rstrip('_')}_cpu\" not implemented for '{t.dtype.capitalize()}'"
            )

    def python_draw(self, draw: Any) -> np.ndarray:
        """A draw by the generator model; what it refuses (bounds it does not model) is a one-line error."""
        try:
            return draw()
        except RuntimeError as exc:
            raise ScriptRuntimeError(str(exc)) from None
        except ValueError as exc:
            raise ScriptError(f"line {self.line}: {exc}") from None


    # -- nn.init.trunc_normal_ ---------------------------------------------------------------

    def truncated_normal(self, t: Tensor, given: dict) -> Tensor:
        """nn.init.trunc_normal_ as torch 2.13 draws it: normal draws redrawn where they fall
        outside [a, b] when that interval holds over 30% of the mass, else uniform candidates
        on [a, b] accepted against the normal density, redrawn until all are accepted."""
        mean, std, a, b = (given[k] for k in ("mean", "std", "a", "b"))
        for value in (mean, std, a, b):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ScriptRuntimeError(
                    f"trunc_normal_() expects numbers, got {self.class_name(value)}", "TypeError"
                )
        if std == 0:
            raise ScriptRuntimeError("float division by zero", "ZeroDivisionError")
        if mean < a - 2 * std or mean > b + 2 * std:
            self.warn(
                "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                "The distribution of values may be incorrect."
            )

        def normal_cdf(x: float) -> float:
            return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

        generator = {"generator": given["generator"]}

        def drawn(kind: str, low: float = 0.0, high: float = 1.0) -> Tensor:
            fresh = Tensor(np.zeros(t.shape, dtype=t.dtype), dtype=t.dtype)
            self.random_fill(fresh, kind, [low, high], dict(generator))
            return fresh

        def step(x: Tensor, method: str, *arguments: Any) -> Tensor:
            return self.tensor_method(x, method, list(arguments), {}, _HERE)

        if normal_cdf((b - mean) / std) - normal_cdf((a - mean) / std) > 0.3:
            low, high = (float(np.array(v, dtype=t.dtype)) for v in (a, b))  # the bounds in t's dtype
            result = drawn("normal_", mean, std).value
            while ((result < low) | (result > high)).any():
                result = np.where((result < low) | (result > high), drawn("normal_", mean, std).value, result)
            t.assign(result)
            return t
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_density(candidates: Tensor) -> Tensor:  # -0.5 * ((c - mean) / std) ** 2 - log_peak
            for method, argument in (("sub_", mean), ("div_", std), ("pow_", 2), ("mul_", -0.5), ("sub_", log_peak)):
                step(candidates, method, argument)
            return candidates

        def rejected(density: Tensor) -> np.ndarray:
            return step(step(drawn("uniform_"), "log_"), "gt", density).value

        first = drawn("uniform_", a, b)
        result = first.value.copy()
        pending = rejected(log_density(first))
        while pending.any():
            candidates = drawn("uniform_", a, b)
            result = np.where(pending, candidates.value, result)
            pending = np.where(pending, rejected(log_density(candidates)), pending)
        t.assign(result)
        return t


def _drawn(dtype: str) -> str:
    """random_ draws int64 or float words; int32 and bool tensors take int64's (then cast)."""
    return dtype if dtype in ("int64", "float32", "float64") else "int64"
