"""Losses and pools at the values where a formula is easy to get subtly wrong, against PyTorch: infinities and NaNs
that must stay in the sums they belong to (an adaptive window, a sample's hinge), and the kinks of smooth_l1/huber,
where PyTorch's second derivative takes the constant side. Each was found by the differential fuzzer (the seeds are
named)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _both(build, values, grad=True):
    """``build(lib, x)`` in both libraries; the outputs, and x's gradient of the outputs' sum (NaNs kept)."""
    results = []
    for lib in (al, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=grad)
        out = build(lib, x)
        gradient = lib.autograd.grad(out.sum(), x)[0].numpy() if grad else None
        results.append((out.detach().numpy(), gradient))
    return results


@pytest.mark.parametrize("values", [
    [[[-2.0, 0.0], [NAN, -0.25], [INF, -0.35]], [[3.0, -0.73], [0.25, 1.0], [-1.83, 2.38]]],  # seed 51005495
    [[[0.06, 0.5, -0.98], [0.04, NAN, 1.0], [INF, 2.0, 0.0]]],
])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_adaptive_avg_pool_keeps_a_nan_or_inf_in_its_own_windows(values, size):
    (ours, _), (theirs, _) = _both(lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, size), values, grad=False)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0, equal_nan=True)


def test_adaptive_avg_pool_gradients_keep_a_nan_in_its_own_windows():
    def build(lib, x):  # a NaN in the incoming gradient (the rsqrt of a negative) for one window only
        return lib.nn.functional.adaptive_avg_pool2d(x, (2, 3)).mul(lib.tensor([[1.0, -1.0, 2.0], [0.5, 1.0, 1.0]],
                                                                                dtype=lib.float64)).rsqrt()
    values = np.arange(1.0, 21.0).reshape(1, 4, 5) / 7
    (ours, our_grad), (theirs, their_grad) = _both(build, values.tolist())
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, equal_nan=True)
    assert np.isnan(our_grad).any() and not np.isnan(our_grad).all()


@pytest.mark.parametrize("values,target", [
    ([[1.0, 3.0, 0.0, 2.0, 6.0, 0.0], [INF, -1.52, -1.0, INF, -3.04, -2.0]], [4, 4]),  # seed 51006182
    ([[INF, -0.25], [-1.0, 0.0], [1.5, 0.37]], [1, 1, 1]),  # seed 51011232
    ([[-1.0, NAN, -1.85], [2.16, 1.0, NAN], [0.52, 0.5, -1.82]], [2, 2, 1]),  # seed 51012166
])
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss_reads_the_target_score_without_multiplying_others_by_zero(values, target, p):
    def build(lib, x):
        return lib.nn.functional.multi_margin_loss(x, lib.tensor(target), p=p, reduction="none")
    (ours, our_grad), (theirs, their_grad) = _both(build, values)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-14, equal_nan=True)


@pytest.mark.parametrize("name,setting", [("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {"delta": 0.5})])
def test_second_derivative_at_the_kink_is_pytorchs(name, setting):
    """At abs(x - y) == beta both sides give the same first derivative; PyTorch's second derivative is 0 there
    (seeds 51002548, 51017147), and NaN stays NaN."""
    values = [0.5, -0.5, 0.2, 2.0, NAN, -3.0]
    results = []
    for lib in (al, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.zeros(6, dtype=lib.float64), reduction="sum", **setting)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("values,kwargs", [
    ([[[3.0, 2.0], [3.0, -0.74], [-INF, -0.25]]], {"scale_factor": 2, "mode": "linear"}),  # seed 51009738
    ([[[2.0, -0.5, -1.0]], [[INF, 0.0, 0.25]]], {"scale_factor": 2, "mode": "linear"}),  # seed 51011896
    ([[[2.0, -0.5, -1.0]], [[INF, 0.0, NAN]]], {"size": 7, "mode": "linear", "align_corners": True}),
    ([[[[1.0, INF], [0.5, -2.0]]]], {"size": (3, 5), "mode": "bilinear"}),
    ([[[[1.0, INF], [NAN, -2.0]]]], {"scale_factor": 3, "mode": "nearest"}),
])
def test_interpolate_adds_its_taps_as_pytorch_does(values, kwargs):
    """An output reads two input positions (one for nearest), weighted: an infinity reaches the outputs that read
    it, and a 0 weight on it gives NaN as in PyTorch's kernel; the gradient scatters the same way."""
    def build(lib, x):
        return lib.nn.functional.interpolate(x, **kwargs) * 0.5
    (ours, our_grad), (theirs, their_grad) = _both(build, values)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, equal_nan=True)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-14, equal_nan=True)


@pytest.mark.parametrize("kwargs", [{"scale_factor": 2, "mode": "linear"}, {"size": 5, "mode": "nearest"},
                                    {"size": (5, 4), "mode": "bilinear", "align_corners": True},
                                    {"scale_factor": (2, 1.5, 2), "mode": "trilinear"}])
def test_interpolate_nodes_keep_pytorchs_sizes_and_scales(kwargs):
    spatial = len(kwargs["size"]) if isinstance(kwargs.get("size"), tuple) else len(kwargs["scale_factor"]) if \
        isinstance(kwargs.get("scale_factor"), tuple) else 1
    shape = (1, 2) + (3,) * spatial
    nodes = [lib.nn.functional.interpolate(lib.ones(shape, requires_grad=True), **kwargs).grad_fn for lib in (al, torch)]
    names = sorted(a for a in dir(nodes[1]) if a.startswith("_saved_"))
    assert sorted(a for a in dir(nodes[0]) if a.startswith("_saved_")) == names
    assert nodes[0].name() == nodes[1].name()
    assert [getattr(nodes[0], a) for a in names] == [getattr(nodes[1], a) for a in names]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_second_derivative_is_pytorchs_near_0_and_1(reduction):
    """BCE's derivative is an op of its own (BinaryCrossEntropyBackwardBackward0), whose derivative for the input puts
    1e-12 on p and on 1 - p, as PyTorch's: near 1 a formula derived from the clamped first derivative differs by
    1e-12 / (1 - p) relative (seeds 51006062, 51019915)."""
    results = []
    for lib in (al, torch):
        p = lib.tensor([0.9968313484090519, 0.3, 1e-5], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([0.68, 0.2, 0.9], dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy(p, y, weight=lib.tensor([1.5, 0.5, 1.0], dtype=lib.float64),
                                                      reduction=reduction)
        gp, gy = lib.autograd.grad(loss.sum(), (p, y), create_graph=True)
        results.append([gp.grad_fn.name(), *(g.numpy() for g in lib.autograd.grad((gp * gp).sum(), (p, y)))])
    assert results[0][0] == results[1][0] == "BinaryCrossEntropyBackwardBackward0"
    for ours, theirs in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, INF])
def test_pdist_gradient_at_a_zero_distance_ignores_the_incoming_gradient_as_pytorch(p):
    """Rows 0 and 2 coincide: for p other than 1 and inf PyTorch writes 0 for that pair whatever its gradient, a
    NaN included (seed 56000687); for p = 1 and inf the NaN goes through, as there."""
    results = []
    for lib in (al, torch):
        x = lib.tensor([[-2.0], [1.0], [-2.0]], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.pdist(x, p=p), x, lib.tensor([1.0, NAN, 2.0], dtype=lib.float64))
        results.append(g.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-14, equal_nan=True)
