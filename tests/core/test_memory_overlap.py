"""Which arrays have elements that share memory (``layout.overlaps_itself``): in-place writes into them
are refused, since ours compute out of place and copy back. Checked against counting every element's offset."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_lab.layout import overlaps_itself

_BASE = np.zeros(64)


@st.composite
def _strided(draw):
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    steps = tuple(draw(st.integers(-4, 6)) for _ in range(ndim))
    start = sum(-s * (n - 1) for s, n in zip(steps, shape) if s < 0)  # (room for the negative steps)
    view = np.lib.stride_tricks.as_strided(_BASE[start:], shape, tuple(s * _BASE.itemsize for s in steps))
    return view, shape, steps


@given(_strided())
@settings(max_examples=400, deadline=None)
def test_agrees_with_counting_every_offset(case):
    view, shape, steps = case
    offsets = [sum(i * s for i, s in zip(index, steps)) for index in np.ndindex(*shape)]
    assert overlaps_itself(view) == (len(set(offsets)) < len(offsets))


def test_common_layouts():
    a = np.arange(12.0).reshape(3, 4)
    assert not overlaps_itself(a) and not overlaps_itself(a.T) and not overlaps_itself(a[:, ::2])
    assert overlaps_itself(np.broadcast_to(a[:1], (3, 4)))
    assert overlaps_itself(np.lib.stride_tricks.sliding_window_view(np.arange(5.0), 2))
    assert not overlaps_itself(np.lib.stride_tricks.sliding_window_view(np.arange(5.0), 2)[::2])
    assert not overlaps_itself(np.zeros((0, 3))) and not overlaps_itself(np.zeros(()))
