"""torch.utils.data, gradcli's: Dataset (a real class a script subclasses), and TensorDataset,
DataLoader and default_collate from the run interpreter (torch's draws, batches and collation),
which index a script's own Dataset through Python's len() and [].
"""

from __future__ import annotations

from typing import Any

from .._bridge import namespace


class Dataset:
    """An abstract dataset: a subclass gives __getitem__ (and __len__, for a DataLoader)."""

    __module__ = "torch.utils.data.dataset"

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


__getattr__ = namespace("torch.utils.data")
__all__ = ["Dataset"]
