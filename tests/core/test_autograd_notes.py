"""The examples of PyTorch's "Autograd mechanics" note, run with ``al`` in place of ``torch``.

Each test follows one paragraph of the note: how ``requires_grad`` propagates, which tensors are
leaves, where ``.grad`` is filled, freezing part of a model, what a node saves, and the structure of
the graph (``next_functions``, ``AccumulateGrad.variable``, ``name()``, ``metadata``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd.graph import AccumulateGrad, Node
from autograd_lab.autograd.saved import SavedTensor


# -- requires_grad propagation ------------------------------------------------------------------
def test_output_requires_grad_when_any_input_does():
    x = al.randn(5, 5)
    y = al.randn(5, 5)
    z = al.randn(5, 5, requires_grad=True)
    a = x + y
    assert a.requires_grad is False
    assert a.grad_fn is None
    b = a + z
    assert b.requires_grad is True
    assert b.grad_fn is not None


def test_output_does_not_require_grad_when_no_input_does():
    x = al.randn(3)
    y = al.randn(3)
    out = (x * y).exp().sum()
    assert out.requires_grad is False
    assert out.is_leaf is True
    assert out.grad_fn is None


def test_is_leaf():
    a = al.rand(10, requires_grad=True)
    assert a.is_leaf
    b = a * 2
    assert not b.is_leaf
    c = al.rand(10, requires_grad=True) + 2
    assert not c.is_leaf
    d = al.rand(10)
    assert d.is_leaf and not d.requires_grad
    e = a.detach()
    assert e.is_leaf and not e.requires_grad
    f = al.rand(10).requires_grad_()
    assert f.is_leaf and f.requires_grad


# -- .grad on leaves only ------------------------------------------------------------------------
def test_grad_is_filled_only_on_leaves():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    z.backward()
    assert x.grad.tolist() == [18.0, 36.0]
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_no_warning_after_retain_grad():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [6.0, 12.0]


def test_no_warning_for_leaf_grad():
    x = al.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None


# -- freezing ------------------------------------------------------------------------------------
def test_frozen_parameters_create_no_nodes():
    w_frozen = al.randn(4, 3)  # requires_grad=False: a frozen layer
    w_train = al.randn(3, 2, requires_grad=True)
    x = al.randn(5, 4)
    hidden = x @ w_frozen
    assert hidden.grad_fn is None  # nothing recorded for the frozen part
    out = (hidden @ w_train).sum()
    # The matmul's edge towards the frozen part is (None, 0).
    mm = out.grad_fn.next_functions[0][0]
    assert mm.next_functions[0] == (None, 0)
    assert isinstance(mm.next_functions[1][0], AccumulateGrad)
    out.backward()
    assert w_frozen.grad is None
    assert w_train.grad.shape == (3, 2)


def test_freezing_with_requires_grad_false_on_leaf():
    w = al.randn(3, requires_grad=True)
    w.requires_grad_(False)
    x = al.randn(3, requires_grad=True)
    out = (w * x).sum()
    out.backward()
    assert w.grad is None
    np.testing.assert_allclose(x.grad.numpy(), w.numpy())


# -- saved tensors -------------------------------------------------------------------------------
def test_saved_self_is_the_input():
    x = al.randn(5, requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x


def test_saved_result_equals_output_but_is_another_object():
    x = al.randn(5, requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved.equal(y)
    assert saved is not y
    assert saved.grad_fn is y.grad_fn


def test_raw_saved_self_is_a_saved_tensor_record():
    x = al.randn(5, requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    assert isinstance(raw, SavedTensor)
    assert raw.saved_version == x._version == 0
    assert raw.is_output is False
    raw_result = x.exp().grad_fn._raw_saved_result
    assert isinstance(raw_result, SavedTensor) and raw_result.is_output


def test_unknown_saved_name_is_an_attribute_error():
    x = al.randn(5, requires_grad=True)
    with pytest.raises(AttributeError, match="_saved_nothing"):
        x.exp().grad_fn._saved_nothing  # noqa: B018


def test_saved_tensors_are_freed_after_backward():
    x = al.randn(5, requires_grad=True)
    y = x.pow(2)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn._saved_self  # noqa: B018


# -- graph structure -----------------------------------------------------------------------------
def test_next_functions_structure():
    a = al.tensor([1.0, 2.0], requires_grad=True)
    b = al.tensor([3.0, 4.0])  # constant
    c = a * b
    nf = c.grad_fn.next_functions
    assert isinstance(nf, tuple) and len(nf) == 2
    (acc, idx), (none_node, none_idx) = nf
    assert isinstance(acc, AccumulateGrad) and idx == 0
    assert acc.variable is a
    assert (none_node, none_idx) == (None, 0)
    d = c.sum()
    assert d.grad_fn.next_functions == ((c.grad_fn, 0),)
    assert acc.next_functions == ()


def test_accumulate_grad_is_shared_by_uses_of_a_leaf():
    a = al.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = a + 1
    assert b.grad_fn.next_functions[0][0] is c.grad_fn.next_functions[0][0]


def test_output_nr_in_edges_of_multi_output_ops():
    a = al.randn(4, 3, requires_grad=True)
    first, second = a.split(2)
    assert first.grad_fn is second.grad_fn
    out = first.sum() + second.sum()
    left, right = (edge[0].next_functions[0] for edge in out.grad_fn.next_functions)
    assert left == (first.grad_fn, 0)
    assert right == (first.grad_fn, 1)


def test_names_match_pytorch():
    x = al.randn(3, requires_grad=True)
    assert (x * 2).grad_fn.name() == "MulBackward0"
    assert (x + x).grad_fn.name() == "AddBackward0"
    assert x.exp().grad_fn.name() == "ExpBackward0"
    assert x.pow(2).grad_fn.name() == "PowBackward0"
    assert x.sum().grad_fn.name() == "SumBackward0"
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"  # written in C++ in PyTorch: the name has the namespace,
    assert type(acc).__name__ == "AccumulateGrad" and repr(acc).startswith("<AccumulateGrad object at 0x")  # not the class
    assert isinstance(acc, Node)


def test_names_match_torch():
    torch = pytest.importorskip("torch")
    tx = torch.randn(3, 4, requires_grad=True)
    ax = al.randn(3, 4, requires_grad=True)
    for fn in (lambda t: t * 2, lambda t: t + t, lambda t: t.exp(), lambda t: t.pow(2), lambda t: t.sum(),
               lambda t: t.sum(0), lambda t: t.mean(), lambda t: t.t(), lambda t: t.reshape(12),
               lambda t: t.sin(), lambda t: t - 1, lambda t: t / 2, lambda t: -t):
        assert fn(ax).grad_fn.name() == fn(tx).grad_fn.name()


def test_metadata_is_a_dict_kept_on_the_node():
    x = al.randn(3, requires_grad=True)
    y = x * 2
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["tag"] = "scale"
    assert y.grad_fn.metadata == {"tag": "scale"}
    assert y.grad_fn.metadata is y.grad_fn.metadata


def test_graph_is_rebuilt_each_iteration_with_control_flow():
    x = al.tensor([2.0], requires_grad=True)
    names = []
    for i in range(4):
        y = x * 3 if i % 2 == 0 else x.exp()
        names.append(y.grad_fn.name())
        y.sum().backward()
    assert names == ["MulBackward0", "ExpBackward0", "MulBackward0", "ExpBackward0"]
    expected = 3 + np.exp(np.float32(2.0)) + 3 + np.exp(np.float32(2.0))
    np.testing.assert_allclose(x.grad.item(), expected, rtol=1e-6)


def test_grad_fn_of_a_fresh_graph_is_a_new_node():
    x = al.tensor([2.0], requires_grad=True)
    assert (x * 3).grad_fn is not (x * 3).grad_fn
