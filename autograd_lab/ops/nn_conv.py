"""Convolution over sequences (N, C, L), images (N, C, H, W) and volumes (N, C, D, H, W): ``conv1d``, ``conv2d``,
``conv3d``, and the one op that also records their transposes (:mod:`.nn_conv_transpose`). Pooling, which reads
windows the same way, is in :mod:`.nn_pool`.

The forward passes read every sliding window through one strided view of the (padded) input, without a
Python loop over positions: ``as_strided`` gives an (N, C, kH, kW, oH, oW) view for an image, reshaped into
columns (im2col) so a convolution is one batched matrix product. Spreading gradients back over the windows
(col2im) loops over the kH * kW kernel offsets only. The same code serves any number of spatial dims.

Each op's derivative is again an op of this file, in pairs named as in PyTorch: the gradient of a
convolution is ``ConvolutionBackwardBackward0`` (a linear map of the output gradient), whose own
derivatives are convolutions again, so gradients of gradients work to any order. The derivatives call
those ops through ``formulas.call``: their ``forward`` (the kernel itself) on arrays, their ``apply`` on
tensors under ``create_graph``. Pooling is linear in its input (``jvp = LINEAR``: the same pooling of the
tangent); a convolution is bilinear, so its forward derivative is the product rule.
"""

from __future__ import annotations

import itertools
import math

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import Op

# -- geometry ----------------------------------------------------------------------------------


def _pair(value, name: str, op: str) -> tuple[int, int]:
    """An int or a pair of ints as a pair: ``3 -> (3, 3)``."""
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) == 1:
        return (int(value[0]), int(value[0]))
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{op}: {name} must be an int or a pair of ints, got {value!r}")
    return (int(value[0]), int(value[1]))


def _out_size(size: int, kernel: int, stride: int, pad_before: int, pad_after: int, dilation: int) -> int:
    return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1


def _windows(xp, x, kernel, stride, dilation, out):
    """Every sliding window of ``x`` (N, C, *spatial) as a read-only view of shape (N, C, *kernel, *out): for an
    image (N, C, H, W), (N, C, kH, kW, oH, oW)."""
    s = x.strides
    spatial = range(len(kernel))
    shape = x.shape[:2] + tuple(kernel) + tuple(out)
    strides = s[:2] + tuple(s[2 + d] * dilation[d] for d in spatial) + tuple(s[2 + d] * stride[d] for d in spatial)
    view = xp.lib.stride_tricks.as_strided(x, shape, strides)  # (CuPy's takes no writeable=)
    if xp is backend.np:
        view.flags.writeable = False
    return view


def _pad(xp, x, padding, value=0.0):
    """Pad the spatial dims by ``padding``, (before, after) per dim: ``(top, bottom, left, right)`` for images."""
    if not any(padding):
        return x
    pairs = tuple((padding[2 * d], padding[2 * d + 1]) for d in range(x.ndim - 2))
    return xp.pad(x, ((0, 0), (0, 0)) + pairs, constant_values=value)


def _col2im(xp, cols, size, kernel, stride, dilation, padding):
    """Sum windows (N, C, *kernel, *out) back into an (N, C, *size) array: the adjoint of ``_windows``. It loops
    over the kernel's offsets (kH * kW of them for an image), never over positions."""
    d = len(kernel)
    out = cols.shape[2 + d:]
    padded = tuple(size[i] + padding[2 * i] + padding[2 * i + 1] for i in range(d))
    image = xp.zeros(cols.shape[:2] + padded, dtype=cols.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        where = tuple(slice(offset[i] * dilation[i], offset[i] * dilation[i] + stride[i] * (out[i] - 1) + 1, stride[i])
                      for i in range(d))
        image[(slice(None), slice(None)) + where] += cols[(slice(None), slice(None)) + offset]
    return image[(slice(None), slice(None)) + tuple(slice(padding[2 * i], padding[2 * i] + size[i]) for i in range(d))]


# -- convolution -------------------------------------------------------------------------------
def _conv_columns(xp, x, kernel, stride, padding, dilation, groups):
    """im2col: the windows of ``x`` as (N, groups, C/groups * prod(kernel), prod(out)), and the output size."""
    n, c = x.shape[:2]
    out = tuple(_out_size(x.shape[2 + d], kernel[d], stride[d], padding[2 * d], padding[2 * d + 1], dilation[d])
                for d in range(len(kernel)))
    win = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out)
    return win.reshape(n, groups, (c // groups) * math.prod(kernel), math.prod(out)), out


def _conv(xp, x, weight, stride, padding, dilation, groups):
    """out[n, o] = sum over the window and the group's channels of x * weight (cross-correlation)."""
    o = weight.shape[0]
    cols, out = _conv_columns(xp, x, weight.shape[2:], stride, padding, dilation, groups)
    result = xp.matmul(weight.reshape(groups, o // groups, -1), cols)  # (N, groups, O/groups, L)
    return result.reshape((x.shape[0], o) + out)


def _conv_input_grad(xp, grad, weight, input_size, stride, padding, dilation, groups):
    """The gradient of ``_conv`` with respect to its input (a transposed convolution)."""
    (n, o), out = grad.shape[:2], grad.shape[2:]
    cg, kernel = weight.shape[1], weight.shape[2:]
    wmat = weight.reshape(groups, o // groups, cg * math.prod(kernel))
    cols = xp.matmul(wmat.transpose(0, 2, 1), grad.reshape(n, groups, o // groups, math.prod(out)))
    cols = cols.reshape((n, groups * cg) + kernel + out)
    return _col2im(xp, cols, input_size[2:], kernel, stride, dilation, padding)


def _conv_weight_grad(xp, x, grad, weight_size, stride, padding, dilation, groups):
    """The gradient of ``_conv`` with respect to its weight: input windows times output gradient, summed
    over the batch and the positions (one matrix product per group, columns laid out as (K, N * L))."""
    (o, cg), kernel = weight_size[:2], tuple(weight_size[2:])
    n, out, d = grad.shape[0], grad.shape[2:], len(kernel)
    win = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out)  # (N, C, *kernel, *out)
    order = (1,) + tuple(range(2, 2 + d)) + (0,) + tuple(range(2 + d, 2 + 2 * d))  # (C, *kernel, N, *out)
    cols = win.transpose(order).reshape(groups, cg * math.prod(kernel), n * math.prod(out))
    g = grad.transpose((1, 0) + tuple(range(2, 2 + d))).reshape(groups, o // groups, n * math.prod(out))
    return xp.matmul(g, cols.transpose(0, 2, 1)).reshape(weight_size)


def _transposed_size(size, kernel, stride, padding, dilation, output_padding) -> tuple:
    """The spatial size of a transposed convolution's output, per dim: (in - 1) * stride - the padding on both
    sides + dilation * (kernel - 1) + output_padding + 1 (the input size of a convolution that maps it back)."""
    return tuple((size[i] - 1) * stride[i] - padding[2 * i] - padding[2 * i + 1] + dilation[i] * (kernel[i] - 1)
                 + output_padding[i] + 1 for i in range(len(kernel)))


def _bilinear(xp, x, weight, transposed, stride, padding, dilation, output_padding, groups):
    """The convolution ``ConvolutionBackward0`` records, without its bias: ``_conv``, or, ``transposed``, the
    gradient of ``_conv`` with respect to its input taken as a map of its own (``x`` plays the output gradient;
    ``weight`` is then (C_in, C_out/groups, kH, kW)). ``padding``: one per spatial dim, on both sides (PyTorch's)."""
    padding = _both_sides(padding)
    if not transposed:
        return _conv(xp, x, weight, stride, padding, dilation, groups)
    size = _transposed_size(x.shape[2:], weight.shape[2:], stride, padding, dilation, output_padding)
    return _conv_input_grad(xp, x, weight, x.shape[:2] + size, stride, padding, dilation, groups)


def _bilinear_input_grad(xp, grad, input, weight, transposed, stride, padding, dilation, groups):
    """The gradient of ``_bilinear`` with respect to ``x`` (``input`` gives its shape): the other direction."""
    padding = _both_sides(padding)
    if not transposed:
        return _conv_input_grad(xp, grad, weight, input.shape, stride, padding, dilation, groups)
    out = _conv(xp, grad, weight, stride, padding, dilation, groups)  # (more windows when output_padding >= stride)
    return out[(slice(None), slice(None)) + tuple(slice(0, size) for size in input.shape[2:])]


def _bilinear_weight_grad(xp, input, grad, weight, transposed, stride, padding, dilation, groups):
    """The gradient of ``_bilinear`` with respect to ``weight``: windows of the convolution's input (``grad``
    when transposed) times its output gradient (then ``input``)."""
    padding = _both_sides(padding)
    if transposed:
        input, grad = grad, input
    return _conv_weight_grad(xp, input, grad, weight.shape, stride, padding, dilation, groups)


def _both_sides(padding) -> tuple:
    """PyTorch's padding (one per spatial dim, on both sides) as the array code takes it: (before, after) per
    spatial dim, flattened (top, bottom, left, right for images)."""
    return tuple(p for pad in padding for p in (pad, pad))


class ConvolutionBackward0(Op):
    """out = conv2d(input, weight) + bias, or conv_transpose2d (``transposed``); or their 1-D or 3-D forms.
    ``padding`` is one per spatial dim, on both sides; ``bias_sym_sizes_opt`` (0,) without a bias, as PyTorch shows."""
    saves = ("input", "weight", "bias_sym_sizes_opt", "stride", "padding", "dilation", "transposed",
             "output_padding", "groups")

    def forward(xp, input, weight, bias, *, stride, padding, dilation, transposed, output_padding, groups,
                bias_sym_sizes_opt):
        out = _bilinear(xp, input, weight, transposed, stride, padding, dilation, output_padding, groups)
        return out if bias is None else out + bias.reshape((1, -1) + (1,) * (input.ndim - 2))

    def backward(grad, input, weight, bias_sym_sizes_opt, stride, padding, dilation, transposed, output_padding,
                 groups, grad_input_mask):
        need_input, need_weight, need_bias = grad_input_mask
        geometry = dict(stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                        output_padding=output_padding, groups=groups)
        grads = iter(_each(formulas.call(ConvolutionBackwardBackward0, grad, input, weight,
                                         output_mask=(need_input, need_weight), **geometry))
                     if need_input or need_weight else ())
        grad_input = next(grads) if need_input else None
        grad_weight = next(grads) if need_weight else None
        summed = (0,) + tuple(range(2, input.ndim))  # every dim but the channels
        grad_bias = formulas.sum(grad, summed) if need_bias else None
        return grad_input, grad_weight, grad_bias

    def jvp(tangents, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
        input_t, weight_t, bias_t = tangents  # bilinear: the product rule
        geometry = dict(stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                        output_padding=output_padding, groups=groups, bias_sym_sizes_opt=None)
        out_t = formulas.call(ConvolutionBackward0, input_t, weight, None, **geometry) + \
            formulas.call(ConvolutionBackward0, input, weight_t, None, **geometry)
        return out_t if bias is None else out_t + bias_t.reshape((1, -1) + (1,) * (input.ndim - 2))


class ConvolutionBackwardBackward0(Op):
    """(grad_input, grad_weight) of a convolution (or a transposed one), those named in ``output_mask``: linear
    in grad_output.

    ``input`` is read only for its shape when only grad_input is asked for, ``weight`` likewise when
    only grad_weight is: that is how the double backward writes both transposed products with this op.
    """
    saves = ("grad_output", "input", "weight", "stride", "padding", "dilation", "transposed", "output_padding",
             "groups", "output_mask")

    def forward(xp, grad_output, input, weight, *, stride, padding, dilation, transposed, output_padding, groups,
                output_mask):
        geometry = (transposed, stride, padding, dilation, groups)
        outs = []
        if output_mask[0]:
            outs.append(_bilinear_input_grad(xp, grad_output, input, weight, *geometry))
        if output_mask[1]:
            outs.append(_bilinear_weight_grad(xp, input, grad_output, weight, *geometry))
        return tuple(outs) if len(outs) > 1 else outs[0]

    def backward(grads, grad_output, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                 output_mask, grad_input_mask):
        grads = iter(_each(grads))
        gg_input = next(grads) if output_mask[0] else None
        gg_weight = next(grads) if output_mask[1] else None
        geometry = dict(stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                        output_padding=output_padding, groups=groups)
        need_grad, need_input, need_weight = grad_input_mask
        d_grad = d_input = d_weight = None
        if need_grad:  # <grad_input, gg_input> + <grad_weight, gg_weight> is the forward map applied, read back
            if gg_input is not None:
                d_grad = formulas.call(ConvolutionBackward0, gg_input, weight, None, bias_sym_sizes_opt=None, **geometry)
            if gg_weight is not None:
                part = formulas.call(ConvolutionBackward0, input, gg_weight, None, bias_sym_sizes_opt=None, **geometry)
                d_grad = part if d_grad is None else d_grad + part
        if gg_weight is not None and need_input:  # grad_weight is bilinear in (input, grad_output)
            d_input = formulas.call(ConvolutionBackwardBackward0, grad_output, input, gg_weight,
                                    output_mask=(True, False), **geometry)
        if gg_input is not None and need_weight:  # grad_input is bilinear in (grad_output, weight)
            d_weight = formulas.call(ConvolutionBackwardBackward0, grad_output, gg_input, weight,
                                     output_mask=(False, True), **geometry)
        return d_grad, d_input, d_weight

    def jvp(tangents, grad_output, input, weight, stride, padding, dilation, transposed, output_padding, groups,
            output_mask):
        grad_output_t, input_t, weight_t = tangents  # each output is bilinear: the product rule

        def part(mask, grad_output, input, weight):
            return formulas.call(ConvolutionBackwardBackward0, grad_output, input, weight, output_mask=mask,
                                 stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                                 output_padding=output_padding, groups=groups)
        outs = []
        if output_mask[0]:  # grad_input, bilinear in (grad_output, weight)
            mask = (True, False)
            outs.append(part(mask, grad_output_t, input, weight) + part(mask, grad_output, input, weight_t))
        if output_mask[1]:  # grad_weight, bilinear in (grad_output, input)
            mask = (False, True)
            outs.append(part(mask, grad_output_t, input, weight) + part(mask, grad_output, input_t, weight))
        return tuple(outs) if len(outs) > 1 else outs[0]


def _each(outputs) -> tuple:
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _batched(input: Tensor, op: str, spatial: int = 2) -> tuple[Tensor, bool]:
    """Accept a batch (N, C, ...) or one unbatched sample (C, ...); the flag says whether a batch dim was added."""
    if input.ndim == spatial + 1:
        return input.unsqueeze(0), True
    if input.ndim != spatial + 2:
        raise RuntimeError(f"{op}: Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {op}, but "
                           f"got input of size: {list(input.shape)}")
    return input, False


def _check_empty(x: Tensor, spatial: int) -> None:
    """PyTorch convolves an empty (N, C, ...) input only where the batch or the channels are what is empty; an empty
    spatial dim is an error (a 1-D input named as the 2-D one it is computed as)."""
    if x.shape[0] and x.shape[1] and 0 in x.shape[2:]:
        shape = list(x.shape) if spatial > 1 else [*x.shape[:2], 1, x.shape[2]]
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shape}")


def _tuple(value, n: int, name: str, op: str) -> tuple:
    """An int or ``n`` ints as a tuple of ``n`` ints."""
    if n == 2:
        return _pair(value, name, op)
    if n == 1:
        return (_single(value, name, op),)
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        value = value * n
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{op}: {name} must be an int or {n} ints, got {value!r}")
    return value


def _single(value, name: str, op: str) -> int:
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1 or not isinstance(value[0], int):
        raise ValueError(f"{op}: {name} must be an int or a 1-tuple of ints, got {value!r}")
    return value[0]


@checked
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-D cross-correlation of (N, C, L) sequences with (O, C/groups, k) filters, as ``F.conv1d``; recorded as
    ``ConvolutionBackward0``, computed as ``conv2d`` over a height of 1. ``padding`` as in :func:`conv2d`."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, "conv1d", 1)


@checked
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-D cross-correlation of (N, C, H, W) images with (O, C/groups, kH, kW) filters, as ``F.conv2d``.

    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as large as the input; stride 1).
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, "conv2d", 2)


@checked
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D cross-correlation of (N, C, D, H, W) volumes (or one (C, D, H, W)) with (O, C/groups, kD, kH, kW) filters,
    as ``F.conv3d``; ``padding`` as in :func:`conv2d`."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, "conv3d", 3)


def _convolution(input, weight, bias, stride, padding, dilation, groups, op: str, spatial: int) -> Tensor:
    x, unbatched = _batched(input, op, spatial)
    stride, dilation = _tuple(stride, spatial, "stride", op), _tuple(dilation, spatial, "dilation", op)
    if weight.ndim != spatial + 2:
        raise RuntimeError(f"{op}: weight must be {spatial + 2}-D (out_channels, in_channels/groups, kernel...), got "
                           f"shape {list(weight.shape)}")
    kernel = tuple(weight.shape[2:])
    if min(stride) <= 0:
        raise RuntimeError(f"non-positive stride is not supported [autograd_lab] {op} got stride={list(stride)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported [autograd_lab] {op} got groups={groups}")
    pads = _conv_padding(padding, kernel, stride, dilation, op)
    if pads[0::2] != pads[1::2]:  # 'same' with an even total: the extra row after goes in first, as PyTorch pads it
        from .padding import ConstantPadNdBackward0
        extra = [after - before for before, after in zip(pads[-2::-2], pads[::-2])]  # (last dim first)
        x = ConstantPadNdBackward0.apply(x, pad=tuple(p for e in extra for p in (0, e)), value=0)
        pads = _both_sides(pads[0::2])
    c = x.shape[1]
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead [autograd_lab] {op} needs at least one "
                           "filter per group")
    if c % groups or weight.shape[0] % groups or weight.shape[1] * groups != c:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[1] * groups} channels, but got {c} channels instead. [autograd_lab] in_channels must be "
            "weight.shape[1] * groups, and groups must divide out_channels"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
    padded = [x.shape[2 + i] + pads[2 * i] + pads[2 * i + 1] for i in range(spatial)]
    effective = [dilation[i] * (kernel[i] - 1) + 1 for i in range(spatial)]
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size")
    for other, role in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype is not x.dtype:
            raise RuntimeError(f"Input type ({x.dtype!r}) and {role} type ({other.dtype!r}) should be the same. "
                               f"[autograd_lab] {op}: convert one, e.g. model.to({x.dtype!r}) or input.float()")
    _check_empty(x, spatial)
    out = ConvolutionBackward0.apply(x, weight, bias, stride=stride, padding=pads[0::2], dilation=dilation,
                                     transposed=False, output_padding=(0,) * spatial, groups=groups,
                                     bias_sym_sizes_opt=(0,) if bias is None else tuple(bias.shape))
    return out.squeeze(0) if unbatched else out


def _conv_padding(padding, kernel, stride, dilation, op: str = "conv2d") -> tuple:
    """(before, after) per spatial dim, flattened: (top, bottom, left, right) for images, (left, right) for 1-D.
    They differ only for 'same' where a dim's total padding is odd (the extra one goes after)."""
    spatial = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0) * spatial
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        totals = [dilation[i] * (kernel[i] - 1) for i in range(spatial)]  # odd totals put the extra row after
        return tuple(p for total in totals for p in (total // 2, total - total // 2))
    pads = _tuple(padding, spatial, "padding", op)
    if min(pads) < 0:
        raise RuntimeError(f"negative padding is not supported [autograd_lab] {op} got padding={padding}")
    return _both_sides(pads)
