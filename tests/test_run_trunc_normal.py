"""nn.init.trunc_normal_ draws torch 2.13's numbers: its normal redraws when [a, b] holds over
30% of the mass, its uniform rejection sampler otherwise, from the default generator or a
torch.Generator, in float32 and float64."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import torch_stdouts
from script_run import run_script

_BOUNDS = st.sampled_from(
    [
        (0.0, 1.0, -2.0, 2.0),  # the defaults: the normal branch, a few redraws
        (0.0, 0.02, -2.0, 2.0),  # ViT's std: nothing to redraw
        (0.0, 1.0, -0.5, 0.5),  # 38% of the mass: still the normal branch
        (0.0, 1.0, 0.0, 0.2),  # 8%: the rejection sampler
        (1.0, 2.0, 3.0, 3.5),  # the mode at a bound
        (10.0, 1.0, -2.0, 2.0),  # far from the mean (torch warns)
    ]
)


def _torch_numbers(seed: int, shape: tuple, dtype: str, bounds: tuple, own_generator: bool) -> list:
    mean, std, a, b = bounds
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed + 1) if own_generator else None
    w = torch.empty(shape, dtype=getattr(torch, dtype))
    with torch.no_grad():
        torch.nn.init.trunc_normal_(w, mean, std, a, b, generator=generator)
    return [w.tolist(), torch.rand(2).tolist()]


def _script(seed: int, shape: tuple, dtype: str, bounds: tuple, own_generator: bool) -> str:
    mean, std, a, b = bounds
    generator = f"torch.Generator().manual_seed({seed + 1})" if own_generator else "None"
    return (
        "import torch\n"
        f"torch.manual_seed({seed})\n"
        f"g = {generator}\n"
        f"w = torch.empty({shape}, dtype=torch.{dtype})\n"
        f"torch.nn.init.trunc_normal_(w, {mean}, {std}, {a}, {b}, generator=g)\n"
        "print([w.tolist(), torch.rand(2).tolist()])\n"
    )


@pytest.mark.filterwarnings("ignore:mean is more than 2 std")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from([(1,), (5,), (16,), (3, 7), (40,), (9, 33)]),
    dtype=st.sampled_from(["float32", "float64"]),
    bounds=_BOUNDS,
    own_generator=st.booleans(),
)
def test_trunc_normal_draws_torchs_numbers(seed, shape, dtype, bounds, own_generator):
    ours = run_script(_script(seed, shape, dtype, bounds, own_generator))
    assert ours.error is None, ours.error
    assert ours.stdout == f"{_torch_numbers(seed, shape, dtype, bounds, own_generator)}\n"


def test_trunc_normal_warns_as_torch_does_when_the_mean_is_far_from_the_bounds():
    ours = run_script("import torch\nw = torch.empty(3)\ntorch.nn.init.trunc_normal_(w, mean=10.0)\n")
    assert ours.error is None
    assert any("mean is more than 2 std from [a, b] in nn.init.trunc_normal_" in w for w in ours.warnings)


def test_erfinv_is_torchs_with_its_gradient():
    script = (
        "import torch\n"
        "x = torch.tensor([-0.9, -0.3, 0.0, 0.25, 0.99], dtype=torch.float64, requires_grad=True)\n"
        "y = torch.special.erfinv(x)\n"
        "y.sum().backward()\n"
        "print(y, x.grad, torch.tensor([1.0, -1.0, 2.0]).erfinv())\n"
    )
    ours = run_script(script)
    x = torch.tensor([-0.9, -0.3, 0.0, 0.25, 0.99], dtype=torch.float64, requires_grad=True)
    y = torch.special.erfinv(x)
    y.sum().backward()
    assert ours.stdout == f"{y} {x.grad} {torch.tensor([1.0, -1.0, 2.0]).erfinv()}\n"


def test_trunc_normal_and_logspace_errors_are_torchs():
    script = (
        "import torch\n"
        "for f in [lambda: torch.nn.init.trunc_normal_(torch.empty(3), a=2.0, b=-2.0),\n"
        "          lambda: torch.nn.init.trunc_normal_(torch.empty(3, dtype=torch.long)),\n"
        "          lambda: torch.logspace(0, 2, -1)]:\n"
        "    try:\n"
        "        f()\n"
        "    except (RuntimeError, NotImplementedError) as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    (theirs,) = torch_stdouts([script])
    assert run_script(script).stdout == theirs
