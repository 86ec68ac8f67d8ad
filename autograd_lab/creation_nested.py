"""Reading nested sequences that hold tensors or NumPy arrays and scalars, as ``torch.tensor`` reads them.

``al.tensor([[1., 2.], [3., 4.]])`` is NumPy's job. Once a tensor or a NumPy value is among the items, PyTorch
reads the data its own way, and so does this module:

* **The shape comes from the first items.** Starting from the outer sequence, each level's length is read, then
  its first item is opened, for as long as that item is a list, a tuple or a NumPy array. A tensor stops the walk:
  in that position a tensor stands for *one number*.
* **Every item is then checked against that shape.** Where a sequence is expected, a list, a tuple, a NumPy array
  or a tensor of the right length is read item by item (an array or tensor that has exactly the shape still
  expected is copied whole). Where a number is expected, a tensor must hold one element (its value is read, as
  ``float(t)`` reads it: ``al.tensor([loss1, loss2])`` of two losses is a vector of two numbers), and a NumPy array
  must have no dims.
* **The dtype is PyTorch's promotion of the items' dtypes**: a tensor's or NumPy value's own dtype, a Python float
  the default dtype, an int int64, a bool bool. So ``[np.float64(1.5), 2.0]`` is float64 and ``[al.tensor(1), 2.5]``
  float32.

So ``al.tensor([al.ones(2), al.ones(2)])`` is PyTorch's error (two tensors of two numbers each cannot each be a
number), not a 2 x 2 tensor: use ``al.stack``.
"""

from __future__ import annotations

import numpy as np

from . import backend
from .tensor import Tensor

__all__ = ["holds_arrays", "read_nested"]

_SEQUENCES = (list, tuple, np.ndarray)
_NUMBERS = (bool, int, float, complex)


def holds_arrays(data) -> bool:
    """Whether nested lists/tuples ``data`` hold a tensor or a NumPy array or scalar (then PyTorch's reading)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if item.__class__ is list or item.__class__ is tuple:
            stack.extend(item)
        elif isinstance(item, (Tensor, np.ndarray, np.generic)):
            return True
    return False


def read_nested(data, dtype=None) -> np.ndarray:
    """The array PyTorch builds from ``data`` (the module docstring), in ``dtype`` if given, else the inferred one."""
    sizes = _sizes(data)
    integer = dtype is not None and dtype.np_dtype.kind in "iu"
    blocks: list = []  # (values, dtype) in row-major order: single numbers, or whole blocks of the last dims
    _read(data, 0, sizes, blocks, integer)
    if dtype is None:
        dtype = backend.get_default_dtype() if not blocks else blocks[0][1]
        for _, d in blocks[1:]:
            dtype = backend.promote_types(dtype, d)
    elif integer:
        for values, _ in blocks:
            backend.check_data(values, dtype)
    out = np.empty(sizes, dtype.np_dtype)
    flat, start = out.reshape(-1), 0
    for values, _ in blocks:  # (each value rounded once, into the result's dtype)
        flat[start:start + values.size] = values.reshape(-1)
        start += values.size
    return out


def _sizes(data) -> tuple:
    """The shape, read from the first item of each level (a tensor stops the walk: it stands for one number)."""
    sizes, item = [], data
    while isinstance(item, _SEQUENCES) and not (item.__class__ is np.ndarray and item.ndim == 0):
        sizes.append(len(item))
        if not len(item):
            break
        item = item[0]
    return tuple(sizes)


def _read(item, dim: int, sizes: tuple, blocks: list, integer: bool) -> None:
    """Append what ``item`` holds, in ``sizes[dim:]``, to ``blocks``; PyTorch's error where it does not fit.
    (``integer``: the result's dtype is an integer one, given by the caller.)"""
    if dim == len(sizes):
        blocks.append(_number(item, integer))
        return
    if isinstance(item, (Tensor, np.ndarray)):
        array = backend.to_host(item.detach()._data) if isinstance(item, Tensor) else item
        if array.shape == sizes[dim:]:  # the whole block at once (as PyTorch reads it number by number: _number)
            if integer and array.dtype.kind == "f":
                _check_index(item if isinstance(item, Tensor) else array.dtype.type(0))
            blocks.append((array, backend.from_np(array.dtype)))
            return
        if array.ndim == 0:
            raise TypeError("not a sequence")
        item = item if isinstance(item, Tensor) else array  # (read row by row below: sub-tensors, or NumPy rows)
    elif not isinstance(item, (list, tuple)):
        raise TypeError("not a sequence")
    if len(item) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(item)})")
    for sub in item:
        _read(sub, dim + 1, sizes, blocks, integer)


def _number(item, integer: bool) -> tuple:
    """One number, as PyTorch reads an item where the shape wants a number: ``(0-d array, dtype)``. A Python number
    keeps its full value (float64, int64) and counts as the dtype PyTorch infers for it. Into an integer dtype
    (``integer``), PyTorch reads a tensor as an index: it must be one integer."""
    if isinstance(item, Tensor):
        if integer:
            _check_index(item)
        if item.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars [autograd_lab] a tensor "
                             f"in the list (shape {list(item.shape)}) stands for one number here; to join tensors "
                             "into a bigger one use al.stack(tensors) or al.cat(tensors)")
        array = backend.to_host(item.detach()._data).reshape(())
        return array, backend.from_np(array.dtype)
    if isinstance(item, (np.ndarray, np.generic)):
        if item.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index" if integer else
                            "only 0-dimensional arrays can be converted to Python scalars")
        if integer:
            _check_index(item)
        return np.asarray(item), backend.from_np(item.dtype)
    if isinstance(item, _NUMBERS):
        values = np.asarray(item)
        return values, backend.from_np(values.dtype) if isinstance(item, complex) else backend.result_type(item)
    if isinstance(item, (list, tuple)):
        raise TypeError(f"must be real number, not {type(item).__name__}")
    if isinstance(item, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")


def _check_index(item) -> None:
    """Into an integer dtype PyTorch reads each number as an index (``__index__``): a tensor must hold one integer,
    and a NumPy float other than float64 (a Python float underneath, which PyTorch truncates) is refused."""
    if isinstance(item, Tensor):
        if item.is_floating_point() or item.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
    elif item.dtype.kind == "f" and item.dtype != np.float64:
        raise TypeError(f"'numpy.{item.dtype.name}' object cannot be interpreted as an integer")
