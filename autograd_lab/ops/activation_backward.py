"""The derivatives of the piecewise-linear activations, each an op of its own, as PyTorch's ``*_backward`` kernels.

``relu``'s derivative passes the gradient where the input was positive: ``where(result <= 0, 0, grad)``. Written
as a formula, that expression only reads the input through a comparison, so under ``create_graph`` the gradient it
returns would not depend on the input at all: no edge to it, ``requires_grad`` False, and a second ``grad`` of it
an error. PyTorch runs it as a kernel of its own, ``threshold_backward(grad, self, threshold)``, whose node
(``ThresholdBackwardBackward0``) keeps an edge to ``self`` with a zero derivative. So does autograd_lab: the
derivative formulas of relu, threshold, leaky_relu, hardtanh (relu6) and hardshrink/softshrink call these ops.
Their own derivatives: the same op again for ``grad`` (they are linear in it), zeros for ``self``.
"""

from __future__ import annotations

from . import formulas
from ._op import Op


class _ActivationBackward(Op):
    """An activation's derivative as an op of (grad, self): linear in grad, piecewise constant in self."""

    def d_self(grad, self):  # (reading self, as PyTorch's zeros_like(self): the node keeps self whenever recorded)
        return formulas.zeros_like(self)

    f_self = d_self


class ThresholdBackwardBackward0(_ActivationBackward):
    """out = 0 where self <= threshold, else grad (NaN passes the gradient): relu's and threshold's derivative"""
    saves = ("self", "threshold")

    def forward(xp, grad, self, *, threshold):
        return formulas.where(self <= threshold, 0.0, grad)  # (a mask product: formulas.where's quick path)

    def d_grad(grad, self, threshold):
        return formulas.call(ThresholdBackwardBackward0, grad, self, threshold=threshold)

    f_grad = d_grad


class LeakyReluBackwardBackward0(_ActivationBackward):
    """out = grad where self > 0, else grad * negative_slope: leaky_relu's derivative"""
    saves = ("negative_slope", "self")

    def forward(xp, grad, self, *, negative_slope):
        return formulas.where(self > 0, grad, grad * negative_slope)

    def d_grad(grad, negative_slope, self):
        return formulas.call(LeakyReluBackwardBackward0, grad, self, negative_slope=negative_slope)

    f_grad = d_grad


class HardtanhBackwardBackward0(_ActivationBackward):
    """out = 0 where self <= min_val or self >= max_val, else grad (NaN passes it): hardtanh's and relu6's"""
    saves = ("max_val", "min_val", "self")

    def forward(xp, grad, self, *, min_val, max_val):
        return formulas.where((self <= min_val) | (self >= max_val), 0.0, grad)

    def d_grad(grad, max_val, min_val, self):
        return formulas.call(HardtanhBackwardBackward0, grad, self, min_val=min_val, max_val=max_val)

    f_grad = d_grad


class HardshrinkBackwardBackward0(_ActivationBackward):
    """out = 0 where -lambd <= self <= lambd, else grad: hardshrink's derivative"""
    saves = ("lambd", "self")

    def forward(xp, grad, self, *, lambd):
        return formulas.where((self >= -lambd) & (self <= lambd), 0.0, grad)

    def d_grad(grad, lambd, self):
        return formulas.call(HardshrinkBackwardBackward0, grad, self, lambd=lambd)

    f_grad = d_grad


class SoftshrinkBackwardBackward0(HardshrinkBackwardBackward0):
    """out = 0 where -lambd <= self <= lambd, else grad: softshrink's derivative (the same mask as hardshrink's)"""

    def d_grad(grad, lambd, self):
        return formulas.call(SoftshrinkBackwardBackward0, grad, self, lambd=lambd)

    f_grad = d_grad
