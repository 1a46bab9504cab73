"""Hostile and malformed inputs with the exit code and message fragments each must produce.

Every case must end quickly with exit 1 (bad input) or 2 (usage), exactly one `error:`
line on stderr containing every fragment, nothing on stdout, no traceback and no side
effect. `CANARY` in an argument or on stdin is replaced by the path of a file that must
never be created. tests/test_hostile.py runs the table.
"""

from __future__ import annotations

from dataclasses import dataclass

CANARY = "CANARY_PATH"
INPUT, USAGE = 1, 2


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # after `gradcli`
    exit_code: int
    fragments: tuple[str, ...]  # each must appear in the error line
    stdin: bytes | None = None


def grad(id: str, program: str, *options: str, code: int = INPUT, expect: tuple[str, ...] = ()) -> Case:
    return Case(id, ("grad", program, *options), code, expect)


def piped(id: str, data: bytes, *options: str, code: int = INPUT, expect: tuple[str, ...] = ()) -> Case:
    return Case(id, ("grad", "-", *options), code, expect, stdin=data)


TOUCH = f"__import__('os').system('touch {CANARY}')"
NOT_ALLOWED = "is not allowed in a gradcli program"

INJECTION = [
    grad("import-system", TOUCH, "--at", "x=1", expect=("'__import__'", "not allowed")),
    grad("import-system-symbolic", TOUCH, expect=("'__import__'",)),
    grad("class-bases-subclasses", "().__class__.__bases__[0].__subclasses__()", expect=("'__",)),
    grad("subs-globals", "x.subs.__globals__", "--at", "x=1", expect=("'__globals__'",)),
    grad("dunder-attribute", "x.__class__", "--at", "x=1", expect=("'__class__'",)),
    grad("dunder-dict", "x.__dict__", expect=("'__dict__'",)),
    grad("dunder-name", "__builtins__", expect=("'__builtins__'",)),
    grad("dunder-private", "__x * 2", expect=("'__x'",)),
    grad("dunder-call", "sin.__call__(x)", "--at", "x=1", expect=("'__call__'",)),
    grad("dunder-in-lambda", "(lambda: __import__('os'))()", expect=("'__import__'",)),
    grad("open-read", "open('/etc/passwd').read()", expect=("unknown method '.read()'",)),
    grad("open-write", f"open('{CANARY}', 'w')", expect=("unknown function 'open'",)),
    grad("eval", f'eval("{TOUCH}")', expect=("unknown function 'eval'",)),
    grad("exec", f'exec("{TOUCH}")', expect=("unknown function 'exec'",)),
    grad("compile", "compile('1', 'f', 'eval')", expect=("unknown function 'compile'",)),
    grad("globals", "globals()", expect=("unknown function 'globals'",)),
    grad("locals", "locals()", expect=("unknown function 'locals'",)),
    grad("getattr", "getattr(x, 'T')", "--at", "x=1", expect=("unknown function 'getattr'",)),
    grad("breakpoint", "breakpoint()", expect=("unknown function 'breakpoint'",)),
    grad("print", "print(x)", "--at", "x=1", expect=("unknown function 'print'",)),
    grad("input", "input()", expect=("unknown function 'input'",)),
    grad("exit", "exit()", expect=("unknown function 'exit'",)),
    grad("sympy-symbol", "Symbol('x')", expect=("unknown function 'Symbol'",)),
    grad("sympy-sympify", f'sympify("{TOUCH}")', expect=("unknown function 'sympify'",)),
    grad("sympy-parse-expr", "parse_expr('x')", expect=("unknown function 'parse_expr'",)),
    grad("sympy-S", "S('x')", expect=("unknown function 'S'",)),
    grad("method-mro", "x.mro()", "--at", "x=1", expect=("unknown method '.mro()'",)),
    grad("lambda", "lambda: 1", expect=("lambda", NOT_ALLOWED)),
    grad("list-comprehension", "[x for x in (1, 2)]", expect=("list comprehension",)),
    grad("set-comprehension", "{x for x in y}", expect=("set comprehension",)),
    grad("dict-comprehension", "{x: x for x in y}", expect=("dict comprehension",)),
    grad("generator", "sum(x for x in y)", expect=("generator expression",)),
    grad("f-string", "f'{x}'", expect=("f-string",)),
    grad("subscript-out-of-range", "x[10**30]", "--at", "x=[1,2]", expect=("out of bounds",)),
    grad("slice-step-zero", "x[::0]", "--at", "x=[1,2]", expect=("step must be greater than zero",)),
    grad("index-list-huge", "x[range(1000000000000)]", "--at", "x=[1,2]", expect=("MAX_INDEX_LITERAL",)),
    grad("index-range-1e8", "x[range(100000000)].sum()", "--at", "x=[1,2]", expect=("MAX_INDEX_LITERAL",)),
    grad(
        "index-ranges-total",
        "x[[" + ", ".join(["range(600000)"] * 2) + "]]",
        "--at",
        "x=[1,2]",
        expect=("integer literals",),
    ),
    grad("index-nested-list", "x[[0, [1]]].sum()", "--at", "x=[1,2,3]", expect=("integer literals",)),
    grad(
        "reshape-33-dims",
        "x.reshape(" + ", ".join(["1"] * 33) + ")[[0]].sum()",
        "--at",
        "x=[1]",
        expect=("MAX_DIMS",),
    ),
    grad(
        "conv-huge-kernel",
        "F.conv2d(torch.ones(1, 1, 1000, 1000) * x, torch.ones(1, 1, 300, 300)).sum()",
        "--at",
        "x=1",
        expect=("MAX_OP_MULTIPLY_ADDS=",),
    ),
    grad(
        "pool-huge-window",
        "F.max_pool2d(torch.ones(1, 1000, 1000) * x, 400, stride=1).sum()",
        "--at",
        "x=1",
        expect=("MAX_OP_MULTIPLY_ADDS=",),
    ),
    grad("unsqueeze-33-dims", "x" + ".unsqueeze(0)" * 33, "--at", "x=1", expect=("MAX_DIMS",)),
    grad("index-by-leaf", "x[w].sum()", "--at", "x=[1,2]", "--at", "w=[0,1]", expect=("must be long",)),
    grad("index-dunder", "x[x.__class__]", "--at", "x=[1,2]", expect=("'__class__'",)),
    grad("string", "'abc'", expect=("string is not a number",)),
    grad("bytes", "b'abc'", expect=("string is not a number",)),
    grad("import", "import os", expect=("import statement",)),
    grad("from-import", "from os import system", expect=("import statement",)),
    grad("def", "def f(): pass", expect=("function definition",)),
    grad("class", "class A: pass", expect=("class definition",)),
    grad("with", f"with open('{CANARY}') as f: pass", expect=("not allowed",)),
    grad("for", "for i in x: pass", expect=("not allowed",)),
    grad("while", "while x: pass", expect=("not allowed",)),
    grad("try", "try:\n  x\nexcept Exception:\n  pass", expect=("syntax error",)),
    grad("del", "del x", expect=("not allowed",)),
    grad("assert", "assert x", expect=("not allowed",)),
    grad("raise", "raise SystemExit", expect=("not allowed",)),
    grad("global", "global x", expect=("not allowed",)),
    grad("walrus", "(y := x)", "--at", "x=1", expect=("assignment expression",)),
    grad("conditional", "x if x else 1", "--at", "x=1", expect=("conditional expression",)),
    grad("boolean", "x and 1", "--at", "x=1", expect=("'and'/'or'",)),
    grad("not", "not x", "--at", "x=1", expect=("'not'",)),
    grad("invert", "~x", "--at", "x=1", expect=("~ (operator.invert) is only implemented",)),
    grad("floor-division", "x // 2", "--at", "x=1", expect=("derivative for aten::floor_divide",)),
    grad("shift", "x << 1", "--at", "x=1", expect=("'<<'",)),
    grad("call-of-call", "(x)(x)", "--at", "x=1", expect=("unknown function 'x'",)),
    grad("starred-argument", "sum(*x)", "--at", "x=[1]", expect=("starred",)),
    grad("double-star-argument", "sum(**x)", "--at", "x=[1]", expect=("sum() takes",)),
    grad("dunder-input-name", "x", "--at", "__import__=1", code=USAGE, expect=("not a valid input name",)),
    grad("value-import", "x", "--at", f"x={TOUCH}", expect=("--at x", "cannot read value")),
    grad("value-eval", "x", "--at", "x=eval('1')", expect=("unknown constructor 'eval'",)),
    grad("value-open", "x", "--at", f"x=open('{CANARY}', 'w')", expect=("unknown constructor 'open'",)),
    grad("value-nested-call", "x", "--at", f"x=zeros({TOUCH})", expect=("must be numbers",)),
    grad("value-expression", "x", "--at", "x=ones(2)+1", expect=("cannot read value",)),
    grad("value-keyword", "x", "--at", "x=zeros(shape=2)", expect=("cannot read value",)),
    grad("gradient-import", "x", "--at", "x=1", "--gradient", TOUCH, expect=("--gradient #1",)),
    piped("stdin-import", TOUCH.encode(), "--at", "x=1", expect=("'__import__'",)),
]

RESOURCE = [
    grad("power-tower-constant", "9**9**9**9", expect=("constant number inf",)),
    grad("nested-parentheses-5000", "(" * 5000 + "x" + ")" * 5000, "--at", "x=1", expect=("MAX_NESTING",)),
    grad("nested-calls-5000", "sin(" * 5000 + "x" + ")" * 5000, "--at", "x=1", expect=("MAX_NESTING",)),
    grad("nested-lists-5000", "[" * 5000 + "]" * 5000, expect=("MAX_NESTING",)),
    piped("unary-minus-100000", b"-" * 100_000 + b"x", "--at", "x=1", expect=("MAX_DEPTH",)),
    Case("unary-minus-100000-argument", ("grad", "--", "-" * 100_000 + "x"), INPUT, ("MAX_DEPTH",)),
    piped("sum-100000-terms", b"x+" * 99_999 + b"x", "--at", "x=1", expect=("MAX_DEPTH",)),
    grad("chain-1001-operators", "x" + "*x" * 1001, "--at", "x=1", expect=("MAX_DEPTH=1,000",)),
    piped("program-10MB", b"x+1\n" * 2_500_000, "--at", "x=1", expect=("MAX_PROGRAM_CHARS",)),
    grad("program-10MB-argument", "x" * 10_000_000, "--at", "x=1", expect=("MAX_PROGRAM_CHARS",)),
    piped("endless-stdin", b"x" * 2_000_001, "--at", "x=1", expect=("MAX_PROGRAM_CHARS", "standard input")),
    piped("statements-50000", b"x\n" * 50_000, "--at", "x=1", expect=("MAX_STATEMENTS", "50,000")),
    piped("statements-50000-semicolons", b"y=x;" * 50_000 + b"y", "--at", "x=1", expect=("MAX_STATEMENTS",)),
    piped(
        "operations-over-cap",
        "\n".join(f"y{i} = x" + "*x" * 900 for i in range(60)).encode(),
        "--at",
        "x=1",
        expect=("MAX_NODES",),
    ),
    grad("integer-literal-5000-digits", "x*1" + "0" * 5000, "--at", "x=1", expect=("syntax error", "4300")),
    grad("tensor-1e10", "x", "--at", "x=zeros(100000,100000)", expect=("10,000,000,000", "MAX_ELEMENTS")),
    grad("tensor-1e300", "x", "--at", "x=zeros(1e300)", expect=("1.0e+300", "MAX_ELEMENTS")),
    grad("eye-1e10", "x", "--at", "x=eye(100000)", expect=("10,000,000,000", "MAX_ELEMENTS")),
    grad("full-1e10", "x", "--at", "x=full(100000,100000,1)", expect=("10,000,000,000",)),
    grad("linspace-1e12", "x", "--at", "x=linspace(0,1,1e12)", expect=("1,000,000,000,000", "MAX_ELEMENTS")),
    grad("arange-tiny-step", "x", "--at", "x=arange(0,1,1e-300)", expect=("MAX_ELEMENTS",)),
    grad("arange-inf", "x", "--at", "x=arange(1e999)", expect=("finite",)),
    grad("zeros-inf", "x", "--at", "x=zeros(1e999)", expect=("whole numbers",)),
    grad(
        "broadcast-1e10",
        "a*b",
        "--at",
        "a=zeros(100000,1)",
        "--at",
        "b=zeros(1,100000)",
        expect=("[100000, 100000]", "10,000,000,000", "MAX_ELEMENTS"),
    ),
    grad(
        "matmul-1e10",
        "A@B",
        "--at",
        "A=zeros(100000,1)",
        "--at",
        "B=zeros(1,100000)",
        expect=("10,000,000,000", "MAX_ELEMENTS"),
    ),
    grad(
        "graph-elements",
        "p = a*b; q = p*p; r = q*q; s = r*r; u = s*s; sum(u)",
        "--at",
        "a=zeros(10000,1)",
        "--at",
        "b=zeros(1,10000)",
        expect=("MAX_GRAPH_ELEMENTS",),
    ),
    grad("passes-1e8", "x**2", "--at", "x=2", "--passes", "100000000", expect=("MAX_PASSES", "100,000,000")),
    grad(
        "passes-1e30",
        "x**2",
        "--at",
        "x=2",
        "--retain-graph",
        "--passes",
        "1" + "0" * 30,
        expect=("MAX_PASSES",),
    ),
    grad("json-nested-100000", "x", "--at", "x=" + "[" * 100_000, expect=("cannot read value",)),
    grad("json-nested-40", "x", "--at", "x=" + "[" * 40 + "1" + "]" * 40, expect=("nested more than 32",)),
    grad("json-integer-5000-digits", "x", "--at", "x=1" + "0" * 5000, expect=("cannot read value",)),
]

MALFORMED = [
    grad("unclosed-parenthesis", "(x", "--at", "x=1", expect=("column 1", "never closed")),
    grad("unopened-parenthesis", "x)", "--at", "x=1", expect=("syntax error",)),
    grad("empty", "", expect=("program is empty",)),
    grad("blank", "   \n\t  ", expect=("program is empty",)),
    grad("only-comment", "# nothing here", expect=("only comments",)),
    piped("empty-stdin", b"", "--at", "x=1", expect=("program is empty",)),
    grad("trailing-operator", "x+", "--at", "x=1", expect=("column 3", "syntax error")),
    grad("trailing-power", "x^", "--at", "x=1", expect=("syntax error",)),
    grad("double-semicolon", "x; ; x", "--at", "x=1", expect=("syntax error",)),
    grad("unknown-function", "foo(x)", "--at", "x=1", expect=("unknown function 'foo'", "gradcli ops")),
    grad("unknown-method", "x.foo()", "--at", "x=1", expect=("unknown method '.foo()'",)),
    grad("unknown-attribute", "x.foo", "--at", "x=1", expect=("unknown attribute '.foo'",)),
    grad("method-not-called", "x.sin", "--at", "x=1", expect=("is a method",)),
    grad("function-not-called", "sin*x", "--at", "x=1", expect=("no value for sin", "is a function")),
    grad("arity-too-many", "sin(x, x)", "--at", "x=1", expect=("sin() takes 1 argument(s) (2 given)",)),
    grad("arity-too-few", "sin()", expect=("sin() takes 1 argument(s) (0 given)",)),
    grad("pow-one-argument", "x.pow()", "--at", "x=1", expect=("pow() takes 2",)),
    grad("sum-four-arguments", "sum(x, 0, True, 1)", "--at", "x=[1]", expect=("sum() takes 1 to 3",)),
    grad("bad-dim", "sum(x, dim=5)", "--at", "x=[1,2]", expect=("Dimension out of range", "got 5")),
    grad("bad-dim-negative", "x.mean(dim=-3)", "--at", "x=[[1,2]]", expect=("Dimension out of range",)),
    grad("dim-float", "sum(x, dim=1.5)", "--at", "x=[1]", expect=("dim must be an integer",)),
    # a dim may be a size expression (x.dim() - 1); a tensor there is refused
    grad(
        "dim-name",
        "sum(x, dim=y)",
        "--at",
        "x=[1]",
        "--at",
        "y=0",
        expect=("dim must be a number, not a tensor",),
    ),
    grad("keepdim-int", "sum(x, keepdim=1)", "--at", "x=[1]", expect=("keepdim must be True or False",)),
    grad(
        "unknown-keyword", "sum(x, axes=0)", "--at", "x=[1]", expect=("unexpected keyword argument 'axes'",)
    ),
    grad("dim-twice", "sum(x, 0, dim=0)", "--at", "x=[1]", expect=("multiple values for argument 'dim'",)),
    grad("nul-byte", "x\x00+1", "--at", "x=1", expect=("NUL",)),
    piped("nul-byte-stdin", b"x\x00", "--at", "x=1", expect=("NUL",)),
    piped("invalid-utf8-stdin", b"x\xff\xfe", "--at", "x=1", expect=("not valid UTF-8", "byte 1")),
    grad("non-printable", "x\u200b", "--at", "x=1", expect=("U+200B",)),
    grad("ragged", "sum(x)", "--at", "x=[[1,2],[3]]", expect=("--at x", "ragged")),
    grad("ragged-mixed", "sum(x)", "--at", "x=[1,[2]]", expect=("ragged",)),
    grad("value-true", "sum(x)", "--at", "x=[true]", expect=("contains true, which is not a number",)),
    grad("value-null", "x", "--at", "x=null", expect=("contains null",)),
    grad("value-string", "x", "--at", 'x="2"', expect=('contains "2"',)),
    grad("value-object", "x", "--at", 'x={"a": 1}', expect=("which is not a number",)),
    grad("value-empty", "x", "--at", "x=", expect=("empty value",)),
    grad("value-unclosed", "x", "--at", "x=[1,", expect=("cannot read value",)),
    grad("value-unknown-constructor", "x", "--at", "x=abc", expect=("cannot read value 'abc'",)),
    grad("value-negative-size", "x", "--at", "x=zeros(-1)", expect=("negative size",)),
    grad("value-fractional-size", "x", "--at", "x=zeros(2.5)", expect=("whole numbers",)),
    grad(
        "value-linspace-arity", "x", "--at", "x=linspace(0,1)", expect=("linspace takes start, stop, count",)
    ),
    grad("value-arange-zero-step", "x", "--at", "x=arange(0,1,0)", expect=("step must not be zero",)),
    grad("value-syntax", "x", "--at", "x=zeros(2,,3)", expect=("cannot read value",)),
    grad("gradient-unreadable", "x", "--at", "x=1", "--gradient", "abc", expect=("--gradient #1",)),
    grad("at-without-equals", "x", "--at", "x", code=USAGE, expect=("expected NAME=VALUE",)),
    grad("at-empty-name", "x", "--at", "=1", code=USAGE, expect=("not a valid input name",)),
    grad(
        "at-invalid-identifier", "x", "--at", "1x=1", code=USAGE, expect=("'1x' is not a valid input name",)
    ),
    grad("at-dash-name", "x", "--at", "x-y=1", code=USAGE, expect=("not a valid input name",)),
    grad("at-keyword-name", "x", "--at", "lambda=1", code=USAGE, expect=("not a valid input name",)),
    grad("duplicate-at", "x", "--at", "x=1", "--at", "x=2", code=USAGE, expect=("given twice",)),
    grad(
        "duplicate-const",
        "x*y",
        "--at",
        "x=1",
        "--const",
        "y=1",
        "--const",
        "y=2",
        code=USAGE,
        expect=("twice",),
    ),
    grad("at-and-const", "x*y", "--at", "x=1", "--const", "x=2", expect=("both as --at and as --const",)),
    grad("at-unused-name", "x", "--at", "x=1", "--at", "z=1", expect=("no input named 'z'",)),
    grad("free-names-missing", "x*y*z", "--at", "x=1", expect=("no value for y, z", "--at y=VALUE")),
    grad("program-invalid-identifier", "1x", "--at", "x=1", expect=("syntax error",)),
    grad("program-dollar", "$x", "--at", "x=1", expect=("syntax error",)),
    grad("comparison", "x == 1", "--at", "x=1", expect=("does not require grad",)),
    grad("comparison-chain", "0 < x < 1", "--at", "x=1", expect=("compare two things at a time",)),
    # a bool mask indexes (x[x > 0] runs); one of the wrong shape, or without values, is refused
    grad(
        "mask-index",
        "x[m].sum()",
        "--at",
        "x=[1,-1]",
        "--const",
        "m=[true,false,true]",
        expect=("The shape of the mask [3] at index 0",),
    ),
    grad("mask-index-symbolic", "x[x > 0]", expect=("needs the mask's values",)),
    # gather, one_hot, bool logic and conversions (issue 13): torch's refusals, never a traceback
    grad(
        "gather-huge-index",
        "x.gather(0, i).sum()",
        "--at",
        "x=[1,2]",
        "--const",
        "i=[1000000000000000]",
        expect=("index 1000000000000000 is out of bounds for dimension 0 with size 2",),
    ),
    grad(
        "gather-negative-index",
        "x.gather(0, i).sum()",
        "--at",
        "x=[1,2]",
        "--const",
        "i=[-1]",
        expect=("index -1 is out of bounds",),
    ),
    grad(
        "gather-huge-dim",
        "x.gather(10**30, i).sum()",
        "--at",
        "x=[1,2]",
        "--const",
        "i=[0]",
        expect=("dim must be an integer, not 1e+30",),
    ),
    grad(
        "gather-float-index",
        "x.gather(0, x).sum()",
        "--at",
        "x=[1,2]",
        expect=("gather(): Expected dtype int32/int64 for index",),
    ),
    # constructors inside a program (issue 13): literals only, sizes bounded before allocating
    grad("tensor-huge-zeros", "torch.zeros(10**6, 10**6).sum() * x", "--at", "x=1", expect=("MAX_ELEMENTS",)),
    grad("tensor-huge-arange", "torch.arange(1e18).sum() * x", "--at", "x=1", expect=("MAX_ELEMENTS",)),
    grad("tensor-inf-arange", "torch.arange(inf).sum() * x", "--at", "x=1", expect=("unsupported range",)),
    grad("tensor-arange-step-0", "torch.arange(0, 3, 0).sum() * x", "--at", "x=1", expect=("step must be nonzero",)),
    grad(
        "tensor-list-multiplied", "torch.tensor([1] * 10**9) * x", "--at", "x=1", expect=("takes numbers here",)
    ),
    grad(
        "tensor-of-a-call", "torch.tensor(__import__('os')) * x", "--at", "x=1", expect=("'__import__'",)
    ),
    grad(
        "tensor-of-a-string", "torch.tensor(['rm -rf']) * x", "--at", "x=1", expect=("takes numbers here",)
    ),
    grad(
        "tensor-dtype-attribute",
        "torch.ones(2, dtype=torch.__class__) * x",
        "--at",
        "x=1",
        expect=("'__class__'",),
    ),
    grad("tensor-dtype-string", "torch.ones(2, dtype='float') * x", "--at", "x=1", expect=("dtype must be",)),
    grad("tensor-negative-size", "torch.ones(-5) * x", "--at", "x=1", expect=("negative dimension -5",)),
    grad(
        "tensor-ragged", "torch.tensor([[1, 2], [3]]) * x", "--at", "x=1", expect=("expected sequence of length 2",)
    ),
    grad(
        "tensor-requires-grad",
        "torch.tensor([1.0], requires_grad=True) * x",
        "--at",
        "x=1",
        expect=("requires_grad=True makes a leaf",),
    ),
    grad("gather-dunder-keyword", "x.gather(0, __index__=x)", "--at", "x=[1,2]", expect=("'__index__'",)),
    grad(
        "one-hot-huge-classes",
        "F.one_hot(y, num_classes=10**12).sum() * x",
        "--at",
        "x=1",
        "--const",
        "y=[1]",
        expect=("num_classes must be an integer, not 1e+12",),
    ),
    grad(
        "one-hot-big-classes",
        "F.one_hot(y, num_classes=99999999).sum() * x",
        "--at",
        "x=1",
        "--const",
        "y=[1,2]",
        expect=("MAX_ELEMENTS",),
    ),
    grad(
        "one-hot-negative-class",
        "F.one_hot(y, 3).sum() * x",
        "--at",
        "x=1",
        "--const",
        "y=[-1]",
        expect=("Class values must be non-negative.",),
    ),
    grad(
        "one-hot-no-classes-empty",
        "F.one_hot(torch.tensor([], dtype=torch.long)).sum() * x",
        "--at",
        "x=1",
        expect=("Can not infer total number of classes from empty tensor.",),
    ),
    grad(
        "bitwise-and-float", "(x & x).sum()", "--at", "x=[1,2]", expect=('"bitwise_and_cpu" not implemented',)
    ),
    grad(
        "bitwise-or-int-and-float",
        "((y | 1.5) * x).sum()",
        "--at",
        "x=[1,2]",
        "--const",
        "y=[1,2]",
        expect=('"bitwise_or_cpu" not implemented',),
    ),
    grad("conversion-dunder", "x.__float__()", "--at", "x=1", expect=("'__float__'",)),
    grad("conversion-to", "x.to(x)", "--at", "x=1", expect=("takes one torch dtype here",)),
    grad(
        "conversion-torch-float", "torch.float(x)", "--at", "x=1", expect=("unknown function 'torch.float'",)
    ),
    grad("python-float", "float(x)", "--at", "x=1", expect=("Python's float",)),
    grad(
        "unpack-too-many",
        "a, b = x.shape; x.sum()",
        "--at",
        "x=[[[1]]]",
        expect=("too many values to unpack",),
    ),
    grad(
        "assign-subscript", "x[0] = 1; x.sum()", "--at", "x=[1]", expect=("subscript and attribute targets",)
    ),
    grad(
        "floor-divide-by-zero",
        "x.view(2 // 0)",
        "--at",
        "x=[1,2]",
        expect=("integer division or modulo by zero",),
    ),
    grad(
        "floor-divide-tensors",
        "(x // x).sum()",
        "--at",
        "x=[1,2]",
        expect=("derivative for aten::floor_divide is not implemented",),
    ),
    grad("tuple", "(x, x)", "--at", "x=1", expect=("tuple",)),
    grad("list", "[x, x]", "--at", "x=1", expect=("list",)),
    grad("none", "None", expect=("None is not a number",)),
    grad("true", "True * x", "--at", "x=1", expect=("True is not a number",)),
    grad("ellipsis", "...", expect=("Ellipsis is not a number",)),
    grad("complex", "1j * x", "--at", "x=1", expect=("complex number",)),
    grad("use-before-assign", "y + 1; y = x", "--at", "x=1", expect=("no value for y",)),
    grad("assign-chain", "a = b = x", "--at", "x=1", expect=("assign to one plain name",)),
    grad("assign-tuple", "a, b = x", "--at", "x=1", expect=("assign to one plain name",)),
    grad(
        "in-place-on-leaf", "x += 1", "--at", "x=1", expect=("leaf Variable that requires grad", "in-place")
    ),
    grad("in-place-matmul", "y = x*1; y @= x", "--at", "x=[1]", expect=("in-place '@='",)),
    grad("annotated-assignment", "y: int = x", "--at", "x=1", expect=("annotated assignment",)),
    grad("constant-output", "2*3", expect=("constant number 6",)),
    grad(
        "matmul-shapes",
        "A@B",
        "--at",
        "A=zeros(2,3)",
        "--at",
        "B=zeros(2,3)",
        expect=("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",),
    ),
    grad(
        "matmul-vectors", "x@y", "--at", "x=[1,2]", "--at", "y=[1,2,3]", expect=("inconsistent tensor size",)
    ),
    grad("matmul-scalars", "x@x", "--at", "x=1", expect=("both arguments to matmul need to be at least 1D",)),
    grad(
        "broadcast-shapes",
        "a+b",
        "--at",
        "a=[1,2]",
        "--at",
        "b=[1,2,3]",
        expect=("The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",),
    ),
    grad(
        "non-scalar-output",
        "x*2",
        "--at",
        "x=[1,2]",
        expect=("grad can be implicitly created only for scalar",),
    ),
    grad(
        "gradient-shape",
        "x",
        "--at",
        "x=[[1,2],[3,4]]",
        "--gradient",
        "[1,2]",
        expect=("Mismatch in shape", "torch.Size([2])", "torch.Size([2, 2])"),
    ),
    # A second pass without --retain-graph is not refused up front: pass 1 finishes and is printed
    # first, as in torch (tests/test_grad_cli.py::test_a_second_pass_without_retain_graph_...).
    grad("no-grad", "x*2", "--const", "x=1", expect=("element 0 of tensors does not require grad",)),
    grad("passes-zero", "x", "--at", "x=1", "--passes", "0", code=USAGE, expect=("--passes",)),
    grad("passes-negative", "x", "--at", "x=1", "--passes", "-5", code=USAGE, expect=("--passes",)),
    grad("passes-word", "x", "--at", "x=1", "--passes", "many", code=USAGE, expect=("--passes",)),
    grad("dtype-float16", "x", "--at", "x=1", "--dtype", "float16", code=USAGE, expect=("--dtype",)),
    grad("format-xml", "x", "--at", "x=1", "--format", "xml", code=USAGE, expect=("--format",)),
    grad("seed-word", "x", "--at", "x=1", "--seed", "abc", code=USAGE, expect=("--seed",)),
    grad("unknown-option", "x", "--nope", code=USAGE, expect=("No such option",)),
    grad("escape-sequence-option", "x", "--\x1b]0;pwned\x07", code=USAGE, expect=("\\x1b]0;pwned\\x07",)),
    grad("value-warning-escape", "x", "--at", "x=zeros('\\d')", expect=("must be numbers",)),
    Case("unknown-command", ("nope",), USAGE, ("No such command 'nope'",)),
    Case("extra-argument", ("grad", "x", "y", "--at", "x=1"), USAGE, ("unexpected extra argument",)),
]

# The other commands share the parser, the caps and the error boundary.
OTHER_COMMANDS = [
    Case("graph-import", ("graph", TOUCH), INPUT, ("'__import__'",)),
    Case("jacobian-import", ("jacobian", TOUCH, "--at", "x=1"), INPUT, ("'__import__'",)),
    Case("hessian-import", ("hessian", TOUCH, "--at", "x=1"), INPUT, ("'__import__'",)),
    Case("check-import", ("check", TOUCH, "--at", "x=1"), INPUT, ("'__import__'",)),
    Case("jacobian-1e10", ("jacobian", "x*2", "--at", "x=zeros(100000)"), INPUT, ("10,000,000,000",)),
    Case(
        "hessian-1e10",
        ("hessian", "sum(x*x)", "--at", "x=zeros(100000)"),
        INPUT,
        ("80,000,000,000", "MAX_HESSIAN_BYTES=800,000,000"),
    ),
    Case(
        "check-1e6",
        ("check", "sum(x*x)", "--at", "x=zeros(1000000)"),
        INPUT,
        ("1,000,000", "MAX_CHECK_ELEMENTS=1,000"),
    ),
    # check, jacobian and hessian repeat a pass per element: refused before the first.
    Case(
        "check-big-const",
        ("check", "sum(x*sum(c))", "--at", "x=zeros(1000)", "--const", "c=zeros(10000000)"),
        INPUT,
        ("4,000 forward passes", "MAX_DERIVATIVE_PASS_ELEMENTS=100,000,000"),
    ),
    Case(
        "check-long-program",
        ("check", "\n".join(["y = sum(x)"] + ["y = sin(y)"] * 300 + ["y"]), "--at", "x=zeros(100)"),
        INPUT,
        ("400 forward passes", "MAX_DERIVATIVE_PASS_NODES=100,000"),
    ),
    Case(
        "jacobian-outer-rows",
        ("jacobian", "outer(x, x)", "--at", "x=zeros(300)"),
        INPUT,
        ("90,000 backward passes", "MAX_DERIVATIVE_PASS_ELEMENTS=100,000,000"),
    ),
    Case(
        "hessian-outer-rows",
        ("hessian", "sum(outer(x, x))", "--at", "x=zeros(3000)"),
        INPUT,
        ("3,000 backward passes", "MAX_DERIVATIVE_PASS_ELEMENTS=100,000,000"),
    ),
    Case(
        "graph-broadcast-1e10",
        ("graph", "a*b", "--at", "a=zeros(100000,1)", "--at", "b=zeros(1,100000)"),
        INPUT,
        ("10,000,000,000", "MAX_ELEMENTS"),
    ),
    Case("graph-nesting", ("graph", "(" * 5000 + "x" + ")" * 5000), INPUT, ("MAX_NESTING",)),
]

CASES: list[Case] = INJECTION + RESOURCE + MALFORMED + OTHER_COMMANDS

# A few representative cases also run as real processes, with a wall-clock limit.
SUBPROCESS_IDS = (
    "import-system",
    "class-bases-subclasses",
    "nested-parentheses-5000",
    "unary-minus-100000",
    "sum-100000-terms",
    "statements-50000",
    "endless-stdin",
    "tensor-1e10",
    "broadcast-1e10",
    "passes-1e8",
    "invalid-utf8-stdin",
    "at-without-equals",
)
