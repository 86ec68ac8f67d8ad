"""Datasets: anything with ``__len__`` and ``__getitem__``; wrappers over tensors, subsets, concatenations.

As in ``torch.utils.data``, a dataset is indexed one sample at a time and a :class:`DataLoader`
turns samples into batches. ``random_split`` divides one dataset into non-overlapping subsets.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from .. import creation
from ..creation import Generator, default_generator
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "StackDataset", "ChainDataset",
           "random_split", "train_test_split"]


class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"Subclasses of Dataset should implement __getitem__ ({type(self).__name__} "
                                  "does not): return the sample at `index`")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of datasets that are iterated rather than indexed (a stream, a generator of samples): subclasses
    define ``__iter__``. A ``DataLoader`` with workers iterates one copy per worker, so each worker would yield
    every sample: split the work in ``__iter__`` with :func:`~autograd_lab.data.get_worker_info`::

        def __iter__(self):
            info = al.data.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, self.n, step))
    """

    def __iter__(self):
        raise NotImplementedError(f"Subclasses of IterableDataset should implement __iter__ ({type(self).__name__} "
                                  "does not): yield the samples")


class TensorDataset(Dataset):
    """Samples are rows: ``dataset[i]`` is ``(t[i] for t in tensors)``, as a tuple."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.size(0) if t.ndim else None for t in tensors]
        if None in sizes or len(set(sizes)) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            raise AssertionError(f"Size mismatch between tensors [autograd_lab] TensorDataset needs tensors with the "
                                 f"same first dimension (one row per sample); got shapes {shapes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after another."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class StackDataset(Dataset):
    """Datasets of the same length side by side: ``dataset[i]`` is ``(a[i], b[i], ...)`` for
    ``StackDataset(a, b, ...)``, or ``{"image": a[i], "label": b[i]}`` for ``StackDataset(image=a, label=b)``."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                             "but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if len(set(lengths)) != 1:
            raise ValueError(f"Size mismatch between datasets [autograd_lab] their lengths are {lengths}")
        self._length = lengths[0]

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class ChainDataset(IterableDataset):
    """Several iterable datasets one after another (``ConcatDataset`` is the map-style counterpart)."""

    def __init__(self, datasets) -> None:
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self.datasets)


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """PyTorch's rule: floor each share, then hand the remainder out one by one from the first subset."""
    if not math.isclose(sum(fractions), 1) or any(f < 0 or f > 1 for f in fractions):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset! [autograd_lab] "
                         f"fractions {list(fractions)} must each lie in [0, 1] and sum to 1")
    lengths = [int(math.floor(total * f)) for f in fractions]
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    return lengths


def random_split(dataset, lengths: Sequence[int | float], generator: Generator = default_generator) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    Pass ``generator=al.Generator().manual_seed(0)`` for a split that does not depend on the global seed.
    """
    if lengths and all(isinstance(n, float) for n in lengths) and sum(lengths) <= 1 + 1e-9:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset! [autograd_lab] "
                         f"lengths {list(lengths)} sum to {sum(lengths)}, the dataset has {len(dataset)} samples")
    order = generator._rng.permutation(len(dataset)).tolist()
    subsets, start = [], 0
    for n in lengths:
        subsets.append(Subset(dataset, order[start:start + n]))
        start += n
    return subsets


def train_test_split(*tensors: Tensor, test_size: float | int = 0.25, shuffle: bool = True,
                     stratify: Tensor | None = None, generator: Generator | None = None) -> list[Tensor]:
    """Split tensors that share their first dimension into train and test rows, as scikit-learn's helper.

    Returns ``[a_train, a_test, b_train, b_test, ...]``. ``test_size`` is a fraction of the rows or a
    count. ``stratify`` (class labels, one per row) keeps each class's share the same in both parts.
    """
    if not tensors:
        raise ValueError("train_test_split needs at least one tensor")
    n = len(tensors[0])
    if any(len(t) != n for t in tensors):
        raise ValueError("train_test_split: tensors must have the same first dimension, got "
                         f"{[tuple(t.shape) for t in tensors]}")
    fraction = test_size / n if isinstance(test_size, int) else float(test_size)
    if not 0 < fraction < 1:
        raise ValueError(f"train_test_split: test_size={test_size!r} must leave rows in both parts of {n} rows")
    rng = (generator or default_generator)._rng
    if stratify is None:
        order = rng.permutation(n) if shuffle else np.arange(n)
        n_test = test_size if isinstance(test_size, int) else int(math.ceil(fraction * n))
        test, train = order[:n_test], order[n_test:]
    else:
        labels = np.asarray(stratify.detach().tolist())
        test_parts, train_parts = [], []
        for label in np.unique(labels):
            rows = np.flatnonzero(labels == label)
            rows = rng.permutation(rows) if shuffle else rows
            n_test = int(round(fraction * len(rows)))
            test_parts.append(rows[:n_test])
            train_parts.append(rows[n_test:])
        test, train = np.concatenate(test_parts), np.concatenate(train_parts)
        if shuffle:
            test, train = rng.permutation(test), rng.permutation(train)
    test_index, train_index = creation.tensor(test.astype(np.int64)), creation.tensor(train.astype(np.int64))
    return [part for t in tensors for part in (t[train_index], t[test_index])]
