"""``tensor[key]`` with ints and slices: the values NumPy gives, one view node per key item as PyTorch records
them, and the gradient landing where the values were read; on random shapes and keys."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

import autograd_lab as al

_bounds = st.one_of(st.none(), st.integers(-6, 6))


@st.composite
def _int_and_slice_keys(draw):
    """A shape and a key of ints (in range) and slices (any bounds, positive or no step)."""
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    key = []
    for size in shape[:draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            key.append(slice(draw(_bounds), draw(_bounds), draw(st.one_of(st.none(), st.integers(1, 3)))))
    bare = len(key) == 1 and isinstance(key[0], slice) and draw(st.booleans())
    return shape, key[0] if bare else tuple(key)


@settings(max_examples=150, deadline=None)
@given(case=_int_and_slice_keys())
def test_int_and_slice_keys_read_and_differentiate_as_numpy_says(case):
    shape, key = case
    array = np.arange(float(np.prod(shape))).reshape(shape)
    x = al.tensor(array, requires_grad=True)
    out = x[key]
    np.testing.assert_array_equal(out.detach().numpy(), array[key])
    assert out._base is x and np.shares_memory(out._data, x._data) or out.numel() == 0
    if out.numel():
        weights = np.arange(1.0, out.numel() + 1).reshape(out.shape)
        (out * al.tensor(weights)).sum().backward()
        expected = np.zeros(shape)
        expected[key] = weights
        np.testing.assert_array_equal(x.grad.numpy(), expected)
