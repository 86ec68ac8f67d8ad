"""Distances and similarities between batches of vectors, and the losses built on them: ``pairwise_distance``,
``cosine_similarity``, ``normalize``, ``cosine_embedding_loss``, ``triplet_margin_loss`` and
``triplet_margin_with_distance_loss`` (the same loss with a distance of one's choosing).

All are composites, as PyTorch builds them, so their nodes are PyTorch's: ``pairwise_distance`` calls the older
``norm(x, p, dim)``, recorded as ``NormBackward1`` (the vector norm's derivative under that name);
``cosine_similarity`` divides each input by its norm, clamped at ``eps`` without a gradient, then sums their
product (``SumBackward1``).
"""

from __future__ import annotations

from .. import backend
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._args import checked
from ._op import Op
from .nn_loss_more import _legacy, _reduced
from .norm import LinalgVectorNormBackward0, _check_identity, norm
from .pointwise import minimum, where
from .reductions import _dims

__all__ = ["pairwise_distance", "cosine_similarity", "normalize", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


class NormBackward1(Op):
    """``norm(x, p, dim, keepdim)``, the older spelling of the vector norm that ``pairwise_distance`` calls: the
    vector norm's forward and derivatives, with PyTorch's name for ``ord`` (``p``)"""
    saves = ("dim", "keepdim", "p", "result", "self")

    def forward(xp, self, *, p, dim, keepdim):
        return LinalgVectorNormBackward0.forward(xp, self, ord=p, dim=dim, keepdim=keepdim)

    def d_self(grad, dim, keepdim, p, result, self):
        return LinalgVectorNormBackward0.d_self(grad, dim, keepdim, p, result, self)

    def f_self(tangent, dim, keepdim, p, result, self):
        return LinalgVectorNormBackward0.f_self(tangent, dim, keepdim, p, result, self)


@checked
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (of the broadcast shape)."""
    last = max(x1.ndim, x2.ndim) - 1
    diff = x1 - x2 + eps
    if last < 0:  # (two numbers: PyTorch takes the norm of the one element)
        return NormBackward1.apply(diff, p=p, dim=None, keepdim=keepdim)
    if p < 0 or p == float("inf"):
        _check_identity(diff, p, (last,))
    return NormBackward1.apply(diff, p=p, dim=(last,), keepdim=keepdim)


def _expanded(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    """Both inputs expanded to their broadcast shape (PyTorch's ``expand_outplace``: the same tensors if equal)."""
    if tuple(x1.shape) == tuple(x2.shape):
        return x1, x2
    shape = backend.np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    return x1.expand(*shape), x2.expand(*shape)


@checked(kinds={"dim": "int"})
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (each norm clamped at ``eps``)."""
    x1, x2 = _expanded(x1, x2)
    dims = (_dims((dim,), x1.ndim, "cosine_similarity")[0],)
    norms = [LinalgVectorNormBackward0.apply(x, ord=2, dim=dims, keepdim=True).clone() for x in (x1, x2)]
    with no_grad():  # (the clamp is not differentiated: a norm below eps counts as eps, a constant)
        for each in norms:
            each.clamp_min_(eps)
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dims[0])


@checked
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    result = input / norm(input, p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        return out.copy_(result)
    return result


@checked
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where target is -1."""
    reduction = _legacy(size_average, reduce, reduction)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(dim)
    magnitudes = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cos = prod_sum / magnitudes.sqrt_()
    zeros = cos.new_zeros(tuple(cos.shape))
    positive = where(target == 1, 1 - cos, zeros)
    negative = where(target == -1, (cos - margin).clamp_min_(0), zeros)
    return _reduced(positive + negative, reduction)


@checked
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the ``p``-norm distance; ``swap=True``
    also uses d(positive, negative) where it is smaller."""
    reduction = _legacy(size_average, reduce, reduction)
    return triplet_margin_with_distance_loss(anchor, positive, negative, margin=margin, swap=swap, reduction=reduction,
                                             distance_function=lambda a, b: pairwise_distance(a, b, p, eps))


@checked
def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with ``d = distance_function`` (any function of
    two tensors giving one distance per row; ``pairwise_distance`` if None); ``swap=True`` also uses
    d(positive, negative) where it is smaller."""
    reduction = _legacy(None, None, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    return _reduced((margin + dist_pos - dist_neg).clamp_min(0), reduction)
