"""Pooling over images (N, C, H, W): ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``.

The windows are read through the strided view of :mod:`.nn_conv` (``_windows``), and gradients are spread
back over them with its ``col2im``. Each pooling op's derivative is again an op of this file (``...Backward0``
beside ``...BackwardBackward0``), so gradients of gradients work.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .nn_conv import _batched, _col2im, _pad, _pair, _windows


# -- pooling -----------------------------------------------------------------------------------
def _pool_geometry(size, kernel, stride, padding, dilation, ceil_mode, op):
    """Output size and the extra right/bottom padding that ``ceil_mode`` adds, per spatial dim."""
    out, extra = [], []
    for i in range(2):
        if padding[i] * 2 > dilation[i] * (kernel[i] - 1) + 1:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[i]}, "
                               f"kernel_size={kernel[i]} and dilation={dilation[i]} [autograd_lab] {op}")
        span = size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1
        o = (-(-span // stride[i]) if ceil_mode else span // stride[i]) + 1
        if ceil_mode and (o - 1) * stride[i] >= size[i] + padding[i]:
            o -= 1  # the last window must start inside the input or its left padding
        out.append(o)
        extra.append(max(0, (o - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 - size[i] - 2 * padding[i]))
    if min(out) <= 0:
        raise RuntimeError(f"Given input size: ({size[0]}x{size[1]}). Calculated output size: ({out[0]}x{out[1]}). "
                           f"Output size is too small [autograd_lab] {op}: the (dilated) kernel is larger than the "
                           "padded input")
    pads = (padding[0], padding[0] + extra[0], padding[1], padding[1] + extra[1])
    return tuple(out), pads


def _flat(array, n, c):
    """An ``(n, c, h, w)`` array as ``(n, c, h * w)`` (sizes written out: NumPy cannot infer a -1 with n = 0)."""
    return array.reshape(n, c, array.shape[-2] * array.shape[-1])


def _planes(array):
    """An (..., H, W) array as (..., H * W): a batch of images, or one (C, H, W) image."""
    return array.reshape(array.shape[:-2] + (array.shape[-2] * array.shape[-1],))


class MaxPool2DWithIndicesBackward0(Op):
    """out = the largest element of each window, read at ``result1``: the indices of the maxima (flat positions in
    H * W), PyTorch's name for max_pool2d_with_indices' second output. The window's geometry is saved as PyTorch
    saves it (``stride`` () when none was given); the indices alone say where each value comes from."""
    saves = ("ceil_mode", "dilation", "kernel_size", "padding", "result1", "self", "stride")
    tensor_params = ("result1",)  # (as PyTorch: the input and the indices, both version-checked records)

    def forward(xp, self, *, result1, kernel_size=(), stride=(), padding=(), dilation=(), ceil_mode=False):
        # (a batch of images, or one (C, H, W) image, recorded as it is)
        return xp.take_along_axis(_planes(self), _planes(result1), axis=-1).reshape(result1.shape)

    def d_self(grad, result1, self):
        return formulas.call(MaxPool2DWithIndicesBackwardBackward0, grad, indices=result1, self_sym_sizes=self.shape)

    jvp = LINEAR


def _max_pool_grad(xp, grad, indices, sizes):
    """Zeros shaped like the pooled input (``sizes``), with ``grad`` added at the maxima' ``indices``."""
    if grad.ndim == 3:  # one (C, H, W) image: a batch of one
        return _max_pool_grad(xp, grad[None], indices[None], (1,) + tuple(sizes))[0]
    n, c = sizes[:2]
    out = xp.zeros((n, c, sizes[2] * sizes[3]), dtype=grad.dtype)
    rows = xp.arange(n).reshape(n, 1, 1)
    channels = xp.arange(c).reshape(1, c, 1)
    xp.add.at(out, (rows, channels, _flat(indices, n, c)), _flat(grad, n, c))  # overlapping windows accumulate
    return out.reshape(sizes)


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """out = zeros shaped like the pooled input, with ``grad`` added at the positions of the maxima"""
    saves = ("indices",)
    tensor_params = ("indices",)

    def forward(xp, grad, *, indices, self_sym_sizes):
        return _max_pool_grad(xp, grad, indices, self_sym_sizes)

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


def _max_pool_indices(xp, x, kernel, stride, padding, dilation, ceil_mode):
    """Flat (row * W + column) index in the input of each window's maximum, first maximum on ties (last NaN)."""
    n, c, h, w = x.shape
    out, pads = _pool_geometry((h, w), kernel, stride, padding, dilation, ceil_mode, "max_pool2d")
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    win = _windows(xp, _pad(xp, x, pads, fill), kernel, stride, dilation, out)
    best = _last_nan(xp, win.reshape(n, c, kernel[0] * kernel[1], out[0], out[1]), 2)
    if any(pads):  # a padded position wins only where all of the window inside the input is ``fill`` (-inf, say):
        offsets = xp.arange(kernel[0] * kernel[1]).reshape(-1, 1, 1)  # PyTorch then names the first one inside
        rows = xp.arange(out[0]).reshape(1, -1, 1) * stride[0] - padding[0] + (offsets // kernel[1]) * dilation[0]
        cols = xp.arange(out[1]).reshape(1, 1, -1) * stride[1] - padding[1] + (offsets % kernel[1]) * dilation[1]
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)  # (kH * kW, oH, oW)
        best = xp.where(xp.take_along_axis(inside[None, None], best[:, :, None], axis=2)[:, :, 0], best,
                        xp.argmax(inside, axis=0))
    row = xp.arange(out[0]).reshape(-1, 1) * stride[0] - padding[0] + (best // kernel[1]) * dilation[0]
    col = xp.arange(out[1]).reshape(1, -1) * stride[1] - padding[1] + (best % kernel[1]) * dilation[1]
    return (row * w + col).astype(xp.int64)


def _check_pool(op: str, kernel, stride, padding, dilation=(1, 1)) -> None:
    """PyTorch's checks of a pooling window, in its order and words (before any arithmetic divides by a
    zero stride)."""
    if stride[0] == 0 or stride[1] == 0:
        raise RuntimeError(f"stride should not be zero [autograd_lab] {op} got stride={list(stride)} "
                           f"(it defaults to kernel_size={list(kernel)})")
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if stride[0] < 0 or stride[1] < 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                           f"dilationW: {dilation[1]}")
    for pad in padding:
        if pad < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")


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
    indices = _max_pool_indices(xp, x._data, kernel, given or kernel, padding, dilation, ceil_mode)
    indices = Tensor._make(indices[0] if unbatched else indices)
    out = MaxPool2DWithIndicesBackward0.apply(input, result1=indices, kernel_size=kernel, stride=given, padding=padding,
                                              dilation=dilation, ceil_mode=ceil_mode)  # (one (C, H, W) image as it is)
    return (out, indices) if return_indices else out


def _avg_divisor(xp, size, out, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    """The number each window's sum is divided by, per output position (oH, oW)."""
    if divisor_override:
        return xp.full(out, float(divisor_override), dtype=dtype)
    counts = []
    for i in range(2):
        start = xp.arange(out[i]) * stride[i] - padding[i]
        end = xp.minimum(start + kernel[i], size[i] + padding[i])  # windows never count past the right padding
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(xp.minimum(end, size[i]) - xp.maximum(start, 0))
    return (counts[0].reshape(-1, 1) * counts[1].reshape(1, -1)).astype(dtype)


class AvgPool2DBackward0(Op):
    """out = the mean of each window (see ``count_include_pad`` and ``divisor_override``); ``stride`` () when not
    given (the kernel size then), as PyTorch saves it"""
    saves = ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "self", "stride")

    def forward(xp, self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        if self.ndim == 3:  # one (C, H, W) image: a batch of one
            return AvgPool2DBackward0.forward(xp, self[None], kernel_size=kernel_size, stride=stride, padding=padding,
                                              ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                              divisor_override=divisor_override)[0]
        size, stride = self.shape[2:], stride or kernel_size
        out, pads = _pool_geometry(size, kernel_size, stride, padding, (1, 1), ceil_mode, "avg_pool2d")
        win = _windows(xp, _pad(xp, self, pads), kernel_size, stride, (1, 1), out)
        divisor = _avg_divisor(xp, size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                               self.dtype)
        mean = win.sum(axis=(2, 3)) / divisor
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
    if grad.ndim == 3:  # one (C, H, W) image: a batch of one
        return _avg_pool_grad(xp, grad[None], kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override, (1,) + tuple(sizes))[0]
    size, stride = sizes[2:], stride or kernel_size
    out, pads = _pool_geometry(size, kernel_size, stride, padding, (1, 1), ceil_mode, "avg_pool2d")
    divisor = _avg_divisor(xp, size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                           grad.dtype)
    share = grad / divisor
    cols = xp.broadcast_to(share[:, :, None, None], share.shape[:2] + tuple(kernel_size) + tuple(out))
    return _col2im(xp, cols, size, kernel_size, stride, (1, 1), pads)


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


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """(out, size): row i averages input positions floor(i*size/out) .. ceil((i+1)*size/out) - 1."""
    matrix = xp.zeros((out, size), dtype=dtype)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


class AdaptiveAvgPool2DBackward0(Op):
    """out = means over a grid of output_size windows that tile the input (sizes may differ by one)"""
    saves = ("self",)  # (as PyTorch: its formula reads the input's shape from the saved input)

    def forward(xp, self, *, output_size):
        rows = _adaptive_matrix(xp, self.shape[-2], output_size[0], self.dtype)
        cols = _adaptive_matrix(xp, self.shape[-1], output_size[1], self.dtype)
        return xp.matmul(xp.matmul(rows, self), cols.T)

    def d_self(grad, self):
        return formulas.call(AdaptiveAvgPool2DBackwardBackward0, grad, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


def _adaptive_avg_grad(xp, grad, sizes):
    """Each output gradient spread evenly over its window of an input of ``sizes``."""
    rows = _adaptive_matrix(xp, sizes[-2], grad.shape[-2], grad.dtype)
    cols = _adaptive_matrix(xp, sizes[-1], grad.shape[-1], grad.dtype)
    return xp.matmul(xp.matmul(rows.T, grad), cols)


class AdaptiveAvgPool2DBackwardBackward0(Op):
    """out = each output gradient spread evenly over its window"""
    saves = ("grad_sym_sizes",)

    def forward(xp, grad, *, self_sym_sizes):
        return _adaptive_avg_grad(xp, grad, self_sym_sizes)

    def d_grad(grad, grad_sym_sizes):
        return formulas.call(AdaptiveAvgPool2DBackward0, grad, output_size=tuple(grad_sym_sizes[-2:]))

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
