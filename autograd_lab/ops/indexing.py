"""Indexing: ``tensor[key]``.

Basic keys (ints, slices, ``None``, ``...``) are applied one dimension at a time as views, as PyTorch
records them: ``x[0, 1:3]`` is a ``SliceBackward0`` whose input comes from a ``SelectBackward0``.
Keys with integer arrays/tensors or boolean masks gather a copy (``IndexBackward0``); its gradient
scatters back with accumulation, so an index repeated k times receives k gradients.
"""

from __future__ import annotations

import operator

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._op import LINEAR, Op
from .shape import AliasBackward0, SliceBackward0, select, unsqueeze


class IndexBackward0(Op):
    """out = self[indices] with integer-array or mask indices (a copy)"""
    saves = ("indices", "self_sym_sizes")
    tensor_params = ("indices",)  # the index tensors are saved version-checked, as PyTorch does

    def forward(xp, self, *, indices):
        return self[indices]

    def d_self(grad, indices, self_sym_sizes):
        return formulas.call(IndexBackwardBackward0, grad, sizes=tuple(self_sym_sizes), indices=indices)

    jvp = LINEAR


class IndexBackwardBackward0(Op):
    """out = zeros(sizes) with ``self`` added at ``indices``, repeated indices accumulating"""
    saves = ("indices",)
    tensor_params = ("indices",)

    def forward(xp, self, *, sizes, indices):
        out = xp.zeros(sizes, dtype=self.dtype)
        xp.add.at(out, indices, self)
        return out

    def d_self(grad, indices):
        return formulas.call(IndexBackward0, grad, indices=indices)

    jvp = LINEAR


_NO_END = 2 ** 63 - 1  # the end PyTorch records for a slice written without one (x[1:])
_VALID_INDICES = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices"


def checked_key(key) -> tuple:
    """An index key as a tuple of items the indexing code takes, checked as PyTorch checks it: ints (NumPy's
    and 0-dim integer tensors become Python ints), slices, ``None``, ``...``, tensors, and sequences of
    numbers (made index arrays as PyTorch makes them: floats truncated to int64). Anything else is PyTorch's
    error, before any op runs."""
    key = key if isinstance(key, tuple) else (key,)
    return tuple(_checked_item(k) for k in key)


def _checked_item(k):
    if k is None or k is Ellipsis or k.__class__ in (int, bool, slice):
        return k
    if isinstance(k, Tensor):
        return int(k) if k.ndim == 0 and k._data.dtype.kind in "iu" else k
    if isinstance(k, backend.np.integer) or (isinstance(k, int) and not isinstance(k, bool)):
        return int(k)
    if not isinstance(k, backend.np.generic) and (
            isinstance(k, (list, range, backend.np.ndarray)) or hasattr(k, "__array_namespace__")):
        return _sequence_index(k)
    if isinstance(k, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(k).__name__}' [autograd_lab] an index is a number, a slice "
                        f"or a tensor of them, not the {type(k).__name__} {k!r}; a tensor has no named entries")
    name = type(k).__name__ if type(k).__module__ == "builtins" else f"{type(k).__module__}.{type(k).__name__}"
    advice = f"use int({k!r}) or round it first" if isinstance(k, (float, backend.np.floating)) else \
        "index with ints, slices, None, ... or integer/bool tensors"
    raise IndexError(f"{_VALID_INDICES} (got {name}) [autograd_lab] {advice}")


def _sequence_index(k):
    """A list (or array) in a key as PyTorch reads it: bools stay a mask, numbers become int64 (floats
    truncated toward zero); anything else is PyTorch's error."""
    if hasattr(k, "__array_namespace__") or isinstance(k, backend.np.ndarray):
        array = k
    else:
        try:
            array = backend.np.asarray(list(k))
        except ValueError:
            raise IndexError(f"{_VALID_INDICES} (got a ragged list) [autograd_lab] every row of a list index must "
                             "have the same length") from None
    kind = array.dtype.kind
    if kind in "US":
        raise TypeError(f"new(): invalid data type '{'str' if kind == 'U' else 'bytes'}' [autograd_lab] a list index "
                        "holds ints or bools")
    if kind not in "biuf":
        raise IndexError(f"{_VALID_INDICES} (got a list of {array.dtype}) [autograd_lab] a list index holds ints "
                         "or bools")
    return array if kind == "b" or array.dtype == backend.np.int64 else array.astype(backend.np.int64)


def _is_advanced(item) -> bool:
    return isinstance(item, (Tensor, list, bool)) or hasattr(item, "__array_namespace__") or \
        isinstance(item, backend.np.ndarray)


def _index_item(item, xp):
    """An item of an advanced index key as the op takes it: an index tensor of this device as it is (the op
    saves it version-checked), anything else as ``_to_array_index`` makes it."""
    if isinstance(item, Tensor) and item._data.dtype.kind in "iub" and backend.namespace_of(item._data) is xp:
        return item
    return _to_array_index(item, xp)


def _to_array_index(item, xp):
    if isinstance(item, Tensor):
        if item._data.dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors (got {item.dtype!r})")
        item = item._data
    if isinstance(item, list):
        return xp.asarray(item)
    if hasattr(item, "dtype") and backend.namespace_of(item) is not xp:  # a CPU index into a device tensor
        return xp.asarray(backend.to_host(item))
    return item


def _check_bounds(tensor: Tensor, key: tuple) -> None:
    """Raise PyTorch's IndexError for an out-of-range integer index before NumPy does. The message names
    the dimension as PyTorch's does: the index's position in the key (``None`` and ``...`` count one each)."""
    dim = 0  # the input's dim the next item indexes
    for position, item in enumerate(key):
        if item is None:
            continue
        if item is Ellipsis:
            dim = tensor.ndim - sum(1 for k in key[position + 1:] if k is not None)
            continue
        if isinstance(item, int) and not isinstance(item, bool):
            shape = tensor._data.shape
            size = shape[dim] if dim < len(shape) else 0
            if not -size <= item < size:
                raise _out_of_bounds(item, position, size)
        dim += 1


def _out_of_bounds(index: int, position: int, size: int) -> IndexError:
    return IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")


def _sliced(out: Tensor, dim: int, item: slice, size: int, bare_slice: bool) -> Tensor:
    """``out`` sliced by ``item`` along ``dim`` (of size ``size``): a ``SliceBackward0`` view, or ``out``
    itself where the slice takes the whole dim (``x[(slice(None),)]`` records no slice; ``x[:]`` does)."""
    start, stop, step = item.indices(size)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if (start, stop, step) == (0, size, 1) and not bare_slice:
        return out
    # (start and end saved as written, as PyTorch saves them: no start is 0, no end 2**63 - 1)
    start = 0 if item.start is None else operator.index(item.start)
    end = _NO_END if item.stop is None else operator.index(item.stop)
    return SliceBackward0.apply(out, dim=dim, start=start, end=end, step=step)


def getitem(tensor: Tensor, key):
    """``tensor[key]`` (see the module doc)."""
    bare_slice = isinstance(key, slice)  # x[:] records a slice; x[(slice(None),)] is an alias, as in PyTorch
    if not tensor._data.ndim and (key.__class__ is int or bare_slice):  # a 0-dim tensor: PyTorch's own words
        if bare_slice:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if key == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
    key = checked_key(key)
    n_dims = sum(1 for k in key if k is not None and k is not Ellipsis and not (
        isinstance(k, Tensor) and k.dtype is backend.bool_))
    if sum(1 for k in key if k is Ellipsis) > 1:  # identity, not ==: tensors in the key compare elementwise
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_dims > tensor.ndim and not any(_is_advanced(k) for k in key):
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim} (got {n_dims} indices)")
    if any(_is_advanced(k) for k in key):
        xp = backend.namespace_of(tensor._data)
        indices = tuple(_index_item(k, xp) for k in key)  # (a tuple even for one index: _saved_indices as PyTorch's)
        return IndexBackward0.apply(tensor, indices=indices)
    _check_bounds(tensor, key)
    return _basic(tensor, key, bare_slice)


def _basic(tensor: Tensor, key: tuple, bare_slice: bool = False) -> Tensor:
    """Apply ints, slices, None and ... one dimension at a time, each as a view."""
    out = tensor
    dim = 0
    applied = False
    for item in key:
        if item is Ellipsis:
            dim += tensor.ndim - sum(1 for k in key if k is not None and k is not Ellipsis)
        elif item is None:
            out = unsqueeze(out, dim)
            dim += 1
            applied = True
        elif isinstance(item, slice):
            sliced = _sliced(out, dim, item, out._data.shape[dim], bare_slice)
            applied = applied or sliced is not out
            out = sliced
            dim += 1
        else:
            out = select(out, dim, int(item))
            applied = True
    if not applied:
        out = AliasBackward0.apply(tensor)
    return out


Tensor.__getitem__ = getitem
