"""vjp, jvp and hvp (API and CLI) against torch.autograd.functional, in float64."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import strict_loads
from oracle import close, run_torch, torch

from gradcli import hvp, jvp, vjp
from gradcli.errors import GradcliError

RNG = np.random.default_rng(12)
X = RNG.uniform(0.5, 1.5, 3).tolist()
W = RNG.uniform(-1, 1, (2, 3)).tolist()

PROGRAMS = [  # (program, at); every input a leaf
    ("tanh(W @ x)", {"W": W, "x": X}),
    ("sin(x) * x.sum()", {"x": X}),
    ("softmax(W @ x, 0)", {"W": W, "x": X}),  # an op whose rules do not trace yet
    ("relu(x - 1) * abs(x) + x**3", {"x": X}),
]
SCALAR = [("sum(tanh(W @ x)**2)", {"W": W, "x": X}), ("sum(sin(x) * x**2) * sum(x)", {"x": X})]
SCALAR += [("sum(log_softmax(W @ x, 0) * x[:2])", {"W": W, "x": X})]


def _functional(program: str, at: dict):
    """The program as a function of its leaves, for torch.autograd.functional."""
    from test_higher import _torch_function as build

    return build(program, list(at), {})


def _tensors(at: dict) -> tuple:
    return tuple(torch.tensor(v, dtype=torch.float64) for v in at.values())


@pytest.mark.parametrize(("program", "at"), PROGRAMS)
def test_vjp_equals_torch(program, at):
    shape = np.shape(run_torch(program, at).output.detach().numpy())
    v = RNG.uniform(-1, 1, shape)
    _, want = torch.autograd.functional.vjp(_functional(program, at), _tensors(at), torch.tensor(v))
    got = vjp(program, at=at, v=v).product
    for name, expected in zip(at, want if isinstance(want, tuple) else (want,)):
        assert close(got[name], expected.numpy()), name


@pytest.mark.parametrize(("program", "at"), PROGRAMS)
def test_jvp_equals_torch(program, at):
    v = {n: RNG.uniform(-1, 1, np.shape(value)) for n, value in at.items()}
    _, want = torch.autograd.functional.jvp(
        _functional(program, at), _tensors(at), tuple(torch.tensor(t) for t in v.values())
    )
    assert close(jvp(program, at=at, v=v).product, want.numpy())


@pytest.mark.parametrize(("program", "at"), SCALAR)
def test_hvp_equals_torch(program, at):
    v = {n: RNG.uniform(-1, 1, np.shape(value)) for n, value in at.items()}
    _, want = torch.autograd.functional.hvp(
        _functional(program, at), _tensors(at), tuple(torch.tensor(t) for t in v.values())
    )
    got = hvp(program, at=at, v=v).product
    for name, expected in zip(at, want if isinstance(want, tuple) else (want,)):
        assert close(got[name], expected.numpy(), rtol=1e-10, atol=1e-12), name


def test_cli_json_and_table(run):
    doc = strict_loads(
        run("hvp", "sum(x**3)", "--at", "x=[1,2]", "--v", "x=[1,0]", "--format", "json").stdout
    )
    assert doc["hvp"] == {"x": [6.0, 0.0]} and doc["output"]["value"] == 9.0
    doc = strict_loads(
        run(
            "jvp", "x*y", "--at", "x=[1,2]", "--at", "y=3", "--v", "x=[1,1]", "--v", "y=1", "--format", "json"
        ).stdout
    )
    assert doc["jvp"] == [4.0, 5.0]
    table = run("vjp", "x**2", "--at", "x=[1,2,3]", "--v", "[1,0,1]")
    assert table.exit_code == 0 and "[2, 0, 6]" in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hvp", "sum(x**3)", "--at", "x=[1,2]"), "give --v x"),
        (("hvp", "sum(x**3)", "--at", "x=[1,2]", "--v", "x=[1]"), "has shape [1], but x has shape [2]"),
        (("hvp", "x**3", "--at", "x=[1,2]", "--v", "x=[1,1]"), "scalar outputs"),
        (("jvp", "x", "--at", "x=1", "--v", "z=1"), "no input named 'z'"),
        (("vjp", "x**2", "--at", "x=[1,2]"), "The vector v can only be None"),
        (("vjp", "x**2", "--at", "x=[1,2]", "--v", "[1]"), "the output has shape [2]"),
    ],
)
def test_cli_errors_are_one_line(run, args, message):
    result = run(*args)
    assert result.exit_code == 1 and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_api_speaks_the_apis_words():
    with pytest.raises(GradcliError, match=r"v\['x'\]"):
        hvp("sum(x**3)", at={"x": [1.0, 2.0]}, v={})
