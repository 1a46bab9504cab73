"""torch.utils.data, gradcli's: Dataset (a real class a script subclasses), Subset and
random_split as torch writes them, and TensorDataset, DataLoader and default_collate from the
run interpreter (torch's draws, batches and collation), which index a script's own Dataset
through Python's len() and [].
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

from .._bridge import module_attribute, namespace


class Dataset:
    """An abstract dataset: a subclass gives __getitem__ (and __len__, for a DataLoader)."""

    __module__ = "torch.utils.data.dataset"

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class Subset(Dataset):
    """The items of `dataset` at `indices`, in that order (torch's Subset)."""

    __module__ = "torch.utils.data.dataset"

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (
            type(self).__getitem__ is not Subset.__getitem__
            and type(self).__getitems__ is Subset.__getitems__
        ):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


_DEFAULT = object()  # torch's default: torch.default_generator


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Any = _DEFAULT) -> list[Subset]:
    """Non-overlapping Subsets of the given lengths (or fractions summing to 1), their indices
    one torch.randperm of the whole, drawn from `generator` as torch draws them."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):  # one more to each, round-robin, until none is left
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    randperm = module_attribute("torch", "randperm")
    drawn = randperm(sum(lengths)) if generator is _DEFAULT else randperm(sum(lengths), generator=generator)
    indices = drawn.tolist()
    return [
        Subset(dataset, indices[offset - length : offset])
        for offset, length in zip(itertools.accumulate(lengths), lengths, strict=True)
    ]


__getattr__ = namespace("torch.utils.data")
__all__ = ["Dataset", "Subset", "random_split"]
