"""``interpolate(..., antialias=True)``: ``bilinear`` and ``bicubic`` resampling of images that, when shrinking,
widens its kernel to cover every input pixel (as PIL's resize does, and PyTorch's ``_upsample_bilinear2d_aa`` /
``_upsample_bicubic2d_aa``).

Each spatial dim is resampled on its own, with taps as in :mod:`.upsample`, but a varying number of them: output
``o`` is centred at ``c = scale * (o + 0.5)`` in the input, and reads every input pixel ``p`` whose centre lies
within the kernel's support (1 for the triangle of ``bilinear``, 2 for the cubic kernel of ``bicubic``, with
``a = -0.5`` here, as PIL's; both stretched by ``scale`` when shrinking), weighted by the kernel at
``(p + 0.5 - c) / max(scale, 1)``, the weights normalised to sum to 1. An output reads only the taps it counts
(``counts``), as PyTorch's kernel does, so a NaN or infinity reaches only the outputs whose support covers it.
A dim whose size does not change is left as it is. Width is resampled before height, as PyTorch's kernel does.
"""

from __future__ import annotations

import numpy as np

from .upsample import _Resample2D, _Resample2DGradient, _scale
from .upsample_cubic import _far, _near

__all__ = ["UpsampleBilinear2DAaBackward0", "UpsampleBilinear2DAaBackwardBackward0", "UpsampleBicubic2DAaBackward0",
           "UpsampleBicubic2DAaBackwardBackward0", "antialias_taps"]


class UpsampleBilinear2DAaBackward0(_Resample2D):
    """out = the (N, C, H, W) input resampled with the antialiasing triangle kernel."""
    saves = ("align_corners",) + _Resample2D.saves


class UpsampleBilinear2DAaBackwardBackward0(_Resample2DGradient):
    """the gradient of an antialiased bilinear resampling, under PyTorch's name for it under create_graph"""
    saves = ("align_corners",) + _Resample2DGradient.saves


class UpsampleBicubic2DAaBackward0(_Resample2D):
    """out = the (N, C, H, W) input resampled with the antialiasing cubic kernel."""
    saves = ("align_corners",) + _Resample2D.saves


class UpsampleBicubic2DAaBackwardBackward0(_Resample2DGradient):
    """the gradient of an antialiased bicubic resampling, under PyTorch's name for it under create_graph"""
    saves = ("align_corners",) + _Resample2DGradient.saves


OPS = {"bilinear": (UpsampleBilinear2DAaBackward0, UpsampleBilinear2DAaBackwardBackward0),  # (forward, gradient)
       "bicubic": (UpsampleBicubic2DAaBackward0, UpsampleBicubic2DAaBackwardBackward0)}


def _kernel(x, bicubic: bool, precision):
    """The kernel at distances ``x``: the triangle ``max(0, 1 - |x|)``, or the cubic kernel with ``a = -0.5``."""
    x = np.abs(x)
    if not bicubic:
        return np.where(x < 1, 1 - x, 0).astype(precision)
    a = precision(-0.5)
    return np.where(x < 1, _near(x, a, precision), np.where(x < 2, _far(x, a, precision), 0)).astype(precision)


def antialias_taps(size: int, out: int, scale_factor, align_corners: bool, precision, bicubic: bool) -> tuple:
    """(positions, weights, counts): each (out, K) but counts (out,), the taps output ``o`` reads being the first
    ``counts[o]``; computed as PyTorch's kernel computes them, in ``precision`` (single for float32)."""
    if out == size:  # (left as it is)
        return np.arange(out)[:, None], np.ones((out, 1), dtype=precision), np.ones(out, dtype=np.int64)
    if align_corners:
        scale = precision(size - 1) / precision(out - 1) if out > 1 else precision(0)
    else:
        scale = _scale(size, out, scale_factor, precision)
    width = precision(4 if bicubic else 2) * precision(0.5)
    support = width * scale if scale >= 1 else width
    inverse = precision(1) / scale if scale >= 1 else precision(1)
    most = int(np.ceil(support)) * 2 + 1
    center = (np.float64(scale) * (np.arange(out) + 0.5)).astype(precision)
    first = np.maximum(np.trunc((center - support).astype(np.float64) + 0.5), 0).astype(np.int64)
    last = np.minimum(np.trunc((center + support).astype(np.float64) + 0.5).astype(np.int64), size)
    counts = np.clip(last - first, 0, most)
    positions = first[:, None] + np.arange(most)
    offsets = (positions.astype(precision) - center[:, None]).astype(np.float64) + 0.5
    weights = _kernel((offsets * np.float64(inverse)).astype(precision), bicubic, precision)
    weights = np.where(np.arange(most) < counts[:, None], weights, precision(0))
    total = np.zeros(out, dtype=precision)
    for t in range(most):  # (summed in order, as the kernel sums them)
        total = total + weights[:, t]
    weights = np.where(total[:, None] != 0, weights / np.where(total == 0, 1, total)[:, None], weights)
    return np.minimum(positions, size - 1), weights.astype(precision), counts
