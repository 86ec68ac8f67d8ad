"""PyTorch's top-level in-place functions (``al.exp_(x)`` is ``x.exp_()``): every one PyTorch has whose method
autograd_lab has is there, as the method itself; and ``Tensor.prelu``/``Tensor.hardshrink``, as the functions."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch

import autograd_lab as al

torch = pytest.importorskip("torch")


def _torch_inplace_functions() -> set:
    """PyTorch's public top-level names ending in ``_`` that are also Tensor methods here."""
    return {name for name in dir(torch) if name.endswith("_") and not name.startswith("_") and hasattr(al.Tensor, name)}


def test_every_inplace_function_torch_has_is_here():
    assert sorted(name for name in _torch_inplace_functions() if not hasattr(al, name)) == []


def test_each_is_the_method_itself():
    for name in _torch_inplace_functions() - {"index_put_"}:  # (al.index_put_ predates these: a function calling it)
        assert getattr(al, name) is getattr(al.Tensor, name), name


_POSITIVE = np.random.default_rng(4).uniform(0.2, 0.9, (2, 3))


@pytest.mark.parametrize("name, args", [
    ("exp_", ()), ("relu_", ()), ("sigmoid_", ()), ("tanh_", ()), ("sqrt_", ()), ("log_", ()), ("zero_", ()),
    ("fill_", (2.5,)), ("clamp_min_", (0.5,)), ("clamp_max_", (0.5,)), ("clip_", (0.3, 0.6)), ("logit_", ()),
    ("xlogy_", (2.0,)), ("square_", ()), ("nan_to_num_", ()), ("acos_", ()),
])
def test_inplace_functions_match_torch(name, args):
    """The values, the node, the gradient, the version, and the tensor itself returned."""
    def run(m, a):
        x = a * 1
        assert getattr(m, name)(x, *args) is x and x._version == 1
        return x
    same_as_torch(torch, run, _POSITIVE)


def test_inplace_function_on_a_leaf_that_requires_grad_is_refused_as_by_the_method():
    x = al.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        al.exp_(x)


def test_prelu_and_hardshrink_methods_match_torch():
    values = np.linspace(-1.0, 1.0, 12).reshape(2, 3, 2)
    same_as_torch(torch, lambda m, a, w: a.prelu(w), values, [0.25, 0.5, 0.1])
    same_as_torch(torch, lambda m, a: a.hardshrink(), values)
    same_as_torch(torch, lambda m, a: a.hardshrink(lambd=0.3), values)
    assert al.Tensor.prelu is al.nn.functional.prelu and al.Tensor.hardshrink is al.nn.functional.hardshrink


@pytest.mark.parametrize("name, args", [("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.1, 2.0)),
                                        ("rrelu_", (0.1, 0.3)), ("dropout_", (0.5, False)),
                                        ("alpha_dropout_", (0.5, False)), ("feature_alpha_dropout_", (0.5, False))])
def test_nn_inplace_functions_match_torch(name, args):
    values = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)

    def run(m, a):
        x = a * 1
        assert getattr(m, name)(x, *args) is x
        return x
    same_as_torch(torch, run, values)


@pytest.mark.parametrize("name", ["dropout_", "alpha_dropout_", "feature_alpha_dropout_"])
def test_dropout_inplace_functions_in_training_record_as_torch(name):
    """Random masks differ; the node and the version do not."""
    for_each = []
    for m in (al, torch):
        x = m.ones(2, 3, 4, requires_grad=True) * 1
        getattr(m, name)(x, 0.5, True)
        for_each.append((x.grad_fn.name(), x._version))
    assert for_each[0] == for_each[1]
