"""Threads: nothing on the op path is shared between threads (issue 20). In-place and out-of-place ops, graphs,
hooks and backward passes run in several threads at once give exactly what each gives run alone, with the
interpreter switching threads as often as it can."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import autograd_lab as al


@pytest.fixture
def switch_often():
    """Make the interpreter switch threads every microsecond, so that shared state would show."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(previous)


def _workload(seed: int) -> list[np.ndarray]:
    """A small training loop of in-place and out-of-place ops, views written in place, hooks and grad modes;
    returns every value it computed."""
    rng = np.random.default_rng(seed)
    gen = al.Generator().manual_seed(seed)
    w = al.empty(4, 4, dtype=al.float64).uniform_(-1, 1, generator=gen).requires_grad_()
    b = al.zeros(4, dtype=al.float64, requires_grad=True)
    seen = []
    results = []
    for _ in range(30):
        x = al.tensor(rng.standard_normal((3, 4)))
        h = (x @ w.t() + b).tanh()
        h.register_hook(lambda g: seen.append(float(g.sum())))
        y = h * 1.0
        y[:, 0].mul_(2.0)  # an in-place op on a view of a non-leaf (CopySlices)
        loss = (y.exp() - y).mean() + w.t().pow(2).sum() * 0.01
        loss.backward()
        with al.no_grad():
            w.sub_(0.05 * w.grad)
            b.add_(b.grad, alpha=-0.05)
            w.grad.zero_()
            b.grad = None
        results.append(loss.detach().numpy().copy())
        with al.inference_mode():
            results.append((w.t() * 2).numpy().copy())  # out-of-place: must never write into w
    results.append(w.detach().numpy().copy())
    results.append(np.array(seen))
    return results


def test_threads_compute_what_each_computes_alone(switch_often):
    seeds = range(4)
    alone = {seed: _workload(seed) for seed in seeds}
    together: dict = {}
    errors = []

    def run(seed):
        try:
            together[seed] = _workload(seed)
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(seed,)) for seed in seeds for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for seed in seeds:
        assert len(together[seed]) == len(alone[seed])
        for a, b in zip(together[seed], alone[seed]):
            np.testing.assert_array_equal(a, b)


def test_an_in_place_op_never_leaves_another_threads_op_in_place(switch_often):
    """The race issue 20 reported: after two threads ran ``uniform_()``, ``w.t()`` transposed ``w`` in place."""
    ws = [al.zeros(4, 4) for _ in range(2)]
    for _ in range(5):
        threads = [threading.Thread(target=lambda w=w: [w.uniform_(-1, 1) for _ in range(2000)]) for w in ws]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for w in ws:
            before = w.numpy().copy()
            wt = w.t()
            assert wt is not w and np.array_equal(w.numpy(), before) and np.array_equal(wt.numpy(), before.T)


def test_grad_mode_and_hooks_contexts_are_per_thread(switch_often):
    """``no_grad`` in one thread records nothing there and changes nothing in another; so for saved-tensor hooks."""
    recorded = {}
    barrier = threading.Barrier(2)

    def quiet():
        with al.no_grad(), al.autograd.graph.saved_tensors_hooks(lambda t: 1 / 0, lambda p: p):
            barrier.wait()
            recorded["quiet"] = (al.ones(2, requires_grad=True) * 2).requires_grad
            barrier.wait()

    def busy():
        barrier.wait()
        x = al.ones(2, requires_grad=True)
        recorded["busy"] = (x * x).requires_grad  # saves x: the other thread's pack hook must not run here
        barrier.wait()

    threads = [threading.Thread(target=quiet), threading.Thread(target=busy)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert recorded == {"quiet": False, "busy": True}
