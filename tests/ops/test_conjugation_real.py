"""The conjugation API on real tensors (``conj``, ``conj_physical``, ``resolve_conj``, ``resolve_neg``, ``is_conj``,
``is_neg``, ``conj_physical_``, ``H``, ``mH``, ``adjoint``) and ``isreal``/``isposinf``/``isneginf``, against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al

torch = pytest.importorskip("torch")

_MATRIX = np.random.default_rng(1).standard_normal((3, 4))


@pytest.mark.parametrize("name", ["conj", "conj_physical", "resolve_conj", "resolve_neg"])
def test_of_a_real_tensor_is_the_tensor_itself(name):
    for m in (al, torch):
        for x in (m.tensor(_MATRIX, requires_grad=True), m.tensor([1, 2]), m.tensor(_MATRIX) * 2):
            assert getattr(x, name)() is x
            assert getattr(m, name)(x) is x


@pytest.mark.parametrize("name", ["is_conj", "is_neg"])
def test_bits_are_never_set_on_a_real_tensor(name):
    for m in (al, torch):
        x = m.tensor(_MATRIX)
        assert getattr(x, name)() is False and getattr(m, name)(x) is False


def test_conj_physical_in_place_records_a_node_and_a_version_as_torch():
    def conj_in_place(m, a):
        out = a * 2
        assert out.conj_physical_() is out and out._version == 1
        return out
    same_as_torch(torch, conj_in_place, _MATRIX)
    assert al.conj_physical_ is al.Tensor.conj_physical_
    same_error(torch, lambda m: m.ones(2, requires_grad=True).conj_physical_(), RuntimeError)


@pytest.mark.parametrize("name", ["H", "mH", "adjoint"])
def test_conjugate_transposes_are_transpose_views(name):
    def transposed(m, a):
        out = getattr(a, name)
        out = out() if name == "adjoint" else out
        assert out._base is a
        return out
    assert same_as_torch(torch, transposed, _MATRIX).grad_fn.name() == "TransposeBackward0"
    if name != "H":
        same_as_torch(torch, lambda m, a: m.adjoint(a) if name == "adjoint" else a.mH, _MATRIX.reshape(2, 3, 2))


@pytest.mark.parametrize("call", [
    lambda m: m.ones(3).H, lambda m: m.ones(2, 3, 4).H, lambda m: m.ones(3).mH, lambda m: m.ones(3).adjoint(),
    lambda m: m.adjoint(m.ones(1)),
])
def test_conjugate_transposes_need_matrices_as_torch(call):
    same_error(torch, call, RuntimeError)


@pytest.mark.parametrize("name, phrase", [("H", "Tensor.H is"), ("mH", "Tensor.mH is"), ("adjoint", "adjoint() is")])
def test_of_a_0_dim_tensor_warns_and_is_the_tensor(name, phrase):
    for m in (al, torch):
        x = m.tensor(2.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert (x.adjoint() if name == "adjoint" else getattr(x, name)) is x
        assert any(f"{phrase} deprecated on 0-D tensors. Consider using x.conj()." in str(w.message) for w in caught)


_SPECIAL = [1.0, float("inf"), -float("inf"), float("nan"), -0.0, 3.0]


@pytest.mark.parametrize("name", ["isposinf", "isneginf", "isreal"])
@pytest.mark.parametrize("values, dtype", [(_SPECIAL, "float32"), (_SPECIAL, "float64"), ([1, -2], "int64"),
                                           ([True, False], "bool"), ([[1.0], [float("inf")]], "float16")])
def test_predicates_match_torch(name, values, dtype):
    ours = getattr(al, name)(al.tensor(values, dtype=getattr(al, dtype)))
    theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert ours.dtype is al.bool_ and ours.tolist() == theirs.tolist()
    assert getattr(al.tensor(values, dtype=getattr(al, dtype)), name)().tolist() == theirs.tolist()


def test_predicates_record_nothing():
    x = al.tensor(_SPECIAL, requires_grad=True)
    assert all(not f(x).requires_grad for f in (al.isposinf, al.isneginf, al.isreal))


def test_real_is_the_tensor_and_imag_is_torchs_error():
    for m in (al, torch):
        x = m.tensor(_MATRIX, requires_grad=True)
        assert x.real is x and m.real(x) is x
    same_error(torch, lambda m: m.ones(2).imag, RuntimeError)
    same_error(torch, lambda m: m.imag(m.ones(2)), RuntimeError)


def test_angle_matches_torch():
    same_as_torch(torch, lambda m, a: a.angle(), [-1.0, 0.0, 2.0, float("nan"), -0.0, -float("inf")])
    same_as_torch(torch, lambda m, a: m.angle(a * 2), _MATRIX)
    for values, dtype in (([1, -2, 0], "int32"), ([True, False], "bool"), ([1.0, -1.0], "float16")):
        ours = al.tensor(values, dtype=getattr(al, dtype)).angle()
        theirs = torch.tensor(values, dtype=getattr(torch, dtype)).angle()
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float), rtol=1e-3)
