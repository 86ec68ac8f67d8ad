"""``interpolate(mode='bicubic')``: images resampled with cubic convolution (Keys' kernel, ``A = -0.75``, as
PyTorch's kernels use it).

Like the other modes (:mod:`.upsample`), bicubic acts on one spatial dim at a time with *taps*: output position
``o`` reads the four input positions around its source position ``s`` (``floor(s) - 1`` to ``floor(s) + 2``),
weighted by the cubic kernel at their distances from ``s``. A tap past an edge reads the edge pixel (the position
is clamped), as PyTorch's kernel reads it. The taps are applied as a kernel applies them, width first, then
height, each output a sum over its four taps: a weight of 0 on an infinite pixel gives NaN there, as in PyTorch,
and nowhere else.

The source position is ``(o + 0.5) * scale - 0.5`` (``o * (in - 1) / (out - 1)`` with ``align_corners=True``),
not clamped at 0 as the linear modes clamp it; ``scale`` is ``1 / scale_factor`` when a factor is given
(unless ``recompute_scale_factor``), ``in / out`` otherwise, in the input's precision (single for float32).
"""

from __future__ import annotations

import numpy as np

from .upsample import _Resample2D, _Resample2DGradient, _scale

__all__ = ["UpsampleBicubic2DBackward0", "UpsampleBicubic2DBackwardBackward0", "cubic_taps", "cubic_factor"]

CUBIC_A = -0.75  # the kernel's free parameter, PyTorch's choice (Keys proposed -0.5)


class UpsampleBicubic2DBackward0(_Resample2D):
    """out = the (N, C, H, W) input resampled bicubically: four taps per output along each spatial dim."""
    saves = ("align_corners",) + _Resample2D.saves


class UpsampleBicubic2DBackwardBackward0(_Resample2DGradient):
    """the gradient of a bicubic resampling (each input pixel collects the weighted gradients of the outputs that
    read it), under PyTorch's name for it when recorded under create_graph"""
    saves = ("align_corners",) + _Resample2DGradient.saves


OPS = (UpsampleBicubic2DBackward0, UpsampleBicubic2DBackwardBackward0)  # (forward, gradient), as upsample._OPS


def _fused(a, b, c, precision):
    """``a * b + c`` rounded once, as a fused multiply-add rounds it (PyTorch's CPU build contracts the kernel's
    products and sums into them): computed in a wider type, then rounded to ``precision``."""
    wide = np.float64 if precision is np.float32 else np.longdouble
    return (wide(a) * np.asarray(b, dtype=wide) + wide(c)).astype(precision)


def _near(x, a, precision):
    """The kernel for distances in [0, 1]: ``(a + 2)|x|^3 - (a + 3)|x|^2 + 1``."""
    return _fused(a + 2, x, -(a + 3), precision) * x * x + 1


def _far(x, a, precision):
    """The kernel for distances in [1, 2]: ``a|x|^3 - 5a|x|^2 + 8a|x| - 4a``."""
    return _fused(_fused(a, x, -5 * a, precision), x, 8 * a, precision) * x - 4 * a


def cubic_taps(size: int, out: int, scale_factor, align_corners: bool, precision) -> tuple:
    """(positions, weights), each (out, 4): the four input positions each output reads (clamped into the input) and
    their cubic weights, computed as PyTorch's kernel computes them, in ``precision``."""
    one, a = precision(1), precision(CUBIC_A)
    o = np.arange(out).astype(precision)
    if align_corners:
        ratio = precision(size - 1) / precision(out - 1) if out > 1 else precision(0)
        real = ratio * o
    else:
        real = _fused(_scale(size, out, scale_factor, precision), o + precision(0.5), -0.5, precision)
    first = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)  # (floored in single precision)
    t = np.clip(real - first.astype(precision), 0, 1).astype(precision)
    weights = np.stack([_far(t + one, a, precision), _near(t, a, precision), _near(one - t, a, precision),
                        _far(one - t + one, a, precision)], 1)
    positions = np.clip(first[:, None] + np.arange(-1, 3), 0, size - 1)
    return positions, weights.astype(precision)


def cubic_factor(tap: int, t, order: int = 0):
    """The weight of tap ``tap`` (0 to 3: offsets -1 to 2 from ``floor(s)``) at a fraction ``t = s - floor(s)``, or its
    first or second derivative in ``t`` (``order``); for arrays or tensors (grid_sample's bicubic mode
    differentiates through it)."""
    a = CUBIC_A
    d = t + (1 - tap) if tap < 2 else (tap - 1) - t  # (the tap's distance from the source position)
    if tap in (1, 2):  # (a + 2)|x|^3 - (a + 3)|x|^2 + 1
        if order == 0:
            return ((a + 2) * d - (a + 3)) * d * d + 1
        value = (3 * (a + 2) * d - 2 * (a + 3)) * d if order == 1 else 6 * (a + 2) * d - 2 * (a + 3)
    else:  # a|x|^3 - 5a|x|^2 + 8a|x| - 4a
        if order == 0:
            return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        value = (3 * a * d - 10 * a) * d + 8 * a if order == 1 else 6 * a * d - 10 * a
    return -value if order == 1 and tap >= 2 else value  # (the distance falls as t grows for the taps above)
