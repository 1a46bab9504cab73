"""Which float32 matrix-product kernels NumPy's OpenBLAS runs here, and a comparison for the
scripts whose printed digits follow them.

gradcli's float32 `@` is NumPy's, and NumPy's OpenBLAS picks its sgemm kernel by CPU when it
loads (Haswell on AVX2 machines, SkylakeX on AVX512 ones); torch's MKL picks its own. The two
agree bit for bit on the AVX2 path gradcli models (measured: every script of tests/scripts, on
an AMD EPYC), and differ in a float32 last bit elsewhere (an Intel Xeon with AVX512: three
training scripts, on both sides), which a training loop carries into its printed digits. A
script listed in BLAS_SCRIPTS is compared byte for byte where both run the modelled kernels,
and elsewhere with the tolerance those kernels differ by: the same text, and
every number within 2e-4 relative (or 2e-4 absolute: a printed 4th decimal) of torch's,
spaces aside (NumPy pads a column to its longest number).
"""

from __future__ import annotations

import ctypes
import glob
import math
import os
import re

import numpy as np

# OpenBLAS's names for the AVX2 sgemm kernels (its Zen builds run Haswell's)
MODELLED_CORES = frozenset({"Haswell", "Zen"})
# Scripts whose float32 matrix products reach the printed digits (nn.Linear training loops).
BLAS_SCRIPTS = frozenset({"tut_dataloader", "tut_optimization_loop", "tut_old_style_printing"})

_SPACES = re.compile(r"[ ]+")
_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?")


def openblas_core() -> str | None:
    """OpenBLAS's kernel family as it reports it (`Haswell`, `SkylakeX`), None if not found."""
    folder = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(folder, "*openblas*")):
        library = ctypes.CDLL(path)
        for name in (
            "scipy_openblas_get_corename64_",
            "scipy_openblas_get_corename",
            "openblas_get_corename",
        ):
            function = getattr(library, name, None)
            if function is not None:
                function.restype = ctypes.c_char_p
                return function().decode()
    return None


def _avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as info:
            return " avx512f" in info.read()
    except OSError:
        return False


def modelled_kernels() -> bool:
    """Both sides on the AVX2 kernels gradcli models: NumPy's OpenBLAS on Haswell's, and torch's
    MKL, which runs its AVX512 sgemm wherever the CPU has AVX512 (pinning MKL to AVX2 with
    MKL_ENABLE_INSTRUCTIONS or MKL_CBWR moves its float32 exp and sqrt off the bits gradcli
    models, measured on an Intel Xeon: tests/test_float32.py, tests/test_optim.py)."""
    return openblas_core() in MODELLED_CORES and not _avx512()


def close_text(ours: str, theirs: str, rtol: float = 2e-4, atol: float = 2e-4) -> bool:
    """The same text with its numbers within the tolerance (each number compared in place)."""
    # NumPy pads an array's columns to its longest number: spacing follows the digits
    if _SPACES.sub(" ", _NUMBER.sub("#", ours)) != _SPACES.sub(" ", _NUMBER.sub("#", theirs)):
        return False
    pairs = zip(_NUMBER.findall(ours), _NUMBER.findall(theirs))
    return all(math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=atol) for a, b in pairs)
