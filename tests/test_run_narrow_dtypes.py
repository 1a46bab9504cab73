"""int8, int16, uint8, float16 and bfloat16 tensors in `run`, as torch 2.13 computes and
prints them: creation, conversion, arithmetic with torch's type promotion (0-dim tensors and
Python numbers included), reductions and the NumPy bridge; autograd of the half dtypes is
refused in one line."""

from __future__ import annotations

import random

import pytest
from oracle import assert_prints_as_torch, torch_stdouts
from script_run import run_script

DTYPES = ["int8", "int16", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"]
BINARY = ["+", "-", "*", "/", "<", "=="]
UNARY = ["{}.sum()", "{}.abs()", "{}.max()", "{}.float()", "{}.half()", "{}.short()", "{}.to(torch.bfloat16)"]
FLOATING = ["{}.exp()", "{}.sin()", "{}.mean()", "{}.sqrt()", "torch.sigmoid({})", "{} @ {}"]


def _tensor(r: random.Random, dtype: str, zero_dim: bool) -> str:
    if dtype == "bool":
        values = [r.choice([True, False]) for _ in range(4)]
    elif dtype.startswith(("int", "uint")):
        low = 0 if dtype == "uint8" else -100
        values = [r.randint(low, 120) for _ in range(4)]
    else:
        values = [round(r.uniform(-50, 50), r.choice([0, 1, 3])) for _ in range(4)]
    data = values[0] if zero_dim else values
    return f"torch.tensor({data!r}, dtype=torch.{dtype})"


def _script(seed: int) -> str:
    r = random.Random(seed)
    lines = ["import torch"]
    for _ in range(6):
        a, b = r.choice(DTYPES), r.choice(DTYPES)
        lines.append(f"a = {_tensor(r, a, False)}")
        lines.append(f"b = {_tensor(r, b, r.random() < 0.3)}")
        op = r.choice(BINARY)
        number = r.choice(["2", "3.5", "-1", "0.25"])
        unary = r.choice(
            UNARY if a != "bool" else [u for u in UNARY if "abs" not in u]
        )  # abs(bool): not here
        lines.append(f"print(a {op} b, a {op} {number}, {unary.format('a')})")
        if a in ("float16", "bfloat16", "float32", "float64"):
            floating = FLOATING if a in ("float16", "bfloat16") else FLOATING[:-1]  # float32 BLAS: not these
            lines.append(f"print({r.choice(floating).format('a', 'a')})")
    return "\n".join(lines) + "\n"


SCRIPTS = [_script(seed) for seed in range(40)]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(SCRIPTS)


@pytest.mark.parametrize("index", range(len(SCRIPTS)))
def test_narrow_dtypes_compute_and_print_as_torch(index, torch_outputs):
    assert_prints_as_torch(SCRIPTS[index], torch_outputs[index])


def test_the_books_dtype_section_prints_as_torch():
    script = """import torch
import numpy as np
short_points = torch.tensor([[1, 2], [3, 4]], dtype=torch.short)
torch.manual_seed(0)
points_64 = torch.rand(5, dtype=torch.double)
points_short = points_64.to(torch.short)
print(short_points.dtype, points_64 * points_short, points_short, short_points.element_size())
for dt in [np.uint8, np.int16, np.float16, np.int8]:
    print(torch.from_numpy(np.zeros(3, dtype=dt)).dtype, torch.zeros(2, dtype=torch.half).numpy().dtype)
print(torch.ones(3, dtype=torch.bfloat16), torch.full((2,), 7, dtype=torch.int8), torch.arange(4, dtype=torch.uint8))
"""
    (theirs,) = torch_stdouts([script])
    ours = run_script(script)
    assert ours.error is None, ours.error
    assert ours.stdout == theirs


@pytest.mark.parametrize(
    "script",
    [
        "x = torch.ones(2, dtype=torch.half, requires_grad=True)\n",
        "x = torch.ones(2, requires_grad=True)\ny = x.half()\n",
        "x = torch.ones(2, dtype=torch.bfloat16)\nx.requires_grad_()\n",
    ],
)
def test_autograd_of_half_tensors_is_refused_in_one_line(script):
    ours = run_script("import torch\n" + script)
    assert ours.error is not None and "is not supported by gradcli run" in ours.error


def test_bfloat16_has_no_numpy_array_as_in_torch():
    ours = run_script(
        "import torch\ntry:\n    torch.ones(2).bfloat16().numpy()\nexcept TypeError as e:\n    print(e)\n"
    )
    assert ours.stdout == "Got unsupported ScalarType BFloat16\n"


def test_an_integer_too_big_for_the_dtype_is_torchs_overflow_error():
    script = "import torch\nx = torch.zeros(3, dtype=torch.int8)\ntry:\n    x[0] = 200\nexcept RuntimeError as e:\n    print(e)\n"
    (theirs,) = torch_stdouts([script])
    assert run_script(script).stdout == theirs
