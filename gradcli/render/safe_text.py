"""Text a user wrote, made safe to show: nothing they typed reaches the terminal raw.

gradcli echoes what users give it (a program in a header, a script's line in --trace, a
file name or a value in an `error:` line). Such text may hold bytes a terminal obeys
rather than shows: ESC sequences (`\\x1b]0;title\\x07` retitles the window, CSI moves the
cursor), other C0 controls and DEL, the C1 controls U+0080-U+009F (`\\x9b` is a CSI on
its own in many terminals), carriage returns that overprint a line, and bidi overrides
and isolates (U+202A-U+202E, U+2066-U+2069) that make the shown program differ from the
one that ran ("Trojan Source").

The rule is Python's own, the one `repr()` applies to a str: a character that is not
`str.isprintable()` is written as its escape (`\\x1b`, `\\x9b`, `\\u202e`, `\\U000e0001`).
That covers the above and the rest of Unicode's "other" and "separator" categories: format
characters (Cf: bidi controls, zero-width spaces, the BOM, soft hyphens), line and paragraph
separators (which some terminals treat as a newline), surrogates (a non-UTF-8 byte in argv
arrives as one, and would make printing fail), private-use and unassigned code points,
and spaces other than ' '. Letters, digits, marks, symbols and punctuation in any script
(Greek, '·', box drawing, '…') are printable and stay as they are; so do backslashes, so
LaTeX and escapes already written stay as written and `visible` is idempotent.

A script's own `print()` output is not gradcli's echo: `gradcli run` passes it through
byte for byte, as python would.
"""

from __future__ import annotations


def _escape(ch: str) -> str:
    """`\\x1b`, `\\u202e`, `\\U000e0001`, `\\udc80`: how repr() writes the character."""
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii")


def visible(text: str, keep: str = "") -> str:
    """`text` with every character that is not printable written as its escape.

    `keep` names the whitespace that is part of the output's own layout where the text is
    shown (a multi-line program in a DOT label keeps "\\n"); everything else is escaped,
    "\\n" included, so a one-line header stays one line."""
    if text.isprintable():  # the common case, at C speed
        return text
    if keep:
        first, rest = keep[0], keep[1:]
        return first.join(visible(part, rest) for part in text.split(first))
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def one_line(program: str) -> str:
    """A program of several lines as one, statements joined by `; `, safe to show.

    Lines end where Python's tokenizer ends them (\n, \r\n, \r); the other characters
    str.splitlines() breaks at (\x0c, \x85, U+2028, ...) are shown escaped, as written."""
    lines = program.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return visible("; ".join(line.strip() for line in lines if line.strip()))


def json_visible(document: str) -> str:
    """A JSON document (json.dumps with ensure_ascii=False) safe to show, and the same JSON.

    In valid JSON a raw character that is not printable is either whitespace between
    tokens ("\\n", "\\t", "\\r": JSON escapes controls inside strings) or sits inside a
    string (DEL, C1, bidi controls, ...), where its \\uXXXX escape means the same thing.
    Ordinary Unicode stays raw, as ensure_ascii=False intends."""
    if document.isprintable():
        return document
    out = []
    for ch in document:
        if ch.isprintable() or ch in "\n\t":
            out.append(ch)
        elif ch == "\r":
            out.append(" ")  # whitespace between tokens; a raw \r cannot be inside a string
        else:
            code = ord(ch)
            if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON spells characters beyond the BMP
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    return "".join(out)
