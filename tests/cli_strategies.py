"""Hypothesis strategies for whole gradcli command lines, and the contract every run must keep (issue 11).

The option list is read from click itself (`main.commands[...]` and `cmd.get_params`), so a
newly added option is fuzzed without an edit here, as long as a value strategy can be found
for it: flags, click.Choice, int, int ranges and floats get one from their click type;
free-text options (STRING, Path) need an entry in NAMED, and tests/test_cli_fuzz.py fails
for an option that has none.

Every value strategy mixes valid values (first, so Hypothesis shrinks towards them),
boundary values of the option's type, and hostile ones. Files (`--batch FILE`, `-o FILE`)
are named relative to the working directory, which the test makes a fresh temporary
folder; the few absolute paths used are /dev/null, /dev/full, /proc/version and paths
that cannot exist.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

import click
from conftest import strict_loads
from hypothesis import strategies as st

from gradcli.cli import main
from gradcli.errors import GradcliError
from gradcli.parse import parse_program

# ---------------------------------------------------------------- picking with weights


def weighted(*choices: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """One of the strategies, picked with the given weights; it shrinks towards the first.

    Hostile values are kept to a few percent per option: a command line has a dozen
    options, and one usage error (exit 2) would otherwise end nearly every run at click.
    """
    total = sum(weight for weight, _ in choices)

    def pick(n: int) -> st.SearchStrategy:
        for weight, strategy in choices:
            if n < weight:
                return strategy
            n -= weight
        raise AssertionError(n)

    return st.integers(0, total - 1).flatmap(pick)


# ---------------------------------------------------------------- one command line


@dataclass
class Invocation:
    """argv after `gradcli`, what stdin holds, the files to create first, what was asked for."""

    argv: list[str]
    command: str | None = None
    prefix: int = 0  # how many group options come before the command name
    stdin: bytes | None = None
    files: dict[str, bytes | None] = field(default_factory=dict)  # None: make a directory
    given: dict[str, str] = field(default_factory=dict)  # param name -> its last value as typed
    debug_after_command: bool = False  # `gradcli grad --debug ...`

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example: the line to paste
        return f"Invocation(<<<\n{self.shell()}\n>>>)"

    def shell(self) -> str:
        """The command line a user can paste, with the files and stdin it needs."""
        lines = []
        for name, data in self.files.items():
            if data is None:
                lines.append(f"mkdir -p {shlex.quote(name)}")
            else:
                lines.append(f"printf %s {_quote(_printable(data))} > {_quote(name)}")
        command = " ".join(_quote(arg) for arg in ["gradcli", *self.argv])
        if self.stdin is not None:
            command = f"printf %s {_quote(_printable(self.stdin))} | {command}"
        return "\n".join([*lines, command])


def _quote(text: str) -> str:
    """shlex.quote, or bash's $'...' when the text holds characters a terminal would not show
    (a lone surrogate \\udcXX is the byte XX that Python read from a non-UTF-8 argument)."""
    if text.isprintable():
        return shlex.quote(text)
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def _printable(data: bytes) -> str:
    text = data.decode("utf-8", "surrogateescape")
    return text if len(text) <= 20_000 else f"{text[:20_000]}...({len(text)} characters in all)"


@dataclass(frozen=True)
class Piece:
    """One option occurrence as argv tokens, with any file or stdin it needs."""

    tokens: tuple[str, ...]
    param: str | None = None
    value: str | None = None  # the value click will see (None for flags and broken spellings)
    files: tuple[tuple[str, bytes | None], ...] = ()
    stdin: bytes | None = None


# ---------------------------------------------------------------- programs (EXPR)

# What an argument can hold: no NUL (execve cannot pass one), and no surrogates but the
# \udc80-\udcff that stand for the bytes of a non-UTF-8 argument.
ARGV_CHARACTERS = st.one_of(
    st.characters(exclude_characters="\x00", exclude_categories=["Cs"]),
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
)

# Valid programs, with VALUEs for their inputs that make them run (others are drawn too).
PROGRAMS: dict[str, dict[str, list[str]]] = {
    "x**2": {},
    "sum(x**2*y)": {},
    "abs(x)*x": {},
    "sin(x)": {},
    "mean(x)": {"x": ["[1,2,3]", "[]", "randn(3)"]},
    "x*y": {},
    "(2*x)**3": {},
    "y = 2*x; z = y**3; out = z.mean()": {"x": ["[[1,2],[3,4]]"]},
    "y = matmul(X, W) + b; loss = sum(y**2)": {
        "X": ["[[1,0.5],[0.2,0.8]]"],
        "W": ["[[1,2],[3,4]]"],
        "b": ["[0.5,1]"],
    },
    "matmul(W, x)": {"W": ["[[1,2],[3,4]]"], "x": ["[1,1]"]},
    "sum(relu(x))": {},
    "abs(x)": {"x": ["0", "[0,1,-1]"]},
    "relu(x)": {"x": ["0"]},
    "log(x)": {"x": ["0", "0.5", "-1"]},
    "sqrt(x)": {"x": ["0", "4"]},
    "sqrt((x-1)**2)": {"x": ["1"]},
    "x/y": {"y": ["0", "2"]},
    "tanh(x)*exp(y)": {},
    "sigmoid(x) + softplus(y)": {},
    "asin(x) + acos(x) + atan(x)": {"x": ["0.5", "2"]},
    "sinh(x) - cosh(x) + tan(x)": {},
    "log1p(x)": {"x": ["-1", "0.5"]},
    "x[0]": {"x": ["[1,2,3]"]},
    "sum(x, dim=0)": {"x": ["[[1,2],[3,4]]"]},
    "x.sum()": {},
    "x.T": {"x": ["[[1,2],[3,4]]"]},
    "x @ x": {"x": ["[1,2]"]},
    "mean(x, dim=0, keepdim=True)": {"x": ["[[1,2],[3,4]]"]},
    "-log(p)": {"p": ["0.3"]},
    "x ^ 3": {},
    "c = x; c += 1; c * c": {},
    "pi * x + e": {},
    "nan * x": {},
    "inf * x": {},
    "x ** y": {"x": ["0", "-1", "2"], "y": ["0.5", "-1", "2"]},
    "x - x": {},
    "2 * 3": {},  # no input at all: an error, never a crash
    # issue 13's later forms: values of any shape, most refused with torch's error, none crash
    "x.gather(0, x.long()).sum()": {"x": ["[1,0]", "[[0,1],[1,0]]", "[5]", "[-1]"]},
    "torch.where((x > 0) & (x < 2) | ~(x > 1), x, 0.0).sum()": {},
    "F.normalize(x, dim=0).sum()": {"x": ["[3,4]", "[0,0]"]},
    "(F.one_hot(x.long(), 4).float() * 2).sum() * x.sum()": {"x": ["[1,3]", "[4]", "[-1]"]},
    "(x @ y).sum()": {"x": ["[1,2]"], "y": ["[[1,2,3],[4,5,6]]", "[[1],[2],[3]]"]},
    "B, T = x.shape; x.view(B, T // 2, 2).sum()": {"x": ["[[1,2,3,4],[5,6,7,8]]", "[1,2]"]},
    "x.sum(1, keepdims=True).max(axis=0)[0]": {"x": ["[[1,2],[3,4]]"]},
    # constructors and new axes: constants shaped by the inputs, broadcast against them
    "(x * torch.arange(len(x))).sum() + (x[:, None] * torch.ones(3)).sum()": {"x": ["[1,2]", "[[1],[2]]", "2"]},
    "F.cross_entropy(x, torch.tensor([1, 0]))": {"x": ["[[1,2],[3,4]]", "[[1,2,3]]", "[1,2]"]},
    "(x @ torch.eye(2) + torch.full((2,), 0.5) * F.one_hot(x.long()).sum()).sum()": {
        "x": ["[1,2]", "[[0,1],[1,0]]", "[-1,1]"]
    },
}
GOOD_VALUES = ["2", "0.5", "-1", "[1,2,3]", "[[1,2],[3,4]]", "randn(3)", "rand(2,2)", "arange(3)"]

HOSTILE_PROGRAMS = [
    "", " ", ";", "x +", "x)", "(x", "x.", "é", "ｘ**2", "x\udcff", "\u200bx", "__import__('os')",
    "x.__class__", "lambda: 1", "[x for x in y]", "'s'", "x[99]", "x[1:0]", "sum(x, dim=5)",
    "zeros(3)", "randn(3)", "sin()", "sin(x, y)", "foo(x)", "x.foo()", "x = 1", "x; y; z",
    "1e999 * x", "9**9**9", "x**1e400", "-", "--", "-x", "-h", "--help", "x\ny", "\n", "\t",
    "x" * 200, "(" * 300 + "x" + ")" * 300, "+".join(["x"] * 500), "x = x; " * 50 + "x",
    "mean(x, dim=0)", "sum(x, keepdim=True)", "x @ y", "matmul(x)", "x[None]", "x[...]",
    "x if y else 1", "not x", "x < y", "x & y", "~x", "x.t()", "t(x)", "T(x)", "x.T.T",
    "x.gather(0, y)", "x.gather(99, y)", "F.one_hot(y, 10**12)", "F.one_hot(y)", "x.float(1)",
    "torch.float(x)", "float(x)", "x.to(x)", "F.sin(x)", "x.softplus()", "x // y", "a, b = x",
    "x[0] = 1", "x.gather(__x__=y)", "torch.max(x, y, 1)", "x.sum(axis=0, dim=0)",
]  # fmt: skip
PROGRAM_TOKENS = [
    "x", "y", "(", ")", "[", "]", ",", ".", ";", "\n", "=", "+", "-", "*", "/", "**", "^", "@", "0",
    "1", "2.5", "1e400", "nan", "inf", "sum(", "mean(", "sin(", "log(", "sqrt(", "abs(", "relu(",
    "matmul(", "dim=", "keepdim=True", ".T", ".sum()", "é", "__", " ", "'", "\\", "1j", ":", "x[",
]  # fmt: skip


def input_names(text: str) -> list[str]:
    """The program's free names, or a plausible guess when it does not parse."""
    try:
        return list(parse_program(text).inputs)
    except GradcliError:
        return ["x"]
    except Exception:  # noqa: BLE001 - a parser crash is the CLI test's business, not the generator's
        return ["x"]


@dataclass(frozen=True)
class Program:
    text: str  # what EXPR holds ("-" when the program comes from stdin)
    names: tuple[str, ...]
    good: dict[str, list[str]]
    stdin: bytes | None = None


@st.composite
def programs(draw) -> Program:
    kind = draw(st.sampled_from(["valid"] * 6 + ["hostile", "hostile", "tokens", "text", "stdin"]))
    if kind == "valid":
        text = draw(st.sampled_from(sorted(PROGRAMS)))
        good = PROGRAMS[text]
    elif kind == "hostile":
        text, good = draw(st.sampled_from(HOSTILE_PROGRAMS)), {}
    elif kind == "tokens":
        text, good = "".join(draw(st.lists(st.sampled_from(PROGRAM_TOKENS), max_size=12))), {}
    elif kind == "text":
        text, good = draw(st.text(ARGV_CHARACTERS, max_size=30)), {}
    else:  # EXPR `-`: the program on stdin, maybe not UTF-8
        inner = draw(st.sampled_from(sorted(PROGRAMS) + HOSTILE_PROGRAMS))
        raw = inner.encode("utf-8", "surrogateescape")
        data = draw(st.sampled_from([raw + b"\n", raw, b"\xff\xfe" + raw, b"", b"\n\n"]))
        return Program("-", tuple(input_names(inner)), PROGRAMS.get(inner, {}), stdin=data)
    return Program(text, tuple(input_names(text)), good)


# ---------------------------------------------------------------- VALUEs (--at, --const, --gradient)

VALID_VALUES = [
    "2", "0", "-1", "0.5", "3", "[1,2]", "[1, 2, 3]", "[[1,2],[3,4]]", "zeros(2,3)", "ones(2,2)",
    "full(2,2,0.5)", "eye(3)", "arange(5)", "linspace(0,1,11)", "rand(3)", "randn(3)", "randn(2,2)",
    "ones(3)", "[[1,1],[1,1]]", "1",
]  # fmt: skip
BOUNDARY_VALUES = [
    "-0.0", "1e308", "-1e308", "5e-324", "1e-320", "[]", "[[]]", "[0]", "zeros(0)", "ones(0,3)",
    "eye(0)", "arange(0)", "linspace(0,1,0)", "linspace(0,1,1)", "full(0,1)", "randn(0)", "rand(1)",
    "[1e308, -1e308]", "zeros(300)", "randn(20,20)", "full(2,2,1e308)", "[[[[1]]]]", "3.0e+2",
]  # fmt: skip
HOSTILE_VALUES = [
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e400", "-1e400", "[NaN]",
    "[Infinity, 1]", "[1e400]", "[1,[2]]", "[[1,2],[3]]", '"s"', '"2"', "true", "null", "{}",
    '{"a": 1}', "", " ", "zeros(-1)", "zeros(1e9)", "zeros(100000,100000)", "arange(1e12)",
    "randn(2.5)", "eye(3,3,3)", "full(2)", "linspace(0,1,-5)", "é", "[" * 300 + "]" * 300,
    "1" * 5000, "[1,2", "__import__('os')", "x", "2+3", "0x10", "1j", "[true]", '["1"]', "[null]",
    "arange(5, 0)", "arange(0, 10, 0)", "full(2,2,nan)", "full(2,2,inf)", "rand(3)[0]", "zeros()",
    "zeros(2,)", "ones(2 ,2)", "randn(-1)", "eye(-2)", "linspace(0,1,1e9)", "[1e-400]", "-",
    "zeros(10**10)", "randn(3) ", " [1, 2] ", "[1,]", "[,]", "1,2", "1 2", "\udcff", "１",
]  # fmt: skip
VALUE_TOKENS = [
    "zeros(", "ones(", "full(", "eye(", "arange(", "linspace(", "rand(", "randn(", ")", ",", "[", "]",
    "-", "1e999", "1e-320", "nan", "inf", "0", "1", "2.5", "1e4", "-1", '"', "true", "null", "{", "}",
    ":", " ", "1e308", "_",
]  # fmt: skip

values = weighted(
    (60, st.sampled_from(VALID_VALUES)),
    (15, st.sampled_from(BOUNDARY_VALUES)),
    (15, st.sampled_from(HOSTILE_VALUES)),
    (4, st.lists(st.sampled_from(VALUE_TOKENS), max_size=8).map("".join)),
    (2, st.floats(allow_nan=True, allow_infinity=True).map(repr)),
    (2, st.integers(-(10**20), 10**20).map(str)),
    (2, st.text(ARGV_CHARACTERS, max_size=10)),
)

HOSTILE_NAMES = [
    "", " ", "1x", "x y", "for", "None", "__x", "é", "ｘ", "x-y", "sin", "pi", "nan", "t0", "X" * 300,
    "\x1b[31m", "x\udcff",
]  # fmt: skip


@st.composite
def assignment_pieces(draw, option: str, program: Program, usual: bool) -> list[Piece]:
    """--at/--const NAME=VALUE occurrences: usually one per program input, sometimes anything."""
    names = list(program.names)
    mode = draw(
        weighted((80, st.just("all")), (12, st.just("some")), (8, st.just("hostile")))
        if usual
        else weighted((80, st.just("none")), (15, st.just("some")), (5, st.just("hostile")))
    )
    if mode == "none":
        return []
    chosen = (
        (
            names
            if mode == "all"
            else draw(st.lists(st.sampled_from([*names, "z", "x"]), max_size=3, unique=True))
        )
        if mode != "hostile" or usual
        else []
    )
    pieces = []
    for name in chosen:
        good = program.good.get(name, []) + GOOD_VALUES
        value = draw(weighted((50, st.sampled_from(good)), (50, values)))
        pieces.append(_valued(draw, option, "at" if option == "--at" else "const", f"{name}={value}"))
    if mode == "hostile":
        text = draw(
            st.one_of(
                st.builds(lambda n, v: f"{n}={v}", st.sampled_from(HOSTILE_NAMES), values),
                st.sampled_from(["x", "=2", "x==2", "x=", "=", "x=2=3", " x = 2"]),
                st.text(ARGV_CHARACTERS, max_size=8),
            )
        )
        pieces.append(_valued(draw, option, "at" if option == "--at" else "const", text))
    return pieces


# ---------------------------------------------------------------- --batch (JSON Lines)


@st.composite
def jsonl(draw, names: tuple[str, ...]) -> bytes:
    """JSON Lines for a program's inputs: points, and lines that are no point at all."""
    names = names or ("x",)

    def point(value_text: str) -> str:
        return "{" + ", ".join(f'"{n}": {value_text}' for n in names) + "}"

    number = st.sampled_from(["2", "0", "-1.5", "0.25", "1e308", "-1e308", "5e-324", "3"])
    line_kinds = st.one_of(
        number.map(point),
        st.sampled_from(["[1, 2, 3]", "[[1, 2], [3, 4]]", "[]", "[0.5]"]).map(point),
        st.sampled_from(
            ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "[NaN, 1]", "[1e400]", "nan", "inf"]
        ).map(point),
        st.sampled_from(
            ["[[1, 2], [3]]", "[1, [2]]", '"2"', "true", "null", "{}", '{"a": 1}', "1" * 5000, "[" * 5000]
        ).map(point),
        st.sampled_from(
            [
                '{"nope": 1}', "{}", "[1, 2]", "3", '"s"', "null", "{", "", "   ", "\ufeff" + point("1"),
                point("1")[:-1] + ', "extra": 2}', point("1") + point("2"), '{"x": 1, "x": 2}', "\x00",
                '{"x": 1', "[" * 10_000, '{"__proto__": 1}', point("1") + "\r",
            ]
        ),
    )  # fmt: skip
    lines = draw(st.lists(line_kinds, max_size=6))
    repeat = draw(st.sampled_from([1, 1, 1, 2, 4097]))  # 4097: across a vectorised chunk
    body = "\n".join(lines * repeat if len(lines) <= 2 else lines)
    data = body.encode("utf-8", "surrogatepass")
    ending = draw(st.sampled_from([b"\n", b"", b"\r\n", b"\n\xff\n", b"\n\n"]))
    return data + ending


@st.composite
def batch_pieces(draw, program: Program) -> list[Piece]:
    where = draw(
        st.sampled_from(
            [
                "-", "points.jsonl", "points.jsonl", "missing.jsonl", "adir", "/dev/null", "",
                "/nonexistent/points.jsonl", "é.jsonl", "a\udcffb",
            ]
        )
    )  # fmt: skip
    content = draw(jsonl(program.names))
    files: tuple[tuple[str, bytes | None], ...] = ()
    stdin = None
    if where == "-":
        stdin = content
    elif where in ("points.jsonl", "é.jsonl"):
        files = ((where, content),)
    elif where == "adir":
        files = ((where, None),)
    piece = _valued(draw, "--batch", "batch", where)
    return [Piece(piece.tokens, piece.param, piece.value, files=files, stdin=stdin)]


# ---------------------------------------------------------------- -o FILE

OUTPUTS = [
    "g.txt", "g.png", "g.svg", "g.dot", "-", "", "adir", "missing/g.txt", "/dev/null", "/dev/full",
    "/proc/version", "é.txt", "a" * 300, "g\udcff.txt", " ", "existing.txt", ".", "/", "adir/",
]  # fmt: skip


@st.composite
def output_pieces(draw, option: str) -> list[Piece]:
    where = draw(st.sampled_from(OUTPUTS))
    files: tuple[tuple[str, bytes | None], ...] = ()
    if where.startswith("adir"):
        files = (("adir", None),)
    elif where == "existing.txt":
        files = ((where, b"old\n"),)
    piece = _valued(draw, option, "output", where)
    return [Piece(piece.tokens, piece.param, piece.value, files=files)]


# ---------------------------------------------------------------- options from their click type

INT_TEXTS = [
    "0", "1", "2", "3", "-1", "-5", "2147483648", "4294967296", "-4294967297", "99999999999999999999",
    "1e3", "1.5", "", "abc", " 1", "0x10", "1_0", "١", "+3", "nan", "inf",
]  # fmt: skip
FLOAT_TEXTS = [
    "1e-6", "1e-3", "1", "0.5", "0", "-0", "-1", "-1e-6", "nan", "-nan", "inf", "-inf", "1e308",
    "1e400", "-1e400", "5e-324", "1e-300", "", "abc", "1,5", "0x1p-3", "infinity", "NaN", " 2 ",
    "1_0",
]  # fmt: skip
CHOICE_HOSTILE = ["", "JSON", "json ", "xml", "é", "-", "table,json", "None"]


def _valued(draw, option: str, param: str, value: str) -> Piece:
    """`--opt VALUE`, or `--opt=VALUE` (`-oVALUE` for a short option)."""
    joined = draw(st.sampled_from([False, False, False, True]))
    if joined:
        glue = "=" if option.startswith("--") else ""
        return Piece((f"{option}{glue}{value}",), param, value)
    return Piece((option, value), param, value)


def _int_texts(kind: click.ParamType) -> list[str]:
    texts = list(INT_TEXTS)
    for bound in (getattr(kind, "min", None), getattr(kind, "max", None)):
        if bound is not None:
            texts += [str(bound - 1), str(bound), str(bound + 1)]
    return texts


def typed_values(param: click.Parameter) -> st.SearchStrategy[str] | None:
    """Valid, boundary and hostile texts for an option, from its click type alone."""
    kind = param.type
    if isinstance(kind, click.Choice):
        return weighted(
            (95, st.sampled_from([str(c) for c in kind.choices])), (5, st.sampled_from(CHOICE_HOSTILE))
        )
    if isinstance(kind, (click.types.IntParamType, click.IntRange)):
        low = kind.min if getattr(kind, "min", None) is not None else -3
        high = min(kind.max if getattr(kind, "max", None) is not None else 5, low + 8)
        return weighted(
            (75, st.integers(low, high).map(str)),
            (20, st.sampled_from(_int_texts(kind))),
            (5, st.integers(-(10**6), 10**6).map(str)),
        )
    if isinstance(kind, (click.types.FloatParamType, click.FloatRange)):
        return weighted((80, st.sampled_from(FLOAT_TEXTS)), (20, st.floats().map(repr)))
    return None


def _flag_pieces(option: str, param: str) -> st.SearchStrategy[list[Piece]]:
    flag = Piece((option,), param, "true")
    broken = [Piece((f"{option}=1",), None)] if option.startswith("--") else [flag]
    return weighted(
        (55, st.just([])), (38, st.just([flag])), (5, st.just([flag, flag])), (2, st.just(broken))
    )


# ---------------------------------------------------------------- every parameter


def commands() -> list[str]:
    return list(main.commands)


def parameters(command: click.Command) -> list[click.Parameter]:
    """Every parameter click knows for a command, --help included."""
    return command.get_params(click.Context(command, info_name=command.name))


# Free-text parameters, whose meaning no click type tells: (command or None for any, name) -> builder.
NAMED = {
    "at": lambda draw, param, program: draw(assignment_pieces(_spelling(draw, param), program, True)),
    "const": lambda draw, param, program: draw(assignment_pieces(_spelling(draw, param), program, False)),
    "gradients": lambda draw, param, program: draw(_gradient_pieces(param)),
    "gradient": lambda draw, param, program: draw(_gradient_pieces(param)),
    # vjp's v is output-shaped, like --gradient; jvp's and hvp's are NAME=VALUE per leaf
    "v": lambda draw, param, program: draw(
        _vector_pieces(param, program) if param.multiple else _gradient_pieces(param)
    ),
    "batch": lambda draw, param, program: draw(weighted((85, st.just([])), (15, batch_pieces(program)))),
    "nodes": lambda draw, param, program: [
        _valued(draw, _spelling(draw, param), "nodes", name)
        for name in draw(
            st.lists(st.sampled_from(["x", "y", "t1", "t2", "out", "nope", "", "\u00e9"]), max_size=2)
        )
    ],
    "output": lambda draw, param, program: draw(
        weighted((60, st.just([])), (40, output_pieces(_spelling(draw, param))))
    ),
    # run --python executes its script as Python, and the fuzzer's programs are formulas that
    # Python may take hours over (10**10**10): never drawn here; tests/test_run_python.py tests it
    "on_python": lambda draw, param, program: [],
    # run --call / --line: numbers and ranges, and what is not one
    "calls": lambda draw, param, program: draw(_selection_pieces(param)),
    "lines": lambda draw, param, program: draw(_selection_pieces(param)),
}


@st.composite
def _selection_pieces(draw, param: click.Option) -> list[Piece]:
    text = draw(st.sampled_from(["1", "2", "1,3", "2-4", "0", "5-2", "x", "", "1-100001", "-1", "3,,4"]))
    return draw(weighted((70, st.just([])), (30, st.just([_valued(draw, _spelling(draw, param), param.name, text)]))))
ARGUMENTS = {"expr", "script", "name", "script_args"}  # positional arguments the builder fills itself, from programs() (ops NAME: an unknown name is a clean error)


def _spelling(draw, param: click.Parameter) -> str:
    return draw(st.sampled_from(sorted(param.opts + param.secondary_opts)))


@st.composite
def _vector_pieces(draw, param: click.Option, program: Program) -> list[Piece]:
    option = _spelling(draw, param)
    names = draw(st.lists(st.sampled_from([*program.names, "z"]), max_size=3, unique=True))
    good = GOOD_VALUES
    return [
        _valued(
            draw,
            option,
            "v",
            f"{name}={draw(weighted((60, st.sampled_from(program.good.get(name, []) + good)), (40, values)))}",
        )
        for name in names
    ]


@st.composite
def _gradient_pieces(draw, param: click.Option) -> list[Piece]:
    counts = [0, 0, 0, 1, 1, 2, 3] if param.multiple else [0, 0, 1]
    option = _spelling(draw, param)
    count = draw(st.sampled_from(counts))
    gradient = weighted(
        (50, st.sampled_from(["1", "[1,1,1]", "[[1,1],[1,1]]", "ones(3)", "2"])), (50, values)
    )
    return [_valued(draw, option, param.name, draw(gradient)) for _ in range(count)]


def has_strategy(param: click.Parameter) -> bool:
    if isinstance(param, click.Argument):
        return param.name in ARGUMENTS
    return (
        param.name in NAMED
        or (isinstance(param, click.Option) and param.is_flag)
        or (typed_values(param) is not None)
    )


# What a parameter gives when a test requires it: never nothing.
REQUIRED = {
    "batch": lambda draw, param, program: draw(batch_pieces(program)),
    "nodes": lambda draw, param, program: [
        _valued(draw, _spelling(draw, param), "nodes", name)
        for name in draw(
            st.lists(st.sampled_from(["x", "y", "t1", "t2", "out", "nope", "", "\u00e9"]), max_size=2)
        )
    ],
    "output": lambda draw, param, program: draw(output_pieces(_spelling(draw, param))),
}


def option_pieces(draw, param: click.Option, program: Program, required: bool = False) -> list[Piece]:
    if required and param.name in REQUIRED:
        return REQUIRED[param.name](draw, param, program)
    if param.name in NAMED:
        return NAMED[param.name](draw, param, program)
    if param.is_flag:
        if param.name == "help" and draw(st.integers(0, 49)):  # help ends the run: keep it rare
            return []
        return draw(_flag_pieces(_spelling(draw, param), param.name))
    strategy = typed_values(param)
    assert strategy is not None, f"no value strategy for {param.name}"
    count = draw(weighted((55, st.just(0)), (40, st.just(1)), (5, st.just(2))))
    return [_valued(draw, _spelling(draw, param), param.name, draw(strategy)) for _ in range(count)]


DEBUG_AFTER_COMMAND = True  # also try `gradcli grad ... --debug` (a long run may turn it off once seen)
GROUP_PREFIXES = weighted(
    (80, st.just([])),
    (14, st.just(["--debug"])),
    (2, st.just(["--debug", "--debug"])),
    (2, st.just(["--version"])),
    (1, st.just(["-h"])),
    (1, st.just(["--nope"])),
)


@st.composite
def invocations(
    draw, command: str | None = None, require: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
) -> Invocation:
    """A whole command line for one command (or for the group alone when command is None).

    `require` names parameters that must be given (--batch, -o), `exclude` ones left out.
    """
    prefix = list(draw(GROUP_PREFIXES))
    if command is None:
        argv = prefix + draw(st.sampled_from([[], ["nope"], ["Grad"], ["grad "], ["--"], [""]]))
        return Invocation(argv, None, prefix=len(prefix))
    cmd = main.commands[command]
    program = draw(programs())
    pieces: list[Piece] = []
    for param in parameters(cmd):
        if isinstance(param, click.Option) and param.name not in exclude:
            pieces += option_pieces(draw, param, program, required=param.name in require)
    pieces = list(draw(st.permutations(pieces)))
    debug_after = DEBUG_AFTER_COMMAND and draw(st.integers(0, 29)) == 0
    if debug_after:
        pieces.insert(draw(st.integers(0, len(pieces))), Piece(("--debug",), "debug"))
    extra = draw(
        weighted(
            (92, st.just(None)),
            (2, st.just("unknown-option")),
            (2, st.just("extra-argument")),
            (2, st.just("dangling")),
            (2, st.just("no-expr")),
        )
    )
    if extra == "unknown-option":
        pieces.append(Piece(("--nope",)))
    tokens = [token for piece in pieces for token in piece.tokens]
    has_expr = any(isinstance(p, click.Argument) for p in parameters(cmd)) and extra != "no-expr"
    if has_expr:
        if program.text.startswith("-") and program.text != "-":
            tokens += ["--", program.text]  # as users quote `-log(p)`: after --
        else:
            where = draw(st.integers(0, len(pieces)))
            before = [t for piece in pieces[:where] for t in piece.tokens]
            tokens = [*before, program.text, *tokens[len(before) :]]
    if extra == "extra-argument":
        tokens += ["--", "extra"] if "--" not in tokens else ["extra"]
    elif extra == "dangling" and "--" not in tokens:
        value_options = [
            o for p in parameters(cmd) if isinstance(p, click.Option) and not p.is_flag for o in p.opts
        ]
        tokens.append(draw(st.sampled_from(value_options)))
    invocation = Invocation(
        [*prefix, command, *tokens], command, prefix=len(prefix), debug_after_command=debug_after
    )
    for piece in pieces:
        if piece.param is not None and piece.value is not None:
            invocation.given[piece.param] = piece.value
        invocation.files.update(piece.files)
        if piece.stdin is not None:
            invocation.stdin = piece.stdin
    if program.stdin is not None and invocation.stdin is None:
        invocation.stdin = program.stdin
    return invocation


# ---------------------------------------------------------------- the contract


LEAKS = [
    (re.compile(r"Traceback \(most recent call last\)"), "a traceback"),
    (re.compile(r"\b[A-Z]\w*Warning\b"), "Python warning text"),
    (re.compile(r"site-packages|\.py:\d+"), "a Python source location"),
    (re.compile(r"^error: internal error", re.MULTILINE), "an internal error"),
]
HELP_TOKENS = {"-h", "--help", "--version"}


def violations(invocation: Invocation, result, warned: list[str], cwd: str) -> list[str]:
    """Every way this run broke the CLI contract (empty: it kept it)."""
    problems = []
    stderr, stdout, code = result.stderr, result.stdout, result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        problems.append(f"exception escaped main(): {type(result.exception).__name__}: {result.exception}")
    for pattern, what in LEAKS:
        if pattern.search(stderr):
            problems.append(f"stderr shows {what}")
    if warned:
        problems.append(f"a warning reached the user: {warned[0]}")
    if code not in (0, 1, 2):
        problems.append(f"exit code {code}, not 0, 1 or 2")
    lines = stderr.splitlines()
    asked_help = any(t in HELP_TOKENS for t in invocation.argv)
    # `gradcli` or `gradcli grad` alone prints click's help on stderr, exit 2, by design.
    rest = invocation.argv[invocation.prefix :]
    no_args_help = code == 2 and stderr.startswith("Usage:") and rest in ([], [invocation.command])
    check_verdict = invocation.command == "check" and code == 1 and stderr == ""
    if code == 0:
        if any(not line.startswith("warning: ") for line in lines):
            problems.append("exit 0 with stderr other than `warning:` lines")
    elif check_verdict:  # `check` exits 1 when the answers disagree; the report is on stdout
        if not stdout.strip():
            problems.append("check exited 1 with neither a report nor an error line")
    elif not no_args_help and (
        len(lines) != 1 or not lines[0].startswith("error: ") or not lines[0][7:].strip()
    ):
        problems.append(f"exit {code} without exactly one `error:` line")
    if not asked_help:
        problems += _json_problems(invocation, stdout, code, check_verdict)
        problems += _file_problems(invocation, code, cwd)
        if invocation.debug_after_command and "'--debug'" in stderr:
            problems.append("--debug after the command name is refused")
    return problems


def _json_problems(invocation: Invocation, stdout: str, code: int, check_verdict: bool) -> list[str]:
    problems = []
    batch = "batch" in invocation.given
    if batch:  # every line written, even before a failure, is one strict JSON object
        for number, line in enumerate(stdout.splitlines(), 1):
            try:
                strict_loads(line)
            except ValueError as exc:
                problems.append(f"--batch output line {number} is not strict JSON: {exc}")
                break
    elif invocation.given.get("fmt") == "json" and (code == 0 or check_verdict):
        try:
            strict_loads(stdout)
        except ValueError as exc:
            problems.append(f"--format json output is not strict JSON: {exc}")
    return problems


SUFFIX_MAGIC = {".png": b"\x89PNG", ".svg": b"<", ".dot": b"digraph"}


def _file_problems(invocation: Invocation, code: int, cwd: str) -> list[str]:
    output = invocation.given.get("output")
    if invocation.command != "graph" or output is None or code != 0:
        return []
    if output == "-":
        return ["-o - wrote a file named '-'"] if os.path.exists(os.path.join(cwd, "-")) else []
    path = os.path.join(cwd, output)
    if output.startswith("/dev/") or not os.path.isfile(path):
        return [] if output.startswith("/dev/") else [f"exit 0 but -o FILE was not written: {output!r}"]
    suffix = os.path.splitext(output)[1]
    if "fmt" not in invocation.given and suffix in SUFFIX_MAGIC:
        with open(path, "rb") as handle:
            head = handle.read(16)
        if not head.startswith(SUFFIX_MAGIC[suffix]):
            return [f"-o FILE{suffix} without --format is not {suffix[1:]}: it starts {head[:12]!r}"]
    return []
