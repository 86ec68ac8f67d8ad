"""Clamping on one side by a number: ``clamp_min`` (``ClampMinBackward0``) and ``clamp_max`` (``ClampMaxBackward0``),
the nodes PyTorch records for them; ``clamp(min=)`` and ``clamp(max=)`` record ``ClampBackward1``, and a tensor bound
``ClampBackward0`` (:mod:`.pointwise`).
"""

from __future__ import annotations

from ..tensor import Tensor
from ._args import checked
from ._op import Op
from .pointwise import ClampBackward1, _clamp_numbers, clamp


class ClampMinBackward0(Op):
    """out = max(self, min), min a number (``clamp_min``; ``clamp(min=)`` records ``ClampBackward1``, as in PyTorch)"""
    saves = ("min", "self")

    def forward(xp, self, *, min):
        return ClampBackward1.forward(xp, self, min=min, max=None)

    def d_self(grad, min, self):
        return ClampBackward1.d_self(grad, None, min, self)

    f_self = d_self


class ClampMaxBackward0(Op):
    """out = min(self, max), max a number (``clamp_max``)"""
    saves = ("max", "self")

    def forward(xp, self, *, max):
        return ClampBackward1.forward(xp, self, min=None, max=max)

    def d_self(grad, max, self):
        return ClampBackward1.d_self(grad, max, None, self)

    f_self = d_self


@checked
def clamp_min(input, min):
    """``input`` with every value below ``min`` raised to it (``min`` a number, or a tensor: ``clamp(min=)``)."""
    if isinstance(min, Tensor) or min is None:
        return clamp(input, min=min)
    input, min, _ = _clamp_numbers(input, min, None)
    return ClampMinBackward0.apply(input, min=min)


@checked
def clamp_max(input, max):
    """``input`` with every value above ``max`` lowered to it (``max`` a number, or a tensor: ``clamp(max=)``)."""
    if isinstance(max, Tensor) or max is None:
        return clamp(input, max=max)
    input, _, max = _clamp_numbers(input, None, max)
    return ClampMaxBackward0.apply(input, max=max)


Tensor.clamp_min, Tensor.clamp_max = clamp_min, clamp_max
