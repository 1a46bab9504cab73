"""The console examples of the README and of docs/ are run and their shown output compared, so
the documentation stays true.

Lines of `...` skip output; `[...]` inside a line skips part of it. Examples that need a
shell (pipes) are not run here.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradcli.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"
# The reference moved out of the README into docs/; its examples are checked as the README's are.
# docs/tutorial.md is not here: tests/test_help.py checks its transcripts byte for byte.
PAGES = [README, *sorted(page for page in DOCS.glob("*.md") if page.name != "tutorial.md")]
LIMITS_PAGE = DOCS / "limits.md"


def _examples(page: Path = README) -> list[tuple[str, list[str]]]:
    examples = []
    for block in re.findall(r"```console\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i].rstrip())
                i += 1
            if "|" not in command.split("'")[0].split('"')[0] and " | " not in command:
                examples.append((command, output))
    return examples


def _matches(expected: str, actual: str) -> bool:
    parts = expected.split("[...]")
    pattern = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(pattern, actual) is not None


PAGE_EXAMPLES = [(page, example) for page in PAGES for example in _examples(page)]
EXAMPLES = [example for _, example in PAGE_EXAMPLES]


def test_readme_has_runnable_examples():
    assert len(_examples(README)) >= 8


@pytest.mark.parametrize("page", ["reference.md", "vocabulary.md", "run.md"])
def test_each_reference_page_has_runnable_examples(page):
    assert len(_examples(DOCS / page)) >= 1


def test_readme_reads_in_five_minutes_and_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 300
    for page in DOCS.glob("*.md"):
        assert f"(docs/{page.name})" in text, page.name


def test_every_docs_page_links_back_to_the_readme():
    for page in DOCS.glob("*.md"):
        head = "\n".join(page.read_text(encoding="utf-8").splitlines()[:8])
        assert "(../README.md)" in head, page.name


def _anchors(page: Path) -> set[str]:
    """GitHub's ids for a page's headings: lower case, punctuation but - and _ dropped, spaces -."""
    headings = re.findall(r"^#+ (.*)$", page.read_text(encoding="utf-8"), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_in_the_docs_leads_somewhere():
    for page in [README, *DOCS.glob("*.md")]:
        for target, anchor in re.findall(r"\]\(([^)#:]*)(?:#([^)]*))?\)", page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page
            assert linked.exists(), f"{page.name}: {target}"
            if anchor:
                assert anchor in _anchors(linked), f"{page.name}: {target}#{anchor}"


@pytest.mark.parametrize(
    ("command", "expected"),
    EXAMPLES,
    ids=[f"{page.name}:{c[:50]}" for page, (c, _) in PAGE_EXAMPLES],
)
def test_readme_example_output(command, expected, monkeypatch):
    monkeypatch.chdir(README.parent)  # examples name files as the repository holds them (docs/examples/)
    args = shlex.split(command)
    assert args[0] == "gradcli"
    result = CliRunner().invoke(main, args[1:], env={"COLUMNS": "80", "NO_COLOR": "1"})
    actual = [line.rstrip() for line in (result.stdout + result.stderr).splitlines()]
    position = 0
    for line in expected:
        if line.strip() == "...":
            continue
        while position < len(actual) and not _matches(line, actual[position]):
            position += 1
        assert position < len(actual), f"documented line not in output: {line!r}\n--- output:\n" + "\n".join(
            actual
        )
        position += 1


def test_docs_list_every_limit_with_its_value():
    from gradcli import limits

    text = LIMITS_PAGE.read_text(encoding="utf-8")
    for name, value in limits.table().items():
        assert f"| `{name}` | {value:,} |" in text, name
