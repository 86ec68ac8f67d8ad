"""``DataLoader``: batches from a dataset, in order or shuffled, and the default way to stack them.

Everything runs in the calling process (``num_workers=0``): loading here is indexing into tensors
that are already in memory, so workers would add cost without speed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from numbers import Number

import numpy as np

from .. import creation
from ..creation import Generator
from ..ops.join import stack
from ..tensor import Tensor

__all__ = ["DataLoader", "default_collate", "default_convert"]

_COLLATE_TYPES = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(sample):
    """What a loader with ``batch_size=None`` yields: NumPy arrays become tensors, containers are walked."""
    if isinstance(sample, np.ndarray) and sample.dtype.kind in "biuf":
        return creation.as_tensor(sample)
    if isinstance(sample, Mapping):
        converted = {key: default_convert(value) for key, value in sample.items()}
        return converted if type(sample) is dict else type(sample)(converted)
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(default_convert(v) for v in sample))
    if isinstance(sample, (list, tuple)):  # a plain tuple becomes a list, as in PyTorch
        return [default_convert(v) for v in sample]
    return sample


def default_collate(batch: Sequence):
    """Merge a list of samples into a batch, position by position, as PyTorch's ``default_collate``.

    Tensors and NumPy arrays are stacked along a new first dimension; Python ints/bools become an
    int64/bool tensor and floats a float64 tensor; strings are left as they are; dicts are collated
    per key, tuples and lists per position (giving a list of batches), namedtuples field by field.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)  # its error names the first entry of another shape
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind not in "biuf":
            raise TypeError(_COLLATE_TYPES.format(elem.dtype))
        return stack([creation.as_tensor(a) for a in batch], 0)
    if isinstance(elem, np.generic):
        return creation.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype=creation.backend.float64)
    if isinstance(elem, Number):  # int or bool: PyTorch infers the dtype from the values
        return creation.tensor(batch)
    if isinstance(elem, str):
        return batch  # as given: the batch list, or a tuple for a position within tuple samples
    if isinstance(elem, Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        return collated if type(elem) is dict else type(elem)(collated)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(position) for position in zip(*batch)]
    raise TypeError(_COLLATE_TYPES.format(type(elem)))


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples, merged by ``collate_fn``.

    ``shuffle=True`` draws a new order each epoch from ``generator`` (the global generator by default,
    so ``al.manual_seed`` makes runs repeatable); ``drop_last`` drops a final, smaller batch;
    ``sampler`` gives the order of indices explicitly; ``batch_size=None`` yields samples one by one.
    """

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator: Generator | None = None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        # pin_memory, timeout, worker_init_fn, multiprocessing_context, prefetch_factor, persistent_workers,
        # pin_memory_device and in_order concern worker processes or GPUs: accepted for PyTorch code, no effect here
        if num_workers != 0:
            raise ValueError(f"num_workers={num_workers}: autograd_lab's DataLoader loads in the calling process only "
                             "(pass num_workers=0)")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                             "drop_last")
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                       or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        self.dataset = dataset
        self.batch_size = batch_size if batch_sampler is None else None
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.drop_last = drop_last
        self.generator = generator
        self.num_workers = 0
        auto_batching = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if auto_batching else default_convert)

    def _indices(self) -> Iterator[int]:
        if self.sampler is not None:
            return iter(self.sampler)
        if self.shuffle:
            rng = (self.generator or creation.default_generator)._rng
            return iter(rng.permutation(len(self.dataset)).tolist())
        return iter(range(len(self.dataset)))

    def _batches_of_indices(self) -> Iterator[list[int]]:
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        batch: list[int] = []
        for index in self._indices():
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __iter__(self) -> Iterator:
        if self.batch_size is None and self.batch_sampler is None:
            for index in self._indices():
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self._batches_of_indices():
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
