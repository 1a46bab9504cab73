"""Nothing a user wrote reaches the terminal raw (issue 24, "Terminal control").

gradcli echoes program text (headers, the LaTeX comment, the DOT label, run --trace and
--explain rules), names and values (error lines). Hostile text there (an OSC that retitles
the window, CSI, C1 controls, bidi overrides) must come out escaped, in every command and
format; ordinary text, Greek and '·' included, must come out as written. A `run` script's
own print() output is the exception: it is what python would print, byte for byte.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcli.render.safe_text import json_visible, one_line, visible

# What a terminal obeys rather than shows: C0 but \t and \n, DEL, C1, bidi embeddings,
# overrides and isolates, marks, zero-width characters, line and paragraph separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")

TITLE = "\x1b]0;pwned\x07"  # OSC 0: set the window title
HOSTILE = TITLE + "\x1b[2J\x9b31m\x85\x7f\x08\u202egnp.exe\u2066\u200b\ufeff"
SHOWN = "\\x1b]0;pwned\\x07"  # how the title sequence reads once escaped


def assert_no_raw(result) -> None:
    for stream in (result.stdout, result.stderr):
        found = RAW.findall(stream)
        assert not found, f"raw {found!r} in {stream!r}"


# ---------------------------------------------------------------- the sanitiser itself


def test_escapes_read_as_python_writes_them():
    assert visible(HOSTILE) == (
        "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x85\\x7f\\x08\\u202egnp.exe\\u2066\\u200b\\ufeff"
    )
    assert visible("\U000e0001\udcff\xa0\u2028") == "\\U000e0001\\udcff\\xa0\\u2028"
    assert visible("a\nb\tc\r") == "a\\nb\\tc\\r"
    assert visible("a\nb\tc\r", keep="\n\t") == "a\nb\tc\\r"


@pytest.mark.parametrize(
    "text",
    ["(2*x)**3", "y = α·β; out = y.sum()  # ∂y/∂x … ─ é", r"\frac{\partial y}{\partial x}", "tab\\x1b"],
)
def test_printable_text_is_unchanged(text):
    assert visible(text) == text
    assert one_line(text) == text


def test_one_line_joins_python_lines_and_shows_the_rest():
    assert one_line("a = 1\r\nb = 2\rc = a*b\n\n") == "a = 1; b = 2; c = a*b"
    assert one_line("x # \x0cfeed \u2028 sep") == "x # \\x0cfeed \\u2028 sep"


@given(st.text(), st.sampled_from(["", "\n", "\n\t"]))
def test_visible_leaves_nothing_unprintable_and_is_idempotent(text, keep):
    shown = visible(text, keep)
    assert all(ch.isprintable() or ch in keep for ch in shown)
    assert visible(shown, keep) == shown
    assert shown.count("\n") == (text.count("\n") if "\n" in keep else 0)


@given(st.text().filter(str.isprintable))
def test_visible_keeps_printable_text(text):
    assert visible(text) == text


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON, st.sampled_from([None, 2]))
def test_json_visible_is_the_same_json_and_shows_nothing_raw(document, indent):
    text = json.dumps(document, ensure_ascii=False, indent=indent)
    shown = json_visible(text)
    assert all(ch.isprintable() or ch in "\n" for ch in shown)
    assert json.loads(shown) == document
    if text.isprintable():
        assert shown == text


# ---------------------------------------------------------------- error lines


@pytest.mark.parametrize(
    "args",
    [
        ("grad", "x*2", "--at", "x" + HOSTILE + "=2"),
        ("grad", "x*2", "--at", "x=2" + HOSTILE),
        ("grad", "x*2", "--at", "x=2", "--const", "c=[" + HOSTILE + "]"),
        ("grad", "x*2 " + HOSTILE, "--at", "x=2"),
        ("grad", "x*2", "--at", "x=2", "--node", HOSTILE),
        ("grad", "x*2", "--at", "x=2", "--format", HOSTILE),
        ("grad", "x*2", "--" + HOSTILE),
        ("run", HOSTILE + "\r.py"),
        (HOSTILE,),
    ],
)
def test_error_lines_show_what_was_typed_escaped(run, args):
    result = run(*args)
    assert result.exit_code in (1, 2)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert_no_raw(result)


# ---------------------------------------------------------------- gradcli run


def test_run_prints_exactly_what_the_script_prints(run):
    script = f"import torch\nlabel = {HOSTILE!r}\nprint(label)\nprint('\\x1b[1mbold\\x1b[0m')\n"
    result = run("run", "-", input=script)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == HOSTILE + "\n\x1b[1mbold\x1b[0m\n"  # click strips no CSI from it
