"""Alpha dropout (Klambauer et al., 2017), the dropout of self-normalizing networks (``SELU`` layers): a dropped
element is set to SELU's negative saturation value rather than 0, then the whole is shifted and scaled back to
the mean and variance it had. ``feature_alpha_dropout`` drops whole channels.

Written as PyTorch composes it: ``input * a_mask + b``, so the graph shows ``AddBackward0`` over ``MulBackward0``.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor
from .nn import _generator_rng

__all__ = ["alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766  # SELU's -scale * alpha: where a large negative input saturates


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, features: bool) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    xp = backend.namespace_of(input._data)
    if p == 1:
        zero = Tensor._make(xp.zeros((), dtype=input._data.dtype))
        return input.mul_(zero) if inplace else input * zero
    # one draw per element, or per channel (the first two dims) shared along the rest
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if features else tuple(input.shape)
    keep = xp.asarray(_generator_rng(None, input.device).random(shape) >= p).astype(input._data.dtype)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = Tensor._make((keep - 1) * (_ALPHA * a) + _ALPHA * a * p)  # dropped: -alpha * a * (1 - p); kept: alpha*a*p
    mask = Tensor._make(keep * a)
    return (input.mul_(mask) if inplace else input * mask).add_(b)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """In training, replace each element with SELU's saturation value with probability ``p``, then restore the
    mean and variance by an affine map (identity in eval)."""
    return _alpha_dropout(input, p, training, inplace, features=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels: one draw per (sample, channel), shared along the other dims."""
    return _alpha_dropout(input, p, training, inplace, features=True)
