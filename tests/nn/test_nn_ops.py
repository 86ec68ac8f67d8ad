"""The neural-network ops (``autograd_lab.ops.nn``, ``nn_conv``, ``nn_loss``): finite differences in float64
(``gradcheck`` and ``gradgradcheck``, with hypothesis-drawn shapes and conv/pool settings), PyTorch as the
oracle for values, gradients and node names, numerical stability, and the errors a learner can hit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

fast = settings(max_examples=15, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def leaf(array) -> al.Tensor:
    return al.tensor(np.array(array, dtype=np.float64), dtype=al.float64, requires_grad=True)


def twin(array):
    """The same float64 values as an autograd_lab leaf and a torch leaf."""
    return leaf(array), torch.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def check(fn, *inputs, second: bool = True) -> None:
    assert gradcheck(fn, inputs)
    if second:
        assert gradgradcheck(fn, inputs)


def distinct(rng, shape, gap=0.1):
    """Values at least ``gap`` apart: max pooling has no ties, so finite differences are well defined."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * gap - n * gap / 2).reshape(shape)


def compare(ours, theirs, our_inputs, their_inputs, seed=0, atol=1e-10):
    """Outputs, gradients for a random output gradient, and the node name agree with PyTorch."""
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=atol)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    g = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    got = al.autograd.grad(ours, our_inputs, al.tensor(g, dtype=al.float64))
    want = torch.autograd.grad(theirs, their_inputs, torch.tensor(g))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=atol)


# -- convolution -------------------------------------------------------------------------------
conv_settings = st.fixed_dictionaries(dict(
    groups=st.sampled_from([1, 2]), per_group_in=st.integers(1, 2), per_group_out=st.integers(1, 2),
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)), dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    size=st.tuples(st.integers(3, 6), st.integers(3, 6)), batch=st.integers(1, 2), bias=st.booleans(),
))


def _conv_case(case, seed):
    rng = np.random.default_rng(seed)
    g = case["groups"]
    kh, kw = case["kernel"]
    x = rng.standard_normal((case["batch"], g * case["per_group_in"]) + case["size"])
    w = rng.standard_normal((g * case["per_group_out"], case["per_group_in"], kh, kw))
    b = rng.standard_normal(g * case["per_group_out"]) if case["bias"] else None
    fits = all(case["size"][i] + 2 * case["padding"][i] >= case["dilation"][i] * (case["kernel"][i] - 1) + 1
               for i in range(2))
    return x, w, b, fits


@fast
@given(conv_settings, seeds)
def test_conv2d_gradcheck_on_drawn_settings(case, seed):
    x, w, b, fits = _conv_case(case, seed)
    if not fits:
        with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
            F.conv2d(leaf(x), leaf(w), None, case["stride"], case["padding"], case["dilation"], case["groups"])
        return
    inputs = (leaf(x), leaf(w)) + ((leaf(b),) if b is not None else ())

    def fn(x, w, b=None):
        return F.conv2d(x, w, b, case["stride"], case["padding"], case["dilation"], case["groups"])
    check(fn, *inputs)


@fast
@given(conv_settings, seeds)
def test_conv2d_matches_torch_on_drawn_settings(case, seed):
    x, w, b, fits = _conv_case(case, seed)
    if not fits:
        return
    (xa, xt), (wa, wt) = twin(x), twin(w)
    ba, bt = twin(b) if b is not None else (None, None)
    geometry = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ours, theirs = F.conv2d(xa, wa, ba, *geometry), TF.conv2d(xt, wt, bt, *geometry)
    our_inputs = (xa, wa) + ((ba,) if ba is not None else ())
    their_inputs = (xt, wt) + ((bt,) if bt is not None else ())
    compare(ours, theirs, our_inputs, their_inputs, seed)
    assert ours.grad_fn.next_functions[2] == (None, 0) if b is None else True  # no bias: an empty edge, as PyTorch


@pytest.mark.parametrize("kernel,dilation", [((3, 3), 1), ((2, 4), 1), ((3, 2), 2)])
def test_conv2d_padding_same_and_valid_match_torch(kernel, dilation):
    rng = np.random.default_rng(0)
    (xa, xt), (wa, wt) = twin(rng.standard_normal((2, 3, 6, 7))), twin(rng.standard_normal((4, 3) + kernel))
    for padding in ("same", "valid"):
        with warnings.catch_warnings():  # torch warns that even kernels need a padded copy
            warnings.simplefilter("ignore")
            theirs = TF.conv2d(xt, wt, padding=padding, dilation=dilation)
        ours = F.conv2d(xa, wa, padding=padding, dilation=dilation)
        compare(ours, theirs, (xa, wa), (xt, wt))
    assert F.conv2d(xa, wa, padding="same", dilation=dilation).shape == xa.shape[:1] + (4,) + xa.shape[2:]


def test_conv2d_unbatched_input():
    rng = np.random.default_rng(1)
    (xa, xt), (wa, wt) = twin(rng.standard_normal((2, 5, 5))), twin(rng.standard_normal((3, 2, 3, 3)))
    compare(F.conv2d(xa, wa, padding=1), TF.conv2d(xt, wt, padding=1), (xa, wa), (xt, wt))


def test_conv2d_double_backward_nodes_are_named_as_in_pytorch():
    rng = np.random.default_rng(2)
    (xa, xt), (wa, wt) = twin(rng.standard_normal((1, 2, 5, 5))), twin(rng.standard_normal((3, 2, 3, 3)))
    ours = al.autograd.grad(F.conv2d(xa, wa).pow(2).sum(), (xa, wa), create_graph=True)
    theirs = torch.autograd.grad(TF.conv2d(xt, wt).pow(2).sum(), (xt, wt), create_graph=True)
    assert [g.grad_fn.name() for g in ours] == [g.grad_fn.name() for g in theirs] == ["ConvolutionBackwardBackward0"] * 2
    # a gradient penalty: the gradient of the gradient's norm agrees with PyTorch
    penalty_ours = sum((g * g).sum() for g in ours)
    penalty_theirs = sum((g * g).sum() for g in theirs)
    for a, b in zip(al.autograd.grad(penalty_ours, (xa, wa)), torch.autograd.grad(penalty_theirs, (xt, wt))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-9)


def test_conv2d_errors_name_the_shapes():
    x, w = al.randn(2, 5, 7, 7), al.randn(4, 3, 3, 3)
    with pytest.raises(RuntimeError, match=r"expected input\[2, 5, 7, 7\] to have 3 channels, but got 5 channels"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(al.randn(1, 3, 2, 2), w)
    with pytest.raises(RuntimeError, match=r"Input type \(al.float64\) and weight type \(al.float32\)"):
        F.conv2d(al.randn(1, 3, 5, 5, dtype=al.float64), w)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        F.conv2d(al.randn(1, 3, 5, 5), w, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Expected 3D .unbatched. or 4D .batched. input"):
        F.conv2d(al.randn(3, 5), w)


# -- pooling -----------------------------------------------------------------------------------
pool_settings = st.fixed_dictionaries(dict(
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    pad=st.tuples(st.integers(0, 1), st.integers(0, 1)), dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    size=st.tuples(st.integers(3, 6), st.integers(3, 6)), ceil_mode=st.booleans(),
))


def _pool_padding(case, dilation=(1, 1)):
    """Padding is at most half the effective kernel, as PyTorch requires."""
    return tuple(min(case["pad"][i], (dilation[i] * (case["kernel"][i] - 1) + 1) // 2) for i in range(2))


def _pool_fits(case, pad, dilation=(1, 1)) -> bool:
    """Whether every output dim has a window, by PyTorch's formula: with ``ceil_mode`` a last window may
    start inside the input and run past it, so a dilated kernel larger than the input can still fit."""
    for i in range(2):
        span = case["size"][i] + 2 * pad[i] - dilation[i] * (case["kernel"][i] - 1) - 1
        stride = case["stride"][i]
        out = (-(-span // stride) if case["ceil_mode"] else span // stride) + 1
        if case["ceil_mode"] and (out - 1) * stride >= case["size"][i] + pad[i]:
            out -= 1  # (the last window must start inside the input or its left padding)
        if out < 1:
            return False
    return True


@fast
@given(pool_settings, seeds)
def test_max_pool2d_gradcheck_and_torch_on_drawn_settings(case, seed):
    rng = np.random.default_rng(seed)
    x = distinct(rng, (2, 2) + case["size"])
    pad = _pool_padding(case, case["dilation"])
    args = (case["kernel"], case["stride"], pad, case["dilation"], case["ceil_mode"])
    if not _pool_fits(case, pad, case["dilation"]):
        with pytest.raises(RuntimeError, match="Output size is too small"):
            F.max_pool2d(leaf(x), *args)
        return
    check(lambda t: F.max_pool2d(t, *args), leaf(x))
    (xa, xt) = twin(x)
    ours, idx = F.max_pool2d(xa, *args, return_indices=True)
    theirs, tidx = TF.max_pool2d(xt, *args, return_indices=True)
    compare(ours, theirs, (xa,), (xt,), seed)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    assert idx.dtype is al.int64


@fast
@given(pool_settings, st.booleans(), st.sampled_from([None, 2]), seeds)
def test_avg_pool2d_gradcheck_and_torch_on_drawn_settings(case, count_include_pad, divisor, seed):
    x = np.random.default_rng(seed).standard_normal((2, 2) + case["size"])
    args = (case["kernel"], case["stride"], _pool_padding(case), case["ceil_mode"], count_include_pad, divisor)
    check(lambda t: F.avg_pool2d(t, *args), leaf(x))
    (xa, xt) = twin(x)
    compare(F.avg_pool2d(xa, *args), TF.avg_pool2d(xt, *args), (xa,), (xt,), seed)


@fast
@given(st.tuples(st.integers(1, 7), st.integers(1, 7)), st.tuples(st.integers(1, 4), st.integers(1, 4)), seeds)
def test_adaptive_avg_pool2d_gradcheck_and_torch_on_drawn_sizes(size, out, seed):
    x = np.random.default_rng(seed).standard_normal((2, 2) + size)
    check(lambda t: F.adaptive_avg_pool2d(t, out), leaf(x))
    (xa, xt) = twin(x)
    compare(F.adaptive_avg_pool2d(xa, out), TF.adaptive_avg_pool2d(xt, out), (xa,), (xt,), seed)


def test_pooling_double_backward_nodes_and_unbatched_input():
    x = leaf(distinct(np.random.default_rng(3), (1, 2, 4, 4)))
    for pool, name in ((lambda t: F.max_pool2d(t, 2), "MaxPool2DWithIndicesBackwardBackward0"),
                       (lambda t: F.avg_pool2d(t, 2), "AvgPool2DBackwardBackward0"),
                       (lambda t: F.adaptive_avg_pool2d(t, (3, 2)), "AdaptiveAvgPool2DBackwardBackward0")):
        (g,) = al.autograd.grad(pool(x).pow(2).sum(), (x,), create_graph=True)
        assert g.grad_fn.name() == name
        unbatched = pool(x[0])  # (C, H, W) images work too, as in PyTorch
        assert unbatched.ndim == 3 and unbatched.equal(pool(x)[0])
    assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"  # a global average, as in PyTorch


def test_pooling_errors():
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(al.randn(1, 1, 5, 5), 2, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.avg_pool2d(al.randn(1, 1, 2, 2), 3)


# -- activations -------------------------------------------------------------------------------
@fast
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2), seeds)
def test_softmax_and_log_softmax_gradcheck_and_torch(shape, dim_pick, seed):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    dim = dim_pick % len(shape) - len(shape) * (dim_pick % 2)  # negative dims too
    for ours_fn, theirs_fn in ((F.softmax, TF.softmax), (F.log_softmax, TF.log_softmax)):
        check(lambda t, fn=ours_fn: fn(t, dim), leaf(x))
        (xa, xt) = twin(x)
        compare(ours_fn(xa, dim), theirs_fn(xt, dim), (xa,), (xt,), seed)


def test_softmax_is_stable_for_large_logits():
    x = al.tensor([[1000.0, 0.0, -1000.0], [1e4, 1e4, 1e4]])
    p, logp = F.softmax(x, 1), F.log_softmax(x, 1)
    assert bool(al.isfinite(p).all()) and bool(al.isfinite(logp[:, :2]).all())
    np.testing.assert_allclose(p.numpy(), TF.softmax(torch.tensor(x.numpy()), 1).numpy())
    np.testing.assert_allclose(logp.numpy(), TF.log_softmax(torch.tensor(x.numpy()), 1).numpy())
    assert x.softmax(1).equal(p) and x.log_softmax(-1).equal(logp)


def test_softmax_without_dim_warns_as_pytorch():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = F.softmax(al.randn(2, 3))
    np.testing.assert_allclose(out.sum(1).numpy(), [1, 1], rtol=1e-6)
    with pytest.raises(RuntimeError, match="needs a floating tensor"):
        F.softmax(al.tensor([1, 2]), 0)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradcheck_and_torch(approximate):
    x = np.random.default_rng(4).standard_normal((3, 4)) * 2
    check(lambda t: F.gelu(t, approximate), leaf(x))
    (xa, xt) = twin(x)
    compare(F.gelu(xa, approximate), TF.gelu(xt, approximate=approximate), (xa,), (xt,))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(xa, "fast")


def test_erf_gradcheck_and_values():
    x = np.linspace(-3, 3, 7)
    check(F.erf, leaf(x))
    np.testing.assert_allclose(F.erf(leaf(x)).detach().numpy(), torch.erf(torch.tensor(x)).numpy(), rtol=1e-14)


# -- linear, embedding, dropout, batch norm ----------------------------------------------------
@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_gradcheck_and_torch_nodes(shape, bias):
    rng = np.random.default_rng(5)
    (xa, xt), (wa, wt) = twin(rng.standard_normal(shape)), twin(rng.standard_normal((4, 5)))
    ba, bt = twin(rng.standard_normal(4)) if bias else (None, None)
    ours, theirs = F.linear(xa, wa, ba), TF.linear(xt, wt, bt)
    inputs = ((xa, wa, ba), (xt, wt, bt)) if bias else ((xa, wa), (xt, wt))
    compare(ours, theirs, *inputs)
    check(lambda *t: F.linear(*t), *inputs[0])


def test_linear_shape_and_dtype_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x2\)"):
        F.linear(al.randn(3, 4), al.randn(2, 5))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        F.linear(al.randn(3, 5, dtype=al.float64), al.randn(2, 5), al.randn(2))


def test_embedding_gradcheck_and_torch_with_padding_and_frequency_scaling():
    rng = np.random.default_rng(6)
    idx = np.array([[0, 3, 3], [1, 0, 2]])
    check(lambda w: F.embedding(al.tensor(idx), w), leaf(rng.standard_normal((4, 3))))
    for kw in (dict(), dict(padding_idx=0), dict(scale_grad_by_freq=True), dict(padding_idx=-1, scale_grad_by_freq=True)):
        (wa, wt) = twin(rng.standard_normal((4, 3)))
        compare(F.embedding(al.tensor(idx), wa, **kw), TF.embedding(torch.tensor(idx), wt, **kw), (wa,), (wt,))
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(al.tensor([4]), al.randn(4, 3))
    with pytest.raises(RuntimeError, match="indices"):
        F.embedding(al.tensor([1.0]), al.randn(4, 3))


def test_dropout_masks_scales_and_is_reproducible():
    x = al.ones(200, 50, requires_grad=True)
    al.manual_seed(0)
    out = F.dropout(x, 0.3, training=True)
    assert out.grad_fn.name() == "MulBackward0"  # as PyTorch records it
    np.testing.assert_allclose(np.unique(out.detach().numpy()), [0.0, 1 / 0.7], rtol=1e-6)
    assert abs((out.detach().numpy() == 0).mean() - 0.3) < 0.02
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.detach().numpy())  # the gradient goes through the same mask
    al.manual_seed(0)
    assert F.dropout(x, 0.3).equal(out)
    assert F.dropout(x, 0.3, training=False) is x and F.dropout(x, 0.0) is x
    assert float(F.dropout(x, 1.0).abs().sum()) == 0.0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)

    def seeded(t):
        al.manual_seed(7)
        return F.dropout(t, 0.4)
    check(seeded, leaf(np.random.default_rng(7).standard_normal((3, 4))))


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck_torch_and_running_stats(shape, training):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape) * 2 + 1
    mean0, var0 = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    (xa, xt), (wa, wt), (ba, bt) = twin(x), twin(rng.standard_normal(3)), twin(rng.standard_normal(3))
    rm, rv = al.tensor(mean0), al.tensor(var0)
    rmt, rvt = torch.tensor(mean0), torch.tensor(var0)
    compare(F.batch_norm(xa, rm, rv, wa, ba, training, 0.2), TF.batch_norm(xt, rmt, rvt, wt, bt, training, 0.2),
            (xa, wa, ba), (xt, wt, bt))
    np.testing.assert_allclose(rm.numpy(), rmt.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), rvt.numpy(), rtol=1e-12)
    stats = (al.tensor(mean0), al.tensor(var0)) if not training else (None, None)
    check(lambda *t: F.batch_norm(t[0], *stats, t[1], t[2], training), xa, wa, ba)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(al.randn(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(al.randn(2, 3), al.zeros(4), al.ones(4))


# -- losses ------------------------------------------------------------------------------------
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", ["plain", "weight", "ignore", "smoothing", "smoothing+weight", "4d", "3d", "1d"])
def test_cross_entropy_and_nll_loss_match_torch(case, reduction):
    rng = np.random.default_rng(9)
    shape = {"4d": (3, 4, 2, 2), "3d": (3, 4, 2), "1d": (4,)}.get(case, (5, 4))
    x = rng.standard_normal(shape)
    target = rng.integers(0, 4, shape[:1] + shape[2:] if len(shape) > 1 else ())
    if case == "ignore":
        target[0] = -100
    kw = {}
    if "weight" in case:
        kw["weight"] = rng.uniform(0.2, 2, 4)
    smoothing = 0.2 if "smoothing" in case else 0.0
    (xa, xt) = twin(x)
    ours_kw = {k: al.tensor(v) for k, v in kw.items()}
    theirs_kw = {k: torch.tensor(v) for k, v in kw.items()}
    compare(F.cross_entropy(xa, al.tensor(target), reduction=reduction, label_smoothing=smoothing, **ours_kw),
            TF.cross_entropy(xt, torch.tensor(target), reduction=reduction, label_smoothing=smoothing, **theirs_kw),
            (xa,), (xt,))
    compare(F.nll_loss(xa, al.tensor(target), reduction=reduction, **ours_kw),
            TF.nll_loss(xt, torch.tensor(target), reduction=reduction, **theirs_kw), (xa,), (xt,))
    check(lambda t: F.cross_entropy(t, al.tensor(target), reduction=reduction, label_smoothing=smoothing, **ours_kw),
          leaf(x))


def test_cross_entropy_with_probability_targets_matches_torch():
    rng = np.random.default_rng(10)
    x, p = rng.standard_normal((4, 3)), rng.dirichlet(np.ones(3), 4)
    for reduction in REDUCTIONS:
        (xa, xt), (pa, pt) = twin(x), twin(p)
        ours = F.cross_entropy(xa, pa, reduction=reduction, label_smoothing=0.1)
        theirs = TF.cross_entropy(xt, pt, reduction=reduction, label_smoothing=0.1)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
        g = rng.standard_normal(tuple(theirs.shape))
        for a, b in zip(al.autograd.grad(ours, (xa, pa), al.tensor(g)), torch.autograd.grad(theirs, (xt, pt),
                                                                                              torch.tensor(g))):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


def test_nll_loss_errors():
    x = al.randn(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.nll_loss(x, al.tensor([0, 1, 4]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.nll_loss(x, al.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="target.long()"):
        F.cross_entropy(x, al.tensor([0.0, 1.0, 2.0]).reshape(3))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.nll_loss(x, al.tensor([0, 1, 2]), reduction="avg")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_match_torch_and_gradcheck(reduction):
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    for ours_fn, theirs_fn in ((F.mse_loss, TF.mse_loss), (F.l1_loss, TF.l1_loss)):
        (xa, xt), (ya, yt) = twin(x), twin(y)
        compare(ours_fn(xa, ya, reduction=reduction), theirs_fn(xt, yt, reduction=reduction), (xa, ya), (xt, yt))
        check(lambda a, b, fn=ours_fn: fn(a, b, reduction=reduction), leaf(x), leaf(y))


def test_mse_loss_warns_when_shapes_broadcast():
    with pytest.warns(UserWarning, match="Using a target size .* that is different to the input size"):
        loss = F.mse_loss(al.randn(3, 1, requires_grad=True), al.randn(3))
    loss.backward()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_losses_match_torch_and_gradcheck(reduction, weighted):
    rng = np.random.default_rng(12)
    p, y, logits = rng.uniform(0.05, 0.95, (4, 3)), rng.uniform(0.1, 0.9, (4, 3)), rng.standard_normal((4, 3)) * 2
    w, pos = (rng.uniform(0.5, 2, 3), rng.uniform(0.5, 3, 3)) if weighted else (None, None)
    wa, wt = (al.tensor(w), torch.tensor(w)) if weighted else (None, None)
    pa_, pt_ = (al.tensor(pos), torch.tensor(pos)) if weighted else (None, None)
    (pa, pt), (ya, yt), (la, lt) = twin(p), twin(y), twin(logits)
    compare(F.binary_cross_entropy(pa, ya, wa, reduction), TF.binary_cross_entropy(pt, yt, wt, reduction=reduction),
            (pa, ya), (pt, yt))
    compare(F.binary_cross_entropy_with_logits(la, ya, wa, reduction, pa_),
            TF.binary_cross_entropy_with_logits(lt, yt, wt, reduction=reduction, pos_weight=pt_), (la, ya), (lt, yt))
    check(lambda a, b: F.binary_cross_entropy(a, b, wa, reduction), leaf(p), leaf(y))
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, wa, reduction, pa_), leaf(logits), leaf(y))


def test_binary_cross_entropy_stability_and_errors():
    logits = al.tensor([-200.0, 0.0, 200.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(logits, al.tensor([1.0, 0.0, 0.0]), reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [200.0, np.log(2), 200.0], rtol=1e-6)
    clamped = F.binary_cross_entropy(al.tensor([0.0, 1.0]), al.tensor([1.0, 0.0]), reduction="none")
    np.testing.assert_allclose(clamped.numpy(), [100.0, 100.0])  # logs clamped at -100, as PyTorch
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(al.tensor([1.5]), al.tensor([1.0]))
    for p, y, name in (([float("nan")], [0.5], "input"), ([0.5], [float("nan")], "target"), ([0.5], [1.5], "target")):
        with pytest.raises(RuntimeError, match=f"all elements of {name} should be between 0 and 1"):  # (as PyTorch:
            F.binary_cross_entropy(al.tensor(p), al.tensor(y))  # a NaN is not between them; fuzzer seed 3443)
    with pytest.raises(ValueError, match="that is different to the input size"):
        F.binary_cross_entropy(al.tensor([0.5, 0.5]), al.tensor([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(al.tensor([0.5, 0.5]), al.tensor([[1.0, 0.0]]))


def test_one_hot_matches_torch():
    idx = np.array([[0, 2], [1, 3]])
    np.testing.assert_array_equal(F.one_hot(al.tensor(idx)).numpy(), TF.one_hot(torch.tensor(idx)).numpy())
    assert tuple(F.one_hot(al.tensor(idx), 6).shape) == (2, 2, 6)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(al.tensor(idx), 3)
