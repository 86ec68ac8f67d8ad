"""scatter_reduce and scatter_reduce_, index_reduce and index_reduce_ (ops/scatter_more.py) against PyTorch for
each reduction, with and without include_self: values, dtypes, grad_fn names, gradients of self and src (ties for
amax/amin, zeros for prod); gradcheck, gradgradcheck and forward AD in float64; PyTorch's error for double backward
of prod through two zeros met in one place; scatter_add_; PyTorch's errors for bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from ops._torch_compare import same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]
SELF = [[1.0, 3.0, 2.0, -1.0], [3.0, 4.0, 0.0, 2.0]]
SRC = [[0.0, 3.0, 5.0, 2.0], [0.0, 0.0, 1.0, 2.0], [2.0, 3.0, -1.0, 2.0]]  # ties with self, zeros, repeats
INDEX = [[0, 0, 1, 1], [0, 1, 1, 1], [1, 0, 1, 0]]


def _run(m, reduce, include_self, dim=0, index=INDEX, self_values=SELF, src_values=SRC):
    x = m.tensor(self_values, dtype=m.float64, requires_grad=True)
    src = m.tensor(src_values, dtype=m.float64, requires_grad=True)
    out = x.scatter_reduce(dim, m.tensor(index), src, reduce, include_self=include_self)
    weights = m.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
    grads = m.autograd.grad((out * weights).sum(), [x, src])
    return out.grad_fn.name(), str(out.dtype).split(".")[-1], out.tolist(), [g.tolist() for g in grads]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_values_and_gradients_match_torch(reduce, include_self):
    assert _run(al, reduce, include_self) == _run(torch, reduce, include_self)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_along_the_last_dim_with_a_smaller_index_matches_torch(reduce):
    args = dict(dim=-1, index=[[3, 3]], self_values=SELF[:1], src_values=[[2.0, 2.0]])
    assert _run(al, reduce, False, **args) == _run(torch, reduce, False, **args)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_a_src_larger_than_the_index_is_read_in_its_corner_but_has_no_gradient_as_in_torch(reduce):
    def run(m):
        src = m.tensor([[2.0, 5.0, 1.0], [0.5, 4.0, 1.0]], requires_grad=True)
        out = m.ones(2, 4).scatter_reduce(1, m.tensor([[3, 3], [0, 3]]), src, reduce)
        if reduce == "sum":
            assert out.tolist() == [[1, 1, 1, 8], [1.5, 1, 1, 5]]
        out.sum().backward()  # (amax, amin, prod: PyTorch's formula compares src with an index-shaped tensor)
    same_error(torch, run, RuntimeError)


def _leaves(seed):
    rng = np.random.default_rng(seed)
    x = al.tensor(rng.uniform(0.5, 2.0, (3, 4)) * rng.choice([-1, 1], (3, 4)), requires_grad=True)
    src = al.tensor(rng.uniform(0.5, 2.0, (4, 4)) * rng.choice([-1, 1], (4, 4)), requires_grad=True)
    return x, src


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_gradcheck_and_gradgradcheck(reduce, include_self):
    x, src = _leaves(7)
    index = al.tensor([[0, 2, 2, 1], [0, 0, 2, 1], [1, 2, 0, 1], [2, 2, 0, 0]])

    def fn(a, b):
        return a.scatter_reduce(0, index, b, reduce, include_self=include_self)
    assert gradcheck(fn, [x, src], check_forward_ad=True)
    assert gradgradcheck(fn, [x, src])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_forward_ad_of_ties_matches_torch(reduce, include_self):
    # self equals the result where src goes: without include_self PyTorch's forward formula does not count it
    # (its backward does: the two disagree there, and each is matched)
    def run(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor([2.0, -1.0, 4.0], dtype=m.float64), m.tensor([1.0, 10.0, 100.0], dtype=m.float64))
            src = fw.make_dual(m.tensor([2.0 if reduce == "amax" else -1.0, -1.0, 2.0], dtype=m.float64),
                               m.tensor([1000.0, 3000.0, 7000.0], dtype=m.float64))
            out = x.scatter_reduce(0, m.tensor([0, 1, 1]), src, reduce, include_self=include_self)
            return out.tolist(), fw.unpack_dual(out).tangent.tolist()
    assert run(al) == run(torch)


def test_prod_double_backward_through_two_zeros_in_one_place_is_pytorchs_error():
    def run(m):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        src = m.tensor([0.0, 0.0, 3.0], dtype=m.float64, requires_grad=True)
        out = x.scatter_reduce(0, m.tensor([0, 0, 1]), src, "prod")
        gx, gsrc = m.autograd.grad(out.sum(), [x, src], create_graph=True)
        assert type(gsrc.grad_fn).__name__ == "Error" and gsrc.tolist() == [0.0, 0.0, 2.0]
        m.autograd.grad(gx.sum(), [src])  # (the gradient of self's gradient is fine)
        m.autograd.grad(gsrc.sum(), [x, src])
    same_error(torch, run, RuntimeError)


def test_prod_with_one_zero_in_a_place_can_be_differentiated_twice():
    x = al.tensor([1.5, 2.0], dtype=al.float64, requires_grad=True)
    src = al.tensor([0.0, 2.0, 3.0], dtype=al.float64, requires_grad=True)
    assert gradgradcheck(lambda a, b: a.scatter_reduce(0, al.tensor([0, 0, 1]), b, "prod"), [x, src])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_gradients_of_a_0_dim_self_match_torch(reduce, include_self):
    # (the gradients' scatters wrote into a temporary when a 0-d array had become a NumPy scalar: amax gave nan)
    def run(m, op, index, src):
        x = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        src = m.tensor(src, dtype=m.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(x, op)(0, m.tensor(index), src, reduce, include_self=include_self)
        return out.tolist(), [g.tolist() for g in m.autograd.grad(out * 1.5, [x, src])]
    for index, src in [([0, 0], [3.0, 2.0]), (0, 3.0), ([0, 0, 0], [3.0, 0.0, 3.0])]:
        assert run(al, "scatter_reduce", index, src) == run(torch, "scatter_reduce", index, src)
    if reduce != "sum":
        assert run(al, "index_reduce", [0], 3.0) == run(torch, "index_reduce", [0], 3.0)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_integers_and_0_dim_inputs_match_torch(reduce):
    for values, index, src in [([1, 2], [0, 0, 1], [4, 5, -3]), (7, [0, 0], [2, 3])]:
        ours = al.tensor(values).scatter_reduce(0, al.tensor(index), al.tensor(src), reduce)
        theirs = torch.tensor(values).scatter_reduce(0, torch.tensor(index), torch.tensor(src), reduce)
        assert ours.tolist() == theirs.tolist() and ours.dtype is al.int64


def test_booleans_where_torch_has_a_kernel():
    def run(m):
        x, src = m.tensor([[True, False], [False, False]]), m.tensor([[False, True]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [x.index_reduce(0, m.tensor([1]), src, "amax").tolist(),
                    x.scatter_reduce(0, m.tensor([[1, 0]]), src, "prod", include_self=False).tolist()]
    assert run(al) == run(torch)


def test_max_and_min_are_names_of_amax_and_amin_as_in_torch():
    x, index, src = [1.0, 2.0], [0, 0, 1], [4.0, -5.0, -3.0]
    for name in ("max", "min"):
        ours = al.tensor(x).scatter_reduce(0, al.tensor(index), al.tensor(src), name)
        assert ours.tolist() == torch.tensor(x).scatter_reduce(0, torch.tensor(index), torch.tensor(src), name).tolist()


@pytest.mark.parametrize("method, args", [("scatter_reduce_", ("prod",)), ("scatter_reduce_", ("amax",)),
                                          ("scatter_add_", ())])
def test_in_place_forms_match_torch(method, args):
    def run(m):
        x = m.tensor(SELF, dtype=m.float64, requires_grad=True)
        src = m.tensor(SRC, dtype=m.float64, requires_grad=True)
        y = x * 1
        assert getattr(y, method)(0, m.tensor(INDEX), src, *args) is y
        y.backward(m.tensor(np.arange(8.0).reshape(2, 4)))
        return y.grad_fn.name(), y._version, y.tolist(), x.grad.tolist(), src.grad.tolist()
    assert run(al) == run(torch)


def _index_reduce(m, reduce, include_self, dim=0):
    x = m.tensor([[1.0, 3.0], [3.0, 4.0], [2.0, 2.0]], dtype=m.float64, requires_grad=True)
    source = m.tensor([[0.0, 3.0], [0.0, 0.0], [2.0, 1.0]], dtype=m.float64, requires_grad=True)
    index = m.tensor([0, 0, 2] if dim == 0 else [1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's note that index_reduce is in beta)
        out = x.index_reduce(dim, index, source, reduce, include_self=include_self)
    grads = m.autograd.grad((out * m.arange(6.0, dtype=m.float64).reshape(3, 2)).sum(), [x, source])
    return out.grad_fn.name(), out.tolist(), [g.tolist() for g in grads]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS[1:])
def test_index_reduce_matches_torch(reduce, include_self):
    for dim in (0, 1):
        assert _index_reduce(al, reduce, include_self, dim) == _index_reduce(torch, reduce, include_self, dim)


@pytest.mark.parametrize("reduce", REDUCTIONS[1:])
def test_index_reduce_passes_gradcheck_and_gradgradcheck(reduce):
    x, source = _leaves(11)
    index = al.tensor([2, 0, 2, 1])

    def fn(a, b):
        return a.index_reduce(0, index, b, reduce, include_self=reduce != "mean")
    assert gradcheck(fn, [x, source], check_forward_ad=True)
    assert gradgradcheck(fn, [x, source])


def test_index_reduce_in_place_and_its_prod_double_backward_error_match_torch():
    def run(m):
        x = m.tensor([[1.0], [2.0]], dtype=m.float64, requires_grad=True)
        source = m.tensor([[0.0], [0.0], [3.0]], dtype=m.float64, requires_grad=True)
        y = x * 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert y.index_reduce_(0, m.tensor([0, 0, 1]), source, "prod") is y
        assert y.grad_fn.name() == "IndexReduceBackward0" and y.tolist() == [[0.0], [6.0]]
        gx, gsource = m.autograd.grad(y.sum(), [x, source], create_graph=True)
        assert gsource.tolist() == [[0.0], [0.0], [2.0]]
        m.autograd.grad(gsource.sum(), [x, source])
    same_error(torch, run, RuntimeError)


ERRORS = [
    (lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([[0]]), m.ones(1, 1), "xyz"), RuntimeError),
    (lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64), "sum"), RuntimeError),
    (lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([[0.0]]), m.ones(1, 1), "sum"), RuntimeError),
    (lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([[5]]), m.ones(1, 1), "sum"), RuntimeError),
    (lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([0]), m.ones(1), "sum"), RuntimeError),
    (lambda m: m.zeros(2, 3).scatter_reduce(2, m.tensor([[0]]), m.ones(1, 1), "sum"), IndexError),
    (lambda m: m.ones(2, requires_grad=True).scatter_reduce_(0, m.tensor([0]), m.ones(1), "sum"), RuntimeError),
    (lambda m: m.ones(2, requires_grad=True).scatter_add_(0, m.tensor([0]), m.ones(1)), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0]), m.ones(1, 2), "sum"), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([[0]]), m.ones(1, 2), "prod"), IndexError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0.0]), m.ones(1, 2), "prod"), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0, 1]), m.ones(3, 2), "prod"), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([3]), m.ones(1, 2), "prod"), IndexError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([-1]), m.ones(1, 2), "prod"), IndexError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0]), m.ones(1, 2, dtype=m.float64), "prod"), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0]), m.ones(1, 1), "prod"), RuntimeError),
    (lambda m: m.tensor(1.0).index_reduce(0, m.tensor([0]), m.ones(1), "prod"), RuntimeError),  # (a 0-d source)
    (lambda m: m.tensor(1.0).index_reduce(0, m.tensor([0, 0]), m.ones(2), "prod"), RuntimeError),
    (lambda m: m.zeros(3, 2).index_reduce(1, m.tensor([0, 1]), m.ones(2), "prod"), RuntimeError),
    (lambda m: m.zeros(3).index_reduce(0, m.tensor([0]), m.ones(2, 2), "prod"), RuntimeError),
    (lambda m: m.ones(2, dtype=m.bool).scatter_reduce(0, m.tensor([0]), m.ones(1, dtype=m.bool), "mean"),
     NotImplementedError),
    (lambda m: m.ones(3, 2, dtype=m.bool).index_reduce(0, m.tensor([0]), m.ones(1, 2, dtype=m.bool), "amax",
                                                       include_self=False), NotImplementedError),
    (lambda m: m.ones(3, dtype=m.bool).index_reduce(0, m.tensor([0]), m.ones(1, dtype=m.bool), "prod"),
     NotImplementedError),
    (lambda m: m.ones(3, 2, dtype=m.bool).index_reduce(0, m.tensor([0]), m.ones(1, 2, dtype=m.bool), "mean"),
     NotImplementedError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
