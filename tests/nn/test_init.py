"""``al.nn.init`` against ``torch.nn.init``: the deterministic fills exactly, the random ones by their defining
property (bounds, truncation, orthogonality, zeros per column), fans, gains and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def array(t):
    return np.asarray(t.tolist())


@pytest.mark.parametrize("fill", [
    lambda m, t: m.nn.init.eye_(t[0]), lambda m, t: m.nn.init.dirac_(t), lambda m, t: m.nn.init.dirac_(t, groups=2),
    lambda m, t: m.nn.init.constant_(t, 0.5), lambda m, t: m.nn.init.ones_(t), lambda m, t: m.nn.init.zeros_(t),
], ids=["eye", "dirac", "dirac_groups", "constant", "ones", "zeros"])
@pytest.mark.parametrize("shape", [(4, 2, 3), (6, 4, 3, 3), (2, 2, 1, 2, 5)])
def test_deterministic_fills_as_torch(fill, shape):
    results = []
    for m in (al, torch):
        try:
            results.append(array(fill(m, m.empty(*shape))).tolist())
        except ValueError as error:
            results.append(str(error))
    assert results[0] == results[1]


def test_gains_and_fans_as_torch():
    cases = [("linear", None), ("conv2d", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
             ("leaky_relu", 0.2), ("selu", None), ("sigmoid", None)]
    for name, param in cases:
        assert al.nn.init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param))
    for shape in [(3, 4), (2, 3, 5), (4, 3, 2, 2)]:
        ours = al.nn.init._calculate_fan_in_and_fan_out(al.empty(*shape))
        assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_trunc_normal_stays_in_its_interval_with_the_truncated_moments():
    al.manual_seed(0)
    values = array(al.nn.init.trunc_normal_(al.empty(200, 300), mean=1.0, std=2.0, a=-1.0, b=0.5))
    assert values.min() >= -1.0 and values.max() <= 0.5
    # the mean of N(1, 4) truncated to [-1, 0.5]: mu + sigma * (phi(alpha) - phi(beta)) / (Phi(beta) - Phi(alpha))
    alpha, beta = (-1.0 - 1.0) / 2.0, (0.5 - 1.0) / 2.0
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    assert values.mean() == pytest.approx(1.0 + 2.0 * (phi(alpha) - phi(beta)) / (cdf(beta) - cdf(alpha)), abs=0.01)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        al.nn.init.trunc_normal_(al.empty(3), mean=10.0, std=1.0)
    assert "mean is more than 2 std from [a, b]" in str(caught[0].message)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_the_gain(shape):
    al.manual_seed(0)
    w = array(al.nn.init.orthogonal_(al.empty(*shape), gain=2.0)).reshape(shape[0], -1)
    product = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(product, 4 * np.eye(min(w.shape)), atol=1e-5)


def test_sparse_zeros_the_same_share_of_every_column():
    al.manual_seed(0)
    w = array(al.nn.init.sparse_(al.empty(10, 6), 0.25, std=0.5))
    assert ((w == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    assert 0.2 < w[w != 0].std() < 0.9


def test_fills_keep_the_leaf_and_record_nothing():
    w = al.empty(4, 4, requires_grad=True)
    for fill in (al.nn.init.orthogonal_, al.nn.init.trunc_normal_, lambda t: al.nn.init.sparse_(t, 0.5)):
        assert fill(w) is w and w.is_leaf and w.requires_grad and w.grad_fn is None


BAD = {
    "orthogonal_1d": lambda m: m.nn.init.orthogonal_(m.empty(3)),
    "sparse_3d": lambda m: m.nn.init.sparse_(m.empty(2, 2, 2), 0.1),
    "dirac_2d": lambda m: m.nn.init.dirac_(m.empty(2, 2)),
    "dirac_groups": lambda m: m.nn.init.dirac_(m.empty(3, 2, 2), groups=2),
    "kaiming_mode": lambda m: m.nn.init.kaiming_normal_(m.empty(2, 2), mode="x"),
    "fan_1d": lambda m: m.nn.init.xavier_uniform_(m.empty(3)),
    "gain_name": lambda m: m.nn.init.calculate_gain("foo"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_errors_as_torch(name):
    with pytest.raises(ValueError) as theirs:
        BAD[name](torch)
    with pytest.raises(ValueError) as ours:
        BAD[name](al)
    assert str(ours.value) == str(theirs.value)
