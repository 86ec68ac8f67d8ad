"""The nodes PyTorch records when its own C++ code multiplies or divides a tensor by a number (``mul.Scalar``,
``div.Scalar``): ``MulBackward1`` and ``DivBackward1``, as inside ``scaled_dot_product_attention`` and
``cross_entropy``. (A Python ``x * 0.5`` or ``x / 2`` records ``MulBackward0`` / ``DivBackward0``, the number
wrapped as a tensor.)"""

from __future__ import annotations

from .. import backend
from ._op import Op

__all__ = ["MulBackward1", "DivBackward1"]


class MulBackward1(Op):
    """out = self * other, ``other`` a number"""
    saves = ("other",)

    def forward(xp, self, *, other):
        return self * other

    def d_self(grad, other):
        return grad * other

    f_self = d_self


class DivBackward1(Op):
    """out = self / other, ``other`` a number"""
    saves = ("other",)

    def forward(xp, self, *, other):
        with backend.np.errstate(divide="ignore", invalid="ignore"):  # (by 0: inf or nan, as in PyTorch)
            return (self / other).astype(self.dtype, copy=False)

    def d_self(grad, other):
        return grad / other

    f_self = d_self
