"""The commands of gradcli, each in its own module; cli.py adds them to the group."""

from __future__ import annotations

import importlib
import importlib.util

import click

# Module name -> the click command it defines. Order is the order of `gradcli --help`.
COMMANDS = {
    "grad": "grad_command",
    "jacobian": "jacobian_command",
    "hessian": "hessian_command",
    "check": "check_command",
    "graph": "graph_command",
    "ops": "ops_command",
}


def all_commands() -> list[click.Command]:
    commands = []
    for module_name, attribute in COMMANDS.items():
        qualified = f"{__name__}.{module_name}"
        if importlib.util.find_spec(qualified) is None:  # TEMPORARY while commands are being written
            continue
        commands.append(getattr(importlib.import_module(qualified), attribute))
    return commands
