"""Constants, dtype limits, the thread setting, logspace and vander against PyTorch: values, fields, dtypes,
gradients (vander's, with gradcheck) and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def test_constants_are_torchs():
    assert (al.pi, al.e, al.inf) == (torch.pi, torch.e, torch.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(al.nan) and al.newaxis is None is torch.newaxis
    assert al.ones(3)[:, al.newaxis].shape == (3, 1)


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_fields_match_torch(name):
    ours, theirs = al.finfo(getattr(al, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)
    assert type(ours.eps) is float and type(ours.bits) is int


def test_finfo_without_a_dtype_is_the_default_dtypes():
    assert al.finfo().dtype == "float32"
    al.set_default_dtype(al.float64)
    try:
        assert al.finfo().eps == torch.finfo(torch.float64).eps
    finally:
        al.set_default_dtype(al.float32)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_fields_match_torch(name):
    ours, theirs = al.iinfo(getattr(al, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", [lambda m: m.finfo(m.int32), lambda m: m.iinfo(m.float32), lambda m: m.iinfo(m.bool),
                                  lambda m: m.finfo("float32")], ids=["finfo_int", "iinfo_float", "iinfo_bool", "str"])
def test_info_of_the_wrong_kind_raises_torchs_error(call):
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(al)
    phrase = str(theirs.value).replace("torch.dtype", "al.dtype")
    assert phrase.replace("torch.bool", "") in str(ours.value).replace("torch.bool", "")


def test_set_num_threads_sets_what_get_num_threads_reads():
    before = al.get_num_threads()
    assert before >= 1
    try:
        al.set_num_threads(1)
        assert al.get_num_threads() == 1
        assert (al.ones(64, 64) @ al.ones(64, 64)).sum().item() == 64 ** 3
    finally:
        al.set_num_threads(before)
    assert al.get_num_threads() == before
    same_error(torch, lambda m: m.set_num_threads(0), RuntimeError)
    with pytest.raises(TypeError, match="must be int"):
        al.set_num_threads(1.5)


def test_logspace_of_an_integer_dtype_truncates_start_and_end_as_torch():
    for args in [(1.5, -1, 7, 3.0), (0.5, 2.7, 4, 10), (1, 2, 1, 10)]:
        for dtype in ("int64", "int32"):
            ours = al.logspace(*args, dtype=getattr(al, dtype))
            assert ours.tolist() == torch.logspace(*args, dtype=getattr(torch, dtype)).tolist()


@pytest.mark.parametrize("args", [(0, 2, 3), (0, 2, 5, 2), (-1, 1, 4, 3.0), (2, 0, 3), (0, 1, 1), (0, 1, 0)])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_logspace_matches_torch(args, dtype):
    kw = {} if dtype is None else {"dtype": getattr(al, dtype)}
    ours = al.logspace(*args, **kw)
    theirs = torch.logspace(*args, **({} if dtype is None else {"dtype": getattr(torch, dtype)}))
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:] and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    same_error(torch, lambda m: m.logspace(0, 1, -1), RuntimeError)


@pytest.mark.parametrize("kw", [{}, {"N": 2}, {"N": 5}, {"increasing": True}, {"N": 4, "increasing": True}, {"N": 1}])
def test_vander_values_node_and_gradients(kw):
    """Values and the node as torch's; the gradient by gradcheck (PyTorch 2.13's own vander cannot backward: its
    cumprod saves a view of the result that the write into the result then changes)."""
    x = np.array([1.5, -2.0, 0.5, 3.0])
    ours, theirs = al.vander(al.tensor(x, requires_grad=True), **kw), torch.vander(torch.tensor(x, requires_grad=True), **kw)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    if kw.get("N") != 1:  # (one column of ones: nothing depends on x)
        leaf = al.tensor(x, requires_grad=True)
        assert gradcheck(lambda t: al.vander(t, **kw), [leaf]) and gradgradcheck(lambda t: al.vander(t, **kw), [leaf])


@pytest.mark.parametrize("dtype", ["int32", "bool", "float32"])
def test_vander_dtypes_match_torch(dtype):
    x = np.array([1, 0, 2])
    ours, theirs = al.vander(al.tensor(x, dtype=getattr(al, dtype))), torch.vander(torch.tensor(x, dtype=getattr(torch, dtype)))
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert al.vander(al.ones(3), N=0).shape == (3, 0)


def test_vander_bad_input_raises_torchs_error():
    same_error(torch, lambda m: m.vander(m.ones(2, 2)), RuntimeError)
    same_error(torch, lambda m: m.vander(m.ones(2), N=-1), RuntimeError)
