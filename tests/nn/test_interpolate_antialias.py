"""``F.interpolate(..., antialias=True)`` (modes ``bilinear`` and ``bicubic``) against PyTorch: values in float64
and float32, nodes and saved values, gradients, the nodes recorded under create_graph, NaN and infinity, finite
differences in float64, and one case where PyTorch's forward disagrees with its own gradient."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck
from tests.ops._torch_compare import same_as_torch

torch = pytest.importorskip("torch")

MODES = ["bilinear", "bicubic"]
RESIZES = [dict(scale_factor=0.5), dict(scale_factor=0.3), dict(size=(4, 3)), dict(size=(2, 9)), dict(scale_factor=2),
           dict(scale_factor=(0.45, 0.7), recompute_scale_factor=True), dict(size=(3, 5), align_corners=True),
           dict(size=(9, 2)), dict(size=(1, 1)), dict(size=(1, 2), align_corners=True)]


def _image(shape=(2, 3, 9, 11), dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options", RESIZES)
def test_antialiased_values_node_and_gradients_match_torch(mode, options):
    out = same_as_torch(torch, lambda m, x: m.nn.functional.interpolate(x, mode=mode, antialias=True, **options),
                        _image(), rtol=1e-13)
    assert out.grad_fn.name() == f"Upsample{mode.capitalize()}2DAaBackward0"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options", RESIZES[:4])
def test_antialiased_float32_within_single_precision_rounding(mode, options):
    image = _image(dtype="float32", seed=1)
    ours = F.interpolate(al.tensor(image), mode=mode, antialias=True, **options)
    theirs = torch.nn.functional.interpolate(torch.tensor(image), mode=mode, antialias=True, **options)
    assert ours.dtype is al.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_antialiased_saved_values_and_second_order_nodes_are_torchs(mode):
    grads = []
    for m in (al, torch):
        x = m.tensor(_image((1, 2, 7, 5)), requires_grad=True)
        y = m.nn.functional.interpolate(x, scale_factor=(0.5, 0.7), mode=mode, antialias=True)
        saved = {name: getattr(y.grad_fn, f"_saved_{name}")
                 for name in ("align_corners", "output_size", "scales_h", "scales_w", "self_sym_sizes")}
        (g,) = m.autograd.grad(y, x, m.tensor(_image(tuple(y.shape), seed=2), requires_grad=True), create_graph=True)
        assert g.grad_fn.name() == f"Upsample{mode.capitalize()}2DAaBackwardBackward0"
        (gg,) = m.autograd.grad((g * g).sum(), x, allow_unused=True)
        grads.append((saved, gg))
    (ours, our_gg), (theirs, their_gg) = grads
    assert ours == {name: tuple(v) if isinstance(v, torch.Size) else v for name, v in theirs.items()}
    assert our_gg is None and their_gg is None  # (the gradient is linear in the incoming gradient, not in x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options", [dict(scale_factor=0.5), dict(size=(2, 7), align_corners=True)])
def test_antialiased_gradcheck_and_gradgradcheck(mode, options):
    x = al.tensor(_image((1, 2, 5, 6)), requires_grad=True)
    assert gradcheck(lambda v: F.interpolate(v, mode=mode, antialias=True, **options), [x])
    assert gradgradcheck(lambda v: F.interpolate(v, mode=mode, antialias=True, **options), [x])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options", [dict(size=(9, 3)), dict(scale_factor=0.5), dict(size=(4, 8)),
                                     dict(scale_factor=1.5), dict(size=(3, 3), align_corners=True)])
def test_nan_and_infinity_reach_only_the_outputs_whose_support_covers_them(mode, options):
    image = np.zeros((1, 1, 9, 8))
    image[0, 0, 1, 2], image[0, 0, 7, 5], image[0, 0, 4, 0] = np.inf, np.nan, -np.inf
    ours = F.interpolate(al.tensor(image), mode=mode, antialias=True, **options).numpy()
    theirs = torch.nn.functional.interpolate(torch.tensor(image), mode=mode, antialias=True, **options).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("mode", MODES)
def test_an_output_one_pixel_wide_resamples_its_height(mode):
    """PyTorch 2.13's CPU forward gives every row the first row's value when the output is one pixel wide and
    the height changes (its gradient is right); ours resamples the height, as PyTorch does for the transposed
    image, and its gradient is PyTorch's."""
    image = _image((1, 2, 13, 6))
    ours = al.tensor(image, requires_grad=True)
    out = F.interpolate(ours, size=(3, 1), mode=mode, antialias=True)
    transposed = torch.nn.functional.interpolate(torch.tensor(image).transpose(2, 3), size=(1, 3), mode=mode,
                                                 antialias=True).transpose(2, 3)
    np.testing.assert_allclose(out.detach().numpy(), transposed.numpy(), rtol=1e-13, atol=1e-13)
    theirs = torch.tensor(image, requires_grad=True)
    seed = _image((1, 2, 3, 1), seed=3)
    (our_grad,) = al.autograd.grad(out, ours, al.tensor(seed))
    (their_grad,) = torch.autograd.grad(torch.nn.functional.interpolate(theirs, size=(3, 1), mode=mode, antialias=True),
                                        theirs, torch.tensor(seed))
    np.testing.assert_allclose(our_grad.numpy(), their_grad.numpy(), rtol=1e-13, atol=1e-13)
