"""moveaxis, swapdims (and swapdims_), ravel, fliplr, flipud, Tensor.unfold, unsqueeze_, squeeze_, narrow_copy,
storage_offset, diag, diagflat, tril_indices, triu_indices and unravel_index (ops/views_more.py) against PyTorch:
values, grad_fn names, gradients, which results are views (``_base``, shared memory, version counter); gradcheck
and gradgradcheck in float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from ops._torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

OPS = {
    "moveaxis": ((2, 3, 4), lambda m, x: m.moveaxis(x, 0, -1)),
    "moveaxis several": ((2, 3, 4), lambda m, x: x.moveaxis((0, 1), (2, 0))),
    "movedim lists": ((2, 3, 4), lambda m, x: m.movedim(x, [-1], [0])),
    "swapdims": ((2, 3, 4), lambda m, x: m.swapdims(x, 0, 2)),
    "swapdims method": ((2, 3), lambda m, x: x.swapdims(-1, 0)),
    "ravel contiguous": ((2, 3), lambda m, x: m.ravel(x)),
    "ravel transposed": ((2, 3), lambda m, x: x.t().ravel()),
    "ravel 0-dim": ((), lambda m, x: x.ravel()),
    "fliplr": ((2, 3, 2), lambda m, x: m.fliplr(x)),
    "flipud": ((3,), lambda m, x: x.flipud()),
    "unfold": ((2, 7), lambda m, x: x.unfold(1, 3, 2)),
    "unfold overlapping": ((7, 2), lambda m, x: x.unfold(0, 3, 1)),
    "unfold negative dim": ((2, 3, 4), lambda m, x: x.unfold(-2, 2, 5)),
    "unfold empty window": ((2, 5), lambda m, x: x.unfold(1, 0, 2)),
    "unfold 0-dim": ((), lambda m, x: x.unfold(0, 1, 1)),
    "narrow_copy": ((3, 5), lambda m, x: x.narrow_copy(1, 1, 3)),
    "narrow_copy negative start": ((3, 5), lambda m, x: m.narrow_copy(x, -1, -3, 2)),
    "diag of a vector": ((3,), lambda m, x: m.diag(x)),
    "diag of a vector offset": ((3,), lambda m, x: x.diag(-2)),
    "diag of a matrix": ((3, 4), lambda m, x: m.diag(x)),
    "diag of a matrix offset": ((3, 4), lambda m, x: x.diag(2)),
    "diagflat": ((2, 2), lambda m, x: m.diagflat(x, 1)),
    "diagflat 0-dim": ((), lambda m, x: x.diagflat()),
}


@pytest.mark.parametrize("name", OPS)
def test_ops_match_torch(name):
    shape, fn = OPS[name]
    same_as_torch(torch, fn, np.random.default_rng(4).standard_normal(shape))


@pytest.mark.parametrize("name", ["moveaxis several", "unfold", "unfold overlapping", "narrow_copy",
                                  "diag of a matrix offset", "diagflat"])
def test_ops_pass_gradcheck_and_gradgradcheck(name):
    shape, fn = OPS[name]
    x = al.tensor(np.random.default_rng(5).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: fn(al, t), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: fn(al, t), [x])


@pytest.mark.parametrize("name", ["moveaxis", "swapdims", "ravel contiguous", "unfold negative dim", "unfold 0-dim"])
def test_views_share_memory_and_the_version_counter(name):
    shape, fn = OPS[name]
    x = al.zeros(shape)
    out = fn(al, x)
    assert out._base is x
    out.add_(1)
    assert x._version == out._version == 1 and float(x.sum()) > 0


@pytest.mark.parametrize("name", ["ravel transposed", "narrow_copy", "diag of a matrix", "fliplr"])
def test_copies_are_not_views(name):
    shape, fn = OPS[name]
    ours, theirs = fn(al, al.zeros(shape)), fn(torch, torch.zeros(shape))
    assert (ours._base is None) == (theirs._base is None)


def test_unfold_windows_are_the_strided_windows_of_torch():
    x = np.arange(24.0).reshape(2, 12)
    ours, theirs = al.tensor(x).unfold(1, 4, 3), torch.tensor(x).unfold(1, 4, 3)
    assert ours.tolist() == theirs.tolist() and ours.stride() == theirs.stride()


def test_in_place_change_through_overlapping_unfold_windows_is_refused():
    """PyTorch writes through overlapping windows element by element (``ones(5).unfold(0, 2, 1).add_(1)`` gives
    [2, 3, 3, 3, 2], each shared place changed once per window); ours computes out of place and copies back, which
    would change each place once: refused, with the message PyTorch gives for an expanded tensor."""
    y = al.ones(5)
    with pytest.raises(RuntimeError, match=r"more than one element of the written-to tensor refers to a single memory "
                                           r"location.*add_ cannot write.*overlap in memory"):
        y.unfold(0, 2, 1).add_(1)
    assert y.tolist() == [1.0] * 5
    y.unfold(0, 2, 1).fill_(3.0)  # (one value everywhere: allowed, as for an expanded tensor)
    y.unfold(0, 2, 2).add_(1)  # (windows that do not overlap)
    assert y.tolist() == [4.0, 4.0, 4.0, 4.0, 3.0]


def test_second_derivative_of_unfold_is_unfold_backward_backward():
    for m in (al, torch):
        x = m.tensor(np.arange(6.0), requires_grad=True)
        out = x.unfold(0, 3, 2)
        seed = m.ones(tuple(out.shape), dtype=m.float64, requires_grad=True)
        gx = m.autograd.grad(out, x, seed, create_graph=True)[0]
        assert gx.grad_fn.name() == "UnfoldBackwardBackward0"
        assert gx.tolist() == [1, 1, 2, 1, 1, 0]


def _in_place(m, method, *args):
    """A non-leaf, changed in place by ``method``; then a backward through it."""
    x = m.tensor(np.arange(6.0).reshape(2, 3, 1), requires_grad=True)
    y = x * 2
    assert getattr(y, method)(*args) is y
    node, shape, version = y.grad_fn.name(), tuple(y.shape), y._version
    (y * m.tensor(np.arange(6.0)).reshape(y.shape)).sum().backward()
    return node, shape, version, x.grad.tolist()


@pytest.mark.parametrize("method, args", [("unsqueeze_", (0,)), ("unsqueeze_", (-1,)), ("squeeze_", ()),
                                          ("squeeze_", (2,)), ("squeeze_", (0,)), ("squeeze_", ((0, 2),)),
                                          ("swapdims_", (0, 1)), ("swapaxes_", (2, 0))])
def test_in_place_shape_changes_match_torch(method, args):
    assert _in_place(al, method, *args) == _in_place(torch, method, *args)


def test_in_place_unsqueeze_of_a_view_rewrites_the_base_history():
    def run(m):
        x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        y = x * 1
        row = y[1]
        row.unsqueeze_(0)
        row.mul_(3)
        y.sum().backward()
        return tuple(row.shape), row._base is y, y._version, x.grad.tolist()
    assert run(al) == run(torch)


@pytest.mark.parametrize("method, args", [("unsqueeze_", (0,)), ("squeeze_", ()), ("swapdims_", (0, 1))])
def test_in_place_shape_change_of_a_leaf_that_requires_grad_is_pytorchs_error(method, args):
    same_error(torch, lambda m: getattr(m.ones(2, 1, requires_grad=True), method)(*args), RuntimeError)


def test_in_place_shape_change_of_a_plain_leaf_bumps_its_version():
    for m in (al, torch):
        x = m.ones(2, 3)
        x.unsqueeze_(1)
        assert tuple(x.shape) == (2, 1, 3) and x._version == 1


def test_storage_offset_matches_torch():
    def offsets(m):
        x = m.tensor(np.arange(20.0).reshape(4, 5))
        return [x.storage_offset(), x[1, 2:].storage_offset(), x.t()[1].storage_offset(),
                x.unfold(1, 2, 1)[2, 1].storage_offset(), x[1:].diagonal().storage_offset(), (x[2:] * 1).storage_offset()]
    assert offsets(al) == offsets(torch)


@pytest.mark.parametrize("args", [(3, 3), (3, 4, -1), (4, 3, 1), (0, 3), (3, 0), (2, 5, 7), (5, 2, -9)])
def test_triangle_indices_match_torch(args):
    for name in ("tril_indices", "triu_indices"):
        ours, theirs = getattr(al, name)(*args), getattr(torch, name)(*args)
        assert ours.tolist() == theirs.tolist() and ours.dtype is al.int64 and tuple(ours.shape) == tuple(theirs.shape)
    assert al.tril_indices(3, 3, dtype=al.int32).dtype is al.int32


@pytest.mark.parametrize("indices, shape", [(5, (3, 4)), ([[5, -1]], (3, 4)), ([12, -13, 0], (3, 4)), (3, 5),
                                            ([1, 2], ()), ([7], (2, 1, 4))])
def test_unravel_index_matches_torch(indices, shape):
    ours = al.unravel_index(al.tensor(indices), shape)
    theirs = torch.unravel_index(torch.tensor(indices), shape)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.tolist() == b.tolist() and a.dtype is al.int64


def test_unravel_index_of_no_positions_into_an_empty_shape_matches_torch():
    ours = al.unravel_index(al.tensor([], dtype=al.int64), (3, 0))
    theirs = torch.unravel_index(torch.tensor([], dtype=torch.int64), (3, 0))
    assert [tuple(a.shape) for a in ours] == [tuple(b.shape) for b in theirs] == [(0,), (0,)]


def test_unravel_index_of_floats_is_a_type_error():
    for m in (al, torch):
        with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
            m.unravel_index(m.tensor([1.0]), (3, 4))


ERRORS = [
    (lambda m: m.moveaxis(m.zeros(2, 3), 2, 0), IndexError),
    (lambda m: m.movedim(m.zeros(2, 3), (0, 1), (1,)), RuntimeError),
    (lambda m: m.movedim(m.zeros(2, 3), (0, 0), (1, 0)), RuntimeError),
    (lambda m: m.movedim(m.zeros(2, 3), (0, 1), (1, 1)), RuntimeError),
    (lambda m: m.moveaxis(m.zeros(2, 3, 4), (0, -3), (1, 0)), RuntimeError),
    (lambda m: m.moveaxis(m.zeros(2, 3, 4), (0, 1), (2, -1)), RuntimeError),
    (lambda m: m.fliplr(m.zeros(3)), RuntimeError),
    (lambda m: m.flipud(m.tensor(1.0)), RuntimeError),
    (lambda m: m.zeros(2, 5).unfold(1, 6, 1), RuntimeError),
    (lambda m: m.zeros(2, 5).unfold(1, 2, 0), RuntimeError),
    (lambda m: m.zeros(2, 5).unfold(1, -1, 1), RuntimeError),
    (lambda m: m.tensor(1.0).unfold(0, 2, 1), RuntimeError),
    (lambda m: m.zeros(2, 5).unfold(2, 2, 1), IndexError),
    (lambda m: m.zeros(2, 5).narrow_copy(1, 4, 2), RuntimeError),
    (lambda m: m.zeros(2, 5).narrow_copy(0, 3, 0), IndexError),
    (lambda m: m.tensor(1.0).narrow_copy(0, 0, 1), RuntimeError),
    (lambda m: (m.zeros(2, 3) * 1).unsqueeze_(3), IndexError),
    (lambda m: (m.zeros(2, 3) * 1).squeeze_(2), IndexError),
    (lambda m: m.diag(m.zeros(2, 2, 2)), RuntimeError),
    (lambda m: m.diag(m.tensor(1.0)), RuntimeError),
    (lambda m: m.tril_indices(-1, 3), RuntimeError),
    (lambda m: m.triu_indices(3, -2), RuntimeError),
    (lambda m: m.tril_indices(3, 3, dtype=m.float32), NotImplementedError),
    (lambda m: m.tril_indices(300, 300, dtype=m.uint8), NotImplementedError),
    (lambda m: m.triu_indices(3, 3, dtype=m.int16), NotImplementedError),
    (lambda m: m.triu_indices(3, 3, dtype=m.int8), NotImplementedError),
    (lambda m: m.unravel_index(m.tensor(1), (3, -4)), ValueError),
    (lambda m: m.unravel_index(m.tensor([0, 1]), (3, 0)), RuntimeError),
    (lambda m: m.unravel_index(m.tensor(0), (0,)), RuntimeError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
