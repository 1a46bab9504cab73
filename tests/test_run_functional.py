"""`gradcli run`: torch.autograd.functional (create_graph=, strict=, vectorize=, jvp) and torch.func,
compared with torch 2.13 running the same script: printed values, grad_fn names and the exception
texts a script catches (each case prints what it caught, so an error is compared too)."""

from __future__ import annotations

import re

import pytest
from torch_server import run_under_torch

_ADDRESS = re.compile(r"0x[0-9a-f]+")

HEAD = """import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, vhp, hvp
def show(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([0.5, -1.0, 2.0])
xr = torch.tensor([0.3, -0.7, 1.1], requires_grad=True)
d = torch.tensor([[0.5, -1.5], [2.0, 0.25]], dtype=torch.float64)
cube = lambda t: t ** 3 + t.sin()
def pair(a, b):
    return (a * b).sum() + (a ** 2 * b.exp()).sum()
def two(a, b):
    return a * b, (a - b).tanh()
"""

CASES = {
    "jacobian create_graph": "show(lambda: jacobian(cube, x, create_graph=True))\n"
    "show(lambda: jacobian(cube, xr, create_graph=True))\n"
    "j = jacobian(lambda t: t.exp() * 2, xr, create_graph=True)\nj.sum().backward()\nprint(xr.grad)\n",
    "jacobian vectorize": "show(lambda: jacobian(two, (x, y), vectorize=True))\n"
    "show(lambda: jacobian(two, (x, y), vectorize=True, create_graph=True))\n"
    "show(lambda: jacobian(lambda a, b: a * 2, (x, y), vectorize=True))\n"
    "show(lambda: jacobian(lambda m: m @ m, d, vectorize=True))\n",
    "jacobian strict": "show(lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True))\n"
    "show(lambda: jacobian(lambda a: a.detach(), x, strict=True))\n"
    "show(lambda: jacobian(lambda a: a * 2, x, strict=True, create_graph=True))\n"
    "show(lambda: jacobian(cube, x, strict=True, create_graph=True))\n"
    "show(lambda: jacobian(cube, x, strict=True, vectorize=True))\n",
    "jacobian forward-mode": "show(lambda: jacobian(cube, x, vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(two, (x, y), vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(lambda a: a * y, x, vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(lambda a: (a * y, a.exp()), x, vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(lambda a, b: a @ b, (d, d), vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(lambda a: a * y, x, vectorize=True))\n"
    "show(lambda: jacobian(lambda a: a * y, x))\n"
    "show(lambda: jacobian(cube, x, strategy='forward-mode'))\n"
    "show(lambda: jacobian(cube, x, strict=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(cube, x, create_graph=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(lambda t: [t], x, vectorize=True, strategy='forward-mode'))\n"
    "show(lambda: jacobian(cube, x, strategy='sideways'))\n",
    "hessian options": "show(lambda: hessian(pair, (x, y)))\n"
    "show(lambda: hessian(pair, (x, y), create_graph=True))\n"
    "show(lambda: hessian(pair, (x, y), vectorize=True))\n"
    "show(lambda: hessian(lambda t: (t ** 4).sum(), xr, create_graph=True))\n"
    "show(lambda: hessian(lambda t: (t * 2).sum(), x, strict=True))\n"
    "show(lambda: hessian(lambda t: (t ** 2).sum(), x, strict=True))\n"
    "show(lambda: hessian(lambda t: t, x))\n"
    "show(lambda: hessian(lambda t: (t, t), x))\n"
    "show(lambda: hessian(pair, (x, y), outer_jacobian_strategy='other'))\n"
    "h = hessian(lambda t: (t ** 4).sum(), xr, create_graph=True)\nh.sum().backward()\nprint(xr.grad)\n",
    "jvp": "show(lambda: jvp(cube, x, torch.ones(3)))\n"
    "show(lambda: jvp(cube, x, torch.ones(3), create_graph=True))\n"
    "show(lambda: jvp(cube, xr, y))\n"
    "show(lambda: jvp(cube, xr, y, create_graph=True))\n"
    "show(lambda: jvp(two, (x, y), (y, x)))\n"
    "show(lambda: jvp(lambda t: t.exp(), torch.tensor(0.5)))\n"
    "show(lambda: jvp(cube, x))\n"
    "show(lambda: jvp(lambda a, b: a * 2, (x, y), (x, y), strict=True))\n"
    "show(lambda: jvp(lambda a: a.detach(), x, x, strict=True))\n"
    "show(lambda: jvp(lambda a: a * 2, x, x, strict=True))\n"
    "show(lambda: jvp(lambda a: a * 2, x, x, strict=True, create_graph=True))\n"
    "show(lambda: jvp(two, (x, y), (y, torch.ones(2))))\n"
    "show(lambda: jvp(two, (x, y), [y, x]))\n"
    "show(lambda: jvp(two, (x, y), (y,)))\n",
    "vjp": "show(lambda: vjp(cube, x, torch.ones(3), create_graph=True))\n"
    "show(lambda: vjp(cube, xr, y, create_graph=True))\n"
    "show(lambda: vjp(two, (x, y), (y, x)))\n"
    "show(lambda: vjp(lambda a, b: a * 2, (x, y), x, strict=True))\n"
    "show(lambda: vjp(lambda a: a * 2, x, x, strict=True, create_graph=True))\n"
    "show(lambda: vjp(cube, x, torch.ones(2)))\n"
    "show(lambda: vjp(cube, x, (torch.ones(3), torch.ones(3))))\n"
    "show(lambda: vjp(cube, [x]))\n"
    "show(lambda: vjp(cube, (x, 3)))\n"
    "show(lambda: vjp(lambda t: [t], x, x))\n",
    "vhp and hvp": "show(lambda: vhp(pair, (x, y), (y, x)))\n"
    "show(lambda: hvp(pair, (x, y), (y, x)))\n"
    "show(lambda: vhp(pair, (x, y), (y, x), create_graph=True))\n"
    "show(lambda: hvp(pair, (x, y), (y, x), create_graph=True))\n"
    "show(lambda: hvp(lambda t: (t ** 3).sum(), xr, y, create_graph=True))\n"
    "show(lambda: vhp(lambda a: (a * 2).sum(), x, x, strict=True))\n"
    "show(lambda: hvp(lambda a: (a * 2).sum(), x, x, strict=True))\n"
    "show(lambda: hvp(lambda a: (a ** 2).sum(), x, x, strict=True))\n"
    "show(lambda: hvp(lambda a: (a ** 2).sum(), x, x, strict=True, create_graph=True))\n"
    "show(lambda: vhp(lambda a, b: (a ** 2).sum(), (x, y), (x, y), strict=True))\n"
    "show(lambda: hvp(lambda t: t, x, x))\n"
    "show(lambda: hvp(lambda t: (t,), x, x))\n",
    "python's argument errors": "show(lambda: jacobian(cube, x, 1, 2, 3, 4, 5))\n"
    "show(lambda: jacobian(cube))\nshow(lambda: jacobian())\nshow(lambda: jvp(cube, x, foo=1))\n"
    "show(lambda: jacobian(cube, x, inputs=x))\nshow(lambda: jacobian(3, x))\n",
    "grad modes": "with torch.no_grad():\n"
    "    show(lambda: jacobian(cube, xr, create_graph=True))\n"
    "    show(lambda: vjp(cube, xr, y))\n"
    "    show(lambda: vjp(cube, xr, y, create_graph=True))\n"
    "    show(lambda: jvp(cube, xr, y))\n",
    "functions of the script as torch calls them": "import torch.nn as nn\n"
    "lin = nn.Linear(2, 2)\nwith torch.no_grad():\n"
    "    lin.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))\n    lin.bias.fill_(0.1)\n"
    "show(lambda: jacobian(lin, torch.tensor([1.0, 2.0])))\n"
    "show(lambda: jacobian(torch.tanh, x, vectorize=True))\n"
    "show(lambda: hessian(lambda t: lin(t).pow(2).sum(), torch.tensor([1.0, 2.0])))\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_functional_prints_what_torch_prints(run, case):
    script = HEAD + CASES[case]
    theirs = run_under_torch(script)
    assert theirs.returncode == 0, theirs.stderr
    ours = run("run", "-", input=script)
    assert ours.exit_code == 0, ours.stderr
    assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", theirs.stdout)


REFUSED = {
    "forward-mode jacobian of an input that requires grad": "jacobian(cube, xr, vectorize=True, "
    "strategy='forward-mode')",
    "forward-mode hessian": "hessian(lambda t: (t ** 3).sum(), x, vectorize=True, outer_jacobian_strategy='forward-mode')",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_torch_answers_with_a_vmapped_graph_is_refused_in_one_line(run, case):
    """torch's forward-mode result then carries the graph of its vmapped pass (ReshapeAliasBackward0
    over PermuteBackward0 ...): gradcli says it does not model that, rather than print another."""
    theirs = run_under_torch(HEAD + f"print({REFUSED[case]}.grad_fn)\n")
    assert "Backward0" in theirs.stdout
    ours = run("run", "-", input=HEAD + f"print({REFUSED[case]})\n")
    assert ours.exit_code == 1
    assert ours.stdout == ""
    assert ours.stderr.count("\n") == 1
    assert "forward-mode jacobian/hessian of inputs that require grad is not supported" in ours.stderr
