"""Padding layers, as ``torch.nn``: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad`` and
``CircularPad``, each in 1d, 2d and 3d forms (how many trailing dims they pad). Each calls ``F.pad``.

``padding`` is an int (the same on every side) or a tuple, last dim first: ``(left, right)`` in 1d,
``(left, right, top, bottom)`` in 2d, ``(left, right, top, bottom, front, back)`` in 3d.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _sides(padding, dims: int, layer: str) -> tuple[int, ...]:
    """An int as the same amount on all ``2 * dims`` sides, or a tuple of that length as a tuple."""
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    sides = tuple(padding)
    if len(sides) != 2 * dims:
        raise ValueError(f"{layer}: padding must be an int or a tuple of {2 * dims} ints (before, after per padded dim, "
                         f"last dim first), got {padding!r}")
    return sides


class _ConstantPadNd(Module):
    """Pad with a constant ``value``."""

    def __init__(self, padding, value: float, dims: int) -> None:
        super().__init__()
        self.padding = _sides(padding, dims, type(self).__name__)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 1)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 2)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 3)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    """Pad by ``mode`` (reflect, replicate or circular) over the last ``dims`` dims."""

    mode = ""
    dims = 0

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sides(padding, self.dims, type(self).__name__)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Extend the last dim by its mirror image at each end (the end itself not repeated)."""

    mode, dims = "reflect", 1


class ReflectionPad2d(_ModePadNd):
    """Extend the last two dims by their mirror images at each end (the ends themselves not repeated)."""

    mode, dims = "reflect", 2


class ReflectionPad3d(_ModePadNd):
    """Extend the last three dims by their mirror images at each end (the ends themselves not repeated)."""

    mode, dims = "reflect", 3


class ReplicationPad1d(_ModePadNd):
    """Extend the last dim by copies of its end values."""

    mode, dims = "replicate", 1


class ReplicationPad2d(_ModePadNd):
    """Extend the last two dims by copies of their edge values."""

    mode, dims = "replicate", 2


class ReplicationPad3d(_ModePadNd):
    """Extend the last three dims by copies of their face values."""

    mode, dims = "replicate", 3


class _CircularPadNd(_ModePadNd):
    """Circular padding checks the input's dims itself (``F.pad`` would accept other layouts)."""

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input) "
                             f"[autograd_lab] {type(self).__name__} pads the last {self.dims} dim(s) of a (C, ...) or "
                             f"(N, C, ...) input, got shape {tuple(input.shape)}")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Wrap the last dim around: the left border repeats the right end, and the right border the left end."""

    dims = 1


class CircularPad2d(_CircularPadNd):
    """Wrap the last two dims around (a torus): each border repeats the opposite end."""

    dims = 2


class CircularPad3d(_CircularPadNd):
    """Wrap the last three dims around: each border repeats the opposite end."""

    dims = 3
