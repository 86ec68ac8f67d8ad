"""Dropout: ``dropout`` zeroes elements at random while training and scales the rest by ``1 / (1 - p)``, so the
expected value is unchanged; ``dropout1d/2d/3d`` zero whole channels. PyTorch records dropout as the product with a
mask (``MulBackward0``), and so does this file.

Alpha dropout (Klambauer et al., 2017) is the dropout of self-normalizing networks (``SELU`` layers): a dropped
element is set to SELU's negative saturation value rather than 0, then the whole is shifted and scaled back to
the mean and variance it had. ``feature_alpha_dropout`` drops whole channels. It is written as PyTorch composes
it, ``input * a_mask + b``: the graph shows ``AddBackward0`` over ``MulBackward0``.
"""

from __future__ import annotations

import math
import warnings

from .. import backend
from ..tensor import Tensor
from ._args import checked

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _generator_rng(generator, device="cpu"):
    from ..creation import default_generator_for
    return (generator or default_generator_for(device))._rng  # each device draws from its own generator


@checked
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            generator=None) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    xp = backend.namespace_of(input._data)
    keep = _generator_rng(generator, input.device).random(input.shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = Tensor._make(xp.asarray(keep * scale, dtype=input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, channel_dims: int = 2) -> Tensor:
    """Zero whole channels with probability ``p`` and scale the rest by 1/(1-p): one draw per element of the
    first ``channel_dims`` dims ((N, C) of a batch; (C,) of one unbatched sample), shared along the rest."""
    if not training or p == 0:
        return input
    xp = backend.namespace_of(input._data)
    shape = tuple(input.shape[:channel_dims]) + (1,) * (input.ndim - channel_dims)
    keep = _generator_rng(None, input.device).random(shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = Tensor._make(xp.asarray(keep * scale, dtype=input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, spatial: int) -> Tensor:
    """``dropout1d``/``dropout3d``: an unbatched input (C, ...) is one sample (as PyTorch does it: a batch of one,
    then squeezed back; in place, its channels directly)."""
    if input.ndim != spatial + 1:
        return _feature_dropout(input, p, training, inplace)
    if inplace:
        return _feature_dropout(input, p, training, inplace, channel_dims=1)
    return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability ``p`` (training only), scale the rest."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, 1)


def _warn_channel_dims(name: str, ndim: int, spatial: int) -> None:
    """PyTorch's deprecation warning for a channel dropout given neither a batched nor an unbatched input."""
    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in a "
                  "future release. To retain the behavior and silence this warning, please use dropout instead. Note "
                  f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
                  f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
                  UserWarning, stacklevel=3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) images with probability ``p`` (training only), scale the rest.

    A 3-D input is read as (N, C, L), with PyTorch's warning (PyTorch will read it as one unbatched image)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        _warn_channel_dims("dropout2d", input.ndim, spatial=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability ``p``, scale the rest."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        _warn_channel_dims("dropout3d", input.ndim, spatial=3)
    return _channel_dropout(input, p, training, inplace, 3)



# -- alpha dropout ------------------------------------------------------------------------------------
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
