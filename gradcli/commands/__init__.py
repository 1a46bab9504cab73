"""The commands of gradcli, each in its own module; cli.py adds them to the group."""

from __future__ import annotations

import importlib

import click

# Module name -> the click command(s) it defines, in the order of `gradcli --help`.
COMMANDS: dict[str, str | tuple[str, ...]] = {
    "grad": "grad_command",
    "higher": ("jacobian_command", "hessian_command", "check_command"),
    "graph": "graph_command",
    "ops": "ops_command",
}


def all_commands() -> list[click.Command]:
    commands = []
    for module_name, attributes in COMMANDS.items():
        module = importlib.import_module(f"{__name__}.{module_name}")
        names = (attributes,) if isinstance(attributes, str) else attributes
        commands.extend(getattr(module, name) for name in names)
    return commands
