"""``F.unfold``/``F.fold`` and ``nn.Unfold``/``nn.Fold`` (im2col and its adjoint) against PyTorch: values, dtypes,
gradients, nodes and their saved values, gradients of gradients, finite differences in float64, the modules' reprs
and the errors; and that a convolution is a matrix product with the unfolded image.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

SETTINGS = [
    ((2, 3, 5, 6), dict(kernel_size=2)),
    ((2, 3, 5, 6), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2))),
    ((1, 2, 7, 6), dict(kernel_size=3, padding=(2, 0), stride=2, dilation=2)),
    ((3, 4, 4), dict(kernel_size=(1, 2), stride=(2, 1))),  # one unbatched image
]


def _twin(array, dtype="float64"):
    array = np.asarray(array, dtype=dtype)
    return al.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def _compare(ours, theirs, leaf, their_leaf, rtol=1e-12):
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.grad_fn.name() == theirs.grad_fn.name()
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)
    g = np.random.default_rng(1).standard_normal(tuple(theirs.shape)).astype(theirs.detach().numpy().dtype)
    (got,), (want,) = al.autograd.grad(ours, leaf, al.tensor(g)), torch.autograd.grad(theirs, their_leaf, torch.tensor(g))
    assert got.grad_fn is None and str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape, settings", SETTINGS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unfold_and_fold_match_torch(shape, settings, dtype):
    x, xt = _twin(np.random.default_rng(0).standard_normal(shape), dtype)
    ours, theirs = F.unfold(x, **settings), torch.nn.functional.unfold(xt, **settings)
    node, their_node = ours.grad_fn, theirs.grad_fn
    for name in ("kernel_size", "dilation", "padding", "stride", "self_sym_argsize_minus_1",
                 "self_sym_argsize_minus_2"):
        assert getattr(node, f"_saved_{name}") == getattr(their_node, f"_saved_{name}"), name
    _compare(ours, theirs, x, xt, rtol=1e-6 if dtype == "float32" else 1e-12)
    cols, colst = _twin(np.random.default_rng(2).standard_normal(tuple(theirs.shape)), dtype)
    ours, theirs = F.fold(cols, shape[-2:], **settings), torch.nn.functional.fold(colst, shape[-2:], **settings)
    for name in ("kernel_size", "dilation", "padding", "stride"):
        assert getattr(ours.grad_fn, f"_saved_{name}") == getattr(theirs.grad_fn, f"_saved_{name}"), name
    _compare(ours, theirs, cols, colst, rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("shape, settings", SETTINGS[1:3])
def test_unfold_and_fold_gradcheck_gradgradcheck_and_nodes_of_the_gradients(shape, settings):
    x, xt = _twin(np.random.default_rng(0).standard_normal(shape))
    assert gradcheck(lambda v: F.unfold(v, **settings), (x,), check_forward_ad=True)
    assert gradgradcheck(lambda v: F.unfold(v, **settings), (x,), check_fwd_over_rev=True)
    cols, colst = _twin(F.unfold(x, **settings).detach().numpy() * 0.5)
    assert gradcheck(lambda v: F.fold(v, shape[-2:], **settings), (cols,), check_forward_ad=True)
    assert gradgradcheck(lambda v: F.fold(v, shape[-2:], **settings), (cols,))
    for fn, leaf, leaf_t in ((F.unfold, x, xt), (lambda v, **s: F.fold(v, shape[-2:], **s), cols, colst)):
        their_fn = torch.nn.functional.unfold if fn is F.unfold else \
            (lambda v, **s: torch.nn.functional.fold(v, shape[-2:], **s))
        (g,) = al.autograd.grad(fn(leaf, **settings).pow(2).sum(), leaf, create_graph=True)
        (gt,) = torch.autograd.grad(their_fn(leaf_t, **settings).pow(2).sum(), leaf_t, create_graph=True)
        assert g.grad_fn.name() == gt.grad_fn.name()


def test_conv2d_is_a_matrix_product_with_the_unfolded_image():
    rng = np.random.default_rng(4)
    x, w = al.tensor(rng.standard_normal((2, 3, 6, 5))), al.tensor(rng.standard_normal((4, 3, 3, 2)))
    cols = F.unfold(x, (3, 2), padding=1, stride=2)
    by_hand = (w.reshape(4, -1) @ cols).reshape(2, 4, 3, 3)
    np.testing.assert_allclose(by_hand.numpy(), F.conv2d(x, w, padding=1, stride=2).numpy(), rtol=1e-12)


def test_fold_of_unfold_counts_how_many_blocks_cover_each_pixel():
    ones = al.ones(1, 1, 4, 4)
    counts = F.fold(F.unfold(ones, 2), (4, 4), 2)
    np.testing.assert_array_equal(counts[0, 0].numpy(), [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]])


def test_modules_match_torch():
    for args in [(2,), ((2, 3), 2, 1, (1, 2))]:
        ours, theirs = al.nn.Unfold(*args), torch.nn.Unfold(*args)
        assert repr(ours) == repr(theirs)
        x, xt = _twin(np.random.default_rng(0).standard_normal((2, 3, 5, 6)))
        _compare(ours(x), theirs(xt), x, xt)
        fold, their_fold = al.nn.Fold((5, 6), *args), torch.nn.Fold((5, 6), *args)
        assert repr(fold) == repr(their_fold)
        cols, colst = _twin(theirs(xt).detach().numpy())
        _compare(fold(cols), their_fold(colst), cols, colst)
    assert repr(al.nn.Fold(4, (2, 3), 2, 1, 3)) == repr(torch.nn.Fold(4, (2, 3), 2, 1, 3))


def _same_error(call, error, phrase=None):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(al)
    phrase = phrase or str(theirs.value).splitlines()[0]
    assert phrase in str(theirs.value) and phrase in str(ours.value), (str(theirs.value), str(ours.value))


@pytest.mark.parametrize("call, error", [
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), 6), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), 2, padding=-1), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), 0), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), 2, stride=0), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), 2, dilation=(1, 0)), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5), (2, 2, 2)), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 0, 5, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.unfold(m.ones(2, 3, 5, 5, dtype=m.int64), 2), NotImplementedError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 16), (5, 5), 3), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 16), (5, 6), 2), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 16), (1, 1), 2), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(12, 16), (5, 5), 3), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(16), (5, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 0), (5, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 16), (5, 5), 2, stride=0), RuntimeError),
    (lambda m: m.nn.functional.fold(m.ones(2, 12, 16, dtype=m.int64), (5, 5), 2), NotImplementedError),
])
def test_errors_as_in_pytorch(call, error):
    _same_error(call, error)


def test_unfold_of_a_matrix_names_the_shapes_it_takes():
    with pytest.raises(RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor .* but got: \[5, 5\]"):
        F.unfold(al.ones(5, 5), 2)  # (PyTorch's own error here is an IndexError about a dim out of range)
