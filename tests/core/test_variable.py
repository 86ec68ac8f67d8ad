"""``al.autograd.Variable`` is today's ``torch.autograd.Variable``: it returns tensors (``data.detach()`` with
``requires_grad`` set), ``volatile`` warns and does nothing; ``al.legacy.Variable`` stays the 2017 class."""

from __future__ import annotations

import warnings

import pytest

import autograd_lab as al
import autograd_lab.legacy
from autograd_lab.autograd import Variable

torch = pytest.importorskip("torch")


def _behaviour(lib, VariableClass) -> dict:
    """What a script written against today's Variable sees, as plain values."""
    base = lib.ones(3)
    v = VariableClass(base, requires_grad=True)
    y = (v * 2).sum()
    y.backward()
    w = VariableClass(v * 3)  # a computed tensor: detached
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        volatile = VariableClass(base, volatile=True)
    base.add_(1)  # shares memory and version counter with what Variable returned
    return {
        "type is the tensor type": type(v) is type(base), "requires_grad": v.requires_grad, "is_leaf": v.is_leaf,
        "grad": v.grad.tolist(), "detached": (w.requires_grad, w.grad_fn is None), "values": v.tolist(),
        "version": v._version, "isinstance": isinstance(lib.zeros(1), VariableClass),
        "volatile": (volatile.requires_grad, [(w.category, str(w.message)) for w in caught]),
        "empty": tuple(VariableClass().shape), "shares_base": VariableClass(base).data_ptr() == base.data_ptr(),
    }


def test_variable_behaves_as_torchs():
    from torch.autograd import Variable as TorchVariable
    ours, theirs = _behaviour(al, Variable), _behaviour(torch, TorchVariable)
    theirs["volatile"] = (theirs["volatile"][0], [(c, m.replace("torch.", "al.")) for c, m in theirs["volatile"][1]])
    ours["volatile"] = (ours["volatile"][0], [(c, m.replace("torch.", "al.")) for c, m in ours["volatile"][1]])
    assert ours == theirs
    assert ours["volatile"][1][0][0] is UserWarning


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_variable_errors_as_torch(lib):
    V = Variable if lib == "al" else __import__("torch.autograd", fromlist=["Variable"]).Variable
    module = al if lib == "al" else torch
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        V([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="Variable can't be volatile and require_grad at the same time!"):
            V(module.ones(1), requires_grad=True, volatile=True)
    with pytest.raises(TypeError, match="_grad_fn has to be a Function object or None, but got int"):
        V(module.ones(1), _grad_fn=1)


def test_positional_arguments_and_parameters():
    p = al.nn.Parameter(al.ones(2))
    v = Variable(p, True)
    assert type(v) is al.Tensor and v.requires_grad and v is not p
    assert al.autograd.variable.Variable is Variable


def test_legacy_variable_is_still_the_2017_class():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = autograd_lab.legacy.Variable(al.ones(2), volatile=True)
        assert isinstance(old, autograd_lab.legacy.Variable) and old.volatile
    assert isinstance(old, Variable)  # a legacy Variable is a tensor, so today's check accepts it too
    assert not isinstance(al.ones(1), autograd_lab.legacy.Variable)
