"""Scans and differences (ops/cumulative.py) against PyTorch: values, dtypes, grad_fn names and gradients on several
shapes, negative dims, empty and 0-dim inputs; cumprod through zeros; gradcheck in float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

SCANS = {
    "cumsum": lambda m, x, d: x.cumsum(d),
    "cumsum_dtype": lambda m, x, d: m.cumsum(x.float(), d, dtype=m.float64),
    "cumprod": lambda m, x, d: x.cumprod(d),
    "cummax": lambda m, x, d: m.cummax(x, d).values,
    "cummin": lambda m, x, d: x.cummin(d)[0],
    "logcumsumexp": lambda m, x, d: x.logcumsumexp(d),
}
SHAPES = [((5,), 0), ((3, 4), -1), ((2, 3, 4), 1), ((2, 0, 3), -2), ((4, 0), 0), ((), 0), ((), -1)]


@pytest.mark.parametrize("name", SCANS)
@pytest.mark.parametrize("shape, dim", SHAPES, ids=str)
def test_scans_match_torch(name, shape, dim):
    values = np.random.default_rng(1).uniform(-2, 2, shape)
    rtol = 1e-6 if name == "cumsum_dtype" else 1e-10
    same_as_torch(torch, lambda m, x: SCANS[name](m, x, dim), values, rtol=rtol)


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, -2.0], [1.0, 2.0, 0.0], [0.0, 0.0]], ids=str)
def test_cumprod_gradient_through_zeros_matches_torch(values):
    same_as_torch(torch, lambda m, x: x.cumprod(0), values)
    same_as_torch(torch, lambda m, x: (x.reshape(1, -1) * m.ones(3, 1, dtype=m.float64)).cumprod(-1), values)


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 1.5], [[0.0, 1.5, -2.0], [1.0, 0.0, 0.0]]], ids=str)
def test_cumprod_with_zeros_passes_gradcheck_and_gradgradcheck(values):
    x = al.tensor(values, dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda t: t.cumprod(-1), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: t.cumprod(-1), [x])


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "logcumsumexp"])
def test_scans_pass_gradcheck_and_gradgradcheck(name):
    x = al.tensor(np.random.default_rng(2).uniform(0.5, 2, (3, 4)), dtype=al.float64, requires_grad=True)
    assert gradcheck(lambda t: SCANS[name](al, t, -1), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: SCANS[name](al, t, 0), [x])


def test_logcumsumexp_is_finite_where_exp_overflows():
    values = [[-1000.0, 0.0, 800.0], [700.0, 710.0, -5.0]]
    out = same_as_torch(torch, lambda m, x: x.logcumsumexp(1), values)
    assert np.isfinite(out.detach().numpy()).all()


@pytest.mark.parametrize("values", [[1.0, 1.0, 0.5, 1.0], [1.0, float("nan"), 3.0, float("nan"), 0.0], [3, 1, 3, 2]],
                         ids=str)
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_and_cummin_pick_the_last_tie_and_keep_nans_as_torch(name, values):
    ours, theirs = getattr(al.tensor(values), name)(0), getattr(torch.tensor(values), name)(0)
    assert type(ours).__name__ == type(theirs).__name__ == name and ours._fields == ("values", "indices")
    assert ours.indices.tolist() == theirs.indices.tolist() and ours.indices.dtype is al.int64
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    assert str(ours.values.dtype).split(".")[-1] == str(theirs.values.dtype).split(".")[-1]


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
def test_cumsum_and_cumprod_in_place_match_torch(name):
    def fn(m, x):
        y = x * 2
        assert getattr(y, name)(-1) is y
        return y
    same_as_torch(torch, fn, np.random.default_rng(10).standard_normal((3, 4)))


def test_cummax_indices_are_saved_version_checked():
    x = al.tensor([1.0, 3.0, 2.0], requires_grad=True)
    values, indices = x.cummax(0)
    indices.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "float32"])
def test_cumsum_and_cumprod_dtypes_match_torch(dtype):
    values = [[1, 0, 2], [3, 1, 1]]
    for name in ("cumsum", "cumprod"):
        ours = getattr(al.tensor(values).to(getattr(al, dtype)), name)(1)
        theirs = getattr(torch.tensor(values).to(getattr(torch, dtype)), name)(1)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours.tolist() == theirs.tolist()
    assert al.tensor([1.5, 2.5]).cumsum(0, dtype=al.int64).tolist() == [1, 3]


DIFFS = {
    "n=1": lambda m, x: m.diff(x),
    "n=2, dim=0": lambda m, x: x.diff(n=2, dim=0),
    "n=3 past the length": lambda m, x: x.diff(n=5, dim=-1),
    "prepend and append": lambda m, x: m.diff(x, dim=-1, prepend=x[..., :1] * 2, append=x * 3),
    "n=0": lambda m, x: m.diff(x, n=0) * 1,
}


@pytest.mark.parametrize("name", DIFFS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 0)], ids=str)
def test_diff_matches_torch(name, shape):
    same_as_torch(torch, DIFFS[name], np.random.default_rng(3).standard_normal(shape))


def test_diff_of_bools_is_a_xor_as_torch():
    values = [True, False, False, True]
    assert al.tensor(values).diff().tolist() == torch.tensor(values).diff().tolist()


ERRORS = [
    (lambda m: m.tensor(2.0).diff(), RuntimeError),
    (lambda m: m.diff(m.zeros(3, 4), prepend=m.zeros(2)), RuntimeError),
    (lambda m: m.zeros(2, 3).cumsum(2), IndexError),
    (lambda m: m.zeros(2, 3).cummax(-3), IndexError),
    (lambda m: m.tensor([1, 2]).logcumsumexp(0), NotImplementedError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)


def test_cumprod_gradient_before_a_zero_ignores_the_products_past_it():
    """Past the first zero every product is 0; an infinite gradient there (log of the product) must not turn the
    earlier elements' gradient into NaN: PyTorch sums only the products before the zero (fuzzer seed 22016532)."""
    grads = []
    for m in (al, torch):
        x = m.tensor([[-0.5, 2.0], [0.0, 0.5], [-1.0, 3.0]], dtype=m.float64, requires_grad=True)
        m.log10(x.cumprod(0)).sum().backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)  # (inf and 0 where torch has them, no NaN)


@pytest.mark.parametrize("row", [[float("inf"), 0.0, 0.33], [2.0, float("-inf"), 0.0, 3.0, 0.5], [0.0, 2.0, -1.5]])
def test_cumprod_gradient_at_the_first_zero_multiplies_the_product_before_it_last(row):
    """At the first zero, PyTorch multiplies the product before it by the sum of the later gradients, once: an
    infinite product before the zero gives -inf there, where summing the infinite terms gives inf - inf = NaN
    (fuzzer seeds 5356 and 24018842)."""
    grads = []
    for m in (al, torch):
        x = m.tensor([row], dtype=m.float64, requires_grad=True)
        weights = m.tensor([[-0.42, 0.25, 0.7, -1.1, 0.3][:len(row)]], dtype=m.float64)
        (x.cumprod(1) * weights).sum().backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)


def test_cumprod_gradient_at_the_first_zero_leaves_out_the_products_past_the_second():
    """From a slice's second zero on, the products through the first zero are 0; an infinite gradient there (the log
    of a zero product) must not make the first zero's gradient NaN (fuzzer seed 27120731)."""
    grads = []
    for m in (al, torch):
        x = m.tensor([[0.0, 0.0, 2.0], [0.0, 1.5, 0.0], [0.5, 0.0, 0.0]], dtype=m.float64, requires_grad=True)
        (m.log(x.cumprod(1)) * m.tensor([-1.37, 1.11, 0.5], dtype=m.float64)).sum().backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)


@pytest.mark.parametrize("scan", [
    lambda m, a: m.cumsum(a, 0), lambda m, a: m.cumprod(a, 1), lambda m, a: m.logcumsumexp(a, 0),
    lambda m, a: m.cummax(a, -2).values, lambda m, a: m.cummin(a, 1).indices,
], ids=["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin_indices"])
def test_scans_of_a_column_major_input_are_row_major_as_torchs(scan):
    """PyTorch's scans write row-major results whatever the input's layout: a view of one then works (fuzzer seed
    42007031: inv's column-major result, cummax, view)."""
    strides = [scan(m, m.linalg.inv(m.eye(3, dtype=m.float64) * 2)).stride() for m in (al, torch)]
    assert strides[0] == strides[1] == (3, 1)
