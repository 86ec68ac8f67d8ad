"""``F.gumbel_softmax`` (random: its graph against PyTorch's, its distribution, the one-hot ``hard`` sample and its
straight-through gradient; autograd_lab's generator is not PyTorch's, so no draw is compared with PyTorch's) and
``F.triplet_margin_with_distance_loss`` / ``nn.TripletMarginWithDistanceLoss`` against PyTorch (values, gradients,
nodes, reprs, errors)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from tests.ops._torch_compare import same_error

torch = pytest.importorskip("torch")


def _chain(node, depth=3):
    """The names along the first inputs of a graph, from ``node``."""
    names = []
    while node is not None and len(names) < depth:
        names.append(type(node).__name__)
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return names


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_records_torchs_graph(hard):
    graphs = [_chain(m.nn.functional.gumbel_softmax(m.randn(3, 4, requires_grad=True), hard=hard).grad_fn, 4)
              for m in (al, torch)]
    assert graphs[0] == graphs[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_samples_are_distributions_along_dim(dtype, dim):
    logits = al.tensor(np.random.default_rng(0).standard_normal((4, 5)), dtype=getattr(al, dtype))
    soft = F.gumbel_softmax(logits, tau=0.7, dim=dim)
    hard = F.gumbel_softmax(logits, hard=True, dim=dim)
    assert soft.dtype is hard.dtype is logits.dtype and soft.shape == hard.shape == logits.shape
    np.testing.assert_allclose(soft.sum(dim).numpy(), 1, rtol=1e-6)
    assert soft.min().item() > 0
    assert set(np.unique(hard.numpy())) <= {0.0, 1.0}
    np.testing.assert_array_equal(hard.sum(dim).numpy(), 1)


def test_gumbel_softmax_picks_each_category_with_its_softmax_probability():
    al.manual_seed(0)
    probabilities = np.array([0.1, 0.2, 0.3, 0.4])
    logits = al.tensor(np.log(probabilities) + 3.0).expand(40000, 4)  # (a shift changes nothing)
    picks = F.gumbel_softmax(logits, tau=0.3, hard=True).numpy()
    np.testing.assert_allclose(picks.mean(0), probabilities, atol=0.015)
    soft = F.gumbel_softmax(logits, tau=0.3).numpy()
    assert abs(soft.mean(0) - probabilities).max() < 0.03  # a low temperature: the soft samples are nearly one-hot


def test_same_seed_same_sample_and_hard_is_the_soft_samples_argmax_with_its_gradient():
    logits = al.tensor(np.random.default_rng(1).standard_normal((6, 5)), requires_grad=True)
    upstream = al.tensor(np.random.default_rng(2).standard_normal((6, 5)))
    tau = 0.5
    al.manual_seed(7)
    soft = F.gumbel_softmax(logits, tau=tau)
    (soft_grad,) = al.autograd.grad(soft, logits, upstream)
    al.manual_seed(7)
    hard = F.gumbel_softmax(logits, tau=tau, hard=True)
    (hard_grad,) = al.autograd.grad(hard, logits, upstream)
    np.testing.assert_array_equal(hard.detach().numpy(), np.eye(5)[soft.detach().numpy().argmax(1)])
    np.testing.assert_allclose(hard_grad.numpy(), soft_grad.numpy(), rtol=1e-12)  # straight through
    y, g = soft.detach().numpy(), upstream.numpy()  # the softmax's derivative, divided by tau
    np.testing.assert_allclose(soft_grad.numpy(), y * (g - (g * y).sum(1, keepdims=True)) / tau, rtol=1e-10)
    assert not np.array_equal(F.gumbel_softmax(logits).detach().numpy(), F.gumbel_softmax(logits).detach().numpy())


def test_gumbel_softmax_eps_warns_as_torch_does():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.nn.functional.gumbel_softmax(torch.zeros(2, 3), eps=0.1)
        F.gumbel_softmax(al.zeros(2, 3), eps=0.1)
    assert len(caught) == 2 and str(caught[0].message) == str(caught[1].message)
    assert caught[1].category is caught[0].category and caught[1].filename == __file__


def _cosine_distance(m):
    return lambda x, y: 1.0 - m.nn.functional.cosine_similarity(x, y)


def _triplets(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((6, 4)) for _ in range(3)]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("distance", [None, "cosine", "module"])
def test_triplet_margin_with_distance_loss_matches_torch(reduction, swap, distance):
    results = []
    for m in (al, torch):
        leaves = [m.tensor(a, requires_grad=True) for a in _triplets()]
        function = {None: None, "cosine": _cosine_distance(m), "module": m.nn.PairwiseDistance(p=1.0)}[distance]
        loss = m.nn.functional.triplet_margin_with_distance_loss(*leaves, distance_function=function, margin=1.5,
                                                                 swap=swap, reduction=reduction)
        grads = m.autograd.grad(loss.sum(), leaves, allow_unused=True)
        results.append((_chain(loss.grad_fn, 4), loss.detach().numpy(), [g.numpy() for g in grads]))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    for a, b in zip(results[0][2], results[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_triplet_margin_with_distance_loss_module_matches_torch():
    for kwargs in ({}, {"margin": 0.5, "swap": True, "reduction": "sum"}):
        ours, theirs = al.nn.TripletMarginWithDistanceLoss(**kwargs), torch.nn.TripletMarginWithDistanceLoss(**kwargs)
        assert repr(ours) == repr(theirs)
        assert (ours.margin, ours.swap, ours.reduction) == (theirs.margin, theirs.swap, theirs.reduction)
        values = [ours(*[al.tensor(a) for a in _triplets(1)]), theirs(*[torch.tensor(a) for a in _triplets(1)])]
        np.testing.assert_allclose(values[0].numpy(), values[1].numpy(), rtol=1e-12)
    custom = [al.nn.TripletMarginWithDistanceLoss(distance_function=_cosine_distance(al)),
              torch.nn.TripletMarginWithDistanceLoss(distance_function=_cosine_distance(torch))]
    assert repr(custom[0]) == repr(custom[1]) and list(custom[0].state_dict()) == []
    np.testing.assert_allclose(custom[0](*[al.tensor(a) for a in _triplets(2)]).numpy(),
                               custom[1](*[torch.tensor(a) for a in _triplets(2)]).numpy(), rtol=1e-12)


def _error(fn, error):
    same_error(torch, fn, error, whole=True)


def test_triplet_margin_with_distance_loss_errors_are_torchs():
    def loss(negative_shape=(6, 4), **kwargs):
        return lambda m: m.nn.functional.triplet_margin_with_distance_loss(
            m.zeros(6, 4), m.zeros(6, 4), m.zeros(*negative_shape), **kwargs)
    _error(loss(margin=0), ValueError)
    _error(loss(negative_shape=(4,)), RuntimeError)
    _error(loss(reduction="bogus", margin=0), ValueError)
    _error(lambda m: m.nn.TripletMarginWithDistanceLoss(margin=-1), ValueError)
