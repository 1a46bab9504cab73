"""gradcli's torch as torch.utils.data's modules call it (`torch.randperm`, `torch.stack`, ...):
looked up when called, since these modules are part of the package they call."""

from __future__ import annotations

import sys
from typing import Any

_PACKAGE = __name__.rsplit(".", 3)[0]  # gradcli.torch


def torch() -> Any:
    return sys.modules[_PACKAGE]
