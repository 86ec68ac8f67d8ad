"""``apply_``, ``map_`` and ``map2_``: a Python function run on each element, its results written in place.

As in PyTorch they run on CPU tensors only, and never on a tensor that requires grad (nothing could record a
Python function's derivative). Each element is given as a Python number (``int``, ``float`` or ``bool``, by
the dtype), ``map_``'s and ``map2_``'s other tensors broadcast to this one's shape and must have its dtype.

One difference from PyTorch, on purpose: PyTorch leaves ``_version`` as it was, so a node that saved the
tensor would compute its gradient from the new values without a word; here the version is bumped, and such
a ``backward()`` raises instead.
"""

from __future__ import annotations

from numbers import Real

from .. import backend
from ..tensor import Tensor
from .inplace import writable_array

__all__ = ["apply_", "map_", "map2_"]


def _check(name: str, tensors) -> None:
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if any(t.device.type != "cpu" for t in tensors):
        raise TypeError(f"{name} is only implemented on CPU tensors [autograd_lab] run it on x.cpu(), then move the "
                        "result back")


def _as_python(value, dtype):
    """A callable's result as the number ``dtype`` stores, converted as PyTorch converts it (ints truncated)."""
    if dtype is backend.bool_:
        return bool(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Real):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if dtype.is_floating_point:
        return float(value)
    number = int(value)
    if not -(2 ** 63) <= number < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return number


def _write(self: Tensor, name: str, values) -> Tensor:
    """Write the callable's results (one per element, in row-major order) into ``self``, and bump its version."""
    data = writable_array(self, name)
    np = backend.np
    converted = [_as_python(v, self.dtype) for v in values]
    wide = np.array(converted, dtype=np.float64 if self.dtype.is_floating_point else None)
    data[...] = wide.astype(data.dtype).reshape(data.shape) if wide.size else wide.reshape(data.shape)
    self._vc.bump(name)
    return self


def _broadcast(self: Tensor, other: Tensor, name: str):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'tensor' must be Tensor, not {type(other).__name__}")
    if other.dtype is not self.dtype:
        raise TypeError(f"{name}: expected torch.{self.dtype._legacy_name} for 'other' (got torch."
                        f"{other.dtype._legacy_name}) [autograd_lab] convert it first: other.to(x.dtype)")
    return other.expand(self.shape)._data


def apply_(self: Tensor, callable) -> Tensor:
    """Replace each element ``v`` by ``callable(v)``, in place (CPU only; not on a tensor that requires grad)."""
    _check("apply_", (self,))
    return _write(self, "apply_", [callable(v) for v in self._data.ravel().tolist()])


def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    """Replace each element ``a`` by ``callable(a, b)``, ``b`` the element of ``tensor`` (broadcast) at its place."""
    _check("map_", (self, tensor) if isinstance(tensor, Tensor) else (self,))
    other = _broadcast(self, tensor, "map_")
    pairs = zip(self._data.ravel().tolist(), other.ravel().tolist())
    return _write(self, "map_", [callable(a, b) for a, b in pairs])


def map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:
    """Replace each element ``a`` by ``callable(a, b, c)``, ``b`` and ``c`` the elements of ``x`` and ``y``
    (broadcast) at its place."""
    _check("map2_", tuple(t for t in (self, x, y) if isinstance(t, Tensor)))
    first, second = _broadcast(self, x, "map2_"), _broadcast(self, y, "map2_")
    triples = zip(self._data.ravel().tolist(), first.ravel().tolist(), second.ravel().tolist())
    return _write(self, "map2_", [callable(a, b, c) for a, b, c in triples])


Tensor.apply_, Tensor.map_, Tensor.map2_ = apply_, map_, map2_
