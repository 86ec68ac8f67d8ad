"""Pixel shuffles, channel shuffle, ``Softmax2d`` and local response normalisation (functions and modules) against
PyTorch: values, dtypes, gradients, nodes (and the nodes of their gradients), finite differences, reprs and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

CALLS = [
    ((2, 8, 3, 3), lambda F, x: F.pixel_shuffle(x, 2)),
    ((2, 3, 18, 2, 3), lambda F, x: F.pixel_shuffle(x, 3)),  # any leading dims
    ((4, 3, 5), lambda F, x: F.pixel_shuffle(x, 2)),
    ((2, 3, 6, 4), lambda F, x: F.pixel_unshuffle(x, 2)),
    ((3, 6, 9), lambda F, x: F.pixel_unshuffle(x, 3)),
    ((2, 6, 3, 2), lambda F, x: F.channel_shuffle(x, 3)),
    ((2, 8, 5), lambda F, x: F.channel_shuffle(x, 4)),
    ((2, 4, 3, 2), lambda F, x: F.channel_shuffle(x, 1)),
    ((2, 4, 3, 2), lambda F, x: F.local_response_norm(x, 3)),
    ((2, 5, 7), lambda F, x: F.local_response_norm(x, 2, 1e-2, 0.5, 2.0)),
    ((1, 6, 2, 3, 2), lambda F, x: F.local_response_norm(x, 4, 0.3, 1.5, 0.5)),
    ((2, 4, 3, 2), lambda F, x: F.local_response_norm(x, 1)),
]


def _run(lib, call, array, dtype="float64", create_graph=False):
    x = lib.tensor(array.astype(dtype), requires_grad=True)
    out = call(lib.nn.functional, x)
    seed = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype), requires_grad=True)
    (grad,) = lib.autograd.grad(out, x, seed, create_graph=create_graph)
    return out, grad


@pytest.mark.parametrize("shape, call", CALLS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matches_torch(shape, call, dtype):
    array = np.random.default_rng(0).standard_normal(shape)
    (out, grad), (their_out, their_grad) = _run(al, call, array, dtype, True), _run(torch, call, array, dtype, True)
    assert out.grad_fn.name() == their_out.grad_fn.name()
    assert str(out.dtype).split(".")[-1] == str(their_out.dtype).split(".")[-1]
    assert grad.grad_fn.name() == their_grad.grad_fn.name()
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(grad.detach().numpy(), their_grad.detach().numpy(), rtol=rtol, atol=rtol)


def test_saved_values_and_shuffles_undo_each_other():
    x = al.randn(2, 8, 3, 4, requires_grad=True)
    assert F.pixel_shuffle(x, 2).grad_fn._saved_upscale_factor == 2
    assert F.pixel_unshuffle(x, 1).grad_fn._saved_downscale_factor == 1
    assert F.channel_shuffle(x, 4).grad_fn._saved_groups == 4
    assert F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).equal(x)
    assert F.channel_shuffle(F.channel_shuffle(x, 4), 2).equal(x)
    np.testing.assert_array_equal(F.channel_shuffle(al.arange(6.0).reshape(1, 6, 1), 2).reshape(-1).numpy(),
                                  [0, 3, 1, 4, 2, 5])
    assert F.pixel_shuffle(al.arange(8).reshape(8, 1, 1), 2).dtype is al.int64  # (any dtype, as in PyTorch)


@pytest.mark.parametrize("shape, call", [CALLS[i] for i in (0, 3, 5, 9, 10)])
def test_gradcheck_and_gradgradcheck(shape, call):
    x = al.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda v: call(F, v), (x,), check_forward_ad=True)
    assert gradgradcheck(lambda v: call(F, v), (x,))


@pytest.mark.parametrize("name, args, shape", [
    ("PixelShuffle", (2,), (2, 8, 3, 3)), ("PixelUnshuffle", (3,), (2, 1, 6, 3)), ("ChannelShuffle", (2,), (2, 4, 3)),
    ("Softmax2d", (), (2, 3, 4, 5)), ("Softmax2d", (), (3, 4, 5)), ("LocalResponseNorm", (3,), (2, 5, 4, 4)),
    ("LocalResponseNorm", (2, 1e-3, 0.5, 2.0), (2, 5, 4)),
])
def test_modules_match_torch(name, args, shape):
    ours, theirs = getattr(al.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    array = np.random.default_rng(3).standard_normal(shape)
    x, xt = al.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    out, their_out = ours(x), theirs(xt)
    assert out.grad_fn.name() == their_out.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12)
    out.pow(2).sum().backward()
    their_out.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_local_response_norm_of_an_empty_batch_is_the_input():
    x = al.ones(0, 8, 3)
    assert F.local_response_norm(x, 3) is x


@pytest.mark.parametrize("call, error, phrase", [
    (lambda m: m.nn.functional.pixel_shuffle(m.ones(2, 8, 3, 3), 3), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_shuffle(m.ones(3, 3), 2), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_shuffle(m.ones(2, 8, 3, 3), 0), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_unshuffle(m.ones(2, 8, 3, 4), 2), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_unshuffle(m.ones(2, 8, 4, 3), 2), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_unshuffle(m.ones(3), 2), RuntimeError, None),
    (lambda m: m.nn.functional.pixel_unshuffle(m.ones(2, 8, 3, 3), -1), RuntimeError, None),
    (lambda m: m.nn.functional.channel_shuffle(m.ones(2, 8, 3), 3), RuntimeError, None),
    (lambda m: m.nn.functional.channel_shuffle(m.ones(2, 8, 3), 0), RuntimeError, None),
    (lambda m: m.nn.functional.channel_shuffle(m.ones(2, 8), 2), RuntimeError, None),
    (lambda m: m.nn.ChannelShuffle(2)(m.ones(8, 3, 3)), RuntimeError, None),
    (lambda m: m.nn.Softmax2d()(m.ones(8, 3)), ValueError, None),
    (lambda m: m.nn.Softmax2d()(m.ones(2, 8, 3, 3, 3)), ValueError, None),
    (lambda m: m.nn.LocalResponseNorm(3)(m.ones(8, 3)), ValueError, "input (got 2 dimensions)"),
    (lambda m: m.nn.LocalResponseNorm(0)(m.ones(2, 8, 3)), RuntimeError, None),
])
def test_errors_as_in_pytorch(call, error, phrase):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(al)
    phrase = phrase or str(theirs.value).splitlines()[0]
    assert phrase in str(theirs.value) and phrase in str(ours.value), (str(theirs.value), str(ours.value))


def test_pixel_shuffle_of_an_empty_batch_has_its_gradient_shaped_like_the_input():
    x = al.ones(0, 8, 2, 2, requires_grad=True)  # (PyTorch 2.13's own backward fails here: a wrong shape)
    out = F.pixel_shuffle(x, 2)
    out.sum().backward()
    assert out.shape == (0, 2, 4, 4) and x.grad.shape == (0, 8, 2, 2)
