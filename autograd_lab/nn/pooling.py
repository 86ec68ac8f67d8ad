"""More pooling layers: over sequences (``MaxPool1d``, ``AvgPool1d``, ``AdaptiveAvgPool1d``, ``AdaptiveMaxPool1d``),
adaptive max pooling of images (``AdaptiveMaxPool2d``), power averages (``LPPool1d``, ``LPPool2d``), max
unpooling (``MaxUnpool1d``, ``MaxUnpool2d``), and each of these over volumes (N, C, D, H, W): ``MaxPool3d``,
``AvgPool3d``, ``AdaptiveAvgPool3d``, ``AdaptiveMaxPool3d``, ``LPPool3d``, ``MaxUnpool3d``. The image layers
``MaxPool2d``, ``AvgPool2d`` and ``AdaptiveAvgPool2d`` are in :mod:`.conv`."""

from __future__ import annotations

from ..ops.nn_conv import _pair, _single, _tuple
from ..tensor import Tensor
from . import functional as F
from .conv import _AvgPoolNd, _MaxPoolNd
from .module import Module

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d",
           "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
           "LPPool3d", "MaxUnpool3d"]


class MaxPool1d(_MaxPoolNd):
    """The maximum over each ``kernel_size`` window of a sequence (stride defaults to the kernel size)."""
    _pool = staticmethod(F.max_pool1d)


class MaxPool3d(_MaxPoolNd):
    """The maximum over each ``kernel_size`` window of a volume (stride defaults to the kernel size)."""
    _pool = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPoolNd):
    """The mean over each ``kernel_size`` window of a volume (stride defaults to the kernel size)."""
    _pool = staticmethod(F.avg_pool3d)


class AvgPool1d(Module):
    """The mean over each ``kernel_size`` window of a sequence (stride defaults to the kernel size)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = (_single(kernel_size, "kernel_size", "AvgPool1d"),)
        self.stride = (_single(stride if stride is not None else kernel_size, "stride", "AvgPool1d"),)
        self.padding = (_single(padding, "padding", "AvgPool1d"),)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average pooling of sequences to a fixed ``output_size`` whatever their length."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling of volumes to a fixed ``output_size`` grid whatever their size (``None`` keeps a dim)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling of sequences to a fixed ``output_size`` whatever their length (``return_indices``: and where)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling of images to a fixed ``output_size`` grid whatever their size (``None`` keeps a dim)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of volumes to a fixed ``output_size`` grid whatever their size (``None`` keeps a dim)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPool(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """The ``norm_type``-norm of each window of a sequence: (sum of x ** p) ** (1 / p)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """The ``norm_type``-norm of each window of an image: (sum of x ** p) ** (1 / p)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPool):
    """The ``norm_type``-norm of each window of a volume: (sum of x ** p) ** (1 / p)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Each value of a max-pooled sequence back at its index, zeros elsewhere; ``forward(input, indices,
    output_size=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = (_single(kernel_size, "kernel_size", "MaxUnpool1d"),)
        self.stride = (_single(stride if stride is not None else kernel_size, "stride", "MaxUnpool1d"),)
        self.padding = (_single(padding, "padding", "MaxUnpool1d"),)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Each value of a max-pooled image back at its index, zeros elsewhere; ``forward(input, indices,
    output_size=None)`` (give the size of the pooled image where a stride leaves a choice)."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _pair(kernel_size, "kernel_size", "MaxUnpool2d")
        self.stride = _pair(stride if stride is not None else kernel_size, "stride", "MaxUnpool2d")
        self.padding = _pair(padding, "padding", "MaxUnpool2d")

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Each value of a max-pooled volume back at its index, zeros elsewhere; ``forward(input, indices,
    output_size=None)``."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 3, "kernel_size", "MaxUnpool3d")
        self.stride = _tuple(stride if stride is not None else kernel_size, 3, "stride", "MaxUnpool3d")
        self.padding = _tuple(padding, 3, "padding", "MaxUnpool3d")

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
