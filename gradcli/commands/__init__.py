"""The commands of gradcli, each in its own module; cli.py adds them to the group."""

from __future__ import annotations

import click


def all_commands() -> list[click.Command]:
    from .grad import grad_command

    return [grad_command]
