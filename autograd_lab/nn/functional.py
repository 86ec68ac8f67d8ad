"""``nn.functional`` (``import autograd_lab.nn.functional as F``): the layers' computations as functions,
taking the weights as arguments. The ops themselves live in :mod:`autograd_lab.ops` (``nn``, ``nn_conv``,
``nn_pool``, ``nn_pool3d``, ``nn_loss``, ``nn_activation_more``, ``nn_loss_more``, ``nn_distance``), where each forward stands
beside its derivative.
"""

from __future__ import annotations

import operator

from .. import backend
from ..ops import upsample_antialias, upsample_cubic  # noqa: F401  (the nodes interpolate records for them)
from ..ops._args import checked
from ..ops.attention import scaled_dot_product_attention
from ..ops.dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from ..ops.multi_head_attention import multi_head_attention_forward
from ..ops.nn import (
    addmm,
    batch_norm,
    embedding,
    erf,
    gelu,
    linear,
    log_softmax,
    softmax,
)
from ..ops.nn_activation import leaky_relu, rrelu, rrelu_, threshold
from ..ops.nn_activation_more import (
    celu,
    celu_,
    elu,
    elu_,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    logsigmoid,
    mish,
    relu6,
    selu,
    selu_,
    silu,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
)
from ..ops.nn_affine_grid import affine_grid
from ..ops.nn_bilinear import bilinear, pdist
from ..ops.nn_conv import conv1d, conv2d, conv3d
from ..ops.nn_conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ..ops.nn_distance import (
    cosine_embedding_loss,
    cosine_similarity,
    normalize,
    pairwise_distance,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ..ops.nn_embedding_bag import embedding_bag
from ..ops.nn_fold import fold, unfold
from ..ops.nn_grid_sample import grid_sample
from ..ops.nn_gumbel import gumbel_softmax
from ..ops.nn_loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ..ops.nn_loss_margins import multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss
from ..ops.nn_loss_more import (
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
)
from ..ops.nn_norm import instance_norm, layer_norm
from ..ops.nn_norm_more import group_norm, prelu, rms_norm
from ..ops.nn_pool import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from ..ops.nn_pool3d import adaptive_avg_pool3d, adaptive_max_pool3d, avg_pool3d, lp_pool3d, max_pool3d, max_unpool3d
from ..ops.nn_pool_more import (
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    lp_pool1d,
    lp_pool2d,
    max_pool1d,
)
from ..ops.nn_shuffle import channel_shuffle, local_response_norm, pixel_shuffle, pixel_unshuffle
from ..ops.nn_unpool import max_unpool1d, max_unpool2d
from ..ops.padding import pad
from ..ops.pointwise import relu as _relu
from ..ops.pointwise import sigmoid, tanh
from ..ops.upsample import interpolate
from ..tensor import Tensor

__all__ = ["linear", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "softmax", "log_softmax", "gelu",
           "relu", "sigmoid", "tanh", "dropout", "embedding", "batch_norm", "nll_loss", "cross_entropy", "mse_loss",
           "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "one_hot", "max_pool2d_with_indices",
           "addmm", "erf", "pad", "conv1d", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "leaky_relu", "leaky_relu_", "threshold",
           "threshold_", "rrelu", "rrelu_", "layer_norm", "instance_norm", "interpolate",
           # more activations, losses and distances
           "hardtanh", "hardtanh_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "silu", "mish", "softplus",
           "softsign", "tanhshrink", "hardsigmoid", "hardswish", "logsigmoid", "glu", "softmin", "hardshrink",
           "softshrink", "smooth_l1_loss", "huber_loss", "kl_div", "margin_ranking_loss", "soft_margin_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
           "cosine_similarity", "normalize", "pairwise_distance",
           # attention
           "scaled_dot_product_attention", "multi_head_attention_forward",
           # more normalisation
           "group_norm", "rms_norm", "prelu", "embedding_bag",
           # more convolutions and pools
           "conv_transpose1d", "conv_transpose2d", "unfold", "fold", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
           "max_pool1d_with_indices", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "lp_pool3d", "max_unpool3d",
           "max_pool3d_with_indices", "adaptive_max_pool3d_with_indices",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "local_response_norm",
           "conv3d", "conv_transpose3d",
           # sampling at arbitrary points (spatial transformers)
           "affine_grid", "grid_sample",
           # products of three tensors, distances within a batch
           "bilinear", "pdist", "triplet_margin_with_distance_loss", "gumbel_softmax"]


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu(input, negative_slope, inplace=True)``."""
    return leaky_relu(input, negative_slope, inplace=True)


def threshold_(input: Tensor, threshold_value: float, value: float) -> Tensor:
    """``threshold(input, threshold, value, inplace=True)``."""
    return threshold(input, threshold_value, value, inplace=True)


@checked
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) elementwise; ``inplace=True`` overwrites ``input``."""
    return input.relu_() if inplace else _relu(input)


@checked
def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False):
    """``max_pool2d`` returning ``(values, indices)``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@checked
def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False):
    """``max_pool1d`` returning ``(values, indices)``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@checked
def adaptive_max_pool1d_with_indices(input: Tensor, output_size):
    """``adaptive_max_pool1d`` returning ``(values, indices)``."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


@checked
def adaptive_max_pool2d_with_indices(input: Tensor, output_size):
    """``adaptive_max_pool2d`` returning ``(values, indices)``."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


@checked
def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False):
    """``max_pool3d`` returning ``(values, indices)``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@checked
def adaptive_max_pool3d_with_indices(input: Tensor, output_size):
    """``adaptive_max_pool3d`` returning ``(values, indices)``."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


@checked(kinds={"num_classes": "int"})
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(..., num_classes) int64 tensor with a 1 at each index of ``tensor`` (no gradient)."""
    if tensor.is_floating_point() or tensor.dtype is backend.bool_:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = operator.index(num_classes)  # (a float is a TypeError, never truncated)
    data = tensor._data
    xp = backend.namespace_of(data)
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    elif data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((data[..., None] == xp.arange(num_classes)).astype(xp.int64))
