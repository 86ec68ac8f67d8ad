"""Checkers for ``15_numerical_stability.ipynb``: a log-sum-exp that does not overflow, a distance whose gradient
is not nan where it is zero, and clipping gradients by their total norm."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

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
        return not_answered("your logsumexp function")
    for values in ([0.5, -1.0, 2.0], [100.0, 100.0], [-1000.0, -1000.5], [1000.0, 0.0, -1000.0]):
        x = al.tensor(values, requires_grad=True)
        out, problem = call_learner(logsumexp, x, what=f"logsumexp({values})")
        if problem is not None:
            return problem
        if not isinstance(out, al.Tensor) or out.numel() != 1:
            return failed(f"logsumexp({values}) should return a one-element tensor; got {out!r}")
        if out.grad_fn is not None and out.grad_fn.name() == "LogsumexpBackward0":
            return failed("that is al.logsumexp itself: write it from max, exp, sum and log, to see the trick.")
        value = float(out.detach().reshape(()))
        expected = _logsumexp(np.asarray(values, dtype=np.float64))
        if not np.isfinite(value):
            return failed(f"logsumexp({values}) gives {value} in float32, where the answer is {expected:.4f}: exp of "
                          "the inputs overflows (or underflows to 0, whose log is -inf). Subtract the largest input "
                          "first: log Σ exp(x) = m + log Σ exp(x - m), with m = x.max().")
        if not np.isclose(value, expected, rtol=1e-5, atol=1e-4):
            return failed(f"logsumexp({values}) gives {value:.6g}, expected {expected:.6g}.")
        if not out.requires_grad:
            return failed("no gradient reached x: the result has no grad_fn. Build it from x with tensor operations, "
                          "without .item(), .numpy() or .detach().")
        try:
            out.backward()
        except RuntimeError as error:
            return failed(f"backward through logsumexp({values}) raised: {error}")
        if x.grad is None:
            return failed("no gradient reached x: build the result from x with tensor operations, without .item() "
                          "or .detach().")
        result = compare_arrays(f"the gradient of logsumexp({values})", x.grad,
                                _softmax(np.asarray(values, dtype=np.float64)), atol=1e-6,
                                reference="softmax(x)")
        if not result:
            return result
    return passed("finite values and the softmax as the gradient, from inputs of -1000 to 1000 in float32: the "
                  "largest input is factored out, so exp never sees a number above 0.")


# -- exercise 2: a distance whose gradient at zero is zero ----------------------------------------------------
def _distance_cases() -> list[tuple[list, list]]:
    return [([3.0, 4.0], [0.0, 0.0]), ([1.0, -2.0, 0.5], [0.5, 1.0, 0.5]), ([1.0, 2.0], [1.0, 2.0])]


def ex_15_2(distance: Callable) -> Feedback:
    """``distance(a, b)`` is sqrt(sum((a - b)²)); its gradient with respect to ``a`` is (a - b) / distance, and 0 (not
    nan) where a == b."""
    if is_placeholder(distance):
        return not_answered("your distance function")
    for a_values, b_values in _distance_cases():
        a = al.tensor(a_values, dtype=al.float64, requires_grad=True)
        b = al.tensor(b_values, dtype=al.float64)
        out, problem = call_learner(distance, a, b, what=f"distance({a_values}, {b_values})")
        if problem is not None:
            return problem
        if not isinstance(out, al.Tensor) or out.numel() != 1:
            return failed(f"distance should return a one-element tensor; got {out!r}")
        diff = np.asarray(a_values) - np.asarray(b_values)
        length = float(np.sqrt((diff ** 2).sum()))
        if not np.isclose(float(out.detach().reshape(())), length, rtol=1e-6, atol=1e-9):
            return failed(f"distance({a_values}, {b_values}) gives {float(out.detach().reshape(())):.6g}, expected "
                          f"{length:.6g}.")
        if not out.requires_grad:
            return failed("no gradient reached a: the distance has no grad_fn. Build it from a with tensor operations, "
                          "without .item(), .numpy() or .detach().")
        try:
            out.backward()
        except RuntimeError as error:
            return failed(f"backward through distance({a_values}, {b_values}) raised: {error}")
        if a.grad is None:
            return failed("no gradient reached a: build the distance from a with tensor operations.")
        grad = a.grad.numpy()
        if length == 0 and not np.all(np.isfinite(grad)):
            return failed(f"at a == b the gradient is {grad.tolist()}: sqrt's derivative 1 / (2 sqrt(s)) is inf at s = 0, "
                          "and inf times the zero gradient of s is nan. Keep sqrt away from 0 in the branch you do "
                          "not use: safe = al.where(s > 0, s, 1.0), then al.where(s > 0, safe.sqrt(), 0.0).")
        expected = diff / length if length else np.zeros_like(diff)
        result = compare_arrays(f"d distance / d a at a={a_values}, b={b_values}", grad, expected,
                                reference="(a - b) / distance, and 0 where a == b")
        if not result:
            return result
    return passed("the right distances, and a gradient of 0 instead of nan where a == b.")


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
        return not_answered("your clip_grad_norm_ function")
    for scale, label in ((10.0, "large gradients"), (0.01, "small gradients")):
        params = _parameters(scale)
        before = [p.grad.numpy().copy() for p in params[:2]]
        total, expected = reference_clip(before, 1.0)
        got, problem = call_learner(clip_grad_norm_, params, 1.0, what="clip_grad_norm_(parameters, 1.0)")
        if problem is not None:
            return problem
        try:
            got_total = float(got)
        except (TypeError, ValueError):
            return failed(f"clip_grad_norm_ should return the total norm (a number or a one-element tensor); got {got!r}")
        if params[2].grad is not None:
            return failed("the third parameter had no gradient and now has one: skip parameters whose .grad is None.")
        grads = [p.grad.numpy() for p in params[:2]]
        if scale > 1 and all(np.allclose(g, np.clip(b, -1.0, 1.0)) for g, b in zip(grads, before)):
            return failed("that clips each element to [-1, 1] (clipping by value, as in notebook 6), which changes "
                          "the gradient's direction. Clipping by norm scales all gradients by the same factor, "
                          "max_norm / total_norm, so the direction is kept.")
        if scale > 1 and all(np.isclose(np.linalg.norm(g), 1.0, rtol=1e-4) for g in grads):
            return failed("each parameter's gradient now has norm 1: they were clipped one by one. The norm to bound "
                          "is the total over all parameters, sqrt(Σ ‖grad‖²), and every gradient gets the same factor.")
        for i, (g, want) in enumerate(zip(grads, expected)):
            result = compare_arrays(f"params[{i}].grad ({label})", g, want, reference="the gradient clipped by total norm")
            if not result:
                return result
        if not np.isclose(got_total, total, rtol=1e-4):
            return failed(f"with {label} the returned norm is {got_total:.6g}; it should be the total norm before "
                          f"clipping, {total:.6g}.")
    return passed("one factor for all gradients, only when their total norm is above max_norm; the norm from before "
                  "is returned, as torch.nn.utils.clip_grad_norm_ does.")
