"""``F.grid_sample`` and ``F.affine_grid`` (the Spatial Transformer Networks tutorial's pair) against PyTorch: values,
dtypes, nodes and their saved values, gradients to the input and to the grid (and to theta), gradients of gradients
and of a third order, finite differences in float64, the warning, and the errors in PyTorch's words."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

MODES = [(mode, padding, align) for mode in ("bilinear", "nearest") for padding in ("zeros", "border", "reflection")
         for align in (False, True)]


def _case(dims: int, dtype: str = "float64", seed: int = 0):
    """An input (2, 3, *spatial) and a grid whose points lie in and a little outside [-1, 1]."""
    rng = np.random.default_rng(seed)
    image = rng.standard_normal((2, 3) + (4, 5, 3)[:dims]).astype(dtype)
    grid = rng.uniform(-1.3, 1.3, (2,) + (3, 4, 2)[:dims] + (dims,)).astype(dtype)
    return image, grid


def _both(fn, *arrays):
    """``fn(m, *leaves)`` for autograd_lab and torch, leaves made from ``arrays`` requiring grad."""
    runs = []
    for m in (al, torch):
        leaves = [m.tensor(a, requires_grad=True) for a in arrays]
        runs.append((fn(m, *leaves), leaves))
    return runs


def _close(ours, theirs, rtol):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)


def _sample(mode, padding, align):
    return lambda m, x, g: m.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("mode, padding, align", MODES)
def test_grid_sample_values_nodes_and_gradients_match_torch(dims, mode, padding, align):
    (ours, our_leaves), (theirs, their_leaves) = _both(_sample(mode, padding, align), *_case(dims))
    assert ours.grad_fn.name() == theirs.grad_fn.name() == f"GridSampler{dims}DBackward0"
    _close(ours, theirs, 1e-12)
    seed = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
    got = al.autograd.grad(ours, our_leaves, al.tensor(seed))
    want = torch.autograd.grad(theirs, their_leaves, torch.tensor(seed))
    for a, b in zip(got, want):  # (the grid's gradient is zero for nearest, as PyTorch's)
        _close(a, b, 1e-12)


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_float32_sampling_matches_torch(dims, padding):
    (ours, our_leaves), (theirs, their_leaves) = _both(_sample("bilinear", padding, False), *_case(dims, "float32"))
    _close(ours, theirs, 1e-5)
    seed = np.random.default_rng(1).standard_normal(tuple(theirs.shape)).astype("float32")
    for a, b in zip(al.autograd.grad(ours, our_leaves, al.tensor(seed)),
                    torch.autograd.grad(theirs, their_leaves, torch.tensor(seed))):
        _close(a, b, 1e-4)


def test_saved_values_are_torchs():
    (ours, _), (theirs, _) = _both(_sample("nearest", "reflection", True), *_case(2))
    for name in ("interpolation_mode", "padding_mode", "align_corners"):
        assert getattr(ours.grad_fn, f"_saved_{name}") == getattr(theirs.grad_fn, f"_saved_{name}")
    for name in ("input", "grid"):
        _close(getattr(ours.grad_fn, f"_saved_{name}"), getattr(theirs.grad_fn, f"_saved_{name}"), 0)


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("padding, align", [("zeros", False), ("border", True), ("reflection", False),
                                            ("reflection", True)])
def test_gradients_of_gradients_and_third_order_match_torch(dims, padding, align):
    def chain(m, x, g):
        out = m.nn.functional.grid_sample(x, g, padding_mode=padding, align_corners=align)
        grad_x, grad_g = m.autograd.grad((out ** 2).sum(), (x, g), create_graph=True)
        second = m.autograd.grad((grad_g ** 2).sum() + (grad_x ** 3).sum(), (x, g), create_graph=True)
        third = m.autograd.grad(sum((s ** 2).sum() for s in second), (x, g))
        return grad_x, grad_g, second, third
    (ours, _), (theirs, _) = _both(chain, *_case(dims, seed=2))
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == f"GridSampler{dims}DBackwardBackward0"
    assert ours[1].grad_fn is ours[0].grad_fn
    for a, b in zip([*ours[:2], *ours[2], *ours[3]], [*theirs[:2], *theirs[2], *theirs[3]]):
        scale = max(1.0, float(np.abs(b.detach().numpy()).max()))
        np.testing.assert_allclose(a.detach().numpy() / scale, b.detach().numpy() / scale, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("mode, padding, align", [("bilinear", "zeros", False), ("bilinear", "reflection", True),
                                                  ("bilinear", "border", False), ("nearest", "zeros", True)])
def test_finite_differences_agree_to_second_order_and_forward_mode(dims, mode, padding, align):
    rng = np.random.default_rng(3)
    x = al.tensor(rng.standard_normal((1, 2) + (3, 4, 3)[:dims]), requires_grad=True)
    g = al.tensor(rng.uniform(-1.2, 1.2, (1,) + (2, 3, 2)[:dims] + (dims,)), requires_grad=True)

    def fn(a, b):
        return F.grid_sample(a, b, mode=mode, padding_mode=padding, align_corners=align)
    assert gradcheck(fn, (x, g), check_forward_ad=True)
    assert gradgradcheck(fn, (x, g), check_fwd_over_rev=True)


@pytest.mark.filterwarnings("ignore:Since version 1.3.0")  # (unit-size grids: the test below checks the warning)
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 7, 6), (2, 3, 3, 4, 5), (2, 1, 1, 2, 1)])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-14), ("float32", 1e-6)])
def test_affine_grid_matches_torch(size, align, dtype, rtol):
    dims = len(size) - 2
    theta = np.random.default_rng(4).standard_normal((2, dims, dims + 1)).astype(dtype)
    (ours, our_theta), (theirs, their_theta) = _both(
        lambda m, t: m.nn.functional.affine_grid(t, size, align_corners=align), theta)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "AffineGridGeneratorBackward0"
    assert ours.grad_fn._saved_size == tuple(theirs.grad_fn._saved_size)
    assert ours.grad_fn._saved_align_corners == theirs.grad_fn._saved_align_corners
    _close(ours, theirs, rtol)
    seed = np.random.default_rng(5).standard_normal(tuple(theirs.shape)).astype(dtype)
    _close(al.autograd.grad(ours, our_theta, al.tensor(seed))[0],
           torch.autograd.grad(theirs, their_theta, torch.tensor(seed))[0], rtol * 10)


def test_affine_grid_float32_points_are_torchs_to_the_bit():
    """The base points are PyTorch's linspace (not NumPy's, which rounds differently in float32), so a sampler at
    pixel centres falls on the same side of each pixel as PyTorch's."""
    theta = np.tile(np.eye(2, 3, dtype="float32"), (1, 1, 1))
    for steps in (3, 7, 13, 31):
        ours = F.affine_grid(al.tensor(theta), (1, 1, steps, steps + 1), align_corners=True)
        theirs = torch.nn.functional.affine_grid(torch.tensor(theta), (1, 1, steps, steps + 1), align_corners=True)
        assert np.array_equal(ours.numpy(), theirs.numpy())


def test_unit_size_grids_with_align_corners_warn_as_torch_does():
    for m in (torch, al):
        with pytest.warns(UserWarning, match="unit-size grids when align_corners=True"):
            m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 1, 4), align_corners=True)


def test_affine_grid_gradients_of_gradients():
    theta = al.tensor(np.random.default_rng(6).standard_normal((2, 3, 4)), requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (2, 1, 2, 3, 4), align_corners=False), (theta,), check_forward_ad=True)
    assert gradgradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4, 2), align_corners=True) ** 2, (theta,))


@pytest.mark.parametrize("align", [False, True])
def test_an_identity_transform_gives_the_image_back_and_a_spatial_transformer_trains(align):
    """The tutorial's pattern: a localisation net's theta, affine_grid, grid_sample; the identity gives the input."""
    image = al.tensor(np.random.default_rng(7).standard_normal((2, 3, 5, 6)))
    theta = al.tensor(np.tile(np.eye(2, 3), (2, 1, 1)), requires_grad=True)
    out = F.grid_sample(image, F.affine_grid(theta, image.shape, align_corners=align), align_corners=align)
    np.testing.assert_allclose(out.detach().numpy(), image.numpy(), atol=1e-12)
    shifted = F.grid_sample(image, F.affine_grid(theta + al.tensor([[0.0, 0, 0.2], [0, 0, 0]]), image.shape,
                                                 align_corners=align), align_corners=align)
    ((shifted - image) ** 2).mean().backward()
    assert theta.grad.abs().sum().item() > 0


_NON_FINITE = np.array([[[[np.nan, 0.2], [0.1, np.inf], [-np.inf, 0.3], [5.0, -7.0], [np.nan, np.nan]]]])


@pytest.mark.parametrize("mode, padding, align", MODES)
def test_non_finite_grid_points_read_what_torch_reads(mode, padding, align):
    """NaN and infinite coordinates: a corner outside is never read (a NaN weight leaks into no gradient), and the
    border and reflection modes move NaN to 0 as PyTorch's CPU kernels do. PyTorch's own backward of bilinear
    border/reflection crashes on such points, so there only the forward is compared and ours is checked finite."""
    image = np.arange(12.0).reshape(1, 1, 3, 4)
    with_backward = mode == "nearest" or padding == "zeros"
    results = []
    for m in (al, torch):
        leaf = m.tensor(image, requires_grad=True)
        out = _sample(mode, padding, align)(m, leaf, m.tensor(_NON_FINITE))
        if with_backward or m is al:
            out.sum().backward()
        results.append((out, leaf.grad))
    _close(results[0][0], results[1][0], 1e-12)
    if with_backward:
        _close(results[0][1], results[1][1], 1e-12)
    else:
        assert np.isfinite(results[0][1].numpy()).all()


def test_empty_batches_channels_and_points_sample_to_empty_results():
    for shape, grid_shape in (((0, 2, 3, 4), (0, 5, 6, 2)), ((1, 0, 3, 4), (1, 5, 6, 2)), ((1, 2, 3, 4), (1, 0, 6, 2))):
        (ours, our_leaves), (theirs, their_leaves) = _both(
            _sample("bilinear", "zeros", False), np.zeros(shape), np.zeros(grid_shape))
        _close(ours, theirs, 0)
        ours.sum().backward()
        assert [tuple(leaf.grad.shape) for leaf in our_leaves] == [shape, grid_shape]


def test_leaving_align_corners_out_warns_as_torch_does():
    for fn in (lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 1, 2)),
               lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3), (1, 1, 2, 2))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(torch)
            fn(al)
        assert len(caught) == 2 and str(caught[0].message) == str(caught[1].message)
        assert caught[1].filename == __file__


def _error(fn, error):
    with pytest.raises(error) as theirs:
        fn(torch)
    with pytest.raises(error) as ours:
        fn(al)
    phrase = str(theirs.value).replace("torch.", "al.")  # (a dtype named as each library names it)
    assert phrase in str(ours.value), (phrase, str(ours.value))


@pytest.mark.parametrize("shape, grid_shape", [((2, 2, 3, 4), (1, 5, 6, 2)), ((1, 2, 3, 4), (1, 5, 6, 3)),
                                               ((1, 2, 3), (1, 5, 1)), ((1, 2, 3, 4), (1, 5, 6, 7, 2)),
                                               ((1, 2, 0, 4), (1, 5, 6, 2)), ((1, 2, 3, 4, 5), (1, 5, 6, 2))])
def test_grid_sample_shape_errors_are_torchs(shape, grid_shape):
    _error(lambda m: m.nn.functional.grid_sample(m.zeros(*shape), m.zeros(*grid_shape), align_corners=False),
           RuntimeError)


def test_grid_sample_argument_errors_are_torchs():
    def sample(mode="bilinear", padding="zeros", dims=2, dtype="float32", grid_dtype=None):
        return lambda m: m.nn.functional.grid_sample(
            m.zeros((1, 1) + (2,) * dims, dtype=getattr(m, dtype)),
            m.zeros((1, 1, 1) + (1,) * (dims - 2) + (dims,), dtype=getattr(m, grid_dtype or dtype)),
            mode=mode, padding_mode=padding, align_corners=False)
    _error(sample(mode="bogus"), ValueError)
    _error(sample(padding="bogus"), ValueError)
    _error(sample(mode="bicubic", dims=3), RuntimeError)
    _error(sample(grid_dtype="float64"), RuntimeError)
    _error(sample(dtype="int32"), NotImplementedError)
    _error(sample(dtype="int32", dims=3), NotImplementedError)


@pytest.mark.parametrize("theta_shape, size, error", [((1, 2, 3), (1, 1, 2), NotImplementedError),
                                                      ((1, 3, 3), (1, 1, 2, 2), ValueError),
                                                      ((1, 2, 3), (1, 1, 2, 2, 2), ValueError),
                                                      ((1, 2, 3), (2, 1, 2, 2), RuntimeError)])
def test_affine_grid_errors_are_torchs(theta_shape, size, error):
    _error(lambda m: m.nn.functional.affine_grid(m.zeros(*theta_shape), size, align_corners=False), error)
    _error(lambda m: m.nn.functional.affine_grid(m.zeros(1, 2, 3, dtype=m.int32), (1, 1, 2, 2), align_corners=False),
           ValueError)
