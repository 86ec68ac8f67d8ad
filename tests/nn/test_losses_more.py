"""The losses and distances added beside MSE and cross entropy, functional and modules, against PyTorch in
float64: values, node names and gradients for every reduction; PyTorch's warnings and errors; gradcheck."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _inputs(seed=0):
    """(x, y, z, ones, positive) in both libraries: three (5, 4) float64 tensors requiring grad, targets +1 / -1 of
    the same shape, and positive values (variances, counts)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((5, 4)) * 1.5 for _ in range(3)]
    signs, positive = np.where(rng.standard_normal((5, 4)) > 0, 1.0, -1.0), rng.uniform(0.1, 4.0, (5, 4))
    ours = [al.tensor(a, requires_grad=True) for a in arrays] + [al.tensor(signs), al.tensor(positive)]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays] + [torch.tensor(signs), torch.tensor(positive)]
    return ours, theirs


def _compare(ours, theirs, our_leaves, their_leaves, seed=1):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-11, atol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    seed_grad = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    ours.backward(al.tensor(seed_grad))
    theirs.backward(torch.tensor(seed_grad))
    for a, t in zip(our_leaves, their_leaves):
        assert (a.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


LOSSES = {  # name -> call(F, x, y, z, signs, positive, reduction)
    "smooth_l1_loss": lambda F, x, y, z, s, p, r: F.smooth_l1_loss(x, y, reduction=r),
    "smooth_l1_loss beta 0.5": lambda F, x, y, z, s, p, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.5),
    "smooth_l1_loss beta 0": lambda F, x, y, z, s, p, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.0),
    "smooth_l1_loss broadcast": lambda F, x, y, z, s, p, r: F.smooth_l1_loss(x, y[0], reduction=r),
    "huber_loss": lambda F, x, y, z, s, p, r: F.huber_loss(x, y, reduction=r),
    "huber_loss delta 2": lambda F, x, y, z, s, p, r: F.huber_loss(x, y, reduction=r, delta=2.0),
    "huber_loss weight": lambda F, x, y, z, s, p, r: F.huber_loss(x, y, reduction=r, delta=1.5, weight=p),
    "kl_div": lambda F, x, y, z, s, p, r: F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction=r),
    "kl_div log_target": lambda F, x, y, z, s, p, r: F.kl_div(x, y, reduction=r, log_target=True),
    "kl_div zero target": lambda F, x, y, z, s, p, r: F.kl_div(x, F.relu(y), reduction=r),
    "margin_ranking_loss": lambda F, x, y, z, s, p, r: F.margin_ranking_loss(x, y, s, margin=0.3, reduction=r),
    "soft_margin_loss": lambda F, x, y, z, s, p, r: F.soft_margin_loss(x, s, reduction=r),
    "hinge_embedding_loss": lambda F, x, y, z, s, p, r: F.hinge_embedding_loss(x, s, margin=0.5, reduction=r),
    "cosine_embedding_loss": lambda F, x, y, z, s, p, r: F.cosine_embedding_loss(x, y, s[:, 0], 0.2, reduction=r),
    "cosine_embedding_loss 1d": lambda F, x, y, z, s, p, r: F.cosine_embedding_loss(x[0], y[0], s[0, 0], reduction=r),
    "triplet_margin_loss": lambda F, x, y, z, s, p, r: F.triplet_margin_loss(x, y, z, reduction=r),
    "triplet_margin_loss p1 swap": lambda F, x, y, z, s, p, r: F.triplet_margin_loss(x, y, z, 2.0, p=1, swap=True,
                                                                                      reduction=r),
    "poisson_nll_loss": lambda F, x, y, z, s, p, r: F.poisson_nll_loss(x, p, reduction=r),
    "poisson_nll_loss full": lambda F, x, y, z, s, p, r: F.poisson_nll_loss(x.abs(), p * 2, False, True, reduction=r),
    "gaussian_nll_loss": lambda F, x, y, z, s, p, r: F.gaussian_nll_loss(x, y, z.abs(), reduction=r),
    "gaussian_nll_loss full, var per row": lambda F, x, y, z, s, p, r: F.gaussian_nll_loss(
        x, y, z[:, 0].abs(), full=True, reduction=r),
    "gaussian_nll_loss var (5, 1), clamped": lambda F, x, y, z, s, p, r: F.gaussian_nll_loss(
        x, y, z[:, :1] * 0, eps=0.5, reduction=r),
    "gaussian_nll_loss float var": lambda F, x, y, z, s, p, r: F.gaussian_nll_loss(x, y, 0.7, reduction=r),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_torch(name, reduction):
    ours, theirs = _inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (kl_div's 'mean', the broadcast target: checked below)
        _compare(LOSSES[name](F, *ours, reduction), LOSSES[name](TF, *theirs, reduction), ours[:3], theirs[:3])


@pytest.mark.parametrize("name", sorted(set(LOSSES) - {"kl_div zero target"}))  # (its target's derivative at 0
def test_losses_gradcheck(name):  # is log(0) + 1: NaN in PyTorch's xlogy and here; the values are compared above)
    ours, _ = _inputs(seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda x, y, z: LOSSES[name](F, x, y, z, *ours[3:], "sum"), ours[:3], check_forward_ad=True)


@pytest.mark.parametrize("name", ["smooth_l1_loss beta 0.5", "huber_loss delta 2", "soft_margin_loss",
                                  "cosine_embedding_loss", "triplet_margin_loss", "gaussian_nll_loss"])
def test_losses_second_derivatives(name):
    ours, _ = _inputs(seed=6)
    assert gradgradcheck(lambda x, y, z: LOSSES[name](F, x, y, z, *ours[3:], "mean"), ours[:3])


DISTANCES = {
    "cosine_similarity": lambda F, x, y: F.cosine_similarity(x, y),
    "cosine_similarity dim 0, eps": lambda F, x, y: F.cosine_similarity(x * 1e-9, y, 0, eps=1e-3),
    "cosine_similarity broadcast": lambda F, x, y: F.cosine_similarity(x, y[:1], dim=-1),
    "normalize": lambda F, x, y: F.normalize(x), "normalize p1 dim 0": lambda F, x, y: F.normalize(x, 1.0, 0),
    "pairwise_distance": lambda F, x, y: F.pairwise_distance(x, y),
    "pairwise_distance p3 keepdim": lambda F, x, y: F.pairwise_distance(x, y, 3.0, keepdim=True),
    "pairwise_distance inf 1d": lambda F, x, y: F.pairwise_distance(x[0], y[1], float("inf")),
}


@pytest.mark.parametrize("name", sorted(DISTANCES))
def test_distances_match_torch_and_gradcheck(name):
    ours, theirs = _inputs(seed=3)
    _compare(DISTANCES[name](F, *ours[:2]), DISTANCES[name](TF, *theirs[:2]), ours[:2], theirs[:2])
    fresh, _ = _inputs(seed=4)
    assert gradcheck(lambda x, y: DISTANCES[name](F, x, y), fresh[:2], check_forward_ad=True)


def test_kl_div_batchmean_and_its_mean_warning():
    ours, theirs = _inputs()
    _compare(F.kl_div(ours[0], ours[4], reduction="batchmean"), TF.kl_div(theirs[0], theirs[4], reduction="batchmean"),
             ours[:1], theirs[:1])
    for lib, (x, y) in ((F, ours[::4]), (TF, theirs[::4])):
        with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size and the "
                                             "support size.'batchmean' divides only by the batch size"):
            lib.kl_div(x, y)


MODULES = [("SmoothL1Loss", {"beta": 0.5}, 2), ("HuberLoss", {"delta": 0.7, "reduction": "sum"}, 2),
           ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, 2), ("MarginRankingLoss", {"margin": 0.1}, 3),
           ("SoftMarginLoss", {}, 2), ("HingeEmbeddingLoss", {"margin": 2.0}, 2), ("CosineEmbeddingLoss", {}, 3),
           ("TripletMarginLoss", {"margin": 0.5, "swap": True}, 3), ("PoissonNLLLoss", {"full": True}, 2),
           ("GaussianNLLLoss", {"reduction": "none"}, 3), ("CosineSimilarity", {"dim": 0}, 2),
           ("PairwiseDistance", {"p": 1.0, "keepdim": True}, 2)]


def _module_args(name, count, tensors):
    x, y, z, signs, positive = tensors
    if name in ("SoftMarginLoss", "HingeEmbeddingLoss"):
        return x, signs
    if name == "MarginRankingLoss":
        return x, y, signs
    if name == "CosineEmbeddingLoss":
        return x, y, signs[:, 0]
    if name == "PoissonNLLLoss":
        return x, positive
    if name == "GaussianNLLLoss":
        return x, y, positive
    return (x, y, z)[:count]


@pytest.mark.parametrize("name, kwargs, count", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch(name, kwargs, count):
    ours, theirs = _inputs(seed=5)
    our_module, their_module = getattr(al.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(our_module) == repr(their_module)
    _compare(our_module(*_module_args(name, count, ours)), their_module(*_module_args(name, count, theirs)),
             ours[:3], theirs[:3])


def test_legacy_flags_and_default_reductions():
    ours, theirs = _inputs()
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        module = al.nn.SmoothL1Loss(size_average=False)
    assert module.reduction == "sum"
    assert al.nn.HuberLoss().reduction == al.nn.KLDivLoss().reduction == "mean"
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        ours_none = F.soft_margin_loss(ours[0], ours[3], reduce=False)
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        theirs_none = TF.soft_margin_loss(theirs[0], theirs[3], reduce=False)
    _compare(ours_none, theirs_none, ours[:1], theirs[:1])


def _both(call):
    """The error each library raises for ``call(lib, x, y, signs)`` (type, message; our messages may go on with
    advice)."""
    ours, theirs = _inputs()
    errors = []
    for lib, (x, y, _, signs, _) in ((F, ours), (TF, theirs)):
        with pytest.raises(Exception) as caught:
            call(lib, x, y, signs)
        errors.append((caught.type, str(caught.value)))
    return errors


@pytest.mark.parametrize("call", [
    lambda F, x, y, s: F.smooth_l1_loss(x, y, beta=-1.0), lambda F, x, y, s: F.huber_loss(x, y, delta=0.0),
    lambda F, x, y, s: F.smooth_l1_loss(x, y, reduction="bad"), lambda F, x, y, s: F.kl_div(x, y, reduction="bad"),
    lambda F, x, y, s: F.triplet_margin_loss(x, y, y, margin=0), lambda F, x, y, s: F.margin_ranking_loss(x, y[0], s),
    lambda F, x, y, s: F.gaussian_nll_loss(x, y, -y.abs()), lambda F, x, y, s: F.gaussian_nll_loss(x, y, y[:3]),
    lambda F, x, y, s: F.gaussian_nll_loss(x, y, y.abs(), reduction="bad"),
    lambda F, x, y, s: F.cosine_embedding_loss(x, y, s), lambda F, x, y, s: F.cosine_embedding_loss(x, y, s[0, 0]),
    lambda F, x, y, s: F.soft_margin_loss(x, y),
    lambda F, x, y, s: F.triplet_margin_loss(x, y, y[0]),
    lambda F, x, y, s: F.huber_loss(x, y, weight=s[0]),
    lambda F, x, y, s: F.smooth_l1_loss(s.long(), s.long()), lambda F, x, y, s: F.huber_loss(s.long(), s.long()),
    lambda F, x, y, s: F.soft_margin_loss(s.long(), s.long()),
])
def test_errors_match_torch(call):
    ours, theirs = _both(call)
    assert ours[0] is theirs[0]
    assert ours[1].startswith(theirs[1].replace("torch.Size", "al.Size")), (ours[1], theirs[1])


def test_smooth_l1_warns_about_a_broadcast_target_as_torch_does():
    ours, theirs = _inputs()
    for lib, (x, y) in ((F, ours[:2]), (TF, theirs[:2])):
        with pytest.warns(UserWarning, match=r"Using a target size \(.*\) that is different to the input size"):
            lib.smooth_l1_loss(x, y[0])
