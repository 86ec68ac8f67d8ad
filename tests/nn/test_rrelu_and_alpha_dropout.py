"""``rrelu`` / ``RReLU`` and ``alpha_dropout`` / ``feature_alpha_dropout`` (and their modules) against torch: the
nodes and saved values, eval mode exactly, training mode by what the random draw must satisfy, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((6, 5))


def run(m, fn, values=X):
    x = m.tensor(values, requires_grad=True)
    out = fn(m, x)
    out.backward(m.ones_like(out))
    return out, x.grad


EVAL = {
    "rrelu": lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3),
    "rrelu_module_eval": lambda m, x: m.nn.RReLU(0.2, 0.4).eval()(x),
    "rrelu_in_place": lambda m, x: m.nn.functional.rrelu(x * 1, inplace=True),
    "alpha_dropout_eval": lambda m, x: m.nn.functional.alpha_dropout(x, 0.3, False) * 2,
    "alpha_dropout_module_eval": lambda m, x: m.nn.AlphaDropout(0.3).eval()(x) * 2,
    "feature_alpha_dropout_eval": lambda m, x: m.nn.functional.feature_alpha_dropout(x, 0.3) * 2,
}


@pytest.mark.parametrize("name", sorted(EVAL))
def test_deterministic_modes_as_torch(name):
    (ours, our_grad), (theirs, their_grad) = run(al, EVAL[name]), run(torch, EVAL[name])
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(ours.tolist(), theirs.tolist(), rtol=1e-14)
    np.testing.assert_allclose(our_grad.tolist(), their_grad.tolist(), rtol=1e-14)


def test_rrelu_in_training_draws_a_slope_per_negative_element_and_saves_it():
    al.manual_seed(0)
    x = al.tensor(X, requires_grad=True)
    out = al.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    node, theirs = out.grad_fn, torch.nn.functional.rrelu(torch.tensor(X, requires_grad=True), training=True).grad_fn
    assert node.name() == theirs.name()
    assert sorted(a for a in dir(node) if a.startswith("_saved_")) == sorted(a for a in dir(theirs)
                                                                              if a.startswith("_saved_"))
    slopes = (out / x).detach().numpy()
    assert (slopes[X > 0] == 1).all() and (0.1 <= slopes[X < 0]).all() and (slopes[X < 0] <= 0.3).all()
    assert len(np.unique(slopes[X < 0])) == (X < 0).sum()
    noise = node._saved_noise.numpy()
    np.testing.assert_allclose(noise, slopes, rtol=1e-15)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), noise)


def test_rrelu_gradients_by_finite_differences():
    x = al.tensor(X, requires_grad=True)
    assert gradcheck(lambda x: al.nn.functional.rrelu(x, training=False), (x,), check_forward_ad=True)


def test_alpha_dropout_keeps_mean_and_variance_and_graph_of_torch():
    al.manual_seed(0)
    x = al.nn.functional.selu(al.randn(4000, 50, dtype=al.float64))
    out = al.nn.functional.alpha_dropout(x, 0.2, True)
    assert abs(float(out.mean()) - float(x.mean())) < 0.02 and abs(float(out.std()) - float(x.std())) < 0.02
    dropped = (out.detach().numpy() == out.detach().numpy().min())
    assert abs(dropped.mean() - 0.2) < 0.01
    leaf = al.tensor(X, requires_grad=True)
    ours = al.nn.functional.alpha_dropout(leaf, 0.5, True).grad_fn
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(X, requires_grad=True), 0.5, True).grad_fn
    assert [ours.name()] + [n and n.name() for n, _ in ours.next_functions] == \
           [theirs.name()] + [n and n.name() for n, _ in theirs.next_functions]


def test_feature_alpha_dropout_drops_whole_channels():
    al.manual_seed(1)
    out = al.nn.functional.feature_alpha_dropout(al.ones(8, 6, 5, dtype=al.float64), 0.5, True).numpy()
    assert (out == out[:, :, :1]).all() and len(np.unique(out)) == 2


@pytest.mark.parametrize("fn", [
    lambda m: m.nn.functional.alpha_dropout(m.ones(2), 1.5, True),
    lambda m: m.nn.AlphaDropout(-0.1),
    lambda m: m.nn.functional.rrelu(m.ones(2, dtype=m.int64)),
])
def test_errors_as_torch(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(al)
    assert str(theirs.value).splitlines()[0] in str(ours.value)
