"""torch.cat and torch.stack end to end: list operands, one node per call, torch as the oracle.

A call's tensors come as one list; gradcli records one CatBackward0 (StackBackward0) whose
operands are the listed tensors in order, as torch's grad_fn.next_functions lists them.
"""

from __future__ import annotations

import pytest
from oracle import close, torch
from test_shape_ops import torch_chain

from gradcli import GradcliError, grad, hessian

X = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]
Y = [[0.1, 0.2], [-0.4, 0.9]]
Z = [[1.1, -0.6, 0.3], [0.2, -0.8, 0.4]]
V = {"x": X, "y": Y, "z": Z}

# gradcli program, the same in torch (a function of the leaves x, y, z), the leaves it uses
PROGRAMS = [
    ("(torch.cat([x, y], 1) ** 2).sum()", lambda x, y, z: (torch.cat([x, y], 1) ** 2).sum(), "xy"),
    ("torch.cat((x, z)).sin().sum()", lambda x, y, z: torch.cat((x, z)).sin().sum(), "xz"),
    (
        "torch.cat([x, y, x], dim=-1).exp().mean()",
        lambda x, y, z: torch.cat([x, y, x], -1).exp().mean(),
        "xy",
    ),
    ("torch.concat([x], 0).tanh().sum()", lambda x, y, z: torch.cat([x], 0).tanh().sum(), "x"),
    ("np.concatenate([x, y], axis=1).sum()", lambda x, y, z: torch.cat([x, y], 1).sum(), "xy"),
    (
        "torch.cat(tensors=[x * 2, z.sin()], dim=0).sum()",
        lambda x, y, z: torch.cat([x * 2, z.sin()]).sum(),
        "xz",
    ),
    ("(torch.stack([x, z]) ** 3).sum()", lambda x, y, z: (torch.stack([x, z]) ** 3).sum(), "xz"),
    (
        "torch.stack((x, z, x), dim=1).cos().sum()",
        lambda x, y, z: torch.stack((x, z, x), 1).cos().sum(),
        "xz",
    ),
    ("torch.stack([x, z], -1).sum(-1).prod()", lambda x, y, z: torch.stack([x, z], -1).sum(-1).prod(), "xz"),
    ("jnp.stack([x, z], axis=2).sum()", lambda x, y, z: torch.stack([x, z], 2).sum(), "xz"),
    (
        "s = torch.stack([x.sum(), z.mean()]); (s * s).sum()",
        lambda x, y, z: (lambda s: (s * s).sum())(torch.stack([x.sum(), z.mean()])),
        "xz",
    ),
]


@pytest.mark.parametrize(("program", "function", "names"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_programs_compute_and_record_what_torch_does(program, function, names, dtype):
    result = grad(program, at={n: V[n] for n in names}, dtype=dtype)
    leaves = {n: torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=n in names) for n, v in V.items()}
    out = function(**leaves)
    out.backward()
    tolerance = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    assert close(result.value, out.detach().numpy(), **tolerance)
    for name in names:
        assert close(result.grads[name], leaves[name].grad.numpy(), **tolerance)
    assert [n.grad_fn for n in result.nodes if n.kind == "op"] == torch_chain(out)


def test_one_node_with_the_listed_tensors_as_its_operands_as_torch_records():
    """next_functions of CatBackward0: one entry per listed tensor, in order (x twice)."""
    result = grad("c = torch.cat([x, y.exp(), x], 1); c.sum()", at={"x": X, "y": Y})
    nodes = {n.name: n for n in result.nodes}
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(Y, dtype=torch.float64, requires_grad=True)
    c = torch.cat([x, y.exp(), x], 1)
    c.retain_grad()
    c.sum().backward()
    parents = [f.name() for f, _ in c.grad_fn.next_functions]
    assert parents == ["torch::autograd::AccumulateGrad", "ExpBackward0", "torch::autograd::AccumulateGrad"]
    assert nodes["c"].grad_fn == c.grad_fn.name() == "CatBackward0"
    assert nodes["c"].inputs == ("x", nodes["c"].inputs[1], "x")
    assert close(nodes["c"].adjoint, c.grad.numpy())
    assert close(result.grads["x"], x.grad.numpy()) and close(result.grads["y"], y.grad.numpy())


def test_the_table_writes_the_call_and_each_operands_part():
    nodes = {n.name: n for n in grad("c = torch.cat([x, y], dim=1); c.sum()", at={"x": X, "y": Y}).nodes}
    assert nodes["c"].written == "torch.cat([x, y], dim=1)"
    assert nodes["x"].adjoint_local == "adj_c[:, 0:3]"  # cat's rule: a slice per operand
    assert nodes["y"].adjoint_local == "adj_c[:, 3:5]"
    nodes = {n.name: n for n in grad("s = torch.stack([x, z], -1); s.sum()", at={"x": X, "z": Z}).nodes}
    assert nodes["z"].adjoint_local == "adj_s.select(2, 1)"


def _torch_error(function) -> str:
    leaves = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in V.items()}
    with pytest.raises((RuntimeError, IndexError, ValueError, TypeError)) as raised:
        function(**leaves)
    return str(raised.value).splitlines()[0]


ERRORS = [
    ("torch.cat([x, y])", lambda x, y, z: torch.cat([x, y])),
    ("torch.cat([x, y], 2)", lambda x, y, z: torch.cat([x, y], 2)),
    ("torch.cat([x, z.sum(0)])", lambda x, y, z: torch.cat([x, z.sum(0)])),
    ("torch.cat([x, z.sum()])", lambda x, y, z: torch.cat([x, z.sum()])),
    ("torch.cat([x.sum(), z])", lambda x, y, z: torch.cat([x.sum(), z])),
    ("torch.cat([], 0)", lambda x, y, z: torch.cat([], 0)),
    ("torch.cat([x, 1.0])", lambda x, y, z: torch.cat([x, 1.0])),
    ("torch.stack([x, y])", lambda x, y, z: torch.stack([x, y])),
    ("torch.stack([x, z], 3)", lambda x, y, z: torch.stack([x, z], 3)),
    ("torch.stack([x, z], -4)", lambda x, y, z: torch.stack([x, z], -4)),
    ("torch.stack([])", lambda x, y, z: torch.stack([])),
]


@pytest.mark.parametrize(("program", "function"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_lists_and_dims_are_torchs_errors(program, function):
    names = [n for n in "xyz" if f"{n}," in program or f"{n}]" in program or f"{n}." in program]
    with pytest.raises(GradcliError) as ours:
        grad(f"({program}).sum() + x.sum()", at={n: V[n] for n in set(names) | {"x"}})
    assert ours.value.message.split(": ", 1)[1] == _torch_error(function)


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("torch.cat(x, 0)", "takes its tensors as one list"),
        ("torch.cat()", "missing 1 required positional argument: 'tensors'"),
        ("torch.cat([x, *x])", "starred arguments are not allowed"),
        ("torch.cat([x] , out=x)", "unexpected keyword argument 'out'"),
        ("x.cat([x])", "unknown method '.cat()'"),
    ],
)
def test_what_gradcli_refuses_says_so_in_one_line(program, message):
    with pytest.raises(
        GradcliError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")
    ):
        grad(f"({program}).sum()", at={"x": X})


def test_the_cli_joins_without_a_traceback(run):
    result = run("grad", "torch.cat([x, x], 1).sum()", "--at", f"x={X}", "--format", "json")
    assert result.exit_code == 0, result.stderr
    bad = run("grad", "torch.cat([x, y]).sum()", "--at", f"x={X}", "--at", f"y={Y}")
    assert bad.exit_code == 1 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


def test_hessian_and_second_order_equal_torchs():
    def f(x):
        return (torch.cat([x, x.sin()], 1) ** 3).sum() + torch.stack([x, x * x]).prod()

    value = torch.tensor(X, dtype=torch.float64)
    program = "(torch.cat([x, x.sin()], 1) ** 3).sum() + torch.stack([x, x * x]).prod()"
    ours = hessian(program, at={"x": X}).hessian["x"]["x"]
    assert close(ours, torch.autograd.functional.hessian(f, value).numpy(), rtol=1e-10, atol=1e-12)


def test_a_second_backward_needs_no_retain_graph_as_in_torch():
    """Cat and stack save only sizes, so torch runs a second pass without retain_graph."""
    result = grad("torch.stack([torch.cat([x, x], 1), torch.cat([x, x], 1)]).sum()", at={"x": X}, passes=2)
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = torch.stack([torch.cat([x, x], 1), torch.cat([x, x], 1)]).sum()
    out.backward()
    out.backward()
    assert close(result.grads["x"], x.grad.numpy(), rtol=1e-15)


@pytest.mark.parametrize("count", [9, 64])
def test_a_long_list_is_one_node_with_a_record_made_for_its_length(count):
    """Past the lengths the registry lists, a call's record is made when it is first needed:
    still one StackBackward0 with every tensor an operand, torch's values and gradients."""
    from gradcli.ops import REGISTRY
    from gradcli.ops.joining import MAX_JOINED, MAX_LISTED

    listed = ", ".join(["x", "z"] * (count // 2) + ["x"] * (count % 2))
    found = grad(f"(torch.stack([{listed}]) ** 2).sum()", at={"x": X, "z": Z})
    xs = [torch.tensor(X, dtype=torch.float64, requires_grad=True), torch.tensor(Z, dtype=torch.float64, requires_grad=True)]
    out = (torch.stack([xs[i % 2] for i in range(count)]) ** 2).sum()
    out.backward()
    assert close(found.grads["x"], xs[0].grad.numpy()) and close(found.grads["z"], xs[1].grad.numpy())
    stacked = next(n for n in found.nodes if n.op and n.op.startswith("stack"))
    assert stacked.grad_fn == "StackBackward0" and len(stacked.inputs) == count
    assert REGISTRY[f"stack{count}"].name == f"stack{count}"
    assert f"stack{count}" not in dict(REGISTRY)  # never among the listed records (gradcli ops)
    assert count > MAX_LISTED and REGISTRY["cat" + str(MAX_LISTED)].name == f"cat{MAX_LISTED}"
    with pytest.raises(KeyError):
        REGISTRY[f"stack{MAX_JOINED + 1}"]
