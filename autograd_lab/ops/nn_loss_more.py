"""More losses, each with ``reduction`` 'mean', 'sum' or 'none' (``kl_div`` also 'batchmean').

``smooth_l1_loss``, ``huber_loss`` and ``soft_margin_loss`` have their own nodes in PyTorch
(``SmoothL1LossBackward0``, ``HuberLossBackward0``, ``SoftMarginLossBackward0``), so they are ops here; the others
are built from other ops, as PyTorch builds them (``kl_div``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``poisson_nll_loss``, ``gaussian_nll_loss``), so their nodes are those ops' (``MeanBackward0``...). The distance
losses are in :mod:`.nn_distance`.
"""

from __future__ import annotations

import math
import warnings
from numbers import Number

from .. import backend
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .nn_loss import _check_reduction, _loss_tangent, _mean_scale, _reduce, _warn_broadcast
from .pointwise import where
from .pointwise_binary import xlogy

__all__ = ["smooth_l1_loss", "huber_loss", "soft_margin_loss", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss"]


def _reduced(loss: Tensor, reduction: str) -> Tensor:
    """A composite loss's reduction, with the ops PyTorch records (``MeanBackward0``, ``SumBackward0``)."""
    return loss if reduction == "none" else (loss.sum() if reduction == "sum" else loss.mean())


# -- smooth L1 and Huber ------------------------------------------------------------------------
class SmoothL1LossBackward0(Op):
    """out = 0.5 * d^2 / beta where abs(d) < beta, else abs(d) - 0.5 * beta (d = self - target), reduced"""
    saves = ("beta", "reduction", "self", "target")
    promotes = True

    def forward(xp, self, target, *, reduction, beta):
        z = xp.abs(self - target)
        return _reduce(xp, xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(z.dtype, copy=False),
                       reduction)

    def d_self(grad, beta, reduction, self, target):
        d = self - target
        # (at abs(d) == beta both sides give +-1; the constant side's is what PyTorch's second derivative sees
        # there: 0. NaN takes the middle: NaN)
        local = formulas.where(d <= -beta, -1.0, formulas.where(d >= beta, 1.0, d / beta))
        return grad * local * _mean_scale(reduction, formulas.numel(d))

    def d_target(grad, beta, reduction, self, target):
        return -SmoothL1LossBackward0.d_self(grad, beta, reduction, self, target)

    def f_self(tangent, beta, reduction, self, target):
        return _loss_tangent(SmoothL1LossBackward0.d_self(tangent, beta, reduction, self, target), reduction)

    def f_target(tangent, beta, reduction, self, target):
        return _loss_tangent(SmoothL1LossBackward0.d_target(tangent, beta, reduction, self, target), reduction)


class HuberLossBackward0(Op):
    """out = 0.5 * d^2 where abs(d) < delta, else delta * (abs(d) - 0.5 * delta) (d = self - target), reduced"""
    saves = ("delta", "reduction", "self", "target")
    promotes = True

    def forward(xp, self, target, *, reduction, delta):
        z = xp.abs(self - target)
        return _reduce(xp, xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype, copy=False),
                       reduction)

    def d_self(grad, delta, reduction, self, target):
        d = self - target
        local = formulas.where(d <= -delta, -delta, formulas.where(d >= delta, delta, d))  # (as smooth_l1's)
        return grad * local * _mean_scale(reduction, formulas.numel(d))

    def d_target(grad, delta, reduction, self, target):
        return -HuberLossBackward0.d_self(grad, delta, reduction, self, target)

    def f_self(tangent, delta, reduction, self, target):
        return _loss_tangent(HuberLossBackward0.d_self(tangent, delta, reduction, self, target), reduction)

    def f_target(tangent, delta, reduction, self, target):
        return _loss_tangent(HuberLossBackward0.d_target(tangent, delta, reduction, self, target), reduction)


@checked
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Squared error (halved, over ``beta``) below ``beta``, absolute error (less ``beta / 2``) above it."""
    reduction = _legacy(size_average, reduce, reduction)
    _warn_broadcast(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta. [autograd_lab] beta is where "
                           "the loss turns from squared to absolute error: use beta >= 0")
    _floating_pair(input, target, "smooth_l1_cpu")
    if beta == 0:  # PyTorch's shortcut: the l1 loss, with its nodes
        return _reduced((input - target).abs(), reduction)
    return SmoothL1LossBackward0.apply(input, target, reduction=reduction, beta=beta)


@checked
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight=None) -> Tensor:
    """Half the squared error below ``delta``, ``delta`` times (absolute error less ``delta / 2``) above it."""
    _check_reduction(reduction)
    _warn_broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta. [autograd_lab] delta is where "
                           "the loss turns from squared to absolute error: use delta > 0")
    _floating_pair(input, target, "huber_cpu")
    if weight is not None:  # (PyTorch's per-element weights: its functional then composes the loss)
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        return _reduced(HuberLossBackward0.apply(input, target, reduction="none", delta=delta) * weight, reduction)
    return HuberLossBackward0.apply(input, target, reduction=reduction, delta=delta)


def _floating_pair(input: Tensor, target: Tensor, kernel: str) -> None:
    """PyTorch's error where neither tensor is floating (its kernels are written for floating types only)."""
    if not (input.is_floating_point() or target.is_floating_point()):
        raise no_kernel(kernel, input.dtype, "convert the tensors first, e.g. input.float()")


def _legacy(size_average, reduce, reduction: str) -> str:
    """``reduction`` (or what PyTorch's legacy ``size_average`` / ``reduce`` flags mean), checked."""
    if size_average is not None or reduce is not None:
        from ..nn.loss import _legacy_reduction  # (the one translation, with its warning)
        reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return reduction


# -- soft margin --------------------------------------------------------------------------------
class SoftMarginLossBackward0(Op):
    """out = log(1 + exp(-target * self)), reduced (target: +1 or -1, no gradient)"""
    saves = ("reduction", "self", "target")
    tensor_params = ("target",)

    def forward(xp, self, *, target, reduction):
        z = -target * self
        loss = xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))  # (softplus without overflow)
        return _reduce(xp, loss.astype(self.dtype, copy=False), reduction)

    def d_self(grad, reduction, self, target):
        target = formulas.cast_like(target, self)  # (a constant: no gradient flows to it)
        return grad * -target * formulas.sigmoid(-target * self) * _mean_scale(reduction, formulas.numel(self))

    def f_self(tangent, reduction, self, target):
        return _loss_tangent(SoftMarginLossBackward0.d_self(tangent, reduction, self, target), reduction)


@checked
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), a smooth hinge for targets +1 / -1."""
    reduction = _legacy(size_average, reduce, reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True. [autograd_lab] pass target.detach()")
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type {backend.kernel_type_name(input.dtype)} "
                           "[autograd_lab] soft_margin_loss takes floating scores: call input.float() first")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"soft_margin_loss: expected target of shape {list(input.shape)}, got "
                           f"{list(target.shape)} [autograd_lab] the targets (+1 / -1) go one per input element")
    return SoftMarginLossBackward0.apply(input, target=target, reduction=reduction)


# -- composites ---------------------------------------------------------------------------------
_KL_MEAN = ("reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides "
            "only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the "
            "same as 'batchmean' in the next major release.")


@checked
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The KL divergence of ``exp(input)`` from ``target`` (``input``: log-probabilities): the sum of
    ``target * (log(target) - input)``; with ``log_target=True`` the target is given as log-probabilities too.
    'batchmean' divides by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(_KL_MEAN, UserWarning, stacklevel=3)
    elif reduction not in ("batchmean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction (use 'batchmean', 'sum', 'none' or 'mean')")
    loss = target.exp() * (target - input) if log_target else xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduced(loss, reduction)


@checked
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin): ``input1`` should rank above ``input2`` where target is 1."""
    reduction = _legacy(size_average, reduce, reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduced((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@checked
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where target is 1, max(0, margin - input) where target is -1 (input: a distance)."""
    reduction = _legacy(size_average, reduce, reduction)
    zeros = input.new_zeros(tuple(input.shape))
    margin_part = where(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = where(target != -1, input, zeros)
    return _reduced(margin_part + self_part, reduction)


@checked
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under a Poisson distribution of rate ``exp(input)`` (or ``input``
    itself with ``log_input=False``); ``full=True`` adds Stirling's term for target > 1."""
    reduction = _legacy(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, reduction)


def _gaussian_var(input: Tensor, var) -> Tensor:
    """``var`` as a tensor shaped to broadcast against ``input`` (PyTorch's checks and their errors)."""
    if isinstance(var, Number):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return input.new_full(tuple(input.shape), float(var))
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) == tuple(input.shape):
        return var
    if tuple(input.shape[:-1]) == tuple(var.shape):
        return var.unsqueeze(-1)
    if input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


@checked
def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance ``var`` (clamped at
    ``eps`` without a gradient there); ``full=True`` adds the constant log(2 pi) / 2."""
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)
