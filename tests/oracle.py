"""PyTorch as the oracle: run a gradcli program in torch, node for node.

The program is parsed by gradcli's parser (its structure as written), then each op is
applied with the torch function PyTorch users would write, so values, grad_fn names,
leaf .grad and error texts can be compared one to one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'"
)
F = torch.nn.functional

from gradcli.graph import fold  # noqa: E402
from gradcli.ops import REGISTRY  # noqa: E402
from gradcli.parse import Apply, Num, Ref, parse_program  # noqa: E402

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
}


def _reduce(name):
    def run(a, dim=None, keepdim=False):
        method = getattr(a, name)
        return method() if dim is None and not keepdim else method(dim=dim, keepdim=keepdim)

    return run


TORCH_OPS["sum"] = _reduce("sum")
TORCH_OPS["mean"] = _reduce("mean")


@dataclass
class TorchRun:
    tensors: dict[str, object]  # name -> torch tensor for named statements and inputs
    output: object
    leaves: dict[str, object]


def run_torch(source: str, at: dict, const: dict | None = None, dtype=None) -> TorchRun:
    """Forward pass of a gradcli program in torch; call .backward() on .output yourself."""
    dtype = dtype or torch.float64
    const = const or {}
    env: dict[str, object] = {}
    leaves = {}
    for name, value in at.items():
        leaves[name] = env[name] = torch.tensor(
            np.asarray(value, dtype=np.float64), dtype=dtype, requires_grad=True
        )
    for name, value in const.items():
        env[name] = torch.tensor(np.asarray(value, dtype=np.float64), dtype=dtype)

    def evaluate(expr):
        if isinstance(expr, Num):
            return expr.value
        if isinstance(expr, Ref):
            return env[expr.name]
        assert isinstance(expr, Apply)
        args = [evaluate(a) for a in expr.args]
        attrs = {"dim": expr.dim, "keepdim": expr.keepdim} if REGISTRY[expr.op].reduction else {}
        if all(isinstance(a, float) for a in args):
            return fold(REGISTRY[expr.op], args, attrs)
        return TORCH_OPS[expr.op](*args, **attrs)

    program = parse_program(source)
    output = None
    for statement in program.statements:
        output = evaluate(statement.expr)
        if statement.target:
            env[statement.target] = output
    return TorchRun(env, output, leaves)


def torch_grads(source: str, at: dict, const: dict | None = None, gradient=None, dtype=None) -> dict:
    run = run_torch(source, at, const, dtype)
    grad = (
        None
        if gradient is None
        else torch.tensor(np.asarray(gradient, dtype=np.float64), dtype=run.output.dtype)
    )
    run.output.backward(grad)
    return {n: (None if t.grad is None else t.grad.detach().numpy()) for n, t in run.leaves.items()}


def close(a, b, rtol=1e-9, atol=1e-12) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


__all__ = ["torch", "run_torch", "torch_grads", "close", "math"]
