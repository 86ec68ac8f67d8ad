"""Bitwise ops (ops/bitwise.py) and comparisons written in place (ops/comparison_inplace.py) against PyTorch: values,
promotion and dtypes, shifts past the width, operators (reflected and in-place), version counters, the nodes
recorded (zero gradients) and PyTorch's errors."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch")

A, B = [5, -3, 12, 0, 127], [3, 1, 2, 7, 1]
CALLS = {
    "and": lambda m, a, b: m.bitwise_and(a, b), "or": lambda m, a, b: m.bitwise_or(a, b),
    "xor": lambda m, a, b: m.bitwise_xor(a, b), "not": lambda m, a, b: m.bitwise_not(a),
    "left_shift": lambda m, a, b: m.bitwise_left_shift(a, b), "right_shift": lambda m, a, b: m.bitwise_right_shift(a, b),
    "and_number": lambda m, a, b: m.bitwise_and(a, 6), "or_big_number": lambda m, a, b: a.bitwise_or(300),
    "operators": lambda m, a, b: (a & b) | (a ^ 3) | (~a) | (a << b) | (a >> 1),
    "reflected": lambda m, a, b: (6 & a) + (1 | a) + (2 ^ a) + (1 << b) + (64 >> b),
    "shift_past_width": lambda m, a, b: (a << (b * 10)) + (a >> (b * 10)) + (a << -b) * 3,
    "broadcast": lambda m, a, b: a.reshape(-1, 1) & b,
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_dtypes_match_torch(name, dtype):
    values = [(np.array(A) % 2 == 1, np.array(B) % 2 == 1) if dtype == "bool" else (np.array(A), np.array(B))][0]
    if dtype == "uint8":
        values = (np.abs(values[0]), values[1])
    results = []
    for m in (al, torch):
        a, b = (m.tensor(v, dtype=getattr(m, dtype)) for v in values)
        try:
            results.append(CALLS[name](m, a, b))
        except (RuntimeError, TypeError, NotImplementedError) as exc:
            results.append(type(exc))
    ours, theirs = results
    if isinstance(theirs, type):
        assert ours is theirs
        return
    assert str(ours.dtype)[3:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["and", "or", "xor", "left_shift", "right_shift", "not"])
def test_in_place_forms_and_operators_write_into_the_tensor(name):
    method = f"bitwise_{name}_"
    for m in (al, torch):
        a, b = m.tensor(A), m.tensor(B)
        out = getattr(a, method)() if name == "not" else getattr(a, method)(b)
        assert out is a and a._version == 1
    ours, theirs = al.tensor(A), torch.tensor(A)
    for x, y in ((ours, al.tensor(B)), (theirs, torch.tensor(B))):
        x &= y + 8
        x |= 2
        x ^= y
        x <<= 2
        x >>= y
    assert ours.tolist() == theirs.tolist() and ours._version == 5


BAD = {
    "float_and": (lambda m: m.bitwise_and(m.tensor([1.0]), m.tensor([1])), NotImplementedError),
    "float_not": (lambda m: m.bitwise_not(m.tensor([1.0])), NotImplementedError),
    "float_shift": (lambda m: m.tensor([1.0]) << 1, NotImplementedError),
    "shift_by_float": (lambda m: m.tensor([1]) << 1.5, NotImplementedError),
    "and_float_number": (lambda m: m.bitwise_and(m.tensor([1]), 1.5), NotImplementedError),
    "invert_float": (lambda m: ~m.tensor([1.0]), TypeError),
    "float_operator": (lambda m: m.tensor([1.0]) & m.tensor([1.0]), NotImplementedError),
    "in_place_broadcast": (lambda m: m.tensor([1, 2]).lt_(m.ones(2, 2)), RuntimeError),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_torchs_error(name):
    fn, error = BAD[name]
    same_error(torch, fn, error)


COMPARISONS = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
               "not_equal_"]


@pytest.mark.parametrize("name", COMPARISONS)
@pytest.mark.parametrize("other", ["number", "tensor"])
def test_comparisons_in_place_match_torch(name, other):
    results = []
    for m in (al, torch):
        leaf = m.tensor([1.0, 2, 3], requires_grad=True)
        x = leaf * 1
        rhs = 2.0 if other == "number" else m.tensor([2.0, 2.5, 3], requires_grad=True)
        assert getattr(x, name)(rhs) is x and x._version == 1
        x.sum().backward()
        results.append((x.tolist(), str(x.dtype).split(".")[-1], type(x.grad_fn).__name__, leaf.grad.tolist()))
        integers = m.tensor([1, 2, 3])
        getattr(integers, name)(1.5 if other == "number" else m.tensor([1, 5, 3]))
        results.append((integers.tolist(), str(integers.dtype).split(".")[-1]))
    assert results[:2] == results[2:]


@pytest.mark.parametrize("name", ["logical_and_", "logical_or_", "logical_xor_", "logical_not_"])
def test_logical_in_place_match_torch(name):
    results = []
    for m in (al, torch):
        for dtype in (m.float32, m.int64, m.bool):
            x = m.tensor([1, 2, 0, 0], dtype=dtype)
            out = getattr(x, name)() if name == "logical_not_" else getattr(x, name)(m.tensor([0, 1, 1, 0]))
            assert out is x and x._version == 1
            results.append((x.tolist(), str(x.dtype).split(".")[-1]))
        x = m.tensor([1.0, 2, 0], requires_grad=True) * 1
        getattr(x, name)() if name == "logical_not_" else getattr(x, name)(m.tensor([0.0, 1, 1]))
        results.append(type(x.grad_fn).__name__)  # (PyTorch keeps the old history: MulBackward0)
    assert results[:4] == results[4:]


def test_method_aliases_square_and_absolute_match_torch():
    for name in ("not_equal", "greater_equal", "less_equal", "greater", "less"):
        assert getattr(al.tensor(A), name)(2).tolist() == getattr(torch.tensor(A), name)(2).tolist()
    for m in (al, torch):
        x = m.tensor([-1.5, 2.0], requires_grad=True)
        y = x * 1
        assert y.square_() is y and y.tolist() == [2.25, 4.0] and type(y.grad_fn).__name__ == "PowBackward0"
        z = x * 1
        assert z.absolute_() is z and z.tolist() == [1.5, 2.0] and type(z.grad_fn).__name__ == "AbsBackward0"
        assert x.absolute().tolist() == [1.5, 2.0] and m.absolute(x).tolist() == [1.5, 2.0]


@pytest.mark.parametrize("other", [np.array([1, 1, 3]), np.int64(4), np.int32(1)], ids=["array", "int64", "int32"])
@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift],
                         ids=["and", "or", "xor", "lshift", "rshift"])
def test_numpy_operands_count_as_tensors_and_numbers(op, other):
    """``t & np.array(...)`` gives a tensor as in PyTorch (NumPy arrays act as tensors, NumPy scalars as numbers)."""
    ours = op(al.tensor([1, 2, 3]), other)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (torch's own __array_wrap__ signature, under NumPy 2)
        theirs = op(torch.tensor([1, 2, 3]), other)
    assert isinstance(ours, al.Tensor) and ours.tolist() == theirs.tolist() and str(ours.dtype)[3:] == str(theirs.dtype)[6:]
