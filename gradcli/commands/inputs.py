"""Options every point-taking command shares (--at, --const, --dtype, --seed), and reading them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..errors import GradcliError
from .common import assignments


def point_options(function: Callable) -> Callable:
    """--at/--const/--dtype/--seed, declared once for grad, jacobian, hessian and check."""
    decorators = [
        click.option(
            "--at",
            "at",
            multiple=True,
            metavar="NAME=VALUE",
            callback=assignments,
            help="An input that requires grad (a leaf). Repeatable.",
        ),
        click.option(
            "--const",
            "const",
            multiple=True,
            metavar="NAME=VALUE",
            callback=assignments,
            help="An input that does not require grad. Repeatable.",
        ),
        click.option(
            "--dtype",
            type=click.Choice(["float64", "float32"]),
            default="float64",
            show_default=True,
            help="float32 reproduces PyTorch's default precision.",
        ),
        click.option(
            "--seed",
            type=click.IntRange(-(2**63), 2**64 - 1),
            default=0,
            show_default=True,
            help="Seed for rand()/randn() values; any integer torch.manual_seed takes.",
        ),
    ]
    for decorate in reversed(decorators):
        function = decorate(function)
    return function


class ValueReader:
    """Reads VALUE strings in one dtype with one random generator, naming the option on error."""

    def __init__(self, dtype: str, seed: int) -> None:
        import numpy as np

        from ..api import DTYPES
        from ..values import SeededRandom

        self.dtype = np.dtype(DTYPES[dtype])
        self.rng = SeededRandom(seed)

    def __call__(self, flag: str, name: str, text: str) -> Any:
        from ..values import parse_value

        try:
            return parse_value(text, self.dtype, self.rng)
        except GradcliError as exc:
            raise type(exc)(f"{flag} {name}: {exc.message}", hint=exc.hint) from None

    def inputs(self, at: dict[str, str], const: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            {n: self("--at", n, v) for n, v in at.items()},
            {n: self("--const", n, v) for n, v in const.items()},
        )
