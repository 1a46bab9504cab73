"""torch.utils.data, gradcli's: datasets (dataset.py), samplers (sampler.py), DataLoader and
default_collate (dataloader.py), on torch's own paths and written as torch writes them, over
gradcli's tensors and torch's generator."""

from ..._bridge import namespace
from . import dataloader, dataset, sampler
from .dataloader import DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__getattr__ = namespace("torch.utils.data")
__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "dataloader",
    "dataset",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
    "sampler",
]
