"""Shared test helpers: a CliRunner that keeps stdout and stderr apart."""

from __future__ import annotations

import os

# torch picks its CPU kernels (AVX2, AVX512, or plain) when it loads. gradcli models the AVX2
# ones bit for bit (softmax's lane order, float32 tanh/exp, elu's nan positions), so the
# tests pin that path before anything imports torch; AVX512 machines then give the same
# bits. A run with ATEN_CPU_CAPABILITY set to another path skips the tests that compare
# kernel bits (KERNEL_BIT_TESTS) and runs the rest.
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")

import json  # noqa: E402

import pytest  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from hypothesis import settings  # noqa: E402

from gradcli.cli import main  # noqa: E402

# Tests that compare torch's kernels bit for bit (or count how often they agree) on the AVX2
# path, by node id prefix: exact elsewhere only on that path.
KERNEL_BIT_TESTS = (
    "tests/test_float32.py::test_wide_ops_agree_with_torch_far_more_often_than_a_float32_loop",
    "tests/test_softmax_order.py::",
    "tests/test_math_activations.py::test_a_nan_inputs_gradient_is_torchs_at_every_position",
    "tests/test_run.py::test_script_prints_what_torch_prints[tut_batches_and_losses]",
)


def _kernel_path() -> str:
    """The kernels torch loaded (AVX2 unless ATEN_CPU_CAPABILITY chose another)."""
    try:
        import torch
    except ImportError:
        return "AVX2"
    return torch.backends.cpu.get_cpu_capability()


def pytest_collection_modifyitems(config, items):
    path = _kernel_path()
    if path == "AVX2":
        return
    skip = pytest.mark.skip(reason=f"compares torch's AVX2 kernels bit for bit; torch runs its {path} kernels here")
    for item in items:
        if item.nodeid.startswith(KERNEL_BIT_TESTS):
            item.add_marker(skip)

# Every run starts cold: the symbolic cache is off unless a test turns it on (test_cache.py),
# so no test depends on what an earlier one (or the user's own runs) left on disk.
os.environ["GRADCLI_CACHE_DIR"] = ""

# The same examples on every run, so CI cannot fail by chance and a failure reproduces.
# GRADCLI_RANDOM_TESTS=1 explores new examples; a failure then prints the blob to
# reproduce it (@reproduce_failure) with the falsifying example.
settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("random", derandomize=False, database=None, print_blob=True)
settings.load_profile("random" if os.environ.get("GRADCLI_RANDOM_TESTS") else "deterministic")


@pytest.fixture
def run():
    """run("grad", EXPR, "--at", ...) -> click Result with .exit_code, .stdout, .stderr."""
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(main, list(args), input=input, env={"COLUMNS": "80", "NO_COLOR": "1"})

    return invoke


@pytest.fixture
def run_json(run):
    """Run a grad command with --format json and return the parsed document (strictly)."""

    def invoke(*args: str, input: str | None = None) -> dict:
        result = run(*args, "--format", "json", input=input)
        assert result.exit_code == 0, result.stderr
        return strict_loads(result.stdout)

    return invoke


def _reject_constant(name: str):
    raise ValueError(f"non-strict JSON literal {name}")


def strict_loads(text: str):
    """json.loads that refuses NaN/Infinity literals, as an RFC 8259 parser would."""
    return json.loads(text, parse_constant=_reject_constant)
