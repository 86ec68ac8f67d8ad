"""Hooks: tensor hooks, ``retain_grad``, post-accumulate-grad hooks, node pre-hooks and hooks, and the
order they fire in, compared with PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al


def _close(t, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(t.detach().numpy(), dtype=np.float64), expected, rtol=rtol)


# -- tensor hooks ----------------------------------------------------------------------------------
def test_tensor_hook_sees_the_gradient():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0]]
    _close(x.grad, [18.0, 36.0])


def test_tensor_hook_replaces_the_gradient():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 0 + 1)
    (y * y).sum().backward()
    _close(x.grad, [3.0, 3.0])


def test_tensor_hooks_chain_in_registration_order():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    _close(x.grad, [20.0])


def test_tensor_hook_returning_none_keeps_gradient():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: None)
    y.sum().backward()
    _close(x.grad, [2.0])


def test_hook_handle_remove():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    calls = []
    handle = y.register_hook(lambda g: calls.append(1))
    y.sum().backward(retain_graph=True)
    handle.remove()
    handle.remove()  # removing twice is harmless
    y.sum().backward()
    assert calls == [1]


def test_hook_handle_as_context_manager():
    x = al.tensor([1.0], requires_grad=True)
    calls = []
    with x.register_hook(lambda g: calls.append(1)):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert calls == [1]


def test_hook_on_leaf_changes_what_is_accumulated():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 100)
    (x * 2).sum().backward()
    _close(x.grad, [200.0, 200.0])


def test_leaf_hook_runs_once_with_summed_gradient():
    x = al.tensor([1.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.item()))
    (x * 2 + x * 3).sum().backward()
    assert seen == [5.0]


def test_hook_needs_requires_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        al.tensor([1.0]).register_hook(lambda g: g)


def test_hook_must_be_callable():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="callable"):
        x.register_hook(3)


def test_hook_on_one_output_of_a_multi_output_op():
    x = al.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a, b = x.split(2)
    a.register_hook(lambda g: g * 10)
    (a.sum() + b.sum()).backward()
    _close(x.grad, [10.0, 10.0, 1.0, 1.0])


# -- retain_grad -----------------------------------------------------------------------------------
def test_retain_grad_keeps_grad_of_non_leaf():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward()
    _close(y.grad, [6.0, 12.0])


def test_retain_grad_accumulates_across_backwards():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    _close(y.grad, [2.0])


def test_retain_grad_on_leaf_is_a_no_op():
    x = al.tensor([1.0], requires_grad=True)
    x.retain_grad()
    assert not x.retains_grad
    (x * 2).sum().backward()
    _close(x.grad, [2.0])


def test_retain_grad_is_idempotent():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.retain_grad()
    y.sum().backward()
    _close(y.grad, [1.0])


def test_retain_grad_sees_grad_modified_by_other_hooks_registered_later():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g * 7)  # registered after retain_grad, still runs before it
    y.sum().backward()
    _close(y.grad, [7.0])
    _close(x.grad, [21.0])


def test_retained_grad_is_not_aliased_with_flowing_gradient():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.backward(al.tensor([1.0, 1.0]))
    y.grad._data[0] = 99.0
    _close(x.grad, [1.0, 1.0])


def test_retain_grad_with_retains_grad_flag():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad


def test_retain_grad_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        al.tensor([1.0]).retain_grad()


def test_retain_grad_matches_torch_with_modifying_hook():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, al):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g + 1)
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        (y * y).sum().backward()
        results.append((y.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


# -- post-accumulate-grad hooks --------------------------------------------------------------------
def test_post_accumulate_grad_hook_sees_updated_grad():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen == [(True, [2.0, 2.0]), (True, [4.0, 4.0])]


def test_post_accumulate_grad_hook_can_update_the_leaf():
    # The optimizer-in-backward pattern: step and zero the grad in the hook.
    x = al.tensor([1.0, 2.0], requires_grad=True)

    def sgd(t):
        with al.no_grad():
            t.data = t.detach() - t.grad * 0.5
        t.grad = None

    x.register_post_accumulate_grad_hook(sgd)
    (x * x).sum().backward()
    _close(x, [0.0, 0.0])
    assert x.grad is None


def test_post_accumulate_grad_hook_must_return_none_and_is_removable():
    """As in PyTorch, a post-accumulate-grad hook that returns something is an error (it cannot replace .grad)."""
    x = al.tensor([1.0], requires_grad=True)
    calls = []
    handle = x.register_post_accumulate_grad_hook(lambda t: calls.append(1) or al.tensor([123.0]))
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None"):
        (x * 2).sum().backward()
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    _close(x.grad, [2.0])
    assert calls == [1]


def test_post_accumulate_grad_hook_only_on_leaves():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


# -- node hooks ------------------------------------------------------------------------------------
def test_node_prehook_sees_and_replaces_grad_outputs():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []

    def prehook(grad_outputs):
        seen.append(len(grad_outputs))
        return (grad_outputs[0] * 2,)

    y.grad_fn.register_prehook(prehook)
    y.sum().backward()
    assert seen == [1]
    _close(x.grad, [6.0, 6.0])


def test_node_hook_sees_and_replaces_grad_inputs():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    w = al.tensor([5.0, 7.0])
    y = x * w
    seen = []

    def hook(grad_inputs, grad_outputs):
        seen.append((grad_inputs[0].tolist(), grad_inputs[1], grad_outputs[0].tolist()))
        return (grad_inputs[0] + 1, None)

    y.grad_fn.register_hook(hook)
    y.sum().backward()
    assert seen == [([5.0, 7.0], None, [1.0, 1.0])]
    _close(x.grad, [6.0, 8.0])


def test_node_hook_signature_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([5.0, 7.0])
        y = x * w
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append(([g is None for g in gi], len(go))))
        y.grad_fn.register_prehook(lambda go: seen.append(len(go)))
        y.sum().backward()
        return seen

    results = [run(torch), run(al)]
    assert results[0] == results[1]


def test_node_prehook_on_accumulate_grad():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda grads: (grads[0] * 5,))
    y.sum().backward()
    _close(x.grad, [10.0])


def test_node_hook_handle_remove():
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    calls = []
    h1 = y.grad_fn.register_prehook(lambda g: calls.append("pre"))
    h2 = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward(retain_graph=True)
    h1.remove()
    h2.remove()
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_node_hook_wrong_number_of_gradients_is_an_error():
    """PyTorch's words, naming the hook (MulBackward0 has two inputs: the gradient of 2 is None)."""
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0], gi[0]))
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has returned an incorrect number of values \(got 3, but "
                                           r"expected 2\)"):
        y.sum().backward()


# -- firing order compared with PyTorch ------------------------------------------------------------
def _fire_order(lib, modify: bool):
    """One graph with every kind of hook, each recording a label; returns labels in firing order and grads."""
    log = []

    def tensor_hook(label, factor):
        def hook(g):
            log.append(label)
            return g * factor if modify else None
        return hook

    def pre(label):
        return lambda grads: log.append(label)

    def post(label):
        return lambda grad_inputs, grad_outputs: log.append(label)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0], requires_grad=True)
    x.register_hook(tensor_hook("x.hook", 2.0))
    x.register_post_accumulate_grad_hook(lambda t: log.append("x.post_acc"))
    w.register_post_accumulate_grad_hook(lambda t: log.append("w.post_acc"))
    w.register_hook(tensor_hook("w.hook", 1.0))
    h = x * w
    h.register_hook(tensor_hook("h.hook1", 3.0))
    h.retain_grad()
    h.register_hook(tensor_hook("h.hook2", 1.0))
    h.grad_fn.register_prehook(pre("h.node.pre"))
    h.grad_fn.register_hook(post("h.node.post"))
    a = h.exp()
    b = h.sin()
    a.grad_fn.register_prehook(pre("a.node.pre"))
    a.grad_fn.register_hook(post("a.node.post"))
    b.register_hook(tensor_hook("b.hook", 1.0))
    b.grad_fn.register_prehook(pre("b.node.pre"))
    b.grad_fn.register_hook(post("b.node.post"))
    out = (a + b).sum()
    out.grad_fn.register_prehook(pre("out.node.pre"))
    out.grad_fn.register_hook(post("out.node.post"))
    acc_x = h.grad_fn.next_functions[0][0]
    acc_x.register_prehook(pre("acc_x.pre"))
    acc_x.register_hook(post("acc_x.post"))
    out.backward()
    return log, [x.grad.tolist(), w.grad.tolist(), h.grad.tolist()]


def test_every_hook_kind_fires():
    log, _ = _fire_order(al, modify=False)
    expected = {"x.hook", "x.post_acc", "w.post_acc", "w.hook", "h.hook1", "h.hook2", "h.node.pre", "h.node.post",
                "a.node.pre", "a.node.post", "b.hook", "b.node.pre", "b.node.post", "out.node.pre",
                "out.node.post", "acc_x.pre", "acc_x.post"}
    assert set(log) == expected
    assert len(log) == len(expected)
    assert log.index("h.hook1") < log.index("h.hook2") < log.index("h.node.pre") < log.index("h.node.post")
    assert log.index("x.hook") < log.index("acc_x.pre") < log.index("x.post_acc") < log.index("acc_x.post")


@pytest.mark.parametrize("modify", [False, True])
def test_hook_firing_order_matches_torch(modify):
    torch = pytest.importorskip("torch")
    torch_log, torch_grads = _fire_order(torch, modify)
    al_log, al_grads = _fire_order(al, modify)
    assert al_log == torch_log
    for ours, theirs in zip(al_grads, torch_grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_hooks_fire_in_grad_too_but_not_post_accumulate():
    log = []
    x = al.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: log.append("y"))
    y.grad_fn.register_prehook(lambda g: log.append("pre"))
    x.register_post_accumulate_grad_hook(lambda t: log.append("post_acc"))
    al.autograd.grad(y.sum(), x)
    assert log == ["y", "pre"]


def test_hooks_in_grad_match_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        log = []
        x = lib.tensor([1.0], requires_grad=True)
        y = x * 2
        z = y.exp()
        y.register_hook(lambda g: log.append("y"))
        y.retain_grad()
        y.grad_fn.register_prehook(lambda g: log.append("y.pre"))
        z.grad_fn.register_prehook(lambda g: log.append("z.pre"))
        x.register_hook(lambda g: log.append("x"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post_acc"))
        lib.autograd.grad(z.sum(), y, retain_graph=True)
        log.append("|")
        lib.autograd.grad(z.sum(), x)
        return (log, y.grad.tolist(), x.grad)  # retain_grad is a tensor hook: it fires in grad() too

    logs = [run(torch), run(al)]
    assert logs[0][0] == logs[1][0]
    np.testing.assert_allclose(logs[1][1], logs[0][1], rtol=1e-6)
    assert logs[0][2] is None and logs[1][2] is None
