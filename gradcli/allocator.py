"""Keep freed big buffers for reuse: glibc's malloc tuned once, when the API loads.

A gradient over a million elements allocates a dozen megabyte-sized arrays and frees them
soon after. glibc serves such sizes with mmap and hands them back on free (or trims them off
the heap), so every new array starts as fresh pages the kernel must fault in and zero; on
these virtual machines that was half the time of `cross_entropy` on 1e6 logits (bench/run.py,
vocabulary). Raising the mmap and trim thresholds makes malloc reuse the freed memory instead.
The values and results are the same bits; the process keeps up to `_KEEP_BYTES` of freed
memory. `GRADCLI_MALLOC=system` leaves malloc as it was (a long-lived host process that
prefers to return memory to the system).
"""

from __future__ import annotations

import ctypes
import os
import sys

_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_KEEP_BYTES = 1 << 30

_tuned = False


def reuse_freed_memory() -> bool:
    """Tune glibc's malloc (once per process); False where there is no glibc or it is turned off."""
    global _tuned
    if _tuned:
        return True
    if not sys.platform.startswith("linux") or os.environ.get("GRADCLI_MALLOC") == "system":
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # musl or another libc: nothing to tune
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _tuned = bool(mallopt(_M_MMAP_THRESHOLD, _KEEP_BYTES)) and bool(mallopt(_M_TRIM_THRESHOLD, _KEEP_BYTES))
    return _tuned
