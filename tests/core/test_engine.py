"""The backward engine: accumulation, retain_graph, create_graph, ``autograd.grad``, ``inputs=``,
seeds, graph shapes (diamonds, several roots), the step generator, and PyTorch's execution order."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab.autograd.graph import AccumulateGrad


def _close(t, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(t.detach().numpy(), dtype=np.float64), expected, rtol=rtol)


# -- accumulation --------------------------------------------------------------------------------
def test_grad_accumulates_across_backward_calls():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    for n in range(1, 4):
        (x * x).sum().backward()
        _close(x.grad, [2.0 * n, 4.0 * n])


def test_reference_to_grad_sees_later_accumulation():
    # PyTorch accumulates in place (grad mode is off during backward): a reference held to .grad is
    # the same tensor afterwards, holding the sum.
    x = al.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    (x * 2).sum().backward()
    assert g is x.grad
    _close(g, [4.0, 4.0, 4.0])
    (x * 2).sum().backward()
    assert g is x.grad
    _close(g, [6.0, 6.0, 6.0])


def test_reference_to_grad_matches_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, al):
        x = lib.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        (x * 2).sum().backward()
        results.append((g is x.grad, g.tolist()))
    assert results[0] == results[1]


def test_first_accumulation_does_not_alias_the_seed():
    x = al.ones(3, requires_grad=True)
    seed = al.tensor([1.0, 2.0, 3.0])
    x.backward(seed)
    x.backward(seed)
    _close(x.grad, [2.0, 4.0, 6.0])
    _close(seed, [1.0, 2.0, 3.0])  # the caller's tensor is never updated in place


def test_assigned_grad_accumulates():
    x = al.ones(2, requires_grad=True)
    x.grad = al.tensor([10.0, 20.0])
    (x * 3).sum().backward()
    _close(x.grad, [13.0, 23.0])


def test_resetting_grad_restarts_accumulation():
    x = al.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    x.grad = al.zeros(2)
    (x * 3).sum().backward()
    _close(x.grad, [3.0, 3.0])
    x.grad = None
    (x * 5).sum().backward()
    _close(x.grad, [5.0, 5.0])


def test_grad_is_not_part_of_a_graph():
    x = al.ones(2, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.requires_grad is False
    assert x.grad.grad_fn is None


# -- retain_graph ----------------------------------------------------------------------------------
def test_second_backward_raises_after_saved_tensors_are_freed():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_graph_without_saved_tensors_can_backward_twice():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    _close(x.grad, [2.0, 2.0])


def test_graph_without_saved_tensors_matches_torch():
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (torch, al):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_retain_graph_allows_a_second_backward():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    _close(x.grad, [4.0, 8.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_grad_frees_saved_tensors_too():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    al.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        al.autograd.grad(y, x)


def test_shared_subgraph_freed_by_first_backward():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    h.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        (h * 2).sum().backward()


# -- create_graph: higher order --------------------------------------------------------------------
def test_second_derivative_of_cube():
    x = al.tensor([1.0, 2.0, -3.0], requires_grad=True)
    (dx,) = al.autograd.grad((x ** 3).sum(), x, create_graph=True)
    _close(dx, [3.0, 12.0, 27.0])
    assert dx.requires_grad
    (d2x,) = al.autograd.grad(dx.sum(), x, create_graph=True)
    _close(d2x, [6.0, 12.0, -18.0])
    (d3x,) = al.autograd.grad(d2x.sum(), x)
    _close(d3x, [6.0, 6.0, 6.0])


def test_second_derivative_of_sin_and_exp():
    x = al.tensor([0.3, 1.1], requires_grad=True, dtype=al.float64)
    (g,) = al.autograd.grad((x.sin() * x.exp()).sum(), x, create_graph=True)
    (h,) = al.autograd.grad(g.sum(), x)
    xv = np.array([0.3, 1.1])
    _close(h, 2 * np.cos(xv) * np.exp(xv), rtol=1e-10)


def test_backward_with_create_graph_builds_differentiable_grad():
    x = al.tensor([2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle"):
        (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    _close(x.grad, [12.0])
    g = x.grad
    x.grad = None
    g.sum().backward()
    _close(x.grad, [12.0])  # d/dx 3x^2 = 6x


def test_mixed_second_derivative():
    x = al.tensor([2.0], requires_grad=True)
    y = al.tensor([3.0], requires_grad=True)
    (dx,) = al.autograd.grad((x * x * y).sum(), x, create_graph=True)
    (dxy,) = al.autograd.grad(dx.sum(), y)
    _close(dxy, [4.0])


def test_without_create_graph_grad_is_constant():
    x = al.tensor([2.0], requires_grad=True)
    (dx,) = al.autograd.grad((x ** 3).sum(), x)
    assert not dx.requires_grad and dx.grad_fn is None


# -- autograd.grad ---------------------------------------------------------------------------------
def test_grad_returns_tuple_and_leaves_grad_alone():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = al.tensor([3.0, 4.0], requires_grad=True)
    out = (x * y).sum()
    gx, gy = al.autograd.grad(out, (x, y))
    _close(gx, [3.0, 4.0])
    _close(gy, [1.0, 2.0])
    assert x.grad is None and y.grad is None


def test_grad_with_grad_outputs_and_several_outputs():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x * x
    (g,) = al.autograd.grad([a, b], [x], grad_outputs=[al.tensor([1.0, 10.0]), al.tensor([1.0, 1.0])])
    _close(g, [2.0 + 2.0, 20.0 + 4.0])


def test_grad_outputs_none_entry_for_scalar_output():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    (g,) = al.autograd.grad([(x * 3).sum(), x * 1], x, grad_outputs=[None, al.ones(2)])
    _close(g, [4.0, 4.0])


def test_grad_allow_unused():
    x = al.tensor([1.0], requires_grad=True)
    unused = al.tensor([1.0], requires_grad=True)
    out = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        al.autograd.grad(out, [x, unused], retain_graph=True)
    gx, gu = al.autograd.grad(out, [x, unused], allow_unused=True, retain_graph=True)
    _close(gx, [2.0])
    assert gu is None
    gx, gu = al.autograd.grad(out, [x, unused], materialize_grads=True)
    _close(gu, [0.0])
    assert gu.shape == unused.shape


def test_grad_materialize_grads_with_allow_unused_false_is_an_error():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="allow_unused"):
        al.autograd.grad((x * 2).sum(), x, materialize_grads=True, allow_unused=False)


def test_grad_of_non_leaf_input():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = (h * h).sum()
    (gh,) = al.autograd.grad(out, h)
    _close(gh, [6.0, 12.0])
    assert x.grad is None


def test_grad_with_respect_to_the_output_itself():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    (g,) = al.autograd.grad(y, y, grad_outputs=al.tensor([5.0, 7.0]))
    _close(g, [5.0, 7.0])


def test_grad_does_not_run_post_accumulate_hooks():
    x = al.tensor([1.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t))
    al.autograd.grad((x * 2).sum(), x)
    assert calls == []
    assert x.grad is None


def test_grad_runs_leaf_tensor_hooks():
    x = al.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (g,) = al.autograd.grad((x * 2).sum(), x)
    _close(g, [20.0])


# -- backward(inputs=...) --------------------------------------------------------------------------
def test_backward_inputs_accumulates_only_into_those():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = al.tensor([3.0, 4.0], requires_grad=True)
    (x * y).sum().backward(inputs=[x])
    _close(x.grad, [3.0, 4.0])
    assert y.grad is None


def test_backward_inputs_non_leaf():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = (h * h).sum()
    out.backward(inputs=[h])
    _close(h.grad, [6.0, 12.0])
    assert x.grad is None
    assert h.retains_grad  # as in PyTorch: from now on h keeps its grad


def test_backward_inputs_non_leaf_already_retaining_grad_accumulates_once():
    x = al.tensor([1.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward(inputs=[h])
    _close(h.grad, [4.0])


def test_backward_inputs_retained_grad_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        h.register_hook(lambda g: log.append("first") or g * 2)
        (h * h).sum().backward(inputs=[h], retain_graph=True)
        h.register_hook(lambda g: log.append("second"))
        (h * h).sum().backward()  # no inputs: h still retains its grad
        return (log, h.retains_grad, h.grad.tolist(), x.grad.tolist())

    results = [run(torch), run(al)]
    assert results[0] == results[1]


def test_backward_inputs_non_leaf_matches_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, al):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        (h * h).sum().backward(inputs=[h], retain_graph=True)
        (h * h).sum().backward(inputs=[h, x])
        results.append((h.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_backward_inputs_single_tensor_and_accumulation():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = al.tensor([3.0, 4.0], requires_grad=True)
    out = (x * y).sum()
    out.backward(inputs=x, retain_graph=True)
    out.backward(inputs=(x, y))
    _close(x.grad, [6.0, 8.0])
    _close(y.grad, [1.0, 2.0])


def test_backward_inputs_does_not_run_unneeded_nodes():
    x = al.tensor([1.0], requires_grad=True)
    y = al.tensor([1.0], requires_grad=True)
    ran = []
    a = x * 2
    b = y * 3
    a.grad_fn.register_prehook(lambda g: ran.append("a"))
    b.grad_fn.register_prehook(lambda g: ran.append("b"))
    (a + b).sum().backward(inputs=[x])
    assert ran == ["a"]


def test_backward_inputs_empty_is_an_error():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).sum().backward(inputs=[])


# -- seeds -----------------------------------------------------------------------------------------
def test_non_scalar_backward_needs_gradient():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(gradient=al.tensor([1.0, 0.5]))
    _close(x.grad, [2.0, 1.0])


def test_one_element_non_scalar_backward_works_without_gradient():
    x = al.tensor([[3.0]], requires_grad=True)
    (x * x).backward()
    _close(x.grad, [[6.0]])


def test_gradient_shape_mismatch():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(gradient=al.ones(3))


def test_gradient_shape_mismatch_matches_torch():
    torch = pytest.importorskip("torch")
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape") as texc:
        (tx * 2).backward(gradient=torch.ones(3))
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(type(texc.value), match="Mismatch in shape"):
        (x * 2).backward(gradient=al.ones(3))


def test_gradient_dtype_is_cast_to_output():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(gradient=al.tensor([1.0, 1.0], dtype=al.float64))
    assert x.grad.dtype == al.float32


def test_backward_of_a_leaf():
    x = al.tensor(3.0, requires_grad=True)
    x.backward()
    _close(x.grad, 1.0)


# -- graph shapes ----------------------------------------------------------------------------------
def test_diamond_node_runs_once_with_summed_gradient():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    seen = []
    h.grad_fn.register_prehook(lambda grads: seen.append(grads[0].tolist()))
    out = (h.exp() + h * 3).sum()
    out.backward()
    assert len(seen) == 1
    _close(al.tensor(seen[0]), np.exp(np.array([2.0, 4.0])) + 3, rtol=1e-5)
    _close(x.grad, 2 * (np.exp(np.array([2.0, 4.0])) + 3), rtol=1e-5)


def test_leaf_used_twice_accumulates_once_per_backward():
    x = al.tensor([2.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.item()))
    (x * x + x).sum().backward()
    assert calls == [5.0]


def test_multiple_roots():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    a = (x * 2).sum()
    b = (x * x).sum()
    al.autograd.backward([a, b])
    _close(x.grad, [4.0, 6.0])


def test_multiple_roots_sharing_a_subgraph_with_gradients():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    a = h * 2
    b = h.sum()
    al.autograd.backward([a, b], [al.tensor([1.0, 0.0]), None])
    _close(x.grad, np.exp([1.0, 2.0]) * np.array([3.0, 1.0]), rtol=1e-5)


def test_same_root_twice():
    x = al.tensor([1.0], requires_grad=True)
    y = (x * 3).sum()
    al.autograd.backward([y, y], [al.tensor(1.0), al.tensor(2.0)])
    _close(x.grad, [9.0])


def test_root_that_does_not_require_grad_among_others():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="element 1 of tensors does not require grad"):
        al.autograd.backward([(x * 2).sum(), al.tensor(1.0)])


def test_broadcast_gradient_is_summed_to_input_shape():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = al.tensor(2.0, requires_grad=True)
    (x * b).sum().backward()
    assert b.grad.shape == ()
    _close(b.grad, 6.0)


# -- the step generator ----------------------------------------------------------------------------
def test_backward_steps_expose_each_node():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    out = y.sum()
    steps = list(al.autograd.prepare_backward(out, trace=True))
    assert [s.node.name() for s in steps] == ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    assert [s.index for s in steps] == [0, 1, 2]
    assert steps[0].node is out.grad_fn
    _close(steps[0].grad_outputs[0], 1.0)
    _close(steps[0].grad_inputs[0], [1.0, 1.0])
    assert len(steps[1].grad_inputs) == 2
    assert sorted(steps[1].freed) == ["other", "self"]
    leaf, before, after = steps[2].accumulated
    assert leaf is x and before is None
    _close(after, [2.0, 4.0])
    assert steps[2].node.variable is x
    assert all(s.executed for s in steps)


def test_trace_records_grad_before_accumulation():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    steps = list(al.autograd.prepare_backward((x * 2).sum(), trace=True))
    _, before, after = steps[-1].accumulated
    _close(before, [3.0, 3.0])
    _close(after, [5.0, 5.0])
    _close(x.grad, [5.0, 5.0])


def test_steps_record_hooks_fired():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2

    def tensor_hook(g):
        return None

    def prehook(grads):
        return None

    def posthook(grad_inputs, grad_outputs):
        return None

    def post_acc(t):
        return None

    y.register_hook(tensor_hook)
    y.grad_fn.register_prehook(prehook)
    y.grad_fn.register_hook(posthook)
    x.register_post_accumulate_grad_hook(post_acc)
    steps = list(al.autograd.prepare_backward(y.sum()))
    fired = [h for s in steps for h in s.hooks_fired]
    assert fired == [("tensor", tensor_hook), ("prehook", prehook), ("hook", posthook), ("post_accumulate", post_acc)]


def test_retain_graph_steps_free_nothing():
    x = al.tensor([1.0], requires_grad=True)
    steps = list(al.autograd.prepare_backward((x * x).sum(), retain_graph=True))
    assert all(not s.freed for s in steps)


def test_draining_steps_equals_backward():
    def build():
        x = al.tensor([0.5, -1.5, 2.0], requires_grad=True)
        w = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = (x * w).exp()
        return x, w, (h * h + h.sin() * x).sum()

    x1, w1, out1 = build()
    out1.backward()
    x2, w2, out2 = build()
    gen = al.autograd.backward_steps([out2], [al.ones_like(out2)])
    count = 0
    for _ in gen:
        count += 1
    assert count > 0
    assert x1.grad.equal(x2.grad)
    assert w1.grad.equal(w2.grad)


def test_steps_are_lazy():
    x = al.tensor([1.0], requires_grad=True)
    gen = al.autograd.prepare_backward((x * 2).sum())
    assert x.grad is None
    next(gen)
    assert x.grad is None
    for _ in gen:
        pass
    _close(x.grad, [2.0])


def test_prepare_backward_with_inputs_marks_captured_steps():
    x = al.tensor([1.0], requires_grad=True)
    h = x * 2
    gen = al.autograd.prepare_backward((h * h).sum(), inputs=[h])
    steps = list(gen)
    mul_step = [s for s in steps if s.node is h.grad_fn]
    # as in PyTorch, backward(inputs=) runs the input's own node too (its hooks fire), but nothing past it
    assert len(mul_step) == 1 and mul_step[0].captured == (0,) and mul_step[0].executed is True
    assert x.grad is None and not any(s.accumulated for s in steps)
    _close(h.grad, [4.0])  # d(h*h)/dh = 2h, h = 2


def test_backward_step_repr():
    x = al.tensor([1.0], requires_grad=True)
    step = next(al.autograd.prepare_backward((x * 2).sum()))
    assert repr(step) == "<BackwardStep 0: SumBackward0>"


# -- execution order compared with PyTorch ---------------------------------------------------------
def _record_order(lib, build):
    """Build the graph with ``lib``, put a pre-hook on every node (labelled by discovery path), run backward,
    return the order in which nodes ran."""
    leaves, out = build(lib)
    order = []
    labels = {}
    stack = [(out.grad_fn, "r")]
    while stack:
        node, label = stack.pop()
        if node is None or node in labels:
            continue
        labels[node] = label
        node.register_prehook(lambda grads, label=label: order.append(label))
        for i, (child, _) in enumerate(node.next_functions):
            stack.append((child, f"{label}.{i}"))
    out.backward()
    return order, [leaf.grad.tolist() for leaf in leaves]


def _chain(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return [x], (x * 2).exp().sin().sum()


def _diamond(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.exp()
    b = h.sin()
    return [x], (a * b).sum()


def _two_branches_two_leaves(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([0.5, 0.25], requires_grad=True)
    a = (x * 3).exp()
    b = (y * y).sin()
    c = (x + y).cos()
    return [x, y], (a + b + c).sum()


def _late_created_branch(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    first = x.exp()
    second = x.sin()
    third = first * 2
    return [x], (second + third + first).sum()


@pytest.mark.parametrize("build", [_chain, _diamond, _two_branches_two_leaves, _late_created_branch])
def test_execution_order_matches_torch(build):
    torch = pytest.importorskip("torch")
    torch_order, torch_grads = _record_order(torch, build)
    al_order, al_grads = _record_order(al, build)
    assert al_order == torch_order
    np.testing.assert_allclose(al_grads, torch_grads, rtol=1e-5)


def test_accumulate_grad_runs_as_soon_as_ready():
    x = al.tensor([1.0], requires_grad=True)
    y = al.tensor([1.0], requires_grad=True)
    a = x * 2  # created first: lower sequence number
    b = (y * 3).exp().sin()
    order = []
    for node in (a.grad_fn, b.grad_fn):
        node.register_prehook(lambda g, n=node: order.append(n.name()))
    acc_x = a.grad_fn.next_functions[0][0]
    assert isinstance(acc_x, AccumulateGrad)
    acc_x.register_prehook(lambda g: order.append("acc_x"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (a + b).sum().backward()
    # b's chain has higher sequence numbers and runs first; x's accumulation right after a.
    assert order == ["SinBackward0", "MulBackward0", "acc_x"]


# -- the pass's grad mode, and the stepper's steps against backward() --------------------------------
def test_grad_mode_during_and_after_the_pass():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    modes = []
    y = x * 2
    y.register_hook(lambda g: modes.append(al.is_grad_enabled()))
    y.sum().backward()
    assert modes == [False] and al.is_grad_enabled()
    z = (x * 3).tanh()
    steps = al.autograd.engine.backward_steps([z.sum()], [al.ones(())])
    with al.no_grad():
        next(steps)
        assert not al.is_grad_enabled()  # the caller's mode between steps, not the pass's
    next(steps)
    assert al.is_grad_enabled()
    list(steps)
    assert al.is_grad_enabled()


_OPS = [
    lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b * 0.5, lambda a, b: (a * b).tanh(),
    lambda a, b: a.exp() * 0.1 + b, lambda a, b: a.sum(0, keepdim=True) + b, lambda a, b: (a @ b.t()).sum(1) + a[:, 0],
    lambda a, b: a.sigmoid() / (b * b + 1), lambda a, b: a.relu() + b.clamp(-0.5, 0.5),
]


def _random_graph(ops, seed):
    rng = np.random.default_rng(seed)
    leaves = [al.tensor(rng.uniform(-1, 1, size=(3, 3)), requires_grad=True) for _ in range(3)]
    values = list(leaves)
    for op_index, left, right in ops:
        values.append(_OPS[op_index](values[left % len(values)], values[right % len(values)]))
        if values[-1].shape != (3, 3):  # (keep every value a 3 x 3 operand)
            values[-1] = values[-1].expand(3, 3) * 1.0
    return leaves, sum(v.sum() for v in values[len(leaves):])


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, len(_OPS) - 1), st.integers(0, 20), st.integers(0, 20)),
                    min_size=1, max_size=12), seed=st.integers(0, 1000))
def test_the_stepper_runs_the_pass_backward_runs(ops, seed):
    """Pulling the engine's steps one at a time (as the lab's stepper does) runs every node once, in PyTorch's
    order (the most recently created ready node first), and leaves the gradients ``backward()`` leaves."""
    leaves, out = _random_graph(ops, seed)
    out.backward()
    expected = [None if leaf.grad is None else leaf.grad.numpy().copy() for leaf in leaves]
    leaves, out = _random_graph(ops, seed)
    steps = list(al.autograd.prepare_backward(out))
    nodes = [step.node for step in steps]
    assert len(nodes) == len(set(nodes))
    for leaf, grad in zip(leaves, expected):
        assert (leaf.grad is None) == (grad is None)
        if grad is not None:
            np.testing.assert_array_equal(leaf.grad.numpy(), grad)
