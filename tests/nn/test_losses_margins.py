"""The multi-class margin losses (``multi_margin_loss``, ``multilabel_margin_loss``, ``multilabel_soft_margin_loss``
and their modules) against torch: values, grad_fn and saved values, gradients, second derivatives, errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
SCORES = rng.standard_normal((5, 4))
LABELS = np.array([0, 3, 1, 1, 2])
MULTI = np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, 2, 3], [-1, 1, 1, 1], [2, 2, -1, 0]])
WEIGHT = np.array([0.5, 1.0, 2.0, 1.5])


def run(m, loss, scores=SCORES):
    x = m.tensor(scores, requires_grad=True)
    out = loss(m, x)
    out.backward(m.ones_like(out))
    return out, x.grad


CASES = {
    "multi_margin": lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor(LABELS)),
    "multi_margin_p2": lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor(LABELS), p=2, margin=0.7),
    "multi_margin_weight_none": lambda m, x: m.nn.functional.multi_margin_loss(
        x, m.tensor(LABELS), weight=m.tensor(WEIGHT), reduction="none"),
    "multi_margin_sum_module": lambda m, x: m.nn.MultiMarginLoss(p=2, weight=m.tensor(WEIGHT), reduction="sum")(
        x, m.tensor(LABELS)),
    "multi_margin_one_sample": lambda m, x: m.nn.functional.multi_margin_loss(x[0], m.tensor(2), reduction="none"),
    "multilabel_margin": lambda m, x: m.nn.functional.multilabel_margin_loss(x, m.tensor(MULTI)),
    "multilabel_margin_none": lambda m, x: m.nn.MultiLabelMarginLoss(reduction="none")(x, m.tensor(MULTI)),
    "multilabel_margin_one_sample": lambda m, x: m.nn.functional.multilabel_margin_loss(x[2], m.tensor(MULTI[0])),
    "multilabel_soft_margin": lambda m, x: m.nn.functional.multilabel_soft_margin_loss(x, m.tensor(MULTI > 0) * 1.0),
    "multilabel_soft_margin_weight": lambda m, x: m.nn.MultiLabelSoftMarginLoss(weight=m.tensor(WEIGHT),
                                                                                reduction="none")(x, (x > 0) * 1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_as_torch(name):
    (ours, our_grad), (theirs, their_grad) = run(al, CASES[name]), run(torch, CASES[name])
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(ours.tolist(), theirs.tolist(), rtol=1e-12)
    np.testing.assert_allclose(our_grad.tolist(), their_grad.tolist(), rtol=1e-12, atol=1e-15)


def test_saved_values_as_torch():
    for name in ("multi_margin_weight_none", "multilabel_margin"):
        ours, theirs = (CASES[name](m, m.tensor(SCORES, requires_grad=True)).grad_fn for m in (al, torch))
        names = sorted(a for a in dir(theirs) if a.startswith("_saved_"))
        assert sorted(a for a in dir(ours) if a.startswith("_saved_")) == names
        for attribute in names:
            a, b = getattr(ours, attribute), getattr(theirs, attribute)
            assert (a.tolist() if hasattr(a, "tolist") else a) == (b.tolist() if hasattr(b, "tolist") else b), attribute


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_by_finite_differences(name):
    x = al.tensor(SCORES, requires_grad=True)
    assert gradcheck(lambda x: CASES[name](al, x), (x,), check_forward_ad=True)
    if "p2" in name or "soft" in name:  # (the others are piecewise linear: their second derivative is 0)
        assert gradgradcheck(lambda x: CASES[name](al, x), (x,))


BAD = {
    "p": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, 1]), p=3),
    "target_range": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, 3])),
    "target_negative": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, -1])),
    "target_size": lambda m: m.nn.functional.multi_margin_loss(m.ones(3, 4), m.tensor([0, 1])),
    "target_float": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0.0, 1.0])),
    "weight_size": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, 1]), weight=m.ones(2)),
    "three_dims": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3, 4), m.tensor([0, 1])),
    "integer_scores": lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3, dtype=m.int64), m.tensor([0, 1])),
    "multilabel_range": lambda m: m.nn.functional.multilabel_margin_loss(m.ones(2, 3), m.tensor([[0, -1, 3]] * 2)),
    "multilabel_below": lambda m: m.nn.functional.multilabel_margin_loss(m.ones(2, 3), m.tensor([[0, -2, 1]] * 2)),
    "multilabel_size": lambda m: m.nn.functional.multilabel_margin_loss(m.ones(2, 3), m.tensor([[0, -1]] * 2)),
    "soft_reduction": lambda m: m.nn.functional.multilabel_soft_margin_loss(m.ones(2, 3), m.ones(2, 3), reduction="x"),
    "module_p": lambda m: m.nn.MultiMarginLoss(p=3),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_errors_as_torch(name):
    with pytest.raises(Exception) as theirs:
        BAD[name](torch)
    with pytest.raises(type(theirs.value)) as ours:
        BAD[name](al)
    assert str(theirs.value).splitlines()[0] in str(ours.value)
