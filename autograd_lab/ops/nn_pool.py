"""Pooling over images (N, C, H, W): ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``.

The windows are read through the strided view of :mod:`.nn_conv` (``_windows``), and gradients are spread
back over them with its ``col2im``. Each pooling op's derivative is again an op of this file (``...Backward0``
beside ``...BackwardBackward0``), so gradients of gradients work.

The kernels (``_max_pool_indices``, ``_max_pool_grad``, ``_avg_divisor``, ``_adaptive_mean``...) take any number of
spatial dims: the same code pools sequences, images and volumes (:mod:`.nn_pool3d`). A max pooling's indices are
flat positions in the spatial dims, row-major: ``row * W + column`` in an image, ``(t * H + row) * W + column`` in a
volume.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .nn_conv import _batched, _col2im, _pad, _pair, _windows


# -- pooling -----------------------------------------------------------------------------------
def _pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode, op):
    """Output size and the padding (before, after) per spatial dim, with the extra right padding that ``ceil_mode``
    adds, of an input of ``shape`` (..., C, *spatial)."""
    spatial = len(kernel)
    size = tuple(shape[-spatial:])
    out, pads = [], []
    for i in range(spatial):
        span = size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1
        o = (-(-span // stride[i]) if ceil_mode else span // stride[i]) + 1
        if ceil_mode and (o - 1) * stride[i] >= size[i] + padding[i]:
            o -= 1  # the last window must start inside the input or its left padding
        out.append(o)
        extra = max(0, (o - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 - size[i] - 2 * padding[i])
        pads += [padding[i], padding[i] + extra]
    if min(out) <= 0:
        channels = shape[-spatial - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (channels, *size)))}). Calculated output size: "
                           f"({'x'.join(map(str, (channels, *out)))}). Output size is too small [autograd_lab] {op}: "
                           "the (dilated) kernel is larger than the padded input")
    return tuple(out), tuple(pads)


def _planes(array, spatial: int):
    """An (..., *spatial) array as (..., prod(spatial)): each plane (or volume) flat, row-major (sizes written out:
    NumPy cannot infer a -1 with a zero size)."""
    return array.reshape(array.shape[:-spatial] + (math.prod(array.shape[-spatial:]),))


def _gather_maxima(xp, self, indices, spatial: int):
    """The values of ``self`` at the flat ``indices`` of each plane (a batch, or one unbatched sample)."""
    return xp.take_along_axis(_planes(self, spatial), _planes(indices, spatial), axis=-1).reshape(indices.shape)


def _max_pool_grad(xp, grad, indices, sizes, spatial: int):
    """Zeros shaped like the pooled input (``sizes``), with ``grad`` added at the maxima' flat ``indices``; every dim
    before the ``spatial`` ones (batch, channels) counts as one more plane."""
    planes, size = math.prod(grad.shape[:-spatial]), math.prod(sizes[-spatial:])
    out = xp.zeros(planes * size, dtype=grad.dtype)
    window_count = math.prod(grad.shape[-spatial:])
    positions = indices.reshape(planes, window_count) + (xp.arange(planes) * size)[:, None]  # flat: add.at on
    xp.add.at(out, positions.reshape(-1), grad.reshape(-1))  # one axis is its quick path (overlapping windows add up)
    return out.reshape(tuple(sizes))


class MaxPool2DWithIndicesBackward0(Op):
    """out = the largest element of each window, read at ``result1``: the indices of the maxima (flat positions in
    H * W), PyTorch's name for max_pool2d_with_indices' second output. The window's geometry is saved as PyTorch
    saves it (``stride`` () when none was given); the indices alone say where each value comes from."""
    saves = ("ceil_mode", "dilation", "kernel_size", "padding", "result1", "self", "stride")
    tensor_params = ("result1",)  # (as PyTorch: the input and the indices, both version-checked records)

    def forward(xp, self, *, result1, kernel_size=(), stride=(), padding=(), dilation=(), ceil_mode=False):
        return _gather_maxima(xp, self, result1, 2)  # (a batch of images, or one (C, H, W) image, recorded as it is)

    def d_self(grad, result1, self):
        return formulas.call(MaxPool2DWithIndicesBackwardBackward0, grad, indices=result1, self_sym_sizes=self.shape)

    jvp = LINEAR


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """out = zeros shaped like the pooled input, with ``grad`` added at the positions of the maxima"""
    saves = ("indices",)
    tensor_params = ("indices",)

    def forward(xp, grad, *, indices, self_sym_sizes):
        return _max_pool_grad(xp, grad, indices, self_sym_sizes, 2)

    def d_grad(grad, indices):
        return formulas.call(MaxPool2DWithIndicesBackward0, grad, result1=indices)

    jvp = LINEAR


def _last_nan(xp, values, axis: int):
    """The position along ``axis`` of the first maximum, or of the last NaN where there is one: PyTorch's kernels
    take a value that is greater, or NaN, so a later NaN replaces an earlier one."""
    best = xp.argmax(values, axis=axis)
    if values.dtype.kind != "f":
        return best
    nan = xp.isnan(values)
    if not nan.any():
        return best
    last = values.shape[axis] - 1 - xp.argmax(xp.flip(nan, axis=axis), axis=axis)
    return xp.where(nan.any(axis=axis), last, best)


def _window_starts(xp, out, stride, padding) -> list:
    """Per spatial dim, where each window starts in the unpadded input, shaped to broadcast against ``out``."""
    spatial = len(out)
    return [(xp.arange(out[d]) * stride[d] - padding[d]).reshape((1,) * d + (out[d],) + (1,) * (spatial - 1 - d))
            for d in range(spatial)]


def _max_pool_indices(xp, x, kernel, stride, padding, dilation, ceil_mode, op: str):
    """Flat (row-major, in the spatial dims) index in the input of each window's maximum, first maximum on ties
    (last NaN), for ``x`` (N, C, *spatial)."""
    size, spatial, taps = x.shape[2:], len(kernel), math.prod(kernel)
    out, pads = _pool_geometry(x.shape, kernel, stride, padding, dilation, ceil_mode, op)
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    win = _windows(xp, _pad(xp, x, pads, fill), kernel, stride, dilation, out)
    best = _last_nan(xp, win.reshape(x.shape[:2] + (taps,) + out), 2)  # which tap of the window, (N, C, *out)
    starts = _window_starts(xp, out, stride, padding)
    if any(pads):  # a padded position wins only where all of the window inside the input is ``fill`` (-inf, say):
        inside = True  # PyTorch then names the first one inside; (taps, *out): whether each tap reads the input
        for d, tap in enumerate(xp.unravel_index(xp.arange(taps), kernel)):
            position = starts[d][None] + (tap * dilation[d]).reshape((taps,) + (1,) * spatial)
            inside = inside & (position >= 0) & (position < size[d])
        picked = xp.take_along_axis(inside[None, None], best[:, :, None], axis=2)[:, :, 0]
        best = xp.where(picked, best, xp.argmax(inside, axis=0))
    flat = xp.zeros(best.shape, dtype=xp.int64)
    for d, tap in enumerate(xp.unravel_index(best, kernel)):
        flat = flat * size[d] + starts[d] + tap * dilation[d]
    return flat


_AXES = {2: ("H", "W"), 3: ("T", "H", "W")}  # PyTorch's letters for the spatial dims in its messages


def _check_pool(op: str, kernel, stride, padding, dilation=None) -> None:
    """PyTorch's checks of a pooling window, in its order and words: per dim the stride (before any arithmetic
    divides by it) and the padding, then kernel, strides and dilation together."""
    dilation = dilation or (1,) * len(kernel)
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError(f"stride should not be zero [autograd_lab] {op} got stride={list(stride)} "
                               f"(it defaults to kernel_size={list(kernel)})")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p * 2 > d * (k - 1) + 1:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d} [autograd_lab] {op}")
    axes = _AXES[len(kernel)]
    for what, letter, values in (("kernel size", "k", kernel), ("stride", "d", stride), ("dilation", "dilation",
                                                                                         dilation)):
        if min(values) <= 0:
            got = " ".join(f"{letter}{axis}: {v}" for axis, v in zip(axes, values))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")


@checked
def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each (dilated) window; with ``return_indices``, also where it was (flat in H * W)."""
    x, unbatched = _batched(input, "max_pool2d")
    kernel = _pair(kernel_size, "kernel_size", "max_pool2d")
    given = () if stride is None or stride == [] else _pair(stride, "stride", "max_pool2d")  # (): the kernel's
    padding, dilation = _pair(padding, "padding", "max_pool2d"), _pair(dilation, "dilation", "max_pool2d")
    _check_pool("max_pool2d", kernel, given or kernel, padding, dilation)
    xp = backend.namespace_of(x._data)
    indices = _max_pool_indices(xp, x._data, kernel, given or kernel, padding, dilation, ceil_mode, "max_pool2d")
    indices = Tensor._make(indices[0] if unbatched else indices)
    out = MaxPool2DWithIndicesBackward0.apply(input, result1=indices, kernel_size=kernel, stride=given, padding=padding,
                                              dilation=dilation, ceil_mode=ceil_mode)  # (one (C, H, W) image as it is)
    return (out, indices) if return_indices else out


def _avg_divisor(xp, size, out, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    """The number each window's sum is divided by, per output position (``out``): the product, over the spatial
    dims, of the window's length there (padding counted or not)."""
    if divisor_override:
        return xp.full(out, float(divisor_override), dtype=dtype)
    counts = xp.ones(out, dtype=xp.int64)
    for d, start in enumerate(_window_starts(xp, out, stride, padding)):
        end = xp.minimum(start + kernel[d], size[d] + padding[d])  # windows never count past the right padding
        counts = counts * ((end - start) if count_include_pad else (xp.minimum(end, size[d]) - xp.maximum(start, 0)))
    return counts.astype(dtype)


class AvgPool2DBackward0(Op):
    """out = the mean of each window (see ``count_include_pad`` and ``divisor_override``); ``stride`` () when not
    given (the kernel size then), as PyTorch saves it. (Any number of spatial dims: as many as ``kernel_size``.)"""
    saves = ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "self", "stride")

    def forward(xp, self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        spatial = len(kernel_size)
        if self.ndim == spatial + 1:  # one unbatched sample: a batch of one
            return AvgPool2DBackward0.forward(xp, self[None], kernel_size=kernel_size, stride=stride, padding=padding,
                                              ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                              divisor_override=divisor_override)[0]
        stride, ones = stride or kernel_size, (1,) * spatial
        out, pads = _pool_geometry(self.shape, kernel_size, stride, padding, ones, ceil_mode, f"avg_pool{spatial}d")
        win = _windows(xp, _pad(xp, self, pads), kernel_size, stride, ones, out)
        divisor = _avg_divisor(xp, self.shape[2:], out, kernel_size, stride, padding, count_include_pad,
                               divisor_override, self.dtype)
        mean = win.sum(axis=tuple(range(2, 2 + spatial))) / divisor
        if self.dtype.kind == "f":
            return mean
        return xp.trunc(mean).astype(self.dtype)  # integers: C's integer division (toward zero), as PyTorch's kernel

    def d_self(grad, ceil_mode, count_include_pad, divisor_override, kernel_size, padding, self, stride):
        return formulas.call(
            AvgPool2DBackwardBackward0, grad, kernel_size=kernel_size, stride=stride, padding=padding,
            ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override,
            self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


def _avg_pool_grad(xp, grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, sizes):
    """Each window's gradient, divided by its divisor, spread evenly over the window (an input of ``sizes``)."""
    spatial = len(kernel_size)
    if grad.ndim == spatial + 1:  # one unbatched sample: a batch of one
        return _avg_pool_grad(xp, grad[None], kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override, (1,) + tuple(sizes))[0]
    size, stride, ones = sizes[2:], stride or kernel_size, (1,) * spatial
    out, pads = _pool_geometry(sizes, kernel_size, stride, padding, ones, ceil_mode, f"avg_pool{spatial}d")
    divisor = _avg_divisor(xp, size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                           grad.dtype)
    share = grad / divisor
    taps = (slice(None), slice(None)) + (None,) * spatial  # a window's share, the same at each of its taps
    cols = xp.broadcast_to(share[taps], share.shape[:2] + tuple(kernel_size) + tuple(out))
    return _col2im(xp, cols, size, kernel_size, stride, ones, pads)


class AvgPool2DBackwardBackward0(Op):
    """out = each window's gradient, divided by its divisor, spread evenly over the window"""
    saves = ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride")

    def forward(xp, grad, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                self_sym_sizes):
        return _avg_pool_grad(xp, grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                              self_sym_sizes)

    def d_grad(grad, ceil_mode, count_include_pad, divisor_override, kernel_size, padding, stride):
        return formulas.call(AvgPool2DBackward0, grad, kernel_size=kernel_size, stride=stride, padding=padding,
                             ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                             divisor_override=divisor_override)

    jvp = LINEAR


@checked
def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window, as ``F.avg_pool2d``."""
    kernel = _pair(kernel_size, "kernel_size", "avg_pool2d")
    stride = () if stride is None or stride == [] else _pair(stride, "stride", "avg_pool2d")  # (): the kernel's
    padding = _pair(padding, "padding", "avg_pool2d")
    _check_pool("avg_pool2d", kernel, stride or kernel, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    _batched(input, "avg_pool2d")  # (one (C, H, W) image is recorded as it is, as PyTorch)
    return AvgPool2DBackward0.apply(input, kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                                    count_include_pad=count_include_pad, divisor_override=divisor_override)


def _adaptive_bounds(xp, size: int, out: int):
    """Window i of the ``out`` adaptive windows over ``size`` positions: floor(i*size/out) .. ceil((i+1)*size/out) - 1
    (neighbours may share a position)."""
    i = xp.arange(out)
    return (i * size) // out, -(-((i + 1) * size) // out)


def _gathered_sums(xp, x, first, last):
    """Along the last axis of ``x``: for each row r of ``first``/``last``, the sum of x[first[r] .. last[r]], read
    element by element (a NaN or an infinity stays in the sums it belongs to; a product with a 0/1 matrix would
    carry it into every sum as 0 * inf = NaN)."""
    longest = int((last - first).max()) + 1 if first.size else 1
    positions = first[:, None] + xp.arange(longest)
    inside = positions <= last[:, None]
    return xp.where(inside, x[..., xp.minimum(positions, last[:, None])], 0).sum(-1)


def _adaptive_mean(xp, x, input_size, output_size, spread: bool = False):
    """Means over the adaptive windows that tile an input of spatial size ``input_size`` into ``output_size``, one
    spatial dim (the last ``len(output_size)`` of ``x``) at a time; with ``spread``, the adjoint: each value of an
    output-sized ``x`` spread evenly over its window (an input position sums the shares of the windows holding it)."""
    spatial = len(output_size)
    for d in range(spatial):
        axis = x.ndim - spatial + d
        start, end = _adaptive_bounds(xp, input_size[d], output_size[d])
        x = xp.moveaxis(x, axis, -1)
        if spread:  # the windows holding position p: those from the first ending after p to the last starting at it
            p = xp.arange(input_size[d])
            x = _gathered_sums(xp, x / (end - start).astype(x.dtype), xp.searchsorted(end, p, side="right"),
                               xp.searchsorted(start, p, side="right") - 1)
        else:
            x = _gathered_sums(xp, x, start, end - 1) / (end - start).astype(x.dtype)
        x = xp.moveaxis(x.astype(x.dtype, copy=False), -1, axis)
    return xp.ascontiguousarray(x)  # (row-major, as PyTorch's result: a later view() of it works in both)


class AdaptiveAvgPool2DBackward0(Op):
    """out = means over a grid of output_size windows that tile the input (sizes may differ by one)"""
    saves = ("self",)  # (as PyTorch: its formula reads the input's shape from the saved input)

    def forward(xp, self, *, output_size):
        return _adaptive_mean(xp, self, self.shape[-len(output_size):], output_size)

    def d_self(grad, self):
        return formulas.call(AdaptiveAvgPool2DBackwardBackward0, grad, input_size=tuple(self.shape[-2:]))

    jvp = LINEAR


class AdaptiveAvgPool2DBackwardBackward0(Op):
    """out = each output gradient spread evenly over its window of an input of spatial size ``input_size``"""
    saves = ("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2")  # (as PyTorch: the output size)

    def forward(xp, grad_output, *, input_size):
        return _adaptive_mean(xp, grad_output, input_size, grad_output.shape[-len(input_size):], spread=True)

    def d_grad_output(grad, grad_output_sym_argsize_minus_1, grad_output_sym_argsize_minus_2):
        return formulas.call(AdaptiveAvgPool2DBackward0, grad,
                             output_size=(grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1))

    jvp = LINEAR


@checked
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average over an ``output_size`` grid of windows, whatever the input size (``None`` keeps a dim)."""
    _batched(input, "adaptive_avg_pool2d")  # (one (C, H, W) image is recorded as it is, as PyTorch)
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    size = tuple(input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    if len(size) != 2 or min(size) < 0:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be an int or a pair, got {output_size!r}")
    if size == (1, 1):  # a global average: PyTorch records it as a mean
        return input.mean((-2, -1), keepdim=True)
    return AdaptiveAvgPool2DBackward0.apply(input, output_size=size)
