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


# ---------------------------------------------------------------- every command, every format

COMMENT = "  # " + HOSTILE
ECHOES = [  # commands whose output quotes the program: the title must show, escaped
    ("grad", "x*2" + COMMENT, "--at", "x=2", "--explain"),
    ("grad", "x*2" + COMMENT, "--explain"),
    ("grad", "x*2" + COMMENT, "--format", "latex"),
    ("graph", "x*2" + COMMENT, "--at", "x=2", "--format", "dot"),
    ("graph", "y = x*2\nsum(y)" + COMMENT, "--at", "x=[1,2]", "--format", "dot"),
    ("hessian", "sum(x**3)" + COMMENT, "--at", "x=[1,2]", "--format", "latex"),
    ("jacobian", "x**3" + COMMENT, "--at", "x=[1,2]", "--format", "latex"),
]
QUIET = [  # commands that do not quote the program: nothing of it may show at all
    ("grad", "x*2" + COMMENT, "--at", "x=2"),
    ("grad", "x*2" + COMMENT),
    ("grad", "x*2" + COMMENT, "--at", "x=2", "--format", "plain"),
    ("grad", "x*2" + COMMENT, "--at", "x=2", "--order", "2"),
    ("graph", "x*2" + COMMENT, "--at", "x=2"),
    ("graph", "x*2" + COMMENT, "--at", "x=2", "--format", "ascii"),
    ("hessian", "sum(x**3)" + COMMENT, "--at", "x=[1,2]"),
    ("hessian", "sum(x**3)" + COMMENT, "--at", "x=[1,2]", "--format", "json"),
    ("jacobian", "x**3" + COMMENT, "--at", "x=[1,2]"),
    ("jacobian", "x**3" + COMMENT, "--at", "x=[1,2]", "--format", "json"),
    ("check", "sum(x**3)" + COMMENT, "--at", "x=[1,2]"),
    ("vjp", "x**3" + COMMENT, "--at", "x=[1,2]", "--v", "[1,1]"),
    ("jvp", "x**3" + COMMENT, "--at", "x=[1,2]", "--v", "x=[1,1]"),
    ("hvp", "sum(x**3)" + COMMENT, "--at", "x=[1,2]", "--v", "x=[1,1]"),
]


@pytest.mark.parametrize("args", ECHOES, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_echoed_program_text_is_escaped(run, args):
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    assert SHOWN in result.stdout.replace("\\\\", "\\")  # DOT doubles backslashes


def test_json_carries_the_program_as_written_in_json_escapes(run):
    result = run("grad", "x*2" + COMMENT, "--at", "x=2", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    assert json.loads(result.stdout)["expression"] == "x*2" + COMMENT


@pytest.mark.parametrize("args", QUIET, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_outputs_that_do_not_echo_stay_clean(run, args):
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)


def test_the_program_from_standard_input_too(run):
    program = "y = x*2" + COMMENT + "\ny"
    result = run("grad", "-", "--at", "x=2", "--explain", "--width", "1000", input=program)
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    assert f"Chain rule for y = x*2  # {SHOWN}" in result.stdout


def test_ordinary_unicode_is_shown_as_written(run):
    result = run("grad", "α*β  # ∂·∂ é", "--at", "α=2", "--at", "β=3", "--explain")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Chain rule for α*β  # ∂·∂ é at α = 2, β = 3\n")
    latex = run("grad", "α*β  # ∂·∂ é", "--format", "latex")
    assert latex.stdout.startswith("% gradcli grad: α*β  # ∂·∂ é\n")


def test_a_multi_line_program_is_one_latex_comment(run):
    for command, program in (("hessian", "y = x**3\nsum(y)"), ("jacobian", "y = x**3\ny*2")):
        result = run(command, program, "--at", "x=[1,2]", "--format", "latex")
        assert result.exit_code == 0, result.stderr
        assert result.stdout.startswith(f"% gradcli {command}: {program.replace(chr(10), '; ')}\n")


# ---------------------------------------------------------------- error and warning lines


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


def test_a_script_error_quoting_a_string_is_escaped(run):
    result = run("run", "-", input=f"import torch\nprint('before')\nfloat({HOSTILE!r})\n")
    assert result.exit_code == 1
    assert result.stdout == "before\n"
    assert result.stderr.startswith("error: line 3: ValueError: could not convert string to float: ")
    assert SHOWN in result.stderr
    assert_no_raw(result)


def test_gradclis_own_warning_lines_are_escaped(run, monkeypatch):
    from gradcli import runner

    real = runner.run_script

    def warned(*args, **kwargs):
        result = real(*args, **kwargs)
        result.warnings.append("line 1: UserWarning: " + HOSTILE)
        return result

    monkeypatch.setattr(runner, "run_script", warned)
    result = run("run", "-", input="import torch\n")
    assert result.exit_code == 0
    assert result.stderr == f"warning: line 1: UserWarning: {visible(HOSTILE)}\n"


@pytest.mark.parametrize("fmt", ["table", "plain"])
def test_grad_warning_lines_are_escaped(run, monkeypatch, fmt):
    import dataclasses

    from gradcli import api

    real = api.grad

    def warned(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), warnings=("a warning quoting " + HOSTILE,))

    monkeypatch.setattr(api, "grad", warned)
    result = run("grad", "x*2", "--at", "x=2", "--format", fmt)
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    shown = " ".join((result.stdout + result.stderr).split())  # the table wraps its notes
    assert "warning: a warning quoting " + SHOWN in shown


def test_the_debug_traceback_is_escaped_too(run, monkeypatch):
    from gradcli import api

    def broken(*args, **kwargs):
        raise ValueError("a bug quoting " + HOSTILE)

    monkeypatch.setattr(api, "grad", broken)
    result = run("grad", "x*2", "--at", "x=2", "--debug")
    assert result.exit_code == 1
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert f"ValueError: a bug quoting {SHOWN}" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("error: internal error: ValueError: a bug quoting ")
    assert_no_raw(result)


def test_a_batch_point_echoed_as_written_keeps_no_raw_control(run):
    result = run("grad", "x*2", "--batch", "-", input=b'{"x":\r2}\n{"x": 3}\n')
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    assert [json.loads(line)["grads"] for line in result.stdout.splitlines()] == [{"x": 2.0}, {"x": 2.0}]


# ---------------------------------------------------------------- gradcli run

# The interpreter finds a call's line with str.splitlines(), which also breaks at \x85,
# \x0b, \x0c, \x1c-\x1e, U+2028 and U+2029 (test_a_line_break_python_does_not_see below);
# these comments leave them out so that the header shows the right line.
IN_COMMENT = HOSTILE.replace("\x85", "")
SCRIPT = f"""import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
label = {HOSTILE!r}
y = (x * 3).sum()  # {IN_COMMENT}
y.backward()  # {IN_COMMENT}
g, = torch.autograd.grad((x ** 2).sum(), x)  # {IN_COMMENT}
print(label)
"""


@pytest.mark.parametrize("flags", [("--trace",), ("--explain",), ("--trace", "--node", "x")])
def test_run_headers_are_escaped_and_the_scripts_print_is_not(run, flags):
    result = run("run", *flags, "-", input=SCRIPT)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith(HOSTILE + "\n")  # print(label): what python prints
    gradcli_own = result.stdout[: -len(HOSTILE) - 1]
    assert not RAW.findall(gradcli_own + result.stderr)
    assert gradcli_own.count(f"── line 5: y.backward()  # {SHOWN}") == 1
    assert gradcli_own.count("── line 6: g, = torch.autograd.grad(") == 1


def test_run_prints_exactly_what_the_script_prints(run):
    result = run("run", "-", input=SCRIPT + "print('\\x1b[1mbold\\x1b[0m')\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == HOSTILE + "\n\x1b[1mbold\x1b[0m\n"  # click strips no CSI from it


def test_run_json_escapes_and_keeps_the_same_document(run):
    result = run("run", "--format", "json", "-", input=SCRIPT)
    assert result.exit_code == 0, result.stderr
    assert_no_raw(result)
    document = json.loads(result.stdout)
    assert document["stdout"] == HOSTILE + "\n"
    assert document["backward_calls"][0]["source"] == f"y.backward()  # {IN_COMMENT}"
    greek = run("run", "--format", "json", "-", input="import torch\nprint('α·β')\n")
    assert '"stdout": "α·β\\n"' in greek.stdout  # ordinary Unicode stays readable


def test_a_line_break_python_does_not_see(run):
    """str.splitlines() breaks at \\x85 where Python's tokenizer does not: the header must
    show line 3 as Python numbers it."""
    script = "import torch\nx = torch.tensor(2.0, requires_grad=True)  # a\x85b\n(x * 3).backward()\n"
    result = run("run", "--trace", "-", input=script)
    assert result.exit_code == 0, result.stderr
    assert "── line 3: (x * 3).backward() " in result.stdout
