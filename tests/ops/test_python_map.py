"""``apply_``, ``map_`` and ``map2_``: a Python callable per element, written in place, with PyTorch's conversions of
its results and its errors; the version bump (which PyTorch leaves out) makes a stale saved tensor an error."""

from __future__ import annotations

import pytest
from _torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch")


def _both(build):
    """``build(m)`` for autograd_lab and torch: the same values, dtype and shape."""
    ours, theirs = build(al), build(torch)
    assert ours.tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype).split(".")[-1]
    return ours


@pytest.mark.parametrize("values, dtype, fn", [
    ([1.0, 2.5, -3.0], "float32", lambda v: v * 2),
    ([1.0, 2.5, -3.0], "float64", lambda v: int(v)),
    ([1, 2, -3], "int64", lambda v: v * 2.7),
    ([1, 2], "uint8", lambda v: -1),
    ([True, False], "bool", lambda v: 2),
    ([[1, 2], [3, 4]], "int32", lambda v: v + 1),
])
def test_apply_converts_results_as_torch(values, dtype, fn):
    def applied(m):
        x = m.tensor(values, dtype=getattr(m, dtype))
        assert x.apply_(fn) is x
        return x
    _both(applied)


def test_apply_gives_python_numbers_of_the_dtype_kind():
    for m in (al, torch):
        seen = []

        def record(v, seen=seen):
            seen.append(type(v))
            return v
        for values in ([1], [True], [1.5]):
            m.tensor(values).apply_(record)
        assert seen == [int, bool, float]


def test_apply_writes_through_views_in_their_order():
    def applied(m):
        base = m.zeros(2, 3)
        counter = iter(range(100))
        base.t().apply_(lambda v: next(counter))
        return base
    _both(applied)


def test_map_and_map2_broadcast_the_other_tensors():
    _both(lambda m: m.tensor([1.0, 2, 3]).map_(m.tensor([10.0, 20, 30]), lambda a, b: a + b))
    _both(lambda m: m.tensor([[1.0, 2, 3]] * 2).map_(m.tensor([10.0]), lambda a, b: a * b))
    _both(lambda m: m.tensor([1.0, 2, 3]).map2_(m.tensor([10.0, 20, 30]), m.tensor([2.0]), lambda a, b, c: a + b * c))


def test_the_version_is_bumped_so_a_stale_saved_tensor_is_caught():
    """PyTorch leaves ``_version`` as it was; here it is bumped, so the gradient is never computed from new values."""
    w = al.tensor([1.0, 2.0])
    x = al.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    w.apply_(lambda v: v * 10)
    assert w._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("call, error", [
    (lambda m: m.ones(2, requires_grad=True).apply_(lambda v: v), RuntimeError),
    (lambda m: (m.ones(2, requires_grad=True) * 1).apply_(lambda v: v), RuntimeError),
    (lambda m: m.ones(2, requires_grad=True).map_(m.ones(2), lambda a, b: a), RuntimeError),
    (lambda m: m.ones(2).map_(m.ones(2, requires_grad=True), lambda a, b: a), RuntimeError),
    (lambda m: m.ones(2).map2_(m.ones(2, requires_grad=True), m.ones(2), lambda a, b, c: a), RuntimeError),
    (lambda m: m.ones(3).map_(m.ones(2), lambda a, b: a), RuntimeError),
    (lambda m: m.ones(3).map_(m.ones(3, dtype=m.int64), lambda a, b: a), TypeError),
    (lambda m: m.ones(3).apply_(lambda v: "s"), TypeError),
    (lambda m: m.ones(3).apply_(lambda v: None), TypeError),
    (lambda m: m.ones(3, dtype=m.int64).apply_(lambda v: 2 ** 70), ValueError),
])
def test_errors_match_torch(call, error):
    same_error(torch, call, error)
