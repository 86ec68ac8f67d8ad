"""Random sampling (ops/random_sampling.py) against PyTorch: the same distributions (not the same streams), checked
statistically with fixed seeds, two-sample Kolmogorov-Smirnov tests against torch's samples; reproducibility under
al.manual_seed and generator=; dtypes, shapes, nodes (no gradient flows), PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch")
N = 20000


def _ks_same(ours, theirs) -> None:
    """The two samples could come from one distribution: their largest CDF gap is below the 0.1% critical value."""
    ours, theirs = np.sort(np.ravel(ours)), np.sort(np.ravel(theirs))
    grid = np.concatenate([ours, theirs])
    gap = np.abs(np.searchsorted(ours, grid, side="right") / ours.size
                 - np.searchsorted(theirs, grid, side="right") / theirs.size).max()
    assert gap < 1.95 * math.sqrt((ours.size + theirs.size) / (ours.size * theirs.size)), gap


FILLS = {  # name -> call on an empty float64 tensor of N elements (the module's own calls: same arguments)
    "exponential_": lambda t: t.exponential_(2.5),
    "geometric_": lambda t: t.geometric_(0.3),
    "log_normal_": lambda t: t.log_normal_(0.5, 0.75),
    "cauchy_": lambda t: t.cauchy_(1.0, 2.0),
    "bernoulli_": lambda t: t.bernoulli_(0.3),
    "random_to": lambda t: t.random_(7),
    "random_from_to": lambda t: t.random_(-3, 4),
    "uniform_": lambda t: t.uniform_(-1, 2),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_in_place_fills_follow_torchs_distribution(name):
    al.manual_seed(1)
    torch.manual_seed(1)
    ours = FILLS[name](al.zeros(N, dtype=al.float64))
    _ks_same(ours.numpy(), FILLS[name](torch.zeros(N, dtype=torch.float64)).numpy())


def test_random_without_bounds_covers_the_mantissa_range_as_torch():
    al.manual_seed(2)
    for dtype, top in ((al.float32, 2 ** 24), (al.float64, 2 ** 53), (al.uint8, 255), (al.int8, 127)):
        x = al.zeros(N, dtype=dtype).random_().numpy().astype(np.float64)
        assert x.min() >= 0 and x.max() <= top and x.max() > 0.9 * top and abs(x.mean() / top - 0.5) < 0.02
    assert set(al.zeros(200, dtype=al.bool).random_().tolist()) == {False, True}


def test_bernoulli_and_poisson_follow_torchs_distribution():
    al.manual_seed(3)
    torch.manual_seed(3)
    p = np.linspace(0, 1, N)
    _ks_same(al.bernoulli(al.tensor(p)).numpy() * 2 + p, torch.bernoulli(torch.tensor(p)).numpy() * 2 + p)
    rate = np.repeat([0.5, 4.0, 50.0], N // 3)
    _ks_same(al.poisson(al.tensor(rate)).numpy(), torch.poisson(torch.tensor(rate)).numpy())
    q = al.tensor(np.full(N, 0.25))
    assert abs(al.zeros(N).bernoulli_(q).mean().item() - 0.25) < 0.015


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_follows_torchs_distribution(replacement):
    al.manual_seed(4)
    torch.manual_seed(4)
    weights = np.array([[1.0, 2.0, 0.0, 5.0, 2.0]] * (N // 10))
    ours = al.multinomial(al.tensor(weights), 3, replacement).numpy()
    theirs = torch.multinomial(torch.tensor(weights), 3, replacement).numpy()
    assert ours.shape == theirs.shape == (N // 10, 3) and ours.dtype == np.int64
    for column in range(3):  # the first, second and third draws: each distributed as in torch
        _ks_same(ours[:, column] + np.linspace(0, 0.5, N // 10), theirs[:, column] + np.linspace(0, 0.5, N // 10))
    if not replacement:
        assert all(len(set(row)) == 3 for row in ours.tolist()) and (ours != 2).all()


def test_multinomial_without_replacement_takes_weightless_categories_last():
    ours = al.multinomial(al.tensor([1.0, 0.0, 0.0]), 3)
    assert ours.tolist()[0] == 0 and sorted(ours.tolist()) == [0, 1, 2]
    assert al.multinomial(al.tensor([0.0, 3.0]), 4, replacement=True).tolist() == [1, 1, 1, 1]


CALLS = {
    "bernoulli": lambda g: al.bernoulli(al.full((50,), 0.5), generator=g),
    "multinomial": lambda g: al.multinomial(al.ones(2, 9), 4, generator=g),
    "poisson": lambda g: al.poisson(al.full((50,), 3.0), generator=g),
    **{name: (lambda g, fill=fill: fill(al.zeros(50), g)) for name, fill in {
        "bernoulli_": lambda t, g: t.bernoulli_(0.5, generator=g), "random_": lambda t, g: t.random_(generator=g),
        "exponential_": lambda t, g: t.exponential_(generator=g), "geometric_": lambda t, g: t.geometric_(0.5, generator=g),
        "log_normal_": lambda t, g: t.log_normal_(generator=g), "cauchy_": lambda t, g: t.cauchy_(generator=g)}.items()},
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_reproducible_under_manual_seed_and_with_a_generator(name):
    al.manual_seed(7)
    first = CALLS[name](None)
    al.manual_seed(7)
    assert CALLS[name](None).equal(first)
    assert not CALLS[name](None).equal(first)  # (the stream moved on)
    gen = al.Generator().manual_seed(11)
    mine = CALLS[name](gen)
    assert CALLS[name](al.Generator().manual_seed(11)).equal(mine)


def test_samples_have_no_gradient_and_nodes_named_as_torch():
    for m in (al, torch):
        p = m.full((4,), 0.5, requires_grad=True)
        out = m.bernoulli(p)
        assert type(out.grad_fn).__name__ == "BernoulliBackward0"
        out.sum().backward()
        assert p.grad.tolist() == [0.0] * 4
        assert type(m.poisson(p * 2).grad_fn).__name__ == "PoissonBackward0"
        assert m.multinomial(p, 2).grad_fn is None
    names = {"bernoulli_": "BernoulliBackward2", "random_": "RandomBackward2", "exponential_": "ExponentialBackward0",
             "geometric_": "GeometricBackward0", "log_normal_": "LogNormalBackward0", "cauchy_": "CauchyBackward0"}
    args = {"bernoulli_": (0.3,), "geometric_": (0.3,)}
    for name, node in names.items():
        x = al.ones(3, requires_grad=True)
        y = x * 2
        getattr(y, name)(*args.get(name, ()))
        assert type(y.grad_fn).__name__ == node and y._version == 1
        y.sum().backward()
        assert x.grad.tolist() == [0.0] * 3
    y = al.ones(3, requires_grad=True) * 1
    assert type(y.random_(5).grad_fn).__name__ == "RandomBackward1"
    assert type(y.random_(1, 5).grad_fn).__name__ == "RandomBackward0"
    assert type(y.bernoulli_(al.full((3,), 0.5)).grad_fn).__name__ == "BernoulliBackward1"


def test_dtypes_and_shapes_match_torch():
    for m, prefix in ((al, "al."), (torch, "torch.")):
        assert str(m.bernoulli(m.full((2, 3), 0.5, dtype=m.float64)).dtype) == prefix + "float64"
        assert str(m.zeros(3, dtype=m.int64).bernoulli_(0.5).dtype) == prefix + "int64"
        assert str(m.zeros(3, dtype=m.int64).geometric_(0.5).dtype) == prefix + "int64"
        assert tuple(m.multinomial(m.ones(4, 6), 2).shape) == (4, 2)
        assert str(m.poisson(m.ones(2, 2, dtype=m.float64)).dtype) == prefix + "float64"
    assert al.zeros(100, dtype=al.int64).geometric_(0.5).min().item() >= 1


BAD = {
    "bernoulli_integer": (lambda m: m.bernoulli(m.tensor([1, 0])), NotImplementedError),
    "bernoulli__p": (lambda m: m.zeros(3).bernoulli_(1.5), RuntimeError),
    "multinomial_negative": (lambda m: m.multinomial(m.tensor([0.5, -1]), 1), RuntimeError),
    "multinomial_nan": (lambda m: m.multinomial(m.tensor([1.0, math.nan]), 1), RuntimeError),
    "multinomial_zero_sum": (lambda m: m.multinomial(m.tensor([0.0, 0]), 1), RuntimeError),
    "multinomial_too_many": (lambda m: m.multinomial(m.tensor([1.0, 1]), 3), RuntimeError),
    "multinomial_none": (lambda m: m.multinomial(m.tensor([1.0, 1]), 0), RuntimeError),
    "multinomial_3d": (lambda m: m.multinomial(m.ones(2, 2, 2), 1), RuntimeError),
    "multinomial_integer": (lambda m: m.multinomial(m.tensor([1, 1]), 1), RuntimeError),
    "multinomial_float_count": (lambda m: m.multinomial(m.tensor([0.5, 0.5]), 1.5), TypeError),
    "poisson_negative": (lambda m: m.poisson(m.tensor([-1.0])), RuntimeError),
    "poisson_integer": (lambda m: m.poisson(m.tensor([1])), NotImplementedError),
    "exponential_lambda": (lambda m: m.zeros(3).exponential_(0), RuntimeError),
    "exponential_integer": (lambda m: m.zeros(3, dtype=m.int64).exponential_(), RuntimeError),
    "geometric_p": (lambda m: m.zeros(3).geometric_(1.5), RuntimeError),
    "log_normal_std": (lambda m: m.zeros(3).log_normal_(0, -1), RuntimeError),
    "log_normal_integer": (lambda m: m.zeros(3, dtype=m.int64).log_normal_(), NotImplementedError),
    "cauchy_sigma": (lambda m: m.zeros(3).cauchy_(0, -1), RuntimeError),
    "cauchy_integer": (lambda m: m.zeros(3, dtype=m.int64).cauchy_(), RuntimeError),
    "random_bounds": (lambda m: m.zeros(3).random_(5, 2), RuntimeError),
    "random_uint8_range": (lambda m: m.zeros(3, dtype=m.uint8).random_(0, 300), RuntimeError),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_torchs_error(name):
    fn, error = BAD[name]
    same_error(torch, fn, error)


def test_probabilities_out_of_range_raise_torchs_error():
    for m in (al, torch):  # (torch's message goes on to ask for a better one)
        with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true, but got false\."):
            m.bernoulli(m.tensor([1.5]))
        with pytest.raises(RuntimeError, match="Expected p_in >= 0"):
            m.zeros(3).bernoulli_(m.tensor([0.5, 2.0, 0.1]))
