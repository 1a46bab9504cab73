"""torch.accelerator, gradcli's: no accelerator (gradcli computes on the CPU), so scripts that
pick their device with it (pytorch/examples do) take the CPU, as torch does on such a machine."""

from __future__ import annotations

from typing import Any


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False) -> Any:
    return None


def device_count() -> int:
    return 0


__all__ = ["current_accelerator", "device_count", "is_available"]
