"""``nn.ParameterList`` and ``nn.ParameterDict`` against PyTorch's: registration (``parameters()``, ``state_dict``
keys of a parent), tensors made Parameters, other values kept as attributes, the list and dict operations, reprs
(PyTorch's, with ``al.`` for ``torch.``), gradients reaching the entries, errors."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _same_repr(ours, theirs):
    assert repr(ours) == repr(theirs).replace("torch.", "al.")


class _Holder:
    """A module holding a ParameterList and a ParameterDict beside a Linear, in either library."""

    @staticmethod
    def build(lib):
        class Holder(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scales = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3, dtype=lib.float64)])
                self.extra = lib.nn.ParameterDict({"w": lib.nn.Parameter(lib.ones(2, 2)), "b": lib.zeros(2)})
                self.linear = lib.nn.Linear(2, 2)

            def forward(self, x):
                return self.linear(x * self.scales[0]) @ self.extra["w"] + self.extra["b"]
        return Holder()


def test_registration_and_state_dict_keys_as_torch():
    ours, theirs = _Holder.build(al), _Holder.build(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == [
        "scales.0", "scales.1", "extra.b", "extra.w", "linear.weight", "linear.bias"]  # (a dict's keys sorted)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert all(isinstance(p, al.nn.Parameter) for p in ours.scales)
    assert ours.scales[1].dtype is al.float64
    _same_repr(ours, theirs)


def test_gradients_reach_the_entries():
    model = _Holder.build(al)
    model(al.ones(3, 2)).sum().backward()
    assert model.scales[0].grad is not None and model.extra["w"].grad is not None
    assert model.extra["b"].grad.tolist() == [3.0, 3.0]
    assert model.scales[1].grad is None


def test_parameter_list_operations():
    for lib in (al, torch):
        plist = lib.nn.ParameterList()
        plist.append(lib.ones(2)).extend([lib.zeros(1), "not a tensor"])
        plist += [lib.ones(4)]
        assert len(plist) == 4 and plist[2] == "not a tensor" and tuple(plist[-1].shape) == (4,)
        assert len(list(plist.parameters())) == 3
        plist[0] = lib.full((3,), 2.0)
        assert isinstance(plist[0], lib.nn.Parameter) and plist[0].tolist() == [2.0] * 3
        assert isinstance(plist[1:3], lib.nn.ParameterList) and len(plist[1:3]) == 2
        assert "0" not in dir(plist)
    ours = al.nn.ParameterList([al.ones(2, 3), al.zeros(1, dtype=al.float64), 5])
    theirs = torch.nn.ParameterList([torch.ones(2, 3), torch.zeros(1, dtype=torch.float64), 5])
    _same_repr(ours, theirs)


def test_parameter_dict_operations():
    for lib in (al, torch):
        pdict = lib.nn.ParameterDict(OrderedDict([("z", lib.ones(1)), ("a", lib.zeros(2))]))
        assert list(pdict) == ["z", "a"]
        pdict.update([("m", lib.ones(3))])
        pdict["k"] = "plain"
        assert list(pdict.keys()) == ["z", "a", "m", "k"] and "m" in pdict and len(pdict) == 4
        assert pdict.get("nope", 1) == 1 and pdict.setdefault("s", lib.ones(1)).tolist() == [1.0]
        assert pdict.pop("z").tolist() == [1.0] and "z" not in pdict
        assert pdict.popitem()[0] == "s"
        merged = pdict | lib.nn.ParameterDict({"q": lib.ones(1)})
        assert list(merged) == ["a", "m", "k", "q"] and list(pdict) == ["a", "m", "k"]
        assert [k for k, _ in pdict.named_parameters()] == ["a", "m"]
        pdict.clear()
        assert len(pdict) == 0 and list(pdict.parameters()) == []
    ours = al.nn.ParameterDict({"a": al.ones(2), "b": al.zeros(2, 2, dtype=al.float64), "c": 3})
    theirs = torch.nn.ParameterDict({"a": torch.ones(2), "b": torch.zeros(2, 2, dtype=torch.float64), "c": 3})
    _same_repr(ours, theirs)


ERRORS = {
    "list index": (lambda lib: lib.nn.ParameterList([lib.ones(1)])[3], IndexError, "index 3 is out of range"),
    "list extend": (lambda lib: lib.nn.ParameterList().extend(lib.ones(2)), TypeError,
                    "ParameterList.extend should be called with an iterable, but got "),
    "list call": (lambda lib: lib.nn.ParameterList()(lib.ones(1)), RuntimeError, "ParameterList should not be called."),
    "dict call": (lambda lib: lib.nn.ParameterDict()(lib.ones(1)), RuntimeError, "ParameterDict should not be called."),
    "dict key": (lambda lib: lib.nn.ParameterDict().__setitem__(1, lib.ones(1)), TypeError,
                 "Index given to ParameterDict cannot be used as a key as it is not a string"),
    "dict update": (lambda lib: lib.nn.ParameterDict().update(3), TypeError,
                    "ParametersDict.update should be called with an iterable of key/value pairs, but got int"),
    "dict pair": (lambda lib: lib.nn.ParameterDict().update([("a", lib.ones(1), 1)]), ValueError,
                  "ParameterDict update sequence element #0 has length 3; 2 is required"),
    "dict missing": (lambda lib: lib.nn.ParameterDict()["nope"], AttributeError, "nope"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    build, error, phrase = ERRORS[name]
    for lib in (torch, al):
        with pytest.raises(error, match=phrase):
            build(lib)


def test_state_dict_round_trip_through_torch():
    ours, theirs = _Holder.build(al), _Holder.build(torch)
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(ours(al.tensor(x, dtype=al.float32)).detach().numpy(),
                               theirs(torch.tensor(x, dtype=torch.float32)).detach().numpy(), rtol=1e-6)
