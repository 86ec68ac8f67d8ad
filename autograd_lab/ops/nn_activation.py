"""Activations with a setting: ``leaky_relu`` (a slope below zero), ``rrelu`` (a random slope below zero, while
training) and ``threshold`` (a value below a threshold).

Each has PyTorch's two nodes: the out-of-place one (``LeakyReluBackward0``, ``ThresholdBackward0``) and the
in-place one (``inplace=True``: ``LeakyReluBackward1``, which reads the result, as the input is overwritten;
``ThresholdBackward1``, which reads a copy of the input taken before the write, as PyTorch's does). ``relu`` is
in :mod:`.pointwise`.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._op import Op
from .activation_backward import LeakyReluBackwardBackward0, ThresholdBackwardBackward0
from .inplace import _run_inplace

__all__ = ["leaky_relu", "rrelu", "rrelu_", "threshold"]

_NEGATIVE_SLOPE_IN_PLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version instead. "
    "File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope"
)


class LeakyReluBackward0(Op):
    """out = x where x > 0, else negative_slope * x"""
    saves = ("negative_slope", "self")

    def forward(xp, self, *, negative_slope):
        return xp.where(self > 0, self, self * negative_slope).astype(self.dtype, copy=False)

    def d_self(grad, negative_slope, self):  # (grad where self > 0, else grad * negative_slope)
        return formulas.call(LeakyReluBackwardBackward0, grad, self, negative_slope=negative_slope)

    f_self = d_self  # (element-wise: the tangent goes through as the gradient does)


class LeakyReluBackward1(Op):
    """``leaky_relu(x, inplace=True)``: the result decides the slope (the input is gone); a negative slope would
    flip the sign, so PyTorch refuses its backward"""
    saves = ("negative_slope", "result")

    def forward(xp, self, *, negative_slope):
        return LeakyReluBackward0.forward(xp, self, negative_slope=negative_slope)

    def d_self(grad, negative_slope, result):
        if negative_slope < 0:
            raise RuntimeError(_NEGATIVE_SLOPE_IN_PLACE)
        return formulas.call(LeakyReluBackwardBackward0, grad, result, negative_slope=negative_slope)

    f_self = d_self


class RreluWithNoiseBackward0(Op):
    """out = x * noise: the noise is 1 where x > 0; below, a slope drawn from U(lower, upper) per element in
    training, the mean slope (lower + upper) / 2 otherwise"""
    saves = ("lower", "noise", "self", "training", "upper")
    tensor_params = ("noise",)

    def forward(xp, self, *, noise, lower, upper, training):
        return (self * noise).astype(self.dtype, copy=False)

    def d_self(grad, lower, noise, self, training, upper):
        return grad * formulas.array_of(noise)

    f_self = d_self


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """``rrelu(x, inplace=True)``: as ``RreluWithNoiseBackward0``; the noise alone gives the gradient"""
    saves = ("lower", "noise", "result", "training", "upper")

    def d_self(grad, lower, noise, result, training, upper):
        return grad * formulas.array_of(noise)

    f_self = d_self


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool, generator) -> Tensor:
    from .dropout import _generator_rng
    data = input._data
    xp = backend.namespace_of(data)
    if training:
        below = xp.asarray(_generator_rng(generator, input.device).uniform(lower, upper, data.shape))
    else:
        below = (lower + upper) / 2
    # (at NaN PyTorch's training kernel tests x <= 0 and its eval one x > 0: the gradient there is 1, or the slope)
    positive = ~(data <= 0) if training else data > 0
    return Tensor._make(xp.where(positive, 1.0, below).astype(data.dtype))


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False, generator=None) -> Tensor:
    """Randomized leaky ReLU (Xu et al., 2015): ``x`` where ``x > 0``, else ``a * x``, with ``a`` drawn from
    U(lower, upper) for each element while training, and ``(lower + upper) / 2`` otherwise."""
    if not input.is_floating_point():
        from ._errors import no_kernel
        raise no_kernel("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", input.dtype,
                        "rrelu takes floating values: call input.float()")
    noise = _rrelu_noise(input, lower, upper, training, generator)
    params = {"noise": noise, "lower": lower, "upper": upper, "training": training}
    if inplace:
        return _run_inplace(input, "rrelu_", lambda x: RreluWithNoiseBackward1.apply(x, **params), (), {})
    return RreluWithNoiseBackward0.apply(input, **params)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True, generator=generator)


class ThresholdBackward0(Op):
    """out = value where x <= threshold, else x (so NaN stays NaN, as in PyTorch)"""
    saves = ("self", "threshold")

    def forward(xp, self, *, threshold, value):
        return xp.where(self <= threshold, value, self).astype(self.dtype, copy=False)

    def d_self(grad, self, threshold):  # (0 where self <= threshold, else grad)
        return formulas.call(ThresholdBackwardBackward0, grad, self, threshold=threshold)

    f_self = d_self


class ThresholdBackward1(ThresholdBackward0):
    """``threshold(x, ..., inplace=True)``: as ``ThresholdBackward0``, with the input's values from before the write
    (PyTorch's ``original_self``: the in-place machinery saves a copy of them)"""


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``negative_slope * x``; ``inplace=True`` overwrites ``input``."""
    if inplace:
        return _run_inplace(input, "leaky_relu_", lambda x: LeakyReluBackward1.apply(x, negative_slope=negative_slope),
                            (), {})
    return LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``x <= threshold``, else ``x`` (NaN stays NaN); ``inplace=True`` overwrites ``input``."""
    if inplace:
        return _run_inplace(input, "threshold_", lambda x: ThresholdBackward1.apply(x, threshold=threshold, value=value),
                            (), {})
    return ThresholdBackward0.apply(input, threshold=threshold, value=value)
