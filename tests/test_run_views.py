"""Views in `gradcli run` (runtime.Tensor): one step from the storage, whatever the chain.

The byte-for-byte comparisons with torch are tests/scripts/tut_views*.py and
tut_inplace_versions.py (tests/test_run.py runs them); these check what torch cannot show.
"""

from __future__ import annotations

import time

from script_run import run_script


def test_a_long_chain_of_views_stays_one_step_and_writes_through():
    script = (
        "import torch\n"
        "base = torch.zeros(4, 3)\n"
        "x = base\n"
        "for i in range(3000):\n"
        "    x = x.t().t()[0:4]\n"
        "x[1, 2] = 5.0\n"
        "print(base.sum().item(), x.shape)\n"
    )
    started = time.perf_counter()
    result = run_script(script)
    assert result.error is None and result.stdout == "5.0 torch.Size([4, 3])\n"
    assert time.perf_counter() - started < 20


def test_an_op_keeps_the_values_it_ran_with_after_an_in_place_change():
    # exp saves its result, not its input: changing the input in place is allowed and the
    # gradient uses the values exp ran with (copy-on-write keeps them)
    script = (
        "import torch\n"
        "x = torch.tensor([0.0, 1.0], requires_grad=True)\n"
        "y = x * 1\n"
        "z = y.exp()\n"
        "y.mul_(100)\n"
        "z.sum().backward()\n"
        "print(x.grad, y)\n"
    )
    result = run_script(script)
    assert result.error is None
    assert result.stdout == "tensor([1.0000, 2.7183]) tensor([  0., 100.], grad_fn=<MulBackward0>)\n"


def test_writing_into_an_expanded_view_is_refused_in_torchs_words():
    script = "import torch\nx = torch.ones(3).expand(2, 3)\nx.mul_(2)\n"
    assert run_script(script).error == (
        "line 3: RuntimeError: unsupported operation: more than one element of the written-to tensor "
        "refers to a single memory location. Please clone() the tensor before performing the operation."
    )
