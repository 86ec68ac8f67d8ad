"""Variance and standard deviation (``var``, ``std``, and ``var_mean``/``std_mean``, two outputs from one node).

The variance's gradient is ``2 / (N - correction) * grad * (x - mean)`` (PyTorch's ``var_backward``); the standard
deviation's is the variance's, scaled by ``1 / (2 std)``, and 0 where the values are constant (std 0), as in
PyTorch. Their forward derivatives weigh each element's tangent the same way (``reductions._weighted``).
"""

from __future__ import annotations

import warnings

from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import Op
from .reductions import _asarray, _count, _dims, _restore, _weighted


def _var_backward(grad, correction, dim, keepdim, self):
    """PyTorch's var_backward: ``2 / (N - correction) * grad * (x - mean)``; with no degrees of freedom left
    the variance is nan, and so is its gradient. (``dim`` None: all dims; ``correction`` None: 1.)"""
    dof = _count(self.shape, dim) - (1 if correction is None else correction)
    centered = self - formulas.mean(self, dim, keepdim=True)
    return _restore(grad, self.shape, dim, keepdim) * centered * (2.0 / dof if dof > 0 else float("nan"))


class VarBackward0(Op):
    """out = sum((x - mean)^2) / (N - correction) over dims"""
    saves = ("correction", "dim", "keepdim", "self")

    def forward(xp, self, *, dim, correction, keepdim):
        return formulas.var(self, dim, correction, keepdim)

    def d_self(grad, correction, dim, keepdim, self):
        return _var_backward(grad, correction, dim, keepdim, self)

    def f_self(tangent, correction, dim, keepdim, result, self):
        return _weighted(_var_backward, tangent, result, dim, keepdim, correction, dim, keepdim, self)


class StdBackward0(Op):
    """out = sqrt(var) over dims; where it is 0 (constant values) its gradient is 0, as in PyTorch"""
    saves = ("correction", "dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, correction, keepdim):
        return xp.sqrt(formulas.var(self, dim, correction, keepdim))

    def d_self(grad, correction, dim, keepdim, result, self):
        grad_var = formulas.where(result == 0, 0.0, grad / (2 * result))
        return _var_backward(grad_var, correction, dim, keepdim, self)

    def f_self(tangent, correction, dim, keepdim, result, self):
        return _weighted(StdBackward0.d_self, tangent, result, dim, keepdim, correction, dim, keepdim, result, self)


def _mean_backward(grad, dim, keepdim, self):
    return formulas.expand(_restore(grad, self.shape, dim, keepdim), self.shape) / _count(self.shape, dim)


class VarMeanBackward0(Op):
    """out = (var, mean) over dims, from one node (``var_mean``); each output's gradient adds its part"""
    saves = ("correction", "dim", "keepdim", "self")

    def forward(xp, self, *, dim, correction, keepdim):
        return (formulas.var(self, dim, correction, keepdim),
                _asarray(xp, xp.mean(self, axis=dim, keepdims=keepdim), self))

    def backward(grads, correction, dim, keepdim, self):
        grad_var, grad_mean = grads
        parts = [] if grad_var is None else [_var_backward(grad_var, correction, dim, keepdim, self)]
        if grad_mean is not None:
            parts.append(_mean_backward(grad_mean, dim, keepdim, self))
        return parts[0] + parts[1] if len(parts) == 2 else parts[0] if parts else None

    def jvp(tangents, correction, dim, keepdim, result, self):
        (tangent,) = tangents
        var_t = _weighted(_var_backward, tangent, result[0], dim, keepdim, correction, dim, keepdim, self)
        return var_t, formulas.mean(tangent, dim, keepdim=keepdim)


class StdMeanBackward0(Op):
    """out = (std, mean) over dims, from one node (``std_mean``); where std is 0 its gradient is 0"""
    saves = ("correction", "dim", "keepdim", "result0", "self")
    outputs = ("result0", "result1")  # (PyTorch's names: the std is saved as result0)

    def forward(xp, self, *, dim, correction, keepdim):
        return (xp.sqrt(formulas.var(self, dim, correction, keepdim)),
                _asarray(xp, xp.mean(self, axis=dim, keepdims=keepdim), self))

    def backward(grads, correction, dim, keepdim, result0, self):
        grad_std, grad_mean = grads
        parts = []
        if grad_std is not None:
            grad_var = formulas.where(result0 == 0, 0.0, grad_std / (2 * result0))
            parts.append(_var_backward(grad_var, correction, dim, keepdim, self))
        if grad_mean is not None:
            parts.append(_mean_backward(grad_mean, dim, keepdim, self))
        return parts[0] + parts[1] if len(parts) == 2 else parts[0] if parts else None

    def jvp(tangents, correction, dim, keepdim, result0, self):
        (tangent,) = tangents
        std_t = _weighted(StdBackward0.d_self, tangent, result0, dim, keepdim, correction, dim, keepdim, result0, self)
        return std_t, formulas.mean(tangent, dim, keepdim=keepdim)


def _correction(unbiased, correction, dim) -> int | None:
    """The correction as PyTorch records it: None when neither it, ``unbiased`` nor a dim was given (1 is meant)."""
    if correction is not None or unbiased is None and dim is None:
        return correction
    return 0 if unbiased is False else 1


def _spread_args(input, dim, unbiased, correction, op: str) -> tuple:
    """``var``'s and ``std``'s dims (None, as PyTorch saves it, for all: no dim, or an empty one) and correction;
    PyTorch's warning when no degree of freedom is left (the result is then nan or inf)."""
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    correction = _correction(unbiased, correction, dim)
    dims = None if dim is None or dim in ((), []) else _dims(dim, input.ndim, op)
    n = _count(input.shape, dims) if input.numel() else 0  # (PyTorch's input numel / output numel)
    if n - (1 if correction is None else correction) <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return dims, correction


@checked
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance (Bessel-corrected unless ``unbiased=False`` or ``correction=0``)."""
    dims, correction = _spread_args(input, dim, unbiased, correction, "var")
    return VarBackward0.apply(input, dim=dims, correction=correction, keepdim=keepdim)


@checked
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation (Bessel-corrected unless ``unbiased=False`` or ``correction=0``)."""
    dims, correction = _spread_args(input, dim, unbiased, correction, "std")
    return StdBackward0.apply(input, dim=dims, correction=correction, keepdim=keepdim)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one call (one node, ``VarMeanBackward0``); variance as in :func:`var`."""
    dims, correction = _spread_args(input, dim, unbiased, correction, "var_mean")
    return VarMeanBackward0.apply(input, dim=dims, correction=correction, keepdim=keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` in one call (one node, ``StdMeanBackward0``); as :func:`std`."""
    dims, correction = _spread_args(input, dim, unbiased, correction, "std_mean")
    return StdMeanBackward0.apply(input, dim=dims, correction=correction, keepdim=keepdim)


def _bind() -> None:
    Tensor.var, Tensor.std = var, std


_bind()
