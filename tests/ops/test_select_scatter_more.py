"""take_along_dim, masked_select, Tensor.where, the top-level masked_fill and index_put/index_put_, select_scatter,
slice_scatter and diagonal_scatter (ops/scatter_more.py) against PyTorch: values, grad_fn names, gradients;
gradcheck and gradgradcheck in float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from ops._torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

OPS = {
    "take_along_dim": ((3, 4), lambda m, x: m.take_along_dim(x, m.tensor([[0, 3], [1, 1], [2, 0]]), 1)),
    "take_along_dim broadcast": ((3, 4), lambda m, x: x.take_along_dim(m.tensor([[0, 2, 2]]), 1)),
    "take_along_dim broadcast input": ((1, 4), lambda m, x: m.take_along_dim(x, m.tensor([[0], [0], [0]]), 1)),
    "take_along_dim negative": ((3, 4), lambda m, x: m.take_along_dim(x, m.tensor([[-1], [0], [-4]]), -1)),
    "take_along_dim flat": ((3, 4), lambda m, x: m.take_along_dim(x, m.tensor([[0, 7], [11, 7]]))),
    "take_along_dim of argsort": ((3, 4), lambda m, x: m.take_along_dim(x, x.argsort(0), 0)),
    "masked_select": ((3, 4), lambda m, x: m.masked_select(x, x > 0)),
    "masked_select broadcast mask": ((3, 4), lambda m, x: x.masked_select(m.tensor([True, False, True, True]))),
    "masked_select broadcast input": ((4,), lambda m, x: m.masked_select(x, m.tensor([[True], [False]]) | (x > 0))),
    "masked_select none": ((3,), lambda m, x: x.masked_select(x > 100)),
    "masked_select 0-dim": ((), lambda m, x: m.masked_select(x, m.tensor(True))),
    "where method": ((3, 4), lambda m, x: x.where(x > 0, x * 3)),
    "where method number": ((3, 4), lambda m, x: x.where(x > 0, 0.5)),
    "masked_fill": ((3, 4), lambda m, x: m.masked_fill(x, x > 0, 2.0)),
    "masked_fill tensor": ((3, 4), lambda m, x: m.masked_fill(x, x < 0, x[0, 0])),
    "index_put": ((3, 4), lambda m, x: m.index_put(x, (m.tensor([0, 2]),), x[1] * 2)),
    "index_put accumulate": ((3, 4), lambda m, x: m.index_put(x, (m.tensor([0, 0]), m.tensor([1, 1])), x[1, :2], True)),
    "index_put_": ((3, 4), lambda m, x: m.index_put_(x * 1, (m.tensor([1]),), x[0])),
    "index_put one value of another dtype into a mask": ((3, 4), lambda m, x: m.index_put(x, (x > 0,), m.tensor(2))),
    "select_scatter": ((3, 4), lambda m, x: m.select_scatter(x, x[0] * 2, 0, 1)),
    "select_scatter negative": ((3, 4), lambda m, x: x.select_scatter(x[:, 0] * 2, -1, -1)),
    "slice_scatter": ((3, 4), lambda m, x: m.slice_scatter(x, x[:, :2] * 2, 1, 1, 3)),
    "slice_scatter step": ((3, 4), lambda m, x: x.slice_scatter(x[:, :2] * 2, 1, step=2)),
    "slice_scatter defaults": ((3, 4), lambda m, x: m.slice_scatter(x, x * 2)),
    "slice_scatter negative": ((3, 4), lambda m, x: m.slice_scatter(x, x[:2] * 2, 0, -2)),
    "slice_scatter beyond": ((3, 4), lambda m, x: m.slice_scatter(x, x[:1] * 2, 0, 2, 9)),
    "diagonal_scatter": ((3, 4), lambda m, x: m.diagonal_scatter(x, x[0, :3] * 2)),
    "diagonal_scatter offset dims": ((2, 3, 4), lambda m, x: x.diagonal_scatter(x.diagonal(1, -1, 1) * 2, 1, -1, 1)),
}


@pytest.mark.parametrize("name", OPS)
def test_ops_match_torch(name):
    shape, fn = OPS[name]
    same_as_torch(torch, fn, np.random.default_rng(8).standard_normal(shape))


@pytest.mark.parametrize("name", ["take_along_dim broadcast", "masked_select broadcast input", "where method",
                                  "select_scatter", "slice_scatter step", "diagonal_scatter offset dims"])
def test_ops_pass_gradcheck_and_gradgradcheck(name):
    shape, fn = OPS[name]
    x = al.tensor(np.random.default_rng(9).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: fn(al, t), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: fn(al, t), [x])


def test_masked_select_saves_self_and_the_mask_version_checked():
    x = al.randn(3, requires_grad=True)
    mask = x > 0
    out = x.masked_select(mask)
    assert out.grad_fn._saved_self is x and out.grad_fn._saved_mask is mask
    mask.logical_not_() if hasattr(mask, "logical_not_") else mask.fill_(True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_take_along_dim_takes_what_argmax_points_at():
    x = np.random.default_rng(0).standard_normal((3, 5))
    ours = al.take_along_dim(al.tensor(x), al.tensor(x).argmax(1, keepdim=True), 1)
    assert ours.reshape(-1).tolist() == x.max(1).tolist()


def test_setitem_with_a_mask_converts_one_value_as_torch_does():
    for m in (al, torch):
        x, v = m.zeros(2, 3), m.tensor(2.0, dtype=m.float64, requires_grad=True)
        x[x > -1] = v
        x.sum().backward()
        assert x.tolist() == [[2.0] * 3] * 2 and x.dtype == m.float32 and v.grad.item() == 6.0


def test_the_scatters_write_into_a_copy():
    x = al.zeros(3, 3)
    for out in (x.select_scatter(al.ones(3), 0, 0), x.slice_scatter(al.ones(1, 3), 0, 0, 1), x.diagonal_scatter(al.ones(3))):
        assert out._base is None and float(out.sum()) == 3 and float(x.sum()) == 0


ERRORS = [
    (lambda m: m.take_along_dim(m.zeros(3, 4), m.tensor([[0.0]]), 1), RuntimeError),
    (lambda m: m.take_along_dim(m.zeros(3, 4), m.tensor([0]), 1), RuntimeError),
    (lambda m: m.take_along_dim(m.zeros(3, 4), m.tensor([[0, 1]]), 0), RuntimeError),
    (lambda m: m.take_along_dim(m.zeros(3, 4), m.tensor([-1])), RuntimeError),
    (lambda m: m.masked_select(m.zeros(3, 4), m.zeros(3, 4)), RuntimeError),
    (lambda m: m.masked_select(m.zeros(3, 4), m.ones(2, 4, dtype=m.bool)), RuntimeError),
    (lambda m: m.select_scatter(m.zeros(3, 4), m.ones(3), 0, 1), RuntimeError),
    (lambda m: m.select_scatter(m.zeros(3, 4), m.ones(4), 0, 5), IndexError),
    (lambda m: m.slice_scatter(m.zeros(3, 4), m.ones(3, 3), 1, 0, 2), RuntimeError),
    (lambda m: m.slice_scatter(m.zeros(3, 4), m.ones(3, 2), 1, step=0), RuntimeError),
    (lambda m: m.slice_scatter(m.tensor(1.0), m.tensor(2.0)), IndexError),
    (lambda m: m.diagonal_scatter(m.zeros(3, 4), m.ones(4)), RuntimeError),
    (lambda m: m.diagonal_scatter(m.zeros(3, 4), m.ones(3), 0, 1, 1), RuntimeError),
    (lambda m: m.index_put(m.zeros(3, dtype=m.float64), (m.tensor([0]),), m.tensor(2.0)), RuntimeError),
    (lambda m: m.zeros(3).index_put_((m.tensor([0, 1]),), m.tensor([1, 2])), RuntimeError),
    (lambda m: m.zeros(3).index_put_((m.tensor([True, False, True]),), m.tensor(1, dtype=m.float64), accumulate=True),
     RuntimeError),
    (lambda m: m.zeros(3).__setitem__(m.tensor([True, False, True]), m.tensor([1.0, 2.0], dtype=m.float64)),
     RuntimeError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
