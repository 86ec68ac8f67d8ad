"""``fill_diagonal_``: the main diagonal (``wrap`` continuing it down a tall matrix), its history (``CopySlices``),
version and gradient, and its errors, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 3), (7, 3), (3, 7), (4, 3), (5, 3), (11, 3), (2, 2, 2), (3, 3, 3, 3), (1, 1)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_matches_torch(shape, wrap):
    values = np.random.default_rng(3).standard_normal(shape)

    def filled(m, a):
        out = a * 1
        assert out.fill_diagonal_(5.0, wrap=wrap) is out
        return out
    ours = same_as_torch(torch, filled, values)
    theirs = torch.tensor(values).fill_diagonal_(5.0, wrap=wrap)
    assert ours._version == theirs._version


def test_fill_diagonal_of_a_transposed_matrix_matches_torch():
    same_as_torch(torch, lambda m, a: (a * 1).t().fill_diagonal_(-1.0), np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("dtype, value", [("int64", 1.5), ("int64", 3), ("bool", True), ("float32", 2)])
def test_fill_diagonal_converts_the_value_as_torch(dtype, value):
    ours = al.zeros(3, 3, dtype=getattr(al, dtype)).fill_diagonal_(value)
    theirs = torch.zeros(3, 3, dtype=getattr(torch, dtype)).fill_diagonal_(value)
    assert ours.tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype).split(".")[-1]


def test_fill_diagonal_takes_a_0_dim_tensor_as_a_number():
    """PyTorch reads the value as a Scalar: a plain tensor of one value is read, one that requires grad refused."""
    for m in (al, torch):
        assert m.zeros(2, 2).fill_diagonal_(m.tensor(2.0)).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    same_error(torch, lambda m: m.zeros(2, 2).fill_diagonal_(m.tensor(2.0, requires_grad=True)), TypeError)


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).fill_diagonal_(1),
    lambda m: m.zeros(2, 3, 2).fill_diagonal_(1),
    lambda m: m.zeros(2, 2, requires_grad=True).fill_diagonal_(1),
])
def test_fill_diagonal_errors_match_torch(call):
    same_error(torch, call, RuntimeError)


def test_wrap_on_a_transposed_tall_matrix_fills_the_same_places_as_on_a_contiguous_one():
    """PyTorch's wrap steps through memory, which for a non-contiguous matrix reaches other places (or past the end);
    here the positions are counted in row-major order, as for a contiguous matrix."""
    wide = al.zeros(3, 11)
    wide.t().fill_diagonal_(1.0, wrap=True)
    assert wide.t().tolist() == al.zeros(11, 3).fill_diagonal_(1.0, wrap=True).tolist()
