"""Convolution and pooling over images (N, C, H, W): ``conv2d``, ``max_pool2d``, ``avg_pool2d``,
``adaptive_avg_pool2d``.

The forward passes read every sliding window through one strided view of the (padded) input, without a
Python loop over positions: ``as_strided`` gives an (N, C, kH, kW, oH, oW) view, reshaped into columns
(im2col) so a convolution is one batched matrix product. Spreading gradients back over the windows
(col2im) loops over the kH * kW kernel offsets only.

Each op's derivative is again an op of this file, in pairs named as in PyTorch: the gradient of a
convolution is ``ConvolutionBackwardBackward0`` (a linear map of the output gradient), whose own
derivatives are convolutions again, so gradients of gradients work to any order. The derivatives call
those ops through ``formulas.call``: their ``forward`` (the kernel itself) on arrays, their ``apply`` on
tensors under ``create_graph``. Pooling is linear in its input (``jvp = LINEAR``: the same pooling of the
tangent); a convolution is bilinear, so its forward derivative is the product rule.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._op import LINEAR, Op

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
    """Every sliding window of ``x`` (N, C, H, W) as a read-only view of shape (N, C, kH, kW, oH, oW)."""
    s = x.strides
    shape = x.shape[:2] + tuple(kernel) + tuple(out)
    strides = (s[0], s[1], s[2] * dilation[0], s[3] * dilation[1], s[2] * stride[0], s[3] * stride[1])
    view = xp.lib.stride_tricks.as_strided(x, shape, strides)  # (CuPy's takes no writeable=)
    if xp is backend.np:
        view.flags.writeable = False
    return view


def _pad(xp, x, padding, value=0.0):
    """Pad the last two dims by ``(top, bottom, left, right)``."""
    top, bottom, left, right = padding
    if not any(padding):
        return x
    return xp.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


def _col2im(xp, cols, size, kernel, stride, dilation, padding):
    """Sum windows (N, C, kH, kW, oH, oW) back into an image (N, C, H, W): the adjoint of ``_windows``."""
    n, c, _, _, oh, ow = cols.shape
    top, bottom, left, right = padding
    image = xp.zeros((n, c, size[0] + top + bottom, size[1] + left + right), dtype=cols.dtype)
    for i in range(kernel[0]):
        rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (oh - 1) + 1, stride[0])
        for j in range(kernel[1]):
            columns = slice(j * dilation[1], j * dilation[1] + stride[1] * (ow - 1) + 1, stride[1])
            image[:, :, rows, columns] += cols[:, :, i, j]
    return image[:, :, top:top + size[0], left:left + size[1]]


# -- convolution -------------------------------------------------------------------------------
def _conv_columns(xp, x, kernel, stride, padding, dilation, groups):
    """im2col: the windows of ``x`` as (N, groups, C/groups * kH * kW, oH * oW), and the output size."""
    n, c, h, w = x.shape
    out = (_out_size(h, kernel[0], stride[0], padding[0], padding[1], dilation[0]),
           _out_size(w, kernel[1], stride[1], padding[2], padding[3], dilation[1]))
    win = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out)
    return win.reshape(n, groups, (c // groups) * kernel[0] * kernel[1], out[0] * out[1]), out


def _conv(xp, x, weight, stride, padding, dilation, groups):
    """out[n, o] = sum over the window and the group's channels of x * weight (cross-correlation)."""
    o, _, kh, kw = weight.shape
    cols, out = _conv_columns(xp, x, (kh, kw), stride, padding, dilation, groups)
    result = xp.matmul(weight.reshape(groups, o // groups, -1), cols)  # (N, groups, O/groups, L)
    return result.reshape(x.shape[0], o, out[0], out[1])


def _conv_input_grad(xp, grad, weight, input_size, stride, padding, dilation, groups):
    """The gradient of ``_conv`` with respect to its input (a transposed convolution)."""
    n, o, oh, ow = grad.shape
    _, cg, kh, kw = weight.shape
    wmat = weight.reshape(groups, o // groups, cg * kh * kw)
    cols = xp.matmul(wmat.transpose(0, 2, 1), grad.reshape(n, groups, o // groups, oh * ow))
    cols = cols.reshape(n, groups * cg, kh, kw, oh, ow)
    return _col2im(xp, cols, input_size[2:], (kh, kw), stride, dilation, padding)


def _conv_weight_grad(xp, x, grad, weight_size, stride, padding, dilation, groups):
    """The gradient of ``_conv`` with respect to its weight: input windows times output gradient, summed
    over the batch and the positions (one matrix product per group, columns laid out as (K, N * L))."""
    o, cg, kh, kw = weight_size
    n, oh, ow = grad.shape[0], grad.shape[2], grad.shape[3]
    win = _windows(xp, _pad(xp, x, padding), (kh, kw), stride, dilation, (oh, ow))
    cols = win.transpose(1, 2, 3, 0, 4, 5).reshape(groups, cg * kh * kw, n * oh * ow)
    g = grad.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * oh * ow)
    return xp.matmul(g, cols.transpose(0, 2, 1)).reshape(weight_size)


class ConvolutionBackward0(Op):
    """out = conv2d(input, weight) + bias; padding is (top, bottom, left, right)"""
    saves = ("input", "weight", "bias_sym_sizes_opt", "stride", "padding", "dilation", "groups")

    def forward(xp, input, weight, bias, *, stride, padding, dilation, groups, bias_sym_sizes_opt):
        out = _conv(xp, input, weight, stride, padding, dilation, groups)
        return out if bias is None else out + bias.reshape(1, -1, 1, 1)

    def backward(grad, input, weight, bias_sym_sizes_opt, stride, padding, dilation, groups, grad_input_mask):
        need_input, need_weight, need_bias = grad_input_mask
        grads = iter(_each(formulas.call(
            ConvolutionBackwardBackward0, grad, input, weight, stride=stride, padding=padding, dilation=dilation,
            groups=groups, output_mask=(need_input, need_weight))) if need_input or need_weight else ())
        grad_input = next(grads) if need_input else None
        grad_weight = next(grads) if need_weight else None
        grad_bias = formulas.sum(grad, (0, 2, 3)) if need_bias and bias_sym_sizes_opt is not None else None
        return grad_input, grad_weight, grad_bias

    def jvp(tangents, input, weight, bias, stride, padding, dilation, groups):  # bilinear: the product rule
        input_t, weight_t, bias_t = tangents
        geometry = dict(stride=stride, padding=padding, dilation=dilation, groups=groups, bias_sym_sizes_opt=None)
        out_t = formulas.call(ConvolutionBackward0, input_t, weight, None, **geometry) + \
            formulas.call(ConvolutionBackward0, input, weight_t, None, **geometry)
        return out_t if bias is None else out_t + bias_t.reshape(1, -1, 1, 1)


class ConvolutionBackwardBackward0(Op):
    """(grad_input, grad_weight) of a convolution, those named in ``output_mask``: linear in grad_output.

    ``input`` is read only for its shape when only grad_input is asked for, ``weight`` likewise when
    only grad_weight is: that is how the double backward writes both transposed products with this op.
    """
    saves = ("grad_output", "input", "weight", "stride", "padding", "dilation", "groups", "output_mask")

    def forward(xp, grad_output, input, weight, *, stride, padding, dilation, groups, output_mask):
        outs = []
        if output_mask[0]:
            outs.append(_conv_input_grad(xp, grad_output, weight, input.shape, stride, padding, dilation, groups))
        if output_mask[1]:
            outs.append(_conv_weight_grad(xp, input, grad_output, weight.shape, stride, padding, dilation, groups))
        return tuple(outs) if len(outs) > 1 else outs[0]

    def backward(grads, grad_output, input, weight, stride, padding, dilation, groups, output_mask,
                 grad_input_mask):
        grads = iter(_each(grads))
        gg_input = next(grads) if output_mask[0] else None
        gg_weight = next(grads) if output_mask[1] else None
        geometry = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        need_grad, need_input, need_weight = grad_input_mask
        d_grad = d_input = d_weight = None
        if need_grad:
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

    def jvp(tangents, grad_output, input, weight, stride, padding, dilation, groups, output_mask):
        grad_output_t, input_t, weight_t = tangents  # each output is bilinear: the product rule

        def part(mask, grad_output, input, weight):
            return formulas.call(ConvolutionBackwardBackward0, grad_output, input, weight, output_mask=mask,
                                 stride=stride, padding=padding, dilation=dilation, groups=groups)
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


def _batched(input: Tensor, op: str) -> tuple[Tensor, bool]:
    """Accept (N, C, H, W) or an unbatched (C, H, W) image; the flag says whether a batch dim was added."""
    if input.ndim == 3:
        return input.unsqueeze(0), True
    if input.ndim != 4:
        raise RuntimeError(f"{op}: Expected 3D (unbatched) or 4D (batched) input to {op}, but got input of size: "
                           f"{list(input.shape)}")
    return input, False


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-D cross-correlation of (N, C, H, W) images with (O, C/groups, kH, kW) filters, as ``F.conv2d``.

    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as large as the input; stride 1).
    """
    x, unbatched = _batched(input, "conv2d")
    stride, dilation = _pair(stride, "stride", "conv2d"), _pair(dilation, "dilation", "conv2d")
    if weight.ndim != 4:
        raise RuntimeError(f"conv2d: weight must be 4-D (out_channels, in_channels/groups, kH, kW), got shape "
                           f"{list(weight.shape)}")
    kernel = tuple(weight.shape[2:])
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"non-positive stride is not supported [autograd_lab] conv2d got stride={list(stride)}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported [autograd_lab] conv2d got groups={groups}")
    pads = _conv_padding(padding, kernel, stride, dilation)
    n, c, h, w = x.shape
    if c % groups or weight.shape[0] % groups or weight.shape[1] * groups != c:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[1] * groups} channels, but got {c} channels instead. [autograd_lab] in_channels must be "
            "weight.shape[1] * groups, and groups must divide out_channels"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
    padded = (h + pads[0] + pads[1], w + pads[2] + pads[3])
    effective = tuple(dilation[i] * (kernel[i] - 1) + 1 for i in range(2))
    if padded[0] < effective[0] or padded[1] < effective[1]:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel size: "
                           f"({effective[0]} x {effective[1]}). Kernel size can't be greater than actual input size")
    for other, role in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype is not x.dtype:
            raise RuntimeError(f"Input type ({x.dtype!r}) and {role} type ({other.dtype!r}) should be the same. "
                               f"[autograd_lab] conv2d: convert one, e.g. model.to({x.dtype!r}) or input.float()")
    out = ConvolutionBackward0.apply(x, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups,
                                     bias_sym_sizes_opt=None if bias is None else tuple(bias.shape))
    return out.squeeze(0) if unbatched else out


def _conv_padding(padding, kernel, stride, dilation) -> tuple[int, int, int, int]:
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        total = [dilation[i] * (kernel[i] - 1) for i in range(2)]  # odd totals put the extra row after
        return (total[0] // 2, total[0] - total[0] // 2, total[1] // 2, total[1] - total[1] // 2)
    ph, pw = _pair(padding, "padding", "conv2d")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"negative padding is not supported [autograd_lab] conv2d got padding={padding}")
    return (ph, ph, pw, pw)


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
    return array.reshape(n, c, -1)


class MaxPool2DWithIndicesBackward0(Op):
    """out = the largest element of each window, read at ``indices`` (flat positions in H * W)"""
    saves = ("indices", "self")  # (as PyTorch: the input and the indices, both version-checked records)
    tensor_params = ("indices",)

    def forward(xp, self, *, indices):
        n, c = self.shape[:2]
        return xp.take_along_axis(_flat(self, n, c), _flat(indices, n, c), axis=2).reshape(indices.shape)

    def d_self(grad, indices, self):
        return formulas.call(MaxPool2DWithIndicesBackwardBackward0, grad, indices=indices, self_sym_sizes=self.shape)

    jvp = LINEAR


def _max_pool_grad(xp, grad, indices, sizes):
    """Zeros shaped like the pooled input (``sizes``), with ``grad`` added at the maxima' ``indices``."""
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
        return formulas.call(MaxPool2DWithIndicesBackward0, grad, indices=indices)

    jvp = LINEAR


def _max_pool_indices(xp, x, kernel, stride, padding, dilation, ceil_mode):
    """Flat (row * W + column) index in the input of each window's maximum, first maximum on ties."""
    n, c, h, w = x.shape
    out, pads = _pool_geometry((h, w), kernel, stride, padding, dilation, ceil_mode, "max_pool2d")
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    win = _windows(xp, _pad(xp, x, pads, fill), kernel, stride, dilation, out)
    best = xp.argmax(win.reshape(n, c, kernel[0] * kernel[1], out[0], out[1]), axis=2)
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


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each (dilated) window; with ``return_indices``, also where it was (flat in H * W)."""
    x, unbatched = _batched(input, "max_pool2d")
    kernel = _pair(kernel_size, "kernel_size", "max_pool2d")
    stride = kernel if stride is None or stride == [] else _pair(stride, "stride", "max_pool2d")
    padding, dilation = _pair(padding, "padding", "max_pool2d"), _pair(dilation, "dilation", "max_pool2d")
    _check_pool("max_pool2d", kernel, stride, padding, dilation)
    xp = backend.namespace_of(x._data)
    indices = Tensor._make(_max_pool_indices(xp, x._data, kernel, stride, padding, dilation, ceil_mode))
    out = MaxPool2DWithIndicesBackward0.apply(x, indices=indices)
    if unbatched:  # (the indices returned share the saved ones' version: changing them in place is caught)
        out, indices = out.squeeze(0), Tensor._make(indices._data[0], version_counter=indices._vc)
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
    """out = the mean of each window (see ``count_include_pad`` and ``divisor_override``)"""
    saves = ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "self", "stride")

    def forward(xp, self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        size = self.shape[2:]
        out, pads = _pool_geometry(size, kernel_size, stride, padding, (1, 1), ceil_mode, "avg_pool2d")
        win = _windows(xp, _pad(xp, self, pads), kernel_size, stride, (1, 1), out)
        divisor = _avg_divisor(xp, size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                               self.dtype)
        return win.sum(axis=(2, 3)) / divisor

    def d_self(grad, ceil_mode, count_include_pad, divisor_override, kernel_size, padding, self, stride):
        return formulas.call(
            AvgPool2DBackwardBackward0, grad, kernel_size=kernel_size, stride=stride, padding=padding,
            ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override,
            self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


def _avg_pool_grad(xp, grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, sizes):
    """Each window's gradient, divided by its divisor, spread evenly over the window (an input of ``sizes``)."""
    size = sizes[2:]
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


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window, as ``F.avg_pool2d``."""
    x, unbatched = _batched(input, "avg_pool2d")
    kernel = _pair(kernel_size, "kernel_size", "avg_pool2d")
    stride = kernel if stride is None or stride == [] else _pair(stride, "stride", "avg_pool2d")
    padding = _pair(padding, "padding", "avg_pool2d")
    _check_pool("avg_pool2d", kernel, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    out = AvgPool2DBackward0.apply(x, kernel_size=kernel, stride=stride, padding=padding,
                                   ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                   divisor_override=divisor_override)
    return out.squeeze(0) if unbatched else out


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
        rows = _adaptive_matrix(xp, self.shape[2], output_size[0], self.dtype)
        cols = _adaptive_matrix(xp, self.shape[3], output_size[1], self.dtype)
        return xp.matmul(xp.matmul(rows, self), cols.T)

    def d_self(grad, self):
        return formulas.call(AdaptiveAvgPool2DBackwardBackward0, grad, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


def _adaptive_avg_grad(xp, grad, sizes):
    """Each output gradient spread evenly over its window of an input of ``sizes``."""
    rows = _adaptive_matrix(xp, sizes[2], grad.shape[2], grad.dtype)
    cols = _adaptive_matrix(xp, sizes[3], grad.shape[3], grad.dtype)
    return xp.matmul(xp.matmul(rows.T, grad), cols)


class AdaptiveAvgPool2DBackwardBackward0(Op):
    """out = each output gradient spread evenly over its window"""
    saves = ("grad_sym_sizes",)

    def forward(xp, grad, *, self_sym_sizes):
        return _adaptive_avg_grad(xp, grad, self_sym_sizes)

    def d_grad(grad, grad_sym_sizes):
        return formulas.call(AdaptiveAvgPool2DBackward0, grad, output_size=tuple(grad_sym_sizes[2:]))

    jvp = LINEAR


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average over an ``output_size`` grid of windows, whatever the input size (``None`` keeps a dim)."""
    x, unbatched = _batched(input, "adaptive_avg_pool2d")
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    if len(size) != 2 or min(size) < 0:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be an int or a pair, got {output_size!r}")
    if size == (1, 1):  # a global average: PyTorch records it as a mean
        out = x.mean((-2, -1), keepdim=True)
    else:
        out = AdaptiveAvgPool2DBackward0.apply(x, output_size=size)
    return out.squeeze(0) if unbatched else out
