"""Param groups against PyTorch 2.13: parameters given with their names (``model.named_parameters()``), a
parameter listed twice (a warning, and PyTorch's updates and numbering), non-leaf tensors that retain their
gradient, and the error for a group that is not a dict."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _both(fn):
    return fn(al), fn(torch)


def test_named_parameters_keep_their_names():
    def saved(T):
        model = T.nn.Linear(2, 3)
        opt = T.optim.SGD(model.named_parameters(), lr=0.1)
        reloaded = T.optim.SGD(model.parameters(), lr=0.5)
        reloaded.load_state_dict(opt.state_dict())
        return opt.state_dict()["param_groups"], reloaded.param_groups[0]["param_names"], reloaded.param_groups[0]["lr"]
    ours, theirs = _both(saved)
    assert ours == theirs
    assert ours[0][0]["param_names"] == ["weight", "bias"]


@pytest.mark.parametrize("case", ["some names missing", "a group without names"])
def test_names_in_all_groups_or_none(case):
    def build(T):
        model = T.nn.Linear(2, 3)
        if case == "some names missing":
            T.optim.SGD([("weight", model.weight), model.bias])
        else:
            T.optim.SGD(model.named_parameters()).add_param_group({"params": [T.zeros(2, requires_grad=True)]})
    messages = []
    for T in (al, torch):
        with pytest.raises(ValueError) as error:
            build(T)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["SGD", "Adam", "Rprop"])
def test_a_parameter_listed_twice(name):
    def run(T):
        w = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True)
        v = T.tensor([0.5], dtype=T.float64, requires_grad=True)
        with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
            opt = getattr(T.optim, name)([w, v, w], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
        for i in range(3):
            w.grad, v.grad = T.tensor([0.3, i - 1.0], dtype=T.float64), T.tensor([0.2], dtype=T.float64)
            opt.step()
        return w.detach().numpy(), opt.state_dict()["param_groups"][0]["params"], list(opt.state_dict()["state"])
    ours, theirs = _both(run)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-13)
    assert ours[1:] == theirs[1:]


def test_a_non_leaf_that_retains_its_gradient_can_be_optimized():
    def build(T):
        y = T.ones(2, requires_grad=True) * 2
        y.retain_grad()
        return len(T.optim.SGD([y], lr=0.1).param_groups[0]["params"])
    assert _both(build) == (1, 1)


def test_a_group_that_is_not_a_dict():
    messages = []
    for T in (al, torch):
        with pytest.raises(TypeError) as error:
            T.optim.Adam([T.zeros(2, requires_grad=True)]).add_param_group([T.zeros(2, requires_grad=True)])
        messages.append(str(error.value))
    assert messages[0] == messages[1] == "param_group must be a dict, but got <class 'list'>"
