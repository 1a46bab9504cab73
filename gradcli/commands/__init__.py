"""The commands of gradcli, each in its own module, imported only when used."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

import click

# Command name -> (module, the click command in it), in alphabetical order as --help lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("higher", "check_command"),
    "grad": ("grad", "grad_command"),
    "graph": ("graph", "graph_command"),
    "hessian": ("higher", "hessian_command"),
    "hvp": ("products", "hvp_command"),
    "jacobian": ("higher", "jacobian_command"),
    "jvp": ("products", "jvp_command"),
    "ops": ("ops", "ops_command"),
    "run": ("run", "run_command"),
    "vjp": ("products", "vjp_command"),
}


class LazyCommands(Mapping[str, click.Command]):
    """The click group's `commands`, importing a command's module when it is looked up.

    `gradcli grad` then imports only the grad command (not `graph`'s subprocess handling);
    `gradcli --help`, and click's "did you mean" hints, see every name all the same.
    """

    def __init__(self) -> None:
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module_name, attribute = COMMANDS[name]  # KeyError for an unknown name, as a dict
            module = importlib.import_module(f"{__name__}.{module_name}")
            self._loaded[name] = getattr(module, attribute)
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS  # without importing anything

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)
