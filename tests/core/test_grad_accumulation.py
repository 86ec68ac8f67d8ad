"""A leaf's first gradient is its own buffer, as in PyTorch: ``.grad`` must not share memory with a tensor someone
else holds (the ``gradient`` passed to ``backward``, a hook's kept gradient, another leaf's ``.grad`` when one
tensor reached both, as ``x + y`` does). Before, it did, and an in-place change of one (``zero_``, the ``mul_`` of
``clip_grad_norm_``) silently changed the others."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _two_leaves_one_gradient(m):
    a = m.tensor([3.0, 4.0], requires_grad=True)
    b = m.tensor([1.0, 1.0], requires_grad=True)
    ((a + b) * m.tensor([2.0, 2.0])).sum().backward()  # AddBackward0 hands one gradient tensor to both leaves
    return a, b


@pytest.mark.parametrize("m", [al, torch])
def test_leaves_given_the_same_gradient_tensor_get_separate_grads(m):
    a, b = _two_leaves_one_gradient(m)
    a.grad.mul_(10)
    assert a.grad.tolist() == [20.0, 20.0]
    assert b.grad.tolist() == [2.0, 2.0]


def test_clip_grad_norm_scales_each_gradient_once_as_torch():
    results = []
    for m in (al, torch):
        a, b = _two_leaves_one_gradient(m)
        m.nn.utils.clip_grad_norm_([a, b], 1.0)
        results.append(a.grad.tolist() + b.grad.tolist())
    assert results[0] == pytest.approx(results[1])
    assert results[0] == pytest.approx([0.5] * 4)


# (torch's backward(create_graph=True) warns once per process: calling it here would take that warning from
# test_higher_order's check of it, so torch runs these programs without create_graph; what it gives with it, a copy
# recorded as CopyBackwards, was checked by hand)
@pytest.mark.parametrize("m, create_graph", [(al, False), (torch, False), (al, True)])
@pytest.mark.parametrize("program", ["leaf", "add", "clone"])
def test_the_gradient_passed_to_backward_is_not_the_grad(m, program, create_graph):
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    root = {"leaf": x, "add": x + 0, "clone": x.clone()}[program]  # (each passes the gradient through unchanged)
    gradient = m.ones(3)
    with pytest.warns(UserWarning, match="create_graph=True") if create_graph else _no_check():
        root.backward(gradient, create_graph=create_graph)
    gradient.add_(1)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    x.grad.zero_()
    assert gradient.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("m", [al, torch])
def test_a_gradient_kept_by_a_hook_is_not_the_grad(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    x.register_hook(kept.append)
    (x * 3).sum().backward()
    x.grad.zero_()
    assert kept[0].tolist() == [3.0, 3.0]


def test_grad_under_create_graph_is_a_recorded_copy_as_torch():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True"):
        x.exp().sum().backward(create_graph=True)
    first = type(x.grad.grad_fn).__name__
    with pytest.warns(UserWarning, match="create_graph=True"):
        x.exp().sum().backward(create_graph=True)
    assert (first, type(x.grad.grad_fn).__name__) == ("CopyBackwards", "AddBackward0")  # (torch's names)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    (once,) = torch.autograd.grad(t.exp().sum(), t, create_graph=True)
    assert x.grad.tolist() == pytest.approx((2 * once).tolist())


class _no_check:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_copy_backwards_prints_as_torchs_node():
    """Its name keeps PyTorch's C++ namespace; its repr is the class name, as PyTorch prints it."""
    nodes = []
    for m in (al, torch):
        x = m.ones(2, requires_grad=True)
        nodes.append(m.zeros(2).copy_(x * 2).grad_fn)
    assert nodes[0].name() == nodes[1].name() == "torch::autograd::CopyBackwards"
    assert repr(nodes[0]).split(" at ")[0] == repr(nodes[1]).split(" at ")[0] == "<CopyBackwards object"


# -- when nobody else holds the first gradient, it becomes .grad without a copy (PyTorch "steals" it) -----------
def _address(m, t):
    return t.data_ptr() if m is torch else t._data.__array_interface__["data"][0]


@pytest.mark.parametrize("m", [al, torch])
def test_a_gradient_nobody_else_holds_becomes_the_grad_without_a_copy(m):
    made = {}

    class Twice(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            out = g * 2
            made["address"] = _address(m, out)
            return out

    x = m.ones(3, requires_grad=True)
    Twice.apply(x).sum().backward()
    assert _address(m, x.grad) == made["address"]


def _shares(a, b) -> bool:
    return np.shares_memory(a._data, b._data)


def test_a_gradient_a_hook_kept_is_copied_when_two_paths_summed_it():
    x = al.ones(3, requires_grad=True)
    kept = []
    x.register_hook(kept.append)
    (x * 3 + x * 2).sum().backward()  # (the hook gets the sum the engine made: held by the hook's list too)
    assert not _shares(x.grad, kept[0])


@pytest.mark.parametrize("join", ["cat", "stack"])
def test_leaves_whose_gradients_are_parts_of_one_array_get_separate_memory(join):
    a, b = al.ones(2, requires_grad=True), al.ones(2, requires_grad=True)
    weights = al.tensor([1.0, 2.0, 3.0, 4.0]) if join == "cat" else al.tensor([[1.0, 2.0], [3.0, 4.0]])
    (getattr(al, join)([a, b]) * weights).sum().backward()  # (a's and b's gradients: two halves of one array)
    assert not _shares(a.grad, b.grad)
    a.grad.zero_()
    assert b.grad.tolist() == [3.0, 4.0]


def test_a_retained_gradient_and_a_leaf_gradient_are_separate():
    x = al.ones(3, requires_grad=True)
    y = x + 0  # (its gradient passes to x unchanged)
    y.retain_grad()
    (y * 2).sum().backward()
    assert not _shares(x.grad, y.grad)


def test_gradients_shown_by_the_stepper_are_not_the_grad():
    from autograd_lab.autograd.engine import backward_steps
    x = al.ones(3, requires_grad=True)
    steps = list(backward_steps([(x * 3).sum()], [al.ones(())]))
    x.grad.zero_()
    shown = [g for step in steps for g in step.grad_outputs + step.grad_inputs if g is not None]
    assert all(not _shares(x.grad, g) for g in shown) and steps[-1].grad_outputs[0].tolist() == [3.0] * 3


def test_backward_with_inputs_keeps_the_captured_gradient_apart():
    x = al.ones(3, requires_grad=True)
    (x * 3).sum().backward(inputs=[x])
    x.grad.zero_()
    (x * 3).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0] * 3
