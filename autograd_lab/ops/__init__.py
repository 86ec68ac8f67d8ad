"""Differentiable ops, one file per family; each op's forward stands beside its derivative.

Importing this package binds the ops to :class:`~autograd_lab.tensor.Tensor` as methods and operators.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import fill, indexing, inplace, linalg, pointwise, reductions, shape  # noqa: F401  (binds methods)
from .pointwise import ToCopyBackward0


def to(self: Tensor, *args, dtype=None, device=None, copy: bool = False, non_blocking: bool = False) -> Tensor:
    """Convert to another dtype and/or device: ``t.to(al.float64)``, ``t.to('cpu')``, ``t.to(other)``."""
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (backend.dtype, type)) or (isinstance(arg, str) and arg in backend._BY_NAME):
            dtype = arg
        else:
            device = arg
    result = self
    if device is not None and backend.device(device) != self.device:
        raise RuntimeError(
            f"cannot move a tensor from {self.device} to {backend.device(device)}: only the cpu device is available "
            "(the CUDA backend needs CuPy and an NVIDIA GPU)"
        )
    if dtype is not None:
        target = backend.to_dtype(dtype)
        if target.np_dtype != self._data.dtype:
            result = ToCopyBackward0.apply(self, dtype=target.np_dtype)
    if copy and result is self:
        result = self.clone()
    return result


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
Tensor.type_as = lambda self, other: to(self, other.dtype)
