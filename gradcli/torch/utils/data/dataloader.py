"""torch.utils.data.dataloader, gradcli's: DataLoader and default_collate, written as torch's
single-process loader runs them, so a seeded script gets torch's batches and every later draw
stays torch's.

Each pass over a loader draws an int64 base seed from the loader's generator (the default one
if none was given), then the samplers draw as torch's do (sampler.py). Workers, if asked for,
load in the script's own process: the same batches in the same order (get_worker_info() is
None, and worker_init_fn, which torch runs in each worker's process, is not called).
"""

from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any

import numpy as np

from ....script import runtime
from ... import _bridge
from ._torch import torch
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_STRINGS_OR_OBJECTS = re.compile(r"[SaUO]")  # NumPy dtype codes default_collate cannot stack
_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


class _DatasetKind:
    Map = 0
    Iterable = 1


def get_worker_info() -> None:
    """Inside a loading worker, its id and seed; gradcli loads in the script's process: None."""
    return None


class DataLoader:
    """Batches of a dataset: its indices from a sampler, grouped by a batch sampler, the
    samples fetched and collated (default_collate: tensors stacked, numbers made tensors)."""

    _initialized = False

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Any = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Any = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
                f"num_workers={num_workers}"
            )
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called: int | None = None
        self._initialized = True

    def __setattr__(self, attr: str, val: Any) -> None:
        if self._initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return _SingleProcessDataLoaderIter(self)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _InfiniteConstantSampler:
    """An IterableDataset's sampler: None for ever (the dataset's own iterator decides)."""

    def __iter__(self) -> Any:
        while True:
            yield None


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: its base seed drawn, then batch after batch."""

    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory:
            _bridge.session().warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                "won't be used."
            )
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        if loader.generator is None:  # drawn as torch draws it; unseen, so no note of an unseeded draw
            self._base_seed = int(_bridge.session().torch_generator.random_((), "int64"))
        else:
            t = torch()
            self._base_seed = t.empty((), dtype=t.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0
        if self._dataset_kind == _DatasetKind.Iterable:
            self._dataset_iter = iter(self._dataset)
            self._ended = False

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)  # StopIteration ends the pass
        data = self._fetch(index)
        self._num_yielded += 1
        return data

    def _fetch(self, index: Any) -> Any:
        """torch's fetchers: a batch of samples (or one sample), then the collate function."""
        dataset = self._dataset
        if self._dataset_kind == _DatasetKind.Iterable:
            return self._fetch_streamed(index)
        if self._auto_collation:
            rows = _rows_at_once(dataset, index, self._collate_fn)
            if rows is not None:
                return rows
            if hasattr(dataset, "__getitems__") and dataset.__getitems__:
                data = dataset.__getitems__(index)
            else:
                data = [dataset[i] for i in index]
        else:
            data = dataset[index]
        return self._collate_fn(data)

    def _fetch_streamed(self, index: Any) -> Any:
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)


def _rows_at_once(dataset: Any, indices: list, collate_fn: Any) -> list | None:
    """A TensorDataset's batch as default_collate would stack its rows, taken in one indexing
    per tensor: the same values, dtype and layout, without two ops per sample. Only where no
    tensor requires grad (torch's stack would be recorded) and nothing overrides the rows."""
    if collate_fn is not default_collate or type(dataset) is not TensorDataset:
        return None
    tensors = dataset.tensors
    public = _bridge.PUBLIC_TENSOR[0]
    if not all(type(t) is public and t.dim() and not t.requires_grad for t in tensors):
        return None
    rows = len(tensors[0])
    if not all(type(i) is int and -rows <= i < rows for i in indices):  # a sampler's own indices
        return None
    picked = np.array(indices, dtype=np.int64)
    rows = []
    for t in tensors:
        held = _bridge.unwrap(t)
        rows.append(_bridge.wrap(runtime.Tensor(held.value[picked], dtype=held.dtype)))
    return rows


def default_convert(data: Any) -> Any:
    """Without batching: each NumPy array (inside lists, tuples and dicts) made a tensor."""
    t = torch()
    kind = type(data)
    if isinstance(data, _bridge.PUBLIC_TENSOR[0]):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if kind.__name__ == "ndarray" and _STRINGS_OR_OBJECTS.search(data.dtype.str) is not None:
            return data
        return t.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt(data, [default_convert(d) for d in data])
    return data


def _rebuilt(like: Any, parts: dict | list) -> Any:
    """`parts` in a container of `like`'s own type, as torch's collate and convert rebuild one:
    a mutable one copied and filled in, another made from the parts, and a plain dict or list
    where the type cannot be made so."""
    try:
        if isinstance(parts, dict):
            if isinstance(like, collections.abc.MutableMapping):
                clone = copy.copy(like)
                clone.update(parts)
                return clone
        elif isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, part in enumerate(parts):
                clone[i] = part
            return clone
        return type(like)(parts)
    except TypeError:
        return parts


def default_collate(batch: Any) -> Any:
    """A list of samples as one batch: tensors stacked (torch.stack along a new first dim),
    NumPy arrays and numbers made tensors (floats float64), strings kept as a list, and
    mappings, namedtuples and sequences collated field by field (a tuple gives a list)."""
    t = torch()
    elem = batch[0]
    kind = type(elem)
    if isinstance(elem, _bridge.PUBLIC_TENSOR[0]):
        return t.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _STRINGS_OR_OBJECTS.search(elem.dtype.str) is not None:
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([t.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return t.as_tensor(batch)
    if isinstance(elem, float):
        return t.tensor(batch, dtype=t.float64)
    if isinstance(elem, int):
        return t.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuilt(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return kind(*(default_collate(samples) for samples in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=False))
        collated = [default_collate(samples) for samples in transposed]
        return collated if isinstance(elem, tuple) else _rebuilt(elem, collated)
    raise TypeError(_COLLATE_ERROR.format(kind))


DataLoader.__module__ = "torch.utils.data.dataloader"  # where torch defines each
get_worker_info.__module__ = "torch.utils.data._utils.worker"
default_collate.__module__ = default_convert.__module__ = "torch.utils.data._utils.collate"
__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]
