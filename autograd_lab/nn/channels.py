"""Layers that work across channels: ``PixelShuffle``, ``PixelUnshuffle``, ``ChannelShuffle`` (moving values
between channels and pixels, or among channels), ``Softmax2d`` (a softmax over the channels of each pixel) and
``LocalResponseNorm`` (each value scaled by the energy of its neighbouring channels)."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Softmax2d", "LocalResponseNorm"]


class PixelShuffle(Module):
    """(*, C * r², H, W) -> (*, C, H * r, W * r), r = ``upscale_factor`` (see
    :func:`~autograd_lab.nn.functional.pixel_shuffle`)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r², H, W), r = ``downscale_factor``: the inverse of ``PixelShuffle``."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the ``groups`` groups of channels of an ``(N, C, *)`` input (ShuffleNet's channel shuffle)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Softmax2d(Module):
    """A softmax over the channels at each pixel of (N, C, H, W) images (or one (C, H, W) image)."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class LocalResponseNorm(Module):
    """Each value divided by (k + alpha * mean of the squares over ``size`` neighbouring channels) ** beta (see
    :func:`~autograd_lab.nn.functional.local_response_norm`)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
