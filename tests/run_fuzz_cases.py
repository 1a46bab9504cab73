"""A fuzzer of `gradcli run`'s own calls (issue 24): every torch function, tensor method and
constructor the interpreter supports, called with wrong, boundary and hostile arguments, with
python+torch as the oracle.

The surface is read from the interpreter's own tables (`tensor_method_names()`, `CONSTRUCTORS`,
`PIECE_CALLS`, `POSITION_CALLS`, `ops.MODULES` for torch., F., torch.special. and torch.linalg., the
autograd functions `module_attribute` hands out), keeping the names real torch has, so a newly
added function is fuzzed without an edit here. For each callee a baseline call is found by
trying a small pool of argument lists until gradcli runs one; the cases then change that
baseline one argument at a time: each position and each keyword the op's record declares gets
each hostile value (None, a string, 10**30, 2**63, 2**70, negative ints, floats, nan/inf, a
tensor, tuples and lists of the wrong kind, empty ones, a dtype), and the call also runs with an
argument missing, one too many, an unknown keyword, dtype=/device= nonsense and receivers of
other shapes and dtypes. Each case is a tiny script:

    import torch
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x.add(None)
    print(y)

What must hold (`verdict`): gradcli's run ends cleanly (no exception escapes `run_script`, no
"internal error", under CASE_SECONDS); where torch raises, gradcli's error line names the same
exception type; where torch succeeds, gradcli prints the same text or refuses with a clean error
(counted as a refusal, not a failure).

    python tests/run_fuzz_cases.py --long [--out /work/fuzz_findings.md] [--limit N]

runs every case, gradcli and torch each in a worker process of its own (per-case time bound,
memory bound, restarted when a case kills it), and writes the catalogue of findings grouped by
root cause. tests/test_run_fuzz.py runs a seeded sample of the same cases under pytest
(GRADCLI_LONG_FUZZ=1 runs them all there).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CASE_SECONDS = 2.0  # a gradcli run slower than this is a hang
HARD_SECONDS = 10.0  # a run still going after this is stopped (a worker's alarm)
TORCH_SECONDS = 10.0
STARTUP_SECONDS = 180.0  # a worker's imports on a loaded machine
WORKER_MEMORY = 4 << 30  # bytes of address space a worker may add after its imports

# ---------------------------------------------------------------- the values

# Receivers: the tensor a method is called on (and a function's first operand). `w` is a
# second operand of x's shape and dtype, `i` an int64 index tensor that fits x's first dim.
RECEIVERS: dict[str, str] = {
    "f1g": "x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)",
    "f1": "x = torch.tensor([1.5, -2.0, 3.0])",
    "f0g": "x = torch.tensor(0.5, requires_grad=True)",
    "f2": "x = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])",
    "d2g": "x = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=torch.float64, requires_grad=True)",
    "i1": "x = torch.tensor([2, 0, 1])",
    "b1": "x = torch.tensor([True, False, True])",
}
PARTNERS = "w = x.detach().clone()\ni = torch.tensor([1, 0])"
BASE_RECEIVER = "f1g"
# where no candidate runs on BASE_RECEIVER (in-place ops on a leaf, 2-D ops, integer ops)
BASELINE_RECEIVERS = ("f1g", "f1", "f2", "i1", "f0g")

# name -> source text: the hostile and boundary values an argument slot receives
HOSTILE: dict[str, str] = {
    "None": "None",
    "str": "'a'",
    "empty-str": "''",
    "huge-int-1e30": "10**30",
    "int-2**63": "2**63",
    "int-2**70": "2**70",
    "int-2**62": "2**62",
    "int-2**40": "2**40",
    "neg-huge-int": "-2**63 - 1",
    "neg-int": "-1",
    "neg-int-big": "-7",
    "zero": "0",
    "big-int": "100",
    "float": "1.5",
    "tiny-float": "1e-300",
    "nan": "float('nan')",
    "inf": "float('inf')",
    "neg-inf": "-float('inf')",
    "bool": "True",
    "tensor": "x",
    "int-tensor": "torch.tensor(1)",
    "float-tensor-0d": "torch.tensor(1.5)",
    "empty-tuple": "()",
    "empty-list": "[]",
    "tuple-float": "(1.5,)",
    "tuple-str": "('a',)",
    "tuple-None": "(None,)",
    "tuple-huge": "(10**30,)",
    "list-tensors": "[x, x]",
    "nested-list": "[[1], [2, 3]]",
    "dict": "{}",
    "dtype": "torch.float64",
    "numpy-float": "w.numpy().sum()",
    "numpy-int": "i.numpy().max()",
    "numpy-array": "w.numpy()",
}
# a smaller set for the slots where every value is tried on every receiver in CI sampling
EXTRA_VALUES = ("None", "int-2**70", "tensor", "str")
DTYPE_NONSENSE = ("'float32'", "1", "torch.float64 == 1", "x")
DEVICE_NONSENSE = ("'gpu'", "'cuda'", "1", "'cpu:99'", "None")
OUT_NONSENSE = ("None", "1", "w", "x", "i", "[w]", "torch.ones(7)")

# Candidate argument lists for the baseline call (after the receiver, for methods; whole, for
# functions, where `x` is the receiver). The first one gradcli runs is the baseline.
METHOD_ARGS: tuple[tuple[str, ...], ...] = (
    (),
    ("0",),
    ("w",),
    ("1",),
    ("0.5",),
    ("-1",),
    ("0", "1"),
    ("w", "w"),
    ("0", "i"),
    ("x > 0", "0.5"),
    ("3",),
    ("(3,)",),
    ("torch.float64",),
    ("i",),
    ("0", "0", "1"),
    ("x > 0", "w"),
    ("w", "0.5"),
    ("(1, 0)",),
    ("1", "0"),
    ("3", "1"),
    ("torch.ones(3, 2)",),
    ("torch.ones(2, 3)",),
    ("torch.ones(3, 3)", "torch.ones(3, 3)"),
    ("torch.ones(2, 3, 3)",),
    ("x > 0", "w"),
    ("lambda g: g * 2",),
)
FUNCTION_ARGS: tuple[tuple[str, ...], ...] = (
    ("x",),
    ("x", "w"),
    ("x", "0"),
    ("x", "1"),
    ("[x, w]",),
    ("[x, w]", "0"),
    ("x", "-1"),
    ("x", "0.5"),
    ("x > 0", "x", "w"),
    ("x", "i"),
    ("x", "0", "i"),
    ("x", "w", "w"),
    ("x", "0", "1"),
    ("x", "(3,)"),
    ("x", "3"),
    ("x", "(1, 0)"),
    ("x", "1", "0"),
    ("'cpu'",),
    ("torch.ones(3, 2)", "i"),
    ("x", "x > 0"),
    ("x", "0", "0", "2"),
    ("3",),
    ("(2, 3)",),
    ("[1.0, 2.0]",),
    ("2", "3"),
    ("(2,)", "1.5"),
    ("0", "3"),
    ("0", "1", "5"),
    ("0", "3", "(2,)"),
    ("x", "torch.ones(3, 2)"),
    ("torch.ones(3, 3)", "torch.ones(3, 3)", "torch.ones(3, 3)"),
    ("torch.ones(2, 3, 3)", "torch.ones(2, 3, 3)"),
    ("x", "torch.tensor([0, 2, 1])"),
    ("x.unsqueeze(0)", "torch.tensor([2])"),
    ("x", "w", "0.5"),
    ("x", "torch.ones(2, 3)", "torch.ones(2)"),
    ("x", "(3,)", "torch.ones(3)", "torch.ones(3)"),
    ("x * 0.1 + 0.5", "torch.tensor([1.0, 0.0, 1.0])"),
    ("lambda v: (v * v).sum()", "x"),
    ("lambda v: (v * v).sum()", "x", "w"),
    ("lambda v: v * v", "x", "w"),
    ("(x * x).sum()", "x"),
    ("[(x * x).sum()]", "[x]"),
    ("(x * x).sum()",),
)
# outputs that cannot equal torch's: gradcli's own random generator, seeds, process state
# math's functions of one or two numbers that tutorials call on a 0-d tensor
MATH_FUNCTIONS = ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "fabs", "floor", "ceil", "isclose", "log10", "log2", "atan", "isnan", "isinf", "erf", "atan2", "asin", "acos", "sinh", "cosh", "log1p", "expm1", "hypot"]

RANDOM = {"rand", "randn", "rand_like", "randn_like", "randint", "manual_seed", "seed", "empty", "empty_like"}
# results that are Python objects of torch's own (a grad-mode context, a decorator): not printed
OPAQUE = {"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"}
# callees whose baseline needs no `y = ...` result check of its value
SKIP = {"set_printoptions"}  # changes how later prints look: its own test elsewhere


@dataclass(frozen=True)
class Callee:
    kind: str  # "method", "torch", "F", "special", "linalg", "autograd", "functional", "nn", "math"
    name: str

    @property
    def spelled(self) -> str:
        prefix = {
            "method": "x.",
            "torch": "torch.",
            "F": "F.",
            "special": "torch.special.",
            "linalg": "torch.linalg.",
            "autograd": "torch.autograd.",
            "functional": "torch.autograd.functional.",
            "nn": "torch.nn.",
            "math": "math.",
        }[self.kind]
        return prefix + self.name


@dataclass
class Case:
    id: str
    callee: str  # x.add, torch.full
    receiver: str  # a RECEIVERS key
    # "baseline", "arg0", "kw:dim", "extra", "missing", "unknown-kw", "dtype", "device", "receiver"
    mutation: str
    value: str  # the HOSTILE key (or the text) the mutation put in
    call: str  # the call's source text
    script: str

    def __repr__(self) -> str:  # pytest shows the test's arguments: the id says it all
        return f"Case({self.id!r})"


def surface() -> list[Callee]:
    """Every callable the interpreter hands out, as its tables say, that real torch has too."""
    import torch
    import torch.nn.functional as F

    from gradcli.ops import MODULES
    from gradcli.script.tensor_methods import tensor_method_names
    from gradcli.script.torch_api import CONSTRUCTORS, PIECE_CALLS, POSITION_CALLS

    callees: list[Callee] = []
    for name in sorted(tensor_method_names()):
        if hasattr(torch.Tensor, name):
            callees.append(Callee("method", name))
    torch_names = set(MODULES["torch"]) | CONSTRUCTORS | set(PIECE_CALLS) | set(POSITION_CALLS)
    for name in sorted(torch_names):
        if hasattr(torch, name) and callable(getattr(torch, name)) and name not in SKIP:
            callees.append(Callee("torch", name))
    for name in sorted(MODULES["torch.nn.functional"]):
        if hasattr(F, name) and callable(getattr(F, name)):
            callees.append(Callee("F", name))
    for module, kind in (("torch.special", "special"), ("torch.linalg", "linalg")):
        owner = getattr(torch, module.split(".")[1])
        for name in sorted(MODULES[module]):
            if hasattr(owner, name):
                callees.append(Callee(kind, name))
    for name in ("grad", "backward"):
        callees.append(Callee("autograd", name))
    for name in ("jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"):
        callees.append(Callee("functional", name))
    callees.append(Callee("nn", "Parameter"))
    for name in sorted(MATH_FUNCTIONS):  # Python's math, given tensors (their __float__)
        callees.append(Callee("math", name))
    return callees


def keywords_of(callee: Callee) -> list[str]:
    """The keyword names gradcli's record of the callee declares (dim=, keepdim=, p=, ...)."""
    from gradcli.ops import COMPOSITES, LISTED, MODULES, REGISTRY, SIGNATURES

    table = {
        "method": MODULES["torch"],
        "torch": MODULES["torch"],
        "F": MODULES["torch.nn.functional"],
        "special": MODULES["torch.special"],
        "linalg": MODULES["torch.linalg"],
    }.get(callee.kind)
    names: list[str] = []
    if table is not None and callee.name in table:
        op = table[callee.name].op
        record = REGISTRY.get(op) or COMPOSITES.get(op)
        if record is None and op in LISTED:
            record = next(iter(LISTED[op].values()))
        if record is not None:
            names += [p.name for p in record.params]
        names += [n for n in SIGNATURES.get(op, ()) if n not in ("input",)]
    if callee.kind == "torch" and callee.name in _constructors():
        names += ["dtype", "requires_grad", "device"]
    if callee.kind in ("autograd", "functional"):
        names += {
            "grad": ["grad_outputs", "retain_graph", "create_graph", "allow_unused"],
            "backward": ["grad_tensors", "retain_graph", "create_graph", "inputs"],
        }.get(callee.name, ["create_graph", "strict", "vectorize"])
    if callee.kind == "method" and callee.name == "backward":
        names += ["gradient", "retain_graph", "create_graph", "inputs"]
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def _constructors() -> set[str]:
    from gradcli.script.torch_api import CONSTRUCTORS

    return set(CONSTRUCTORS)


def script(receiver: str, call: str, printed: str = "print(y)") -> str:
    return "\n".join(
        [
            "import math",
            "import numpy",
            "import torch",
            "import torch.nn.functional as F",
            RECEIVERS[receiver],
            PARTNERS,
            f"y = {call}",
            printed,
            "",
        ]
    )


def _printed(callee: Callee) -> str:
    if callee.name in OPAQUE:
        return "print('called')"
    if callee.name in RANDOM:
        return "print(type(y).__name__, tuple(y.shape) if isinstance(y, torch.Tensor) else '')"
    return "print(y)"


def _call(callee: Callee, args: Iterable[str], kwargs: Iterable[tuple[str, str]] = ()) -> str:
    parts = list(args) + [f"{k}={v}" for k, v in kwargs]
    return f"{callee.spelled}({', '.join(parts)})"


_HINTS: dict[str, tuple[str, tuple[str, ...]]] = {}
_HEADERS: dict[str, object] = {}


def _torch_runs(receiver: str, call: str) -> bool:
    """Whether torch runs `y = call` after the receiver's lines (a baseline candidate: benign,
    so in this process; the header is compiled once per receiver)."""
    if receiver not in _HEADERS:
        _HEADERS[receiver] = compile(script(receiver, "None", ""), "header", "exec")
    namespace: dict = {"__name__": "__main__"}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(_HEADERS[receiver], namespace)
            namespace["y"] = eval(call, namespace)
            str(namespace["y"])
    except Exception:  # noqa: BLE001
        return False
    return True


def baseline(callee: Callee) -> tuple[str, tuple[str, ...], bool] | None:
    """The first receiver and candidate argument list that torch and gradcli both run for this
    callee (True), else the first gradcli runs on BASE_RECEIVER (False), else None. Candidates
    are benign, so torch runs them in this process."""
    import warnings

    from script_run import run_script

    def runs(text: str) -> bool:
        try:
            return run_script(text).error is None
        except Exception:  # noqa: BLE001 - a crash is the fuzz's to find, not the baseline's
            return False

    pool = METHOD_ARGS if callee.kind == "method" else FUNCTION_ARGS
    if callee.kind == "math":
        pool = (("0.5",), ("1.5", "2.5"))
    tries = [
        (r, a) for r in (BASELINE_RECEIVERS if callee.kind != "math" else (BASE_RECEIVER,)) for a in pool
    ]
    hint = _HINTS.get(callee.name)  # what x.add ran with, torch.add tries first (and back)
    if hint is not None and callee.kind != "math":
        receiver, tail = hint
        tries.insert(0, (receiver, tail if callee.kind == "method" else ("x", *tail)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for receiver, args in tries:
            text = script(receiver, _call(callee, args), _printed(callee))
            if _torch_runs(receiver, _call(callee, args)) and runs(text):
                if callee.kind == "method":
                    _HINTS.setdefault(callee.name, (receiver, args))
                elif args[:1] == ("x",):
                    _HINTS.setdefault(callee.name, (receiver, args[1:]))
                return receiver, args, True
    for args in pool:
        if runs(script(BASE_RECEIVER, _call(callee, args), _printed(callee))):
            return BASE_RECEIVER, args, False
    return None


def cases_for(callee: Callee) -> list[Case]:
    found = baseline(callee)
    home, base, both = found if found else (BASE_RECEIVER, () if callee.kind == "method" else ("x",), False)
    printed = _printed(callee)
    out: list[Case] = []

    def add(mutation: str, value: str, args, kwargs=(), receiver: str = home) -> None:
        call = _call(callee, args, kwargs)
        out.append(
            Case(
                id=f"{callee.spelled}|{receiver}|{mutation}|{value}",
                callee=callee.spelled,
                receiver=receiver,
                mutation=mutation,
                value=value,
                call=call,
                script=script(receiver, call, printed),
            )
        )

    add("baseline" if both else "baseline-gradcli-only" if found else "no-baseline", "", base)
    for index in range(len(base)):
        for key, text in HOSTILE.items():
            if text != base[index]:
                args = list(base)
                args[index] = text
                add(f"arg{index}", key, args)
    for name in keywords_of(callee):
        for key, text in HOSTILE.items():
            add(f"kw:{name}", key, base, [(name, text)])
    for key in EXTRA_VALUES:
        add("extra", key, [*base, HOSTILE[key]])
    if base:
        add("missing", "", base[:-1])
    add("unknown-kw", "bogus", base, [("bogus", "1")])
    for text in DTYPE_NONSENSE:
        add("dtype", text, base, [("dtype", text)])
    for text in DEVICE_NONSENSE:
        add("device", text, base, [("device", text)])
    if callee.kind == "torch":
        for text in OUT_NONSENSE:
            add("out", text, base, [("out", text)])
    if callee.kind != "math":
        for receiver in RECEIVERS:
            if receiver != home:
                add("receiver", receiver, base, receiver=receiver)
    return out


# ---------------------------------------------------------------- class statements
# Each family is a small script with one hole; every variant of the hole is a case. What must
# hold is the same as for calls: a clean end, torch's exception type where Python+torch raises.
_CLASS_HEAD = "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nx = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)\n"
CLASS_FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "bases": (
        "class C({HOLE}):\n    def __init__(self):\n        self.v = 1\nc = C()\nprint(c.v, type(c).__name__)\n",
        (
            "", "object", "int", "dict", "Exception", "nn.Module", "torch.autograd.Function", "torch.Tensor",
            "1", "None", "x", "nn.Linear", "object, object", "metaclass=type", "C", "print", "'s'",
        ),
    ),
    "dunders": (
        "class C:\n    def {HOLE}(self, *a):\n        return None\nc = C()\nprint(type(c).__name__)\n",
        (
            "__init__", "__call__", "__len__", "__getitem__", "__iter__", "__repr__", "__str__", "__getattr__",
            "__getattribute__", "__setattr__", "__eq__", "__add__", "__del__", "__new__", "__init_subclass__",
            "__class_getitem__", "__hash__", "__bool__", "__enter__", "__exit__", "__reduce__", "__format__",
        ),
    ),
    "attributes": (
        "class C:\n    k = 2\n    def __init__(self):\n        self.v = 1\n    def m(self):\n        return self.v\n"
        "c = C()\nprint(c.{HOLE})\n",
        (
            "__dict__", "__class__", "__class__.__bases__", "m.__globals__", "__module__", "__doc__",
            "v.__class__", "__weakref__", "missing", "m.__func__", "__init__", "k", "m()", "__class__.__mro__",
            "__class__.__subclasses__()", "__reduce_ex__(2)", "m.__self__", "__sizeof__()",
        ),
    ),
    "module": (
        "class Net(nn.Module):\n    def __init__(self):\n        {HOLE}\n    def forward(self, t):\n"
        "        return self.l(t)\nnet = Net()\nprint(net)\nprint(net(x).sum())\n",
        (
            "super().__init__(); self.l = nn.Linear(3, 2)",
            "self.l = nn.Linear(3, 2)",
            "super().__init__(); self.l = 5",
            "super().__init__(); self.l = nn.Linear(3, 2); self.l = None",
            "super().__init__(); self.l = lambda t: t * 2",
            "super().__init__(); self.w = nn.Parameter(torch.ones(3)); self.l = lambda t: t * self.w",
            "super().__init__(); self.training = 1; self.l = nn.Identity()",
            "super().__init__(); self.register_buffer('l', torch.ones(3))",
            "super().__init__(); self.add_module('a.b', nn.ReLU()); self.l = nn.ReLU()",
            "super().__init__(); self.l = nn.Sequential(nn.Linear(3, 2), nn.Linear(3, 2))",
            "super().__init__(); self.l = self",
            "super().__init__(); self.l = nn.ModuleList([nn.ReLU()])",
            "super().__init__(); self.l = nn.Linear(3, 2); self.register_parameter('l', None)",
            "super().__init__(); super().__init__(); self.l = nn.Tanh()",
            "super(Net, self).__init__(); self.l = nn.Linear(3, 1)",
            "super().__init__(1); self.l = nn.ReLU()",
            "nn.Module.__init__(self); self.l = nn.ReLU()",
            "super().__init__(); self.l = nn.Linear(3.0, 2)",
        ),
    ),
    "function": (
        "class Double(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, t):\n"
        "        ctx.save_for_backward(t)\n        return t * 2\n    @staticmethod\n    def backward(ctx, g):\n"
        "        {HOLE}\ny = Double.apply(x)\ny.sum().backward()\nprint(y, x.grad)\n",
        (
            "return g * 2",
            "return None",
            "return g[:1]",
            "return g, g",
            "return 1",
            "return g.sum()",
            "t, = ctx.saved_tensors; return g * t",
            "return ctx.saved_tensors",
            "return torch.ones(3, dtype=torch.float64)",
            "return torch.ones(2, 3)",
            "raise ValueError('no')",
            "return g.detach().requires_grad_()",
            "return Double.apply(g)",
            "ctx.save_for_backward(g); return g",
            "return ctx.needs_input_grad",
            "return 'g'",
        ),
    ),
}


def class_cases() -> list[Case]:
    cases = []
    for name, (template, holes) in CLASS_FAMILIES.items():
        for hole in holes:
            text = template.replace("{HOLE}", hole)
            cases.append(
                Case(f"class:{name}[{hole}]", f"class:{name}", "-", name, hole, hole, _CLASS_HEAD + text)
            )
    return cases


def all_cases() -> list[Case]:
    cases: list[Case] = class_cases()
    for callee in surface():
        cases.extend(cases_for(callee))
    seen: set[str] = set()
    unique = []
    for case in cases:
        if case.script not in seen:
            seen.add(case.script)
            unique.append(case)
    return unique


def sample(cases: list[Case], count: int, seed: int = 24) -> list[Case]:
    """A seeded sample: one case of every callee (a new callee is fuzzed in CI at once), then
    cases drawn from all the rest."""
    r = random.Random(seed)
    by_callee: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_callee[case.callee].append(case)
    picked: list[Case] = []
    rest: list[Case] = []
    for callee in sorted(by_callee):
        group = list(by_callee[callee])
        picked.append(group.pop(r.randrange(len(group))))
        rest.extend(group)
    r.shuffle(rest)
    picked.extend(rest[: max(0, count - len(picked))])
    return picked


# ---------------------------------------------------------------- running one case


class _Timeout(BaseException):
    pass


def _alarm(seconds: float):
    def handler(signum, frame):
        raise _Timeout()

    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)


def _frames(exc: BaseException) -> tuple[str, str]:
    """The traceback's last frame, and its last frame inside gradcli/ (file:line)."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = f"{_short(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"
    ours = [f for f in frames if "/gradcli/" in f.filename]
    mine = f"{_short(ours[-1].filename)}:{ours[-1].lineno} ({ours[-1].name})" if ours else last
    return last, mine


def _short(filename: str) -> str:
    marker = "/gradcli/"
    if marker in filename:
        return "gradcli/" + filename.rsplit(marker, 1)[1]
    return filename.rsplit("/", 2)[-1] if "/" in filename else filename


def run_gradcli(source: str, hard: float = HARD_SECONDS) -> dict:
    """gradcli's run of one script: stdout, error, or the exception that escaped."""
    from script_run import run_script

    started = time.perf_counter()
    outcome: dict = {"stdout": "", "error": None, "crash": None}
    _alarm(hard)
    try:
        result = run_script(source)
        outcome["stdout"], outcome["error"] = result.stdout, result.error
    except _Timeout:
        outcome["crash"] = {
            "type": "Timeout",
            "message": f"still running after {hard} s",
            "last": "",
            "frame": "",
        }
    except BaseException as exc:  # noqa: BLE001 - what escaped is the finding
        last, frame = _frames(exc)
        outcome["crash"] = {
            "type": type(exc).__name__,
            "message": str(exc)[:300],
            "last": last,
            "frame": frame,
        }
    finally:
        _disarm()
    outcome["seconds"] = time.perf_counter() - started
    return outcome


_BUILTIN_ERRORS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
} - {"BaseException", "Exception"}


def run_torch(source: str, hard: float = TORCH_SECONDS) -> dict:
    """python+torch's run of one script: stdout, or the exception and Python's types it is."""
    buffer = io.StringIO()
    outcome: dict = {"stdout": "", "type": None, "types": [], "message": None}
    _alarm(hard)
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(source, "script", "exec"), {"__name__": "__main__"})
    except _Timeout:
        outcome["type"] = "Timeout"
    except BaseException as exc:  # noqa: BLE001
        outcome["type"] = type(exc).__name__
        outcome["types"] = [c.__name__ for c in type(exc).__mro__ if c.__name__ in _BUILTIN_ERRORS]
        outcome["message"] = str(exc).split("\n")[0][:300]
    finally:
        _disarm()
    outcome["stdout"] = buffer.getvalue()
    return outcome


# ---------------------------------------------------------------- the verdict

_TYPED = re.compile(r"^line \d+(?:, column \d+)?: ([A-Za-z]+(?:Error|Exception|Iteration)): ")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
PASS, FAIL = "pass", "fail"


def error_type(error: str) -> str | None:
    match = _TYPED.match(error)
    return match.group(1) if match else None


def verdict(case: Case, ours: dict, theirs: dict) -> tuple[str, str, str]:
    """(pass|fail, category, detail). Categories that fail: crash, internal-error, hang,
    accepts-what-torch-refuses, untyped-error, wrong-type, wrong-output."""
    if ours.get("crash"):
        crash = ours["crash"]
        category = "hang" if crash["type"] in ("Timeout", "WorkerHung") else "crash"
        return FAIL, category, f"{crash['type']}: {crash['message']} at {crash['frame']}"
    error = ours.get("error")
    if error is not None and "internal error" in error:
        return FAIL, "internal-error", error
    if ours.get("seconds", 0) > CASE_SECONDS:
        return FAIL, "hang", f"took {ours['seconds']:.2f} s"
    if theirs["type"] in ("Timeout", "WorkerDied", "WorkerHung"):
        return PASS, "torch-" + theirs["type"].lower(), ""
    if theirs["type"] is not None:
        if error is None:
            return FAIL, "accepts-what-torch-refuses", f"torch: {theirs['type']}: {theirs['message']}"
        kind = error_type(error)
        if kind is None:
            return FAIL, "untyped-error", f"torch: {theirs['type']}: {theirs['message']}"
        if kind not in theirs["types"]:
            return FAIL, "wrong-type", f"torch: {theirs['type']}: {theirs['message']}"
        return PASS, "same-type", ""
    if error is not None:
        return PASS, "refused" if error_type(error) is None else "refused-typed", error
    if _ADDRESS.sub("", ours["stdout"]) != _ADDRESS.sub("", theirs["stdout"]):
        return FAIL, "wrong-output", ""
    return PASS, "same-output", ""


def explain(case: Case, ours: dict, theirs: dict) -> str:
    """What pytest shows for a failing case: the script and both outcomes."""
    lines = ["", "--- script", case.script.rstrip(), "--- gradcli"]
    if ours.get("crash"):
        c = ours["crash"]
        lines.append(
            f"escaped run_script: {c['type']}: {c['message']}  (last frame {c['last']}; gradcli frame {c['frame']})"
        )
    else:
        lines.append(f"stdout: {ours['stdout']!r}")
        lines.append(f"error:  {ours['error']!r}")
        lines.append(f"took {ours.get('seconds', 0):.3f} s")
    lines.append("--- torch")
    lines.append(f"stdout: {theirs['stdout']!r}")
    if theirs["type"]:
        lines.append(f"raised: {theirs['type']}: {theirs['message']}")
    return "\n".join(lines)


# ---------------------------------------------------------------- workers


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[0])
        current = pages * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (current + WORKER_MEMORY, current + WORKER_MEMORY))
    except (OSError, ValueError, ImportError):
        pass


def _worker(engine: str, path: str, start: int) -> None:
    """Run scripts[start:] from a JSON file, one JSON line per case on stdout (flushed)."""
    import warnings

    warnings.simplefilter("ignore")
    if engine == "torch":
        import torch  # noqa: F401 - imported before the memory bound

        run = run_torch
    else:
        import gradcli.runner  # noqa: F401

        run = run_gradcli
    _limit_memory()
    scripts = json.loads(Path(path).read_text())
    real = sys.stdout
    sys.stdout = io.StringIO()  # a stray print() in a run must not break the protocol
    for index in range(start, len(scripts)):
        outcome = run(scripts[index])
        outcome["index"] = index
        sys.stdout = io.StringIO()
        real.write(json.dumps(outcome) + "\n")
        real.flush()


def run_in_workers(engine: str, scripts: list[str], progress: bool = False, on_result=None) -> list[dict]:
    """Each script's outcome from a worker process; a case that kills its worker (a segfault,
    memory) is recorded as WorkerDied, one that hangs it where the worker's own alarm cannot
    reach (a long NumPy loop) as WorkerHung, and the worker restarts after it. on_result(index,
    outcome) hears of each as it comes."""
    import queue
    import threading

    results: list[dict | None] = [None] * len(scripts)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(scripts, handle)
        path = handle.name
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    start = 0

    def record(index: int, outcome: dict) -> None:
        outcome["index"] = index
        results[index] = outcome
        if on_result is not None:
            on_result(index, outcome)

    try:
        while start < len(scripts):
            process = subprocess.Popen(
                [sys.executable, str(Path(__file__)), "--worker", engine, path, str(start)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=env,
            )
            lines: queue.Queue = queue.Queue()

            def read(stream=process.stdout, lines=lines) -> None:
                for line in stream:
                    lines.put(line)
                lines.put(None)

            threading.Thread(target=read, daemon=True).start()
            patience = STARTUP_SECONDS  # the worker's imports, then one case at a time
            hung = False
            while True:
                try:
                    line = lines.get(timeout=patience)
                except queue.Empty:
                    hung = True
                    process.kill()
                    break
                if line is None:
                    break
                outcome = json.loads(line)
                record(outcome["index"], outcome)
                start = outcome["index"] + 1
                patience = HARD_SECONDS + 20
                if progress and start % 1000 == 0:
                    print(f"  {engine}: {start}/{len(scripts)}", file=sys.stderr, flush=True)
            process.wait()
            if start < len(scripts):
                kind = "WorkerHung" if hung else "WorkerDied"
                message = "no outcome within the watchdog's time" if hung else f"exit {process.returncode}"
                died = {"stdout": "", "error": None, "type": kind, "types": [], "message": message}
                if engine == "gradcli":
                    died["crash"] = {"type": kind, "message": message, "last": "", "frame": ""}
                record(start, died)
                start += 1
    finally:
        os.unlink(path)
    return [r for r in results if r is not None]


# ---------------------------------------------------------------- the catalogue


def family(text: str | None) -> str:
    """An error message with the callee's name, quoted names and numbers taken out: the messages
    one root cause gives for every callee it reaches."""
    t = re.sub(r"^line \d+(, column \d+)?: ", "", text or "")
    t = re.sub(r"^[A-Z]\w*(Error|Exception): ", "", t)
    t = re.sub(r"'[^']*'", "'…'", t)
    t = re.sub(r'"[^"]*"', '"…"', t)
    t = re.sub(r"torch\.Size\(\[[^\]]*\]\)", "torch.Size([…])", t)
    t = re.sub(r"\bgot \(.*?\), but", "got (…), but", t)
    t = re.sub(r"(?<![\w.])[\w.]*\w\(\)", "f()", t)
    t = re.sub(r"^\.?[\w.]+ (got|takes|received)", r"f \1", t)
    t = re.sub(r"^\w+ must be", "P must be", t)
    t = re.sub(r"\b(for|to) \w+ need", r"\1 f need", t)
    t = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", t)
    return t[:120]


@functools.cache
def _gradcli_lines() -> tuple[tuple[str, int, str], ...]:
    lines = []
    for path in sorted((ROOT / "gradcli").rglob("*.py")):
        for number, text in enumerate(path.read_text().splitlines(), 1):
            lines.append((str(path.relative_to(ROOT)), number, text))
    return tuple(lines)


def raised_at(message: str | None) -> str:
    """Where gradcli's source writes an error message: the lines holding its longest fixed part."""
    fixed = re.split(r"'…'|\"…\"|\bf\(\)|\bf\b|\bP\b|\bN\b|torch\.Size\(\[…\]\)|\(…\)", family(message))
    longest = max((part.strip(" :.,()") for part in fixed), key=len, default="")
    if len(longest) < 10:
        return ""
    found = [f"{path}:{number}" for path, number, text in _gradcli_lines() if longest in text]
    return ", ".join(found[:3]) + (f" (+{len(found) - 3})" if len(found) > 3 else "")


_FAILING_ORDER = (
    "crash",
    "internal-error",
    "hang",
    "wrong-type",
    "untyped-error",
    "accepts-what-torch-refuses",
    "wrong-output",
)
_WHAT = {
    "crash": "exception escaped run_script",
    "internal-error": "internal error in the error line",
    "hang": "hang",
    "wrong-type": "another exception type than torch's",
    "untyped-error": "error line names no exception type where torch raises",
    "accepts-what-torch-refuses": "gradcli runs what torch refuses",
    "wrong-output": "prints another result than torch",
}


def root_cause(category: str, ours: dict, theirs: dict, case: Case) -> tuple:
    """The key a failing case is grouped under: one root cause, many callees."""
    if category in ("crash", "hang") and ours.get("crash"):
        return (category, ours["crash"]["frame"] or ours["crash"]["type"])
    if category in ("internal-error", "hang"):
        return (category, family(ours.get("error")))
    if category == "wrong-type":
        return (
            category,
            f"torch {theirs['type']}, gradcli {error_type(ours['error'])}: {family(ours['error'])}",
        )
    if category == "untyped-error":
        return (category, family(ours["error"]))
    if category == "accepts-what-torch-refuses":
        return (category, f"torch {theirs['type']}: {family(theirs['message'])}")
    return (category, case.callee)


def catalogue(cases: list[Case], ours: list[dict], theirs: list[dict], seconds: float) -> str:
    rows = []
    for case, o, t in zip(cases, ours, theirs):
        status, category, detail = verdict(case, o, t)
        rows.append((case, o, t, status, category, detail))
    counts = Counter(r[4] for r in rows)
    failing = [r for r in rows if r[3] == FAIL]
    callees = len({c.callee for c in cases})
    lines = [
        "# gradcli run: argument fuzz findings (issue 24)",
        "",
        f"Generated by `python tests/run_fuzz_cases.py --long` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}{f', {seconds:.0f} s' if seconds else ''}). Each case is a tiny "
        "script calling one supported callee with one wrong, boundary or hostile argument; python+torch "
        "2.13 is the oracle. tests/test_run_fuzz.py runs a seeded sample of the same cases in CI.",
        "",
        "## Totals",
        "",
        f"- callees fuzzed: {callees}; cases run: {len(cases)}",
        f"- gradcli crashes (an exception escaped run_script): {counts['crash']}",
        f"- internal errors in the error line: {counts['internal-error']}",
        f"- hangs (over {CASE_SECONDS} s, or stopped at {HARD_SECONDS} s): {counts['hang']}",
        f"- type mismatches where torch raises: {counts['wrong-type']} with another exception type, "
        f"{counts['untyped-error']} with an error line that names no type",
        f"- accepted what torch refuses (gradcli printed a result): {counts['accepts-what-torch-refuses']}",
        f"- printed another result than torch: {counts['wrong-output']}",
        f"- failing cases in all: {len(failing)} of {len(cases)}",
        f"- passing: same type as torch's error {counts['same-type']}, same output {counts['same-output']}, "
        f"refused what torch runs {counts['refused'] + counts['refused-typed']} "
        f"({counts['refused']} untyped 'not supported'-style, {counts['refused-typed']} with a Python "
        f"error type); torch timed out {counts['torch-timeout']}, torch's worker died "
        f"{counts['torch-workerdied']}, hung {counts['torch-workerhung']}",
        "",
    ]

    def minimal(group):
        return min(group, key=lambda r: (len(r[0].call), r[0].id))

    def examples(group, n=12):
        calls = []
        for r in sorted(group, key=lambda r: (len(r[0].call), r[0].call)):
            text = r[0].call if r[0].mutation != "receiver" else f"{r[0].call} on {r[0].receiver}"
            if text not in calls:
                calls.append(text)
        shown = ", ".join(f"`{c}`" for c in calls[:n])
        return shown + (f", … ({len(calls) - n} more)" if len(calls) > n else "")

    groups: dict = defaultdict(list)
    for r in failing:
        groups[root_cause(r[4], r[1], r[2], r[0])].append(r)
    order = sorted(groups, key=lambda k: (_FAILING_ORDER.index(k[0]) > 2, -len(groups[k]), k))
    labels = {key: f"R{n}" for n, key in enumerate(order, 1)}

    lines += [
        "## Root causes, most cases first (crashes and hangs before the rest)",
        "",
        "| id | kind | root cause | cases | callees | minimal call |",
        "|---|---|---|---|---|---|",
    ]
    for key in order:
        group = groups[key]
        where = key[1].replace("|", "\\|")
        kinds = Counter(r[1]["crash"]["type"] for r in group if r[1].get("crash"))
        if kinds:
            where = f"{', '.join(kinds)} at {where}"
        elif key[0] in ("untyped-error", "wrong-type") and raised_at(minimal(group)[1]["error"]):
            where = f"{where} ({raised_at(minimal(group)[1]['error'])})"
        lines.append(
            f"| {labels[key]} | {_WHAT[key[0]]} | {where} | {len(group)} | {len({r[0].callee for r in group})} "
            f"| `{minimal(group)[0].call}` |"
        )
    lines += ["", "## Each root cause", ""]
    for key in order:
        group = groups[key]
        r = minimal(group)
        o, t = r[1], r[2]
        torch_says = Counter(x[2]["type"] or "no error" for x in group)
        kinds = Counter(x[0].value or x[0].mutation for x in group)
        lines += [f"### {labels[key]}. {_WHAT[key[0]]}: {key[1]}", ""]
        lines.append(f"- cases: {len(group)}, callees: {len({x[0].callee for x in group})}")
        if o.get("crash"):
            crash = o["crash"]
            types = Counter(f"{x[1]['crash']['type']}" for x in group)
            lines.append(
                f"- gradcli raised inside: {', '.join(f'{k} ×{v}' for k, v in types.most_common())}; e.g. "
                f"`{crash['type']}: {crash['message']}` (last frame {crash['last']}, gradcli's {crash['frame']})"
            )
        elif o.get("error"):
            lines.append(f"- gradcli's error: `{o['error']}`")
            if raised_at(o["error"]):
                lines.append(
                    f"- raised at (the source lines that write this message): {raised_at(o['error'])}"
                )
        else:
            lines.append(f"- gradcli printed: `{o['stdout'][:200]!r}`")
        lines.append(
            f"- torch: {', '.join(f'{k} ×{v}' for k, v in torch_says.most_common())}; e.g. "
            + (f"`{t['type']}: {t['message']}`" if t["type"] else f"printed `{t['stdout'][:200]!r}`")
        )
        lines.append(f"- argument kinds: {', '.join(f'{k} ×{v}' for k, v in kinds.most_common(10))}")
        lines.append(f"- calls: {examples(group)}")
        lines += ["- minimal example:", "", "```python", r[0].script.rstrip(), "```", ""]

    refused: dict = defaultdict(list)
    for r in rows:
        if r[4] in ("refused", "refused-typed"):
            refused[family(r[1]["error"])].append(r)
    lines.append("## Refused what torch runs (passing; the most common messages)")
    lines.append("")
    for template, group in sorted(refused.items(), key=lambda kv: -len(kv[1]))[:30]:
        lines.append(f"- {len(group)} × `{template}`, e.g. `{minimal(group)[0].call}`")
    lines.append("")
    for mutation, title in (
        ("no-baseline", "Callees without a baseline call (no candidate argument list ran in gradcli)"),
        (
            "baseline-gradcli-only",
            "Callees whose baseline only gradcli runs (torch refused every candidate gradcli ran)",
        ),
    ):
        names = sorted({f"`{c.call}`" for c in cases if c.mutation == mutation})
        if names:
            lines.extend([f"## {title}", "", ", ".join(names), ""])
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        _worker(argv[1], argv[2], int(argv[3]))
        return 0
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="run every case (else the CI sample)")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N cases")
    parser.add_argument("--out", default="/work/fuzz_findings.md")
    parser.add_argument("--json", default="", help="also write every case's outcome here")
    parser.add_argument("--from-json", default="", help="write the catalogue of an earlier --json run")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.from_json:
        rows = json.loads(Path(args.from_json).read_text())
        cases = [Case(**row["case"]) for row in rows]
        ours = [row["gradcli"] for row in rows]
        theirs = [row["torch"] for row in rows]
        Path(args.out).write_text(catalogue(cases, ours, theirs, 0))
        return 0
    started = time.perf_counter()
    cases = all_cases()
    if not args.long:
        cases = sample(cases, SAMPLE_SIZE)
    if args.limit:
        cases = cases[: args.limit]
    print(
        f"{len(cases)} cases ({time.perf_counter() - started:.0f} s to make them)",
        file=sys.stderr,
        flush=True,
    )
    scripts = [c.script for c in cases]
    import threading

    theirs: list[dict] = []
    thread = threading.Thread(target=lambda: theirs.extend(run_in_workers("torch", scripts, progress=True)))
    thread.start()
    ours = run_in_workers("gradcli", scripts, progress=True)
    thread.join()
    seconds = time.perf_counter() - started
    Path(args.out).write_text(catalogue(cases, ours, theirs, seconds))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [{"case": asdict(c), "gradcli": o, "torch": t} for c, o, t in zip(cases, ours, theirs)]
            )
        )
    failing = sum(verdict(c, o, t)[0] == FAIL for c, o, t in zip(cases, ours, theirs))
    print(
        f"{len(cases)} cases, {failing} failing; catalogue in {args.out} ({seconds:.0f} s)", file=sys.stderr
    )
    return 0


SAMPLE_SIZE = 640

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
