"""The window functions (``hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``,
``kaiser_window``): values in each floating dtype, ``periodic``, their extra parameters and errors, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch")

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
_TOLERANCE = {"float16": 0.0, "float32": 1e-6, "float64": 1e-12}  # (float32: the C library's cos and I0 differ by
#                                                                      an ulp; float16 rounds them away)


def _same(ours, theirs, dtype):
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1] and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float), rtol=0,
                               atol=_TOLERANCE[dtype])


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 17])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_windows_match_torch(name, length, periodic, dtype):
    ours = getattr(al, name)(length, periodic, dtype=getattr(al, dtype))
    _same(ours, getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype)), dtype)


@pytest.mark.parametrize("name", WINDOWS)
def test_defaults_match_torch(name):
    """Periodic, of the default dtype (which follows ``set_default_dtype``), a leaf that may require grad."""
    _same(getattr(al, name)(6), getattr(torch, name)(6), "float32")
    previous = al.get_default_dtype()
    al.set_default_dtype(al.float64)
    try:
        assert getattr(al, name)(4).dtype is al.float64
    finally:
        al.set_default_dtype(previous)
    window = getattr(al, name)(3, requires_grad=True)
    assert window.requires_grad and window.is_leaf


def test_extra_parameters_match_torch():
    _same(al.hamming_window(5, False, 0.5, 0.3), torch.hamming_window(5, False, 0.5, 0.3), "float32")
    _same(al.hamming_window(7, True, alpha=0.6), torch.hamming_window(7, True, alpha=0.6), "float32")
    _same(al.kaiser_window(9, False, 8.0, dtype=al.float64), torch.kaiser_window(9, False, 8.0, dtype=torch.float64),
          "float64")
    _same(al.kaiser_window(6, beta=3.5), torch.kaiser_window(6, True, 3.5), "float32")


@pytest.mark.parametrize("name", WINDOWS)
def test_errors_match_torch(name):
    same_error(torch, lambda m: getattr(m, name)(-1), RuntimeError)
    same_error(torch, lambda m: getattr(m, name)(5.0), TypeError)
    same_error(torch, lambda m: getattr(m, name)(True), TypeError)
    with pytest.raises(RuntimeError) as ours:
        getattr(al, name)(5, dtype=al.int64)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(5, dtype=torch.int64)
    start = f"{name} expects floating point dtypes, got: TensorOptions(dtype=long int, device=cpu"
    assert str(ours.value).startswith(start) and str(theirs.value).startswith(start)
