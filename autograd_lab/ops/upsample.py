"""Resampling sequences, images and volumes: ``interpolate`` (modes ``nearest``, ``nearest-exact``, ``linear``,
``bilinear``, ``trilinear``, ``area``; ``bicubic`` in :mod:`.upsample_cubic`, with taps of four; ``antialias``
in :mod:`.upsample_antialias`).

Each of these modes is linear in the input and acts on one spatial dim at a time: output position ``o`` of a
dim reads a few input positions of that dim (its *taps*), with weights: one tap of weight 1 for ``nearest``,
two taps whose weights sum to 1 for the linear modes. Resampling applies each dim's taps in turn,
``out[o] = w0[o] * x[p0[o]] + w1[o] * x[p1[o]]`` as PyTorch's kernels add them (so an infinity or a NaN reaches
only the outputs that read it). The gradient is the adjoint: every input position collects the gradients of
the outputs that read it, weighted as they read it.

Each mode and rank is a pair of ops named as PyTorch names them: the resampling (``UpsampleBilinear2DBackward0``)
and its gradient (``UpsampleBilinear2DBackwardBackward0``, recorded under ``create_graph``). The two show the same
settings (``output_size``, the scales, ``align_corners`` for the interpolating modes) and share, out of sight, a
``Resampling``: the pair and the taps. Each is the other's derivative, so the nodes alternate at every order.

The source positions and weights are computed as PyTorch's kernels compute them, in the same precision
(single precision for float32 inputs), so the outputs agree with PyTorch's: ``nearest`` reads
``floor(o * scale)``, ``nearest-exact`` ``floor((o + 0.5) * scale)``, and the linear modes interpolate at
``(o + 0.5) * scale - 0.5`` (``o * (in - 1) / (out - 1)`` with ``align_corners=True``). ``scale`` is
``1 / scale_factor`` when a scale factor is given (unless ``recompute_scale_factor``), ``in / out`` otherwise.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._errors import no_kernel
from ._op import LINEAR, Op

__all__ = ["interpolate"]


class Resampling(NamedTuple):
    """What the two nodes of a resampling share, out of sight (PyTorch's nodes recompute the taps from their sizes and
    scales): the pair of ops, the settings both nodes show, and the taps."""
    ops: tuple  # (forward, gradient): UpsampleBilinear2DBackward0 and UpsampleBilinear2DBackwardBackward0, say
    settings: dict  # output_size, the scales (scales; scales_h, scales_w...) and, interpolating, align_corners
    taps: tuple  # per spatial dim: (positions, weights), and the counts of the taps in use with antialias


def _resampled(x, resampling: Resampling):
    """``x`` resampled: the pair's forward op (recorded when ``x`` is a tensor that requires grad)."""
    return formulas.call(resampling.ops[0], x, **resampling.settings, resampling=resampling)


def _adjoint(grad, resampling: Resampling, input_size: tuple):
    """The gradient of a resampling of an input of ``input_size``: the pair's gradient op."""
    return formulas.call(resampling.ops[1], grad, **resampling.settings, input_size=input_size, resampling=resampling)


class _Resample(Op):
    """out = the input with each spatial dim (2, 3, ...) resampled by its taps (the module docstring); the node shows
    PyTorch's settings and the input's sizes. Its derivative is its partner, the gradient op."""
    hidden_saves = ("resampling",)

    def d_self(grad, self_sym_sizes, resampling):
        return _adjoint(grad, resampling, tuple(self_sym_sizes))

    jvp = LINEAR  # (a fixed linear map of the input: its tangent is resampled the same way)


class _ResampleGradient(Op):
    """out = the gradient of a resampling: each input position collects, weighted, the gradients of the outputs that
    read it (the adjoint of the taps); the node shows the same settings as its partner. Its derivative is the
    resampling again, recorded as its partner (``UpsampleBilinear2DBackward0`` under
    ``UpsampleBilinear2DBackwardBackward0``), as PyTorch records it."""
    hidden_saves = ("resampling",)

    def d_grad(grad, resampling):
        return _resampled(grad, resampling)

    jvp = LINEAR


class _Resample1D(_Resample):
    saves = ("output_size", "scales", "self_sym_sizes", "resampling")

    def forward(xp, self, *, output_size, scales, resampling, align_corners=None):
        return _resample(xp, self, resampling.taps)


class _Resample1DGradient(_ResampleGradient):
    saves = ("output_size", "scales", "resampling")

    def forward(xp, grad, *, output_size, scales, input_size, resampling, align_corners=None):
        return _resample_adjoint(xp, grad, resampling.taps, input_size[2:])


class _Resample2D(_Resample):
    saves = ("output_size", "scales_h", "scales_w", "self_sym_sizes", "resampling")

    def forward(xp, self, *, output_size, scales_h, scales_w, resampling, align_corners=None):
        return _resample(xp, self, resampling.taps)


class _Resample2DGradient(_ResampleGradient):
    saves = ("output_size", "scales_h", "scales_w", "resampling")

    def forward(xp, grad, *, output_size, scales_h, scales_w, input_size, resampling, align_corners=None):
        return _resample_adjoint(xp, grad, resampling.taps, input_size[2:])


class _Resample3D(_Resample):
    saves = ("output_size", "scales_d", "scales_h", "scales_w", "self_sym_sizes", "resampling")

    def forward(xp, self, *, output_size, scales_d, scales_h, scales_w, resampling, align_corners=None):
        return _resample(xp, self, resampling.taps)


class _Resample3DGradient(_ResampleGradient):
    saves = ("output_size", "scales_d", "scales_h", "scales_w", "resampling")

    def forward(xp, grad, *, output_size, scales_d, scales_h, scales_w, input_size, resampling, align_corners=None):
        return _resample_adjoint(xp, grad, resampling.taps, input_size[2:])


# -- the pairs, forward and gradient, of each mode and rank ---------------------------------------------------------
class UpsampleNearest1DBackward0(_Resample1D):
    pass


class UpsampleNearest1DBackwardBackward0(_Resample1DGradient):
    pass


class UpsampleNearest2DBackward0(_Resample2D):
    pass


class UpsampleNearest2DBackwardBackward0(_Resample2DGradient):
    pass


class UpsampleNearest3DBackward0(_Resample3D):
    pass


class UpsampleNearest3DBackwardBackward0(_Resample3DGradient):
    pass


class UpsampleNearestExact1DBackward0(_Resample1D):
    pass


class UpsampleNearestExact1DBackwardBackward0(_Resample1DGradient):
    pass


class UpsampleNearestExact2DBackward0(_Resample2D):
    pass


class UpsampleNearestExact2DBackwardBackward0(_Resample2DGradient):
    pass


class UpsampleNearestExact3DBackward0(_Resample3D):
    pass


class UpsampleNearestExact3DBackwardBackward0(_Resample3DGradient):
    pass


class UpsampleLinear1DBackward0(_Resample1D):
    saves = ("align_corners",) + _Resample1D.saves


class UpsampleLinear1DBackwardBackward0(_Resample1DGradient):
    saves = ("align_corners",) + _Resample1DGradient.saves


class UpsampleBilinear2DBackward0(_Resample2D):
    saves = ("align_corners",) + _Resample2D.saves


class UpsampleBilinear2DBackwardBackward0(_Resample2DGradient):
    saves = ("align_corners",) + _Resample2DGradient.saves


class UpsampleTrilinear3DBackward0(_Resample3D):
    saves = ("align_corners",) + _Resample3D.saves


class UpsampleTrilinear3DBackwardBackward0(_Resample3DGradient):
    saves = ("align_corners",) + _Resample3DGradient.saves


def _resample(xp, x, taps):
    """Each spatial dim in turn, the last (the fastest) first as PyTorch's kernels nest them: output o = sum over its
    taps t of weight[o, t] * x[position[o, t]]."""
    for axis, (positions, weights, *counts) in reversed(list(enumerate(taps, start=2))):
        x = xp.moveaxis(x, axis, -1)
        out = weights[:, 0] * x[..., positions[:, 0]]
        for t in range(1, positions.shape[1]):
            term = weights[:, t] * x[..., positions[:, t]]
            out = out + (xp.where(counts[0] > t, term, 0) if counts else term)  # (antialias: only the taps counted)
        x = xp.moveaxis(out.astype(x.dtype, copy=False), -1, axis)
    return xp.ascontiguousarray(x)  # (row-major, as PyTorch's result: a later view() of it works in both)


def _resample_adjoint(xp, grad, taps, sizes):
    """Each spatial dim in turn: input position p collects weight[o, t] * grad[o] from every tap (o, t) reading it."""
    for axis, ((positions, weights, *counts), size) in enumerate(zip(taps, sizes), start=2):
        grad = xp.moveaxis(grad, axis, -1)
        out = xp.zeros(grad.shape[:-1] + (size,), dtype=grad.dtype)
        for t in range(positions.shape[1]):
            term = weights[:, t] * grad
            term = xp.where(counts[0] > t, term, 0) if counts else term
            xp.add.at(out, (Ellipsis, positions[:, t]), term.astype(grad.dtype, copy=False))
        grad = xp.moveaxis(out, -1, axis)
    return xp.ascontiguousarray(grad)


_OPS = {("nearest", 1): (UpsampleNearest1DBackward0, UpsampleNearest1DBackwardBackward0),
        ("nearest", 2): (UpsampleNearest2DBackward0, UpsampleNearest2DBackwardBackward0),
        ("nearest", 3): (UpsampleNearest3DBackward0, UpsampleNearest3DBackwardBackward0),
        ("nearest-exact", 1): (UpsampleNearestExact1DBackward0, UpsampleNearestExact1DBackwardBackward0),
        ("nearest-exact", 2): (UpsampleNearestExact2DBackward0, UpsampleNearestExact2DBackwardBackward0),
        ("nearest-exact", 3): (UpsampleNearestExact3DBackward0, UpsampleNearestExact3DBackwardBackward0),
        ("linear", 1): (UpsampleLinear1DBackward0, UpsampleLinear1DBackwardBackward0),
        ("bilinear", 2): (UpsampleBilinear2DBackward0, UpsampleBilinear2DBackwardBackward0),
        ("trilinear", 3): (UpsampleTrilinear3DBackward0, UpsampleTrilinear3DBackwardBackward0)}
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


# -- the taps, one set per spatial dim -------------------------------------------------------------------
def _scale(size: int, out: int, scale_factor, precision):
    """PyTorch's ``compute_scales_value``: ``1 / scale_factor`` when one is given, else ``size / out``."""
    if scale_factor is not None and scale_factor > 0:
        return precision(1.0 / scale_factor)
    return precision(size) / precision(out)


def _nearest_taps(size: int, out: int, scale_factor, exact: bool, precision) -> tuple:
    """(positions, weights), each (out, 1): the one input position each output copies."""
    positions = np.arange(out)
    if exact:  # (o + 0.5) * scale in double precision, then floored in single, as PyTorch's kernel does
        scale = _scale(size, out, scale_factor, np.float32)
        source = np.floor(((positions + 0.5) * np.float64(scale)).astype(np.float32))
    elif out == size:
        source = positions
    elif out == 2 * size:
        source = positions // 2
    else:
        source = np.floor(positions.astype(np.float32) * _scale(size, out, scale_factor, np.float32))
    source = np.minimum(source.astype(np.int64), size - 1)
    return source[:, None], np.ones((out, 1), dtype=precision)


def _linear_taps(size: int, out: int, scale_factor, align_corners: bool, precision) -> tuple:
    """(positions, weights), each (out, 2): the two neighbours of each output's source position and their weights
    (at the last input position both taps read it: PyTorch's kernel does the same)."""
    positions = np.arange(out)
    if out == size:  # (PyTorch copies)
        return positions[:, None], np.ones((out, 1), dtype=precision)
    if align_corners:
        ratio = precision(size - 1) / precision(out - 1) if out > 1 else precision(0)
        real = ratio * positions.astype(precision)
    else:
        ratio = _scale(size, out, scale_factor, precision)
        real = np.maximum(ratio * (positions.astype(precision) + precision(0.5)) - precision(0.5), precision(0))
    first = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)
    weight = np.clip(real - first.astype(precision), 0, 1).astype(precision)
    second = first + (first < size - 1)
    return np.stack([first, second], 1), np.stack([1 - weight, weight], 1).astype(precision)


# -- the function ------------------------------------------------------------------------------------
def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims of an (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to ``size``, or by
    ``scale_factor``, as ``F.interpolate`` does (its modes; ``area`` and ``bicubic`` for images; ``antialias`` for
    ``bilinear`` and ``bicubic``)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    spatial = input.ndim - 2
    sizes, scales = _output_size(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "area" and spatial == 2:
        from .nn_pool import adaptive_avg_pool2d
        return adaptive_avg_pool2d(input, tuple(sizes))
    ops = _ops_for(mode, spatial, antialias)
    if ops is None:
        raise _mode_error(input, mode, spatial)
    if spatial == 2:
        _check_image_sizes(input, sizes)
        _check_cubic_and_antialias_dtype(input, mode, antialias)
    precision = np.float64 if input.dtype is backend.float64 else np.float32
    xp = backend.namespace_of(input._data)
    taps = []
    for i in range(spatial):
        positions, weights, *counts = _dim_taps(mode, antialias, input.shape[2 + i], sizes[i], scales[i],
                                                align_corners, precision)
        taps.append((xp.asarray(positions), xp.asarray(weights.astype(input._data.dtype)), *map(xp.asarray, counts)))
    settings = {"align_corners": align_corners} if mode in _LINEAR or mode == "bicubic" else {}
    names = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}[spatial]
    settings.update(output_size=tuple(sizes), **dict(zip(names, scales)))
    return _resampled(input, Resampling(ops, settings, tuple(taps)))


def _ops_for(mode: str, spatial: int, antialias: bool):
    """The pair of node classes of a resampling, (forward, gradient); None for a mode and rank PyTorch has no kernel
    for."""
    from . import upsample_antialias, upsample_cubic  # (they build on this module)
    if antialias:
        return upsample_antialias.OPS[mode]
    if (mode, spatial) == ("bicubic", 2):
        return upsample_cubic.OPS
    return _OPS.get((mode, spatial))


def _dim_taps(mode: str, antialias: bool, size: int, out: int, scale_factor, align_corners, precision) -> tuple:
    """The taps of one spatial dim: (positions, weights), and the counts of the taps in use with antialias."""
    from . import upsample_antialias, upsample_cubic
    if antialias:
        return upsample_antialias.antialias_taps(size, out, scale_factor, align_corners, precision, mode == "bicubic")
    if mode in _LINEAR:
        return _linear_taps(size, out, scale_factor, align_corners, precision)
    if mode == "bicubic":
        return upsample_cubic.cubic_taps(size, out, scale_factor, align_corners, precision)
    return _nearest_taps(size, out, scale_factor, mode == "nearest-exact", precision)


def _output_size(input: Tensor, size, scale_factor, recompute_scale_factor, mode: str) -> tuple[list, list]:
    """The output's spatial sizes, and the scale factor (or None) each dim's positions are computed with."""
    spatial = max(input.ndim - 2, 0)  # (fewer than 3 dims: no spatial dim; the mode's error follows)
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * spatial
        if len(sizes) != spatial:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                             "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             "format.")
        if not all(isinstance(s, int) for s in sizes):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                            f"but got size with types {[type(s) for s in sizes]}")
        return sizes, [None] * spatial
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    factors = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * spatial
    if len(factors) != spatial:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                         f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                         "(s1, s2, ...,sK) format.")
    sizes = [math.floor(input.shape[2 + i] * float(f)) for i, f in enumerate(factors)]
    recompute = recompute_scale_factor or mode == "area"
    return sizes, [None] * spatial if recompute else [float(f) for f in factors]


def _check_image_sizes(input: Tensor, sizes: list) -> None:
    """PyTorch's checks of an image resampling's sizes: none empty, but the batch."""
    if min(input.shape[2:]) <= 0 or min(sizes) <= 0:
        (h, w), (out_h, out_w) = input.shape[2:], sizes
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {h}, W: {w}) output "
                           f"(H: {out_h}, W: {out_w}) [autograd_lab] each output size is floor(size * scale_factor): "
                           "give a larger scale_factor, or size=")
    if input.shape[1] == 0:
        raise RuntimeError(f"Non-empty 4D data tensor expected but got a tensor with sizes {list(input.shape)}")


def _check_cubic_and_antialias_dtype(input: Tensor, mode: str, antialias: bool) -> None:
    """PyTorch's errors for the dtypes bicubic and antialiased resampling have no kernel for; uint8 images, which
    PyTorch resamples with integer arithmetic of its own, are not implemented here."""
    if antialias:
        kernel, supported = "compute_index_ranges_weights", input.dtype in (backend.float32, backend.float64)
    elif mode == "bicubic":
        kernel, supported = "compute_indices_weights_cubic", input.is_floating_point()
    else:
        return
    if input.dtype is backend.uint8:
        raise NotImplementedError(f"interpolate: {mode} resampling of uint8 images is not implemented [autograd_lab] "
                                  "resample input.float() and round back (torchvision's Resize does so for tensors)")
    if not supported:
        raise no_kernel(kernel, input.dtype, "resample a floating-point image (input.float())")


def _mode_error(input: Tensor, mode: str, spatial: int) -> Exception:
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in needs and input.ndim in (3, 4, 5):
        return NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {needs[mode]}D input")
    if mode == "lanczos" or (mode == "area" and input.ndim in (3, 5)):
        return NotImplementedError(f"interpolate: mode '{mode}' for {input.ndim}D input is not implemented "
                                   "[autograd_lab] use 'bilinear' (or 'area' on images)")
    return NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                               f"{input.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
                               f"lanczos | area | nearest-exact (got {mode})")
