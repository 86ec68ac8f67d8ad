"""The shortcuts taken for ``mlp_train`` (issue 7) change nothing a user can see, against PyTorch 2.13.

* ``nll_loss`` / ``cross_entropy``: without class weights and with no ignored target the op skips the
  weighting (every weight 1); its array backward writes each sample's gradient at its class into zeros.
  Values and gradients equal PyTorch's on random batches, weighted, ignored, and all-ignored ('mean'
  over a total weight of 0: PyTorch's NaN loss, and zero gradient for ignored samples); the node saves
  what PyTorch's does (``_saved_weight`` None without weights, ``_saved_self`` version-checked).
* ``addmm``/``linear`` add a bias of the product's shape and dtype into the fresh product: the bias is
  never written, and other shapes keep broadcasting out of place.
* SGD writes into the parameters after one combined check: expanded, read-only and inference parameters
  still raise as ``add_`` does; other layouts take the full checks and give PyTorch's values.
* ``Module.__call__`` without hooks calls ``forward`` directly, deciding on entry, as PyTorch does.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab.ops.nn import addmm

torch = pytest.importorskip("torch")
F = al.nn.functional
TF = torch.nn.functional


def _both(fn_ours, fn_torch, x, *, grad_seed=0):
    """Run a loss on both libraries from the same input; return (value, gradient) pairs as arrays."""
    xa = al.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 of an all-ignored 'mean'
        out_a, out_t = fn_ours(xa), fn_torch(xt)
        g = np.random.default_rng(grad_seed).standard_normal(tuple(out_t.shape)).astype(x.dtype)
        out_a.backward(al.tensor(g))
    out_t.backward(torch.tensor(g))
    return (out_a.detach().numpy(), out_t.detach().numpy()), (xa.grad.numpy(), xt.grad.numpy())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 6), c=st.integers(1, 5), dtype=st.sampled_from([np.float32, np.float64]),
       reduction=st.sampled_from(["mean", "sum", "none"]), weighted=st.booleans(),
       ignore=st.sampled_from(["none", "some", "all"]), spatial=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_nll_loss_matches_torch(n, c, dtype, reduction, weighted, ignore, spatial, seed):
    rng = np.random.default_rng(seed)
    shape = (n, c, 2, 3) if spatial else (n, c)
    x = rng.standard_normal(shape).astype(dtype)
    target = rng.integers(0, c, (n, 2, 3) if spatial else (n,))
    ignore_index = {"none": -100, "some": 0, "all": 0}[ignore]
    if ignore == "all":
        target[...] = 0
    weight = np.abs(rng.standard_normal(c)).astype(dtype) + 0.1 if weighted else None

    def ours(xa):
        w = None if weight is None else al.tensor(weight)
        return F.nll_loss(xa, al.tensor(target), weight=w, ignore_index=ignore_index, reduction=reduction)

    def theirs(xt):
        w = None if weight is None else torch.tensor(weight)
        return TF.nll_loss(xt, torch.tensor(target), weight=w, ignore_index=ignore_index, reduction=reduction)

    (va, vt), (ga, gt) = _both(ours, theirs, x, grad_seed=seed)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert va.dtype == vt.dtype and ga.dtype == gt.dtype
    np.testing.assert_allclose(va, vt, rtol=tol, atol=tol, equal_nan=True)
    np.testing.assert_allclose(ga, gt, rtol=tol, atol=tol)  # no NaN in any gradient (PyTorch has none here)
    ignored = target == ignore_index
    assert not np.any(np.moveaxis(ga, 1, -1)[ignored])  # ignored samples get exactly zero, as in PyTorch


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_of_a_one_dim_input_and_a_scalar_target_matches_torch(dtype, reduction):
    x = np.array([0.3, -1.2, 2.0], dtype=dtype)
    (va, vt), (ga, gt) = _both(lambda xa: F.cross_entropy(xa, al.tensor(2), reduction=reduction),
                               lambda xt: TF.cross_entropy(xt, torch.tensor(2), reduction=reduction), x)
    np.testing.assert_allclose(va, vt, rtol=1e-6)
    np.testing.assert_allclose(ga, gt, rtol=1e-6, atol=1e-7)


def test_nll_loss_node_saves_what_torch_saves():
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    lp_a = F.log_softmax(al.tensor(x, requires_grad=True), 1)
    lp_t = TF.log_softmax(torch.tensor(x, requires_grad=True), 1)
    node_a = F.nll_loss(lp_a, al.tensor([0, 2, 1, 0])).grad_fn
    node_t = TF.nll_loss(lp_t, torch.tensor([0, 2, 1, 0])).grad_fn
    assert node_a.name() == node_t.name() == "NllLossBackward0"
    assert node_a._saved_weight is None and node_t._saved_weight is None
    assert node_a._saved_self is lp_a  # the log-probabilities themselves (torch: equal values, its own log_softmax)
    np.testing.assert_allclose(node_a._saved_self.detach().numpy(), node_t._saved_self.detach().numpy(), rtol=1e-6)
    weighted = F.nll_loss(lp_a, al.tensor([0, 2, 1, 0]), weight=al.tensor([1.0, 2.0, 3.0])).grad_fn
    assert weighted._saved_weight is not None


def test_nll_loss_input_changed_in_place_fails_backward_as_in_torch():
    for lib, fn in ((al, F), (torch, TF)):
        x = lib.zeros(3, 4, requires_grad=True)
        log_probs = x * 1
        loss = fn.nll_loss(log_probs, lib.tensor([0, 1, 2]))
        log_probs.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


@pytest.mark.parametrize("bias_shape", [(5,), (3, 5), (1, 5), (3, 1), (), (1,)])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0)])
def test_addmm_adds_the_bias_without_writing_into_it(bias_shape, beta, alpha):
    rng = np.random.default_rng(2)
    bias, mat1, mat2 = (rng.standard_normal(s).astype(np.float32) for s in (bias_shape, (3, 4), (4, 5)))
    before = bias.copy()
    ours = [al.tensor(a, requires_grad=True) for a in (bias, mat1, mat2)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (bias, mat1, mat2)]
    out_a = addmm(*ours, beta=beta, alpha=alpha)
    out_t = torch.addmm(*theirs, beta=beta, alpha=alpha)
    np.testing.assert_allclose(out_a.detach().numpy(), out_t.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(ours[0].detach().numpy(), before)
    out_a.sum().backward()
    out_t.sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_linear_keeps_its_checks_and_its_graph():
    x, w, b = al.ones(2, 3), al.ones(4, 3, requires_grad=True), al.ones(4, requires_grad=True)
    out = F.linear(x, w, b)
    assert out.grad_fn.name() == "AddmmBackward0"
    edges = [type(n).__name__ if n else None for n, _ in out.grad_fn.next_functions]
    assert edges == ["AccumulateGrad", None, "TBackward0"]
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        F.linear(x, w, b.double())
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x4\)"):
        F.linear(x, al.ones(4, 4), b)
    np.testing.assert_array_equal(b.detach().numpy(), np.ones(4, np.float32))  # the bias stays as it was


def test_sgd_on_other_layouts_matches_torch_and_expanded_parameters_still_raise():
    w0 = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    params = []
    for lib in (al, torch):
        p = lib.nn.Parameter(lib.tensor(w0.T.copy()).t())  # column-major: the full checks, then the update
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        for step in range(3):
            p.grad = lib.tensor(np.full((3, 4), step + 1.0, dtype=np.float32))
            opt.step()
        params.append(p.detach().numpy())
    np.testing.assert_allclose(params[0], params[1], rtol=1e-6)
    for lib in (al, torch):
        p = lib.nn.Parameter(lib.zeros(1).expand(3))
        p.grad = lib.ones(3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
            lib.optim.SGD([p], lr=0.1).step()


def _hook_calls(lib) -> list:
    """What runs, in order: a module adding a forward hook inside its first forward, called twice, then a
    module whose pre-hook adds a forward hook, called once."""
    calls = []

    class AddsAHook(lib.nn.Module):
        def forward(self, x):
            if not calls:  # registered during the first call: runs from the second call on
                self.register_forward_hook(lambda module, args, out: calls.append("hook"))
            calls.append("forward")
            return x

    module = AddsAHook()
    module(lib.ones(1))
    module(lib.ones(1))
    identity = lib.nn.Identity()
    identity.register_forward_pre_hook(
        lambda module, args: calls.append("pre") or module.register_forward_hook(lambda *a: calls.append("late")))
    identity(lib.ones(1))  # with a pre-hook the hooks are read after it: the new forward hook runs
    return calls


def test_forward_hooks_are_decided_on_entry_as_in_torch():
    assert _hook_calls(al) == _hook_calls(torch) == ["forward", "forward", "hook", "pre", "late"]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_of_an_empty_batch_with_spatial_dims(reduction):
    """A 3-D input with batch 0 went through reshape(n, classes, 1, -1), which an empty batch leaves
    undetermined; PyTorch gives nan ('mean'), 0 ('sum', +0 not -0) or an empty tensor, and zero gradients."""
    torch = pytest.importorskip("torch")
    x, tx = al.zeros(0, 3, 4, requires_grad=True), torch.zeros(0, 3, 4, requires_grad=True)
    ours = al.nn.functional.nll_loss(x, al.zeros(0, 4, dtype=al.int64), reduction=reduction)
    theirs = torch.nn.functional.nll_loss(tx, torch.zeros(0, 4, dtype=torch.int64), reduction=reduction)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    if reduction == "sum":  # (a nan's sign means nothing)
        assert not np.signbit(ours.detach().numpy()) and not np.signbit(theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    assert tuple(x.grad.shape) == tuple(tx.grad.shape)


@pytest.mark.parametrize("batch_grad", [True, False])
def test_linear_weight_grad_has_the_weight_layout(batch_grad):
    """The weight's gradient is computed in the weight's own layout (PyTorch's ``mm_mat2_backward``, from the
    saved strides of ``weight.t()``): ``.grad`` is row-major without a copy into the leaf's layout."""
    layer = al.nn.Linear(5, 3)
    x = al.randn(4, 5, requires_grad=batch_grad)
    layer(x).sum().backward()
    assert layer.weight.grad.is_contiguous() and layer.weight.grad.stride() == layer.weight.stride()
    expected = np.ones((4, 3)).T @ x.detach().numpy()
    np.testing.assert_allclose(layer.weight.grad.numpy(), expected, rtol=1e-5)
    node = layer(x).grad_fn
    assert node._saved_mat2_sym_strides == (1, 5) and (node._saved_mat2 is None) == (not batch_grad)
