"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode (differentiable in their
values); nonzero, argwhere, count_nonzero, searchsorted, bucketize, unique (integer results, no gradient).

The value-selecting ops find their indices first, on the arrays, then take the values with a
``_ValueSelecting`` op of :mod:`.reductions` (as ``max(dim)`` does): the gradient of each value goes back to the
element it came from, and nowhere else. ``median()`` and ``nanmedian()`` of all elements share the gradient
evenly among the elements equal to the result, as ``max()`` does.

Order: every sort here is stable (equal elements keep their order) and NaN sorts as the largest value, as PyTorch
documents for ``sort(stable=True)``. Where PyTorch leaves the choice among tied elements undocumented
(``stable=False``, ``topk``, ``kthvalue``), ours is the stable one, which PyTorch's own result may differ from.
"""

from __future__ import annotations

import operator
from collections import namedtuple

from .. import backend
from ..tensor import Tensor, _wrap_dim
from ._args import checked
from .reductions import _DimKept, _EvenlyDistributed, _ValueSelecting, select_values

SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])
KthvalueResult = namedtuple("kthvalue", ["values", "indices"])
MedianResult = namedtuple("median", ["values", "indices"])
NanmedianResult = namedtuple("nanmedian", ["values", "indices"])
ModeResult = namedtuple("mode", ["values", "indices"])


class SortBackward0(_DimKept):
    """sort(): the values in order along a dim (each value's gradient goes back to where it was)"""


class SortBackward1(_DimKept):
    """sort(stable=...): PyTorch's node for the overload that takes ``stable``"""


class TopkBackward0(_DimKept):
    """topk(): the k largest (or smallest) values along a dim"""


class KthvalueBackward0(_ValueSelecting):
    """kthvalue(): the k-th smallest value of each slice"""


class MedianBackward1(_ValueSelecting):
    """median(dim): the lower median of each slice (NaN if the slice has one)"""


class NanmedianBackward1(_ValueSelecting):
    """nanmedian(dim): the lower median of each slice's non-NaN values"""


class ModeBackward0(_ValueSelecting):
    """mode(): the most frequent value of each slice"""


def _lower_median(xp, flat, ignore_nan: bool):
    """The lower of the two middle values of a sorted 1-d array (NaN last); NaN if it has a NaN (``ignore_nan``: if it
    has only NaNs) or nothing."""
    kind = flat.dtype.kind
    nans = int(xp.isnan(flat).sum()) if kind in "fc" else 0
    n = flat.size - nans if ignore_nan else flat.size
    if n == 0:
        return xp.asarray(xp.nan if kind in "fc" else xp.iinfo(flat.dtype).min, dtype=flat.dtype)
    return flat[flat.size - 1] if nans and not ignore_nan else flat[(n - 1) // 2].copy()


class MedianBackward0(_EvenlyDistributed):
    """median(): the lower median of all elements (NaN if there is one); tied elements share the gradient"""

    def forward(xp, self):
        return xp.asarray(_lower_median(xp, xp.sort(self.reshape(-1)), ignore_nan=False))


class NanmedianBackward0(_EvenlyDistributed):
    """nanmedian(): the lower median of all non-NaN elements; tied elements share the gradient"""

    def forward(xp, self):
        return xp.asarray(_lower_median(xp, xp.sort(self.reshape(-1)), ignore_nan=True))


# -- finding the indices ------------------------------------------------------------------------
def _along(input, dim, name: str):
    """``(d, data, xp)``: ``dim`` wrapped, and the input's array (1-d for a 0-dim input, which has one dim 0)."""
    d = _wrap_dim(operator.index(dim), input.ndim, name)
    data = input._data if input.ndim else input._data.reshape(1)
    return d, data, backend.namespace_of(data)


def _order(xp, data, d: int, descending: bool):
    """The stable order of ``data`` along ``d`` (NaN largest). Descending: sort the reversed data ascending and
    reverse that, so equal elements still come in their original order."""
    if not descending:
        return xp.argsort(data, axis=d, kind="stable")
    flipped = xp.argsort(xp.flip(data, axis=d), axis=d, kind="stable")
    return data.shape[d] - 1 - xp.flip(flipped, axis=d)


def _first(order, d: int, k: int):
    """The first ``k`` positions of ``order`` along ``d``."""
    return order[(slice(None),) * d + (slice(0, k),)]


def _nonempty_dim(input, data, d: int, name: str) -> None:
    if input.ndim and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _middle(xp, data, d: int, ignore_nan: bool):
    """Per slice along ``d``, the position in the sorted order of its (nan)median: the lower middle; for median a
    slice with NaN gives its first NaN, for nanmedian an all-NaN slice its first element."""
    n = data.shape[d]
    nans = xp.isnan(data).sum(axis=d, keepdims=True) if data.dtype.kind in "fc" else xp.zeros((1,) * data.ndim, int)
    if ignore_nan:
        return xp.maximum((n - nans - 1) // 2, 0)
    return xp.where(nans > 0, n - nans, (n - 1) // 2)


# -- front-end functions ------------------------------------------------------------------------
@checked(kinds={"dim": "int", "descending": "bool", "stable": "bool?"})
def sort(input, dim=-1, descending=False, *, stable=None):
    """``(values, indices)`` of ``input`` sorted along ``dim``; stable, NaN as the largest value."""
    d, data, xp = _along(input, dim, "sort")
    cls = SortBackward0 if stable is None else SortBackward1
    return select_values(cls, input, d, _order(xp, data, d, descending), True, SortResult)


@checked(kinds={"dim": "int", "descending": "bool", "stable": "bool"})
def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``)."""
    d, data, xp = _along(input, dim, "argsort")
    order = _order(xp, data, d, descending)
    return Tensor._make(order.reshape(input.shape))


@checked
def msort(input):
    """``input`` sorted along its first dim (``sort(input, 0).values``)."""
    return sort(input, 0).values


@checked(kinds={"k": "int", "dim": "int", "largest": "bool", "sorted": "bool"})
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - PyTorch's name
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements along ``dim``, in order
    (``sorted=False`` gives them in order too; PyTorch leaves that order unspecified)."""
    d, data, xp = _along(input, dim, "topk")
    if input._data.dtype.kind == "b":
        raise RuntimeError(f"topk does not support bool dtypes on {input.device.type.upper()}")
    if not 0 <= k <= data.shape[d]:
        raise RuntimeError("selected index k out of range [autograd_lab] k must be at most the size of dim "
                           f"{d}, {data.shape[d]}")
    order = _order(xp, data, d, largest)
    return select_values(TopkBackward0, input, d, _first(order, d, k if input.ndim else 1), True, TopkResult)


@checked(kinds={"k": "int", "dim": "int"})
def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)`` of the ``k``-th smallest element (counting from 1) along ``dim``."""
    d, data, xp = _along(input, dim, "kthvalue")
    _nonempty_dim(input, data, d, "kthvalue")
    if not 1 <= k <= data.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} [autograd_lab] k counts "
                           f"from 1 to the size of that dim, {data.shape[d]}")
    order = _order(xp, data, d, False)
    return select_values(KthvalueBackward0, input, d, order[(slice(None),) * d + (slice(k - 1, k),)], keepdim,
                         KthvalueResult)


def _median(input, dim, keepdim, name, whole_cls, dim_cls, result_type):
    if dim is None:
        return whole_cls.apply(input)
    d, data, xp = _along(input, dim, name)
    _nonempty_dim(input, data, d, name)
    order = _order(xp, data, d, False)
    position = _middle(xp, data, d, ignore_nan=name == "nanmedian")
    indices = xp.take_along_axis(order, xp.broadcast_to(position, _first(order, d, 1).shape), axis=d)
    return select_values(dim_cls, input, d, indices, keepdim, result_type)


@checked(kinds={"dim": "int?"})
def median(input, dim=None, keepdim=False):
    """The lower of the two middle values of all elements (a tensor), or along ``dim`` as ``(values, indices)``
    with the index of that value in a stable sort. A NaN makes the median NaN (its index: the first NaN). Which of
    tied elements' index is returned PyTorch does not document (its CPU kernel gave the stable one in our checks)."""
    return _median(input, dim, keepdim, "median", MedianBackward0, MedianBackward1, MedianResult)


@checked(kinds={"dim": "int?"})
def nanmedian(input, dim=None, keepdim=False):
    """``median`` of the values that are not NaN (NaN where all are)."""
    return _median(input, dim, keepdim, "nanmedian", NanmedianBackward0, NanmedianBackward1, NanmedianResult)


@checked(kinds={"dim": "int"})
def mode(input, dim=-1, keepdim=False):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest among equally frequent ones) and
    the index of its last occurrence. PyTorch documents neither which index nor what NaN does: its CPU kernel gives
    the last occurrence on short slices (about a dozen elements, in our checks), not on longer ones. Each NaN counts
    once (NaN equals nothing), so a NaN is the mode only of a slice of NaNs (PyTorch's kernel, whose
    comparisons break on NaN, may give another value there)."""
    d, data, xp = _along(input, dim, "mode")
    _nonempty_dim(input, data, d, "mode")
    rows = xp.moveaxis(data, d, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picked = xp.empty(flat.shape[0], dtype=xp.int64)
    for r, row in enumerate(flat):  # one slice at a time: the count of each distinct value
        values, counts = xp.unique(row, return_counts=True, equal_nan=False)
        value = values[int(xp.argmax(counts))]
        picked[r] = xp.nonzero(xp.isnan(row) if value != value else row == value)[0][-1]
    indices = xp.moveaxis(picked.reshape(rows.shape[:-1] + (1,)), -1, d)
    return select_values(ModeBackward0, input, d, indices, keepdim, ModeResult)


def _bind() -> None:
    for fn in (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode):
        setattr(Tensor, fn.__name__, fn)


_bind()
