"""What runs inside a DataLoader worker process, and what a worker sends back.

A worker is a separate process (``multiprocessing``) with its own copy of the dataset. It seeds its random
generators (``base_seed + worker_id``: Python's ``random``, autograd_lab's and NumPy's global ones), sets the
information :func:`get_worker_info` returns there, calls ``worker_init_fn(worker_id)``, then loops: it takes a
task ``(index, batch of indices)`` from its own index queue, fetches and collates the samples, and puts
``(index, batch)`` on the queue of results that all workers share. A ``None`` task tells it to stop. An
exception is sent back as an :class:`ExceptionWrapper` carrying the worker's traceback, which the main process
raises as PyTorch does: ``Caught KeyError in DataLoader worker process 1.`` followed by the original traceback.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper"]

STATUS_CHECK_INTERVAL = 5.0  # seconds between checks that the other side is still alive, while waiting on a queue


class WorkerInfo:
    """What :func:`get_worker_info` returns inside a worker: ``id``, ``num_workers``, ``seed`` and ``dataset``
    (the worker's own copy). Read-only once made, as PyTorch's."""

    __initialized = False

    def __init__(self, **kwargs) -> None:
        for name, value in kwargs.items():
            setattr(self, name, value)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, name: str, value) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{type(self).__name__}({items})"


class _WorkerState:
    info: WorkerInfo | None = None  # set once, in a worker process (each process has its own copy of this class)


def get_worker_info() -> WorkerInfo | None:
    """Inside a DataLoader worker: its :class:`WorkerInfo` (``id``, ``num_workers``, ``seed``, ``dataset``); in
    the main process: ``None``. An ``IterableDataset`` uses it to give each worker its own share of the data."""
    return _WorkerState.info


class ExceptionWrapper:
    """An exception caught in a worker, with its traceback as text (tracebacks do not cross processes)."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the exception again in this process: same type when it can be made from one message (else a
        ``RuntimeError``), its message naming the worker and holding the worker's traceback."""
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = _KeyErrorMessage(message)  # (KeyError's str() would show the repr, newlines escaped)
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self) -> str:
        return self


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch; echoed back once the worker is ready."""


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent back by a worker whose copy of an ``IterableDataset`` is exhausted."""

    worker_id: int


def _seed_everything(base_seed: int, worker_id: int) -> int:
    from .. import creation
    seed = base_seed + worker_id
    random.seed(seed)
    creation.manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def worker_loop(dataset, make_fetcher, index_queue, result_queue, done_event, base_seed: int, init_fn,
                worker_id: int, num_workers: int) -> None:
    """The body of one worker process (see the module docstring)."""
    try:
        seed = _seed_everything(base_seed, worker_id)
        _WorkerState.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        _serve(dataset, make_fetcher, fetcher, init_error, index_queue, result_queue, done_event, worker_id)
    except KeyboardInterrupt:
        pass  # the main process gets it too, and stops the workers
    if done_event.is_set():
        result_queue.cancel_join_thread()
        result_queue.close()


def _serve(dataset, make_fetcher, fetcher, init_error, index_queue, result_queue, done_event, worker_id: int) -> None:
    parent = os.getppid()
    exhausted = False
    while True:
        try:
            task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
        except queue.Empty:
            if os.getppid() != parent:  # the main process died: nobody will read what we make
                return
            continue
        if isinstance(task, _ResumeIteration):  # a new epoch for a persistent worker
            result_queue.put((task, None))
            exhausted = False
            if init_error is None:
                fetcher = make_fetcher(dataset)  # (a fresh iterator for an IterableDataset)
            continue
        if task is None:
            return
        if done_event.is_set() or exhausted:
            continue
        index, batch_indices = task
        if init_error is not None:
            data = init_error  # (worker_init_fn or the dataset's iterator failed: every task gets that error)
        else:
            try:
                data = fetcher.fetch(batch_indices)
            except StopIteration:
                data, exhausted = _IterableDatasetStopIteration(worker_id), True
            except Exception:
                data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        result_queue.put((index, data))
        del data
