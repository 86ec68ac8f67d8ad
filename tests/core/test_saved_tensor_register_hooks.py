"""``SavedTensor.register_hooks``: hooks on one saved tensor (``y.grad_fn._raw_saved_self``), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def recording_hooks(log, scale=1.0):
    """A pack hook that stores a NumPy copy (times ``scale``) and an unpack hook that rebuilds a tensor."""
    def pack(t):
        log.append(("pack", t.detach().tolist()))
        return np.array(t.detach().tolist()) * scale

    def unpack(values):
        log.append(("unpack", values.tolist()))
        return values

    return pack, unpack


def run(m, program, scale=1.0):
    log = []
    x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    y, raw = program(m, x)
    pack, unpack = recording_hooks(log, scale)
    raw.register_hooks(pack, lambda v: m.tensor(unpack(v)))
    y.sum().backward()
    return log, x.grad.tolist()


@pytest.mark.parametrize("program", [
    lambda m, x: (lambda y: (y, y.grad_fn._raw_saved_self))(x.pow(3)),
    lambda m, x: (lambda y: (y, y.grad_fn._raw_saved_result))(x.exp()),
    lambda m, x: (lambda y: (y, y.grad_fn._raw_saved_other))(x * m.ones(3, dtype=m.float64)),
], ids=["input", "output", "other-input"])
@pytest.mark.parametrize("scale", [1.0, 2.0], ids=["identity", "changed"])
def test_hooks_run_once_to_pack_and_at_each_read_and_decide_the_gradient(program, scale):
    ours, theirs = run(al, program, scale), run(torch, program, scale)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-13)


def test_the_record_reports_its_hooks_and_the_value_is_no_longer_held():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    raw = y.grad_fn._raw_saved_result
    assert not raw.has_hooks and raw.data is not None
    raw.register_hooks(lambda t: t.detach().clone(), lambda t: t)
    assert raw.has_hooks and raw.data is None  # the pack hook's result holds the value now
    assert al.allclose(y.grad_fn._saved_result, y)


@pytest.mark.parametrize("m", [al, torch], ids=["al", "torch"])
def test_second_registration_and_freed_tensors_are_refused(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="whose hooks have already been set. Hint: only one pair of hooks"):
        raw.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="register_hooks on a saved tensor after it has been freed"):
        raw.register_hooks(lambda t: t, lambda t: t)


@pytest.mark.parametrize("m", [al, torch], ids=["al", "torch"])
def test_hooks_saved_by_the_context_manager_cannot_be_replaced(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.pow(2)
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


@pytest.mark.parametrize("m", [al, torch], ids=["al", "torch"])
def test_hooks_must_be_callable_and_unpack_must_give_a_tensor(m):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    with pytest.raises(TypeError, match="register_hooks"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, 3)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: "oops")
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type str"):
        y.sum().backward()


def test_an_in_place_change_after_registration_is_caught_when_unpack_returns_the_saved_memory():
    """As with ``saved_tensors_hooks`` (tests/core/test_saved_tensors.py): PyTorch skips the version check
    once hooks are set and computes with the changed values; autograd_lab raises its usual error when
    the unpacked tensor is the saved memory itself, and accepts a copy made by the pack hook."""
    a = al.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = b.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)  # keeps the tensor itself
    b.mul_(3)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.sum().backward()
    for m in (al, torch):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        y = b.pow(2)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)  # a copy is unaffected
        b.mul_(3)
        y.sum().backward()
        assert a.grad.tolist() == [2.0, 4.0]


def test_double_backward_through_registered_hooks_matches_torch():
    results = []
    for m in (al, torch):
        x = m.tensor([0.5, 1.5], dtype=m.float64, requires_grad=True)
        y = x.pow(3)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach().clone(), lambda t: t)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        results.append((g.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("through", ["saved_tensors_hooks", "register_hooks"])
def test_an_unpack_hook_giving_another_shape_is_named(through):
    """PyTorch computes with what the hook returns (a broadcasting error inside the formula, or a gradient of
    the wrong values where the shapes broadcast); autograd_lab names the hook's result and the saved shape."""
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    if through == "saved_tensors_hooks":
        with al.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: al.ones(1)):
            y = x * x
    else:
        y = x * x
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: al.ones(1))
    with pytest.raises(RuntimeError, match=r"unpack_hook returned a tensor of shape \[1\] for 'self' of "
                                           r"MulBackward0, which saved a tensor of shape \[3\]"):
        y.sum().backward()


def _pack_in_place_programs():
    def through_context(m, hook):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(hook, lambda t: t):
            x.exp()

    def on_a_saved_output(m, hook):
        y = m.tensor([1.0, 2.0], requires_grad=True).exp()
        y.grad_fn._raw_saved_result.register_hooks(hook, lambda t: t)

    def on_a_saved_leaf(m, hook):
        y = m.tensor([1.0, 2.0], requires_grad=True).pow(2)
        y.grad_fn._raw_saved_self.register_hooks(hook, lambda t: t)
    return [through_context, on_a_saved_output, on_a_saved_leaf]


@pytest.mark.parametrize("program", _pack_in_place_programs(), ids=lambda p: p.__name__)
def test_a_pack_hook_that_changes_its_input_in_place_raises_as_torch(program):
    messages = []
    for m in (torch, al):
        with pytest.raises(RuntimeError) as info:
            program(m, lambda t: t.mul_(1))
        messages.append(str(info.value).split(" [autograd_lab]")[0])
    assert messages[0] == messages[1]
    assert messages[0].startswith("A saved tensor pack hook is modifying its input in place.")


def test_pack_hooks_run_without_recording_a_graph_as_torch():
    seen = []
    for m in (torch, al):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        packed = []

        def pack(t, m=m, packed=packed):
            packed.append(t * 2)  # (a graph recorded here would keep the forward graph alive)
            return t

        with m.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            (x * 2).sin()
        seen.append([p.requires_grad for p in packed])
    assert seen[0] == seen[1] == [False]
