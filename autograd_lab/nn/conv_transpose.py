"""Transposed convolution layers ``ConvTranspose1d``, ``ConvTranspose2d``, ``ConvTranspose3d``: they grow their
input, as the decoder of an autoencoder or the generator of a GAN does (see
:func:`~autograd_lab.nn.functional.conv_transpose2d`)."""

from __future__ import annotations

from ..ops.nn_conv import _tuple
from ..tensor import Tensor
from . import functional as F
from .conv import _ConvNd

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution with (in_channels, out_channels/groups) x kernel filters; PyTorch's arguments (in its
    order: ``output_padding`` and ``groups`` before ``dilation``) and initialisation. Only ``padding_mode='zeros'``."""
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)
        self.output_padding = _tuple(output_padding, self._spatial, "output_padding", name)

    def _output_padding(self, input: Tensor, output_size) -> tuple:
        """The ``output_padding`` that makes the output ``output_size`` (its last spatial sizes; or the layer's own
        ``output_padding`` when it is None), as PyTorch computes it: each size must lie between the smallest output
        and that plus stride - 1."""
        if output_size is None:
            return self.output_padding
        spatial = self._spatial
        output_size = list(output_size)
        non_spatial = 2 if input.ndim == spatial + 2 else 1
        if len(output_size) == non_spatial + spatial:
            output_size = output_size[non_spatial:]
        if len(output_size) != spatial:
            raise ValueError(f"ConvTranspose{spatial}D: for {input.ndim}D input, output_size must have {spatial} or "
                             f"{non_spatial + spatial} elements (got {len(output_size)})")
        padding = (0,) * spatial if isinstance(self.padding, str) else self.padding
        smallest = [(input.shape[i - spatial] - 1) * self.stride[i] - 2 * padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(spatial)]
        largest = [size + self.stride[i] - 1 for i, size in enumerate(smallest)]
        if any(not low <= size <= high for size, low, high in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {input.shape[-spatial:]})")
        return tuple(size - low for size, low in zip(output_size, smallest))

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._spatial - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution of (N, C, L) sequences (or one (C, L) sequence); ``forward(input, output_size)``
    picks among the lengths a stride allows."""
    _spatial = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution of (N, C, H, W) images (or one (C, H, W) image): each input pixel adds a copy of
    the kernel, scaled by its value, into the output, ``stride`` pixels apart. ``forward(input, output_size)``
    picks among the sizes a stride allows (e.g. the size of the image a strided ``Conv2d`` shrank)."""
    _spatial = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution of (N, C, D, H, W) volumes (or one (C, D, H, W) volume)."""
    _spatial = 3
