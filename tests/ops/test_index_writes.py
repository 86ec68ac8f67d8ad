"""scatter, index_fill, index_add, index_copy, masked_scatter and take (ops/index_writes.py), and their in-place forms,
against PyTorch: values, grad_fn names and gradients of every input on several shapes, negative dims, empty and 0-dim
inputs; gradcheck in float64; the index saved version-checked; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

ROWS = [[2, 0, 1, 0], [0, 1, 2, 2]]  # (no two writes of one scatter land in one place)

OPS = {  # name: (shape of x, shape of s, fn(m, x, s))
    "scatter src": ((3, 4), (2, 4), lambda m, x, s: x.scatter(0, m.tensor(ROWS[:1] + [[1, 2, 0, 1]]), s)),
    "scatter src dim -1": ((3, 4), (3, 2), lambda m, x, s: m.scatter(x, -1, m.tensor([[3, 0], [1, 2], [0, 3]]), s)),
    "scatter value": ((3, 4), (1,), lambda m, x, s: x.scatter(1, m.tensor([[0], [3], [1]]), 2.5)),
    "scatter value=": ((3, 4), (1,), lambda m, x, s: x.scatter(0, m.tensor(ROWS[:1]), value=-1.0)),
    "scatter 0-dim": ((), (), lambda m, x, s: x.scatter(0, m.tensor(0), s)),
    "scatter empty index": ((3, 4), (0, 4), lambda m, x, s: x.scatter(0, m.zeros(0, 4, dtype=m.int64), s)),
    "index_fill": ((3, 4), (1,), lambda m, x, s: x.index_fill(1, m.tensor([0, -1]), 1.5)),
    "index_fill tensor": ((3, 4), (), lambda m, x, s: m.index_fill(x, 0, m.tensor([2, 2]), s)),
    "index_fill 0-dim": ((), (), lambda m, x, s: x.index_fill(0, m.tensor([0]), s)),
    "index_fill empty index": ((3, 4), (), lambda m, x, s: x.index_fill(-1, m.tensor([], dtype=m.int64), s)),
    "index_add": ((3, 4), (3, 4), lambda m, x, s: x.index_add(0, m.tensor([0, 0, 2]), s)),
    "index_add alpha dim -1": ((3, 4), (3, 2), lambda m, x, s: m.index_add(x, -1, m.tensor([3, 1]), s, alpha=-2.0)),
    "index_add 0-dim": ((), (), lambda m, x, s: x.index_add(0, m.tensor(0), s)),
    "index_copy": ((3, 4), (3, 4), lambda m, x, s: x.index_copy(1, m.tensor([3, 1, 0, 2]), s)),
    "index_copy dim -2": ((2, 3, 2), (2, 2, 2), lambda m, x, s: m.index_copy(x, -2, m.tensor([2, 0]), s)),
    "index_copy empty": ((3, 0), (1, 0), lambda m, x, s: x.index_copy(0, m.tensor([1]), s)),
    "masked_scatter": ((3, 4), (3, 5), lambda m, x, s: x.masked_scatter(x > 0, s)),
    "masked_scatter broadcast": ((4,), (12,), lambda m, x, s: x.masked_scatter(m.tensor([[True], [False], [True]]), s)),
    "masked_scatter 0-dim": ((), (2,), lambda m, x, s: m.masked_scatter(x, m.tensor(True), s)),
    "take": ((3, 4), (1,), lambda m, x, s: x.take(m.tensor([[0, -1], [5, 5]]))),
    "take 0-dim": ((), (1,), lambda m, x, s: m.take(x, m.tensor([0, -1]))),
    "take empty": ((3, 4), (1,), lambda m, x, s: x.take(m.tensor([], dtype=m.int64))),
}


@pytest.mark.parametrize("name", OPS)
def test_ops_match_torch(name):
    shape, source, fn = OPS[name]
    rng = np.random.default_rng(7)
    same_as_torch(torch, fn, rng.standard_normal(shape), rng.standard_normal(source))


@pytest.mark.parametrize("name", ["scatter src dim -1", "index_fill tensor", "index_add alpha dim -1", "index_copy",
                                  "masked_scatter broadcast", "take"])
def test_ops_pass_gradcheck_and_gradgradcheck(name):
    shape, source, fn = OPS[name]
    rng = np.random.default_rng(8)
    inputs = [al.tensor(rng.uniform(0.5, 2, s), requires_grad=True) for s in (shape, source)]
    assert gradcheck(lambda x, s: fn(al, x, s), inputs, check_forward_ad=True)
    assert gradgradcheck(lambda x, s: fn(al, x, s), inputs)


IN_PLACE = {
    "scatter_": lambda m, y, s: y.scatter_(0, m.tensor([[1, 0, 2, 1]]), s[:1]),
    "scatter_ value": lambda m, y, s: y.scatter_(1, m.tensor([[0], [2], [3]]), 4.0),
    "index_fill_": lambda m, y, s: y.index_fill_(0, m.tensor([1]), s[0, 0]),
    "index_add_": lambda m, y, s: y.index_add_(1, m.tensor([0, 0, 3, 1]), s, alpha=3),
    "index_copy_": lambda m, y, s: y.index_copy_(0, m.tensor([2, 0, 1]), s),
    "masked_scatter_": lambda m, y, s: y.masked_scatter_(y > 0, s),
}


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_forms_match_torch(name):
    def fn(m, x, s):
        y = x * 1.5
        assert IN_PLACE[name](m, y, s) is y
        return y
    rng = np.random.default_rng(9)
    same_as_torch(torch, fn, rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))


def test_in_place_forms_refuse_a_leaf_that_requires_grad_as_torch():
    same_error(torch, lambda m: m.zeros(2, requires_grad=True).index_fill_(0, m.tensor([0]), 1.0), RuntimeError)


@pytest.mark.parametrize("op", ["scatter", "index_copy", "take"])
def test_the_index_is_saved_version_checked(op):
    x, s = al.randn(3, 2, requires_grad=True), al.randn(3, 2, requires_grad=True)
    index = {"scatter": al.tensor([[2, 0], [1, 1], [0, 2]]), "index_copy": al.tensor([2, 0, 1]),
             "take": al.tensor([1, 4])}[op]
    out = {"scatter": lambda: x.scatter(0, index, s), "index_copy": lambda: x.index_copy(0, index, s),
           "take": lambda: x.take(index)}[op]()
    index.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


ERRORS = [
    (lambda m: m.zeros(3, 4).scatter(0, m.tensor([[3]]), 1.0), RuntimeError),
    (lambda m: m.zeros(3, 4).scatter(0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)), RuntimeError),
    (lambda m: m.zeros(3, 4).scatter(0, m.tensor([0]), 1.0), RuntimeError),
    (lambda m: m.zeros(3, 4).index_fill(0, m.tensor([0], dtype=m.int32), 1.0), IndexError),
    (lambda m: m.zeros(3, 4).index_fill(0, m.tensor([5]), 1.0), IndexError),
    (lambda m: m.zeros(3, 4).index_fill(0, m.tensor([[0]]), 1.0), RuntimeError),
    (lambda m: m.zeros(3, 4).index_fill(0, m.tensor([0]), m.tensor([1.0, 2.0])), RuntimeError),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([0]), m.zeros(2, 4)), RuntimeError),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([5]), m.zeros(1, 4)), RuntimeError),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([0]), m.zeros(1, 4, dtype=m.float64)), RuntimeError),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([[0]]), m.zeros(1, 4)), IndexError),
    (lambda m: m.zeros(3, 4).index_copy(0, m.tensor([0]), m.zeros(2, 4)), IndexError),
    (lambda m: m.zeros(3, 4).index_copy(0, m.tensor([-1]), m.zeros(1, 4)), IndexError),
    (lambda m: m.zeros(3, 4).index_copy(0, m.tensor([0], dtype=m.int32), m.zeros(1, 4)), RuntimeError),
    (lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4) > 0, m.zeros(2)), RuntimeError),
    (lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4).int(), m.zeros(12)), RuntimeError),
    (lambda m: m.ones(3, 4).masked_scatter(m.ones(3, 4) > 0, m.zeros(12, dtype=m.float64)), RuntimeError),
    (lambda m: m.zeros(3, 4).take(m.tensor([12])), IndexError),
    (lambda m: m.zeros(3, 4).take(m.tensor([-13])), IndexError),
    (lambda m: m.zeros(3, 4).take(m.tensor([1], dtype=m.int32)), RuntimeError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
