"""Integer and bool consts as torch.tensor reads them, bool-mask indexing, and torch's dtype errors.

A --const literal keeps the dtype torch.tensor infers ([2, 0, 1] is int64, [true, false]
bool); the graph tracks what each node is in torch, so a bool tensor indexes as a mask
(IndexBackward0), an int64 one as indices, and torch's refusals (an int matrix in `@`
with a float one, a float cond in torch.where) are its errors, word for word.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from oracle import F, close, torch
from test_shape_ops import torch_chain

from gradcli import GradcliError, grad
from gradcli.values import literal_dtype, parse_value

X = [[1.5, -2.0, 0.5], [-0.25, 3.0, -1.0]]
MASK = [[True, False, True], [False, True, True]]
ROW = [True, False, True]


@pytest.mark.parametrize(
    ("text", "dtype"),
    [("[2, 0, 1]", np.int64), ("[true, false]", np.bool_), ("3", np.int64), ("[1, 2.5]", np.float64),
     ("[[1, 0], [0, 1]]", np.int64), ("[true, 2]", np.int64), ("1.0", np.float64), ("zeros(2)", np.float64)],
)  # fmt: skip
def test_values_keep_the_dtype_torch_tensor_infers(text, dtype):
    value = parse_value(text)
    assert value.dtype == dtype
    literal = __import__("json").loads(text) if "zeros" not in text else None
    if literal is not None:
        want = {torch.int64: "int64", torch.bool: "bool", torch.float32: "float"}[torch.tensor(literal).dtype]
        assert literal_dtype(literal) == want


# gradcli program, the same in torch (x the leaf, c the const), the const
PROGRAMS = [
    ("(x[m] ** 2).sum()", lambda x, c: (x[c] ** 2).sum(), MASK),
    ("x[x > 0].sum()", lambda x, c: x[x > 0].sum(), None),
    ("(x[:, m] * 2).sum()", lambda x, c: (x[:, c] * 2).sum(), ROW),
    ("x[m, 1:].exp().sum()", lambda x, c: x[c, 1:].exp().sum(), [True, False]),
    ("(x[torch.abs(x) > 1] ** 3).mean()", lambda x, c: (x[torch.abs(x) > 1] ** 3).mean(), None),
    ("x[y].sin().sum()", lambda x, c: x[c].sin().sum(), [1, 0, 1]),
    ("x[range(2), y].sum()", lambda x, c: x[range(2), c].sum(), [2, 0]),
    ("torch.where(m, x, 0.0).sum()", lambda x, c: torch.where(c, x, 0.0).sum(), MASK),
    ("x.masked_fill(m, -1.0).exp().sum()", lambda x, c: x.masked_fill(c, -1.0).exp().sum(), MASK),
    ("(x * m).sum()", lambda x, c: (x * c).sum(), MASK),
    ("(x * y).sum() / y.sum()", lambda x, c: (x * c).sum() / c.sum(), [[1, 2, 3], [4, 5, 6]]),
    ("F.cross_entropy(x, y)", lambda x, c: torch.nn.functional.cross_entropy(x, c), [2, 0]),
    # bool logic, conversions, gather and one_hot (issue 13)
    ("torch.where((x > 0) & m, x, 0.0).sum()", lambda x, c: torch.where((x > 0) & c, x, 0.0).sum(), MASK),
    (
        "torch.where(~m | (x > 1), x, x * 2).sum()",
        lambda x, c: torch.where(~c | (x > 1), x, x * 2).sum(),
        MASK,
    ),
    (
        "torch.where(m.bool(), x, 0.0).sum()",
        lambda x, c: torch.where(c.bool(), x, 0.0).sum(),
        [[1.0, 0.0, 2.0]] * 2,
    ),
    ("(x * y.float()).sum()", lambda x, c: (x * c.to(x.dtype)).sum(), [[1, 2, 0], [0, 3, 1]]),
    ("(x * y.long()).sum()", lambda x, c: (x * c.long()).sum(), [[1.75, -2.5, 0.0], [0.25, -0.75, 3.0]]),
    ("(x * y.bool()).sum()", lambda x, c: (x * c.bool()).sum(), [[1.75, 0.0, 0.0], [0.25, -0.75, 3.0]]),
    ("x.gather(1, y).exp().sum()", lambda x, c: x.gather(1, c).exp().sum(), [[2, 0, 2], [1, 1, 0]]),
    ("torch.gather(x, 0, y).sum()", lambda x, c: torch.gather(x, 0, c).sum(), [[1, 0], [1, 1], [0, 0]]),
    ("(F.one_hot(y, 3) * x).sum()", lambda x, c: (F.one_hot(c, 3) * x).sum(), [2, 0]),
    ("(F.one_hot(y) * x).sum()", lambda x, c: (F.one_hot(c) * x).sum(), [2, 0]),
    ("(x * (y & 6)).sum()", lambda x, c: (x * (c & 6)).sum(), [[5, 3, -2], [1, 6, 7]]),
    ("(x * (y | (y > 2))).sum()", lambda x, c: (x * (c | (c > 2))).sum(), [[5, 3, -2], [1, 6, 7]]),
    ("(x * ~y).sum()", lambda x, c: (x * ~c).sum(), [[5, 3, -2], [1, 6, 7]]),
    ("(x * torch.bitwise_xor(y, 3)).sum()", lambda x, c: (x * torch.bitwise_xor(c, 3)).sum(), [[5, 3, -2], [1, 6, 7]]),
    ("(F.one_hot(y)[:, :2] * x[:, 1:]).sum()", lambda x, c: (F.one_hot(c)[:, :2] * x[:, 1:]).sum(), [1, 4]),
    ("(x * y.to(torch.float64)).sum()", lambda x, c: (x * c.to(x.dtype)).sum(), [[1, 2, 0], [0, 3, 1]]),
    ("(x * y.type(torch.bool)).sum()", lambda x, c: (x * c.type(torch.bool)).sum(), [[1, 2, 0], [0, 3, 1]]),
    (
        "(x * y.to(dtype=torch.long)).sum()",
        lambda x, c: (x * c.to(dtype=torch.long)).sum(),
        [[1.5, -2.5, 0.0]] * 2,
    ),
    ("(x * torch.logical_xor(x > 0, m)).sum()", lambda x, c: (x * torch.logical_xor(x > 0, c)).sum(), MASK),
]


@pytest.mark.parametrize(("program", "function", "const"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_programs_with_int_and_bool_consts_equal_torch(program, function, const, dtype):
    name = "m" if "m" in program.replace("sum", "").replace("mean", "").replace("masked", "") else "y"
    consts = {} if const is None else {name: const}
    result = grad(program, at={"x": X}, const=consts, dtype=dtype)
    x = torch.tensor(X, dtype=getattr(torch, dtype), requires_grad=True)
    out = function(x, None if const is None else torch.tensor(const))
    out.backward()
    tolerance = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    assert close(result.value, out.detach().numpy(), **tolerance)
    assert close(result.grads["x"], x.grad.numpy(), **tolerance)
    # abs(x) in a mask gets a grad_fn but no gradient, in torch as here: compare what backward reaches
    assert [n.grad_fn for n in result.nodes if n.grad_fn and n.adjoint is not None] == torch_chain(out)


def test_a_mask_index_node_shows_the_mask_and_scatters_back():
    result = grad("s = x[x > 0]; (s * s).sum()", at={"x": X})
    nodes = {n.name: n for n in result.nodes}
    assert nodes["s"].grad_fn == "IndexBackward0" and nodes["s"].shape == (3,)
    assert nodes["s"].written == "x[t1]"  # t1 is the mask x > 0
    assert close(result.grads["x"], np.where(np.array(X) > 0, 2 * np.array(X), 0.0))


def _torch_error(function, const) -> str:
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    with pytest.raises((RuntimeError, IndexError)) as raised:
        function(x, torch.tensor(const, dtype=torch.float64 if literal_dtype(const) == "float" else None))
    return str(raised.value).splitlines()[0]


ERRORS = [
    ("x @ W", lambda x, c: x @ c, [[1, 2], [3, 4], [5, 6]]),
    ("W @ x", lambda x, c: c @ x, [[1, 2], [3, 4]]),
    ("torch.where(w, x, 0.0)", lambda x, c: torch.where(c, x, 0.0), [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
    ("x[w]", lambda x, c: x[c], [1.0, 0.0]),
    ("x[w]", lambda x, c: x[c], [True, False, True]),
    ("x[:, w]", lambda x, c: x[:, c], [True, False]),
    ("x.masked_fill(w, 0.0)", lambda x, c: x.masked_fill(c, 0.0), [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
    ("F.nll_loss(x, w)", lambda x, c: torch.nn.functional.nll_loss(x, c), [2.0, 0.0]),
    ("F.cross_entropy(x, w)", lambda x, c: torch.nn.functional.cross_entropy(x, c), [[0, 1, 0], [1, 0, 0]]),
    ("x * w.mean()", lambda x, c: x * c.mean(), [1, 2, 3]),
    ("x * -w", lambda x, c: x * -c, [True, False, True]),
    ("x * (w - w)", lambda x, c: x * (c - c), [True, False, True]),
    ("x & w", lambda x, c: x & c, [True, False, True]),
    ("(x > 0) | w", lambda x, c: (x > 0) | c, [1.0, 0.0, 1.0]),
    ("x.gather(1, w)", lambda x, c: x.gather(1, c), [[0.0, 1.0], [1.0, 1.0]]),
    ("x.gather(1, w)", lambda x, c: x.gather(1, c), [0, 1]),
    ("x.gather(1, w)", lambda x, c: x.gather(1, c), [[0, 1]] * 3),
    ("F.one_hot(w, num_classes=3) * x", lambda x, c: F.one_hot(c, num_classes=3) * x, [1.0, 0.0]),
]


@pytest.mark.parametrize(("program", "function", "const"), ERRORS, ids=[f"{e[0]} {e[2]}" for e in ERRORS])
def test_dtype_refusals_are_torchs_errors(program, function, const):
    with pytest.raises(GradcliError) as ours:
        grad(
            f"({program}).sum()",
            at={"x": X},
            const={"W" if "W" in program else "w": const},
        )
    assert ours.value.message.split(": ", 1)[1] == _torch_error(function, const)


@pytest.mark.parametrize(
    ("program", "function", "const"),
    [
        ("x.gather(1, w)", lambda x, c: x.gather(1, c), [[0, 5], [1, 1]]),
        ("x.gather(1, w)", lambda x, c: x.gather(1, c), [[0, -1], [1, 1]]),
        ("F.one_hot(w, num_classes=3)", lambda x, c: F.one_hot(c, num_classes=3), [0, 3]),
        ("F.one_hot(w, num_classes=3)", lambda x, c: F.one_hot(c, num_classes=3), [0, -1]),
        ("F.one_hot(w, num_classes=0)", lambda x, c: F.one_hot(c, num_classes=0), [0, 1]),
        ("F.one_hot(w)", lambda x, c: F.one_hot(c), [0, -1]),
    ],
)
def test_value_dependent_refusals_are_torchs_errors(program, function, const):
    """Index bounds are checked when values are known (forward): torch's words, no location."""
    with pytest.raises(GradcliError) as ours:
        grad(f"({program}).sum() * x.sum()", at={"x": X}, const={"w": const})
    # one_hot's num_classes is read while the graph is built, so that error has a location
    assert re.sub(r"^column \d+: ", "", ours.value.message) == _torch_error(function, const)


def test_invert_of_a_float_tensor_is_torchs_error():
    with pytest.raises(TypeError) as theirs:
        ~torch.tensor(X)
    with pytest.raises(GradcliError) as ours:
        grad("(~x).sum()", at={"x": X})
    assert ours.value.message.split(": ", 1)[1] == str(theirs.value)


def test_the_cli_reads_bool_and_int_consts(run):
    result = run(
        "grad",
        "x[m].sum() + x[0, y].sum()",
        "--at",
        f"x={X}",
        "--const",
        "m=[[true,false,true],[false,true,true]]",
        "--const",
        "y=[2,0]",
        "--format",
        "plain",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "x\t[[2.0,0.0,2.0],[0.0,1.0,1.0]]"  # the mask, x[0, 2], x[0, 0]
    bad = run("grad", "(x @ W).sum()", "--at", f"x={X}", "--const", "W=[[1,2],[3,4],[5,6]]")
    assert bad.exit_code == 1 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
    assert "expected m1 and m2 to have the same dtype" in bad.stderr


def test_a_mask_without_values_is_refused_in_one_line():
    with pytest.raises(GradcliError, match="needs the mask's values"):
        grad("x[x > 0].sum()")  # symbolic only: every name a scalar without a value
