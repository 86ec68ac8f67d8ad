"""Checkers for ``15_numerical_stability.ipynb``: a log-sum-exp that does not overflow, a distance whose gradient
is not nan where it is zero, and clipping gradients by their total norm."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, as_number, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_15_1", "ex_15_2", "ex_15_3", "reference_clip"]


def _logsumexp(values: np.ndarray) -> float:
    top = values.max()
    return float(top + np.log(np.exp(values - top).sum()))


def _softmax(values: np.ndarray) -> np.ndarray:
    e = np.exp(values - values.max())
    return e / e.sum()


# -- exercise 1: log-sum-exp ----------------------------------------------------------------------------------
def ex_15_1(logsumexp: Callable) -> Feedback:
    """``logsumexp(x)`` for a 1-D float32 ``x``: log(sum(exp(x))), finite for large and very negative x, with the
    softmax as its gradient."""
    if is_placeholder(logsumexp):
        return not_answered(msg("feedback.your_named_function", name="logsumexp"))
    for values in ([0.5, -1.0, 2.0], [100.0, 100.0], [-1000.0, -1000.5], [1000.0, 0.0, -1000.0]):
        x = al.tensor(values, requires_grad=True)
        out, problem = call_learner(logsumexp, x, what=f"logsumexp({values})")
        if problem is not None:
            return problem
        if not isinstance(out, al.Tensor) or out.numel() != 1:
            return failed(msg("ex15.not_scalar", call=f"logsumexp({values})", got=repr(out)))
        if out.grad_fn is not None and out.grad_fn.name() == "LogsumexpBackward0":
            return failed(msg("ex15.builtin"))
        value = float(out.detach().reshape(()))
        expected = _logsumexp(np.asarray(values, dtype=np.float64))
        if not np.isfinite(value):
            return failed(msg("ex15.overflow", values=values, value=value, expected=expected))
        if not np.isclose(value, expected, rtol=1e-5, atol=1e-4):
            return failed(msg("ex15.value_wrong", call=f"logsumexp({values})", value=value, expected=expected))
        if not out.requires_grad:
            return failed(msg("ex15.no_grad_fn"))
        try:
            out.backward()
        except RuntimeError as error:
            return failed(msg("ex15.backward_raised", call=f"logsumexp({values})", error=error))
        if x.grad is None:
            return failed(msg("ex15.grad_none_x"))
        result = compare_arrays(msg("ex15.gradient_of", call=f"logsumexp({values})"), x.grad,
                                _softmax(np.asarray(values, dtype=np.float64)), atol=1e-6,
                                reference="softmax(x)")
        if not result:
            return result
    return passed(msg("ex15.logsumexp_passed"))


# -- exercise 2: a distance whose gradient at zero is zero ----------------------------------------------------
def _distance_cases() -> list[tuple[list, list]]:
    return [([3.0, 4.0], [0.0, 0.0]), ([1.0, -2.0, 0.5], [0.5, 1.0, 0.5]), ([1.0, 2.0], [1.0, 2.0])]


def ex_15_2(distance: Callable) -> Feedback:
    """``distance(a, b)`` is sqrt(sum((a - b)²)); its gradient with respect to ``a`` is (a - b) / distance, and 0 (not
    nan) where a == b."""
    if is_placeholder(distance):
        return not_answered(msg("feedback.your_named_function", name="distance"))
    for a_values, b_values in _distance_cases():
        a = al.tensor(a_values, dtype=al.float64, requires_grad=True)
        b = al.tensor(b_values, dtype=al.float64)
        out, problem = call_learner(distance, a, b, what=f"distance({a_values}, {b_values})")
        if problem is not None:
            return problem
        if not isinstance(out, al.Tensor) or out.numel() != 1:
            return failed(msg("ex15.not_scalar", call="distance", got=repr(out)))
        diff = np.asarray(a_values) - np.asarray(b_values)
        length = float(np.sqrt((diff ** 2).sum()))
        if not np.isclose(float(out.detach().reshape(())), length, rtol=1e-6, atol=1e-9):
            return failed(msg("ex15.value_wrong", call=f"distance({a_values}, {b_values})",
                              value=float(out.detach().reshape(())), expected=length))
        if not out.requires_grad:
            return failed(msg("ex15.distance_no_grad_fn"))
        try:
            out.backward()
        except RuntimeError as error:
            return failed(msg("ex15.backward_raised", call=f"distance({a_values}, {b_values})", error=error))
        if a.grad is None:
            return failed(msg("ex15.grad_none_a"))
        grad = a.grad.numpy()
        if length == 0 and not np.all(np.isfinite(grad)):
            return failed(msg("ex15.nan_at_zero", grad=grad.tolist()))
        expected = diff / length if length else np.zeros_like(diff)
        result = compare_arrays(msg("ex15.distance_grad", a=a_values, b=b_values), grad, expected,
                                reference=msg("ex15.distance_reference"))
        if not result:
            return result
    return passed(msg("ex15.distance_passed"))


# -- exercise 3: clipping by the total norm -------------------------------------------------------------------
def reference_clip(grads: list[np.ndarray], max_norm: float) -> tuple[float, list[np.ndarray]]:
    """The total norm of ``grads`` and the gradients after clipping, as ``torch.nn.utils.clip_grad_norm_`` computes
    them: all scaled by max_norm / (total + 1e-6) when that is below 1."""
    total = float(np.sqrt(sum((g.astype(np.float64) ** 2).sum() for g in grads)))
    scale = min(max_norm / (total + 1e-6), 1.0)
    return total, [g * scale for g in grads]


def _parameters(scale: float) -> list[al.Tensor]:
    gen = al.Generator().manual_seed(15)
    params = [al.randn(3, 2, generator=gen).requires_grad_(), al.randn(2, generator=gen).requires_grad_(),
              al.randn(4, generator=gen).requires_grad_()]
    for p in params[:2]:
        p.grad = al.randn(*p.shape, generator=gen) * scale
    return params  # the last one has no gradient: it must be skipped


def ex_15_3(clip_grad_norm_: Callable) -> Feedback:  # noqa: N802 - PyTorch's name
    """``clip_grad_norm_(parameters, max_norm)`` scales every gradient by the same factor so that their total norm is
    at most ``max_norm``, skips parameters without a gradient, and returns the total norm from before."""
    if is_placeholder(clip_grad_norm_):
        return not_answered(msg("feedback.your_named_function", name="clip_grad_norm_"))
    for scale, label in ((10.0, msg("ex15.large")), (0.01, msg("ex15.small"))):
        params = _parameters(scale)
        before = [p.grad.numpy().copy() for p in params[:2]]
        total, expected = reference_clip(before, 1.0)
        got, problem = call_learner(clip_grad_norm_, params, 1.0, what="clip_grad_norm_(parameters, 1.0)")
        if problem is not None:
            return problem
        try:
            got_total = as_number(got)
        except (TypeError, ValueError):
            return failed(msg("ex15.not_a_norm", got=repr(got)))
        if params[2].grad is not None:
            return failed(msg("ex15.third_parameter"))
        grads = [p.grad.numpy() for p in params[:2]]
        if scale > 1 and all(np.allclose(g, np.clip(b, -1.0, 1.0)) for g, b in zip(grads, before)):
            return failed(msg("ex15.by_value"))
        if scale > 1 and all(np.isclose(np.linalg.norm(g), 1.0, rtol=1e-4) for g in grads):
            return failed(msg("ex15.one_by_one"))
        for i, (g, want) in enumerate(zip(grads, expected)):
            result = compare_arrays(f"params[{i}].grad ({label})", g, want, reference=msg("ex15.clipped_by_norm"))
            if not result:
                return result
        if not np.isclose(got_total, total, rtol=1e-4):
            return failed(msg("ex15.norm_wrong", label=label, got=got_total, total=total))
    return passed(msg("ex15.clip_passed"))
