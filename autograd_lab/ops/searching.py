"""Searching and counting: nonzero, argwhere, count_nonzero, searchsorted, bucketize, unique.

Their results are integer (or index) tensors, so nothing here records a node or has a gradient, as in PyTorch
(``unique``'s values could carry one, but PyTorch does not differentiate it either). The differentiable sorting
ops are in :mod:`.sorting`.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from ._args import checked
from .reductions import _dims


def _array(value, like=None):
    """A tensor's array, or a Python number as a 0-dim array (of ``like``'s array library)."""
    if isinstance(value, Tensor):
        return value._data
    xp = backend.np if like is None else backend.namespace_of(like)
    return xp.asarray(value)


@checked
def nonzero(input, *, as_tuple=False):
    """The indices of the non-zero elements: one row per element (``(n, input.ndim)``), or with ``as_tuple`` one
    1-d tensor per dim (a 0-dim input counts as 1-d there, as in PyTorch)."""
    data = input._data
    xp = backend.namespace_of(data)
    if as_tuple:
        return tuple(Tensor._make(i.astype(xp.int64)) for i in xp.nonzero(data.reshape(-1) if data.ndim == 0 else data))
    return Tensor._make(xp.argwhere(data).astype(xp.int64))


@checked
def argwhere(input):
    """``nonzero(input)``: the indices of the non-zero elements, one row each."""
    return nonzero(input)


@checked
def count_nonzero(input, dim=None):
    """How many elements are non-zero, in all (a 0-dim int64 tensor) or along ``dim`` (an int or a tuple)."""
    data = input._data
    xp = backend.namespace_of(data)
    dims = None if dim is None else _dims(dim, input.ndim, "count_nonzero")
    return Tensor._make(xp.asarray(xp.count_nonzero(data, axis=dims), dtype=xp.int64))


def _side(name: str, right: bool, side) -> str:
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"{name}(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError(f"{name}(): side and right can't be set to opposites, got side of left while right was True")
    return side


@checked(kinds={"sorted_sequence": "Tensor", "input": "Tensor|Number", "out_int32": "bool", "right": "bool",
                "sorter": "Tensor?"})
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each value of ``input`` would go in ``sorted_sequence`` (along its last dim) to keep it sorted: the
    first such place, or the last with ``right=True`` / ``side='right'``. A sequence of several dims holds one
    sorted row per row of ``input`` (their leading dims must match); ``sorter`` gives the order of an unsorted one."""
    side = _side("torch.searchsorted", right, side)
    seq = sorted_sequence._data
    xp = backend.namespace_of(seq)
    values = _array(input, seq)
    if seq.ndim != 1 and seq.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} and input value "
            f"tensor {list(values.shape)}")
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter._data, axis=-1)
    dtype = xp.int32 if out_int32 else xp.int64
    if seq.ndim == 1:
        return Tensor._make(xp.asarray(xp.searchsorted(seq, values, side=side), dtype=dtype))
    rows, found = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    out = xp.stack([xp.searchsorted(r, v, side=side) for r, v in zip(rows, found)]) if rows.shape[0] else found
    return Tensor._make(out.reshape(values.shape).astype(dtype))


@checked(kinds={"input": "Tensor|Number", "boundaries": "Tensor", "out_int32": "bool", "right": "bool"})
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of ``input`` between the sorted 1-d ``boundaries``: ``i`` such that
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@checked(kinds={"sorted": "bool", "return_inverse": "bool", "return_counts": "bool", "dim": "int?"})
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002 - PyTorch's name
    """The distinct values of ``input`` (flattened), sorted (``sorted=False`` sorts them too: PyTorch leaves the
    order unspecified then); with ``return_inverse`` the index of each element's value among them (the input's
    shape), with ``return_counts`` how many times each occurs. Each NaN is a value of its own, as in PyTorch."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) is not supported [autograd_lab] only the distinct values of the "
                                  "flattened input: unique(input)")
    data = input._data
    xp = backend.namespace_of(data)
    values, inverse, counts = xp.unique(data.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
    out = (Tensor._make(values),)
    if return_inverse:
        out += (Tensor._make(inverse.reshape(data.shape).astype(xp.int64)),)
    if return_counts:
        out += (Tensor._make(counts.astype(xp.int64)),)
    return out if len(out) > 1 else out[0]


def _bind() -> None:
    for fn in (nonzero, argwhere, count_nonzero, unique):
        setattr(Tensor, fn.__name__, fn)


_bind()
