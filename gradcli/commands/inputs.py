"""Options every point-taking command shares (--at, --const, --dtype, --seed), and reading them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..errors import GradcliError
from .common import assignments


class Seed(click.types.IntParamType):
    """An integer torch.manual_seed takes. Not a click.IntRange: help would print its range as
    one 46-character word, which click's wrapper splits at 80 columns (`-9223` / `372036...`)."""

    name = "integer"
    LOW, HIGH = -(2**63), 2**64 - 1
    min, max = LOW, HIGH  # the bounds, where tests look for an integer option's bounds

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a valid integer.", param, ctx)
        if not self.LOW <= number <= self.HIGH:
            self.fail(
                f"{number} is not in the range -2**63 to 2**64-1 that torch.manual_seed takes.", param, ctx
            )
        return number


def point_options(function: Callable) -> Callable:
    """--at/--const/--dtype/--seed, declared once for grad, jacobian, hessian and check."""
    decorators = [
        click.option(
            "--at",
            "at",
            multiple=True,
            metavar="NAME=VALUE",
            callback=assignments,
            help="An input that requires grad (a leaf). Repeatable. VALUE @FILE reads a .json, "
            ".npy, .npz (@f.npz:key), .csv or .txt file; @- reads standard input.",
        ),
        click.option(
            "--const",
            "const",
            multiple=True,
            metavar="NAME=VALUE",
            callback=assignments,
            help="An input that does not require grad. Repeatable. VALUE may be @FILE.",
        ),
        click.option(
            "--dtype",
            type=click.Choice(["float64", "float32"]),
            default="float64",
            show_default=True,
            help="float32 reproduces PyTorch's default precision. Not given: float32 when every "
            "float @FILE is float32, else float64.",
        ),
        click.option(
            "--seed",
            type=Seed(),
            default=0,
            show_default=True,
            help="Seed for rand()/randn() values; any integer torch.manual_seed takes (-2**63 to 2**64-1).",
        ),
    ]
    for decorate in reversed(decorators):
        function = decorate(function)
    return function


class ValueReader:
    """Reads VALUE strings with one random generator, naming the option on error.

    `@FILE` VALUEs keep a float file's dtype: without --dtype, a program whose file inputs are
    all float32 runs in float32 (as torch.from_numpy's tensors would), else in float64;
    `dtype_name` is the dtype to compute in, known once every VALUE is read."""

    def __init__(self, dtype: str | None, seed: int) -> None:
        import numpy as np

        from ..api import DTYPES
        from ..values import SeededRandom

        ctx = click.get_current_context(silent=True)
        source = ctx.get_parameter_source("dtype") if ctx is not None and "dtype" in ctx.params else None
        # --dtype given (or no click context, as in a test): it decides; else the files may.
        self.explicit = dtype is not None and (source is None or source.name != "DEFAULT")
        self.dtype = np.dtype(DTYPES[dtype or "float64"])
        self.rng = SeededRandom(seed)
        self._file_floats: set[str] = set()
        self._stdin_free = not (
            ctx is not None and (ctx.params.get("expr") in ("-", "@-") or ctx.params.get("batch") == "-")
        )

    @property
    def dtype_name(self) -> str:
        if self.explicit or not self._file_floats:
            return str(self.dtype)
        return "float32" if self._file_floats == {"float32"} else "float64"

    def __call__(self, flag: str, name: str, text: str) -> Any:
        from ..values import parse_value

        try:
            if text.strip().startswith("@"):
                return self._file(flag, name, text.strip()[1:])
            return parse_value(text, self.dtype, self.rng)
        except GradcliError as exc:
            raise type(exc)(f"{flag} {name}: {exc.message}", hint=exc.hint) from None

    def _file(self, flag: str, name: str, spec: str) -> Any:
        from ..values import parse_value
        from .files import value_from

        if spec == "-" and not self._stdin_free:
            raise click.UsageError(
                f"{flag} {name}=@-: standard input is already read (by EXPR -, --batch - or another @-)"
            )
        value = value_from(spec, f"@{spec}")
        if spec == "-":
            self._stdin_free = False
            return parse_value(value, self.dtype, self.rng)  # standard input holds VALUE text
        if value.dtype.kind == "f":
            if self.explicit:
                return value.astype(self.dtype, copy=False)
            self._file_floats.add(str(value.dtype))
        return value

    def inputs(self, at: dict[str, str], const: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            {n: self("--at", n, v) for n, v in at.items()},
            {n: self("--const", n, v) for n, v in const.items()},
        )
