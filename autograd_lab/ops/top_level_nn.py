"""PyTorch's top-level names for neural-network functions: ``al.softmax(x, 1)``, ``al.conv2d(...)``,
``al.cosine_similarity(a, b)``, as ``torch.softmax`` and the others are there beside ``torch.nn.functional``.

Where the two signatures agree, the name is the ``nn.functional`` function itself. ``softmax``, ``log_softmax``
and ``dropout`` take their arguments as the top-level ones do (a required ``dim``; ``dropout(input, p, train)``)
and call it; so do the in-place forms ``selu_``, ``celu_``, ``threshold_``, ``rrelu_``, ``dropout_``,
``alpha_dropout_`` and ``feature_alpha_dropout_``.
"""

from __future__ import annotations

from ..nn import functional as F
from ..tensor import Tensor

__all__ = ["softmax", "log_softmax", "dropout", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "avg_pool1d", "adaptive_avg_pool1d", "max_pool1d", "max_pool2d", "max_pool3d", "cosine_similarity",
           "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "hardshrink", "selu", "celu",
           "threshold", "prelu", "layer_norm", "group_norm", "selu_", "celu_", "threshold_", "rrelu_", "dropout_",
           "alpha_dropout_", "feature_alpha_dropout_"]

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d, max_pool1d, max_pool2d = F.avg_pool1d, F.adaptive_avg_pool1d, F.max_pool1d, \
    F.max_pool2d
max_pool3d = F.max_pool3d
cosine_similarity, pairwise_distance = F.cosine_similarity, F.pairwise_distance
pixel_shuffle, pixel_unshuffle, channel_shuffle = F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle
hardshrink, selu, celu, threshold, prelu = F.hardshrink, F.selu, F.celu, F.threshold, F.prelu
layer_norm, group_norm = F.layer_norm, F.group_norm
Tensor.hardshrink, Tensor.prelu = hardshrink, prelu  # (x.hardshrink(0.3), x.prelu(weight), as in PyTorch)


def softmax(input, dim: int, *, dtype=None):
    """``exp(input)`` normalized to sum to 1 along ``dim`` (``nn.functional.softmax``, with ``dim`` required)."""
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim: int, dtype=None):
    """``log(softmax(input, dim))``, computed stably (``nn.functional.log_softmax``, with ``dim`` required)."""
    return F.log_softmax(input, dim, dtype=dtype)


def dropout(input, p: float, train: bool):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` when ``train`` is true."""
    return F.dropout(input, p, training=train)


# PyTorch's top-level in-place forms of these (``torch.selu_(x)``...): each writes into ``input`` and returns it.
def selu_(input):
    """``selu`` written into ``input`` (``EluBackward1``, as PyTorch records it)."""
    return F.selu(input, inplace=True)


def celu_(input, alpha: float = 1.0):
    """``celu`` written into ``input`` (``CeluBackward1``)."""
    return F.celu(input, alpha, inplace=True)


def threshold_(input, threshold: float, value: float):
    """``threshold`` written into ``input`` (``ThresholdBackward1``)."""
    return F.threshold_(input, threshold, value)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, generator=None):
    """``rrelu`` written into ``input`` (``RreluWithNoiseBackward1``)."""
    return F.rrelu_(input, lower, upper, training, generator=generator)


def dropout_(input, p: float, train: bool):
    """``dropout`` written into ``input`` when ``train`` is true (else ``input`` as it is)."""
    return F.dropout(input, p, training=train, inplace=True)


def alpha_dropout_(input, p: float, train: bool):
    """``alpha_dropout`` written into ``input`` when ``train`` is true."""
    return F.alpha_dropout(input, p, training=train, inplace=True)


def feature_alpha_dropout_(input, p: float, train: bool):
    """``feature_alpha_dropout`` written into ``input`` when ``train`` is true."""
    return F.feature_alpha_dropout(input, p, training=train, inplace=True)
