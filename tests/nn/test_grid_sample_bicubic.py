"""``F.grid_sample(mode='bicubic')`` against PyTorch: values in float64 and float32, the node and its saved values,
gradients to the input and to the grid, gradients of gradients and of a third order, non-finite grid points, and
finite differences (with forward mode) in float64."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

SETTINGS = [(padding, align) for padding in ("zeros", "border", "reflection") for align in (False, True)]


def _case(dtype="float64", seed=0):
    """An image (2, 3, 4, 5) and a grid of (2, 3, 4) points, in and a little outside [-1, 1]."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, 3, 4, 5)).astype(dtype), rng.uniform(-1.4, 1.4, (2, 3, 4, 2)).astype(dtype)


def _sample(padding, align):
    return lambda m, x, g: m.nn.functional.grid_sample(x, g, mode="bicubic", padding_mode=padding, align_corners=align)


def _runs(fn, *arrays):
    """``fn(m, *leaves)`` for autograd_lab and torch, with leaves made from ``arrays`` requiring grad."""
    return [fn(m, *[m.tensor(a, requires_grad=True) for a in arrays]) for m in (al, torch)]


def _close(ours, theirs, tolerance):
    """Equal within ``tolerance`` of the larger of 1 and the largest magnitude (gradients add many terms)."""
    ours, theirs = np.asarray(ours.tolist()), np.asarray(theirs.tolist())
    assert ours.shape == theirs.shape
    scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0)))
    np.testing.assert_allclose(ours / scale, theirs / scale, rtol=tolerance, atol=tolerance, equal_nan=True)


@pytest.mark.parametrize("padding, align", SETTINGS)
@pytest.mark.parametrize("dtype, tolerance", [("float64", 1e-13), ("float32", 1e-6)])
def test_bicubic_sampling_and_its_gradients_match_torch(padding, align, dtype, tolerance):
    def run(m, x, g):
        out = _sample(padding, align)(m, x, g)
        seed = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        return (out, *m.autograd.grad(out, (x, g), m.tensor(seed)))
    ours, theirs = _runs(run, *_case(dtype))
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "GridSampler2DBackward0"
    assert str(ours[0].dtype).split(".")[-1] == dtype
    _close(ours[0], theirs[0], tolerance)
    for a, b in zip(ours[1:], theirs[1:]):
        _close(a, b, tolerance * 10)


def test_bicubic_saved_values_are_torchs():
    ours, theirs = (out.grad_fn for out in _runs(_sample("border", True), *_case()))
    for name in ("interpolation_mode", "padding_mode", "align_corners"):
        assert getattr(ours, f"_saved_{name}") == getattr(theirs, f"_saved_{name}")
    for name in ("input", "grid"):
        _close(getattr(ours, f"_saved_{name}"), getattr(theirs, f"_saved_{name}"), 0)


@pytest.mark.parametrize("padding, align", SETTINGS[::2] + [("reflection", True)])
def test_bicubic_gradients_of_gradients_and_third_order_match_torch(padding, align):
    def chain(m, x, g):
        out = _sample(padding, align)(m, x, g)
        grad_x, grad_g = m.autograd.grad((out ** 2).sum(), (x, g), create_graph=True)
        second = m.autograd.grad((grad_g ** 2).sum() + (grad_x ** 3).sum(), (x, g), create_graph=True)
        third = m.autograd.grad(sum((s ** 2).sum() for s in second), (x, g))
        return grad_x, grad_g, *second, *third
    ours, theirs = _runs(chain, *_case(seed=2))
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "GridSampler2DBackwardBackward0"
    for a, b in zip(ours, theirs):
        _close(a, b, 1e-10)


@pytest.mark.parametrize("padding, align", [("zeros", False), ("border", True), ("reflection", False)])
def test_bicubic_finite_differences_to_second_order_and_forward_mode(padding, align):
    rng = np.random.default_rng(3)
    x = al.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    g = al.tensor(rng.uniform(-1.2, 1.2, (1, 2, 3, 2)), requires_grad=True)

    def fn(a, b):
        return F.grid_sample(a, b, mode="bicubic", padding_mode=padding, align_corners=align)
    assert gradcheck(fn, (x, g), check_forward_ad=True)
    assert gradgradcheck(fn, (x, g), check_fwd_over_rev=True)


_NON_FINITE = np.array([[[[np.nan, 0.2], [0.1, np.inf], [-np.inf, 0.3], [1e6, -7.0], [np.nan, np.nan]]]])


@pytest.mark.parametrize("padding, align", SETTINGS)
def test_non_finite_grid_points_reach_what_torch_reaches(padding, align):
    """A NaN or infinite coordinate gives NaN weights; its taps read nothing with zeros padding, the edge pixel
    (a clamped infinity) or pixel 0 (a NaN) with border, pixel 0 with reflection: there the NaN gradient goes."""
    def run(m, x, g):
        out = _sample(padding, align)(m, x, g)
        return (out, *m.autograd.grad(out.sum(), (x, g)))
    for a, b in zip(*_runs(run, np.arange(12.0).reshape(1, 1, 3, 4), _NON_FINITE)):
        np.testing.assert_array_equal(np.isnan(a.detach().numpy()), np.isnan(b.detach().numpy()))
        _close(a, b, 1e-12)
