"""A differential fuzz of recorded in-place writes (CopySlices, views written through, index_put,
in-place ops on a tensor in a graph) and backward through them: random scripts, each run by
gradcli and by torch 2.13, whose printed output must be equal.

The oracle runs every script in one torch process (each with a fresh namespace and its own
stdout), so the table costs one torch start-up. Values avoid float32 kernels whose last bit
differs between NumPy and torch (tanh near saturation makes 1 - t*t differ in a printed digit),
and every tensor a write starts from is contiguous: torch keeps a transposed input's strides in
an elementwise result (`x.t() * 1`), where `run`'s op results are always contiguous.
"""

from __future__ import annotations

import random
import re

import pytest
from oracle import torch_stdouts
from script_run import run_script

MAKE = [
    "y = x * 2",
    "y = x.clone()",
    "y = x.exp()",
    "y = x + w",
    "y = torch.sin(x) * w",
    "y = x.view(3, 2).t().contiguous() * 1",
    "y = x.sigmoid() + 0",
]
WRITES = [
    "y[0] = 5.0",
    "y[1] = w * 3",
    "y[:, 1] *= 3",
    "y[0, 2] = w[1]",
    "y[1:, :2] = 0.5",
    "y[:, 0] += w[:2]",
    "v = y[1]\nv.mul_(2)",
    "v = y[:, 2]\nv.add_(w[0])",
    "y[0][1] = 7.0",
    "y.t()[1].sub_(1)",
    "y[y > 1] = 0.0",
    "y[[0, 1], [2, 0]] = w[:2]",
    "z = y[0]\ny[0, 0] = 9.0\nprint(z)",
    "y.mul_(w)",
    "y.add_(1)",
    "y.zero_()",
    "y[1].fill_(2.0)",
    "y[0].copy_(w)",
    "print(y)",
    "print(y.grad_fn.name())",
    "u = y.view(6)\nu[3] = -1.0\nprint(u)",
]
COUNT = 60


def _script(seed: int) -> str:
    r = random.Random(seed)
    lines = [
        "import torch",
        "x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)",
        "w = torch.tensor([0.25, -0.5, 2.0], requires_grad=True)",
        r.choice(MAKE),
        *(r.choice(WRITES) for _ in range(r.randint(1, 4))),
        "print(y)",
        "try:",
        "    (y * y).sum().backward()",
        "    print(x.grad, w.grad)",
        "except RuntimeError as e:",
        "    print('RuntimeError:', e)",
    ]
    return "\n".join(lines) + "\n"


_ADDRESS = re.compile(r"object at 0x[0-9a-f]+")


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts([_script(seed) for seed in range(COUNT)])


@pytest.mark.parametrize("seed", range(COUNT))
def test_recorded_writes_print_what_torch_prints(seed, torch_outputs):
    script = _script(seed)
    theirs = torch_outputs[seed]
    ours = run_script(script)
    if "!" in theirs and theirs.rsplit("!", 1)[1].startswith(("RuntimeError", "IndexError")):
        printed, error = theirs.rsplit("!", 1)
        assert ours.error is not None and ours.error.split(": ", 1)[1] == error, script
        assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", printed), script
        return
    assert ours.error is None, f"{script}\n{ours.error}"
    assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", theirs), script
