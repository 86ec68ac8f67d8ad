"""Sampling an image (or a volume) at arbitrary points: ``grid_sample``, as the Spatial Transformer Networks
tutorial uses it (with ``affine_grid``, :mod:`.nn_affine_grid`).

``grid_sample(input, grid)`` reads, for each point of ``grid`` (coordinates in [-1, 1], x first), the input at
that point: ``nearest`` takes the closest pixel, ``bilinear`` mixes the ``2 ** D`` pixels around it (the *corners*),
each weighted by a product of one factor per spatial dim: ``f`` (the point's distance past the lower pixel) for
an upper corner, ``1 - f`` for a lower one. Corners outside the input read 0 (``padding_mode="zeros"``); with
``border`` or ``reflection`` the point itself is first moved inside, by clamping or by mirroring at the edges.
``bicubic`` (images only) mixes the 4 x 4 pixels around the point, each weighted by a product of the cubic
convolution kernel's weights of ``f`` (:func:`.upsample_cubic.cubic_factor`); as in PyTorch's kernel, the point is
not moved: each of its pixels is (clamped or mirrored), so the slope is the unnormalising scale everywhere.

Everything about a grid that the formulas need is computed once, on arrays (:func:`_corners`): each corner's flat
position in the input and whether it lies inside, the fractions ``f``, and the slope of ``f`` with respect to
the grid coordinate (the unnormalising scale, times -1 where a reflection mirrors, 0 where a clamp holds the
point still). With those, the output is linear in the input and a polynomial in each fraction (multilinear but
for bicubic), so each derivative is the same sum over corners with the weights differentiated once or twice:

* ``grad_input``: each output gradient spread back to the corners it read, with their weights;
* ``grad_grid``: per coordinate, the corners' values times the weights' derivatives, times the slope.

``GridSampler2DBackwardBackward0`` (and its 3-D twin) computes both, as PyTorch records them. Its own derivatives
(gradients of gradients), and the forward-mode rules, are the same sums with the weights differentiated once more.
Every sum is written once, on arrays or tensors (as the formulas of :mod:`.formulas` are), so under ``create_graph``
they are recorded and gradients of any order work.
"""

from __future__ import annotations

import itertools
import warnings

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .upsample_cubic import cubic_factor

__all__ = ["grid_sample"]

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}  # PyTorch's integer codes, which its nodes save
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
                  "details.")


# -- where each grid point reads -----------------------------------------------------------------------------
def _source(xp, coord, size: int, padding_mode: int, align_corners: bool):
    """A grid coordinate (in [-1, 1]) as a position in pixels along a dim of ``size``, moved inside by the padding
    mode, and the slope of that position with respect to the coordinate (as PyTorch's CPU kernels compute both)."""
    dtype = coord.dtype.type
    scale = dtype((size - 1) / 2) if align_corners else dtype(size / 2)
    position = (coord + dtype(1)) * scale if align_corners else (coord + dtype(1)) * scale - dtype(0.5)
    slope = xp.full(coord.shape, scale, dtype=coord.dtype)
    return _padded(xp, position, slope, size, padding_mode, align_corners)


def _padded(xp, position, slope, size: int, padding_mode: int, align_corners: bool):
    """A position in pixels moved inside by the padding mode, and its slope (0 where a clamp holds it still)."""
    dtype = position.dtype.type
    if padding_mode == 2:  # reflection: mirror at the edges (pixel centres, or the outer borders), then clamp
        low, span = (0.0, size - 1) if align_corners else (-0.5, size)
        if span == 0:
            return xp.zeros_like(position), xp.zeros_like(slope)
        shifted = position - dtype(low)
        slope = xp.where(shifted < 0, -slope, slope)
        shifted = xp.abs(shifted)
        flips = xp.floor(shifted / dtype(span))
        extra = xp.fmod(shifted, dtype(span))
        even = flips % 2 == 0
        position = xp.where(even, extra + dtype(low), dtype(span) - extra + dtype(low)).astype(position.dtype)
        slope = xp.where(even, slope, -slope)
    if padding_mode in (1, 2):  # border (and after a reflection): clamp into [0, size - 1]; no slope when clamped
        inside = (position > 0) & (position < size - 1)  # (a NaN, of a NaN or infinite coordinate, goes to 0, as
        position = xp.where(position != position, 0, xp.clip(position, 0, size - 1)).astype(position.dtype)  # there)
        slope = xp.where(inside, slope, dtype(0))
    return position, slope


def _corners(grid, sizes: tuple, mode: int, padding_mode: int, align_corners: bool) -> dict:
    """What every formula needs of a grid (N, *points, D) over spatial ``sizes`` (D of them, slowest first): per
    corner its bits (1: upper along that dim; bicubic: its tap, 0 to 3), flat position (N, P) and inside mask
    (N, P); the slopes and the fractions per spatial dim (N, P). The fractions of a tensor grid are tensors,
    ``slope * coordinate`` plus a constant (the position is piecewise linear in the coordinate), so that formulas
    run on tensors differentiate through them; all else is arrays."""
    data = formulas.array_of(grid)
    xp, dims, cubic = backend.namespace_of(data), len(sizes), mode == 2
    flat_grid = data.reshape(data.shape[0], _count(data.shape[1:-1]), dims)
    point_padding = 0 if cubic else padding_mode  # (bicubic pads each of its taps instead, as PyTorch's kernel does)
    positions, slopes = zip(*(_source(xp, flat_grid[..., dims - 1 - k], sizes[k], point_padding, align_corners)
                              for k in range(dims)))  # (the grid's last axis is x first: the fastest dim)
    finite = [xp.where(xp.isfinite(p), p, -2) for p in positions]  # (a NaN or infinite position reads no pixel)
    if mode == 1:  # nearest: one corner, the closest pixel (half to even, as nearbyint rounds)
        lower = [xp.rint(p).astype(xp.int64) for p in finite]
        fractions, corner_bits = None, [(0,) * dims]
    else:
        lower = [xp.floor(p).astype(xp.int64) for p in finite]
        fractions = [p - xp.floor(p) for p in positions]
        corner_bits = list(itertools.product(range(4) if cubic else (0, 1), repeat=dims))
        if isinstance(grid, Tensor):
            columns = formulas.reshape(grid, flat_grid.shape)
            fractions = [columns[..., dims - 1 - k] * slopes[k] + (fractions[k] - slopes[k] * flat_grid[..., dims - 1 - k])
                         for k in range(dims)]
    corners = []
    for bits in corner_bits:
        if cubic:
            index = [_cubic_tap(xp, p, bit, size, padding_mode, align_corners)
                     for p, bit, size in zip(positions, bits, sizes)]
        else:
            index = [low + bit for low, bit in zip(lower, bits)]
        inside = xp.ones(index[0].shape, dtype=bool)
        flat = xp.zeros(index[0].shape, dtype=xp.int64)
        for k, i in enumerate(index):
            inside &= (i >= 0) & (i < sizes[k])
            flat = flat * sizes[k] + xp.clip(i, 0, sizes[k] - 1)
        corners.append((bits, flat, inside))
    return {"corners": corners, "fractions": fractions, "slopes": slopes, "cubic": cubic}


def _cubic_tap(xp, position, tap: int, size: int, padding_mode: int, align_corners: bool):
    """Where bicubic tap ``tap`` (offsets -1 to 2) of a position reads: ``floor(position) + tap - 1``, moved inside by
    the padding mode; -1 (outside) where that is outside, NaN or infinite (a border clamps an infinity to the edge)."""
    pixel = xp.floor(position) + position.dtype.type(tap - 1)
    pixel = _padded(xp, pixel, xp.zeros_like(pixel), size, padding_mode, align_corners)[0]
    return xp.where(xp.isfinite(pixel) & (pixel > -1) & (pixel < size), pixel, -1).astype(xp.int64)


def _weight(bits, info: dict, differentiated=()):
    """A corner's weight, the product over dims of ``f`` (upper) or ``1 - f`` (lower), or of the cubic kernel's
    weight of its tap (bicubic), with the factors of the dims in ``differentiated`` replaced by their derivative
    (+1 or -1; bicubic: of the order the dim's count in ``differentiated`` says)."""
    weight = 1
    for k, (bit, f) in enumerate(zip(bits, info["fractions"])):
        if info["cubic"]:
            weight = weight * cubic_factor(bit, f, differentiated.count(k))
        else:
            weight = weight * ((1 if bit else -1) if k in differentiated else (f if bit else 1 - f))
    return weight


def _gather(x, flat, inside):
    """The input (N, C, *spatial) at one corner of each point: (N, C, P), 0 where the corner is outside."""
    n, c = x.shape[:2]
    if isinstance(x, Tensor):
        xp = backend.namespace_of(flat)
        index = Tensor._make(xp.ascontiguousarray(xp.broadcast_to(flat[:, None, :], (n, c, flat.shape[1]))))
        values = x.reshape(n, c, _count(x.shape[2:])).gather(2, index)
    else:
        values = backend.namespace_of(x).take_along_axis(x.reshape(n, c, _count(x.shape[2:])), flat[:, None, :], axis=2)
    return formulas.where(inside[:, None, :], values, 0.0)  # (a corner outside is never read: no NaN leaks in)


def _scatter(values, flat, inside, shape):
    """The adjoint of ``_gather``: each value (N, C, P) added into an input-shaped array at its corner."""
    n, c = shape[:2]
    xp = backend.namespace_of(flat)
    if isinstance(values, Tensor):
        index = Tensor._make(xp.ascontiguousarray(xp.broadcast_to(flat[:, None, :], (n, c, flat.shape[1]))))
        out = formulas.zeros((n, c, _count(shape[2:])), values)
        return out.scatter_add(2, index, formulas.where(inside[:, None, :], values, 0.0)).reshape(shape)
    out = xp.zeros((n, c, _count(shape[2:])), dtype=values.dtype)
    rows, channels = xp.arange(n)[:, None, None], xp.arange(c)[None, :, None]
    xp.add.at(out, (rows, channels, flat[:, None, :]), formulas.where(inside[:, None, :], values, 0.0))
    return out.reshape(shape)


def _count(sizes) -> int:
    total = 1
    for s in sizes:
        total *= s
    return total


def _tangent_columns(info: dict, tangent) -> list:
    """A grid-shaped tangent as the change of each spatial dim's fraction (N, P): its coordinate times the slope."""
    dims = len(info["slopes"])
    flat = formulas.reshape(tangent, (tangent.shape[0], _count(tangent.shape[1:-1]), dims))
    return [flat[..., dims - 1 - k] * info["slopes"][k] for k in range(dims)]


def _directional(bits, info: dict, columns: list, fixed: tuple = ()):
    """The derivative of a corner's weight (already differentiated along ``fixed``) in the direction ``columns``."""
    total = 0
    for j, column in enumerate(columns):
        if j not in fixed or info["cubic"]:  # (the linear weights have no second derivative along one dim)
            total = total + _weight(bits, info, fixed + (j,)) * column
    return total


# -- the sums over corners every formula is made of -------------------------------------------------------------
def _read(x, info: dict, weight, out_shape):
    """sum over corners of the input at the corner times ``weight(bits)`` (N, P): (N, C, *points)."""
    terms = [_gather(x, flat, inside) * weight(bits)[:, None, :] for bits, flat, inside in info["corners"]]
    return formulas.reshape(formulas.cast_like(sum(terms[1:], terms[0]), x), out_shape)


def _spread(g, info: dict, weight, shape):
    """The adjoint of ``_read``: each gradient (N, C, *points) added into the input's ``shape`` at the corners."""
    flat_g = formulas.reshape(g, (g.shape[0], g.shape[1], _count(g.shape[2:])))
    terms = [_scatter(flat_g * weight(bits)[:, None, :], flat, inside, shape) for bits, flat, inside in info["corners"]]
    return formulas.cast_like(sum(terms[1:], terms[0]), g)


def _per_coordinate(g, x, info: dict, weight, grid_shape):
    """Per grid coordinate (dim k): its slope times the sum over corners and channels of the gradient, the input at
    the corner and ``weight(bits, k)``; grid-shaped."""
    flat_g = formulas.reshape(g, (g.shape[0], g.shape[1], _count(g.shape[2:])))
    dims = len(info["slopes"])
    columns = [0] * dims
    for bits, flat, inside in info["corners"]:
        read = formulas.sum(flat_g * _gather(x, flat, inside), 1)  # (N, P)
        for k in range(dims):
            columns[k] = columns[k] + read * weight(bits, k)
    result = formulas.stack([columns[k] * info["slopes"][k] for k in reversed(range(dims))], -1)
    return formulas.reshape(formulas.cast_like(result, g), grid_shape)


def _info(input, grid, interpolation_mode, padding_mode, align_corners) -> dict:
    return _corners(grid, tuple(input.shape[2:]), interpolation_mode, padding_mode, align_corners)


def _points_shape(input, grid) -> tuple:
    return tuple(input.shape[:2]) + tuple(grid.shape[1:-1])


def _weights(info: dict):
    """Each corner's weight as a function of its bits (1 for nearest's one corner)."""
    fractions = info["fractions"]
    return (lambda bits: 1 + 0 * info["slopes"][0]) if fractions is None else (lambda bits: _weight(bits, info))


# -- the formulas -------------------------------------------------------------------------------------------------
def _sampled(input, grid, settings):
    info = _info(input, grid, *settings)
    return _read(input, info, _weights(info), _points_shape(input, grid))


def _grads(grad_output, input, grid, settings, output_mask):
    """(grad_input, grad_grid) of a sampling, those in ``output_mask``."""
    info = _info(input, grid, *settings)
    outs = []
    if output_mask[0]:
        outs.append(_spread(grad_output, info, _weights(info), input.shape))
    if output_mask[1]:
        if info["fractions"] is None:  # nearest: moving a point a little reads the same pixel
            outs.append(formulas.zeros(grid.shape, grad_output))
        else:
            weight = lambda bits, k: _weight(bits, info, (k,))  # noqa: E731
            outs.append(_per_coordinate(grad_output, input, info, weight, grid.shape))
    return tuple(outs)


def _sampled_tangent(input, grid, input_t, grid_t, settings):
    """The tangent of a sampling (either tangent may be None): the tangent input sampled, plus the input read
    with the weights' change."""
    info = _info(input, grid, *settings)
    shape = _points_shape(input, grid)
    out = formulas.zeros(shape, input) if input_t is None else _read(input_t, info, _weights(info), shape)
    if info["fractions"] is not None and grid_t is not None:
        columns = _tangent_columns(info, grid_t)
        out = out + _read(input, info, lambda bits: _directional(bits, info, columns), shape)
    return out


def _grads_tangent(grad_output, input, grid, tangents, settings, output_mask):
    """The tangent of ``_grads`` given tangents of (grad_output, input, grid), each possibly None: ``grad_input``
    is linear in grad_output, ``grad_grid`` bilinear in (grad_output, input), both depend on the grid through the
    weights."""
    g_t, input_t, grid_t = tangents
    info = _info(input, grid, *settings)
    bilinear = info["fractions"] is not None
    columns = _tangent_columns(info, grid_t) if bilinear and grid_t is not None else None
    outs = []
    if output_mask[0]:
        out = formulas.zeros(input.shape, grad_output)
        if g_t is not None:
            out = out + _spread(g_t, info, _weights(info), input.shape)
        if columns is not None:
            out = out + _spread(grad_output, info, lambda bits: _directional(bits, info, columns), input.shape)
        outs.append(out)
    if output_mask[1]:
        out = formulas.zeros(grid.shape, grad_output)
        if bilinear:
            weight = lambda bits, k: _weight(bits, info, (k,))  # noqa: E731
            if g_t is not None:
                out = out + _per_coordinate(g_t, input, info, weight, grid.shape)
            if input_t is not None:
                out = out + _per_coordinate(grad_output, input_t, info, weight, grid.shape)
            if columns is not None:
                second = lambda bits, k: _directional(bits, info, columns, (k,))  # noqa: E731
                out = out + _per_coordinate(grad_output, input, info, second, grid.shape)
        outs.append(out)
    return tuple(outs)


# -- the ops --------------------------------------------------------------------------------------------------------
class _GridSampler(Op):
    """out = ``input`` (N, C, *spatial) read at each point of ``grid`` (N, *points, D): (N, C, *points).
    ``interpolation_mode``: 0 bilinear, 1 nearest, 2 bicubic; ``padding_mode``: 0 zeros, 1 border, 2 reflection."""
    saves = ("align_corners", "grid", "input", "interpolation_mode", "padding_mode")

    def forward(xp, input, grid, *, interpolation_mode, padding_mode, align_corners):
        return _sampled(input, grid, (interpolation_mode, padding_mode, align_corners))

    def backward(grad, input, grid, interpolation_mode, padding_mode, align_corners, grad_input_mask):
        return _gradients(grad, input, grid, interpolation_mode, padding_mode, align_corners, grad_input_mask)

    def jvp(tangents, input, grid, interpolation_mode, padding_mode, align_corners):
        return _sampled_tangent(input, grid, *tangents, (interpolation_mode, padding_mode, align_corners))


class _GridSamplerBackward(Op):
    """(grad_input, grad_grid) of a sampling, those in ``output_mask``: linear in grad_output."""
    saves = ("align_corners", "grad_output", "grid", "input", "interpolation_mode", "padding_mode", "output_mask")

    def forward(xp, grad_output, input, grid, *, interpolation_mode, padding_mode, align_corners, output_mask):
        outs = _grads(grad_output, input, grid, (interpolation_mode, padding_mode, align_corners), output_mask)
        return outs if len(outs) > 1 else outs[0]

    def backward(grads, grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask,
                 grad_input_mask):
        # <grad_input, A> + <grad_grid, B> differentiated: by grad_output, the sampling's tangent in the direction
        # (A, B); by input and by grid, the tangents of grad_grid in the directions (B) and (A, B), as the second
        # derivatives of the weights are symmetric (see _grads_tangent)
        grads = iter(grads if isinstance(grads, tuple) else (grads,))
        cotangent_input = next(grads) if output_mask[0] else None
        cotangent_grid = next(grads) if output_mask[1] else None
        settings = (interpolation_mode, padding_mode, align_corners)
        need_grad, need_input, need_grid = grad_input_mask
        d_grad = d_input = d_grid = None
        if need_grad:
            d_grad = _sampled_tangent(input, grid, cotangent_input, cotangent_grid, settings)
        if need_input and cotangent_grid is not None:
            (d_input,) = _grads_tangent(grad_output, input, grid, (None, None, cotangent_grid), settings, (True, False))
        if need_grid:
            (d_grid,) = _grads_tangent(grad_output, input, grid, (None, cotangent_input, cotangent_grid), settings,
                                       (False, True))
        return d_grad, d_input, d_grid

    def jvp(tangents, grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask):
        outs = _grads_tangent(grad_output, input, grid, tangents, (interpolation_mode, padding_mode, align_corners),
                              output_mask)
        return outs if len(outs) > 1 else outs[0]


class GridSampler2DBackward0(_GridSampler):
    """grid_sample of images, (N, C, H, W) with a (N, H_out, W_out, 2) grid: PyTorch's node name"""


class GridSampler3DBackward0(_GridSampler):
    """grid_sample of volumes, (N, C, D, H, W) with a (N, D_out, H_out, W_out, 3) grid"""


class GridSampler2DBackwardBackward0(_GridSamplerBackward):
    """the gradients of an image grid_sample, recorded under create_graph"""


class GridSampler3DBackwardBackward0(_GridSamplerBackward):
    """the gradients of a volume grid_sample, recorded under create_graph"""


_BACKWARD_OPS = {2: GridSampler2DBackwardBackward0, 3: GridSampler3DBackwardBackward0}


def _gradients(grad, input, grid, interpolation_mode, padding_mode, align_corners, grad_input_mask):
    """The sampling's (grad_input, grad_grid), those asked for, through its backward op (recorded under
    create_graph, as PyTorch records it)."""
    mask = tuple(bool(m) for m in grad_input_mask)
    if not any(mask):
        return None, None
    outs = formulas.call(_BACKWARD_OPS[input.ndim - 2], grad, input, grid, interpolation_mode=interpolation_mode,
                         padding_mode=padding_mode, align_corners=align_corners, output_mask=mask)
    outs = iter(outs if isinstance(outs, tuple) else (outs,))
    return tuple(next(outs) if needed else None for needed in mask)


# -- the functions --------------------------------------------------------------------------------------------------
@checked
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` (N, C, H, W) read at the points of ``grid`` (N, H_out, W_out, 2), coordinates x, y in [-1, 1]
    (-1: the left or top edge): (N, C, H_out, W_out); likewise for a volume (N, C, D, H, W) and a grid
    (N, D_out, H_out, W_out, 3). ``mode``: ``bilinear``, ``nearest`` or ``bicubic`` (images only);
    ``padding_mode``: what points outside read (``zeros``, ``border``, ``reflection``); ``align_corners``: whether -1
    and 1 are the centres of the corner pixels (True) or their outer edges (False, the default)."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    _check_grid(input, grid)
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if input.ndim == 4 else "grid_sampler3d_cpu"  # (PyTorch's names)
        raise no_kernel(kernel, input.dtype, "sample a floating-point input (input.float())")
    op = GridSampler2DBackward0 if input.ndim == 4 else GridSampler3DBackward0
    return op.apply(input, grid, interpolation_mode=_MODES[mode], padding_mode=_PADDINGS[padding_mode],
                    align_corners=bool(align_corners))


def _check_grid(input: Tensor, grid: Tensor) -> None:
    """PyTorch's checks of an input and a grid, in its order and words."""
    if input.dtype is not grid.dtype:
        raise RuntimeError(f"expected scalar type {backend.kernel_type_name(input.dtype)} but found "
                           f"{backend.kernel_type_name(grid.dtype)}")
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[:1] != grid.shape[:1]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes} "
                           "[autograd_lab] give one grid per image: (N, H_out, W_out, 2) for an input (N, C, H, W)")
    if grid.shape[-1:] != (input.ndim - 2,):
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)} [autograd_lab] a point has one coordinate per spatial "
                           "dim, x first: (x, y) for an image, (x, y, z) for a volume")
    for dim in range(2, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {dim} being empty")
    expected = 4 if input.ndim == 4 else 5
    if input.ndim != expected or grid.ndim != expected:
        raise RuntimeError(f"grid_sampler(): expected {expected}D input and grid with same number of dimensions, but "
                           f"got {sizes} [autograd_lab] sample an image (N, C, H, W) with a grid (N, H_out, W_out, 2), "
                           "or a volume (N, C, D, H, W) with a grid (N, D_out, H_out, W_out, 3)")
