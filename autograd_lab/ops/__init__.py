"""Differentiable ops, one file per family; each op's forward stands beside its derivative.

Importing this package binds the ops to :class:`~autograd_lab.tensor.Tensor` as methods and operators.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import (  # noqa: F401  (importing a family binds its Tensor methods)
    arithmetic,
    bitwise,
    clamp_bounds,
    comparison,
    comparison_inplace,
    conjugation,
    cumulative,
    fill,
    index_writes,
    indexing,
    inplace,
    join,
    join_more,
    linalg,
    linalg_decomp,
    linalg_lu,
    linalg_more,
    nan_reductions,
    norm,
    pointwise,
    pointwise_binary,
    pointwise_math,
    pointwise_more,
    predicates,
    products_more,
    put_renorm,
    python_map,
    random_sampling,
    reductions,
    scatter_gather,
    scatter_more,
    searching,
    shape,
    sorting,
    split,
    statistics,
    triangles,
    variance,
    views_more,
)
from ._args import checked
from .pointwise import ToCopyBackward0


def to(self: Tensor, *args, dtype=None, device=None, copy: bool = False, non_blocking: bool = False) -> Tensor:
    """Convert to another dtype and/or device: ``t.to(al.float64)``, ``t.to('cuda')``, ``t.to(other)``.

    Differentiable (``ToCopyBackward0``): the gradient of a copy to another device goes back to this one.
    """
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (backend.dtype, type)) or (isinstance(arg, str) and arg in backend._BY_NAME):
            dtype = arg
        else:
            device = arg
    target_dtype = None
    if dtype is not None:
        target = backend.to_dtype(dtype).np_dtype
        target_dtype = target if target != self._data.dtype else None
    source = self.device
    target_device = None
    if device is not None:
        target_device = backend.resolve_device(device)
        if target_device == source:
            target_device = None
    if target_dtype is None and target_device is None:
        return self.clone() if copy else self
    return ToCopyBackward0.apply(self, dtype=target_dtype, device=target_device,
                                 source=source if target_device is not None else None)


def _cuda(self: Tensor, device=None, non_blocking: bool = False) -> Tensor:
    """A copy on a CUDA device (this tensor itself when it is there already)."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = backend.device("cuda", device)
    return to(self, device=device, non_blocking=non_blocking)


def _conversion(dtype):
    return lambda self: to(self, dtype)


def _type(self, dtype=None):
    if dtype is None:
        return f"al.{self.dtype._legacy_name}"
    if isinstance(dtype, str) and dtype.startswith(("al.", "autograd_lab.")):
        names = {d._legacy_name: d for d in backend._ALL}
        return to(self, names[dtype.split(".")[-1]])
    return to(self, dtype)


Tensor.to = to
Tensor.type = _type
Tensor.float = _conversion(backend.float32)
Tensor.double = _conversion(backend.float64)
Tensor.half = _conversion(backend.float16)
Tensor.long = _conversion(backend.int64)
Tensor.int = _conversion(backend.int32)
Tensor.short = _conversion(backend.int16)
Tensor.bool = _conversion(backend.bool_)
Tensor.byte = _conversion(backend.uint8)
Tensor.cpu = lambda self: to(self, "cpu")
Tensor.cuda = _cuda
Tensor.type_as = checked(lambda self, other: to(self, other.dtype), name="type_as", kinds={"other": "Tensor"})
