"""``RNN``, ``LSTM``, ``GRU`` and their cells against PyTorch: with PyTorch's weights copied over, the same
outputs, final states and gradients (float64), for every layout option; parameter names, shapes,
initialisation range, reprs and error messages as PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck

torch = pytest.importorskip("torch")

OPTIONS = {
    "RNN": [dict(), dict(nonlinearity="relu"), dict(num_layers=2, dropout=0.0), dict(bias=False)],
    "LSTM": [dict(), dict(proj_size=2), dict(num_layers=2, bidirectional=True, proj_size=3)],
    "GRU": [dict(), dict(bias=False, batch_first=True)],
}
COMMON = [dict(), dict(num_layers=3), dict(bidirectional=True), dict(num_layers=2, bidirectional=True, batch_first=True),
          dict(batch_first=True)]
CASES = [(cls, {**common, **extra}) for cls, extras in OPTIONS.items() for extra in extras for common in COMMON[:3]] + \
        [(cls, common) for cls in OPTIONS for common in COMMON[3:]]


def _pair(name: str, *args, **kwargs):
    """The torch layer and ours, ours holding the torch layer's weights."""
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    ours = getattr(al.nn, name)(*args, dtype=al.float64, **kwargs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    params = dict(ours.named_parameters())
    with al.no_grad():
        for n, p in theirs.named_parameters():
            assert tuple(params[n].shape) == tuple(p.shape)
            params[n].copy_(al.tensor(p.detach().numpy()))
    return ours, theirs


def _state(cls, options, batched, rng):
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    h = rng.standard_normal((layers, 2, options.get("proj_size") or 5))
    h = h if batched else h[:, 0]  # unbatched: (layers, hidden)
    if cls != "LSTM":
        return al.tensor(h), torch.tensor(h)
    c = rng.standard_normal(h.shape[:-1] + (5,))
    return (al.tensor(h), al.tensor(c)), (torch.tensor(h), torch.tensor(c))


def _flat(state):
    return state[0].sum() * 2 + state[1].sum() * 3 if isinstance(state, tuple) else state.sum() * 2


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "given-state"])
@pytest.mark.parametrize("cls,options", CASES, ids=[f"{c}-{o}" for c, o in CASES])
def test_layers_match_torch(cls, options, batched, with_state):
    rng = np.random.default_rng(len(str(options)))
    ours, theirs = _pair(cls, 4, 5, **options)
    shape = ((2, 6, 4) if options.get("batch_first") else (6, 2, 4)) if batched else (6, 4)
    x = rng.standard_normal(shape)
    a, t = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    states = _state(cls, options, batched, rng) if with_state else (None, None)
    (out, final), (expected_out, expected_final) = ours(a, states[0]), theirs(t, states[1])
    assert tuple(out.shape) == tuple(expected_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), expected_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    for got, expected in zip(final if isinstance(final, tuple) else [final],
                             expected_final if isinstance(expected_final, tuple) else [expected_final]):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-13)
    seed = rng.standard_normal(tuple(expected_out.shape))
    ((out * al.tensor(seed)).sum() + _flat(final)).backward()
    ((expected_out * torch.tensor(seed)).sum() + _flat(expected_final)).backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("options", [dict(), dict(bias=False)])
def test_cells_match_torch(cls, batched, options):
    rng = np.random.default_rng(7)
    ours, theirs = _pair(cls, 3, 4, **options)
    assert repr(ours) == repr(theirs)
    x = rng.standard_normal((2, 3) if batched else (3,))
    a, t = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for given in (False, True):
        h = rng.standard_normal((2, 4) if batched else (4,))
        state = ((al.tensor(h), al.tensor(h * 2)), (torch.tensor(h), torch.tensor(h * 2))) if cls == "LSTMCell" \
            else (al.tensor(h), torch.tensor(h))
        got = ours(a, state[0]) if given else ours(a)
        expected = theirs(t, state[1]) if given else theirs(t)
        _flat(got if isinstance(got, tuple) else (got, got)).backward()
        _flat(expected if isinstance(expected, tuple) else (expected, expected)).backward()
        for g, e in zip(got if isinstance(got, tuple) else [got], expected if isinstance(expected, tuple) else [expected]):
            np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11)


def test_relu_cell_and_gradcheck():
    ours, theirs = _pair("RNNCell", 3, 4, nonlinearity="relu")
    assert repr(ours) == repr(theirs) == "RNNCell(3, 4, nonlinearity=relu)"
    x = np.random.default_rng(1).standard_normal((2, 3))
    np.testing.assert_allclose(ours(al.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy())
    lstm = al.nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=al.float64)
    inputs = [al.tensor(np.random.default_rng(2).standard_normal((4, 1, 2)), requires_grad=True)]
    assert gradcheck(lambda v: lstm(v)[0], inputs)


def test_initialisation_reprs_and_weight_access():
    al.manual_seed(0)
    for cls in ("RNN", "LSTM", "GRU"):
        layer = getattr(al.nn, cls)(3, 16, num_layers=2, bidirectional=True, batch_first=True, dropout=0.25)
        assert repr(layer) == repr(getattr(torch.nn, cls)(3, 16, num_layers=2, bidirectional=True, batch_first=True,
                                                          dropout=0.25))
        bound = 1 / math.sqrt(16)
        values = np.concatenate([p.detach().numpy().ravel() for p in layer.parameters()])
        assert values.min() >= -bound and values.max() <= bound and values.std() > bound / 3  # U(-bound, bound)
        assert len(layer.all_weights) == 4 and layer.all_weights[1][0] is layer.weight_ih_l0_reverse
        layer.flatten_parameters()  # accepted, as scripts call it
    assert repr(al.nn.LSTM(3, 4, proj_size=2)) == repr(torch.nn.LSTM(3, 4, proj_size=2))
    assert repr(al.nn.RNN(3, 4, 2, "relu")) == repr(torch.nn.RNN(3, 4, 2, "relu"))
    assert al.nn.GRUCell(3, 0)(al.ones(2, 3)).shape == (2, 0)  # hidden_size 0: U(0, 0), no division by zero


def test_dropout_between_layers_only_in_training():
    al.manual_seed(0)
    layer = al.nn.GRU(3, 8, num_layers=2, dropout=0.5, dtype=al.float64)
    x = al.randn(5, 2, 3, dtype=al.float64)
    first, second = layer(x)[0], layer(x)[0]
    assert not al.allclose(first, second)  # different dropout masks
    layer.eval()
    assert al.allclose(layer(x)[0], layer(x)[0])
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got dropout=0.5"):
        al.nn.LSTM(3, 4, dropout=0.5)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3, 3)),
    lambda lib: lib.nn.RNN(3, 4)(lib.ones(2, 3, 3, 3)),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(5, 2, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.ones(5, 2, 3), lib.zeros(2, 2, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.ones(5, 2, 3), lib.zeros(2, 4)),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(5, 3), lib.zeros(1, 2, 4)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 3, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), (lib.zeros(2, 4), lib.zeros(2, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3, dtype=lib.float64)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 2, 3)),
    lambda lib: lib.nn.GRU(3, 4, proj_size=2),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda lib: lib.nn.LSTM(3, 4, dropout=2),
    lambda lib: lib.nn.GRU(3, 4, batch_first=True)(lib.ones(2, 0, 3)),  # an empty sequence
    # the cells check the input's size and each state's batch and size (a (1, 4) state of a (3,) input is a
    # batch of one state of size 1 once unsqueezed; it was computed by broadcasting)
    lambda lib: lib.nn.RNNCell(3, 4)(lib.ones(3), lib.zeros(1, 4)),
    lambda lib: lib.nn.RNNCell(3, 4)(lib.ones(1, 3), lib.zeros(4)),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.ones(2, 2)),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.ones(2, 3), lib.zeros(2, 5)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3), (lib.zeros(3, 4), lib.zeros(2, 4))),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3), (lib.zeros(2, 4), lib.zeros(2, 5))),
])
def test_errors_as_pytorch(call):
    with pytest.raises((RuntimeError, ValueError)) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(al)
    assert str(got.value) == str(expected.value).replace("torch.", "al.")
