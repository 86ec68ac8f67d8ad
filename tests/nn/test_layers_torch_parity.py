"""Layers scripts reach for, against PyTorch in float64: values, gradients, node names, reprs, gradcheck and
errors for ``LeakyReLU``/``Threshold``, ``LayerNorm``, ``InstanceNorm*d``, ``Dropout1d/2d/3d``, ``Conv1d`` and
``F.interpolate``/``Upsample``. (Recurrent layers: ``test_rnn.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _twins(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return [al.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays]


def _compare(ours, theirs, our_inputs, their_inputs, seed=1):
    """Same values and node name; then the same gradients for a random output gradient."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    if theirs.grad_fn is not None:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    seed_grad = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    ours.backward(al.tensor(seed_grad))
    theirs.backward(torch.tensor(seed_grad))
    for a, t in zip(our_inputs, their_inputs):
        if t.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12)


def _copy_parameters(source, target) -> None:
    params = dict(target.named_parameters())
    with al.no_grad():
        for name, p in source.named_parameters():
            params[name].copy_(al.tensor(p.detach().numpy()))


# -- activations -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda F, x: F.leaky_relu(x), lambda F, x: F.leaky_relu(x, 0.2), lambda F, x: F.leaky_relu(x, -0.3),
    lambda F, x: F.leaky_relu(x * 1, 0.1, inplace=True), lambda F, x: F.threshold(x, 0.1, 20.0),
    lambda F, x: F.threshold(x * 1, -0.5, 3.0, inplace=True), lambda F, x: F.leaky_relu_(x * 1, 0.5),
    lambda F, x: F.threshold_(x * 1, 0.0, -1.0),
])
def test_leaky_relu_and_threshold(call):
    (a,), (t,) = _twins((3, 5))
    _compare(call(F, a), call(TF, t), [a], [t])


@pytest.mark.parametrize("name", ["threshold", "relu", "leaky_relu", "hardtanh", "relu6", "elu", "hardsigmoid",
                                  "hardswish", "softshrink", "hardshrink", "prelu", "rrelu", "celu", "selu", "silu"])
def test_activations_keep_nan(name):
    """NaN stays NaN through every piecewise activation, and its gradient takes the side PyTorch's comparisons give it
    (threshold replaced NaN by its value: it compared x > threshold, fuzzer seed 50000909; elu/selu/celu gave
    alpha * scale, where PyTorch gives scale)."""
    values = [float("nan"), -1.0, 0.05, 2.0]
    extra = {"threshold": (0.1, -1.0), "prelu": None}
    outs = []
    for lib, functional in ((al, F), (torch, TF)):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        args = (lib.tensor([0.25], dtype=lib.float64),) if name == "prelu" else extra.get(name, ())
        out = getattr(functional, name)(x, *args) if name != "rrelu" else functional.rrelu(x, training=False)
        out.backward(lib.ones(4, dtype=lib.float64))
        outs.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    if name not in ("hardsigmoid", "hardswish"):  # (PyTorch's gradient at NaN there depends on its kernel's path:
        np.testing.assert_array_equal(outs[0][1], outs[1][1])  # NaN when vectorized, 0 or 1 in its scalar tail)


def test_activation_modules_and_gradcheck():
    for name, args in (("LeakyReLU", ()), ("LeakyReLU", (0.2, True)), ("Threshold", (0.1, 20))):
        assert repr(getattr(al.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    x = al.tensor(np.random.default_rng(2).standard_normal(7), requires_grad=True)
    assert gradcheck(lambda v: F.leaky_relu(v, 0.3), [x]) and gradgradcheck(lambda v: F.leaky_relu(v, 0.3), [x])
    assert gradcheck(lambda v: F.threshold(v, 0.2, 1.5), [x])
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is triggered with a negative slope"):
        F.leaky_relu(x * 1, -0.2, inplace=True).sum().backward()


# -- LayerNorm, InstanceNorm -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,)), ((2, 6), (6,))])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(shape, normalized, affine):
    ours, theirs = _twins(shape, normalized, normalized)
    args = (slice(None),) if affine else (slice(0, 1),)
    _compare(F.layer_norm(ours[0], normalized, *ours[1:][args[0]], eps=1e-3),
             TF.layer_norm(theirs[0], normalized, *theirs[1:][args[0]], eps=1e-3), ours, theirs)
    assert gradcheck(lambda *v: F.layer_norm(v[0], normalized, *v[1:]), ours[:3 if affine else 1])
    assert gradgradcheck(lambda *v: F.layer_norm(v[0], normalized, *v[1:]), ours[:3 if affine else 1])


def test_layer_norm_module_and_errors():
    ours, theirs = al.nn.LayerNorm((3, 4), dtype=al.float64), torch.nn.LayerNorm((3, 4), dtype=torch.float64)
    assert repr(ours) == repr(theirs) and [n for n, _ in ours.named_parameters()] == ["weight", "bias"]
    assert ours.weight.tolist() == theirs.weight.tolist() and ours.bias.tolist() == theirs.bias.tolist()
    (a,), (t,) = _twins((2, 3, 4))
    _compare(ours(a), theirs(t), [a], [t])
    for lib, layer_norm in ((al, F.layer_norm), (torch, TF.layer_norm)):
        with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], "
                                               r"but got input of size\[2, 3\]"):
            layer_norm(lib.ones(2, 3), (4,))
        with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
            layer_norm(lib.ones(2, 3), (3,), lib.ones(4))


@pytest.mark.parametrize("module", ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"])
@pytest.mark.parametrize("options", [dict(), dict(affine=True), dict(track_running_stats=True),
                                     dict(affine=True, track_running_stats=True, momentum=0.3)])
def test_instance_norm_modules(module, options):
    spatial = int(module[-2])
    shape = (2, 3) + (4, 3, 2)[:spatial]
    ours = getattr(al.nn, module)(3, dtype=al.float64, **options)
    theirs = getattr(torch.nn, module)(3, dtype=torch.float64, **options)
    assert repr(ours) == repr(theirs)
    if options.get("affine"):
        _copy_parameters(theirs, ours)
    for step in range(2):  # training twice (running statistics move), then evaluation
        (a,), (t,) = _twins(shape, seed=step)
        _compare(ours(a), theirs(t), [a], [t])
    for got, expected in zip(ours.buffers(), theirs.buffers()):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    ours.eval()
    theirs.eval()
    (a,), (t,) = _twins(shape[1:], seed=5)  # unbatched
    _compare(ours(a), theirs(t), [a], [t])


def test_instance_norm_checks():
    for lib in (al, torch):
        with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
            lib.nn.InstanceNorm2d(3)(lib.ones(2, 3))
        with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
            lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5))
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))
        with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 3, 1))
    (a, w), _ = _twins((2, 3, 5), (3,))
    assert gradcheck(lambda x, weight: F.instance_norm(x, weight=weight), [a, w])


# -- channel dropout ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,shape,channel_dims", [
    ("dropout1d", (4, 6, 5), 2), ("dropout1d", (6, 5), 1), ("dropout2d", (4, 6, 3, 2), 2),
    ("dropout3d", (4, 6, 2, 2, 2), 2), ("dropout3d", (6, 2, 2, 2), 1)])  # channel_dims: (N, C) batched, (C,) not
@pytest.mark.parametrize("inplace", [False, True])
def test_channel_dropout_zeroes_whole_channels(name, shape, channel_dims, inplace):
    al.manual_seed(0)
    x = al.ones(*shape, dtype=al.float64)
    out = getattr(F, name)(x, 0.5, True, inplace)
    assert (out is x) == inplace
    channels = out.reshape(*shape[:channel_dims], -1).numpy()  # one row per channel
    assert set(np.unique(channels)) == {0.0, 2.0}
    assert (channels.min(-1) == channels.max(-1)).all()  # one draw per channel
    assert al.equal(getattr(F, name)(x, 0.5, training=False), x)


def test_dropout_modules_match_torch():
    for name in ("Dropout1d", "Dropout2d", "Dropout3d"):
        assert repr(getattr(al.nn, name)(0.3)) == repr(getattr(torch.nn, name)(0.3))
    leaf = al.ones(2, 3, 4, 4, requires_grad=True)
    out = al.nn.Dropout2d(0.5)(leaf)
    assert type(out.grad_fn).__name__ == "MulBackward0"
    out.sum().backward()
    assert np.array_equal(leaf.grad.numpy(), out.detach().numpy())  # the mask is the gradient
    assert al.nn.Dropout2d(1.0)(leaf).abs().sum().item() == 0
    for lib in (al, torch):
        with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
            lib.nn.functional.dropout2d(lib.ones(2, 3, 4))
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
            lib.nn.functional.dropout1d(lib.ones(2, 3, 4, 5))
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            lib.nn.Dropout2d(1.5)


# -- Conv1d -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [dict(), dict(stride=2, padding=1), dict(dilation=2, groups=2), dict(padding="same"),
                                     dict(padding="valid", bias=False), dict(padding=2, padding_mode="reflect"),
                                     dict(padding=1, padding_mode="circular"), dict(padding="same", padding_mode="replicate")])
@pytest.mark.parametrize("batched", [True, False])
def test_conv1d_module(options, batched):
    theirs = torch.nn.Conv1d(4, 6, 3, dtype=torch.float64, **options)
    ours = al.nn.Conv1d(4, 6, 3, dtype=al.float64, **options)
    assert repr(ours) == repr(theirs)
    _copy_parameters(theirs, ours)
    (a,), (t,) = _twins((2, 4, 9) if batched else (4, 9))
    _compare(ours(a), theirs(t), [a, ours.weight], [t, theirs.weight])
    if ours.bias is not None:
        np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-12)


def test_conv1d_gradcheck_and_errors():
    (x, w, b), _ = _twins((2, 4, 7), (6, 2, 3), (6,))
    assert gradcheck(lambda *v: F.conv1d(*v, stride=2, padding=1, groups=2), [x, w, b])
    assert gradgradcheck(lambda *v: F.conv1d(*v, dilation=2, groups=2), [x, w, b])
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d"):
        F.conv1d(al.ones(1, 2, 3, 4), al.ones(1, 2, 3))
    with pytest.raises(RuntimeError, match="expected input\\[2, 3, 5\\] to have 4 channels, but got 3 channels"):
        F.conv1d(al.ones(2, 3, 5), al.ones(6, 4, 3))


# -- interpolate, Upsample -----------------------------------------------------------------------------------------
INTERPOLATIONS = [
    ((1, 2, 5), dict(scale_factor=2)), ((1, 2, 5), dict(size=8, mode="linear")),
    ((1, 2, 5), dict(scale_factor=1.7, mode="linear", align_corners=True)), ((1, 2, 5), dict(size=3, mode="nearest-exact")),
    ((2, 1, 4, 6), dict(scale_factor=2)), ((2, 1, 4, 6), dict(size=(5, 9))), ((2, 1, 4, 6), dict(scale_factor=0.6)),
    ((2, 1, 4, 6), dict(scale_factor=2, mode="bilinear")), ((2, 1, 4, 6), dict(size=(7, 3), mode="bilinear")),
    ((2, 1, 4, 6), dict(scale_factor=1.5, mode="bilinear", align_corners=True)),
    ((2, 1, 4, 6), dict(scale_factor=(1.3, 2.5), mode="bilinear", recompute_scale_factor=True)),
    ((2, 1, 4, 6), dict(size=(2, 3), mode="area")), ((2, 1, 4, 6), dict(scale_factor=1.5, mode="nearest-exact")),
    ((1, 1, 3, 4, 5), dict(scale_factor=2, mode="trilinear")), ((1, 1, 3, 4, 5), dict(size=(2, 5, 4))),
]


@pytest.mark.parametrize("shape,options", INTERPOLATIONS)
def test_interpolate_matches_torch(shape, options):
    (a,), (t,) = _twins(shape)
    _compare(F.interpolate(a, **options), TF.interpolate(t, **options), [a], [t])


@pytest.mark.parametrize("shape,options", INTERPOLATIONS[::4])
def test_interpolate_gradcheck(shape, options):
    (a,), _ = _twins(shape)
    assert gradcheck(lambda x: F.interpolate(x, **options), [a])
    assert gradgradcheck(lambda x: F.interpolate(x, **options), [a])


def test_interpolate_float32_and_upsample_modules():
    x = np.random.default_rng(3).standard_normal((1, 3, 5, 7)).astype(np.float32)
    for options in (dict(scale_factor=2.3, mode="bilinear"), dict(scale_factor=1.37), dict(size=(9, 4), mode="nearest-exact")):
        np.testing.assert_allclose(F.interpolate(al.tensor(x), **options).numpy(),
                                   TF.interpolate(torch.tensor(x), **options).numpy(), rtol=1e-5, atol=1e-6)
    for name, kwargs in (("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=(3, 4), mode="bilinear")),
                         ("UpsamplingNearest2d", dict(scale_factor=2)), ("UpsamplingBilinear2d", dict(size=(6, 9)))):
        ours, theirs = getattr(al.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(al.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4), scale_factor=2, mode="bilinear"),
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4, 4), size=3, scale_factor=2),
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4, 4)),
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4, 4), size=(3, 4, 5)),
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4, 4), scale_factor=2, align_corners=True),
    lambda F, lib: F.interpolate(lib.ones(1, 1, 4, 4), size=3, mode="linear"),
    lambda F, lib: F.interpolate(lib.ones(4), scale_factor=2),
])
def test_interpolate_errors_as_pytorch(call):
    with pytest.raises((ValueError, NotImplementedError)) as expected:
        call(TF, torch)
    with pytest.raises(type(expected.value), match=str(expected.value)[:60].replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]").replace("|", r"\|").replace(".", r"\.")):
        call(F, al)
