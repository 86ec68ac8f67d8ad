"""Whether an array's elements share memory: read from its shape and strides (a broadcast, overlapping windows).

In-place ops refuse to write into such an array (one write would land in several elements), a view of one cannot be
differentiated through in place, and a leaf's gradient laid out so is never kept as ``.grad``.
"""

from __future__ import annotations

from . import backend

__all__ = ["is_expanded", "overlaps_itself"]


def is_expanded(array) -> bool:
    """Whether several elements of ``array`` share memory (a broadcast: a zero stride over a dim longer than 1).
    An empty array has no elements to share anything (NumPy gives some of them zero strides)."""
    return array.size > 0 and any(st == 0 and n > 1 for st, n in zip(array.strides, array.shape))


def overlaps_itself(array) -> bool:
    """Whether several elements of ``array`` share memory: a broadcast (``is_expanded``), or windows that overlap
    (``unfold`` with a step smaller than its size, ``as_strided``). Read from the shape and strides alone: when the
    dims, taken from the smallest stride up, each step past all the memory the smaller ones span, no two elements
    meet; otherwise every element's offset is counted."""
    if array.size <= 1:
        return False
    if is_expanded(array):
        return True
    dims = sorted((abs(stride), n) for stride, n in zip(array.strides, array.shape) if n > 1)
    reach = 0  # the bytes spanned by the dims with smaller strides
    for stride, n in dims:
        if stride <= reach:
            break
        reach += stride * (n - 1)
    else:
        return False
    np = backend.np
    offsets = np.zeros((), dtype=np.int64)
    for stride, n in dims:
        offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * stride)
    return np.unique(offsets).size < offsets.size
