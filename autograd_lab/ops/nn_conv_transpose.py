"""Transposed convolutions ``conv_transpose1d``, ``conv_transpose2d``, ``conv_transpose3d`` (sometimes called
deconvolutions).

A transposed convolution is the gradient of a convolution with respect to its input, used as a layer of its own:
each input pixel scatters a copy of the kernel, scaled by its value, into the output, ``stride`` pixels apart, and
overlapping copies add up. So it grows images (a GAN's generator, an autoencoder's decoder), and it is the adjoint
of ``conv2d`` with the same settings: ``<conv_transpose2d(x, w), y> == <x, conv2d(y, w)>``.

PyTorch records both kinds as one node, ``ConvolutionBackward0``, with ``transposed`` among its saved values; so
does autograd_lab: the op, its kernels (col2im for the forward, im2col for the gradients) and its derivatives are
those of :mod:`.nn_conv`. This file holds the functions and their checks.
"""

from __future__ import annotations

from ..tensor import Tensor
from ._args import checked
from .nn_conv import ConvolutionBackward0, _batched, _both_sides, _check_empty, _transposed_size, _tuple

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


@checked
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transposed 1-D convolution of (N, C_in, L) sequences with (C_in, C_out/groups, k) filters, as
    ``F.conv_transpose1d``: output length (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
    """
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                   "conv_transpose1d", 1)


@checked
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transposed 3-D convolution of (N, C_in, D, H, W) volumes with (C_in, C_out/groups, kD, kH, kW) filters, as
    ``F.conv_transpose3d``; settings as in :func:`conv_transpose2d`."""
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                   "conv_transpose3d", 3)


@checked
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transposed 2-D convolution of (N, C_in, H, W) images with (C_in, C_out/groups, kH, kW) filters, as
    ``F.conv_transpose2d``: the gradient of ``conv2d`` with respect to its input, as a layer.

    ``padding`` takes ``dilation * (k - 1) - padding`` rows off each side of the full output (it undoes the
    padding of the convolution this one transposes), and ``output_padding`` (smaller than ``stride`` or
    ``dilation``) adds rows at the bottom and columns at the right: a convolution with stride 2 maps both 7 and 8
    rows to 4, and ``output_padding`` says which of them to give back.
    """
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                   "conv_transpose2d", 2)


def _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, op: str,
                            spatial: int) -> Tensor:
    x, unbatched = _batched(input, op, spatial)
    if weight.ndim != spatial + 2:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} instead "
                           f"[autograd_lab] {op} takes a weight of shape (in_channels, out_channels/groups, kernel...)")
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str [autograd_lab] a transposed "
                        "convolution has no 'same' or 'valid' padding: give the rows to take off each side")
    stride, padding = _tuple(stride, spatial, "stride", op), _tuple(padding, spatial, "padding", op)
    dilation = _tuple(dilation, spatial, "dilation", op)
    output_padding = _tuple(output_padding, spatial, "output_padding", op)
    _check_settings(op, stride, padding, output_padding, dilation, groups)
    _check_shapes(op, x, weight, bias, groups)
    kernel = tuple(weight.shape[2:])
    pads = _both_sides(padding)
    size = _transposed_size(x.shape[2:], kernel, stride, pads, dilation, output_padding)
    if min(size) < 0 or (min(size) == 0 and x.shape[0]):  # (an empty batch gives an empty output, as in PyTorch)
        given, told = tuple(x.shape[2:]), size
        if spatial == 1:  # (PyTorch computes 1-D as 2-D over a height of 1, and says so)
            given, told = (1,) + given, (1,) + told
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, given))}). Calculated output size per "
                           f"channel: ({' x '.join(map(str, told))}). Output size is too small [autograd_lab] {op}: the "
                           f"padding {list(padding)} takes off more than the kernel adds: use less padding")
    for other, role in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype is not x.dtype:
            raise RuntimeError(f"Input type ({x.dtype!r}) and {role} type ({other.dtype!r}) should be the same. "
                               f"[autograd_lab] {op}: convert one, e.g. model.to({x.dtype!r}) or input.float()")
    _check_empty(x, spatial)
    out = ConvolutionBackward0.apply(x, weight, bias, stride=stride, padding=padding, dilation=dilation, transposed=True,
                                     output_padding=output_padding, groups=groups,
                                     bias_sym_sizes_opt=(0,) if bias is None else tuple(bias.shape))
    return out.squeeze(0) if unbatched else out


def _check_settings(op: str, stride, padding, output_padding, dilation, groups) -> None:
    """PyTorch's checks of a transposed convolution's settings, in its words."""
    if min(stride) <= 0:
        raise RuntimeError(f"non-positive stride is not supported [autograd_lab] {op} got stride={list(stride)}")
    if min(padding) < 0:
        raise RuntimeError(f"negative padding is not supported [autograd_lab] {op} got padding={list(padding)}")
    if min(output_padding) < 0:
        raise RuntimeError(f"negative output_padding is not supported [autograd_lab] {op} got "
                           f"output_padding={list(output_padding)}")
    if min(dilation) <= 0:
        dims = (1,) * (2 - len(dilation)) + tuple(dilation)  # (1-D: a height of 1)
        names = ("depth", "height", "width")[-len(dims):]
        told = ", ".join(f"dilation_{name}: {d}" for name, d in zip(names, dims))
        raise RuntimeError(f"dilation should be greater than zero, but got {told}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported [autograd_lab] {op} got groups={groups}")
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        dims = [(0, 1, 1)] * (2 - len(stride)) + list(zip(output_padding, stride, dilation))  # (1-D: a height of 1)
        names = ("depth", "height", "width")[-len(dims):]
        told = [f"{what}_{name}: {dim[i]}" for i, what in enumerate(("output_padding", "stride", "dilation"))
                for name, dim in zip(names, dims)]
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {' '.join(told)}")


def _check_shapes(op: str, x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    """The weight's first dim is the input's channels, split into ``groups``; the bias has one element per output
    channel (``weight.shape[1] * groups``)."""
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead [autograd_lab] {op} needs at least one input "
                           "channel per group")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead [autograd_lab] {op}: groups must divide "
                           "in_channels")
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to "
                           f"have {weight.shape[0]} channels, but got {x.shape[1]} channels instead [autograd_lab] a "
                           f"transposed convolution's weight is (in_channels, out_channels/groups, kernel...)")
    out_channels = weight.shape[1] * groups
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
                           f"with {out_channels} elements, but got bias of size {list(bias.shape)} instead")
