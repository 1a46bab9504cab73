"""torch.utils.data in a `run` script: TensorDataset, a script's own Dataset class, and DataLoader
over in-memory data (batch_size, shuffle, drop_last; no workers, no files), drawing from torch's
generator exactly where torch's DataLoader does, so a seeded script gets torch's batches and
every later draw stays torch's.

Per pass over a loader, torch draws an int64 `_base_seed` from the default generator (or the
loader's generator=, which its RandomSampler then permutes with; even
without shuffling); a shuffling RandomSampler then draws another for the seed of its own
generator and takes torch.randperm from that.
"""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np

from ..torch_random import Generator
from .classes import ClassValue, Instance
from .nn_modules import bind_arguments, sig
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position

DATASET_CLASS = ClassValue("Dataset", builtin="Dataset", qualified="torch.utils.data.dataset.Dataset")
TENSOR_DATASET = ClassValue(
    "TensorDataset",
    builtin="TensorDataset",
    qualified="torch.utils.data.dataset.TensorDataset",
)
DATA_LOADER = ClassValue(
    "DataLoader", builtin="DataLoader", qualified="torch.utils.data.dataloader.DataLoader"
)
DATA_CLASSES = {"Dataset": DATASET_CLASS, "TensorDataset": TENSOR_DATASET, "DataLoader": DATA_LOADER}

_LOADER_SIGNATURE = sig(
    "dataset",
    ("batch_size", 1),
    ("shuffle", None),
    ("sampler", None),
    ("batch_sampler", None),
    ("num_workers", 0),
    ("collate_fn", None),
    ("pin_memory", False),
    ("drop_last", False),
    ("timeout", 0),
    ("worker_init_fn", None),
    ("multiprocessing_context", None),
    ("generator", None),
)


class DataLoading:
    """Mixed into Interpreter: datasets, loaders and default_collate."""

    def make_data_object(self, cls: ClassValue, args: list, kwargs: dict, node: ast.AST) -> Instance:
        made = Instance(cls)
        if cls is TENSOR_DATASET:
            if kwargs:
                raise ScriptRuntimeError(
                    f"TensorDataset.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'",
                    "TypeError",
                )
            if not all(isinstance(t, Tensor) and t.shape for t in args):
                raise ScriptRuntimeError("TensorDataset takes tensors of at least one dimension", "TypeError")
            if args and any(t.shape[0] != args[0].shape[0] for t in args):
                raise ScriptRuntimeError("Size mismatch between tensors", "AssertionError")
            made.attrs["tensors"] = tuple(args)
            return made
        if cls is DATA_LOADER:
            config = bind_arguments("DataLoader.__init__", _LOADER_SIGNATURE, args, kwargs)
            for name in (
                "sampler",
                "batch_sampler",
                "collate_fn",
                "worker_init_fn",
                "multiprocessing_context",
            ):
                if config[name] is not None:
                    raise ScriptError(
                        f"{source_position(node)}: DataLoader({name}=...) is not supported by gradcli run"
                    )
            if config["num_workers"] != 0:
                raise ScriptError(
                    f"{source_position(node)}: DataLoader(num_workers=...) is not supported by gradcli run: "
                    "it loads in the script's own process"
                )
            self.chosen_generator({"generator": config["generator"]})  # a torch.Generator, or TypeError
            size = config["batch_size"]
            if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size <= 0):
                raise ScriptRuntimeError(
                    f"batch_size should be a positive integer value, but got batch_size={size}", "ValueError"
                )
            if size is None and self.truth(config["drop_last"]):
                raise ScriptRuntimeError(
                    "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
                    "ValueError",
                )
            config["shuffle"] = bool(config["shuffle"]) if config["shuffle"] is not None else False
            config["drop_last"] = self.truth(config["drop_last"])
            made.attrs.update(config)
            return made
        raise ScriptRuntimeError(f"{cls.name}() cannot be made here", "TypeError")

    def dataset_length(self, dataset: Any) -> int:
        if isinstance(dataset, Instance):
            return self.object_length(dataset)
        if isinstance(dataset, (list, tuple, Tensor)):
            return len(dataset) if not isinstance(dataset, Tensor) else dataset.shape[0]
        raise ScriptRuntimeError(f"object of type '{self.class_name(dataset)}' has no len()", "TypeError")

    def dataset_item(self, dataset: Any, index: int, node: ast.AST) -> Any:
        if isinstance(dataset, Instance):
            return self.object_item(dataset, index, node)
        if isinstance(dataset, Tensor):
            return self.index_tensor(dataset, index, node)
        return dataset[index]

    def loader_length(self, loader: Instance) -> int:
        n = self.dataset_length(loader.attrs["dataset"])
        size = loader.attrs["batch_size"]
        if size is None:
            return n
        return n // size if loader.attrs["drop_last"] else math.ceil(n / size)

    def loader_batches(self, loader: Instance, node: ast.AST | None) -> list:
        """One pass over a DataLoader, drawn and collated as torch's single-process iterator does."""
        here = node or ast.Pass(lineno=self.line, col_offset=0)
        config = loader.attrs
        generator = self.chosen_generator({"generator": config["generator"]})
        generator.random_((), "int64")  # _BaseDataLoaderIter's _base_seed
        n = self.dataset_length(config["dataset"])
        if config["shuffle"] and config["generator"] is not None:  # RandomSampler draws from it
            order = [int(i) for i in generator.randperm(n)] if n else []
            if n:  # and, run to its end, once more for its remainder of num_samples % n (none)
                generator.randperm(n)
        elif config["shuffle"]:
            seed = int(self.random.random_((), "int64"))
            order = [int(i) for i in Generator(seed).randperm(n)] if n else []
        else:
            order = list(range(n))
        size = config["batch_size"]
        if size is None:
            return [self.dataset_item(config["dataset"], i, here) for i in order]
        dataset = config["dataset"]
        # a TensorDataset of tensors without gradients: each batch is its rows, taken at once
        # (the same values and dtype as default_collate's stack of the rows, without n ops)
        rows_at_once = (
            isinstance(dataset, Instance)
            and dataset.cls is TENSOR_DATASET
            and not any(t.requires_grad for t in dataset.attrs["tensors"])
        )
        batches = []
        for start in range(0, n, size):
            indices = order[start : start + size]
            if len(indices) < size and config["drop_last"]:
                break
            if rows_at_once:
                picked = np.array(indices, dtype=np.int64)
                batches.append([Tensor(t.value[picked], dtype=t.dtype) for t in dataset.attrs["tensors"]])
                continue
            samples = [self.dataset_item(dataset, i, here) for i in indices]
            batches.append(self.collate(samples, here))
        return batches

    def collate(self, samples: list, node: ast.AST) -> Any:
        """torch's default_collate: tensors stacked, numbers made tensors, tuples and lists
        collated position by position (into a list), dicts key by key."""
        first = samples[0]
        if isinstance(first, Tensor):
            if any(s.requires_grad for s in samples if isinstance(s, Tensor)) and self.grad_enabled:
                return self.registry("torch", "stack", None, [samples, 0], {}, node)  # StackBackward0
            if not all(isinstance(s, Tensor) and s.shape == first.shape for s in samples):
                raise ScriptRuntimeError("stack expects each tensor to be equal size")
            dtypes = {s.dtype for s in samples}
            if len(dtypes) > 1:
                return self.registry("torch", "stack", None, [samples, 0], {}, node)
            return Tensor(np.stack([s.value for s in samples]), dtype=first.dtype)
        if isinstance(first, bool):
            return Tensor(np.array(samples, dtype=bool))
        if isinstance(first, int):
            return Tensor(np.array(samples, dtype=np.int64))
        if isinstance(first, float):
            return Tensor(np.array(samples, dtype=np.float64))
        if isinstance(first, str):
            return list(samples)
        if isinstance(first, dict):
            return {key: self.collate([s[key] for s in samples], node) for key in first}
        if isinstance(first, (tuple, list)):
            if any(len(s) != len(first) for s in samples):
                raise ScriptRuntimeError("each element in list of batch should be of equal size")
            return [self.collate([s[i] for s in samples], node) for i in range(len(first))]
        raise ScriptRuntimeError(
            "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
            f"{self.class_name(first)}",
            "TypeError",
        )
