"""PyTorch as the oracle: run a gradcli program in torch, node for node.

The program is parsed by gradcli's parser (its structure as written), then each op is
applied with the torch function PyTorch users would write, so values, grad_fn names,
leaf .grad, every intermediate's adjoint and error texts can be compared one to one.
Number-only sub-expressions are folded in torch float64 (as Python folds `2*3` before
PyTorch sees it), so the oracle never borrows gradcli's own arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'"
)
F = torch.nn.functional

from gradcli.ops import COMPOSITES, LISTED, REGISTRY  # noqa: E402
from gradcli.parse import parse_program  # noqa: E402
from gradcli.program import Apply, Num, Ref  # noqa: E402

TORCH_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "neg": lambda a: -a,
    "matmul": lambda a, b: torch.matmul(a, b),
    "sin": torch.sin,
    "cos": torch.cos,
    "tan": torch.tan,
    "asin": torch.asin,
    "acos": torch.acos,
    "atan": torch.atan,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "log": torch.log,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "abs": torch.abs,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "softplus": F.softplus,
    "t": lambda a: a.t(),
    "T": lambda a: a.T,
    "mT": lambda a: a.mT,
    # sizes are Python ints in torch; as 0-d tensors they compare with gradcli's folded numbers
    "size": lambda a, dim=None: torch.tensor(a.size(dim)),
    "len": lambda a: torch.tensor(len(a)),
    "numel": lambda a: torch.tensor(a.numel()),
    "dim": lambda a: torch.tensor(a.dim()),
    # gradcli's class indices are floats holding integers; torch takes them as int64.
    "nll_loss": lambda x, t, **attrs: F.nll_loss(x, torch.as_tensor(t).detach().long(), **attrs),
    # torch.round takes no decimals=None: the one-argument overload is RoundBackward0
    "round": lambda a, decimals=None: (
        torch.round(a) if decimals is None else torch.round(a, decimals=decimals)
    ),
}


# The float dtype of the run in progress: a constructor's floating constant holds it, as
# gradcli's constants hold the program's --dtype.
_RUN_FLOAT = [torch.float64]
_DTYPES = {"int64": torch.long, "bool": torch.bool}


def _constructor(name: str, *positional: str):
    """torch.<name> called with the record's attrs: its positional args, then dtype=."""

    def make(dtype=None, requires_grad=False, **attrs):
        args = [attrs[key] for key in positional if attrs.get(key) is not None]
        if name in ("zeros", "ones"):
            args = [tuple(args[0])]
        made = getattr(torch, name)(*args, dtype=_DTYPES.get(dtype, _RUN_FLOAT[0]) if dtype else None)
        if made.is_floating_point() and made.dtype != _RUN_FLOAT[0]:  # made again, not rounded
            made = getattr(torch, name)(*args, dtype=_RUN_FLOAT[0])
        return made

    return make


for _name, _positional in {
    "tensor": ("data",),
    "zeros": ("size",),
    "ones": ("size",),
    "full": ("size", "fill_value"),
    "eye": ("n", "m"),
    "arange": ("start", "end", "step"),
    "linspace": ("start", "end", "steps"),
    "logspace": ("start", "end", "steps", "base"),
}.items():
    TORCH_OPS[_name] = _constructor(_name, *_positional)


def _reduce(name):
    def run(a, dim=None, keepdim=False):
        method = getattr(a, name)
        return method() if dim is None and not keepdim else method(dim=dim, keepdim=keepdim)

    return run


def _slice(a, dim=0, start=None, end=None, step=1):
    return a[(slice(None),) * (dim % a.dim()) + (slice(start, end, step),)]


def _torch_key(key, tensors):
    parts = []
    for entry in key:
        if entry[0] == "all":
            parts.append(slice(None))
        elif entry[0] == "list":
            parts.append(list(entry[1]))
        elif entry[0] == "mask":
            parts.append(tensors[entry[1]] != 0)  # a bool mask, as torch indexes with one
        else:
            parts.append(tensors[entry[1]].long())
    return tuple(parts)


# clamp.Tensor: gradcli writes a bound left out as an infinite number, torch takes None
TORCH_OPS["clamp_tensor"] = lambda a, lo, hi: torch.clamp(
    a, None if isinstance(lo, float) else lo, None if isinstance(hi, float) else hi
)
# torch.any/all take no dim=None: the whole-tensor overload is called without one
TORCH_OPS["any"] = lambda a, dim=None, keepdim=False: (
    torch.any(a) if dim is None else torch.any(a, dim=dim, keepdim=keepdim)
)
TORCH_OPS["all"] = lambda a, dim=None, keepdim=False: (
    torch.all(a) if dim is None else torch.all(a, dim=dim, keepdim=keepdim)
)
TORCH_OPS["max_values"] = lambda a, dim=0, keepdim=False: torch.max(a, dim, keepdim=keepdim).values
TORCH_OPS["min_values"] = lambda a, dim=0, keepdim=False: torch.min(a, dim, keepdim=keepdim).values
TORCH_OPS["select"] = lambda a, dim=0, index=0: torch.select(a, dim, index)
TORCH_OPS["slice"] = _slice
TORCH_OPS["index"] = lambda a, key=(): a[_torch_key(key, ())]
TORCH_OPS["index1"] = lambda a, t, key=(): a[_torch_key(key, (t,))]
# the count is gradcli's, read from the mask's values when the graph is built
TORCH_OPS["masked_select"] = lambda a, mask, count=-1: torch.masked_select(a, mask)
TORCH_OPS["sum"] = _reduce("sum")
# torch.squeeze refuses dim=None: squeeze() and squeeze(dim) are two overloads.
TORCH_OPS["squeeze"] = lambda a, dim=None: a.squeeze() if dim is None else a.squeeze(dim)
TORCH_OPS["mean"] = _reduce("mean")
# Overloads that refuse dim=None or unbiased=None: pass only what the program gave.
TORCH_OPS["max"] = lambda a, dim=None, keepdim=False: torch.max(a)
TORCH_OPS["min"] = lambda a, dim=None, keepdim=False: torch.min(a)
TORCH_OPS["prod"] = lambda a, dim=None, keepdim=False: (
    torch.prod(a) if dim is None else torch.prod(a, dim, keepdim=keepdim)
)


def _moment(function):
    def run(a, **attrs):
        return function(a, **{k: v for k, v in attrs.items() if v is not None})

    return run


TORCH_OPS["var"] = _moment(torch.var)
TORCH_OPS["std"] = _moment(torch.std)


class _ByRecord(dict):
    """TORCH_OPS, falling back on the record's own PyTorch spelling (`torch.nn.functional.gelu`):
    an op whose torch function takes the same operands and keyword attrs needs no entry above."""

    def __missing__(self, name: str):
        if name in COMPOSITES:  # a shaped composite stays one call in the program: F.linear(x, W)
            spelled = COMPOSITES[name].torch
            function = torch
            for part in spelled.split(".")[1:]:
                function = getattr(function, part)
            return function
        spelled = REGISTRY[name].torch
        if any(REGISTRY[name] in by_count.values() for by_count in LISTED.values()):
            # torch.cat([a, b], dim=1): the record's operands go to torch as one list
            joined = getattr(torch, spelled.rsplit(".", 1)[-1])
            return lambda *tensors, **attrs: joined(list(tensors), **attrs)
        assert spelled.startswith("torch."), f"give the op '{name}' a torch= spelling or a TORCH_OPS entry"
        function = torch
        for part in spelled.split(".")[1:]:
            function = getattr(function, part)
        return function


TORCH_OPS = _ByRecord(TORCH_OPS)


def fold_in_torch(op_name: str, numbers: Sequence[float], attrs: dict) -> float:
    """An op on plain numbers, computed by torch in float64 (IEEE: 1/0 is inf, not an exception)."""
    args = [torch.tensor(v, dtype=torch.float64) for v in numbers]
    return float(TORCH_OPS[op_name](*args, **attrs))


@dataclass
class TorchNode:
    """One tensor of the torch run, in the order gradcli creates its graph nodes."""

    name: str | None  # input name or statement target; None for unnamed intermediates
    kind: str  # "leaf", "const" or "op"
    op: str | None
    tensor: object


@dataclass
class TorchRun:
    tensors: dict[str, object]  # name -> torch tensor for named statements and inputs
    output: object
    leaves: dict[str, object]
    nodes: list[TorchNode] = field(default_factory=list)

    def retain_all_grads(self) -> None:
        """Keep .grad on every intermediate that requires grad, to compare adjoints."""
        for node in self.nodes:
            if node.kind == "op" and node.tensor.requires_grad:
                node.tensor.retain_grad()


def _as_tensor(value, dtype, requires_grad: bool = False):
    return torch.tensor(np.asarray(value, dtype=np.float64), dtype=dtype, requires_grad=requires_grad)


def _const_tensor(value, dtype):
    """A const as torch.tensor reads its literal (gradcli's --const does the same): bools stay
    bool and whole numbers written without a point int64, so masks and class indices are torch's."""
    array = np.asarray(value)
    if array.dtype == np.bool_:
        return torch.tensor(array, dtype=torch.bool)
    if array.dtype.kind in "iu":
        return torch.tensor(array, dtype=torch.int64)
    return _as_tensor(value, dtype)


def run_torch(source: str, at: dict, const: dict | None = None, dtype=None) -> TorchRun:
    """Forward pass of a gradcli program in torch; call .backward() on .output yourself."""
    dtype = dtype or torch.float64
    _RUN_FLOAT[0] = dtype
    const = const or {}
    inputs: dict[str, object] = {}
    leaves = {}
    for name, value in at.items():
        leaves[name] = inputs[name] = _as_tensor(value, dtype, requires_grad=True)
    for name, value in const.items():
        inputs[name] = _const_tensor(value, dtype)
    env: dict[str, object] = {}
    nodes: list[TorchNode] = []

    def evaluate(expr, target: str | None):
        if isinstance(expr, Num):
            return expr.value
        if isinstance(expr, Ref):
            if expr.name not in env:  # an input's node appears at its first use, as in gradcli
                env[expr.name] = inputs[expr.name]
                kind = "leaf" if expr.name in at else "const"
                nodes.append(TorchNode(expr.name, kind, None, env[expr.name]))
            return env[expr.name]
        assert isinstance(expr, Apply)
        args = [evaluate(a, None) for a in expr.args]
        attrs = dict(expr.attrs)
        if args and all(isinstance(a, float) for a in args):
            return fold_in_torch(expr.op, args, attrs)
        if expr.op == "div" and isinstance(args[0], float):
            # Python's number / tensor is tensor.reciprocal() * number: two nodes in torch
            # (ReciprocalBackward0, then MulBackward0), as gradcli records them
            reciprocal = args[1].reciprocal()
            nodes.append(TorchNode(None, "op", "reciprocal", reciprocal))
            result = reciprocal * args[0]
            nodes.append(TorchNode(target, "op", "mul", result))
            return result
        result = TORCH_OPS[expr.op](*args, **attrs)
        nodes.append(TorchNode(target, "op", expr.op, result))
        return result

    program = parse_program(source)
    output = None
    try:
        for statement in program.statements:
            output = evaluate(statement.expr, statement.target)
            if statement.target:
                env[statement.target] = output
    finally:  # the constructors' float dtype holds for this run only, not for later tests
        _RUN_FLOAT[0] = torch.float64
    tensors = {name: t for name, t in env.items()}
    return TorchRun(tensors, output, leaves, nodes)


def torch_grads(source: str, at: dict, const: dict | None = None, gradient=None, dtype=None) -> dict:
    run = run_torch(source, at, const, dtype)
    grad = None if gradient is None else _as_tensor(gradient, run.output.dtype)
    run.output.backward(grad)
    return {n: (None if t.grad is None else t.grad.detach().numpy()) for n, t in run.leaves.items()}


@dataclass
class TorchPasses:
    """What repeated `out.backward(...)` calls did: each pass's leaf grads, or the error."""

    grads: list[dict[str, np.ndarray | None]]  # after each pass that succeeded
    error: str | None  # str(RuntimeError) of the pass that failed, if any


def torch_passes(
    source: str,
    at: dict,
    const: dict | None,
    gradients: Sequence[object | None],
    retain_graph: bool = False,
    zero_grad: bool = False,
    dtype=None,
) -> TorchPasses:
    """Run backward once per upstream gradient, as a PyTorch user would in a loop."""
    run = run_torch(source, at, const, dtype)
    after: list[dict[str, np.ndarray | None]] = []
    for index, gradient in enumerate(gradients):
        if zero_grad and index > 0:
            for leaf in run.leaves.values():
                if leaf.grad is not None:
                    leaf.grad.zero_()
        seed = None if gradient is None else _as_tensor(gradient, run.output.dtype)
        try:
            run.output.backward(seed, retain_graph=retain_graph)
        except RuntimeError as exc:
            return TorchPasses(after, str(exc))
        after.append(
            {n: (None if t.grad is None else t.grad.detach().numpy().copy()) for n, t in run.leaves.items()}
        )
    return TorchPasses(after, None)


def close(a, b, rtol=1e-9, atol=1e-12, normwise=False) -> bool:
    """Same shape and allclose, with nan equal to nan and inf equal to inf of the same sign.

    `normwise` measures every element against the tensor's largest finite magnitude: in
    float32 a small element can be the difference of large terms (a matmul, a sum), and
    its error is then a few ulps of those terms, not of itself.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    if normwise:
        magnitudes = np.abs(b[np.isfinite(b)])
        atol += rtol * (float(magnitudes.max()) if magnitudes.size else 0.0)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


__all__ = [
    "torch",
    "run_torch",
    "torch_grads",
    "torch_passes",
    "TorchPasses",
    "TorchNode",
    "fold_in_torch",
    "close",
    "math",
]


# Runs each script text under real torch in one process: its stdout, or that and the exception.
_SCRIPTS_UNDER_TORCH = """
import contextlib, io, json, sys
outputs = []
for text in json.load(sys.stdin):
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(text, "script", "exec"), {"__name__": "__main__"})
        outputs.append(buffer.getvalue())
    except Exception as exc:
        outputs.append(buffer.getvalue() + "!" + type(exc).__name__ + ": " + str(exc))
print(json.dumps(outputs))
"""


def torch_stdouts(scripts: list[str]) -> list[str]:
    """What each script prints under torch 2.13 (then "!Error: message" if it raised), all in
    one subprocess, so a fuzz of many small scripts pays torch's import once."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _SCRIPTS_UNDER_TORCH],
        input=json.dumps(scripts),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def assert_prints_as_torch(script: str, theirs: str, same=lambda text: text) -> None:
    """gradcli run prints what torch printed (`theirs`, from torch_stdouts); where torch raised,
    gradcli raises the same type and message after printing the same lines. `same` maps both
    printouts before they are compared (object addresses masked, say)."""
    from script_run import run_script

    ours = run_script(script)
    if "!" in theirs and not theirs.endswith("\n"):  # torch raised: "printed!Type: message"
        printed, error = theirs.rsplit("!", 1)
        assert ours.error is not None, f"{script}\nexpected {error}"
        assert ours.error.split(": ", 1)[1] == error, script
        assert ours.stdout == printed, script
        return
    assert ours.error is None, f"{script}\n{ours.error}"
    assert same(ours.stdout) == same(theirs), script
