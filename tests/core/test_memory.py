"""No reference cycles in training: 1,000 steps with the garbage collector off keep memory flat.

Tensors, nodes and saved tensors must be freed by reference counting alone (issue 7). If a step
left a cycle behind, its graph (nodes, saved activations) would survive until the cycle collector
ran; with the collector disabled, memory would grow by a graph per step. Three meters, after a
warm-up and at the end: live ``Tensor`` and ``Node`` objects (exact), bytes of live NumPy arrays
(tracemalloc's NumPy domain, exact) and all traced bytes (which also counts the interpreter's free
lists as they fill up, so it gets a generous bound, still far below a graph per step).
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd.graph import Node

STEPS, WARMUP = 1000, 50
NUMPY_DOMAIN = 389047  # the tracemalloc domain NumPy reports its array buffers in


def _setup():
    al.manual_seed(0)
    model = al.nn.Sequential(al.nn.Linear(20, 64), al.nn.ReLU(), al.nn.Linear(64, 64), al.nn.Tanh(),
                             al.nn.Linear(64, 3))
    opt = al.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    x = al.tensor(rng.standard_normal((32, 20)).astype(np.float32))
    y = al.tensor(rng.integers(0, 3, size=32))
    return model, opt, x, y


def _step(model, opt, x, y, leak: bool = False) -> float:
    opt.zero_grad()
    loss = al.nn.functional.cross_entropy(model(x), y)
    loss.backward(retain_graph=leak)
    opt.step()
    if leak:  # the control: a reference cycle holding the loss keeps this step's whole graph alive
        cell = [loss]
        cell.append(cell)
    return loss.item()


def _meters() -> dict:
    # (by type, not isinstance: isinstance reads every object's __class__, and some of other libraries' objects
    # answer that with a deprecation warning, whose bookkeeping would be counted as ours)
    types = [type(o) for o in gc.get_objects()]
    arrays = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, NUMPY_DOMAIN)])
    return {"tensors": sum(issubclass(t, al.Tensor) for t in types),
            "nodes": sum(issubclass(t, Node) for t in types),
            "array_bytes": sum(trace.size for trace in arrays.traces),
            "traced_bytes": tracemalloc.get_traced_memory()[0]}


def _collect_ours() -> int:
    """Run the cycle collector; how many of the objects only it could free are autograd_lab's (tensors, nodes, saved
    records...) or NumPy arrays. Other libraries' threads (a progress bar's monitor, a test's leftover worker) may
    make cycles of their own while the collector is off; those are not this test's subject."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        ours = sum(type(o).__module__.startswith("autograd_lab") or isinstance(o, np.ndarray) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return ours


def _train_without_gc(steps: int, leak: bool) -> tuple[dict, dict, int, float]:
    """Meters after warm-up and after ``steps`` more steps, the objects only the collector could free, the last loss."""
    model, opt, x, y = _setup()
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        for _ in range(WARMUP):  # .grad and momentum buffers, caches: allocated once, before the first reading
            _step(model, opt, x, y)
        before = _meters()
        for _ in range(steps):
            loss = _step(model, opt, x, y, leak)
        after = _meters()
        unreachable = _collect_ours()  # the cycles made while the collector was off
    finally:
        tracemalloc.stop()
        gc.enable()
    return before, after, unreachable, loss


def test_training_without_gc_keeps_memory_flat():
    before, after, unreachable, loss = _train_without_gc(STEPS, leak=False)
    assert (after["tensors"], after["nodes"]) == (before["tensors"], before["nodes"])
    assert after["array_bytes"] - before["array_bytes"] <= 4096
    # A leaked graph per step would be ~60 KB x 1,000; the free lists fill up to a few hundred KB, then stop.
    assert after["traced_bytes"] - before["traced_bytes"] < 2_000_000
    assert unreachable == 0, f"{unreachable} of autograd_lab's objects or arrays could only be freed by the cycle collector"
    assert np.isfinite(loss) and loss < 1.0  # the steps really trained


def test_the_meters_see_a_leak():
    """The control: one reference cycle per step, and every meter sees the graphs pile up."""
    steps = 100
    before, after, unreachable, _ = _train_without_gc(steps, leak=True)
    assert after["nodes"] - before["nodes"] >= 10 * steps  # ~14 nodes per step's graph
    assert after["array_bytes"] - before["array_bytes"] > steps * 32 * 64 * 4  # at least one saved activation each
    assert after["traced_bytes"] - before["traced_bytes"] > 2_000_000
    assert unreachable >= steps


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_evaluation_without_gc_keeps_memory_flat(mode):
    model, _, x, _ = _setup()
    context = al.no_grad if mode == "no_grad" else al.inference_mode
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        with context():
            for _ in range(20):
                model(x)
            before = _meters()
            for _ in range(500):
                model(x)
            after = _meters()
        unreachable = _collect_ours()
    finally:
        tracemalloc.stop()
        gc.enable()
    assert (after["tensors"], after["nodes"]) == (before["tensors"], before["nodes"])
    assert after["array_bytes"] - before["array_bytes"] <= 4096
    assert unreachable == 0
