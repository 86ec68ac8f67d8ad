"""Samplers: the order in which a ``DataLoader`` asks a map-style dataset for its samples.

A sampler is anything iterable that yields dataset indices (and, to give the loader a length, has ``__len__``).
``DataLoader`` makes one when none is given, as PyTorch's does: a :class:`SequentialSampler` (0, 1, 2, ...), or a
:class:`RandomSampler` with ``shuffle=True``; then a :class:`BatchSampler` groups its indices into batches::

    sampler = al.data.WeightedRandomSampler(weights=[0.1, 0.9], num_samples=100)  # an imbalanced pair of classes
    loader = al.data.DataLoader(dataset, batch_size=10, sampler=sampler)

The random samplers draw from ``generator`` (the global generator when none is given, so ``al.manual_seed`` makes
an epoch's order repeatable) each time they are iterated, and draw the whole epoch's order at once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence

from .. import creation
from ..ops.random_sampling import multinomial

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


class Sampler:
    """Base class of samplers: subclasses define ``__iter__`` (the indices) and usually ``__len__``."""

    def __init__(self, data_source=None) -> None:
        """PyTorch's signature: ``data_source`` is accepted and not kept (a subclass keeps what it iterates over)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"Subclasses of Sampler should implement __iter__ ({type(self).__name__} does "
                                  "not): yield the indices of the samples in the order they are to be loaded")


class SequentialSampler(Sampler):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _rng(generator):
    return (generator or creation.default_generator)._rng


class RandomSampler(Sampler):
    """The indices of ``data_source`` in a random order: a new permutation each epoch; or, with ``replacement``,
    ``num_samples`` indices drawn independently. Without replacement, ``num_samples`` beyond the dataset's length
    continues with further permutations."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source, self.replacement, self._num_samples, self.generator = \
            data_source, replacement, num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:  # (the whole order is drawn when iteration starts, not sample by sample)
        n, rng = len(self.data_source), _rng(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, size=self.num_samples).tolist())
        whole, rest = divmod(self.num_samples, n)
        permutations = [rng.permutation(n).tolist() for _ in range(whole)]
        if rest:
            permutations.append(rng.permutation(n)[:rest].tolist())
        return itertools.chain.from_iterable(permutations)

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order, a new one each epoch (e.g. the training rows of a dataset)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        return iter([self.indices[i] for i in _rng(self.generator).permutation(len(self.indices)).tolist()])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices ``0 .. len(weights) - 1``, each drawn with probability proportional to its weight
    (the weights need not sum to 1): with ``replacement`` (the default) an index may come several times, and a
    rare class is drawn as often as its weight says."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.weights = creation.as_tensor(weights, dtype=creation.backend.float64)
        if self.weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        return iter(multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """The indices of ``sampler`` in lists of ``batch_size`` (the last one shorter, or dropped with ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        return _batched(iter(self.sampler), self.batch_size, self.drop_last)  # (the sampler starts its epoch now)

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


def _batched(indices: Iterator[int], size: int, drop_last: bool) -> Iterator[list[int]]:
    batch: list[int] = []
    for index in indices:
        batch.append(index)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class _InfiniteConstantSampler(Sampler):
    """What a loader over an ``IterableDataset`` uses: ``None`` forever (the dataset decides the samples and when
    they end; the loader only counts them into batches)."""

    def __iter__(self) -> Iterator[None]:
        return itertools.repeat(None)
