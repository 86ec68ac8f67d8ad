"""Loss functions: ``nll_loss``, ``cross_entropy``, ``mse_loss``, ``l1_loss``, ``binary_cross_entropy`` and
``binary_cross_entropy_with_logits``, each with ``reduction`` 'mean', 'sum' or 'none'.

Class weights and ``pos_weight`` are constants here (no gradient flows into them). ``cross_entropy`` and
``l1_loss`` are built from other ops, as in PyTorch (``log_softmax`` then ``nll_loss``; ``abs`` then ``mean``).
The losses are element-wise before their reduction, so each forward derivative is its backward formula given the
tangent, reduced as the loss is (``_loss_tangent``); ``nll_loss`` is linear in its input.
"""

from __future__ import annotations

import warnings

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .by_scalar import DivBackward1, MulBackward1
from .nn import _channel_view, log_softmax

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction (use 'mean', 'sum' or 'none')")


def _reduce(xp, loss, reduction: str):
    if reduction == "none":
        return loss
    total = loss.sum() if reduction == "sum" else formulas.mean(loss)  # (an empty batch's mean: nan, silently)
    return xp.asarray(total, dtype=loss.dtype)


def _mean_scale(reduction: str, numel: int) -> float:
    """The factor the mean reduction puts on every element's gradient."""
    if reduction != "mean":
        return 1.0
    return 1.0 / numel if numel else float("nan")  # (an empty batch: its gradient is empty anyway)


def _times(out, weight):
    """``out * weight``, the weight a constant of the derivative (no gradient flows to a loss's weights) taken in
    ``out``'s dtype: the losses compute in their input's dtype whatever the weights' (as PyTorch's do)."""
    return out if weight is None else out * formulas.cast_like(formulas.array_of(weight), out)


def _loss_tangent(part, reduction: str):
    """A loss's tangent from its backward formula given the input's tangent (each element's share, the mean's
    1/N included): summed, unless the loss is not reduced."""
    return part if reduction == "none" else formulas.sum(part)


def _in_dtype(weight, dtype):
    """A weight array in the loss's dtype (for the forward)."""
    return None if weight is None else weight.astype(dtype, copy=False)


# -- negative log likelihood -------------------------------------------------------------------
def _nll_parts(xp, target, weight, ignore_index, dtype):
    """The target with ignored entries made safe to index with, each target's weight (0 if ignored), and
    which targets are ignored.

    Without class weights and with no target ignored (the common case) every weight is 1: that gives
    ``(target, None, None)``, so that the callers skip the weighting instead of multiplying by ones.
    """
    ignored = target == ignore_index
    if weight is None:
        if not ignored.any():
            return target, None, None
        return xp.where(ignored, 0, target), (~ignored).astype(dtype), ignored
    safe = xp.where(ignored, 0, target)
    return safe, xp.where(ignored, 0, weight[safe]).astype(dtype), ignored


def _pick(xp, self, safe, class_dim):
    """Each sample's entry of ``self`` at its target class."""
    if self.ndim == 2:  # (N, C): one fancy index (take_along_axis costs several calls)
        return self[xp.arange(self.shape[0]), safe]
    return xp.squeeze(xp.take_along_axis(self, xp.expand_dims(safe, class_dim), axis=class_dim), class_dim)


def _nll_scales(xp, target, weight, ignore_index, reduction, total_weight, dtype):
    """``(safe target, per-sample factor or None)``: d loss / d self[target] is ``-factor`` times the incoming
    gradient (``None``: -1, or -1/N for 'mean'); 0 for ignored targets, as PyTorch's backward skips them
    (also where 'mean' divides by a total weight of 0)."""
    safe, weights, ignored = _nll_parts(xp, target, weight, ignore_index, dtype)
    if weights is not None:
        if reduction == "mean":
            weights = weights / total_weight
        if ignored.any():
            weights = xp.where(ignored, 0, weights)
    return safe, weights


def _total_weight(input, target, weight, ignore_index, reduction) -> Tensor:
    """nll_loss's total weight, a 0-dim tensor of the input's dtype: the class weights of the targets not ignored,
    summed (their count without weights); 0 for reduction 'none', as PyTorch's kernel leaves it."""
    xp = backend.namespace_of(input._data)
    dtype = input._data.dtype
    if reduction == "none":
        return Tensor._make(xp.zeros((), dtype=dtype))
    weight = None if weight is None else weight._data
    _, weights, _ = _nll_parts(xp, target._data, weight, ignore_index, dtype)
    total = target._data.size if weights is None else weights.sum()
    return Tensor._make(xp.asarray(total, dtype=dtype))


class NllLossBackward0(Op):
    """out = -weight[target] * self[target] per sample; 'mean' divides by the total weight (``total_weight``: the
    weights of the targets not ignored, summed; 0 for reduction 'none'; PyTorch's second output, saved)"""
    saves = ("ignore_index", "reduction", "self", "target", "total_weight", "weight")
    tensor_params = ("target", "total_weight", "weight")  # saved version-checked, as PyTorch does

    def forward(xp, self, *, target, weight, reduction, ignore_index, total_weight):
        class_dim = 0 if self.ndim == 1 else 1
        safe, weights, _ = _nll_parts(xp, target, weight, ignore_index, self.dtype)
        picked = _pick(xp, self, safe, class_dim)
        if weights is None:  # every weight 1: the losses are -picked, the total weight is their count
            if reduction == "none":
                return -picked
            # (the same bits as summing the negated values: rounding is symmetric; 0 - sum keeps an empty
            # or all-zero sum +0, as PyTorch's kernel, which subtracts from 0, gives it)
            total = 0.0 - picked.sum()
            return xp.asarray(total / total_weight if reduction == "mean" else total, dtype=self.dtype)
        loss = xp.where(weights == 0, 0, -weights * picked).astype(self.dtype)  # ignored: 0 even if picked is inf
        if reduction == "none":
            return loss
        total = loss.sum()
        return xp.asarray(total / total_weight if reduction == "mean" else total, dtype=self.dtype)

    def d_self(grad, ignore_index, reduction, self, target, total_weight, weight):
        # The gradient at each sample's target class, zero elsewhere, as PyTorch's nll_loss_backward writes it
        # (an incoming NaN reaches only the target entries). Targets and weights are constants of the derivative.
        target, weight, total_weight = map(formulas.array_of, (target, weight, total_weight))
        xp = backend.namespace_of(target)
        dtype = formulas.array_of(grad).dtype
        class_dim = 0 if target.ndim == 0 else 1
        safe, weights = _nll_scales(xp, target, weight, ignore_index, reduction, total_weight, dtype)
        if weights is None:  # every sample's factor is 1, or 1/N for 'mean'
            weights = xp.full(target.shape, 1 / target.size if reduction == "mean" and target.size else 1, dtype)
        classes = [1] * (target.ndim + 1)
        classes[class_dim] = self.shape[class_dim]
        picked = (xp.expand_dims(safe, class_dim) == xp.arange(self.shape[class_dim]).reshape(classes)) \
            & xp.expand_dims(target != ignore_index, class_dim)
        if reduction == "none":
            grad = formulas.unsqueeze(grad, class_dim)
        return formulas.where(picked, grad * -xp.expand_dims(weights, class_dim), 0.0)

    jvp = LINEAR  # (minus the tangent at the target classes, weighted and reduced as the loss)


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss of (N, C, H, W) log-probabilities against (N, H, W) targets (PyTorch's 2-D variant)"""


@checked
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """Negative log likelihood of the target classes, given log-probabilities (class dim 1, or 0 if 1-D)."""
    _check_reduction(reduction)
    if target.is_floating_point():
        raise RuntimeError(f"expected scalar type Long but found {backend.kernel_type_name(target.dtype)} [autograd_lab] "
                           "nll_loss: target holds class indices; convert it with target.long()")
    shape, data = input._data.shape, target._data
    expected = shape[:1] + shape[2:] if len(shape) != 1 else ()
    if data.shape != expected:
        if input.ndim >= 2 and target.ndim >= 1 and input.shape[0] != target.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0]}).")
        raise RuntimeError(f"nll_loss: expected target of shape {list(expected)} for input of shape "
                           f"{list(input.shape)}, got {list(target.shape)}")
    classes = shape[0 if len(shape) == 1 else 1]
    if data.size and (data.min() < 0 or data.max() >= classes):  # only then can a target be out of bounds
        valid = data[data != ignore_index]
        if valid.size and (valid.min() < 0 or valid.max() >= classes):
            bad = int(valid.max() if valid.max() >= classes else valid.min())
            raise IndexError(f"Target {bad} is out of bounds. [autograd_lab] nll_loss: targets must be class indices "
                             f"in [0, {classes - 1}] (or ignore_index={ignore_index})")
    if weight is not None and tuple(weight.shape) != (classes,):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    settings = dict(weight=weight, reduction=reduction, ignore_index=ignore_index,  # (weight None: _saved_weight too)
                    total_weight=_total_weight(input, target, weight, ignore_index, reduction))
    if input.ndim <= 2:
        return NllLossBackward0.apply(input, target=target, **settings)
    if input.ndim == 4:
        return NllLoss2DBackward0.apply(input, target=target, **settings)
    n = input.shape[0]  # other spatial ranks go through the 2-D op, as PyTorch does
    spatial = 1
    for size in shape[2:]:  # (written out, not -1: an empty batch leaves -1 undetermined)
        spatial *= size
    out = NllLoss2DBackward0.apply(input.reshape(n, classes, 1, spatial), target=target.reshape(n, 1, spatial),
                                   **settings)
    return out.view(*target.shape) if reduction == "none" else out


@checked
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input))`` for class-index targets; for probability targets (same shape as
    input), ``-sum(target * log_softmax(input))``. ``label_smoothing`` mixes in the uniform distribution."""
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    log_probs = log_softmax(input, class_dim)
    n_classes = input.shape[class_dim]
    weight_view = None
    if weight is not None:
        weight_view = weight if input.ndim == 1 else _channel_view(weight, input.ndim)
    if target.is_floating_point():
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {backend.kernel_type_name(target.dtype)} "
                               f"[autograd_lab] cross_entropy: class-index targets must be integers (target.long()); "
                               f"probability targets must have the input's shape {list(input.shape)}, got "
                               f"{list(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        terms = log_probs * target if weight_view is None else log_probs * target * weight_view
        if reduction == "none":
            return -terms.sum(class_dim)
        loss = -terms.sum()  # (PyTorch's order: the sum, its negative, then the mean over the samples)
        return loss if reduction == "sum" else DivBackward1.apply(loss, other=input.numel() // n_classes)
    nll = nll_loss(log_probs, target, weight, ignore_index, reduction)
    if label_smoothing == 0:
        return nll
    smooth = -(log_probs if weight_view is None else log_probs * weight_view).sum(class_dim)
    smooth = smooth.masked_fill(target == ignore_index, 0.0)
    kept = target != ignore_index
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / kept.sum()
        else:
            xp = backend.namespace_of(target._data)
            smooth = smooth.sum() / float(weight._data[xp.where(kept._data, target._data, 0)][kept._data].sum())
    elif reduction == "sum":
        smooth = smooth.sum()
    return MulBackward1.apply(nll, other=1 - label_smoothing) + MulBackward1.apply(smooth, other=label_smoothing / n_classes)


# -- regression losses -------------------------------------------------------------------------
def _warn_broadcast(input: Tensor, target: Tensor) -> None:
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=3)


class MseLossBackward0(Op):
    """out = (self - target)^2, reduced"""
    saves = ("reduction", "self", "target")
    promotes = True

    def forward(xp, self, target, *, reduction):
        return _reduce(xp, (self - target) ** 2, reduction)

    def d_self(grad, reduction, self, target):
        diff = self - target
        return grad * diff * (2 * _mean_scale(reduction, formulas.numel(diff)))

    def d_target(grad, reduction, self, target):
        diff = self - target
        return grad * diff * (-2 * _mean_scale(reduction, formulas.numel(diff)))

    def f_self(tangent, reduction, self, target):
        return _loss_tangent(MseLossBackward0.d_self(tangent, reduction, self, target), reduction)

    def f_target(tangent, reduction, self, target):
        return _loss_tangent(MseLossBackward0.d_target(tangent, reduction, self, target), reduction)


@checked
def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error (or its sum, or each squared error)."""
    _check_reduction(reduction)
    _warn_broadcast(input, target)
    return MseLossBackward0.apply(input, target, reduction=reduction)


@checked
def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean absolute error (or its sum, or each absolute error)."""
    _check_reduction(reduction)
    _warn_broadcast(input, target)
    loss = (input - target).abs()
    return loss if reduction == "none" else (loss.sum() if reduction == "sum" else loss.mean())


# -- binary cross entropy ----------------------------------------------------------------------
_BCE_EPS = 1e-12  # the gradient's denominator x * (1 - x) never goes below this


class BinaryCrossEntropyBackward0(Op):
    """out = -weight * (target * log(self) + (1 - target) * log(1 - self)), logs clamped at -100"""
    saves = ("reduction", "self", "target", "weight")
    tensor_params = ("weight",)  # saved version-checked, as PyTorch does

    def forward(xp, self, target, *, weight, reduction):
        weight = _in_dtype(weight, self.dtype)  # (the loss is in the input's dtype, as PyTorch's kernel computes it)
        with backend.np.errstate(divide="ignore"):  # log(0) = -inf, clamped next
            log_p = xp.maximum(xp.log(self), -100)
            log_q = xp.maximum(xp.log1p(-self), -100)
        loss = -(target * log_p + (1 - target) * log_q)
        return _reduce(xp, loss if weight is None else loss * weight, reduction)

    def d_self(grad, reduction, self, target, weight):  # grad * weight * (self - target) / (self * (1 - self))
        return formulas.call(BinaryCrossEntropyBackwardBackward0, grad, self, target, weight=weight, reduction=reduction)

    def d_target(grad, reduction, self, target, weight):
        logit = formulas.clamp_min(formulas.log(1 - self), -100) - formulas.clamp_min(formulas.log(self), -100)
        return _times(grad * logit * _mean_scale(reduction, formulas.numel(self)), weight)

    def f_self(tangent, reduction, self, target, weight):
        return _loss_tangent(BinaryCrossEntropyBackward0.d_self(tangent, reduction, self, target, weight), reduction)

    def f_target(tangent, reduction, self, target, weight):
        return _loss_tangent(BinaryCrossEntropyBackward0.d_target(tangent, reduction, self, target, weight),
                             reduction)


class BinaryCrossEntropyBackwardBackward0(Op):
    """out = grad_output * weight * (self - target) / max(self * (1 - self), 1e-12), the mean's 1/N included: BCE's
    derivative for its input, an op of its own as PyTorch's binary_cross_entropy_backward, so that its derivatives are
    PyTorch's formulas (the one for self puts 1e-12 on self and on 1 - self, where the clamp above would differ)"""
    saves = ("grad_output", "reduction", "self", "target", "weight")
    tensor_params = ("weight",)

    def forward(xp, grad_output, self, target, *, weight, reduction):
        scale = _mean_scale(reduction, self.size)
        out = grad_output * (self - target) / xp.maximum(self * (1 - self), _BCE_EPS) * scale
        return (out if weight is None else out * _in_dtype(weight, self.dtype)).astype(self.dtype, copy=False)

    def d_grad_output(grad, reduction, self, target, weight):  # (linear in grad_output)
        return formulas.call(BinaryCrossEntropyBackwardBackward0, grad, self, target, weight=weight, reduction=reduction)

    def d_self(grad, grad_output, reduction, self, target, weight):
        p, q = self + _BCE_EPS, 1 - self + _BCE_EPS
        curvature = (self * self - 2 * self * target + target) / (p * p) / (q * q)
        return _times(grad * grad_output * curvature * _mean_scale(reduction, formulas.numel(self)), weight)

    def d_target(grad, grad_output, reduction, self, target, weight):
        scale = _mean_scale(reduction, formulas.numel(self))
        return _times(-grad * grad_output / formulas.clamp_min(self * (1 - self), _BCE_EPS) * scale, weight)

    f_grad_output, f_self, f_target = d_grad_output, d_self, d_target


@checked
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
                         ) -> Tensor:
    """Cross entropy of probabilities ``input`` (in [0, 1]) against ``target``, elementwise."""
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    data = input._data
    for name, values in (("input", data), ("target", target._data)):  # (NaN is not between 0 and 1 either)
        if not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError(f"all elements of {name} should be between 0 and 1 [autograd_lab] binary_cross_entropy "
                               "takes probabilities: apply sigmoid first, or use binary_cross_entropy_with_logits on "
                               "the logits")
    # (PyTorch expands the weight to the input's shape, a view: the saved record shares its version counter)
    w = None if weight is None else weight.expand(*data.shape)
    return BinaryCrossEntropyBackward0.apply(input, target, weight=w, reduction=reduction)


def _softplus(x):
    """log(1 + exp(x)) without overflow."""
    return formulas.clamp_min(x, 0) + formulas.log1p(formulas.exp(-formulas.abs(x)))


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """out = -weight * (pos_weight * target * log(sigmoid(x)) + (1 - target) * log(1 - sigmoid(x)))"""
    saves = ("pos_weight", "reduction", "self", "target", "weight")
    tensor_params = ("pos_weight", "weight")  # saved version-checked, as PyTorch does

    def forward(xp, self, target, *, weight, pos_weight, reduction):
        weight, pos_weight = _in_dtype(weight, self.dtype), _in_dtype(pos_weight, self.dtype)  # (as in BCE)
        neg_log_sigmoid = xp.log1p(xp.exp(-xp.abs(self))) + xp.maximum(-self, 0)  # -log(sigmoid(x)), stably
        if pos_weight is None:
            loss = (1 - target) * self + neg_log_sigmoid
        else:
            loss = (1 - target) * self + (1 + (pos_weight - 1) * target) * neg_log_sigmoid
        return _reduce(xp, loss if weight is None else loss * weight, reduction)

    def d_self(grad, pos_weight, reduction, self, target, weight):
        if pos_weight is None:
            local = formulas.sigmoid(self) - target
        else:
            weighted = _times(target, pos_weight)
            local = (weighted + 1 - target) * formulas.sigmoid(self) - weighted
        return _times(grad * local * _mean_scale(reduction, formulas.numel(self)), weight)

    def d_target(grad, pos_weight, reduction, self, target, weight):
        local = -self if pos_weight is None else _times(_softplus(-self), pos_weight) - _softplus(self)
        return _times(grad * local * _mean_scale(reduction, formulas.numel(self)), weight)

    def f_self(tangent, pos_weight, reduction, self, target, weight):
        cls = BinaryCrossEntropyWithLogitsBackward0
        return _loss_tangent(cls.d_self(tangent, pos_weight, reduction, self, target, weight), reduction)

    def f_target(tangent, pos_weight, reduction, self, target, weight):
        cls = BinaryCrossEntropyWithLogitsBackward0
        return _loss_tangent(cls.d_target(tangent, pos_weight, reduction, self, target, weight), reduction)


@checked
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)``, computed from the logits without overflow."""
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    xp = backend.namespace_of(input._data)
    for extra in (weight, pos_weight):  # each must broadcast to the input's shape (raises NumPy's error otherwise)
        if extra is not None:
            xp.broadcast_to(extra._data, input._data.shape)
    # (saved as given, unexpanded, as PyTorch saves them; the kernels broadcast them)
    return BinaryCrossEntropyWithLogitsBackward0.apply(input, target, weight=weight, pos_weight=pos_weight,
                                                       reduction=reduction)
