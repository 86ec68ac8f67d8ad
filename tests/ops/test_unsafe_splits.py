"""``split_with_sizes`` and the unsafe splits (``unsafe_split``, ``unsafe_chunk``, ``unsafe_split_with_sizes``): the
same pieces and gradients as ``split``, but, as in PyTorch, the unsafe pieces are not tracked as views: they share the
input's memory, have their own version counters and may be changed in place."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al

torch = pytest.importorskip("torch")

_VALUES = np.random.default_rng(2).standard_normal((4, 3))


def _joined(m, pieces, scale=1.0):
    return m.cat([p * (i + scale) for i, p in enumerate(pieces)], 1 if pieces[0].shape[0] == 4 else 0)


@pytest.mark.parametrize("split", [
    lambda m, a: a.split_with_sizes([1, 3]),
    lambda m, a: m.split_with_sizes(a, [1, 0, 2], 1),
    lambda m, a: a.unsafe_split(3, 0),
    lambda m, a: m.unsafe_split(a, 2, -1),
    lambda m, a: a.unsafe_chunk(3, 1),
    lambda m, a: m.unsafe_chunk(a, 2),
    lambda m, a: a.unsafe_split_with_sizes([2, 1], dim=1),
    lambda m, a: m.unsafe_split_with_sizes(a, [3, 1]),
])
def test_pieces_match_torch(split):
    """Values, the node name on each piece, and the gradients back to the input."""
    same_as_torch(torch, lambda m, a: _joined(m, split(m, a)), _VALUES)
    for m in (al, torch):
        names = {p.grad_fn.name() for p in split(m, m.tensor(_VALUES, requires_grad=True))}
        assert len(names) == 1
    assert names == {p.grad_fn.name() for p in split(al, al.tensor(_VALUES, requires_grad=True))}


@pytest.mark.parametrize("name, args", [("unsafe_split", (2,)), ("unsafe_chunk", (2,)),
                                        ("unsafe_split_with_sizes", ([1, 3],))])
def test_unsafe_pieces_share_memory_but_are_not_views(name, args):
    for m in (al, torch):
        x = m.tensor(_VALUES, requires_grad=True) * 1
        pieces = getattr(x, name)(*args)
        assert all(p._base is None and not p._is_view() for p in pieces)
        with m.no_grad():
            pieces[0].zero_()
        assert x[0].tolist() == [0.0, 0.0, 0.0]  # (written through the shared memory)
        assert x._version == 0 and pieces[0]._version == 1  # (each its own counter)


def test_an_unsafe_piece_may_be_changed_in_place_with_grad_on():
    def changed(m, a):
        x = a * 1
        first, second = x.unsafe_split(2)
        first.mul_(3)
        return m.cat([first, second])
    same_as_torch(torch, changed, _VALUES)


def test_a_split_piece_may_not_be_changed_in_place():
    same_error(torch, lambda m: (m.ones(4, requires_grad=True) * 1).split_with_sizes([2, 2])[0].mul_(2), RuntimeError)


def test_pieces_of_an_empty_dim():
    for m in (al, torch):
        pieces = m.zeros(0, 2, requires_grad=True).unsafe_chunk(2)
        assert [p.shape for p in pieces] == [(0, 2), (0, 2)]
        assert pieces[0].grad_fn.name() == "UnsafeSplitWithSizesBackward0"


@pytest.mark.parametrize("call, error", [
    (lambda m: m.ones(4, 3).split_with_sizes([-1, 5]), RuntimeError),
    (lambda m: m.ones(4, 3).split_with_sizes([1, 2]), RuntimeError),
    (lambda m: m.ones(4, 3).unsafe_split_with_sizes([1, 2]), RuntimeError),
    (lambda m: m.ones(4, 3).unsafe_split(0), RuntimeError),
    (lambda m: m.ones(4, 3).unsafe_chunk(0), RuntimeError),
    (lambda m: m.unsafe_split(m.ones(4, 3), [1, 3]), TypeError),
    (lambda m: m.ones(4, 3).unsafe_split(2, 3), IndexError),
])
def test_errors_match_torch(call, error):
    same_error(torch, call, error)
