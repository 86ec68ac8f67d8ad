"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook`` (and the deprecated
``register_backward_hook``), checked against PyTorch: what the hooks receive, what their results replace, the
order they run in, and PyTorch's warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _linear(lib, seed: int = 0):
    layer = lib.nn.Linear(3, 2, dtype=lib.float64)
    gen = np.random.default_rng(seed)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(gen.standard_normal((2, 3))))
        layer.bias.copy_(lib.tensor(gen.standard_normal(2)))
    return layer


def _x(lib):
    return lib.tensor(np.random.default_rng(5).standard_normal((4, 3)), requires_grad=True)


def _arrays(grads) -> list:
    return [None if g is None else g.detach().numpy().copy() for g in grads]


def _assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def _record_linear(lib, *, replace_input=None, replace_output=None):
    layer, x = _linear(lib), _x(lib)
    seen = []

    def pre_hook(module, grad_output):
        seen.append(("pre", _arrays(grad_output)))
        return None if replace_output is None else tuple(g * replace_output for g in grad_output)

    def hook(module, grad_input, grad_output):
        seen.append(("hook", _arrays(grad_input), _arrays(grad_output)))
        return None if replace_input is None else tuple(g * replace_input for g in grad_input)

    layer.register_full_backward_pre_hook(pre_hook)
    layer.register_full_backward_hook(hook)
    out = layer(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    (out * out).sum().backward()
    return seen, x.grad.numpy().copy(), layer.weight.grad.numpy().copy()


@pytest.mark.parametrize("replace", [{}, {"replace_input": 0.5}, {"replace_output": 3.0}])
def test_full_hooks_see_and_replace_the_modules_gradients_as_in_torch(replace):
    ours, theirs = _record_linear(al, **replace), _record_linear(torch, **replace)
    assert [entry[0] for entry in ours[0]] == [entry[0] for entry in theirs[0]] == ["pre", "hook"]
    for a, b in zip(ours[0], theirs[0]):
        for x, y in zip(a[1:], b[1:]):
            _assert_same(x, y)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def _several_inputs(lib):
    class Mix(lib.nn.Module):
        def forward(self, a, k, b):
            return a * k + b * b, 3

    seen = []
    mix = Mix()
    mix.register_full_backward_hook(lambda m, gi, go: seen.append((_arrays(gi), _arrays(go))))
    a, b = _x(lib), _x(lib) * 2
    out, _ = mix(a, 2.0, b.detach().requires_grad_())
    out.sum().backward()
    return seen


def test_grad_input_has_one_entry_per_positional_argument_none_for_non_tensors():
    ours, theirs = _several_inputs(al), _several_inputs(torch)
    assert len(ours) == 1
    _assert_same(ours[0][0], theirs[0][0])
    _assert_same(ours[0][1], theirs[0][1])


def test_hooks_of_nested_modules_fire_in_backward_order():
    order = []
    model = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 1))
    for name, module in model.named_children():
        module.register_full_backward_pre_hook(lambda m, go, name=name: order.append(("pre", name)))
        module.register_full_backward_hook(lambda m, gi, go, name=name: order.append(("hook", name)))
    model(al.randn(2, 3, requires_grad=True)).sum().backward()
    assert order == [("pre", "2"), ("hook", "2"), ("pre", "1"), ("hook", "1"), ("pre", "0"), ("hook", "0")]


def test_prepend_and_remove():
    order = []
    layer = al.nn.Linear(2, 2)
    first = layer.register_full_backward_hook(lambda *a: order.append("first"))
    layer.register_full_backward_hook(lambda *a: order.append("prepended"), prepend=True)
    layer(al.ones(1, 2, requires_grad=True)).sum().backward()
    first.remove()
    layer(al.ones(1, 2, requires_grad=True)).sum().backward()
    assert order == ["prepended", "first", "prepended"]


def _error(fn) -> str:
    try:
        fn()
    except RuntimeError as exc:
        return str(exc).split(" [autograd_lab]")[0]
    return "no error"


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_in_place_on_output_or_input_is_refused_as_in_torch(lib):
    L = al if lib == "al" else torch
    x = L.randn(2, 3, requires_grad=True)
    layer = L.nn.Linear(3, 3)
    layer.register_full_backward_hook(lambda *a: None)
    message = _error(lambda: layer(x).add_(1))
    assert message.startswith("Output 0 of BackwardHookFunction is a view and is being modified inplace. This view "
                              "was created inside a custom Function")
    relu = L.nn.ReLU(inplace=True)
    relu.register_full_backward_hook(lambda *a: None)
    assert _error(lambda: relu(x * 1)) == message


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_wrong_numbers_of_gradients_and_mixing_kinds_are_errors(lib):
    L = al if lib == "al" else torch
    x = L.randn(2, 3, requires_grad=True)
    layer = L.nn.Linear(3, 2)
    handle = layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    assert _error(lambda: layer(x).sum().backward()) == ("Backward hook returned an invalid number of grad_input, got "
                                                         "2, but expected 1")
    handle.remove()
    layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    assert _error(lambda: layer(x).sum().backward()) == ("Backward pre hook returned an invalid number of grad_output, "
                                                         "got 2, but expected 1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(lambda: layer.register_backward_hook(lambda *a: None)) == (
            "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of "
            "them.")


def _no_input_requires_grad(lib):
    layer = _linear(lib)
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((gi, _arrays(go))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer(lib.ones(4, 3, dtype=lib.float64)).sum().backward()
    returning = _linear(lib)
    returning.register_full_backward_hook(lambda m, gi, go: (lib.ones(4, 3),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        error = _error(lambda: returning(lib.ones(4, 3, dtype=lib.float64)).sum().backward())
    return seen[0][0], seen[0][1], [str(w.message) for w in caught], error


def test_with_no_input_requiring_grad_the_hook_fires_from_the_outputs_as_in_torch():
    ours, theirs = _no_input_requires_grad(al), _no_input_requires_grad(torch)
    assert ours[0] == theirs[0] == (None,)
    _assert_same(ours[1], theirs[1])
    assert ours[2] == theirs[2] and "Full backward hook is firing when gradients are computed" in ours[2][0]
    assert ours[3] == theirs[3] == ("Backward hook for Modules where no input requires gradient should always return "
                                    "None or None for all gradients.")


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_an_output_that_is_no_tensor_nor_tuple_warns(lib):
    L = al if lib == "al" else torch

    class AsDict(L.nn.Module):
        def forward(self, a):
            return {"y": a * 2}

    module = AsDict()
    module.register_full_backward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match="For backward hooks to be called, module output should be a Tensor or a tuple"):
        module(L.ones(2, requires_grad=True))


def test_under_no_grad_nothing_is_wrapped():
    layer = al.nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda *a: None)
    with al.no_grad():
        assert layer(al.ones(1, 2, requires_grad=True)).grad_fn is None


def _non_full(lib):
    layer, x = _linear(lib), _x(lib)
    seen = []
    layer.register_backward_hook(lambda m, gi, go: seen.append((_arrays(gi), _arrays(go))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer(x).sum().backward()
    return seen, [(w.category, str(w.message)) for w in caught]


def test_the_deprecated_non_full_hook_sees_the_output_nodes_gradients_as_in_torch():
    ours, theirs = _non_full(al), _non_full(torch)
    _assert_same(ours[0][0][0], theirs[0][0][0])  # addmm's gradients: bias, input, weight
    _assert_same(ours[0][0][1], theirs[0][0][1])
    assert ours[1] == theirs[1] and ours[1][0][0] is FutureWarning
