"""``F.interpolate(mode='bicubic')`` and ``nn.Upsample(mode='bicubic')`` against PyTorch: values in float64 and
float32, the node and its saved values, gradients, the node recorded under create_graph, NaN and infinity reaching
the outputs PyTorch's kernel reaches, finite differences in float64, and the errors in PyTorch's words."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck
from tests.ops._torch_compare import same_as_torch, same_error

torch = pytest.importorskip("torch")

RESIZES = [dict(scale_factor=2), dict(scale_factor=0.5), dict(scale_factor=1.7), dict(scale_factor=(1.3, 2.6)),
           dict(size=(5, 8)), dict(size=(2, 3)), dict(size=(1, 1)), dict(scale_factor=2.3, recompute_scale_factor=True),
           dict(scale_factor=0.7, align_corners=True), dict(size=(6, 13), align_corners=True),
           dict(size=(1, 3), align_corners=True)]
SHAPES = [(2, 3, 4, 6), (1, 2, 1, 7), (1, 1, 7, 1), (1, 1, 9, 11)]


def _image(shape, dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _output_not_empty(shape, options) -> bool:
    factors = np.broadcast_to(options.get("scale_factor", 1), 2)
    return all(np.floor(n * f) > 0 for n, f in zip(shape[2:], factors))


@pytest.mark.parametrize("shape, options", [(shape, options) for shape in SHAPES for options in RESIZES
                                            if _output_not_empty(shape, options)])
def test_bicubic_values_node_and_gradients_match_torch(shape, options):
    out = same_as_torch(torch, lambda m, x: m.nn.functional.interpolate(x, mode="bicubic", **options), _image(shape),
                        rtol=1e-13)
    assert out.grad_fn.name() == "UpsampleBicubic2DBackward0"


@pytest.mark.parametrize("options", RESIZES)
def test_bicubic_float32_within_single_precision_rounding(options):
    image = _image((2, 3, 9, 11), "float32", seed=1)
    ours = F.interpolate(al.tensor(image), mode="bicubic", **options)
    theirs = torch.nn.functional.interpolate(torch.tensor(image), mode="bicubic", **options)
    assert ours.dtype is al.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("options", [dict(scale_factor=2), dict(size=(3, 7), align_corners=True),
                                     dict(scale_factor=(0.6, 1.5), recompute_scale_factor=True)])
def test_bicubic_saved_values_are_torchs(options):
    nodes = [m.nn.functional.interpolate(m.ones(1, 2, 4, 5, requires_grad=True), mode="bicubic", **options).grad_fn
             for m in (al, torch)]
    for name in ("align_corners", "output_size", "scales_h", "scales_w", "self_sym_sizes"):
        ours, theirs = (getattr(node, f"_saved_{name}") for node in nodes)
        assert ours == theirs, name


def test_bicubic_gradient_of_gradient_is_recorded_as_torch_records_it():
    image = _image((1, 2, 3, 4))
    grads = []
    for m in (al, torch):
        x = m.tensor(image, requires_grad=True)
        y = m.nn.functional.interpolate(x, scale_factor=1.5, mode="bicubic")
        (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "UpsampleBicubic2DBackwardBackward0"
        (gg,) = m.autograd.grad((g * g).sum(), x)
        grads.append(np.asarray(gg.tolist()))
    np.testing.assert_allclose(*grads, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options", [dict(scale_factor=1.6), dict(size=(2, 7), align_corners=True),
                                     dict(scale_factor=0.6)])
def test_bicubic_gradcheck_and_gradgradcheck(options):
    x = al.tensor(_image((1, 2, 4, 5)), requires_grad=True)
    assert gradcheck(lambda v: F.interpolate(v, mode="bicubic", **options), [x])
    assert gradgradcheck(lambda v: F.interpolate(v, mode="bicubic", **options), [x])


@pytest.mark.parametrize("options", [dict(size=(5, 6)), dict(scale_factor=2), dict(scale_factor=0.5),
                                     dict(size=(7, 4), align_corners=True)])
def test_nan_and_infinity_reach_the_outputs_torchs_kernel_reaches(options):
    image = np.zeros((1, 1, 5, 6))
    image[0, 0, 1, 2], image[0, 0, 4, 5], image[0, 0, 3, 0] = np.inf, np.nan, -np.inf
    ours = F.interpolate(al.tensor(image), mode="bicubic", **options).numpy()
    theirs = torch.nn.functional.interpolate(torch.tensor(image), mode="bicubic", **options).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)


def test_upsample_module_in_bicubic_mode():
    image = _image((1, 3, 5, 7), "float32")
    for kwargs in (dict(scale_factor=2, mode="bicubic"), dict(size=(3, 4), mode="bicubic", align_corners=True)):
        ours, theirs = al.nn.Upsample(**kwargs), torch.nn.Upsample(**kwargs)
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(al.tensor(image)).numpy(), theirs(torch.tensor(image)).numpy(),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call, error", [
    (lambda m: m.nn.functional.interpolate(m.ones(1, 2, 5), scale_factor=2, mode="bicubic"), NotImplementedError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 3, 4), scale_factor=2, mode="bicubic"),
     NotImplementedError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 1, 7), scale_factor=0.5, mode="bicubic"), RuntimeError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 0, 7), scale_factor=2, mode="bilinear"), RuntimeError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 0, 2, 7), scale_factor=2, mode="bicubic"), RuntimeError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), size=(2, 3, 4), mode="bicubic"), ValueError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), scale_factor=0.5, mode="linear", antialias=True),
     ValueError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), scale_factor=0.5, antialias=True), ValueError),
])
def test_bicubic_errors_are_torchs(call, error):
    same_error(torch, call, error)


@pytest.mark.parametrize("dtype, antialias", [("int64", False), ("bool", False), ("int32", False), ("int64", True),
                                              ("float16", True)])
def test_dtypes_without_a_kernel_raise_torchs_error(dtype, antialias):
    same_error(torch, lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4, dtype=getattr(m, dtype)), scale_factor=0.5,
                                                            mode="bicubic", antialias=antialias), NotImplementedError)


@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_images_are_refused_not_resampled_wrongly(antialias):
    with pytest.raises(NotImplementedError, match=r"uint8 images is not implemented \[autograd_lab\]"):
        F.interpolate(al.ones(1, 1, 4, 4, dtype=al.uint8), scale_factor=0.5, mode="bicubic", antialias=antialias)


def test_half_precision_images_resample_in_their_dtype():
    image = _image((1, 2, 5, 6), "float16", seed=4)
    ours = F.interpolate(al.tensor(image), scale_factor=1.5, mode="bicubic")
    theirs = torch.nn.functional.interpolate(torch.tensor(image), scale_factor=1.5, mode="bicubic")
    assert ours.dtype is al.float16
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=1e-2, atol=1e-2)
