"""Sizes as numbers (issue 13): x.shape[0], x.size(0), len(x), x.numel(), x.dim(), x.ndim.

torch gives Python ints and records nothing; gradcli folds each from its operand's shape
when the graph is built, so a size can stand wherever a number can, including the
arguments of view/reshape and `range(len(x))` in a subscript. torch is the oracle.
"""

from __future__ import annotations

import pytest
from oracle import close, torch
from test_shape_ops import torch_chain

from gradcli import GradcliError, grad

X = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
E = [[[0.5, -0.2], [0.1, 0.9]], [[0.4, 0.4], [-0.1, -0.6]], [[0.2, 0.3], [0.1, 0.5]]]
W = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]

# gradcli program, the same in torch, leaves, consts (int lists are int64 in both)
PROGRAMS = [
    ("-x[range(len(x)), y].log().mean()", lambda x, y: -x[range(len(x)), y].log().mean(), {"x": X}, {"y": [2, 0]}),
    ("-x[range(x.shape[0]), y].log().sum()", lambda x, y: -x[range(x.shape[0]), y].log().sum(), {"x": X}, {"y": [1, 1]}),
    ("-x[range(n), y].log().mean()", lambda x, n, y: -x[range(n), y].log().mean(), {"x": X}, {"y": [2, 0], "n": 2}),
    ("(e.view(e.shape[0], -1) @ w).tanh().sum()", lambda e, w: (e.view(e.shape[0], -1) @ w).tanh().sum(), {"e": E, "w": W}, {}),
    ("(e.view(e.size(0), -1) @ w).sum()", lambda e, w: (e.view(e.size(0), -1) @ w).sum(), {"e": E, "w": W}, {}),
    ("e.reshape(len(e) * 2, 2).exp().sum()", lambda e: e.reshape(len(e) * 2, 2).exp().sum(), {"e": E}, {}),
    ("e.flatten(1).view(e.shape[0], e.shape[1], -1).sin().sum()", lambda e: e.flatten(1).view(e.shape[0], e.shape[1], -1).sin().sum(), {"e": E}, {}),
    ("x.sum() / x.numel() + x.dim() * x.ndim", lambda x: x.sum() / x.numel() + x.dim() * x.ndim, {"x": X}, {}),
    ("(x ** 2).sum() / len(x)", lambda x: (x**2).sum() / len(x), {"x": X}, {}),
    ("x.view(x.shape).sum()", lambda x: x.view(x.shape).sum(), {"x": X}, {}),
    ("x[range(x.size(1) - 1)].sum()", lambda x: x[range(x.size(1) - 1)].sum(), {"x": [[1.0], [2.0], [3.0]]}, {}),
]  # fmt: skip


@pytest.mark.parametrize(("program", "function", "at", "const"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_sizes_are_numbers_as_torch_gives_them(program, function, at, const):
    result = grad(program, at=at, const=const)
    leaves = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in at.items()}
    consts = {n: v if isinstance(v, int) else torch.tensor(v) for n, v in const.items()}
    out = function(**leaves, **consts)
    out.backward()
    assert close(result.value, out.detach().numpy(), rtol=1e-12)
    for name, leaf in leaves.items():
        assert close(result.grads[name], leaf.grad.numpy(), rtol=1e-12)
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == torch_chain(out)


def test_a_size_is_no_node():
    result = grad("x.sum() / x.numel()", at={"x": X})
    assert [n.op for n in result.nodes if n.kind == "op"] == ["sum", "div"]


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("x.sum() / len(x.sum())", "len() of a 0-d tensor"),
        ("x.sum() * x.sum().size(0)", "Dimension specified as 0 but tensor has no dimensions"),
        ("x.sum() * x.size(2)", "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        ("x.view(x, -1).sum()", "size must be a number, not a tensor"),
        ("x.view(x.shape[0] / 4, -1).sum()", "size must be an integer, not 0.5"),
        ("x.sum() * x.shape", "x.shape is a torch.Size here"),
        ("x[range(x.sum())].sum()", "range()'s arguments must be a number, not a tensor"),
    ],
)
def test_bad_sizes_say_what_is_wrong_in_one_line(program, message):
    with pytest.raises(GradcliError) as raised:
        grad(program, at={"x": X})
    assert message in raised.value.message and "\n" not in raised.value.message


def test_torch_gives_the_same_errors():
    x = torch.tensor(X)
    for function, message in [
        (lambda: len(x.sum()), "len() of a 0-d tensor"),
        (lambda: x.sum().size(0), "Dimension specified as 0 but tensor has no dimensions"),
        (lambda: x.size(2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ]:
        with pytest.raises(
            (TypeError, IndexError, RuntimeError),
            match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\["),
        ):
            function()


def test_the_cli_takes_sizes(run):
    result = run(
        "grad",
        "-x[range(len(x)), y].log().mean()",
        "--at",
        f"x={X}",
        "--const",
        "y=[2,0]",
        "--format",
        "plain",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("x\t")
