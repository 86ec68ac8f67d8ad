"""tile, hstack/vstack/row_stack/column_stack/dstack, atleast_1d/2d/3d, tensor_split (hsplit, vsplit, dsplit),
block_diag, cartesian_prod, broadcast_tensors, broadcast_shapes and meshgrid (ops/join_more.py) against PyTorch:
values, grad_fn names, gradients, which results are views; gradcheck in float64; PyTorch's errors; hypothesis
properties of the broadcasting and splitting rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from ops._torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

ONE = {  # one input, one result
    "tile fewer dims": ((2, 3), lambda m, x: x.tile(2)),
    "tile more dims": ((2, 3), lambda m, x: m.tile(x, (2, 1, 3))),
    "tile 0-dim": ((), lambda m, x: m.tile(x, (2, 3))),
    "hstack matrices": ((2, 3), lambda m, x: m.hstack([x, x * 2])),
    "hstack vectors and 0-dim": ((3,), lambda m, x: m.hstack((x, x[0]))),
    "vstack vectors": ((3,), lambda m, x: m.vstack([x, x * 2])),
    "row_stack": ((2, 3), lambda m, x: m.vstack([x, x[0]])),
    "column_stack vectors": ((3,), lambda m, x: m.column_stack([x, x * 2])),
    "column_stack mixed": ((3, 2), lambda m, x: m.column_stack([x, x[:, 0], x])),
    "column_stack 0-dim": ((), lambda m, x: m.column_stack([x, x * 2])),
    "dstack": ((2, 3), lambda m, x: m.dstack([x, x * 2])),
    "dstack vectors": ((3,), lambda m, x: m.dstack([x, x])),
    "atleast_1d 0-dim": ((), lambda m, x: m.atleast_1d(x)),
    "atleast_2d vector": ((3,), lambda m, x: m.atleast_2d(x)),
    "atleast_2d 0-dim": ((), lambda m, x: m.atleast_2d(x)),
    "atleast_3d 0-dim": ((), lambda m, x: m.atleast_3d(x)),
    "atleast_3d vector": ((3,), lambda m, x: m.atleast_3d(x)),
    "atleast_3d matrix": ((2, 3), lambda m, x: m.atleast_3d(x)),
    "block_diag": ((2, 3), lambda m, x: m.block_diag(x, x[0], x[1, 1], x.t())),
    "block_diag one": ((2, 3), lambda m, x: m.block_diag(x)),
    "cartesian_prod": ((3,), lambda m, x: m.cartesian_prod(x, x[:2] * 2)),
    "cartesian_prod three": ((3,), lambda m, x: m.cartesian_prod(x, x[:2], x[1:])),
    "combinations": ((4,), lambda m, x: m.combinations(x)),
    "combinations three with replacement": ((3,), lambda m, x: m.combinations(x, 3, with_replacement=True)),
    "combinations of one": ((4,), lambda m, x: m.combinations(x, 1)),
    "combinations more than there are": ((3,), lambda m, x: m.combinations(x, 4)),
    "combinations of nothing": ((0,), lambda m, x: m.combinations(x)),
}


@pytest.mark.parametrize("name", ONE)
def test_one_result_matches_torch(name):
    shape, fn = ONE[name]
    same_as_torch(torch, fn, np.random.default_rng(1).standard_normal(shape))


SEVERAL = {  # one input, a tuple of results
    "tensor_split sections": ((7, 2), lambda m, x: m.tensor_split(x, 3)),
    "tensor_split more sections than rows": ((2, 3), lambda m, x: x.tensor_split(4, dim=0)),
    "tensor_split indices": ((7, 2), lambda m, x: x.tensor_split([1, 5, 3, 9], 0)),
    "tensor_split negative indices": ((7,), lambda m, x: m.tensor_split(x, (-2, 9))),
    "tensor_split tensor sections": ((2, 6), lambda m, x: x.tensor_split(m.tensor(4), dim=-1)),
    "tensor_split tensor indices": ((2, 6), lambda m, x: x.tensor_split(m.tensor([2, 3]), dim=1)),
    "hsplit": ((2, 6), lambda m, x: m.hsplit(x, 3)),
    "hsplit vector": ((6,), lambda m, x: x.hsplit([1, 4])),
    "vsplit": ((4, 3), lambda m, x: m.vsplit(x, 2)),
    "dsplit": ((2, 1, 4), lambda m, x: x.dsplit([3])),
    "atleast_2d several": ((3,), lambda m, x: m.atleast_2d(x, x[0], x.reshape(1, 1, 3))),
    "atleast_3d list": ((3,), lambda m, x: m.atleast_3d([x, x[0]])),
    "broadcast_tensors": ((3,), lambda m, x: m.broadcast_tensors(x.reshape(3, 1), x[:2], x[0])),
    "broadcast_tensors same shape": ((2, 3), lambda m, x: m.broadcast_tensors(x, x * 2)),
    "meshgrid ij": ((3,), lambda m, x: m.meshgrid(x, x[:2], x[0], indexing="ij")),
    "meshgrid xy": ((3,), lambda m, x: m.meshgrid(x, x[:2], x[1:], indexing="xy")),
    "meshgrid list": ((3,), lambda m, x: m.meshgrid([x, x[:2]], indexing="xy")),
    "meshgrid one": ((3,), lambda m, x: m.meshgrid(x, indexing="xy")),
}


def _each_result(m, name, x):
    """The results of ``SEVERAL[name]`` on ``x``, their grad_fn names, values and views, and x's gradient from
    a fixed random weighting of every result."""
    outs = SEVERAL[name][1](m, x)
    rng = np.random.default_rng(3)
    loss = sum((o * m.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
    loss.backward()
    described = [(o.grad_fn.name() if o.grad_fn else None, tuple(o.shape), o.tolist(), o._base is not None) for o in outs]
    return described, x.grad.tolist()


@pytest.mark.parametrize("name", SEVERAL)
def test_several_results_match_torch(name):
    value = np.random.default_rng(2).standard_normal(SEVERAL[name][0])
    ours = _each_result(al, name, al.tensor(value, requires_grad=True))
    theirs = _each_result(torch, name, torch.tensor(value, requires_grad=True))
    assert [d[:2] + d[3:] for d in ours[0]] == [d[:2] + d[3:] for d in theirs[0]]
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a[2], b[2], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


@pytest.mark.parametrize("name", ["tile fewer dims", "column_stack mixed", "block_diag", "cartesian_prod three",
                                  "dstack vectors", "combinations three with replacement"])
def test_ops_pass_gradcheck_and_gradgradcheck(name):
    shape, fn = ONE[name]
    x = al.tensor(np.random.default_rng(5).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: fn(al, t), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: fn(al, t), [x])


def test_tensor_split_pieces_are_views_that_may_be_changed_in_place():
    x = al.arange(6.0)
    first, second = x.tensor_split(2)
    second.mul_(10)
    assert x.tolist() == [0, 1, 2, 30, 40, 50] and first._base is x and second._version == x._version == 1


def test_combinations_of_zero_elements_is_an_empty_vector_as_in_torch():
    for m in (al, torch):
        out = m.combinations(m.arange(3.0, requires_grad=True), 0)
        assert tuple(out.shape) == (0,) and out.grad_fn is None


def test_combinations_are_built_as_in_torch_from_masked_selections_of_expanded_grids():
    for m in (al, torch):
        out = m.combinations(m.arange(3.0, requires_grad=True))
        column = out.grad_fn.next_functions[0][0]
        assert column.name() == "MaskedSelectBackward0" and column.next_functions[0][0].name() == "ExpandBackward0"


def test_broadcast_tensors_gives_back_a_tensor_already_of_the_shape():
    x, y = al.ones(2, 3), al.ones(3)
    bx, by = al.broadcast_tensors(x, y)
    assert bx is x and by._base is y and by.shape == (2, 3)


def test_block_diag_promotes_dtypes_and_of_nothing_is_an_empty_row():
    for m in (al, torch):
        assert str(m.block_diag(m.ones(2, dtype=m.int64), m.ones(1, dtype=m.bool)).dtype).endswith("int64")
        assert str(m.block_diag(m.ones(1), m.ones(1, dtype=m.float64)).dtype).endswith("float64")
        assert tuple(m.block_diag().shape) == (1, 0)
    assert al.block_diag(al.ones(2, 0), al.ones(0, 3)).shape == (2, 3)


def test_meshgrid_without_indexing_warns_as_torch():
    for m in (al, torch):
        with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
            grids = m.meshgrid(m.arange(3), m.arange(2))
        assert tuple(grids[0].shape) == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        al.meshgrid(al.arange(3), indexing="ij")


def test_broadcast_shapes_match_torch():
    for shapes in [((2, 1), (1,), (1, 3)), (3, (2, 1)), ([2, 1], al.Size([3])), (), ((0, 1), (3,))]:
        torch_shapes = [tuple(s) if isinstance(s, al.Size) else s for s in shapes]
        assert tuple(al.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*torch_shapes))
    assert isinstance(al.broadcast_shapes((2, 1), (3,)), al.Size)


@settings(max_examples=40, deadline=None)
@given(mutually_broadcastable_shapes(num_shapes=3, max_dims=4, max_side=3))
def test_broadcast_shapes_and_tensors_agree_with_numpy(shapes):
    expected = np.broadcast_shapes(*shapes.input_shapes)
    assert tuple(al.broadcast_shapes(*shapes.input_shapes)) == expected
    outs = al.broadcast_tensors(*[al.zeros(s) for s in shapes.input_shapes])
    assert all(tuple(o.shape) == expected for o in outs)


@settings(max_examples=40, deadline=None)
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), sections=st.integers(1, 7),
       indices=st.lists(st.integers(-6, 6), max_size=4))
def test_tensor_split_agrees_with_torch_and_covers_the_input(shape, sections, indices):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for arg in (sections, indices):
        ours = al.tensor_split(al.tensor(x), arg, -1)
        theirs = torch.tensor_split(torch.tensor(x), arg, -1)
        assert [o.tolist() for o in ours] == [t.tolist() for t in theirs]
    assert al.cat(al.tensor_split(al.tensor(x), sections, -1), -1).tolist() == x.tolist()


ERRORS = [
    (lambda m: m.zeros(3, 4).tile(-1), RuntimeError),
    (lambda m: m.hstack([]), RuntimeError),
    (lambda m: m.vstack([]), RuntimeError),
    (lambda m: m.column_stack([]), RuntimeError),
    (lambda m: m.dstack([]), RuntimeError),
    (lambda m: m.hstack([m.zeros(2, 3), m.zeros(3, 3)]), RuntimeError),
    (lambda m: m.tensor_split(m.zeros(3, 4), 0), RuntimeError),
    (lambda m: m.tensor_split(m.zeros(3, 4), m.tensor([[1]])), RuntimeError),
    (lambda m: m.tensor_split(m.zeros(3, 4), m.tensor([1.0])), RuntimeError),
    (lambda m: m.tensor_split(m.tensor(1.0), 2), RuntimeError),
    (lambda m: m.hsplit(m.zeros(3, 4), 3), RuntimeError),
    (lambda m: m.hsplit(m.zeros(3, 4), 0), RuntimeError),
    (lambda m: m.hsplit(m.tensor(1.0), 2), RuntimeError),
    (lambda m: m.vsplit(m.zeros(3, 4), 2), RuntimeError),
    (lambda m: m.vsplit(m.zeros(3), 3), RuntimeError),
    (lambda m: m.dsplit(m.zeros(3, 4), 2), RuntimeError),
    (lambda m: m.block_diag(m.zeros(3, 4), m.zeros(1, 1, 1)), RuntimeError),
    (lambda m: m.cartesian_prod(m.zeros(3, 4), m.zeros(2)), RuntimeError),
    (lambda m: m.cartesian_prod(), RuntimeError),
    (lambda m: m.combinations(m.zeros(3, 4)), RuntimeError),
    (lambda m: m.combinations(m.zeros(3), -1), RuntimeError),
    (lambda m: m.broadcast_tensors(m.zeros(3, 4), m.zeros(3)), RuntimeError),
    (lambda m: m.broadcast_shapes((3, 4), (3,)), RuntimeError),
    (lambda m: m.broadcast_shapes((3, -1)), ValueError),
    (lambda m: m.broadcast_shapes(2.5), RuntimeError),
    (lambda m: m.meshgrid(m.zeros(3), m.zeros(3, dtype=m.float64), indexing="ij"), RuntimeError),
    (lambda m: m.meshgrid(m.zeros(3), indexing="yx"), RuntimeError),
    (lambda m: m.meshgrid(indexing="ij"), RuntimeError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)


def test_meshgrid_of_a_matrix_is_torchs_error_with_the_shape_in_place_of_the_values():
    for m in (al, torch):  # (PyTorch prints the tensor's values after "but got:")
        with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list but got:"):
            m.meshgrid(m.zeros(3, 4), indexing="ij")
