"""The one-tensor math of ops/pointwise_math.py against PyTorch: values (edge values included, bit for bit where
both compute the same way), dtypes, grad_fn names, gradients, gradcheck in float64, in-place versions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

EDGES = [0.0, -0.0, 1.0, -1.0, -2.0, -2.5, 0.5, 3.7, 1e-300, -1e-300, 50.0, math.inf, -math.inf, math.nan]
EXACT = ["expm1", "exp2", "log2", "log10", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc",
         "logit", "frac", "sgn", "deg2rad", "rad2deg", "nan_to_num", "digamma", "erfc"]
CLOSE = ["erf", "erfinv", "lgamma"]  # (our kernels: within a few ulps of PyTorch's, see ops/special.py)
NAMES = EXACT + CLOSE


def _both(name, values, dtype="float64", **kw):
    ours = getattr(al, name)(al.tensor(values, dtype=getattr(al, dtype)), **kw)
    theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)), **kw)
    return ours.numpy(), theirs.numpy()


def _same_bits(a, b):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    ok = np.isnan(a) | ((a == b) & (np.signbit(a) == np.signbit(b)))
    assert ok.all(), (a[~ok], b[~ok])


@pytest.mark.parametrize("name", EXACT)
def test_edge_values_match_torch(name):
    """Bit for bit at 0, -0, the infinities and NaN (and everywhere for the ops computed the same way); elsewhere
    within an ulp (NumPy's and PyTorch's libm kernels may round the last bit apart)."""
    ours, theirs = _both(name, EDGES)
    edges = np.isin(np.abs(EDGES), [0.0, math.inf]) | np.isnan(EDGES)
    _same_bits(ours[edges], theirs[edges])
    if name in ("frac", "sgn", "deg2rad", "rad2deg", "nan_to_num", "logit"):
        _same_bits(ours, theirs)
    np.testing.assert_allclose(ours, theirs, rtol=2.3e-16, atol=0)


@pytest.mark.parametrize("name", CLOSE)
def test_special_functions_close_to_torch(name):
    rng = np.random.default_rng(0)
    values = np.concatenate([EDGES, rng.uniform(-0.999, 0.999, 300) if name == "erfinv" else rng.uniform(0, 20, 300),
                             1 - 10.0 ** -rng.uniform(1, 16, 50) if name == "erfinv" else rng.uniform(-20, 0, 50)])
    ours, theirs = _both(name, values)
    finite = np.isfinite(theirs)
    _same_bits(ours[~finite], theirs[~finite])
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-11 if name == "lgamma" else 4.5e-16, atol=1e-300)
    if name == "lgamma":  # (within a few ulps for x > 0; below 0, near the zeros in (-3, -2), less: ops/special.py)
        keep = finite & (values > 0)
        np.testing.assert_allclose(ours[keep], theirs[keep], rtol=1e-15, atol=1e-300)


def test_digamma_and_polygamma_over_a_range():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-30, 30, 500), [0.0, -0.0, -3.0, math.inf, -math.inf, math.nan, 1.0, 10.0]])
    ours, theirs = _both("digamma", x)
    np.testing.assert_allclose(ours, theirs, rtol=3e-15, atol=1e-300)
    for n in (1, 2, 3, 5):
        a = al.polygamma(n, al.tensor(x)).numpy()
        b = torch.polygamma(n, torch.tensor(x)).numpy()
        keep = np.isfinite(b) & (np.abs(b) < 1e15) | (x > 0)  # (near the poles both blow up, differently)
        np.testing.assert_allclose(a[keep], b[keep], rtol=2e-13, atol=1e-300)
    assert al.polygamma(2, al.tensor([0.0, -2.0])).tolist() == [-math.inf, -math.inf]
    with pytest.raises(RuntimeError, match="does not support negative n"):
        al.polygamma(-1, al.tensor([1.0]))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_result_dtypes(name, dtype):
    values = [0, 1, 1] if dtype != "float32" else [0.25, 0.5, 0.75]
    try:
        expected = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    except (RuntimeError, NotImplementedError) as exc:  # frac of integers
        with pytest.raises(type(exc), match=str(exc).split(" not ")[0][:20]):
            getattr(al, name)(al.tensor(values, dtype=getattr(al, dtype)))
        return
    ours = getattr(al, name)(al.tensor(values, dtype=getattr(al, dtype)))
    assert str(ours.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy().astype(float), expected.numpy().astype(float), rtol=1e-6)


def _domain(name):
    return {"acosh": [1.5, 2.0, 3.0], "log2": [0.5, 2.0, 3.0], "log10": [0.5, 2.0, 3.0], "lgamma": [0.5, 2.5, 7.0],
            "logit": [0.2, 0.5, 0.9]}.get(name, [-0.7, 0.3, 0.6])


@pytest.mark.parametrize("name", NAMES)
def test_grad_fn_and_gradients_match_torch(name):
    x = al.tensor(_domain(name), dtype=al.float64, requires_grad=True)
    xt = torch.tensor(_domain(name), dtype=torch.float64, requires_grad=True)
    out, expected = getattr(al, name)(x), getattr(torch, name)(xt)
    assert out.grad_fn.name() == expected.grad_fn.name()
    g = np.array([0.3, -1.2, 2.0])
    out.backward(al.tensor(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(force=True), rtol=1e-12)
    assert gradcheck(getattr(al, name), (al.tensor(_domain(name), dtype=al.float64, requires_grad=True),))


def test_gradients_at_edges_match_torch():
    cases = [("sgn", {}, [0.0, -1.0, math.inf, math.nan]), ("sinc", {}, [0.0, 1.0, -2.0]),
             ("nan_to_num", {}, [math.nan, math.inf, -math.inf, 1.0]), ("logit", {}, [-0.5, 0.0, 1.0, 0.3, 2.0]),
             ("logit", {"eps": 0.25}, [0.1, 0.25, 0.5, 0.9]), ("digamma", {}, [-2.5, 0.5, 3.0]),
             ("polygamma", {"n": 2}, [0.5, 3.0])]
    for name, kw, values in cases:
        x = al.tensor(values, dtype=al.float64, requires_grad=True)
        xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        if name == "polygamma":
            al.polygamma(2, x).sum().backward()
            torch.polygamma(2, xt).sum().backward()
        else:
            getattr(al, name)(x, **kw).sum().backward()
            getattr(torch, name)(xt, **kw).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(force=True), rtol=1e-12, err_msg=name)


def test_logit_eps_and_nan_to_num_settings():
    v = [0.0, 0.1, 0.5, 1.0, math.nan, 2.0]
    for eps in (None, 0.0, 0.2, 1e-6):
        for dtype in ("float64", "float32"):
            ours, theirs = _both("logit", v, dtype, eps=eps)
            _same_bits(ours, theirs)
    for kw in ({}, {"nan": 1.5}, {"posinf": 7.0, "neginf": -3.0}):
        for dtype in ("float64", "float32"):
            ours, theirs = _both("nan_to_num", [math.nan, math.inf, -math.inf, 2.0], dtype, **kw)
            _same_bits(ours, theirs)


def test_signbit_has_no_gradient():
    x = al.tensor([0.0, -0.0, -1.0, 2.0, -math.inf], requires_grad=True)
    expected = torch.signbit(torch.tensor([0.0, -0.0, -1.0, 2.0, -math.inf]))
    out = x.signbit()
    assert out.dtype is al.bool and out.grad_fn is None and not out.requires_grad
    assert out.tolist() == expected.tolist()
    assert al.signbit(al.tensor([-3, 0, 2])).tolist() == [True, False, False]


def test_methods_aliases_and_in_place_versions():
    base = al.tensor([0.2, 0.4, 0.7], dtype=al.float64)
    for name in NAMES + ["arcsin", "arctanh"]:
        t = base.clone()
        version = t._version
        getattr(t, name + "_")()
        np.testing.assert_array_equal(t.numpy(), getattr(base, name)().numpy())
        assert t._version == version + 1
    leaf = al.tensor([0.2, 0.4], requires_grad=True)
    y = leaf * 1.0
    y.expm1_()
    assert y.grad_fn.name() == "Expm1Backward0"
    y.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.exp([0.2, 0.4]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        al.tensor([1, 2]).log2_()
    t = base.clone()
    t.polygamma_(1)
    np.testing.assert_array_equal(t.numpy(), torch.polygamma(1, torch.tensor(base.numpy())).numpy())


SECOND_ORDER = {
    "lgamma": lambda a: a.lgamma(), "digamma": lambda a: a.digamma(), "polygamma": lambda a: a.polygamma(2),
    "erfinv": lambda a: (a * 0.2).erfinv(), "erfc": lambda a: a.erfc(), "logit": lambda a: (a * 0.2).logit(),
    "sinc": lambda a: a.sinc(), "acosh": lambda a: (a + 1).acosh(), "atanh": lambda a: (a * 0.2).atanh(),
    "atan2": lambda a: al.atan2(a, a.flip(0) - 1), "lerp": lambda a: al.lerp(a, a * a, a.flip(0)),
    "addcdiv": lambda a: al.addcdiv(a, a, a.flip(0), value=2), "xlogy": lambda a: al.xlogy(a - 1, a.flip(0)),
    "aminmax": lambda a: al.aminmax(a * a.flip(0)),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivatives(name):
    """The derivatives are differentiable (create_graph runs them on tensors): gradgradcheck in float64."""
    assert gradgradcheck(SECOND_ORDER[name], (al.tensor([0.6, 1.7, 3.2], dtype=al.float64, requires_grad=True),))


@pytest.mark.parametrize("decimals", [None, 0, 1, 2, -1, -2])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_round_to_decimals_as_torch(decimals, dtype):
    """round(decimals=) rounds the scaled value half to even (float16 scaled in float32); RoundBackward1, zero
    gradient; integers have no kernel for it (plain round of an integer is the integer, as in PyTorch)."""
    values = [1.2345, -2.5, 0.125, 1234.5, 0.285, 1.005, 2.675, math.nan, math.inf, -0.0, 60000.0]
    kwargs = {} if decimals is None else {"decimals": decimals}
    results = []
    for m in (al, torch):
        x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        out = m.round(x, **kwargs)
        out.sum().backward()
        results.append((str(out.tolist()), out.grad_fn.name(), x.grad.tolist(), m.round(m.tensor([15])).tolist()))
    assert results[0] == results[1]
    method = al.tensor([2.675], dtype=al.float64)
    assert method.round(**kwargs).tolist() == torch.tensor([2.675], dtype=torch.float64).round(**kwargs).tolist()
    if decimals is not None:
        with pytest.raises(NotImplementedError) as theirs:
            torch.round(torch.tensor([15]), decimals=decimals)
        with pytest.raises(NotImplementedError) as ours:
            al.round(al.tensor([15]), decimals=decimals)
        assert str(theirs.value) in str(ours.value)
