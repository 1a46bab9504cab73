"""torch.set_num_threads and its kin. gradcli's ops run on NumPy, whose threads are its BLAS's,
so the number is kept for the script to read back, as torch keeps it, and changes nothing else."""

from __future__ import annotations

import os

_DEFAULT = max(1, os.cpu_count() or 1)  # torch starts with one thread a core
_threads = {"intra": _DEFAULT, "interop": _DEFAULT}


def _checked(name: str, value: object) -> int:
    if not isinstance(value, int):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def set_num_threads(int: int) -> None:  # noqa: A002  (torch's parameter name)
    _threads["intra"] = _checked("set_num_threads", int)


def get_num_threads() -> int:
    return _threads["intra"]


def set_num_interop_threads(int: int) -> None:  # noqa: A002
    _threads["interop"] = _checked("set_num_interop_threads", int)


def get_num_interop_threads() -> int:
    return _threads["interop"]


def reset() -> None:
    """A run starts from torch's initial state."""
    _threads.update(intra=_DEFAULT, interop=_DEFAULT)
