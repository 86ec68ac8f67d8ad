"""``DataLoader``: batches from a dataset, in order or shuffled, in this process or in worker processes, and
the default way to stack samples into a batch.

With ``num_workers=0`` (the default) everything runs in the calling process. With ``num_workers > 0`` the
batches are made by that many worker processes, as in PyTorch (:mod:`.worker` is what runs in one,
:mod:`._multiprocessing` what the main process does): the loader hands each worker batches of indices in turn,
keeps ``prefetch_factor`` batches per worker in flight, and yields the batches in order. For data already in
memory, workers cost more than they save; they pay off when producing a sample takes time (reading files,
decoding, augmenting). A map-style dataset is indexed (``dataset[i]``); an :class:`~.dataset.IterableDataset`
is iterated, each worker over its own copy (use :func:`~.worker.get_worker_info` to split the work).
"""

from __future__ import annotations

import itertools
import multiprocessing
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from numbers import Number

import numpy as np

from .. import creation
from ..creation import Generator
from ..ops.join import stack
from ..tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _InfiniteConstantSampler

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

    The order of the samples is a sampler's (:mod:`.sampler`), kept as ``loader.sampler``: ``SequentialSampler``, or
    with ``shuffle=True`` a ``RandomSampler`` that draws a new order each epoch from ``generator`` (the global
    generator by default, so ``al.manual_seed`` makes runs repeatable); or the ``sampler`` given. A ``BatchSampler``
    (``loader.batch_sampler``, or the one given) groups its indices into batches; ``drop_last`` drops a final,
    smaller batch; ``batch_size=None`` yields samples one by one.

    Worker processes (see the module docstring): ``num_workers``, ``prefetch_factor`` (batches in flight per
    worker, 2 by default), ``persistent_workers`` (keep the workers from one epoch to the next),
    ``worker_init_fn(worker_id)``, ``timeout`` (seconds to wait for a batch; 0: no limit), ``multiprocessing_context``
    (``'fork'``, ``'spawn'``, ``'forkserver'`` or a context), ``in_order=False`` (yield batches as they come).
    Each worker seeds Python's, NumPy's and autograd_lab's generators with ``base_seed + worker_id``, the base seed
    drawn from ``generator`` each epoch. ``pin_memory`` is accepted: there is no page-locked memory to use here.
    """

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator: Generator | None = None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        if isinstance(dataset, IterableDataset):
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                                     f"{name}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                             "drop_last")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if batch_sampler is not None:
            batch_size, drop_last = None, False  # (the batch sampler decides both)
        if sampler is None:
            sampler = _InfiniteConstantSampler() if isinstance(dataset, IterableDataset) else \
                RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.drop_last = drop_last
        self.generator = generator
        self.num_workers = num_workers
        self.prefetch_factor = (2 if prefetch_factor is None else prefetch_factor) if num_workers > 0 else None
        self.persistent_workers = persistent_workers
        self.worker_init_fn = worker_init_fn
        self.timeout = timeout
        self.in_order = in_order
        self.multiprocessing_context = _context(multiprocessing_context, num_workers)
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        if pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", UserWarning, stacklevel=2)
        self.auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if self.auto_collation else default_convert)
        self._iterator = None  # the workers' iterator, kept between epochs with persistent_workers
        self._initialized = True

    def __setattr__(self, name: str, value) -> None:
        if name in _FIXED_AFTER_INIT and self.__dict__.get("_initialized"):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized "
                             "[autograd_lab] make a new DataLoader with the setting you want")
        super().__setattr__(name, value)

    def _batches_of_indices(self) -> Iterator:
        """What each fetch is given: a list of indices per batch (the batch sampler's), or one index per sample
        without batching (the sampler's); for an ``IterableDataset`` placeholders (``None``) that only count the
        samples. (A random sampler draws the epoch's order now, before a worker's base seed.)"""
        return iter(self.batch_sampler if self.auto_collation else self.sampler)

    def _fetcher_factory(self) -> _FetcherFactory:
        return _FetcherFactory(isinstance(self.dataset, IterableDataset), self.auto_collation, self.collate_fn,
                               self.drop_last)

    def __iter__(self) -> Iterator:
        if self.num_workers == 0:
            return _single_process_batches(self, self._batches_of_indices())
        from ._multiprocessing import MultiProcessingIter
        if self.persistent_workers and self._iterator is not None:
            self._iterator.reset(self._batches_of_indices())
            return self._iterator
        iterator = MultiProcessingIter(self)
        if self.persistent_workers:
            self._iterator = iterator
        return iterator

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):  # (the dataset's own length, in batches)
            n = len(self.dataset)
            return n if self.batch_size is None else len(BatchSampler(range(n), self.batch_size, self.drop_last))
        return len(self.batch_sampler if self.auto_collation else self.sampler)


_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def _single_process_batches(loader: DataLoader, batches_of_indices: Iterator) -> Iterator:
    fetcher = loader._fetcher_factory()(loader.dataset)
    for indices in batches_of_indices:
        try:
            batch = fetcher.fetch(indices)
        except StopIteration:  # an IterableDataset ran out
            return
        yield batch


# -- fetching a batch: the same in this process and in a worker --------------------------------------
class _FetcherFactory:
    """Makes the fetcher of a dataset (picklable, so that a spawned worker can make its own)."""

    def __init__(self, iterable: bool, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.iterable, self.auto_collation, self.collate_fn, self.drop_last = iterable, auto_collation, collate_fn, \
            drop_last

    def __call__(self, dataset):
        kind = _IterableFetcher if self.iterable else _MapFetcher
        return kind(dataset, self.auto_collation, self.collate_fn, self.drop_last)


class _MapFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, indices):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            return self.collate_fn(getitems(indices) if getitems else [self.dataset[i] for i in indices])
        return self.collate_fn(self.dataset[indices])


class _IterableFetcher:
    """Takes samples from one iterator over the dataset; ``StopIteration`` once it is exhausted."""

    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.samples = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, placeholders):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.samples))
        batch = list(itertools.islice(self.samples, len(placeholders)))
        if len(batch) < len(placeholders):
            self.ended = True
        if not batch or (self.drop_last and len(batch) < len(placeholders)):
            raise StopIteration
        return self.collate_fn(batch)


# -- checking the worker options ---------------------------------------------------------------------
def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                         "enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _context(context, num_workers: int):
    """The multiprocessing context the workers start in (the platform's default when none is given)."""
    if context is None:
        return None
    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), but "
                         f"got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start method in "
                             f"{methods!r}, but got multiprocessing_context={context!r}")
        return multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a string specifying the "
                        f"start method, but got multiprocessing_context={context}")
    return context
