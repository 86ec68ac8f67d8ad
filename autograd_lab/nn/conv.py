"""Convolution layers ``Conv1d``, ``Conv2d``, ``Conv3d``, and the pooling layers ``MaxPool2d``, ``AvgPool2d``,
``AdaptiveAvgPool2d``."""

from __future__ import annotations

from .. import creation
from ..ops.nn_conv import _tuple
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _input_padding(padding, kernel_size, dilation) -> list[int]:
    """``padding`` as ``F.pad`` reads it (last dim first: left, right, then top, bottom): what a non-zeros
    ``padding_mode`` pads by."""
    if padding == "valid":
        return [0, 0] * len(kernel_size)
    if padding == "same":  # an odd total puts the extra row / column after, as the convolution itself does
        totals = [d * (k - 1) for d, k in zip(dilation, kernel_size)]
        return [p for total in reversed(totals) for p in (total // 2, total - total // 2)]
    return [p for pad in reversed(padding) for p in (pad, pad)]


class _ConvNd(Module):
    """A convolution with ``out_channels`` filters of ``in_channels/groups`` x kernel; PyTorch's arguments and
    initialisation. ``padding_mode`` other than ``'zeros'`` (``'reflect'``, ``'replicate'``, ``'circular'``) pads
    the input with ``F.pad`` in that mode, then convolves without padding. A transposed convolution
    (``transposed``, :mod:`.conv_transpose`) has (in_channels, out_channels/groups) x kernel filters instead."""
    _spatial = 2
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        name = type(self).__name__
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, self._spatial, "kernel_size", name)
        self.stride = _tuple(stride, self._spatial, "stride", name)
        self.dilation = _tuple(dilation, self._spatial, "dilation", name)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _tuple(padding, self._spatial, "padding", name)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {{{', '.join(map(repr, _PADDING_MODES))}}}, but got "
                             f"padding_mode='{padding_mode}' [autograd_lab] {name}: 'zeros' pads inside the "
                             "convolution; the others pad the input with F.pad first")
        self.padding_mode = padding_mode
        self.output_padding = (0,) * self._spatial
        self._reversed_padding_repeated_twice = _input_padding(self.padding, self.kernel_size, self.dilation)
        filters = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(*filters, *self.kernel_size, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias, fan_in = weight.shape[1] * kernel size
        (in_channels/groups, or out_channels/groups for a transposed convolution, as in PyTorch)."""
        init._reset_affine(self.weight, self.bias)

    def _convolve(self, input, padding):
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._spatial - 1]
        return conv(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":  # pad by the mode first, then convolve without padding (as PyTorch)
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._convolve(padded, (0,) * self._spatial)
        return self._convolve(input, self.padding)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if isinstance(self.padding, str):
            text += f", padding={self.padding}"
        elif self.padding != (0,) * self._spatial:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self._spatial:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._spatial:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """1-D convolution of (N, C, L) sequences (or one (C, L) sequence)."""
    _spatial = 1


class Conv2d(_ConvNd):
    """2-D convolution (cross-correlation) of (N, C, H, W) images (or one (C, H, W) image)."""
    _spatial = 2


class Conv3d(_ConvNd):
    """3-D convolution (cross-correlation) of (N, C, D, H, W) volumes (or one (C, D, H, W) volume)."""
    _spatial = 3


class _MaxPoolNd(Module):
    """The maximum over each ``kernel_size`` window (stride defaults to the kernel size), by ``_pool``."""
    _pool = None  # the functional form: F.max_pool1d, F.max_pool2d

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                                self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """The maximum over each ``kernel_size`` window of an image (stride defaults to the kernel size)."""
    _pool = staticmethod(F.max_pool2d)


class _AvgPoolNd(Module):
    """The mean over each ``kernel_size`` window (stride defaults to the kernel size), by ``_pool``."""
    _pool = None  # the functional form: F.avg_pool2d, F.avg_pool3d

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """The mean over each ``kernel_size`` window of an image (stride defaults to the kernel size)."""
    _pool = staticmethod(F.avg_pool2d)


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size`` whatever the input size (``1``: a global average)."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
