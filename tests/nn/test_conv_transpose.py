"""Transposed convolutions (``F.conv_transpose1d/2d``, ``nn.ConvTranspose1d/2d``) against PyTorch: values, dtypes,
gradients, the node recorded and its saved values, gradients of gradients, finite differences in float64, the
modules' parameters, reprs and ``output_size``, the errors, and a small DCGAN generator built from the same weights.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _twins(*shapes, seed=0, dtype="float64"):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [al.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays]


def _compare(ours, theirs, our_inputs, their_inputs, rtol=1e-10, seed=1):
    """Same shape, dtype, values and node; the same gradients for a random output gradient."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    g = np.random.default_rng(seed).standard_normal(tuple(theirs.shape)).astype(theirs.detach().numpy().dtype)
    got = al.autograd.grad(ours, our_inputs, al.tensor(g))
    want = torch.autograd.grad(theirs, their_inputs, torch.tensor(g))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=rtol)


SETTINGS_2D = [
    ((2, 4, 5, 5), (4, 3, 3, 3), dict()),
    ((2, 4, 5, 5), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ((1, 2, 4, 3), (2, 5, 3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2))),
    ((2, 4, 3, 4), (4, 1, 2, 3), dict(dilation=(2, 1), output_padding=(1, 0), groups=4)),  # output_padding >= stride
    ((1, 2, 3, 3), (2, 3, 4, 4), dict(stride=2, padding=1)),  # the DCGAN step: 3 -> 6
]


@pytest.mark.parametrize("x_shape, w_shape, settings", SETTINGS_2D)
def test_conv_transpose2d_matches_torch(x_shape, w_shape, settings):
    groups = settings.get("groups", 1)
    (x, w, b), (xt, wt, bt) = _twins(x_shape, w_shape, (w_shape[1] * groups,))
    ours, theirs = F.conv_transpose2d(x, w, b, **settings), torch.nn.functional.conv_transpose2d(xt, wt, bt, **settings)
    node, their_node = ours.grad_fn, theirs.grad_fn
    assert node._saved_transposed is their_node._saved_transposed is True
    for name in ("stride", "dilation", "output_padding", "groups"):
        assert getattr(node, f"_saved_{name}") == getattr(their_node, f"_saved_{name}"), name
    assert node._saved_bias_sym_sizes_opt == tuple(their_node._saved_bias_sym_sizes_opt)
    assert node._saved_weight.equal(w) and node._saved_input.equal(x)
    _compare(ours, theirs, (x, w, b), (xt, wt, bt))


@pytest.mark.parametrize("settings", [dict(), dict(stride=3, padding=1, output_padding=2), dict(dilation=2, groups=2),
                                      dict(stride=2, output_padding=1, dilation=3)])
def test_conv_transpose1d_matches_torch_batched_and_not(settings):
    (x, w, b), (xt, wt, bt) = _twins((2, 4, 5), (4, 3, 3), (3 * settings.get("groups", 1),))
    _compare(F.conv_transpose1d(x, w, b, **settings), torch.nn.functional.conv_transpose1d(xt, wt, bt, **settings),
             (x, w, b), (xt, wt, bt))
    _compare(F.conv_transpose1d(x[0], w, None, **settings), torch.nn.functional.conv_transpose1d(xt[0], wt, None, **settings),
             (x, w), (xt, wt))


def test_conv_transpose2d_float32_and_unbatched():
    (x, w, b), (xt, wt, bt) = _twins((4, 5, 5), (4, 2, 3, 3), (2,), dtype="float32")
    _compare(F.conv_transpose2d(x, w, b, stride=2), torch.nn.functional.conv_transpose2d(xt, wt, bt, stride=2),
             (x, w, b), (xt, wt, bt), rtol=1e-5)


@pytest.mark.parametrize("fn, shapes", [
    (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
     [(1, 4, 3, 3), (4, 1, 3, 3), (2,)]),
    (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(1, 2), dilation=(2, 1), output_padding=(1, 0)),
     [(1, 2, 3, 2), (2, 2, 2, 2), (2,)]),
    (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, dilation=2, output_padding=1),
     [(2, 2, 4), (2, 3, 3), (3,)]),
])
def test_conv_transpose_gradcheck_gradgradcheck_and_forward_mode(fn, shapes):
    inputs, _ = _twins(*shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
    assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)
    assert gradgradcheck(fn, inputs, check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False)


def test_conv_transpose2d_double_backward_matches_torch():
    (x, w), (xt, wt) = _twins((2, 2, 3, 3), (2, 3, 3, 3))
    ours = al.autograd.grad(F.conv_transpose2d(x, w, stride=2).pow(2).sum(), (x, w), create_graph=True)
    theirs = torch.autograd.grad(torch.nn.functional.conv_transpose2d(xt, wt, stride=2).pow(2).sum(), (xt, wt),
                                 create_graph=True)
    assert [type(g.grad_fn).__name__ for g in ours] == [type(g.grad_fn).__name__ for g in theirs]
    second = al.autograd.grad(sum(g.pow(2).sum() for g in ours), (x, w))
    their_second = torch.autograd.grad(sum(g.pow(2).sum() for g in theirs), (xt, wt))
    for a, b in zip(second, their_second):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    rng = np.random.default_rng(3)
    x, y = al.tensor(rng.standard_normal((2, 4, 4, 5))), al.tensor(rng.standard_normal((2, 3, 8, 8)))
    w = al.tensor(rng.standard_normal((4, 3, 3, 2)))
    settings = dict(stride=2, padding=1, dilation=1)
    left = (F.conv_transpose2d(x, w, output_padding=(1, 0), **settings) * y).sum()
    right = (x * F.conv2d(y, w, **settings)[:, :, :4, :5]).sum()
    assert math.isclose(left.item(), right.item(), rel_tol=1e-10)


# -- the modules ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, args, shape", [
    ("ConvTranspose2d", (4, 6, 3), (2, 4, 5, 5)),
    ("ConvTranspose2d", (4, 6, (3, 2), 2, 1, 1, 2, False, 2), (2, 4, 5, 5)),
    ("ConvTranspose2d", (4, 2, 4, 2, 1), (4, 3, 3)),
    ("ConvTranspose1d", (4, 6, 3), (2, 4, 5)),
    ("ConvTranspose1d", (2, 4, 5, 3, 2, 1, 2), (2, 7)),
])
def test_conv_transpose_modules_match_torch(cls, args, shape):
    theirs = getattr(torch.nn, cls)(*args, dtype=torch.float64)
    ours = getattr(al.nn, cls)(*args, dtype=al.float64)
    assert repr(ours) == repr(theirs)
    assert {n: tuple(p.shape) for n, p in ours.named_parameters()} == \
        {n: tuple(p.shape) for n, p in theirs.named_parameters()}
    assert ours.transposed is theirs.transposed is True and ours.output_padding == theirs.output_padding
    with al.no_grad():
        for name, p in theirs.named_parameters():
            dict(ours.named_parameters())[name].copy_(al.tensor(p.detach().numpy()))
    (x,), (xt,) = _twins(shape)
    _compare(ours(x), theirs(xt), [x] + list(ours.parameters()), [xt] + list(theirs.parameters()))


def test_conv_transpose_initialisation_bound_reads_out_channels_per_group():
    layer = al.nn.ConvTranspose2d(3, 8, 3, groups=1)
    bound = 1 / math.sqrt(8 * 3 * 3)  # fan_in = weight.shape[1] * kernel: out_channels / groups for a transposed one
    assert float(layer.weight.abs().max()) <= bound and float(layer.bias.abs().max()) <= bound
    assert float(layer.weight.abs().max()) > bound / 2


@pytest.mark.parametrize("output_size", [[9, 9], [10, 10], [9, 10], [2, 6, 10, 9]])
def test_conv_transpose2d_output_size(output_size):
    theirs = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, dtype=torch.float64)
    ours = al.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, dtype=al.float64)
    with al.no_grad():
        ours.weight.copy_(al.tensor(theirs.weight.detach().numpy()))
        ours.bias.copy_(al.tensor(theirs.bias.detach().numpy()))
    (x,), (xt,) = _twins((2, 4, 5, 5))
    _compare(ours(x, output_size), theirs(xt, output_size), (x,), (xt,))


def test_conv_transpose1d_output_size_of_a_strided_conv1d_input():
    down, up = al.nn.Conv1d(2, 3, 3, stride=3), al.nn.ConvTranspose1d(3, 2, 3, stride=3)
    x = al.randn(1, 2, 17)
    assert up(down(x), output_size=x.shape).shape == x.shape
    assert up(down(x)).shape == (1, 2, 15)


def _same_error(call, error, phrase=None):
    """``call(lib)`` raises ``error`` for torch and autograd_lab, ours containing torch's first line (or ``phrase``)."""
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(al)
    phrase = phrase or str(theirs.value).splitlines()[0]
    assert phrase in str(theirs.value) and phrase in str(ours.value), (str(theirs.value), str(ours.value))


@pytest.mark.parametrize("call, error, phrase", [
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), stride=2, output_padding=2),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 4, 5), m.ones(4, 3, 3), output_padding=1), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(3, 3, 3, 3)), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), groups=8), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), groups=3), RuntimeError,
     "expected weight to be divisible by 3 at dimension 0"),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(5, 5), m.ones(4, 3, 3, 3)), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 4, 5), m.ones(4, 3, 3, 3)), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), m.ones(4)), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), padding=-1), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), output_padding=-1),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), stride=0), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), groups=0), RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), dilation=-1), RuntimeError,
     None),
    # (in float64: PyTorch's float32 kernel, oneDNN, words these errors otherwise)
    (lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 4, 5).double(), m.ones(4, 3, 3).double(), dilation=0),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 4, 2, 2, 2).double(), m.ones(4, 3, 1, 1, 1).double(),
                                               dilation=(1, 0, 2)),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 4, 5).double(), m.ones(4, 3, 3).double(), padding=4),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 4, 2, 2, 2).double(), m.ones(4, 3, 1, 1, 1).double(),
                                               padding=1),
     RuntimeError, None),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3), padding="same"), TypeError,
     "argument 'padding' must be tuple of ints"),
    (lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 4, 5, 5), m.ones(4, 3, 3, 3, dtype=m.float64)),
     RuntimeError, "should be the same"),
    (lambda m: m.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"), ValueError, None),
    (lambda m: m.nn.ConvTranspose2d(4, 6, 3, groups=4), ValueError, None),
    (lambda m: m.nn.ConvTranspose2d(4, 6, 3, stride=2)(m.ones(2, 4, 5, 5), output_size=[13, 11]), ValueError,
     "requested an output size of [13, 11], but valid sizes range from [11, 11] to [12, 12]"),
    (lambda m: m.nn.ConvTranspose2d(4, 6, 3, stride=2)(m.ones(2, 4, 5, 5), output_size=[11]), ValueError, None),
])
def test_conv_transpose_errors_as_in_pytorch(call, error, phrase):
    _same_error(call, error, phrase)


@pytest.mark.parametrize("fn, x_shape, w_shape, settings", [
    ("conv_transpose2d", (0, 2, 3, 3), (2, 2, 2, 2), dict(padding=2)),  # an output of 0 x 0
    ("conv_transpose2d", (0, 2, 0, 3), (2, 3, 2, 2), {}),  # an empty batch may have an empty spatial dim
    ("conv_transpose1d", (0, 2, 3), (2, 2, 2), dict(padding=2, stride=2)),
    ("conv_transpose3d", (0, 2, 1, 1, 3), (2, 1, 2, 2, 2), dict(padding=(1, 1, 0))),
])
def test_conv_transpose_of_an_empty_batch_may_have_an_empty_output_as_in_torch(fn, x_shape, w_shape, settings):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in (x_shape, w_shape, (w_shape[1],))]
    ours, theirs = ([lib.tensor(a, requires_grad=True) for a in arrays] for lib in (al, torch))
    out, want = getattr(F, fn)(*ours, **settings), getattr(torch.nn.functional, fn)(*theirs, **settings)
    assert tuple(out.shape) == tuple(want.shape)
    for a, b in zip(al.autograd.grad(out.sum(), ours), torch.autograd.grad(want.sum(), theirs)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_conv_transpose2d_padding_larger_than_the_output_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"Calculated output size per channel: \(-1 x -1\). Output size is too small"):
        F.conv_transpose2d(al.ones(2, 4, 5, 5), al.ones(4, 3, 3, 3), padding=4)


# -- a small DCGAN generator ---------------------------------------------------------------------------------------
def _generator(nn, dtype):
    """z (N, 8, 1, 1) -> (N, 1, 8, 8) images: ConvTranspose2d + BatchNorm2d + ReLU twice, then ConvTranspose2d + Tanh."""
    return nn.Sequential(
        nn.ConvTranspose2d(8, 6, 4, 1, 0, bias=False, dtype=dtype), nn.BatchNorm2d(6, dtype=dtype), nn.ReLU(True),
        nn.ConvTranspose2d(6, 3, 4, 2, 1, bias=False, dtype=dtype), nn.BatchNorm2d(3, dtype=dtype), nn.ReLU(True),
        nn.ConvTranspose2d(3, 1, 3, 1, 1, dtype=dtype), nn.Tanh())


def test_dcgan_generator_matches_torch_from_the_same_weights():
    theirs, ours = _generator(torch.nn, torch.float64), _generator(al.nn, al.float64)
    assert repr(ours) == repr(theirs)
    with al.no_grad():
        for name, p in theirs.state_dict().items():
            ours.state_dict()[name].copy_(al.tensor(p.detach().numpy()))
    (z,), (zt,) = _twins((5, 8, 1, 1))
    for _ in range(2):  # training mode: batch statistics, and the running ones updated twice
        out, their_out = ours(z), theirs(zt)
        assert tuple(out.shape) == (5, 1, 8, 8)
        loss, their_loss = (out * out.detach().flip(0)).mean(), (their_out * their_out.detach().flip(0)).mean()
        loss.backward()
        their_loss.backward()
        np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(z.grad.numpy(), zt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)
    for name, buffer in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), buffer.numpy(), rtol=1e-12, err_msg=name)
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(z).detach().numpy(), theirs(zt).detach().numpy(), rtol=1e-10, atol=1e-12)
