"""The multi-class margin losses: ``multi_margin_loss`` (a hinge between the target class's score and every other
class's), ``multilabel_margin_loss`` (between each target class and each non-target class) and
``multilabel_soft_margin_loss`` (a logistic loss per class, written with ``logsigmoid`` as PyTorch writes it).

Scores are ``(N, C)`` (or one sample, ``(C,)``); each sample's loss is divided by ``C``, then reduced over the
batch. Targets are class indices and take no gradient.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .nn_loss import _check_reduction, _mean_scale, _reduce

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss"]


def _one_hot(xp, target, classes: int, dtype):
    """``(..., C)``: 1 at each sample's target class."""
    return (xp.expand_dims(target, -1) == xp.arange(classes)).astype(dtype)


def _per_sample(grad, reduction: str, samples: int):
    """The incoming gradient as a factor for each sample's row (the mean's 1/N included)."""
    if reduction == "none":
        return formulas.unsqueeze(grad, -1) if formulas.array_of(grad).ndim else grad
    return grad * _mean_scale(reduction, samples)


class MultiMarginLossBackward0(Op):
    """out = sum over classes j != y of max(0, margin - self[y] + self[j])^p * weight[y] / C, per sample, reduced"""
    saves = ("margin", "p", "reduction", "self", "target", "weight")
    tensor_params = ("target", "weight")

    def forward(xp, self, *, target, p, margin, weight, reduction):
        classes = self.shape[-1]
        hot = _one_hot(xp, target, classes, self.dtype)
        z = margin - xp.where(hot != 0, self, 0).sum(-1, keepdims=True) + self  # (the target's score, picked out:
        hinge = xp.where((z > 0) & (hot == 0), z if p == 1 else z * z, 0)  # times 0, an inf elsewhere would be NaN)
        if weight is not None:
            hinge = hinge * weight.astype(self.dtype)[target][..., None]
        return _reduce(xp, (hinge.sum(-1) / classes).astype(self.dtype), reduction)

    def d_self(grad, margin, p, reduction, self, target, weight):
        return _per_sample(grad, reduction, _samples(self)) * _multi_margin_push(self, target, p, margin, weight)

    def f_self(tangent, margin, p, reduction, self, target, weight):
        push = _multi_margin_push(self, target, p, margin, weight)
        return _row_tangent(push, tangent, reduction, _samples(self))


def _multi_margin_push(self, target, p: int, margin: float, weight):
    """Each score's derivative of its sample's loss: every active hinge pushes its class j up and the target class
    down by the same amount (1, or 2 * hinge for p=2), times the target class's weight, over C."""
    target, data = formulas.array_of(target), formulas.array_of(self)
    xp = backend.namespace_of(data)
    classes = data.shape[-1]
    hot = _one_hot(xp, target, classes, data.dtype)
    z = margin - formulas.sum(formulas.where(hot != 0, self, 0.0), -1, keepdim=True) + self
    active = (formulas.array_of(z) > 0) & (hot == 0)
    scale = active.astype(data.dtype) / classes
    if weight is not None:
        scale = scale * formulas.array_of(weight).astype(data.dtype)[target][..., None]
    push = scale if p == 1 else 2 * formulas.where(active, z, 0.0) * scale  # (an inactive NaN hinge pushes nothing)
    return push - formulas.where(hot != 0, formulas.sum(push, -1, keepdim=True), 0.0)


def _samples(self) -> int:
    shape = formulas.array_of(self).shape
    return shape[0] if len(shape) == 2 else 1


def _row_tangent(push, tangent, reduction: str, samples: int):
    """A loss's tangent from each score's derivative (``push``): summed along each sample's row, then reduced."""
    per_sample = formulas.sum(push * tangent, -1) * _mean_scale(reduction, samples)
    return per_sample if reduction == "none" else formulas.sum(per_sample)


def _margin_inputs(op: str, input: Tensor, target: Tensor, reduction: str) -> None:
    _check_reduction(reduction)
    if input.ndim not in (1, 2) or input.numel() == 0 and input.ndim == 1:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if not input.is_floating_point():
        raise no_kernel(f"{op}_cpu_kernel", input.dtype, f"{op} takes floating scores: call input.float() first")
    if target.dtype is not backend.int64:
        raise RuntimeError(f"expected scalar type Long but found {backend.kernel_type_name(target.dtype)} "
                           f"[autograd_lab] {op}: target holds class indices; convert it with target.long()")


@checked
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: each class scoring within ``margin`` of the target class costs the gap (``p=1``)
    or its square (``p=2``), scaled by the target class's ``weight``, averaged over the classes."""
    from .nn_loss_more import _legacy
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _margin_inputs("multi_margin_loss", input, target, reduction)
    samples = input.shape[0] if input.ndim == 2 else 1
    if tuple(target.shape) != ((samples,) if input.ndim == 2 else ()) and target.numel() != samples:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{samples}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    labels = target._data.reshape(target.shape if input.ndim == 2 else ())
    if bool(((labels < 0) | (labels >= classes)).any()):
        raise RuntimeError("target out of range")
    return MultiMarginLossBackward0.apply(input, target=Tensor._make(labels), p=p, margin=float(margin),
                                          weight=weight, reduction=reduction)


class MultilabelMarginLossBackward0(Op):
    """out = sum over target classes j and other classes k of max(0, 1 - self[j] + self[k]) / C, per sample
    (a sample's targets: its class indices up to the first -1; one listed twice counts twice), reduced"""
    saves = ("is_target", "reduction", "self", "target")
    tensor_params = ("target", "is_target")

    def forward(xp, self, *, target, is_target, reduction):
        pairs = _violations(xp, self, target, is_target)
        return _reduce(xp, (pairs.sum((-2, -1)) / self.shape[-1]).astype(self.dtype), reduction)

    def d_self(grad, is_target, reduction, self, target):
        return _per_sample(grad, reduction, _samples(self)) * _multilabel_push(self, target, is_target)

    def f_self(tangent, is_target, reduction, self, target):
        return _row_tangent(_multilabel_push(self, target, is_target), tangent, reduction, _samples(self))


def _multilabel_push(self, target, is_target):
    """Each score's derivative of its sample's loss: every active hinge pushes its other class k up and its target
    class j down by 1 / C, once per listing of j (piecewise linear: a constant of the derivative)."""
    data, target, is_target = formulas.array_of(self), formulas.array_of(target), formulas.array_of(is_target)
    xp = backend.namespace_of(data)
    hinges = _violations(xp, data, target, is_target)  # [..., j, k]
    active = xp.where(hinges > 0, _listings(xp, target, data.shape[-1], data.dtype)[..., :, None], 0)
    return (active.sum(-2) - active.sum(-1)) / data.shape[-1]


def _violations(xp, scores, labels, is_target):
    """``[..., j, k]``: the hinge ``max(0, 1 - scores[j] + scores[k])`` for each target class j and other class k,
    times the number of times j is listed."""
    gap = xp.maximum(1 - scores[..., :, None] + scores[..., None, :], 0)
    listed = _listings(xp, labels, scores.shape[-1], scores.dtype)
    return xp.where(is_target[..., None, :] == 0, gap * listed[..., :, None], 0)


def _listings(xp, labels, classes: int, dtype):
    """How many times each class is listed among a sample's labels before the first -1."""
    before_end = xp.cumsum(labels == -1, axis=-1) == 0
    hits = (xp.expand_dims(labels, -1) == xp.arange(classes)) & xp.expand_dims(before_end, -1)
    return hits.sum(-2).astype(dtype)


@checked
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: each sample's target classes (``target`` lists them, ended by -1) should each
    score at least 1 above every other class; each shortfall costs its size, averaged over the classes."""
    from .nn_loss_more import _legacy
    reduction = _legacy(size_average, reduce, reduction)
    _margin_inputs("multilabel_margin_loss", input, target, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    labels = target._data
    if bool(((labels < -1) | (labels >= input.shape[-1])).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    xp = backend.namespace_of(labels)
    is_target = Tensor._make((_listings(xp, labels, input.shape[-1], input._data.dtype) > 0).astype(input._data.dtype))
    return MultilabelMarginLossBackward0.apply(input, target=target, is_target=is_target, reduction=reduction)


@checked
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """A logistic loss per class against 0/1 ``target``s, ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))``, weighted,
    averaged over the classes (the last dim), then reduced over the samples."""
    from .nn_activation_more import logsigmoid
    if size_average is not None or reduce is not None:
        from ..nn.loss import _legacy_reduction
        reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.size(input.dim() - 1)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()
