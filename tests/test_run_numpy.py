"""NumPy in `gradcli run` (issue 28): what the tutorial scripts in tests/scripts/tut_numpy_*.py
do not show by their printout alone. Those scripts print torch's bytes (tests/test_run.py);
these tests check that memory is shared where torch shares it, that NumPy is NumPy itself,
and that an unseeded torch draw is said once on stderr."""

from __future__ import annotations

import numpy as np

SHARED = """import numpy as np
import torch
a = np.zeros(3)
t = torch.from_numpy(a)
a[0] = 1.0
t[1] = 2.0
t.add_(1)
a += 10
print(t.tolist(), a.tolist())
copied = torch.tensor(a)
a[2] = -5.0
print(copied.tolist(), t.tolist())
"""


def test_from_numpy_and_numpy_share_memory_and_tensor_copies(run):
    result = run("run", "-", input=SHARED)
    assert result.exit_code == 0, result.stderr
    shared, after = result.stdout.splitlines()
    a = np.zeros(3)
    a[0] = 1.0
    a[1] = 2.0
    a += 1
    a += 10
    assert shared == f"{a.tolist()} {a.tolist()}"
    copied = a.copy()
    a[2] = -5.0
    assert after == f"{copied.tolist()} {a.tolist()}"


def test_an_array_shared_after_an_op_recorded_the_tensor_still_sees_updates(run):
    script = """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
view = w.detach().numpy()
with torch.no_grad():
    w -= 0.5 * w.grad
print(view.tolist(), w.tolist())
(w * w).sum().backward()
print(w.grad.tolist())
"""
    result = run("run", "-", input=script)
    assert result.exit_code == 0, result.stderr
    first, grads = result.stdout.splitlines()
    assert first == "[0.0, 0.0] [0.0, 0.0]"  # w - 0.5 * 2w: the array follows the tensor
    assert grads == "[2.0, 4.0]"  # the first backward's 2w, accumulated with the new 2 * 0


def test_numpy_is_numpy_itself_with_its_own_generators(run):
    script = (
        "import numpy as np\nnp.random.seed(5)\nprint(np.random.rand(3).tolist(), np.__file__)\n"
        "print(np.random.RandomState(7).randn(2).tolist())\n"
    )
    result = run("run", "-", input=script)
    assert result.exit_code == 0 and result.stderr == ""
    expected = f"{np.random.RandomState(5).rand(3).tolist()} {np.__file__}\n"
    assert result.stdout == expected + f"{np.random.RandomState(7).randn(2).tolist()}\n"


def test_unseeded_torch_draws_are_said_once_and_seeded_ones_not_at_all(run):
    unseeded = run("run", "-", input="import torch\nx = torch.rand(2)\ny = torch.randn(2)\nprint(x.shape)\n")
    assert unseeded.stdout == "torch.Size([2])\n"
    notes = [line for line in unseeded.stderr.splitlines() if "unseeded" in line]
    assert len(notes) == 1 and "torch.manual_seed(n)" in notes[0]
    seeded = run("run", "-", input="import torch\ntorch.manual_seed(0)\nx = torch.rand(2)\nprint(x.shape)\n")
    assert seeded.stderr == ""
