"""isin, isclose (and allclose, which agrees with it), is_nonzero, is_same_size, is_complex, is_signed and
unique_consecutive (ops/predicates.py) against PyTorch: values, dtypes, shapes, PyTorch's errors; hypothesis
properties of isclose/allclose and of unique_consecutive."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from ops._torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

NAN, INF = float("nan"), float("inf")

CASES = {
    "isin": lambda m: m.isin(m.tensor([1, 2, 3, 2]), m.tensor([2, 5])),
    "isin invert": lambda m: m.isin(m.tensor([[1, 2], [3, 2]]), m.tensor([2, 5]), invert=True),
    "isin number element": lambda m: m.isin(2, m.tensor([2, 5])),
    "isin number test": lambda m: m.isin(m.tensor([1, 2, 3]), 2),
    "isin floats and ints": lambda m: m.isin(m.tensor([1.0, 2.5]), m.tensor([1, 2])),
    "isin nan": lambda m: m.isin(m.tensor([NAN, 1.0]), m.tensor([NAN, 1.0])),
    "isin assume_unique": lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([3, 1]), assume_unique=True),
    "isclose": lambda m: m.isclose(m.tensor([1.0, NAN, INF, 1e10, 0.0, -INF]),
                                   m.tensor([1.00001, NAN, INF, 1.00001e10, 1e-9, INF])),
    "isclose equal_nan": lambda m: m.tensor([1.0, NAN, NAN]).isclose(m.tensor([1.0, NAN, 2.0]), equal_nan=True),
    "isclose broadcast": lambda m: m.isclose(m.tensor([[1.0], [2.0]]), m.tensor([1.0, 1.0 + 1e-6, 2.0])),
    "isclose tolerances": lambda m: m.isclose(m.tensor([1.0, 1.5]), m.tensor([1.2, 1.0]), rtol=0.1, atol=0.1),
    "isclose integers": lambda m: m.isclose(m.tensor([100, 2]), m.tensor([101, 3]), rtol=0.05),
    "isclose integers exact": lambda m: m.isclose(m.tensor([1, 2]), m.tensor([1, 3]), rtol=0, atol=0),
    "isclose bool": lambda m: m.isclose(m.tensor([True, False]), m.tensor([True, True])),
    "isclose large integers exact": lambda m: m.isclose(m.tensor([2**62, 2**25]), m.tensor([2**62 + 1, 2**25 + 1]),
                                                        rtol=0, atol=0),
    "isclose integers in float32": lambda m: m.isclose(m.tensor([2**25, 7]), m.tensor([2**25 + 1, 8]), rtol=0,
                                                       atol=0.5),
    "isclose bool tolerance": lambda m: m.isclose(m.tensor([True, False]), m.tensor([False, False]), atol=1.0),
    "isclose float32": lambda m: m.isclose(m.tensor([1.0, 2.0]), m.tensor([1.0 + 1e-7, 2.1])),
    "unique_consecutive": lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
    "unique_consecutive all": lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                                             return_counts=True),
    "unique_consecutive 2-d flat": lambda m: m.tensor([[1, 1, 2], [2, 2, 3]]).unique_consecutive(return_inverse=True),
    "unique_consecutive counts": lambda m: m.tensor([0.5, 0.5, 0.5]).unique_consecutive(return_counts=True),
    "unique_consecutive dim 0": lambda m: m.unique_consecutive(m.tensor([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]]),
                                                               return_inverse=True, return_counts=True, dim=0),
    "unique_consecutive dim -1": lambda m: m.unique_consecutive(m.tensor([[1, 1, 2], [1, 1, 2]]), return_inverse=True,
                                                                return_counts=True, dim=-1),
    "unique_consecutive empty": lambda m: m.unique_consecutive(m.tensor([]), return_inverse=True, return_counts=True),
    "unique_consecutive 0-dim": lambda m: m.unique_consecutive(m.tensor(3), return_inverse=True, return_counts=True),
    "unique_consecutive nan": lambda m: m.unique_consecutive(m.tensor([NAN, NAN, 1.0, 1.0])),
    "unique_consecutive empty dim": lambda m: m.unique_consecutive(m.zeros(0, 3), return_inverse=True,
                                                                   return_counts=True, dim=0),
    "unique_consecutive empty 1-d dim": lambda m: m.unique_consecutive(m.tensor([]), return_inverse=True, dim=-1),
}


def _described(result):
    results = result if isinstance(result, tuple) else (result,)
    return [(str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.tolist()).tolist()) for r in results]


@pytest.mark.parametrize("name", CASES)
def test_results_match_torch(name):
    ours, theirs = _described(CASES[name](al)), _described(CASES[name](torch))
    assert repr(ours) == repr(theirs)  # (repr: NaN compares equal to itself in it)


def test_questions_about_tensors_match_torch():
    for m in (al, torch):
        ones = m.ones(2, 3)
        assert m.is_nonzero(m.tensor([0.5])) and not m.tensor(0).is_nonzero() and m.is_nonzero(m.tensor(NAN))
        assert m.is_same_size(ones, m.zeros(2, 3)) and not ones.is_same_size(m.zeros(3, 2))
        assert not m.is_complex(ones) and not ones.is_complex()
        signed = [m.ones(1, dtype=d).is_signed() for d in (m.uint8, m.int8, m.bool, m.float16, m.int64, m.float32)]
        assert signed == [False, True, False, True, True, True] and m.is_signed(ones)


def test_unique_consecutive_of_a_tensor_that_requires_grad_records_a_node_without_a_derivative():
    def run(m):
        x = m.tensor([1.0, 1.0, 2.0], requires_grad=True)
        out = m.unique_consecutive(x)
        assert type(out.grad_fn).__name__ == "UniqueConsecutiveBackward0"
        with m.no_grad():
            assert m.unique_consecutive(x).grad_fn is None
        out.sum().backward()
    same_error(torch, run, NotImplementedError)


def test_allclose_agrees_with_isclose_and_torch():
    a, b = [1.0, NAN, INF, 1e10], [1.00001, NAN, INF, 1.00001e10]
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 1e-4}):
        for m in (al, torch):
            x, y = m.tensor(a), m.tensor(b)
            assert m.allclose(x, y, **kwargs) == bool(m.isclose(x, y, **kwargs).all())
        assert al.allclose(al.tensor(a), al.tensor(b), **kwargs) == torch.allclose(torch.tensor(a), torch.tensor(b), **kwargs)


_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=60, deadline=None)
@given(a=arrays(np.float64, 6, elements=_FLOATS), b=arrays(np.float64, 6, elements=_FLOATS),
       rtol=st.sampled_from([0.0, 1e-5, 0.1]), atol=st.sampled_from([0.0, 1e-8, 1.0]), equal_nan=st.booleans())
def test_isclose_and_allclose_agree_with_torch_on_any_floats(a, b, rtol, atol, equal_nan):
    ours = al.isclose(al.tensor(a), al.tensor(b), rtol, atol, equal_nan)
    theirs = torch.isclose(torch.tensor(a), torch.tensor(b), rtol, atol, equal_nan)
    assert ours.tolist() == theirs.tolist()
    assert al.allclose(al.tensor(a), al.tensor(b), rtol, atol, equal_nan) == bool(theirs.all())


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 3), max_size=12))
def test_unique_consecutive_rebuilds_its_input(values):
    x = al.tensor(values, dtype=al.int64)
    out, inverse, counts = al.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert out[inverse].tolist() == values and counts.sum().item() == len(values)
    assert al.repeat_interleave(out, counts).tolist() == values
    assert all(a != b for a, b in zip(out.tolist(), out.tolist()[1:]))


ERRORS = [
    (lambda m: m.unique_consecutive(m.tensor(3), dim=0), IndexError),
    (lambda m: m.unique_consecutive(m.tensor(3), dim=-1), IndexError),
    (lambda m: m.unique_consecutive(m.zeros(0, 3), dim=1), RuntimeError),
    (lambda m: m.unique_consecutive(m.zeros(0, 0), dim=0), RuntimeError),
    (lambda m: m.isclose(m.ones(2), m.ones(2), rtol=NAN), RuntimeError),
    (lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1.0), RuntimeError),
    (lambda m: m.isin(1, 2), TypeError),
    (lambda m: m.isin(m.tensor([True]), m.tensor([True])), RuntimeError),
    (lambda m: m.isclose(m.tensor([1, 2]), m.tensor([1.0, 2.0])), RuntimeError),
    (lambda m: m.allclose(m.tensor([1, 2]), m.tensor([1.0, 2.0])), RuntimeError),
    (lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1), RuntimeError),
    (lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1), RuntimeError),
    (lambda m: m.isclose(m.ones(2), 1.0), TypeError),
    (lambda m: m.is_nonzero(m.tensor([1, 2])), RuntimeError),
    (lambda m: m.is_nonzero(m.tensor([])), RuntimeError),
    (lambda m: m.unique_consecutive(m.ones(2, 3), dim=2), IndexError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
