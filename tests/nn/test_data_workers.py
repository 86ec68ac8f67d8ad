"""``DataLoader(num_workers>0)``: real worker processes, batches in order, prefetching, per-worker seeds,
``get_worker_info``, ``worker_init_fn``, ``IterableDataset`` sharding, persistent workers, timeouts, and the
errors PyTorch gives ("Caught KeyError in DataLoader worker process 0." with the worker's traceback).

Every test is bounded in time (an alarm, and ``timeout=`` on the loaders) and checks that no worker process
is left behind."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import random
import signal
import time

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.data import _multiprocessing
from autograd_lab.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

torch = pytest.importorskip("torch")
import torch.utils.data as tdata  # noqa: E402

LIMIT = 10  # seconds a loader waits for one batch in these tests


@pytest.fixture(autouse=True)
def _bounded_and_clean():
    def expire(signum, frame):
        raise TimeoutError("test ran past 90 s: a DataLoader worker may be stuck")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(90)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if multiprocessing.active_children():
        gc.collect()  # (an iterator left mid-epoch stops its workers when collected)
    assert not multiprocessing.active_children()


def _data(n=10):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return TensorDataset(al.tensor(x), al.arange(n)), tdata.TensorDataset(torch.tensor(x), torch.arange(n))


def _plain(batch):
    if isinstance(batch, (list, tuple)):
        return [_plain(b) for b in batch]
    return batch.tolist() if hasattr(batch, "tolist") else batch


@pytest.mark.parametrize("kwargs", [
    {"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
    {"batch_sampler": [[1, 2], [7], [0, 9, 8]]}, {"batch_size": 2, "prefetch_factor": 1}, {"batch_size": 1},
], ids=repr)
def test_batches_with_workers_are_those_without_and_torchs(kwargs):
    ours, theirs = _data()
    with_workers = [_plain(b) for b in DataLoader(ours, num_workers=2, timeout=LIMIT, **kwargs)]
    kwargs.pop("prefetch_factor", None)
    assert with_workers == [_plain(b) for b in DataLoader(ours, **kwargs)]
    assert with_workers == [_plain(b) for b in tdata.DataLoader(theirs, num_workers=2, **kwargs)]


def test_shuffled_batches_with_workers_are_those_without_for_the_same_generator():
    ours, _ = _data(20)
    def epoch(workers):
        loader = DataLoader(ours, batch_size=6, shuffle=True, generator=al.Generator().manual_seed(3),
                            num_workers=workers, **({"timeout": LIMIT} if workers else {}))
        return [_plain(b) for b in loader]
    assert epoch(2) == epoch(0) and sorted(i for b in epoch(2) for i in b[1]) == list(range(20))


class Slow(Dataset):
    """Sample 0 takes long: the batches after it are ready first."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 0:
            time.sleep(1.5)
        return i


def test_batches_come_in_order_even_when_workers_finish_out_of_order():
    assert [b.item() for b in DataLoader(Slow(), num_workers=2, timeout=LIMIT)] == [0, 1, 2, 3]
    unordered = [b.item() for b in DataLoader(Slow(), num_workers=2, timeout=LIMIT, in_order=False)]
    assert sorted(unordered) == [0, 1, 2, 3] and unordered[0] != 0


class WhoAmI(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return {"pid": os.getpid(), "id": info.id, "n": info.num_workers, "seed": info.seed,
                "dataset_is_a_copy": info.dataset is not self or True, "random": random.random(),
                "numpy": float(np.random.rand()), "al": al.rand(1).item()}


def _samples(loader):
    return [{k: v[0] if isinstance(v, list) else (v.item() if hasattr(v, "item") else v) for k, v in b.items()}
            for b in loader]


def test_workers_are_processes_with_their_info_and_their_own_seeds():
    assert get_worker_info() is None
    loader = DataLoader(WhoAmI(), num_workers=2, timeout=LIMIT, generator=al.Generator().manual_seed(0))
    samples = _samples(loader)
    assert {s["id"] for s in samples} == {0, 1} and {s["n"] for s in samples} == {2}
    pids = {s["id"]: s["pid"] for s in samples}
    assert os.getpid() not in pids.values() and pids[0] != pids[1]
    seeds = {s["id"]: s["seed"] for s in samples}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id
    first = {s["id"]: s for s in samples[:2]}
    for draw in ("random", "numpy", "al"):
        assert first[0][draw] != first[1][draw]
    again = _samples(DataLoader(WhoAmI(), num_workers=2, timeout=LIMIT, generator=al.Generator().manual_seed(0)))
    assert [(s["seed"], s["random"], s["numpy"], s["al"]) for s in again] == \
        [(s["seed"], s["random"], s["numpy"], s["al"]) for s in samples]


class Scaled(Dataset):
    scale = 1

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i * self.scale


def _set_scale(worker_id):
    get_worker_info().dataset.scale = 10 + worker_id  # the worker's own copy


def test_worker_init_fn_runs_in_each_worker_on_its_copy():
    dataset = Scaled()
    out = [b.item() for b in DataLoader(dataset, num_workers=2, worker_init_fn=_set_scale, timeout=LIMIT)]
    assert out == [0, 11, 20, 33] and dataset.scale == 1


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


class TorchStream(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = tdata.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


@pytest.mark.parametrize("kwargs", [{"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None},
                                    {"batch_size": 3, "num_workers": 3}], ids=repr)
def test_an_iterable_dataset_is_sharded_with_get_worker_info_as_in_torch(kwargs):
    kwargs = {"num_workers": 2, **kwargs}
    ours = [_plain(b) for b in DataLoader(Stream(7), timeout=LIMIT, **kwargs)]
    assert ours == [_plain(b) for b in tdata.DataLoader(TorchStream(7), **kwargs)]
    if not kwargs.get("drop_last"):  # each sample once, from the worker that owns it
        assert sorted(v for b in ours for v in (b if isinstance(b, list) else [b])) == list(range(7))


class Broken(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            return {}["missing key"]
        return i


class Picky(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class Pickier(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        raise Picky(1, 2)


def test_an_error_in_a_worker_names_it_and_carries_its_traceback():
    with pytest.raises(KeyError) as caught:
        list(DataLoader(Broken(), num_workers=2, timeout=LIMIT))
    message = str(caught.value)
    assert message.startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback (most recent call")
    assert "in __getitem__" in message and 'return {}["missing key"]' in message and "KeyError: 'missing key'" in message
    with pytest.raises(RuntimeError, match="Caught Picky in DataLoader worker process 0"):
        list(DataLoader(Pickier(), num_workers=1, timeout=LIMIT))


def test_the_same_error_message_as_torch():
    def first_line(loader):
        batches = iter(loader)
        try:
            list(batches)
        except KeyError as exc:
            return str(exc).splitlines()[0]
        finally:
            (getattr(batches, "_shutdown_workers", None) or batches.shutdown)()
    theirs = first_line(tdata.DataLoader(Broken(), num_workers=2))
    assert first_line(DataLoader(Broken(), num_workers=2, timeout=LIMIT)) == theirs


class Sleepy(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(2)
        return i


class Dies(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        os._exit(3)


def test_timeout_and_a_dead_worker_are_errors(monkeypatch):
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.5 seconds"):
        list(DataLoader(Sleepy(), num_workers=1, timeout=0.5))
    monkeypatch.setattr(_multiprocessing, "STATUS_CHECK_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dies(), num_workers=1))


class Counted(Dataset):
    def __init__(self, counter):
        self.counter = counter

    def __len__(self):
        return 40

    def __getitem__(self, i):
        with self.counter.get_lock():
            self.counter.value += 1
        return i


@pytest.mark.parametrize("prefetch_factor", [1, 3])
def test_prefetch_factor_batches_per_worker_are_made_ahead(prefetch_factor):
    counter = multiprocessing.get_context("fork").Value("i", 0)
    loader = DataLoader(Counted(counter), batch_size=2, num_workers=2, prefetch_factor=prefetch_factor,
                        timeout=LIMIT, multiprocessing_context="fork")
    batches = iter(loader)
    deadline = time.time() + LIMIT
    while counter.value < 2 * 2 * prefetch_factor and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # a loader that sent more tasks would have made more samples by now
    assert counter.value == 2 * 2 * prefetch_factor  # workers x prefetch_factor batches of 2, none consumed yet
    next(batches)
    batches.shutdown()


def test_persistent_workers_keep_their_processes_across_epochs():
    def pids(loader):
        return {s["pid"] for s in _samples(loader)}

    persistent = DataLoader(WhoAmI(), num_workers=2, persistent_workers=True, timeout=LIMIT)
    first, second = pids(persistent), pids(persistent)
    assert first == second and len(first) == 2
    for _ in persistent:  # an epoch left early: the next one starts clean
        break
    assert len(_samples(persistent)) == 6
    fresh = DataLoader(WhoAmI(), num_workers=2, timeout=LIMIT)
    assert pids(fresh) != pids(fresh)
    persistent._iterator.shutdown()


def test_the_spawn_context_pickles_the_dataset_into_fresh_processes():
    ours, _ = _data(6)
    loader = DataLoader(ours, batch_size=4, num_workers=2, multiprocessing_context="spawn", timeout=60)
    assert [_plain(b) for b in loader] == [_plain(b) for b in DataLoader(ours, batch_size=4)]


@pytest.mark.parametrize("kwargs", [
    {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"persistent_workers": True},
    {"multiprocessing_context": "fork"}, {"num_workers": 1, "multiprocessing_context": "bogus"},
    {"num_workers": 1, "multiprocessing_context": 3}, {"num_workers": 1, "prefetch_factor": -1},
], ids=repr)
def test_option_errors_match_torch(kwargs):
    with pytest.raises((ValueError, TypeError)) as theirs:
        tdata.DataLoader(range(4), **kwargs)
    with pytest.raises(theirs.type) as ours:
        DataLoader(range(4), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_more_workers_than_cores_warns_as_torch(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    with pytest.warns(UserWarning, match="This DataLoader will create 2 worker processes in total. Our suggested max "
                                         "number of worker in current system is 1, which is smaller than"):
        assert [b.item() for b in DataLoader(range(2), num_workers=2, timeout=LIMIT)] == [0, 1]


def test_pin_memory_is_accepted_with_torchs_warning():
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        loader = DataLoader(range(4), batch_size=2, pin_memory=True, num_workers=2, timeout=LIMIT)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]
    assert DataLoader(range(4), num_workers=2).prefetch_factor == 2


def test_tensors_cross_processes_as_leaves_keeping_requires_grad_as_in_torch():
    for lib in (al, torch):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        y = x * 2
        y_back, view_back = pickle.loads(pickle.dumps(y)), pickle.loads(pickle.dumps(x.detach()[:, 1]))
        assert y_back.requires_grad and y_back.is_leaf and y_back.tolist() == y.tolist()
        assert not view_back._is_view() and view_back.tolist() == [1.0, 4.0]
