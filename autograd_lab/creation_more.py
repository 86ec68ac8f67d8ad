"""More ways to make a tensor: ``asarray`` (sharing memory where it can), ``scalar_tensor`` and
``empty_strided`` / ``Tensor.new_empty_strided`` (a tensor laid out with the strides asked for).

``asarray`` follows PyTorch 2.13: a tensor is returned as it is unless ``dtype``, ``device`` or ``copy=True``
ask for another one (then converted or copied, the copy differentiable); a NumPy array or a buffer is shared
unless a copy is asked for or needed; ``copy=False`` refuses to copy. ``requires_grad`` given sets the flag of
the tensor returned, which may be ``obj`` itself (PyTorch changes it there too: ``asarray(w,
requires_grad=False)`` of a leaf ``w`` turns its ``requires_grad`` off); left out, a tensor keeps its own and
PyTorch's warning says so when that is a leaf that requires grad.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import backend
from .creation import _finish, _on, _resolve, _sizes, tensor
from .ops._args import checked
from .tensor import Tensor

__all__ = ["asarray", "scalar_tensor", "empty_strided"]

_UNSET = object()  # requires_grad left out (PyTorch 2.13 then keeps obj's own)


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad=_UNSET) -> Tensor:
    """``obj`` (a tensor, a NumPy array, a buffer, a number or nested sequences) as a tensor, sharing its memory
    unless ``dtype``/``device`` need a conversion or ``copy=True`` asks for a copy (``copy=False`` refuses one)."""
    if isinstance(obj, Tensor):
        result = _from_tensor(obj, dtype, device, copy)
    elif isinstance(obj, np.ndarray):
        result = _from_array(obj, dtype, device, copy)
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        dt = backend.to_dtype(dtype) if dtype is not None else backend.get_default_dtype()
        result = _from_array(_from_buffer(obj, dt), dtype, device, copy)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor. [autograd_lab] only a tensor, a NumPy array "
                             "or a buffer has memory to share; leave copy out")
        result = tensor(obj, dtype=dtype, device=device)
    if requires_grad is _UNSET:
        if result is obj and obj.requires_grad and obj.is_leaf:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                          "Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
                          UserWarning, stacklevel=2)
        return result
    if requires_grad and not result.dtype.is_floating_point:
        raise RuntimeError(f"Only Tensors of floating point and complex dtype can require gradients [autograd_lab] "
                           f"asarray made a tensor of {result.dtype!r}; pass dtype=al.float32")
    if not requires_grad and not result.is_leaf:
        return result.detach()  # (a tensor made by ops: its history cannot be turned off, so an alias without it)
    if result.is_leaf:
        return result.requires_grad_(requires_grad)
    return result


def _alias_error(source, target) -> ValueError:
    return ValueError(f"can't alias tensor with dtype '{backend.kernel_type_name(source)}' into dtype "
                      f"'{backend.kernel_type_name(target)}'. [autograd_lab] a conversion needs new memory; leave "
                      "copy out (or pass copy=True)")


def _from_tensor(obj: Tensor, dtype, device, copy):
    dt = backend.to_dtype(dtype) if dtype is not None else obj.dtype
    dev = backend.device(device) if device is not None else obj.device
    converts = dt is not obj.dtype or dev != obj.device
    if converts and copy is False:
        raise _alias_error(obj.dtype, dt)
    if converts:
        return obj.to(dtype=dt, device=dev)
    return obj.clone() if copy else obj


def _from_array(array: np.ndarray, dtype, device, copy):
    source = backend.from_np(array.dtype)  # (refuses the dtypes autograd_lab has not)
    dt, dev, xp = _resolve(dtype, device, source)
    if (dt is not source or xp is not np) and copy is False:
        raise _alias_error(source, dt)
    if copy or dt is not source:
        array = np.array(array, dtype=dt.np_dtype, copy=True)
    return Tensor._make(_on(array, dev, xp))


def _from_buffer(buffer, dt) -> np.ndarray:
    """The bytes of a buffer read as elements of ``dt`` (sharing them, as PyTorch's ``frombuffer``)."""
    size, itemsize = memoryview(buffer).nbytes, dt.np_dtype.itemsize
    if size % itemsize:
        raise ValueError(f"buffer length ({size} bytes) after offset (0 bytes) must be a multiple of element size "
                         f"({itemsize})")
    return np.frombuffer(buffer, dtype=dt.np_dtype)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-dim tensor holding the number ``s`` (of the default floating dtype, whatever the number's kind, unless
    ``dtype`` is given)."""
    if isinstance(s, Tensor) and s.numel() == 1:
        s = s.item()
    if isinstance(s, (str, bytes)) or not isinstance(s, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}")
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    return _finish(_on(np.asarray(s).astype(dt.np_dtype), dev, xp), requires_grad)


@checked(kinds={"stride": "ints"})
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` whose ``stride()`` is ``stride`` (elements between neighbours along each dim; zeros
    here, uninitialised in PyTorch). Strides of 0 make elements share memory, as in PyTorch: such a tensor
    cannot be written in place."""
    sizes, strides = _sizes((size,)), tuple(int(s) for s in stride)
    if len(sizes) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(sizes)}) must match dimensionality of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    storage = 0 if 0 in sizes else 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    memory = np.zeros(storage, dtype=dt.np_dtype)
    itemsize = memory.itemsize
    laid_out = np.lib.stride_tricks.as_strided(memory, sizes, tuple(s * itemsize for s in strides))
    return _finish(_on(laid_out, dev, xp), requires_grad)


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``empty_strided`` with this tensor's dtype and device unless given."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad)


Tensor.new_empty_strided = new_empty_strided
