"""The products of ops/products_more.py against PyTorch: values, dtypes, grad_fn names, gradients (and gradcheck,
gradgradcheck in float64), beta and alpha, the in-place methods, and PyTorch's errors for bad shapes and dtypes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape)


CASES = {  # name -> (function of the module and the leaves, the leaves' values)
    "addmv": (lambda m, x, a, v: m.addmv(x, a, v, beta=0.5, alpha=2), (_r(3), _r(3, 4), _r(4))),
    "addmv_broadcast": (lambda m, x, a, v: m.addmv(x, a, v), (_r(1), _r(3, 4), _r(4))),
    "addr": (lambda m, x, a, v: m.addr(x, a, v, beta=-1, alpha=0.25), (_r(3, 4), _r(3), _r(4))),
    "addr_broadcast": (lambda m, x, a, v: x.addr(a, v), (_r(4), _r(3), _r(4))),
    "baddbmm": (lambda m, x, a, b: m.baddbmm(x, a, b, beta=0.5, alpha=2), (_r(2, 3, 4), _r(2, 3, 5), _r(2, 5, 4))),
    "baddbmm_broadcast": (lambda m, x, a, b: x.baddbmm(a, b), (_r(3, 1), _r(2, 3, 5), _r(2, 5, 4))),
    "addbmm": (lambda m, x, a, b: m.addbmm(x, a, b, beta=0.5, alpha=2), (_r(3, 4), _r(2, 3, 5), _r(2, 5, 4))),
    "addbmm_broadcast": (lambda m, x, a, b: x.addbmm(a, b), (_r(4), _r(2, 3, 5), _r(2, 5, 4))),
    "addmm_method": (lambda m, x, a, b: x.addmm(a, b, beta=2), (_r(3, 4), _r(3, 2), _r(2, 4))),
    "vdot": (lambda m, a, b: m.vdot(a, b), (_r(5), _r(5))),
    "ger": (lambda m, a, b: m.ger(a, b), (_r(3), _r(4))),
    "chain_matmul": (lambda m, a, b, c: m.chain_matmul(a, b, c), (_r(3, 4), _r(4, 5), _r(5, 2))),
    "inner_method": (lambda m, a, b: a.inner(b), (_r(3, 4), _r(2, 4))),
    "kron_method": (lambda m, a, b: a.kron(b), (_r(3, 2), _r(2, 4))),
    **{f"dist_{p}": (lambda m, a, b, p=p: m.dist(a, b, p), (_r(3, 4), _r(4)))
       for p in (2, 1, 3, 0.5, -1, math.inf, -math.inf)},
    "dist_method": (lambda m, a, b: a.dist(b), (_r(2, 3), _r(2, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name):
    fn, values = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (torch.chain_matmul is deprecated)
        same_as_torch(torch, fn, *values)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, values = CASES[name]
    leaves = [al.tensor(v, requires_grad=True) for v in values]
    assert gradcheck(lambda *xs: fn(al, *xs), leaves)
    if not name.startswith(("dist_inf", "dist_-inf", "dist_1")):  # (piecewise linear: second derivative 0 or none)
        assert gradgradcheck(lambda *xs: fn(al, *xs), leaves)


@pytest.mark.parametrize("method", ["addmm_", "addmv_", "addr_", "baddbmm_", "addbmm_"])
def test_in_place_versions_match_torch(method):
    shapes = {"addmm_": [(3, 4), (3, 2), (2, 4)], "addmv_": [(3,), (3, 4), (4,)], "addr_": [(3, 4), (3,), (4,)],
              "baddbmm_": [(2, 3, 4), (2, 3, 5), (2, 5, 4)], "addbmm_": [(3, 4), (2, 3, 5), (2, 5, 4)]}[method]
    values = [_r(*s) for s in shapes]

    def fn(m, x, a, b):
        target = x * 1
        out = getattr(target, method)(a, b, beta=0.5, alpha=-2)
        assert out is target and target._version == 1
        return target
    same_as_torch(torch, fn, *values)


def test_beta_zero_ignores_nan_in_input_as_torch():
    for m in (al, torch):
        out = m.addmv(m.full((3,), math.nan), m.ones(3, 4), m.ones(4), beta=0)
        assert out.tolist() == [4.0] * 3
        out = m.baddbmm(m.full((1, 2, 2), math.nan), m.ones(1, 2, 3), m.ones(1, 3, 2), beta=0, alpha=2)
        assert out.tolist() == [[[6.0] * 2] * 2]
        assert m.addmm(m.full((2,), math.nan), m.ones(3, 4), m.ones(4, 2), beta=0).tolist() == [[4.0] * 2] * 3


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32"])
def test_integer_and_float32_products_keep_their_dtype(dtype):
    for name, shapes in (("addmv", [(3,), (3, 4), (4,)]), ("addr", [(3, 4), (3,), (4,)]),
                         ("baddbmm", [(2, 3, 4), (2, 3, 5), (2, 5, 4)]), ("addbmm", [(3, 4), (2, 3, 5), (2, 5, 4)])):
        values = [np.arange(np.prod(s)).reshape(s) % 5 - 2 for s in shapes]
        ours = getattr(al, name)(*[al.tensor(v, dtype=getattr(al, dtype)) for v in values], beta=2, alpha=3)
        theirs = getattr(torch, name)(*[torch.tensor(v, dtype=getattr(torch, dtype)) for v in values], beta=2, alpha=3)
        assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_integer_products_truncate_float_beta_and_alpha_as_torch():
    for name, shapes in (("addmv", [(3,), (3, 4), (4,)]), ("addmm", [(3, 1), (3, 4), (4, 1)]),
                         ("baddbmm", [(1, 3, 1), (1, 3, 4), (1, 4, 1)]),
                         ("addbmm", [(3, 1), (2, 3, 4), (2, 4, 1)])):
        ours = getattr(al, name)(*[al.full(s, 3) for s in shapes], beta=1.5, alpha=2.7)
        theirs = getattr(torch, name)(*[torch.full(s, 3) for s in shapes], beta=1.5, alpha=2.7)
        assert ours.tolist() == theirs.tolist()


def test_addr_promotes_and_computes_bool_as_torch():
    for dtypes in (("float32", "float64", "float32"), ("int64", "float32", "int64"), ("bool", "bool", "bool")):
        values = [np.ones((3, 4)), np.arange(3) % 2, np.arange(4) % 3]
        ours = al.addr(*[al.tensor(v, dtype=getattr(al, d)) for v, d in zip(values, dtypes)])
        theirs = torch.addr(*[torch.tensor(v, dtype=getattr(torch, d)) for v, d in zip(values, dtypes)])
        assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


BAD = {  # the leading phrase of PyTorch's error, checked word for word
    "addmv_sizes": lambda m: m.addmv(m.zeros(3), m.zeros(3, 4), m.zeros(5)),
    "addmv_dims": lambda m: m.addmv(m.zeros(3), m.zeros(3, 4, 1), m.zeros(4)),
    "addmv_input": lambda m: m.addmv(m.zeros(2), m.zeros(3, 4), m.zeros(4)),
    "addmv_dtypes": lambda m: m.addmv(m.zeros(3), m.zeros(3, 4, dtype=m.float64), m.zeros(4)),
    "addr_dims": lambda m: m.addr(m.zeros(3, 4), m.zeros(3, 1), m.zeros(4)),
    "addr_input": lambda m: m.addr(m.zeros(3, 4), m.zeros(3), m.zeros(5)),
    "addr_integer_alpha": lambda m: m.addr(m.zeros(3, 4, dtype=m.int64), m.zeros(3, dtype=m.int64),
                                           m.zeros(4, dtype=m.int64), alpha=1.5),
    "baddbmm_sizes": lambda m: m.baddbmm(m.zeros(3, 4), m.zeros(2, 3, 5), m.zeros(2, 6, 4)),
    "baddbmm_batches": lambda m: m.baddbmm(m.zeros(3, 4), m.zeros(2, 3, 5), m.zeros(3, 5, 4)),
    "baddbmm_input": lambda m: m.baddbmm(m.zeros(3, 5), m.zeros(2, 3, 5), m.zeros(2, 5, 4)),
    "addbmm_sizes": lambda m: m.addbmm(m.zeros(3, 4), m.zeros(2, 3, 5), m.zeros(2, 6, 4)),
    "addbmm_batches": lambda m: m.addbmm(m.zeros(3, 4), m.zeros(2, 3, 5), m.zeros(3, 5, 4)),
    "addbmm_dtypes": lambda m: m.addbmm(m.zeros(3, 4), m.zeros(2, 3, 5, dtype=m.float64), m.zeros(2, 5, 4)),
    "addbmm_input": lambda m: m.addbmm(m.zeros(2, 4), m.zeros(2, 3, 5), m.zeros(2, 5, 4)),
    "vdot_sizes": lambda m: m.vdot(m.zeros(3), m.zeros(4)),
    "vdot_dims": lambda m: m.vdot(m.zeros(3, 1), m.zeros(3)),
    "vdot_dtypes": lambda m: m.vdot(m.zeros(3), m.zeros(3, dtype=m.float64)),
    "dist_shapes": lambda m: m.dist(m.zeros(3), m.zeros(4)),
    "dist_integers": lambda m: m.dist(m.zeros(3, dtype=m.int64), m.zeros(3, dtype=m.int64)),
    "dist_empty_negative_p": lambda m: m.dist(m.zeros(0), m.zeros(0), -1),
    "dist_empty_minus_inf": lambda m: m.dist(m.zeros(0, 3), m.zeros(3), -math.inf),
    "dist_empty_inf": lambda m: m.dist(m.zeros(0), m.zeros(1), math.inf),
    "addr_bool_beta": lambda m: m.addr(m.zeros(3, 4), m.zeros(3), m.zeros(4), beta=True),
    "addr_bool_alpha": lambda m: m.addr(m.zeros(3, 4, dtype=m.int64), m.zeros(3, dtype=m.int64),
                                        m.zeros(4, dtype=m.int64), alpha=False),
    "addr_bool_float_beta": lambda m: m.addr(m.zeros(2, 2, dtype=m.bool), m.zeros(2, dtype=m.bool),
                                             m.zeros(2, dtype=m.bool), beta=0.0),
    "chain_matmul_none": lambda m: m.chain_matmul(),
    "chain_matmul_shapes": lambda m: m.chain_matmul(m.zeros(3, 4), m.zeros(5, 4)),
    "chain_matmul_dims": lambda m: m.chain_matmul(m.zeros(3, 4), m.zeros(4)),
    "ger_dims": lambda m: m.ger(m.zeros(3, 1), m.zeros(4)),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_torchs_error(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        same_error(torch, BAD[name], RuntimeError)


def test_addr_of_bools_takes_any_int_beta_and_alpha_as_torch():
    for beta, alpha in ((2, 3), (0, 2), (5, 0)):
        ours, theirs = (m.addr(m.tensor([[True, False], [False, False]]), m.tensor([True, False]),
                               m.tensor([False, True]), beta=beta, alpha=alpha)
                        for m in (al, torch))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_integer_vdot_and_single_chain_matmul_match_torch():
    a = np.arange(4)
    assert al.vdot(al.tensor(a), al.tensor(a)).item() == torch.vdot(torch.tensor(a), torch.tensor(a)).item() == 14
    assert al.vdot(al.tensor(a), al.tensor(a)).dtype is al.int64
    one = al.ones(2, 3, requires_grad=True)
    out = al.chain_matmul(one)
    assert out is not one and out.tolist() == one.tolist()
