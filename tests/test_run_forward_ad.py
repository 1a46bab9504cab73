"""torch.autograd.forward_ad in `run`: dual tensors print, propagate and unpack as torch 2.13's
do (the tutorial's make_dual / unpack_dual example, ops of every family, in-place ops, no_grad,
the end of the dual level), and what gradcli does not model is refused in one line."""

from __future__ import annotations

import re

import pytest
from oracle import assert_prints_as_torch, torch_stdouts
from script_run import run_script

_HEAD = "import torch\nimport torch.nn.functional as F\nimport torch.autograd.forward_ad as fwAD\ntorch.manual_seed(0)\n"

CASES = {
    "the tutorial's example": """
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)

def fn(x, y):
    return x ** 2 + y ** 2

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual_input).tangent is tangent)
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp)
print(fwAD.unpack_dual(dual_output).tangent is None)
""",
    "duals print their tangents": """
x = torch.tensor([1.0, 2.0]); t = torch.tensor([0.5, -1.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    print(d, (d * d).sin(), d.sum(), d[0], d.exp().mean())
    print(fwAD.unpack_dual(d.cos()))
    p, q = fwAD.unpack_dual(d * 3)
    print(p, q, fwAD.unpack_dual(x).tangent)
print(d)
""",
    "every family": """
x = torch.randn(3, 4)
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.randn(3, 4))
    w = torch.randn(4, 2)
    print(d @ w, torch.softmax(d, 1), F.relu(d), d.tanh().sum(0), d.reshape(2, 6), d.T)
    print(torch.cat([d, x]), torch.stack([d, d]), d[:, 1:3], d.mean(), d.max(), d.amax(1))
    print(F.mse_loss(d, x), F.log_softmax(d, 1), torch.where(x > 0, d, 0.0), d.double().sigmoid())
""",
    "in place and no_grad": """
x = torch.tensor([1.0, 2.0]); t = torch.tensor([0.5, -1.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    d.add_(1.0)
    d.mul_(torch.tensor([2.0, 3.0]))
    print(d)
    with torch.no_grad():
        print(d * 3)
""",
    "make_dual's errors": """
x = torch.tensor([1.0, 2.0])
try:
    fwAD.make_dual(x, x)
except RuntimeError as e:
    print(e)
with fwAD.dual_level():
    for bad in [torch.ones(3), torch.tensor([1, 2])]:
        try:
            fwAD.make_dual(x, bad)
        except (RuntimeError, ValueError) as e:
            print(e)
    d = fwAD.make_dual(x, x)
    fwAD.make_dual(d, x)
""",
}


def _scripts() -> list[str]:
    return [_HEAD + text for text in CASES.values()]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(_scripts())


@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_forward_ad_prints_and_fails_as_torch(index, torch_outputs):
    assert_prints_as_torch(_scripts()[index], torch_outputs[index])


@pytest.mark.parametrize(
    "script, words",
    [
        (  # torch's tangent of d * w would have a grad_fn: forward-over-reverse
            "x = torch.ones(2)\nw = torch.ones(2, requires_grad=True)\nwith fwAD.dual_level():\n"
            "    d = fwAD.make_dual(x, x)\n    print(fwAD.unpack_dual(d * w).tangent)\n",
            "forward-over-reverse is not supported",
        ),
        (
            "x = torch.ones(2)\nwith fwAD.dual_level():\n    with fwAD.dual_level():\n        pass\n",
            "Nested forward mode AD is not supported",
        ),
        (  # a reduction of it refuses the same way, not with a made-up TypeError
            "x = torch.ones(2)\nw = torch.ones(2, requires_grad=True)\nwith fwAD.dual_level():\n"
            "    d = fwAD.make_dual(x, x)\n    print((d * w).sum())\n",
            "forward-over-reverse is not supported",
        ),
        (  # an index write would leave the tangent behind
            "with fwAD.dual_level():\n    d = fwAD.make_dual(torch.ones(3), torch.ones(3))\n"
            "    z = torch.zeros(3)\n    z[1] = d[0]\n",
            "writing into a dual tensor",
        ),
        (
            "with fwAD.dual_level():\n    d = fwAD.make_dual(torch.ones(3), torch.ones(3))\n    d.clone()[0] = 1\n",
            "writing into a dual tensor",
        ),
    ],
)
def test_what_forward_ad_does_not_model_is_refused(script, words):
    ours = run_script(_HEAD + script)
    assert ours.error is not None and words in ours.error
    assert re.match(r"(line \d+: )?[A-Za-z]", ours.error)
