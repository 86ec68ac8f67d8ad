"""The main process's side of a DataLoader with worker processes (what :mod:`.worker` runs in each worker).

Each worker has its own queue of tasks; all share one queue of results. A task is ``(task index, batch of
indices)``; tasks go to the workers in turn, ``prefetch_factor`` per worker kept in flight, and a new one is
sent each time a batch is handed out. Results arrive in any order: one that comes early waits in ``pending``
until the batches before it have been yielded (``in_order=True``, the default). While waiting for a result the
loader checks every few seconds that no worker died, and gives up after ``timeout`` seconds if one was set.
The workers stop (a ``None`` task, then join, then terminate if they must) when the epoch ends, unless
``persistent_workers``, when the iterator is garbage collected, or when an error is raised.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import warnings

from .. import creation
from .worker import STATUS_CHECK_INTERVAL, ExceptionWrapper, _IterableDatasetStopIteration, _ResumeIteration, worker_loop

__all__ = ["MultiProcessingIter"]

_END = object()  # no more batches of indices


class MultiProcessingIter:
    """Iterates a DataLoader's batches, made by ``loader.num_workers`` worker processes."""

    def __init__(self, loader) -> None:
        self.shut_down = True  # (until there is something to shut down)
        _check_worker_number(loader.num_workers)
        # (the loader's settings, not the loader: a loader keeps its persistent iterator, and a reference back would
        # make a cycle, collected in an order where the queues may close before the workers are told to stop)
        self.in_order, self.persistent, self.timeout = loader.in_order, loader.persistent_workers, loader.timeout
        self.num_workers = loader.num_workers
        self.in_flight_limit = loader.prefetch_factor * loader.num_workers
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self.index_queues, self.workers = [], []
        self.result_queue = context.Queue()
        self.done_event = context.Event()
        self.shut_down = False
        batches = loader._batches_of_indices()  # (drawn before the base seed: the same order as without workers)
        base_seed = int((loader.generator or creation.default_generator)._rng.integers(2 ** 62))
        for worker_id in range(self.num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            worker = context.Process(target=worker_loop, daemon=True, args=(
                loader.dataset, loader._fetcher_factory(), index_queue, self.result_queue, self.done_event, base_seed,
                loader.worker_init_fn, worker_id, self.num_workers))
            worker.start()
            self.index_queues.append(index_queue)
            self.workers.append(worker)
        self._start_epoch(batches)

    def _start_epoch(self, batches) -> None:
        self.batches = batches
        self.sent = self.received = self.in_flight = 0
        self.pending: dict = {}  # task index -> (worker id,) while out, (worker id, data) once arrived early
        self.active = [True] * self.num_workers
        self.next_worker = itertools.cycle(range(self.num_workers))
        for _ in range(self.in_flight_limit):
            self._send_task()

    def reset(self, batches) -> None:
        """A new epoch with the same (persistent) workers: they restart their datasets' iterators first."""
        for index_queue in self.index_queues:
            index_queue.put(_ResumeIteration())
        resumed = 0
        while resumed < self.num_workers:
            task_index, _ = self._get_result()
            if isinstance(task_index, _ResumeIteration):
                resumed += 1
        self._start_epoch(batches)

    def _send_task(self) -> None:
        if self.in_flight >= self.in_flight_limit:
            return
        for _ in range(self.num_workers):
            worker_id = next(self.next_worker)
            if self.active[worker_id]:
                break
        else:
            return  # every worker's IterableDataset is exhausted
        indices = next(self.batches, _END)
        if indices is _END:
            return
        self.index_queues[worker_id].put((self.sent, indices))
        self.pending[self.sent] = (worker_id,)
        self.sent += 1
        self.in_flight += 1

    def __iter__(self) -> MultiProcessingIter:
        return self

    def __next__(self):
        try:
            return self._next_batch()
        except StopIteration:
            if not self.persistent:
                self.shutdown()
            raise
        except BaseException:
            self.shutdown()
            raise

    def _next_batch(self):
        while True:
            while self.received < self.sent:  # skip tasks handed out already (in_order=False) and tasks of
                info = self.pending.get(self.received)  # workers that ran out (IterableDataset)
                if info is not None and (len(info) == 2 or self.active[info[0]]):
                    break
                self.pending.pop(self.received, None)
                self.received += 1
            else:
                raise StopIteration
            if len(self.pending[self.received]) == 2:  # it arrived early
                data = self.pending.pop(self.received)[1]
                self.received += 1
                return self._handed_out(data)
            task_index, data = self._get_result()
            self.in_flight -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                self.active[data.worker_id] = False
                self._send_task()
                continue
            if task_index != self.received and self.in_order:
                self.pending[task_index] += (data,)
                continue
            del self.pending[task_index]
            if task_index == self.received:
                self.received += 1
            return self._handed_out(data)

    def _handed_out(self, data):
        self._send_task()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _get_result(self):
        """The next result from any worker; an error if a worker died or ``timeout`` passed."""
        timeout = self.timeout
        wait = timeout if timeout > 0 else STATUS_CHECK_INTERVAL
        while True:
            try:
                return self.result_queue.get(timeout=wait)
            except queue.Empty:
                if timeout > 0:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                dead = [str(w.pid) for w, active in zip(self.workers, self.active) if active and not w.is_alive()]
                if dead:
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited unexpectedly") from None

    def shutdown(self) -> None:
        """Stop the workers and close the queues (once)."""
        if self.shut_down:
            return
        self.shut_down = True
        self.done_event.set()
        for index_queue in self.index_queues:
            index_queue.put(None)
        for worker in self.workers:
            worker.join(timeout=STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for index_queue in self.index_queues:
            index_queue.close()
        self.result_queue.cancel_join_thread()
        self.result_queue.close()

    def __del__(self) -> None:
        self.shutdown()


def _check_worker_number(num_workers: int) -> None:
    """PyTorch's warning when there are more workers than CPU cores this process may use."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cores is None or num_workers > cores:
        suggestion = (f"Our suggested max number of worker in current system is {cores}"
                      + ("" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)")
                      + ", which is smaller than what this DataLoader is going to create." if cores is not None else
                      "DataLoader is not able to compute a suggested max number of worker in current system.")
        warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. {suggestion} Please be "
                      "aware that excessive worker creation might get DataLoader running slow or even freeze, lower the "
                      "worker number to avoid potential slowness/freeze if necessary.", UserWarning, stacklevel=4)
