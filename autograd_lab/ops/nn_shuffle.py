"""Rearranging channels: ``pixel_shuffle`` (channels into space: sub-pixel convolution's upsampling),
``pixel_unshuffle`` (space into channels), ``channel_shuffle`` (ShuffleNet's interleaving of channel groups), and
``local_response_norm`` (each value divided by a power of the mean square of its neighbouring channels).

The three shuffles only move values: each is a reshape, a transpose and a reshape, and each one's derivative is
the shuffle that moves them back (``pixel_shuffle``'s gradient is a ``pixel_unshuffle`` of the output gradient,
and so it is recorded under ``create_graph``, as in PyTorch). ``local_response_norm`` is a composite, as PyTorch's
is: the mean over channel windows is an average pooling of the squares, seen as one-channel images whose height
runs over the channels.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .nn_pool import avg_pool2d
from .padding import pad

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "local_response_norm"]


def _shuffle_pixels(x, factor: int):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r): channel c * r * r + i * r + j goes to pixel (i, j) of each
    r x r block."""
    lead, n = x.shape[:-3], x.ndim - 3
    channels, h, w = x.shape[-3] // (factor * factor), x.shape[-2], x.shape[-1]
    blocks = x.reshape(lead + (channels, factor, factor, h, w))
    order = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)  # (*, C, H, r, W, r)
    return blocks.transpose(order).reshape(lead + (channels, h * factor, w * factor))


def _unshuffle_pixels(x, factor: int):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W): the inverse of ``_shuffle_pixels``."""
    lead, n = x.shape[:-3], x.ndim - 3
    channels, h, w = x.shape[-3], x.shape[-2] // factor, x.shape[-1] // factor
    blocks = x.reshape(lead + (channels, h, factor, w, factor))
    order = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)  # (*, C, r, r, H, W)
    return blocks.transpose(order).reshape(lead + (channels * factor * factor, h, w))


class PixelShuffleBackward0(Op):
    """out = the channels of each r * r group spread over an r x r block of pixels: (*, C r², H, W) -> (*, C, rH, rW)"""
    saves = ("upscale_factor",)

    def forward(xp, self, *, upscale_factor):
        return _shuffle_pixels(self, upscale_factor)

    def d_self(grad, upscale_factor):
        return formulas.call(PixelUnshuffleBackward0, grad, downscale_factor=upscale_factor)

    jvp = LINEAR


class PixelUnshuffleBackward0(Op):
    """out = each r x r block of pixels stacked into r * r channels: (*, C, rH, rW) -> (*, C r², H, W)"""
    saves = ("downscale_factor",)

    def forward(xp, self, *, downscale_factor):
        return _unshuffle_pixels(self, downscale_factor)

    def d_self(grad, downscale_factor):
        return formulas.call(PixelShuffleBackward0, grad, upscale_factor=downscale_factor)

    jvp = LINEAR


class ChannelShuffleBackward0(Op):
    """out = the channels (dim 1) in ``groups`` groups, interleaved: channel g * (C / groups) + i goes to
    i * groups + g"""
    saves = ("groups",)

    def forward(xp, self, *, groups):
        n, c, rest = self.shape[0], self.shape[1], self.shape[2:]
        return self.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape(self.shape)

    def d_self(grad, groups):  # the shuffle with C / groups groups moves every channel back
        return formulas.call(ChannelShuffleBackward0, grad, groups=grad.shape[1] // groups)

    jvp = LINEAR


def _check_factor(input: Tensor, factor: int, op: str, name: str) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           "dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {factor}")


@checked
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r², H, W) -> (*, C, H * r, W * r), r = ``upscale_factor``, as ``F.pixel_shuffle``: each group of r²
    channels becomes an r x r block of pixels (the upsampling of a sub-pixel convolution)."""
    _check_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    square = upscale_factor * upscale_factor
    if input.shape[-3] % square:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {square}")
    return PixelShuffleBackward0.apply(input, upscale_factor=upscale_factor)


@checked
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r², H, W), r = ``downscale_factor``, as ``F.pixel_unshuffle``: the inverse of
    ``pixel_shuffle``."""
    _check_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    for dim, name in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % downscale_factor:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({dim})={input.shape[dim]} is not divisible by {downscale_factor}")
    return PixelUnshuffleBackward0.apply(input, downscale_factor=downscale_factor)


@checked
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the ``groups`` groups of channels (dim 1) of an ``(N, C, *)`` input, as ``F.channel_shuffle`` and
    ShuffleNet: with 2 groups of 3, channels 0 1 2 | 3 4 5 come out as 0 3 1 4 2 5."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and {groups} "
                           "groups.")
    return ChannelShuffleBackward0.apply(input, groups=groups)


@checked
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divide each value by (k + alpha * the mean of the squares over ``size`` neighbouring channels) ** beta, as
    ``F.local_response_norm`` (AlexNet's normalisation); the channels are dim 1 of an ``(N, C, *)`` input."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions) [autograd_lab] "
                         "local_response_norm normalises over the channels of (N, C, ...) inputs")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    squares = (input * input).reshape(n, 1, c, -1)  # one-channel images: the height runs over the channels
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    mean = avg_pool2d(squares, (size, 1), stride=1).reshape(input.shape)
    return input / (mean * alpha + k).pow(beta)
