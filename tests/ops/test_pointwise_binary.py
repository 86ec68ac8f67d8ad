"""The math of several tensors in ops/pointwise_binary.py against PyTorch: values (edge values included), broadcasting
and dtype promotion, grad_fn names, gradients, gradcheck in float64, in-place versions, PyTorch's error phrases;
and the NaN-skipping reductions nansum and nanmean."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck

torch = pytest.importorskip("torch")

SPECIAL = [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan]
BINARY = ["atan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "float_power"]


def _pairs():
    a, b = np.meshgrid(SPECIAL, SPECIAL)
    return a.ravel(), b.ravel()


def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    ok = np.isnan(ours) | ((ours == theirs) & (np.signbit(ours) == np.signbit(theirs)))
    assert ok.all(), (ours[~ok], theirs[~ok])


@pytest.mark.parametrize("name", BINARY)
def test_values_at_every_pair_of_edge_values_match_torch(name):
    a, b = _pairs()
    ours = getattr(al, name)(al.tensor(a), al.tensor(b)).numpy()
    theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    edge = ~np.isfinite(a) | ~np.isfinite(b) | (a == 0) & (b == 0)  # bit for bit; elsewhere within an ulp or two
    _same(ours[edge], theirs[edge])
    np.testing.assert_allclose(ours, theirs, rtol=4.5e-16, atol=2.3e-16)
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.1, 5, 200) * rng.choice([-1, 1], 200), rng.uniform(0.1, 5, 200)
    np.testing.assert_allclose(getattr(al, name)(al.tensor(a), al.tensor(b)).numpy(),
                               getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy(), rtol=4.5e-16)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "float32"), ("int64", "int64"), ("int32", "bool")])
def test_broadcasting_and_dtypes_match_torch(name, dtypes):
    a, b = np.array([[1], [2], [3]]), np.array([2, 0, 1, 4])
    try:
        expected = getattr(torch, name)(torch.tensor(a, dtype=getattr(torch, dtypes[0])),
                                        torch.tensor(b, dtype=getattr(torch, dtypes[1])))
    except (RuntimeError, NotImplementedError) as exc:
        with pytest.raises(type(exc), match=str(exc)[:18]):
            getattr(al, name)(al.tensor(a, dtype=getattr(al, dtypes[0])), al.tensor(b, dtype=getattr(al, dtypes[1])))
        return
    ours = getattr(al, name)(al.tensor(a, dtype=getattr(al, dtypes[0])), al.tensor(b, dtype=getattr(al, dtypes[1])))
    assert ours.shape == tuple(expected.shape) and str(ours.dtype)[3:] == str(expected.dtype)[6:]
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), rtol=1e-6)


CALLS = {  # name -> (function of the module, its inputs: arrays; numbers stay numbers)
    "atan2": (lambda m, a, b: m.atan2(a, b), 2), "hypot": (lambda m, a, b: m.hypot(a, b), 2),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), 2), "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), 2),
    "xlogy": (lambda m, a, b: m.xlogy(a, b.abs()), 2), "xlogy_number_first": (lambda m, b: m.xlogy(2.5, b.abs()), 1),
    "xlogy_number_second": (lambda m, a: m.xlogy(a, 3.0), 1), "copysign": (lambda m, a, b: m.copysign(a, b), 2),
    "copysign_number": (lambda m, a: m.copysign(a, -2.0), 1), "float_power": (lambda m, a, b: m.float_power(a.abs(), b), 2),
    "lerp_number": (lambda m, a, b: m.lerp(a, b, 0.7), 2), "lerp_tensor": (lambda m, a, b, w: m.lerp(a, b, w), 3),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=-1.5), 3),
    "addcdiv": (lambda m, a, b, c: m.addcdiv(a, b, c, value=0.5), 3),
    "nansum": (lambda m, a: m.nansum(a.log(), 1), 1), "nanmean": (lambda m, a: m.nanmean(a.log(), 0, keepdim=True), 1),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_grad_fn_names_gradients_and_gradcheck(name):
    fn, n = CALLS[name]
    rng = np.random.default_rng(3)
    shapes = [(3, 4), (4,), (3, 1)][:n]
    values = [rng.uniform(0.3, 2, s) * rng.choice([-1, 1], s) for s in shapes]
    ours = [al.tensor(v, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    out, expected = fn(al, *ours), fn(torch, *theirs)
    assert out.grad_fn.name() == expected.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=4.5e-16, atol=2.3e-16)
    seed = rng.standard_normal(tuple(expected.shape))
    out.backward(al.tensor(seed))
    expected.backward(torch.tensor(seed))
    for x, t in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert gradcheck(lambda *xs: fn(al, *xs), tuple(al.tensor(v, requires_grad=True) for v in values))


def test_gradients_at_edge_values_match_torch():
    a = [0.0, -0.0, 2.0, -1.0, 0.0]
    b = [0.0, 1.0, math.nan, 0.0, -3.0]
    for name in ("xlogy", "copysign", "atan2", "hypot", "logaddexp"):
        x, y = al.tensor(a, dtype=al.float64, requires_grad=True), al.tensor(b, dtype=al.float64, requires_grad=True)
        xt, yt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (a, b))
        getattr(al, name)(x, y).sum().backward()
        getattr(torch, name)(xt, yt).sum().backward()
        for ours, theirs in ((x.grad, xt.grad), (y.grad, yt.grad)):
            _same(ours.numpy(), theirs.numpy(force=True))


def test_lerp_and_the_addc_ops_values_and_errors():
    rng = np.random.default_rng(5)
    a, b, w = rng.standard_normal(50), rng.standard_normal(50), rng.uniform(-1, 2, 50)
    close = dict(rtol=1e-15, atol=1e-16)  # (PyTorch's CPU kernels fuse a multiply-add: the last bit may differ)
    for weight in (0.25, 0.5, 1.0, 2.0):
        np.testing.assert_allclose(al.lerp(al.tensor(a), al.tensor(b), weight).numpy(),
                                   torch.lerp(torch.tensor(a), torch.tensor(b), weight), **close)
    _same(al.lerp(al.tensor(a), al.tensor(b), 1.0).numpy(), b)  # weight 1: end exactly
    np.testing.assert_allclose(al.lerp(al.tensor(a), al.tensor(b), al.tensor(w)).numpy(),
                               torch.lerp(torch.tensor(a), torch.tensor(b), torch.tensor(w)), **close)
    np.testing.assert_allclose(al.addcmul(al.tensor(a), al.tensor(b), al.tensor(w), value=3).numpy(),
                               torch.addcmul(torch.tensor(a), torch.tensor(b), torch.tensor(w), value=3), **close)
    _same(al.addcdiv(al.tensor(a), al.tensor(b), al.tensor(w), value=-2).numpy(),
          torch.addcdiv(torch.tensor(a), torch.tensor(b), torch.tensor(w), value=-2))
    assert al.addcmul(al.tensor([1, 2]), al.tensor([3, 4]), al.tensor([1, 1]), value=2).tolist() == [7, 10]
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        al.lerp(al.tensor([1.0]), al.tensor([1.0], dtype=al.float64), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype double"):
        al.lerp(al.tensor([1.0]), al.tensor([1.0]), al.tensor(0.5, dtype=al.float64))
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        al.lerp(al.tensor([1]), al.tensor([2]), 0.5)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        al.addcdiv(al.tensor([1]), al.tensor([1]), al.tensor([2]))


def test_heaviside_has_no_gradient_and_checks_dtypes():
    x = al.tensor([-1.0, 0.0, -0.0, 2.0, math.nan], requires_grad=True)
    out = al.heaviside(x, al.tensor([0.5]))
    expected = torch.heaviside(torch.tensor([-1.0, 0.0, -0.0, 2.0, math.nan]), torch.tensor([0.5]))
    _same(out.numpy(), expected.numpy())
    assert out.grad_fn is None and not out.requires_grad
    assert al.heaviside(al.tensor([-2, 0, 3]), al.tensor([7])).tolist() == [0, 7, 1]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        al.heaviside(al.tensor([1.0]), al.tensor([1.0], dtype=al.float64))
    t = al.tensor([-1.0, 0.0, 3.0])
    t.heaviside_(al.tensor([0.25]))
    assert t.tolist() == [0.0, 0.25, 1.0]


def test_in_place_versions():
    base = al.tensor([0.5, 1.5, -2.0], dtype=al.float64)
    other = al.tensor([1.0, -0.5, 2.0], dtype=al.float64)
    for name in ("atan2", "hypot", "xlogy", "copysign", "float_power"):
        t = base.clone()
        getattr(t, name + "_")(other.abs() if name == "xlogy" else other)
        np.testing.assert_array_equal(t.numpy(), getattr(base, name)(other.abs() if name == "xlogy" else other).numpy())
    t = base.clone()
    t.lerp_(other, 0.25).addcmul_(other, other, value=2).addcdiv_(other, other.abs())
    expected = torch.tensor(base.numpy()).lerp_(torch.tensor(other.numpy()), 0.25)
    expected.addcmul_(torch.tensor(other.numpy()), torch.tensor(other.numpy()), value=2)
    expected.addcdiv_(torch.tensor(other.numpy()), torch.tensor(other.numpy()).abs())
    np.testing.assert_allclose(t.numpy(), expected.numpy(), rtol=1e-15)
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        al.tensor([1.0]).float_power_(2)  # (float_power computes in float64, as in PyTorch)


def test_nansum_and_nanmean_match_torch():
    a = np.array([[1.0, math.nan, 2.0], [math.nan, math.nan, math.nan], [math.inf, 3.0, -1.0]])
    for kw in ({}, {"dim": 0}, {"dim": 1, "keepdim": True}, {"dim": (0, 1)}):
        for name in ("nansum", "nanmean"):
            x, xt = al.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            out, expected = getattr(x, name)(**kw), getattr(xt, name)(**kw)
            _same(out.detach().numpy(), expected.detach().numpy())
            assert out.grad_fn.name() == expected.grad_fn.name()
            out.sum().backward()
            expected.sum().backward()
            _same(x.grad.numpy(), xt.grad.numpy())
    assert al.nansum(al.tensor([1, 2], dtype=al.int32)).dtype is al.int64
    with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point or complex dtype but "
                                           "got Long"):
        al.nanmean(al.tensor([1, 2]))


def test_aminmax_matches_torch_ties_included():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [5.0, 5.0, 5.0]])
    for kw in ({}, {"dim": 0}, {"dim": 1, "keepdim": True}, {"dim": -1}):
        for use in ("min", "max", "both"):
            x, xt = al.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            out, expected = al.aminmax(x, **kw), torch.aminmax(xt, **kw)
            assert out.min.tolist() == expected.min.tolist() and out.max.tolist() == expected.max.tolist()
            assert out.max.grad_fn.name() == expected.max.grad_fn.name() == "AminmaxBackward0"
            pick = {"min": lambda r: r.min.sum(), "max": lambda r: r.max.sum(), "both": lambda r: (r.min * 2 + r.max).sum()}
            pick[use](out).backward()
            pick[use](expected).backward()
            np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-15)
    assert gradcheck(lambda x: al.aminmax(x, dim=1), (al.tensor([[0.1, 0.7], [0.9, -0.2]], dtype=al.float64,
                                                                requires_grad=True),))
    with pytest.raises(RuntimeError, match="aminmax\\(\\): cannot compute aminmax over an empty dimension"):
        al.aminmax(al.tensor([]))
    with pytest.raises(IndexError, match="aminmax: Expected reduction dim 1 to have non-zero size"):
        al.aminmax(al.zeros(2, 0), dim=1)


@pytest.mark.parametrize("other", ["tensor", 0.25, -1.0, 0.0])
def test_xlogy_gradient_for_self_at_zero_is_torchs(other):
    """PyTorch's rule: xlogy(grad, other), except 0 where self is 0 and other <= 0 (the fuzzer found ours 0 wherever
    self was 0)."""
    grads = []
    for m in (al, torch):
        x = m.tensor([0.0, 0.0, 0.0, 1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([0.25, -1.0, 0.0, 0.0, -2.0], dtype=m.float64) if other == "tensor" else other
        m.xlogy(x, y).sum().backward()
        grads.append(x.grad.tolist())
    np.testing.assert_array_equal(grads[0], grads[1])
