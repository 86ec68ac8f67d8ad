"""PyTorch's top-level names for neural-network functions: ``al.softmax(x, 1)``, ``al.conv2d(...)``,
``al.cosine_similarity(a, b)``, as ``torch.softmax`` and the others are there beside ``torch.nn.functional``.

Where the two signatures agree, the name is the ``nn.functional`` function itself. ``softmax``, ``log_softmax``
and ``dropout`` take their arguments as the top-level ones do (a required ``dim``; ``dropout(input, p, train)``)
and call it.
"""

from __future__ import annotations

from ..nn import functional as F
from ..tensor import Tensor

__all__ = ["softmax", "log_softmax", "dropout", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "avg_pool1d", "adaptive_avg_pool1d", "max_pool1d", "max_pool2d", "cosine_similarity",
           "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "hardshrink", "selu", "celu",
           "threshold", "prelu", "layer_norm", "group_norm"]

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d, max_pool1d, max_pool2d = F.avg_pool1d, F.adaptive_avg_pool1d, F.max_pool1d, \
    F.max_pool2d
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
