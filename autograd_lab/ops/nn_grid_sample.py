"""Sampling an image (or a volume) at arbitrary points: ``affine_grid`` and ``grid_sample``, as the Spatial
Transformer Networks tutorial uses them.

``grid_sample(input, grid)`` reads, for each point of ``grid`` (coordinates in [-1, 1], x first), the input at
that point: ``nearest`` takes the closest pixel, ``bilinear`` mixes the ``2 ** D`` pixels around it (the *corners*),
each weighted by a product of one factor per spatial dim: ``f`` (the point's distance past the lower pixel) for
an upper corner, ``1 - f`` for a lower one. Corners outside the input read 0 (``padding_mode="zeros"``); with
``border`` or ``reflection`` the point itself is first moved inside, by clamping or by mirroring at the edges.

Everything about a grid that the formulas need is computed once, on arrays (:func:`_corners`): each corner's flat
position in the input and whether it lies inside, the fractions ``f``, and the slope of ``f`` with respect to
the grid coordinate (the unnormalising scale, times -1 where a reflection mirrors, 0 where a clamp holds the
point still). With those, the output is linear in the input and multilinear in the fractions, so each
derivative is the same sum over corners with the weights differentiated once or twice:

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

import numpy as np

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op

__all__ = ["affine_grid", "grid_sample"]

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}  # PyTorch's integer codes, which its nodes save
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
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
        position = xp.where(even, extra + dtype(low), dtype(span) - extra + dtype(low)).astype(coord.dtype)
        slope = xp.where(even, slope, -slope)
    if padding_mode in (1, 2):  # border (and after a reflection): clamp into [0, size - 1]; no slope when clamped
        inside = (position > 0) & (position < size - 1)  # (a NaN, of a NaN or infinite coordinate, goes to 0, as
        position = xp.where(position != position, 0, xp.clip(position, 0, size - 1)).astype(coord.dtype)  # there)
        slope = xp.where(inside, slope, dtype(0))
    return position, slope


def _corners(grid, sizes: tuple, mode: int, padding_mode: int, align_corners: bool) -> dict:
    """What every formula needs of a grid (N, *points, D) over spatial ``sizes`` (D of them, slowest first): per
    corner its bits (1: upper along that dim), flat position (N, P) and inside mask (N, P); the slopes and the
    fractions per spatial dim (N, P). The fractions of a tensor grid are tensors, ``slope * coordinate`` plus a
    constant (the position is piecewise linear in the coordinate), so that formulas run on tensors differentiate
    through them; all else is arrays."""
    data = formulas.array_of(grid)
    xp, dims = backend.namespace_of(data), len(sizes)
    flat_grid = data.reshape(data.shape[0], _count(data.shape[1:-1]), dims)
    positions, slopes = zip(*(_source(xp, flat_grid[..., dims - 1 - k], sizes[k], padding_mode, align_corners)
                              for k in range(dims)))  # (the grid's last axis is x first: the fastest dim)
    finite = [xp.where(xp.isfinite(p), p, -2) for p in positions]  # (a NaN or infinite position reads no pixel)
    if mode == 1:  # nearest: one corner, the closest pixel (half to even, as nearbyint rounds)
        lower = [xp.rint(p).astype(xp.int64) for p in finite]
        fractions, corner_bits = None, [(0,) * dims]
    else:
        lower = [xp.floor(p).astype(xp.int64) for p in finite]
        fractions = [p - xp.floor(p) for p in positions]
        corner_bits = list(itertools.product((0, 1), repeat=dims))
        if isinstance(grid, Tensor):
            columns = formulas.reshape(grid, flat_grid.shape)
            fractions = [columns[..., dims - 1 - k] * slopes[k] + (fractions[k] - slopes[k] * flat_grid[..., dims - 1 - k])
                         for k in range(dims)]
    corners = []
    for bits in corner_bits:
        index = [low + bit for low, bit in zip(lower, bits)]
        inside = xp.ones(index[0].shape, dtype=bool)
        flat = xp.zeros(index[0].shape, dtype=xp.int64)
        for k, i in enumerate(index):
            inside &= (i >= 0) & (i < sizes[k])
            flat = flat * sizes[k] + xp.clip(i, 0, sizes[k] - 1)
        corners.append((bits, flat, inside))
    return {"corners": corners, "fractions": fractions, "slopes": slopes}


def _weight(bits, fractions, differentiated=()):
    """A corner's weight, the product over dims of ``f`` (upper) or ``1 - f`` (lower), with the factors of the dims
    in ``differentiated`` replaced by their derivative (+1 or -1)."""
    weight = 1
    for k, (bit, f) in enumerate(zip(bits, fractions)):
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
        if j not in fixed:
            total = total + _weight(bits, info["fractions"], fixed + (j,)) * column
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
    return (lambda bits: 1 + 0 * info["slopes"][0]) if fractions is None else (lambda bits: _weight(bits, fractions))


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
            weight = lambda bits, k: _weight(bits, info["fractions"], (k,))  # noqa: E731
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
            weight = lambda bits, k: _weight(bits, info["fractions"], (k,))  # noqa: E731
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
    ``interpolation_mode``: 0 bilinear, 1 nearest; ``padding_mode``: 0 zeros, 1 border, 2 reflection."""
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
    (N, D_out, H_out, W_out, 3). ``mode``: ``bilinear`` or ``nearest``; ``padding_mode``: what points outside read
    (``zeros``, ``border``, ``reflection``); ``align_corners``: whether -1 and 1 are the centres of the corner pixels
    (True) or their outer edges (False, the default)."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    _check_grid(input, grid)
    if mode == "bicubic":
        if input.ndim != 4:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        raise NotImplementedError("grid_sample: mode 'bicubic' is not implemented [autograd_lab] use 'bilinear'")
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


class AffineGridGeneratorBackward0(Op):
    """out = a grid (N, *size[2:], D) of the points of ``size``'s spatial dims (in [-1, 1], x first) moved by each
    affine matrix of ``theta`` (N, D, D + 1): out[n, p] = theta[n] @ (x_p, y_p, [z_p,] 1)."""
    saves = ("align_corners", "size")

    def forward(xp, theta, *, size, align_corners):
        base = _base_grid(xp, size, align_corners, theta.dtype)  # (P, D + 1)
        out = xp.matmul(base[None], xp.swapaxes(theta, 1, 2))  # (N, P, D)
        return out.reshape((size[0],) + tuple(size[2:]) + (len(size) - 2,))

    def d_theta(grad, size, align_corners):  # out is linear in theta: the gradient against the grid's points
        data = formulas.array_of(grad)
        base = _base_grid(backend.namespace_of(data), size, align_corners, data.dtype)
        if isinstance(grad, Tensor):
            base = Tensor._make(base)
        flat = formulas.reshape(grad, (size[0], -1, len(size) - 2))
        return formulas.matmul(formulas.transpose(flat, 1, 2), base)

    jvp = LINEAR


def _base_grid(xp, size, align_corners: bool, dtype):
    """The points of the spatial dims of ``size``, x (the fastest dim) first, with a 1 appended: (P, D + 1)."""
    axes = []
    for steps in reversed(size[2:]):  # x, y[, z]
        line = _linspace(steps, dtype)
        axes.append(line if align_corners or steps <= 1 else line * (steps - 1) / steps)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # slowest dim first, as the output is laid out
    columns = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(mesh[0].size, dtype=dtype)]
    return xp.asarray(np.stack(columns, axis=-1))


def _linspace(steps: int, dtype):
    """``steps`` points from -1 to 1 as PyTorch's linspace computes them: the first half counted up from -1, the
    rest down from 1, each a fused multiply-add (one rounding, so in a wider type here) of the dtype's step."""
    if steps <= 1:
        return np.zeros(steps, dtype=dtype)
    wide = np.float64 if dtype.itemsize < 8 else np.longdouble
    step, i = wide(dtype.type(2) / dtype.type(steps - 1)), np.arange(steps)
    return np.where(i < steps // 2, wide(-1) + step * i, wide(1) - step * (steps - 1 - i)).astype(dtype)


@checked
def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """A sampling grid for ``grid_sample``: the points of an image of ``size`` (N, C, H, W), or of a volume
    (N, C, D, H, W), moved by the affine matrices ``theta`` (N, 2, 3), or (N, 3, 4)."""
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} for size {size}. "
                         f"Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True."
                      " This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=3)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {dims + 1}] but "
                           f"got: [{theta.shape[0]}, {dims + 1}]. [autograd_lab] affine_grid: theta has one matrix per "
                           f"image of size, {theta.shape[0]} for a batch of {size[0]}")
    return AffineGridGeneratorBackward0.apply(theta, size=size, align_corners=bool(align_corners))

