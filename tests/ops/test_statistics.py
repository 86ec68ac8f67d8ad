"""Statistics (ops/statistics.py) against PyTorch: quantile and nanquantile in every interpolation mode, dim and
keepdim, NaNs; cov with correction, fweights and aweights; corrcoef; trapezoid and cumulative_trapezoid; values and
gradients (and gradcheck in float64); the counts histc, bincount and histogram; PyTorch's errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]
X = np.random.default_rng(1).standard_normal((3, 5))
WITH_NAN = np.where(np.arange(15).reshape(3, 5) % 7 == 1, np.nan, X)


def _compare(f, *values, grad=True):
    """Shapes, dtypes, values and (with ``grad``) the gradients of float64 leaves, ours against torch's (the node
    names differ where PyTorch's composite takes other steps)."""
    outs = []
    for m in (al, torch):
        leaves = [m.tensor(np.asarray(v, dtype=np.float64), requires_grad=grad) for v in values]
        out = f(m, *leaves)
        grads = None
        if grad and out.requires_grad:
            out.backward(m.tensor(np.random.default_rng(0).standard_normal(tuple(out.shape)), dtype=out.dtype))
            grads = [None if x.grad is None else np.asarray(x.grad.tolist()) for x in leaves]
        outs.append((tuple(out.shape), str(out.dtype).split(".")[-1], np.asarray(out.tolist()), grads))
    ours, theirs = outs
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10, atol=1e-12, equal_nan=True)
    assert (ours[3] is None) == (theirs[3] is None)
    for a, b in zip(ours[3] or (), theirs[3] or ()):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


QUANTILES = {
    "dim": lambda m, x, mode: m.quantile(x, 0.3, dim=1, interpolation=mode),
    "q_tensor_keepdim": lambda m, x, mode: m.quantile(x, m.tensor([0.3, 0.5, 1.0], dtype=m.float64), dim=0,
                                                      keepdim=True, interpolation=mode),
    "all_q_tensor": lambda m, x, mode: m.quantile(x, m.tensor([0.0, 0.25, 0.75], dtype=m.float64), interpolation=mode),
    "all_keepdim": lambda m, x, mode: m.quantile(x, 0.6, keepdim=True, interpolation=mode),
    "method": lambda m, x, mode: x.quantile(0.5, -1, interpolation=mode),
    "nan_dim": lambda m, x, mode: m.nanquantile(x.detach().masked_fill(x.detach() > 1, math.nan) + x, 0.4, dim=1,
                                                interpolation=mode),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(QUANTILES))
def test_quantiles_and_their_gradients_match_torch(name, mode):
    _compare(lambda m, x: QUANTILES[name](m, x, mode), X)


@pytest.mark.parametrize("mode", MODES)
def test_nans_give_nan_or_are_skipped_as_in_torch(mode):
    rows = WITH_NAN.copy()
    rows[2] = np.nan
    _compare(lambda m, x: m.quantile(x, 0.4, dim=1, interpolation=mode), rows, grad=False)
    _compare(lambda m, x: m.nanquantile(x, 0.4, dim=1, interpolation=mode), rows, grad=False)
    _compare(lambda m, x: m.nanquantile(x, m.tensor([0.1, 0.9], dtype=m.float64), interpolation=mode), rows, grad=False)
    _compare(lambda m, x: m.nanquantile(x, 0.7, dim=1, interpolation=mode), WITH_NAN)


@pytest.mark.parametrize("mode", MODES)
def test_nanquantile_of_a_row_of_nans_sends_the_gradient_to_its_first_as_torch(mode):
    rows = [[math.nan, math.nan, math.nan], [1.0, math.nan, 2.0]]
    _compare(lambda m, x: m.nanquantile(x, m.tensor([0.3, 1.0], dtype=m.float64), dim=1, interpolation=mode), rows)
    _compare(lambda m, x: m.nanquantile(x, 0.6, interpolation=mode), rows[0])


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_q_gets_torchs_gradient(mode):
    # (linear interpolation's weights are differentiable in q; a NaN row's rank is fixed: gradient 0, not nan)
    rows = WITH_NAN.copy()
    rows[2] = np.nan
    _compare(lambda m, x, q: m.quantile(x, q, dim=1, keepdim=True, interpolation=mode), X, [0.3, 0.75, 1.0])
    _compare(lambda m, x, q: m.quantile(x, q, interpolation=mode), X, 0.4)
    _compare(lambda m, x, q: m.quantile(x, q, dim=0, interpolation=mode), rows, [0.2, 0.6])
    _compare(lambda m, x, q: m.nanquantile(x, q, dim=1, interpolation=mode), rows, [0.0, 0.35])


def test_quantile_of_a_number_ends_with_torchs_node():
    for m in (al, torch):
        x = m.ones(3, 4, requires_grad=True)
        assert type(m.quantile(x, 0.5).grad_fn).__name__ == "SqueezeBackward4"
        assert type(m.nanquantile(x, 0.5, dim=1).grad_fn).__name__ == "SqueezeBackward4"


def test_quantile_gradcheck_and_0_dim_input():
    x = al.tensor(X, requires_grad=True)
    q = al.tensor([0.2, 0.7], dtype=al.float64)
    assert gradcheck(lambda t: al.quantile(t, q, dim=1), [x]) and gradgradcheck(lambda t: al.quantile(t, 0.3), [x])
    _compare(lambda m, x: m.quantile(x, 0.5), 3.0)
    _compare(lambda m, x: m.quantile(x, 0.5, dim=0, keepdim=True), 3.0)


COVARIANCES = {
    "cov": lambda m, x: m.cov(x),
    "cov_correction_0": lambda m, x: m.cov(x, correction=0),
    "cov_fweights": lambda m, x: m.cov(x, fweights=m.tensor([1, 2, 1, 3, 1])),
    "cov_both_weights": lambda m, x: m.cov(x, fweights=m.tensor([1, 2, 1, 3, 1]), aweights=m.tensor([0.5, 1, 2, 1, 1.0])),
    "cov_aweights_correction_2": lambda m, x: m.cov(x, correction=2, aweights=m.tensor([0.5, 1, 2, 1, 1.0])),
    "cov_one_variable": lambda m, x: m.cov(x[0]),
    "cov_method": lambda m, x: x.t().cov(),
    "corrcoef": lambda m, x: m.corrcoef(x),
    "corrcoef_one_variable": lambda m, x: m.corrcoef(x[0]),
    "corrcoef_method": lambda m, x: x.corrcoef(),
}


@pytest.mark.parametrize("name", sorted(COVARIANCES))
def test_covariance_and_correlation_match_torch(name):
    _compare(COVARIANCES[name], X)
    assert gradcheck(lambda t: COVARIANCES[name](al, t), [al.tensor(X, requires_grad=True)])


def test_cov_of_integers_is_floating_and_one_observation_warns_as_torch():
    for m, prefix in ((al, "al."), (torch, "torch.")):
        assert str(m.cov(m.tensor([1, 2, 4])).dtype) == prefix + "float32"
        assert str(m.corrcoef(m.tensor([[1, 2, 4], [1, 0, 1]])).dtype) == prefix + "float32"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            assert math.isnan(m.cov(m.tensor([3.0])).item())
        assert any("degrees of freedom is <= 0" in str(w.message) for w in caught)


INTEGRALS = {
    "trapezoid": (lambda m, y: m.trapezoid(y), (X,)),
    "trapezoid_dx_dim": (lambda m, y: m.trapezoid(y, dx=0.3, dim=0), (X,)),
    "trapezoid_x": (lambda m, y, x: m.trapezoid(y, x), (X, [0, 1, 3, 4, 7.0])),
    "trapezoid_x_dim": (lambda m, y, x: m.trapezoid(y, x, dim=0), (X, [0, 1, 3.0])),
    "trapezoid_x_full": (lambda m, y, x: m.trapezoid(y, x), (X, X.cumsum(1))),
    "trapz": (lambda m, y: m.trapz(y, dx=2), (X,)),
    "cumulative_trapezoid": (lambda m, y: m.cumulative_trapezoid(y), (X,)),
    "cumulative_trapezoid_x_dim": (lambda m, y, x: m.cumulative_trapezoid(y, x, dim=0), (X, [0, 1, 3.0])),
}


@pytest.mark.parametrize("name", sorted(INTEGRALS))
def test_integrals_match_torch(name):
    fn, values = INTEGRALS[name]
    _compare(fn, *values)
    assert gradcheck(lambda *t: fn(al, *t), [al.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values])


def test_integral_over_an_empty_dim_and_trapz_dx_as_torch():
    for f in (lambda m: m.trapezoid(m.zeros(3, 0, dtype=m.int64)), lambda m: m.trapezoid(m.zeros(3, 0), dx=0.5),
              lambda m: m.trapz(m.tensor([1.0, 2, 4]), dx=True), lambda m: m.trapz(m.tensor([1, 2, 4]), dx=2)):
        ours, theirs = f(al), f(torch)
        assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_integrals_of_integers_as_torch():
    for fn in (lambda m: m.trapezoid(m.tensor([1, 2, 4])), lambda m: m.cumulative_trapezoid(m.tensor([1, 2, 4])),
               lambda m: m.trapezoid(m.ones(2, 3, dtype=m.int64), dim=0)):
        ours, theirs = fn(al), fn(torch)
        assert str(ours.dtype)[3:] == str(theirs.dtype)[6:] and ours.tolist() == theirs.tolist()


COUNTS = {
    "histc": lambda m: m.histc(m.tensor([1.0, 2, 1, 4, 2.5]), bins=4, min=0, max=4),
    "histc_data_range": lambda m: m.histc(m.tensor([1.0, 2, 1, 4, 2.5]), 4),
    "histc_one_value": lambda m: m.histc(m.tensor([2.0, 2]), 4),
    "histc_outside": lambda m: m.histc(m.tensor([1.0, 5, -1, 3], dtype=m.float64), bins=3, min=0, max=3),
    "bincount": lambda m: m.bincount(m.tensor([1, 3, 3, 0])),
    "bincount_minlength": lambda m: m.bincount(m.tensor([1, 3, 3, 0]), minlength=6),
    "bincount_weights": lambda m: m.bincount(m.tensor([1, 3, 3, 0]), weights=m.tensor([1.0, 2, 3, 4])),
    "bincount_double_weights": lambda m: m.tensor([1, 3]).bincount(m.tensor([1.0, 2], dtype=m.float64)),
    "bincount_empty": lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    "histogram": lambda m: m.histogram(m.tensor([1.0, 2, 1, 4, 2.5]), 3),
    "histogram_edges_weight_density": lambda m: m.histogram(m.tensor([1.0, 2, 1, 4, 2.5]), m.tensor([0.0, 1, 3, 5]),
                                                            weight=m.ones(5) * 2, density=True),
    "histogram_range": lambda m: m.histogram(m.tensor([1.0, 2, 1, 4, 2.5], dtype=m.float64), 3, range=(0.0, 2.0)),
    # histc's bin is int((x - min) * bins / (max - min)), not a search among edges: 0.2 and 0.4 go one bin down
    "histc_values_on_edges": lambda m: m.histc(m.linspace(0, 1, 101, dtype=m.float64), 10, 0, 1),
    "histc_values_on_edges_float32": lambda m: m.histc(m.linspace(0, 1, 31), 3, 0, 0.3),
    "bincount_empty_weights": lambda m: m.bincount(m.tensor([], dtype=m.int64), m.tensor([]), minlength=3),
    "histogram_empty": lambda m: m.histogram(m.tensor([]), 3),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts_match_torch(name):
    ours, theirs = COUNTS[name](al), COUNTS[name](torch)
    pairs = zip(ours, theirs) if isinstance(ours, tuple) else [(ours, theirs)]
    for a, b in pairs:
        assert str(a.dtype)[3:] == str(b.dtype)[6:] and a.grad_fn is None
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


BAD = {
    "quantile_q_range": (lambda m: m.quantile(m.ones(3), 1.5), RuntimeError),
    "quantile_q_2d": (lambda m: m.quantile(m.ones(3), m.tensor([[0.5]])), RuntimeError),
    "quantile_integer": (lambda m: m.quantile(m.ones(3, dtype=m.int64), 0.5), RuntimeError),
    "quantile_mode": (lambda m: m.quantile(m.ones(3), 0.5, interpolation="foo"), RuntimeError),
    "quantile_empty": (lambda m: m.quantile(m.tensor([]), 0.5), RuntimeError),
    "quantile_q_dtype": (lambda m: m.quantile(m.ones(3), m.tensor([0.5], dtype=m.float64)), RuntimeError),
    "quantile_dim": (lambda m: m.quantile(m.ones(2, 3), 0.5, dim=3), IndexError),
    "nanquantile_q_range": (lambda m: m.nanquantile(m.ones(3), -0.5), RuntimeError),
    "cov_3d": (lambda m: m.cov(m.ones(2, 2, 2)), RuntimeError),
    "cov_float_fweights": (lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1.0, 2, 3])), RuntimeError),
    "cov_negative_fweights": (lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1, -2, 3])), RuntimeError),
    "cov_negative_aweights": (lambda m: m.cov(m.ones(2, 3), aweights=m.tensor([1.0, -2, 3])), RuntimeError),
    "cov_weights_numel": (lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1, 2])), RuntimeError),
    "corrcoef_3d": (lambda m: m.corrcoef(m.ones(2, 2, 2)), RuntimeError),
    "trapezoid_x_size": (lambda m: m.trapezoid(m.ones(3), m.ones(4)), RuntimeError),
    "cumulative_trapezoid_x_size": (lambda m: m.cumulative_trapezoid(m.ones(3), m.ones(2)), RuntimeError),
    "trapezoid_x_and_dx": (lambda m: m.trapezoid(m.ones(3), dx=1.0, x=m.ones(3)), TypeError),
    "bincount_negative": (lambda m: m.bincount(m.tensor([-1, 2])), RuntimeError),
    "bincount_float": (lambda m: m.bincount(m.tensor([1.0, 2])), NotImplementedError),
    "bincount_2d": (lambda m: m.bincount(m.ones(2, 2, dtype=m.int64)), RuntimeError),
    "bincount_weights_size": (lambda m: m.bincount(m.tensor([1, 3, 3]), weights=m.ones(2)), RuntimeError),
    "bincount_minlength": (lambda m: m.bincount(m.tensor([1]), minlength=-1), RuntimeError),
    "histc_integer": (lambda m: m.histc(m.tensor([1, 2])), NotImplementedError),
    "histc_bins": (lambda m: m.histc(m.tensor([1.0, 2]), bins=0), RuntimeError),
    "histc_min_max": (lambda m: m.histc(m.tensor([1.0, 2]), min=3, max=1), RuntimeError),
    "histc_infinite": (lambda m: m.histc(m.tensor([1.0, math.inf])), RuntimeError),
    "histogram_integer": (lambda m: m.histogram(m.tensor([1, 2]), 3), NotImplementedError),
    "histogram_bins": (lambda m: m.histogram(m.tensor([1.0, 2]), 0), RuntimeError),
    "histogram_range": (lambda m: m.histogram(m.tensor([1.0, 2]), 3, range=(2.0, 1.0)), RuntimeError),
    "cov_bool": (lambda m: m.cov(m.tensor([[True, False], [True, True]])), RuntimeError),
    "corrcoef_bool": (lambda m: m.corrcoef(m.tensor([True, False, True])), RuntimeError),
    "cov_weights_sum_to_zero": (lambda m: m.cov(m.ones(2, 3), fweights=m.zeros(3, dtype=m.int64)), RuntimeError),
    "trapezoid_number_x": (lambda m: m.trapezoid(m.ones(3), 2.0), TypeError),
    "cumulative_trapezoid_number_x": (lambda m: m.cumulative_trapezoid(m.ones(3), 2), TypeError),
    "trapezoid_bool": (lambda m: m.trapezoid(m.tensor([True, False])), RuntimeError),
    "trapezoid_bool_dx": (lambda m: m.trapezoid(m.ones(3), dx=True), RuntimeError),
    "bincount_bool": (lambda m: m.bincount(m.tensor([True, False])), NotImplementedError),
    "histogram_weight_dtype": (lambda m: m.histogram(m.ones(2), 3, weight=m.ones(2, dtype=m.float64)), RuntimeError),
    "histogram_bins_dtype": (lambda m: m.histogram(m.ones(2), m.tensor([0.0, 3], dtype=m.float64)), RuntimeError),
    "histogram_nan": (lambda m: m.histogram(m.tensor([1.0, math.nan]), 3), RuntimeError),
    "histogram_infinite_range": (lambda m: m.histogram(m.ones(2), 3, range=(0.0, math.inf)), RuntimeError),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_torchs_error(name):
    fn, error = BAD[name]
    same_error(torch, fn, error)


QUANTILE_ERRORS = [  # (PyTorch's messages say quantile() for nanquantile too; its checks run in this order)
    lambda m, f: f(m.ones(0), 1.5),
    lambda m, f: f(m.ones(0), 0.5, interpolation="foo"),
    lambda m, f: f(m.ones(3, dtype=m.int64), 0.5, interpolation="foo"),
    lambda m, f: f(m.ones(0), m.tensor([[0.5]])),
    lambda m, f: f(m.ones(3, dtype=m.int64), m.tensor([0.5])),
    lambda m, f: f(m.ones(3), m.tensor([0.5], dtype=m.float64)),
    lambda m, f: f(m.ones(3), m.tensor([0.2, 1.5])),
    lambda m, f: f(m.ones(3), -0.5),
]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("case", range(len(QUANTILE_ERRORS)))
def test_quantile_errors_begin_with_torchs_words(name, case):
    messages = []
    for m in (torch, al):
        with pytest.raises(RuntimeError) as error:
            QUANTILE_ERRORS[case](m, getattr(m, name))
        messages.append(str(error.value))
    assert messages[1].startswith(messages[0].splitlines()[0]), messages
