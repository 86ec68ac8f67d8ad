"""Deep graphs: backward, walking and freeing are iterative, and graphs hold no reference cycles."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

import autograd_lab as al
from autograd_lab.autograd import prepare_backward


def _chain(n: int):
    x = al.tensor(1.0, dtype=al.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001 + 0.001
    return x, y


@pytest.mark.slow
def test_million_op_chain_backwards_without_recursion_error():
    n = 500_000  # two ops per step: a chain of 1,000,000 recorded operations
    x, y = _chain(n)
    assert sys.getrecursionlimit() < 10_000  # the default limit: no recursion could get this deep
    y.backward()
    # d/dx of y_{k+1} = 1.0001 * y_k + 0.001 is 1.0001 ** n
    assert x.grad.item() == pytest.approx(1.0001 ** n, rel=1e-9)
    del y  # tearing down a million-node graph must not recurse either


def test_engine_runs_each_node_of_a_chain_exactly_once():
    n = 2_000
    x, y = _chain(n)
    steps = list(prepare_backward(y))
    # each step of the chain records MulBackward0 and AddBackward0, plus x's AccumulateGrad
    assert len(steps) == 2 * n + 1
    assert len({id(step.node) for step in steps}) == len(steps)
    assert steps[0].node is y.grad_fn
    assert steps[-1].node.name() == "torch::autograd::AccumulateGrad"


def test_graph_is_freed_by_reference_counting_alone():
    """Saved outputs must not form cycles (node -> saved result -> tensor -> node)."""
    gc.disable()
    try:
        x = al.randn(5, dtype=al.float64, requires_grad=True)
        y = x.exp().sigmoid().tanh().sum()  # every one of these saves its own result
        node_refs = [weakref.ref(y.grad_fn)]
        node = y.grad_fn
        while node.next_functions and node.next_functions[0][0] is not None:
            node = node.next_functions[0][0]
            node_refs.append(weakref.ref(node))
        del node
        y.backward(retain_graph=True)
        del y
        assert all(ref() is None for ref in node_refs), "a node survived: the graph holds a reference cycle"
    finally:
        gc.enable()


def test_training_loop_leaves_no_garbage_for_the_cycle_collector():
    w = al.randn(4, 3, dtype=al.float64, requires_grad=True)
    data = al.randn(8, 4, dtype=al.float64)
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for _ in range(50):
            loss = (data @ w).tanh().pow(2).mean()
            loss.backward()
            with al.no_grad():
                w.data = w.data - 0.1 * w.grad  # plain update; in-place ops come with the in-place issue
            w.grad = None
        after = len(gc.get_objects())
        assert gc.collect() == 0, "the training loop created reference cycles"
        assert after - before < 50, f"objects tracked by the GC grew by {after - before} over 50 steps"
    finally:
        gc.enable()
