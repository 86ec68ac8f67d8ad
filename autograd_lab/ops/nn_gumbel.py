"""``gumbel_softmax``: a differentiable sample of a categorical distribution, built as PyTorch builds it.

Adding Gumbel noise ``-log(E)`` (``E`` exponential) to the logits and taking the largest picks category ``k`` with
probability ``softmax(logits)[k]``; the softmax of the noisy logits divided by a temperature ``tau`` is a smooth
stand-in for that one-hot pick (sharper as ``tau`` falls). With ``hard=True`` the result *is* the one-hot pick, and
its gradient is the soft sample's (``y_hard - y_soft.detach() + y_soft``: the straight-through estimator).
The graph holds PyTorch's nodes: ``SoftmaxBackward0`` after ``DivBackward0`` and ``AddBackward0``; ``AddBackward0``
last when ``hard``.
"""

from __future__ import annotations

import warnings

from .. import creation
from ..tensor import Tensor
from ._args import checked

__all__ = ["gumbel_softmax"]


@checked(kinds={"dim": "int"})
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of softmax((logits + Gumbel noise) / tau) along ``dim``; ``hard=True``: its one-hot argmax, with the
    soft sample's gradient. ``eps`` is deprecated and unused, as in PyTorch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning, stacklevel=3)
    gumbels = -creation.empty_like(logits).exponential_().log()  # Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
