"""Padding (``F.pad``, the padding layers, ``Conv2d(padding_mode=...)``) against PyTorch: values, recorded
node names and saved values, gradients and gradients of gradients, error messages, and the layers' reprs.
"""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture: cuda:0 as a test double, and a real GPU where there is one)
from hypothesis import given
from hypothesis import strategies as st

import autograd_lab as al
import autograd_lab.nn as nn
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tF = torch.nn.functional

MODES = ["constant", "reflect", "replicate", "circular"]


def _tensors(shape, seed=0, dtype="float64"):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (al.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True))


def _compare(shape, pad, mode, value=None, seed=0):
    """Same input, same upstream gradient: values, node names, the gradient, and the derivative of that
    gradient with respect to the upstream gradient (the pads are linear, so that is the second order)."""
    xa, xt = _tensors(shape, seed)
    ya, yt = F.pad(xa, pad, mode, value), tF.pad(xt, pad, mode=mode, value=value)
    np.testing.assert_array_equal(ya.detach().numpy(), yt.detach().numpy())
    assert ya.grad_fn.name() == yt.grad_fn.name()
    upstream = np.random.default_rng(seed + 1).standard_normal(tuple(yt.shape))
    ga_out = al.tensor(upstream, requires_grad=True)
    gt_out = torch.tensor(upstream, requires_grad=True)
    (ga,) = al.autograd.grad(ya, xa, ga_out, create_graph=True)
    (gt,) = torch.autograd.grad(yt, xt, gt_out, create_graph=True)
    np.testing.assert_allclose(ga.detach().numpy(), gt.detach().numpy(), rtol=1e-12, atol=1e-12)
    weights = np.random.default_rng(seed + 2).standard_normal(shape)
    (gga,) = al.autograd.grad((ga * al.tensor(weights)).sum(), ga_out)
    (ggt,) = torch.autograd.grad((gt * torch.tensor(weights)).sum(), gt_out)
    np.testing.assert_allclose(gga.numpy(), ggt.numpy(), rtol=1e-12, atol=1e-12)
    return ya, yt, ga, gt


CASES = [  # (shape, pad) valid in every mode
    ((2, 3, 5), (1, 2)),
    ((3, 5), (2, 0)),
    ((2, 3, 4, 5), (1, 2, 3, 0)),
    ((3, 4, 5), (2, -1, 1, 3)),
    ((2, 3, 5), (-1, 3)),
    ((2, 3, 4, 5), (0, 0, 0, 0)),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, -1, 2)),
    ((2, 3, 4, 5), (4, 4, 3, 3)),
]


def _reflect_fits(shape, pad) -> bool:
    """Reflect pads must be smaller than their dim (wider ones: test_errors_match_torch)."""
    return all(p < shape[-1 - i // 2] for i, p in enumerate(pad))


@pytest.mark.parametrize("mode,shape,pad", [(mode, shape, pad) for mode in MODES for shape, pad in CASES
                                            if mode != "reflect" or _reflect_fits(shape, pad)])
def test_each_mode_matches_torch(mode, shape, pad):
    _compare(shape, pad, mode)


@pytest.mark.parametrize("shape,pad", [((5,), (2, 3)), ((2, 3, 4, 5, 2, 3), (1, 0, 2, 1, 0, 3, 1, 1)),
                                       ((2, 3, 4), (1, 2, -2, 1, 1, -1)), ((3, 6), (-2, -4)), ((3,), ())])
def test_constant_pads_any_number_of_dims_and_crops(shape, pad):
    _compare(shape, pad, "constant", value=2.5)


def test_node_names_and_saved_values():
    x = al.randn(2, 3, 4, 5, dtype=al.float64, requires_grad=True)
    y = F.pad(x, (1, -1, 2, 0), value=3.0)
    assert y.grad_fn.name() == "ConstantPadNdBackward0" and y.grad_fn._saved_pad == (1, -1, 2, 0)
    for mode, stem in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad")):
        for n, pad in ((1, (1, 2)), (2, (1, 2, 0, 1)), (3, (1, 0, 1, 1, 2, 0))):
            x = al.randn(2, 3, *(4, 5, 6)[:n], dtype=al.float64, requires_grad=True)
            y = F.pad(x, pad, mode)
            assert y.grad_fn.name() == f"{stem}{n}DBackward0"
            assert y.grad_fn._saved_padding == pad and y.grad_fn._saved_self is x
            upstream = al.ones_like(y, requires_grad=True)
            (g,) = al.autograd.grad(y, x, upstream, create_graph=True)
            assert g.grad_fn.name() == f"{stem}{n}DBackwardBackward0" and g.grad_fn._saved_padding == pad
            (gg,) = al.autograd.grad(g, upstream, al.ones_like(g, requires_grad=True), create_graph=True)
            assert gg.grad_fn.name() == f"{stem}{n}DBackward0"  # the pad again, to any order
    x = al.randn(2, 3, 4, dtype=al.float64, requires_grad=True)
    y = F.pad(x, (1, 1), "circular")
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    (g,) = al.autograd.grad(y, x, al.ones_like(y, requires_grad=True), create_graph=True)
    assert g.requires_grad


def test_reflect_saves_its_input_so_an_inplace_change_is_caught():
    for lib, t in ((al, _tensors((2, 3, 5))[0]), (torch, _tensors((2, 3, 5))[1])):
        x = t * 1
        y = (F if lib is al else tF).pad(x, (1, 1), mode="reflect")
        x.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pad", [((2, 4), (2, 1)), ((1, 3, 4), (1, 2, 2, -1)), ((1, 3, 3, 3), (1, 1, 0, 2, 2, 1))])
def test_gradcheck_and_gradgradcheck(mode, shape, pad):
    x = al.tensor(np.random.default_rng(3).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode), (x,))
    assert gradgradcheck(lambda t: F.pad(t, pad, mode) ** 2, (x,))


@st.composite
def _shapes_and_pads(draw, mode):
    n = draw(st.integers(1, 3))
    spatial = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    batch = draw(st.lists(st.integers(1, 2), min_size=1, max_size=2 if mode != "constant" else 3))
    pad = []
    for size in reversed(spatial):
        if mode == "reflect":
            pair = draw(st.tuples(st.integers(-size // 2, size - 1), st.integers(-size // 2, size - 1)))
        elif mode == "circular":
            pair = draw(st.tuples(st.integers(-size // 2, size // 2), st.integers(-size // 2, size // 2)))
        else:
            pair = draw(st.tuples(st.integers(-size // 2, 6), st.integers(-size // 2, 6)))
        if size + min(pair[0], 0) + min(pair[1], 0) < 1:
            pair = (max(pair[0], 0), max(pair[1], 0))
        pad.extend(pair)
    return tuple(batch + spatial), tuple(pad)


@pytest.mark.parametrize("mode", MODES)
def test_random_pads_match_torch(mode):
    @given(_shapes_and_pads(mode), st.integers(0, 100))
    def check(case, seed):
        shape, pad = case
        _compare(shape, pad, mode, seed=seed)

    check()


def test_integer_and_bool_inputs():
    x = np.arange(10).reshape(1, 2, 5)
    for mode in MODES:
        ya, yt = F.pad(al.tensor(x), (2, 1), mode), tF.pad(torch.tensor(x), (2, 1), mode=mode)
        assert ya.dtype is al.int64 and ya.grad_fn is None
        np.testing.assert_array_equal(ya.numpy(), yt.numpy())
    np.testing.assert_array_equal(F.pad(al.tensor(x), (1, 1), value=1.5).numpy(),
                                  tF.pad(torch.tensor(x), (1, 1), value=1.5).numpy())  # the value is cast
    flags = np.array([[True, False, True]])
    for mode, value in (("constant", True), ("circular", None)):
        np.testing.assert_array_equal(F.pad(al.tensor(flags), (1, 1), mode, value).numpy(),
                                      tF.pad(torch.tensor(flags), (1, 1), mode=mode, value=value).numpy())


@pytest.mark.parametrize("mode,pad", [("constant", (1, 2, -1, 1)), ("reflect", (1, 2, 1, 0)),
                                      ("replicate", (3, 2, 1, -1)), ("circular", (1, 2, 1, -1))])
def test_on_device_equal_cpu(mode, pad, device):  # noqa: F811
    """The forwards use only the array namespace of the input (NumPy, CuPy): same values and gradients on a
    device whose arrays refuse NumPy, to the second order."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    results = []
    for where in ("cpu", device):
        x = al.tensor(data, requires_grad=True).to(where)
        y = F.pad(x, pad, mode)
        upstream = al.ones(y.shape, dtype=al.float64).to(where).requires_grad_()
        (g,) = al.autograd.grad(y, x, upstream, create_graph=True)
        (gg,) = al.autograd.grad((g * x.detach()).sum(), upstream)
        assert y.device == g.device == gg.device == al.device(where)
        results.append([t.detach().cpu().numpy() for t in (y, g, gg)])
    for ours, cpu in zip(*results):
        np.testing.assert_array_equal(ours, cpu)


def test_no_graph_under_no_grad():
    x = al.randn(1, 2, 4, requires_grad=True)
    with al.no_grad():
        for mode in MODES:
            assert F.pad(x, (1, 1), mode).grad_fn is None


ERRORS = [  # (shape, pad, mode, value, dtype)
    ((2, 3, 5), (1,), "constant", None, "float64"),
    ((2, 3, 5), (1,), "wrap", None, "float64"),
    ((5,), (1, 1, 1, 1), "constant", None, "float64"),
    ((), (1, 1), "constant", None, "float64"),
    ((2, 3, 5), (-3, -3), "constant", None, "float64"),
    ((2, 3, 4, 5), (0, 0, -5, 1), "constant", None, "float64"),
    ((2, 3, 5), (1, 1), "reflect", 2.0, "float64"),
    ((2, 3, 5), (1, 1), "circular", 1.0, "float64"),
    ((5,), (1, 1), "reflect", None, "float64"),
    ((3, 5), (1, 1, 1, 1), "replicate", None, "float64"),
    ((2, 3, 4, 5), (1, 1), "circular", None, "float64"),
    ((1, 1, 2, 3, 4, 5), (1, 1, 1, 1, 1, 1), "reflect", None, "float64"),
    ((2, 3, 5), (), "reflect", None, "float64"),
    ((2, 3, 5), (5, 0), "reflect", None, "float64"),
    ((2, 3, 5), (0, 11), "reflect", None, "float64"),
    ((2, 3, 4, 5), (1, 1, 4, 0), "reflect", None, "float64"),
    ((1, 2, 3, 4, 5), (0, 0, 0, 0, 3, 0), "reflect", None, "float64"),
    ((1, 2, 1), (1, 1), "reflect", None, "float64"),
    ((2, 0, 5), (1, 1), "reflect", None, "float64"),
    ((0, 5), (1, 1), "replicate", None, "float64"),
    ((2, 3, 0, 5), (1, 1, 0, 0), "replicate", None, "float64"),
    ((2, 3, 5), (-3, -2), "reflect", None, "float64"),
    ((2, 3, 5), (-3, -3), "replicate", None, "float64"),
    ((2, 3, 4, 5), (-3, -2, -2, -2), "reflect", None, "float64"),
    ((2, 3, 4, 5), (-3, -2, -2, -2), "replicate", None, "float64"),
    ((1, 2, 3, 4, 5), (-3, -2, -2, -2, -2, -1), "reflect", None, "float64"),
    ((1, 2, 3, 4, 5), (0, 0, 0, 0, -2, -2), "replicate", None, "float64"),
    ((1, 2, 3), (1, 1), "reflect", None, "bool"),
    ((1, 2, 3), (1, 1), "replicate", None, "bool"),
    ((2, 3, 5), (0, 6), "circular", None, "float64"),
    ((2, 2, 0), (1, 1), "circular", None, "float64"),
    ((2, 3, 5), (-3, -3), "circular", None, "float64"),
    ((2, 3, 4, 5), (6, 0, -5, 0), "circular", None, "float64"),
    ((2, 3, 4, 5), (-6, 0, 5, 0), "circular", None, "float64"),
    ((1, 1, 5), (-2, 4), "circular", None, "float64"),
    ((1, 1, 5), (4, -2), "circular", None, "float64"),
]


@pytest.mark.parametrize("shape,pad,mode,value,dtype", ERRORS)
def test_errors_match_torch(shape, pad, mode, value, dtype):
    data = np.ones(shape, dtype=dtype)
    with pytest.raises(Exception) as theirs:
        tF.pad(torch.tensor(data), pad, mode=mode, value=value)
    with pytest.raises(Exception) as ours:
        F.pad(al.tensor(data), pad, mode, value)
    assert ours.type is theirs.type
    assert str(ours.value).startswith(str(theirs.value))  # PyTorch's phrase first, then what happened
    assert f"[autograd_lab] pad (mode={mode!r}) of an input of shape {tuple(shape)} by {pad}: " in str(ours.value)


@pytest.mark.parametrize("pad,value", [((1.0, 1), None), ((True, 1), None), (1, None), ("ab", None),
                                       (np.array([1, 1]), None), (range(2), None), ((1, 1), "a")])
def test_argument_types_match_torch(pad, value):
    data = np.ones((2, 3, 5))
    with pytest.raises(TypeError) as theirs:
        tF.pad(torch.tensor(data), pad, value=value)
    with pytest.raises(TypeError) as ours:
        F.pad(al.tensor(data), pad, value=value)
    assert str(ours.value) == str(theirs.value)


def test_numpy_integers_and_lists_are_accepted():
    x = al.ones(2, 3)
    assert F.pad(x, [np.int64(1), 2]).shape == (2, 6)
    assert F.pad(x, [1, 1], "reflect", value=0).shape == (2, 5)  # value 0 is allowed in every mode


def test_circular_crop_on_one_side_and_wrap_on_the_other():
    """Allowed while the wrap is no wider than what the crop leaves (wider: refused, as PyTorch refuses it,
    since the border would be copied from itself; see ERRORS)."""
    _compare((1, 2, 5), (-2, 3), "circular")


# -- layers --------------------------------------------------------------------------------------------
LAYERS = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", (2,), (2, 3, 4)), ("ZeroPad2d", ((1, 1, 2, 0),), (2, 3, 4)),
    ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4)), ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
    ("ConstantPad1d", ((1, 2), 3), (3, 4)), ("ConstantPad2d", ((1, 2, 3, -1), -1.0), (2, 3, 4)),
    ("ConstantPad3d", (1, 2.0), (1, 2, 3, 4)), ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad1d", ((1, 3),), (3, 4)), ("ReflectionPad2d", (1,), (2, 3, 4)),
    ("ReflectionPad2d", ((1, 1, 2, 0),), (1, 2, 3, 4)), ("ReflectionPad2d", ([1, 2, 2, 1],), (2, 3, 4)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4, 2)), ("ReplicationPad1d", (3,), (2, 3, 4)),
    ("ReplicationPad2d", ((1, 2, 3, 4),), (2, 3, 4)), ("ReplicationPad3d", (1,), (2, 3, 4, 2)),
    ("CircularPad1d", (1,), (2, 3, 4)), ("CircularPad2d", ((1, 2, 3, 0),), (1, 2, 3, 4)),
    ("CircularPad3d", (1,), (1, 2, 3, 4, 2)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS)
def test_layers_match_torch(name, args, shape):
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding and getattr(ours, "value", None) == getattr(theirs, "value", None)
    xa, xt = _tensors(shape)
    ya, yt = ours(xa), theirs(xt)
    np.testing.assert_array_equal(ya.detach().numpy(), yt.detach().numpy())
    ya.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


def test_circular_layers_check_the_input_dims_as_torch():
    for name, shape in (("CircularPad1d", (2, 3, 4, 5)), ("CircularPad1d", (4,)), ("CircularPad2d", (3, 4))):
        with pytest.raises(ValueError) as theirs:
            getattr(torch.nn, name)(1)(torch.ones(shape))
        with pytest.raises(ValueError) as ours:
            getattr(nn, name)(1)(al.ones(*shape))
        assert str(ours.value).startswith(str(theirs.value)) and str(shape) in str(ours.value)


def test_layers_refuse_a_padding_of_the_wrong_length():
    """(PyTorch fails later, with an unrelated AttributeError, or silently pads fewer dims.)"""
    with pytest.raises(ValueError, match=r"ReflectionPad1d: padding must be an int or a tuple of 2 ints"):
        nn.ReflectionPad1d((1, 2, 3))
    with pytest.raises(ValueError, match=r"ZeroPad2d: padding must be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2))


# -- Conv2d padding modes ------------------------------------------------------------------------------
CONVS = [
    dict(kernel_size=3, padding=1),
    dict(kernel_size=(3, 2), padding=(2, 1), stride=2),
    dict(kernel_size=3, padding="same", dilation=2),
    dict(kernel_size=(2, 4), padding="same", groups=2, bias=False),
    dict(kernel_size=3, padding="valid"),
    dict(kernel_size=3),
]


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("options", CONVS)
@pytest.mark.parametrize("batched", [True, False])
def test_conv2d_padding_modes_match_torch(padding_mode, options, batched):
    ours = nn.Conv2d(4, 6, padding_mode=padding_mode, **options).double()
    theirs = torch.nn.Conv2d(4, 6, padding_mode=padding_mode, **options).double()
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    xa, xt = _tensors((2, 4, 6, 7) if batched else (4, 6, 7))
    ya, yt = ours(xa), theirs(xt)
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = np.random.default_rng(5).standard_normal(tuple(yt.shape))
    ya.backward(al.tensor(upstream))
    yt.backward(torch.tensor(upstream))
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for name, param in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), param.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_conv2d_padding_mode_errors_match_torch():
    with pytest.raises(ValueError, match=r"^padding_mode must be one of \{.*\}, but got padding_mode='wrap'"):
        torch.nn.Conv2d(3, 4, 3, padding_mode="wrap")
    with pytest.raises(ValueError, match=r"^padding_mode must be one of \{'zeros', 'reflect', 'replicate', "
                                         r"'circular'\}, but got padding_mode='wrap' \[autograd_lab\] Conv2d"):
        nn.Conv2d(3, 4, 3, padding_mode="wrap")
    x = np.ones((1, 3, 4, 5))
    with pytest.raises(RuntimeError) as theirs:  # a reflection wider than the image
        torch.nn.Conv2d(3, 4, 3, padding=4, padding_mode="reflect")(torch.tensor(x, dtype=torch.float32))
    with pytest.raises(RuntimeError) as ours:
        nn.Conv2d(3, 4, 3, padding=4, padding_mode="reflect")(al.tensor(x, dtype=al.float32))
    assert str(ours.value).startswith(str(theirs.value))
