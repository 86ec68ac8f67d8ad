"""3-D convolutions (``F.conv3d``, ``F.conv_transpose3d``, ``nn.Conv3d``, ``nn.ConvTranspose3d``) against PyTorch:
values, gradients, the node and its saved values, finite differences in float64 (gradients of gradients included),
the modules' reprs and parameters, and the errors. The kernels are conv2d's, written for any number of dims."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _twins(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return [al.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays]


def _compare(ours, theirs, our_inputs, their_inputs):
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
    got = al.autograd.grad(ours, our_inputs, al.tensor(g))
    want = torch.autograd.grad(theirs, their_inputs, torch.tensor(g))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, x_shape, w_shape, settings", [
    ("conv3d", (2, 4, 5, 4, 6), (6, 2, 3, 2, 3), dict(stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)),
    ("conv3d", (1, 2, 3, 3, 3), (3, 2, 2, 2, 2), dict(padding="same")),
    ("conv3d", (2, 3, 4, 4), (2, 2, 3, 1, 2), dict(padding=1)),  # one unbatched volume
    ("conv_transpose3d", (2, 4, 3, 2, 3), (4, 3, 2, 3, 2), dict(stride=2, padding=(1, 0, 1), output_padding=(1, 0, 1),
                                                               groups=2)),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 1, 2, 2, 2), dict(dilation=2, output_padding=1)),
])
def test_matches_torch(name, x_shape, w_shape, settings):
    out_channels = w_shape[0] if name == "conv3d" else w_shape[1] * settings.get("groups", 1)
    (x, w, b), (xt, wt, bt) = _twins(x_shape, w_shape, (out_channels,))
    ours, theirs = getattr(F, name)(x, w, b, **settings), getattr(torch.nn.functional, name)(xt, wt, bt, **settings)
    if theirs.grad_fn.name() == "ConvolutionBackward0":
        for saved in ("stride", "dilation", "output_padding", "groups", "transposed"):
            assert getattr(ours.grad_fn, f"_saved_{saved}") == getattr(theirs.grad_fn, f"_saved_{saved}"), saved
    _compare(ours, theirs, (x, w, b), (xt, wt, bt))


@pytest.mark.parametrize("fn, shapes", [
    (lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(0, 1, 1), groups=2),
     [(1, 2, 3, 3, 2), (2, 1, 2, 2, 2), (2,)]),
    (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 1), output_padding=(1, 0, 0)),
     [(1, 2, 2, 2, 2), (2, 1, 2, 1, 2), (1,)]),
])
def test_gradcheck_and_gradgradcheck(fn, shapes):
    inputs, _ = _twins(*shapes)
    assert gradcheck(fn, inputs, check_forward_ad=True)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name, args", [
    ("Conv3d", (2, 4, 3)), ("Conv3d", (2, 4, (1, 2, 3), 2, 1, 1, 1, False, "circular")),
    ("Conv3d", (4, 4, 3, 1, "same", 1, 2, True, "reflect")),
    ("ConvTranspose3d", (2, 4, 3)), ("ConvTranspose3d", (2, 4, (1, 2, 3), 2, 0, 1)),
])
def test_modules_match_torch(name, args):
    theirs, ours = getattr(torch.nn, name)(*args, dtype=torch.float64), getattr(al.nn, name)(*args, dtype=al.float64)
    assert repr(ours) == repr(theirs)
    assert {n: tuple(p.shape) for n, p in ours.named_parameters()} == \
        {n: tuple(p.shape) for n, p in theirs.named_parameters()}
    with al.no_grad():
        for n, p in theirs.named_parameters():
            dict(ours.named_parameters())[n].copy_(al.tensor(p.detach().numpy()))
    (x,), (xt,) = _twins((2, args[0], 4, 5, 6))
    _compare(ours(x), theirs(xt), [x] + list(ours.parameters()), [xt] + list(theirs.parameters()))


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.conv3d(m.ones(1, 2, 3, 3, 3), m.ones(2, 2, 4, 2, 2)),
    lambda m: m.nn.functional.conv3d(m.ones(1, 3, 3, 3, 3), m.ones(2, 2, 2, 2, 2)),
    lambda m: m.nn.functional.conv3d(m.ones(2, 3, 3), m.ones(2, 2, 2, 2, 2)),
    lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 2, 3, 3, 3), m.ones(2, 2, 2, 2, 2), stride=2,
                                               output_padding=(0, 2, 0)),
    lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 3, 3, 3, 3), m.ones(2, 2, 2, 2, 2)),
    # an empty spatial dim (only the batch or the channels may be empty), padded or not:
    lambda m: m.nn.functional.conv3d(m.ones(1, 2, 0, 3, 3), m.ones(2, 2, 1, 1, 1), padding=1),
    lambda m: m.nn.functional.conv2d(m.ones(2, 0, 3), m.ones(2, 2, 1, 1), padding=1),
    lambda m: m.nn.functional.conv1d(m.ones(1, 2, 0), m.ones(2, 2, 1), padding=1),
    lambda m: m.nn.functional.conv_transpose3d(m.ones(1, 2, 0, 2, 2), m.ones(2, 2, 2, 2, 2)),
    lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 0, 3), m.ones(2, 2, 2, 2)),
    lambda m: m.nn.functional.conv_transpose1d(m.ones(1, 2, 0), m.ones(2, 2, 2)),
])
def test_errors_as_in_pytorch(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(al)
    phrase = str(theirs.value).splitlines()[0]
    assert phrase in str(ours.value), (phrase, str(ours.value))
