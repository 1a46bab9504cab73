"""Every command documents itself with examples; --version and shell completion work."""

from __future__ import annotations

import click
import pytest

from gradcli import __version__
from gradcli.cli import main


def _commands(group: click.Group) -> list[tuple[str, ...]]:
    """Every command path under the group, nested groups included."""
    paths: list[tuple[str, ...]] = [()]
    stack = [((), group)]
    while stack:
        prefix, command = stack.pop()
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                paths.append((*prefix, name))
                stack.append(((*prefix, name), command.commands[name]))
    return paths


COMMANDS = _commands(main)


def test_the_walk_finds_the_commands():
    names = {path[0] for path in COMMANDS if path}
    assert {"grad", "graph", "ops"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "gradcli")
def test_every_help_has_examples(run, path):
    result = run(*path, "--help")
    assert result.exit_code == 0, result.stderr
    assert "Usage:" in result.stdout
    assert "Example" in result.stdout, f"`gradcli {' '.join(path)} --help` has no Examples section"
    assert "\x1b[" not in result.stdout


@pytest.mark.parametrize("path", [("graph",), ("ops",)], ids=lambda p: " ".join(p))
def test_help_fits_80_columns(run, path):
    assert max(len(line) for line in run(*path, "--help").stdout.splitlines()) <= 80


def test_version(run):
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"gradcli, version {__version__}"


def test_bash_completion_script(run):
    runner = click.testing.CliRunner()
    result = runner.invoke(main, [], prog_name="gradcli", env={"_GRADCLI_COMPLETE": "bash_source"})
    assert "_gradcli_completion" in result.stdout
    assert "complete -o nosort -F _gradcli_completion gradcli" in result.stdout


def test_completion_of_command_names():
    runner = click.testing.CliRunner()
    env = {"_GRADCLI_COMPLETE": "bash_complete", "COMP_WORDS": "gradcli gr", "COMP_CWORD": "1"}
    result = runner.invoke(main, [], prog_name="gradcli", env=env)
    assert "plain,grad" in result.stdout.splitlines()
    assert "plain,graph" in result.stdout.splitlines()
