"""torch.functional, gradcli's: the functions torch defines in torch/functional.py (einsum,
split, meshgrid, norm, ...), each the one torch.* has."""

from __future__ import annotations

from typing import Any

from ._bridge import module_attribute

_NAMES = frozenset(
    {
        "atleast_1d", "atleast_2d", "atleast_3d", "align_tensors", "broadcast_shapes", "broadcast_tensors",
        "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid",
        "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive",
        "unravel_index",
    }
)  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return module_attribute("torch", name)
    raise AttributeError(f"module 'torch.functional' has no attribute '{name}'")
