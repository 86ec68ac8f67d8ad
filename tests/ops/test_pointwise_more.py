"""The element-wise ops of ops/pointwise_more.py (and rsub) against PyTorch: values at edge values, dtypes and
promotion, grad_fn names, gradients (gradcheck in float64), in-place forms and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
nan, inf = math.nan, math.inf

CASES = {  # name -> (function of the module and the leaves, the leaves' values)
    "fmax": (lambda m, a, b: m.fmax(a, b), ([1.0, nan, 3, 2, nan, -inf], [2.0, 1, nan, 2, nan, 0])),
    "fmin": (lambda m, a, b: m.fmin(a, b), ([1.0, nan, 3, 2, nan, inf], [2.0, 1, nan, 2, nan, 0])),
    "fmax_broadcast": (lambda m, a, b: a.fmax(b), ([[1.0], [-1]], [0.5, 2, -3])),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), ([1.0, -2, 3, 0.5], [2.0, 1, -3, 0.5])),
    "ldexp_int_exponent": (lambda m, a: m.ldexp(a, m.tensor([1, 2, -3])), ([1.0, -2, 3],)),
    "nextafter": (lambda m, a, b: m.nextafter(a, b), ([1.0, -2, 3, 0, 5], [2.0, 1, 3, 0, -5])),
    "rsub": (lambda m, a, b: m.rsub(a, b, alpha=3), ([1.0, -2, 3], [[2.0], [1]])),
    "rsub_number": (lambda m, a: m.rsub(a, 2), ([1.0, -2, 3],)),
    "fix": (lambda m, a: m.fix(a * 1.5), ([1.0, -2, 3],)),
    "fix_": (lambda m, a: (a * 1.5).fix_(), ([1.0, -2, 3],)),
    "ldexp_": (lambda m, a, b: (a * 1).ldexp_(b), ([1.0, -2, 3], [1.0, 2, 0])),
    "nextafter_": (lambda m, a, b: (a * 1).nextafter_(b), ([1.0, -2, 3], [1.0, 2, 0])),
    "i0": (lambda m, a: m.i0(a), ([0.0, 1e-9, -2.5, 3, 29.5, 31, -45, 200, math.inf, -math.inf, math.nan],)),
    "i0_": (lambda m, a: (a * 1).i0_(), ([0.0, -2.5, 3],)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name):
    fn, values = CASES[name]
    same_as_torch(torch, fn, *values)


def test_i0_gradient_of_gradient_matches_torch_and_gradgradcheck():
    """The second derivative of i0 runs i1's node (SpecialI1Backward0), as in PyTorch; at 0 it is 1/2."""
    values = [0.0, 1e-9, -2.5, 3.0, 29.5, 31.0, -45.0]
    grads = []
    for m in (al, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        (first,) = m.autograd.grad(m.i0(x).sum(), x, create_graph=True)
        assert type(first.grad_fn).__name__ in ("MulBackward0", "SpecialI1Backward0")
        first.sum().backward()
        grads.append((first.tolist(), x.grad.tolist()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-13)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-13)
    x = al.tensor([0.5, -1.5, 4.0, 35.0], dtype=al.float64, requires_grad=True)
    assert gradcheck(al.i0, [x]) and gradgradcheck(al.i0, [x])


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_i0_dtypes_match_torch(dtype):
    ours = al.i0(al.tensor([0, 1, 3], dtype=getattr(al, dtype)))
    theirs = torch.i0(torch.tensor([0, 1, 3], dtype=getattr(torch, dtype)))
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["fmax", "fmin", "ldexp", "nextafter", "rsub"])
def test_gradcheck(name):
    rng = np.random.default_rng(1)
    a, b = (al.tensor(rng.uniform(-2, 2, (3, 4)), requires_grad=True) for _ in range(2))
    fn = CASES[name][0]
    assert gradcheck(lambda x, y: fn(al, x, y), [a, b]) and gradgradcheck(lambda x, y: fn(al, x, y), [a, b])


@pytest.mark.parametrize("name", ["fmax", "fmin", "ldexp"])
@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("int32", "int64"), ("bool", "bool"), ("float32", "float64")])
def test_dtypes_match_torch(name, dtypes):
    a, b = np.array([1, 0, 3]), np.array([2, 0, 1])
    ours = getattr(al, name)(al.tensor(a, dtype=getattr(al, dtypes[0])), al.tensor(b, dtype=getattr(al, dtypes[1])))
    theirs = getattr(torch, name)(torch.tensor(a, dtype=getattr(torch, dtypes[0])),
                                  torch.tensor(b, dtype=getattr(torch, dtypes[1])))
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int8", "int64"), ("int16", "int32"), ("uint8", "uint8")])
def test_gcd_and_lcm_match_torch(name, dtypes):
    a, b = np.array([12, 18, 0, 0, 7, 100]), np.array([8, 12, 5, 0, 13, 75])
    ours = getattr(al, name)(al.tensor(a, dtype=getattr(al, dtypes[0])), al.tensor(b, dtype=getattr(al, dtypes[1])))
    theirs = getattr(torch, name)(torch.tensor(a, dtype=getattr(torch, dtypes[0])),
                                  torch.tensor(b, dtype=getattr(torch, dtypes[1])))
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    signed = al.tensor([-12, 18, -4]), torch.tensor([-12, 18, -4])
    np.testing.assert_array_equal(getattr(al, name)(signed[0], signed[0].flip(0)).numpy(),
                                  getattr(torch, name)(signed[1], signed[1].flip(0)).numpy())
    x = al.tensor([4, 6])
    assert getattr(x, name + "_")(al.tensor([6, 4])) is x and x._version == 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_matches_torch(dtype):
    values = [8.0, 0.3, 0.0, -0.0, -5.0, inf, -inf, nan, 1e-310, 1.0]
    ours = al.frexp(al.tensor(values, dtype=getattr(al, dtype)))
    theirs = torch.frexp(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert ours.exponent.dtype is al.int32 and ours.mantissa.dtype is getattr(al, dtype)
    np.testing.assert_array_equal(ours.mantissa.numpy(), theirs.mantissa.numpy())
    np.testing.assert_array_equal(ours.exponent.numpy()[np.isfinite(values)], theirs.exponent.numpy()[np.isfinite(values)])
    mantissa, exponent = al.tensor(values).frexp()
    np.testing.assert_array_equal(al.ldexp(mantissa, exponent).numpy(), np.array(values, dtype=np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_mantissa_has_torchs_gradient(dtype):
    values = [8.0, 0.3, -5.0, 1e-3, 1.0, 0.0]
    grads = []
    for m in (al, torch):
        x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        mantissa, exponent = m.frexp(x)
        assert not exponent.requires_grad and type(mantissa.grad_fn).__name__ == "FrexpBackward0"
        (mantissa * m.arange(6.0, dtype=getattr(m, dtype))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)
    x = al.tensor([1.5, -3.0, 0.3], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(lambda a: al.frexp(a).mantissa, (x,))
    assert al.autograd.gradgradcheck(lambda a: al.frexp(a).mantissa, (x,))


def test_positive_is_the_tensor_itself():
    x = al.ones(3, requires_grad=True)
    assert al.positive(x) is x and x.positive() is x


BAD = {
    "gcd_float": (lambda m: m.gcd(m.tensor([1.0]), m.tensor([2.0])), NotImplementedError),
    "lcm_bool": (lambda m: m.lcm(m.tensor([True]), m.tensor([True])), NotImplementedError),
    "nextafter_int": (lambda m: m.nextafter(m.tensor([1]), m.tensor([2])), NotImplementedError),
    "frexp_int": (lambda m: m.frexp(m.tensor([1, 2])), RuntimeError),
    "ldexp_bool_exponent": (lambda m: m.ldexp(m.tensor([1.0, 2]), m.tensor([True, False])), NotImplementedError),
    "ldexp_bool_0_dim_exponent": (lambda m: m.ldexp(m.tensor([1.0, 2]), m.tensor(True)), NotImplementedError),
    "positive_bool": (lambda m: m.positive(m.tensor([True])), RuntimeError),
    "fmax_number": (lambda m: m.fmax(m.tensor([1.0]), 2), TypeError),
    "rsub_bool": (lambda m: m.rsub(m.tensor([True]), m.tensor([True])), RuntimeError),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_torchs_error(name):
    fn, error = BAD[name]
    same_error(torch, fn, error)
