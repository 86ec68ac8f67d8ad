"""Checkers for ``00_why_autograd.ipynb``: a derivative by hand, a finite difference, a first ``backward()``."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

POINTS = [-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0]


def _g(x: al.Tensor) -> al.Tensor:
    return al.exp(-x ** 2) * al.cos(3 * x)


def ex_00_1(dg: Callable) -> Feedback:
    """``dg(x)``: the learner's hand-derived derivative of g(x) = exp(-x²)·cos(3x), compared with autograd's."""
    x = al.tensor(POINTS, dtype=al.float64, requires_grad=True)
    _g(x).sum().backward()
    got, error = call_learner(dg, al.tensor(POINTS, dtype=al.float64), what="dg")
    if error is not None:
        return error
    return compare_arrays("dg(x)", got, x.grad, labels=[f"at x={p:g}" for p in POINTS], reference="autograd")


def ex_00_2(central_difference: Callable) -> Feedback:
    """``central_difference(f, x, h)``: (f(x+h) - f(x-h)) / 2h, checked on three functions and its error order."""
    # (x+h)^3 - (x-h)^3 = 6x²h + 2h³: at x=1, h=0.1 a central difference gives 3.01 (error h²), one-sided ones 3.31 or 2.71.
    got, error = call_learner(central_difference, lambda v: v ** 3, 1.0, 0.1, what="central_difference")
    if error is not None:
        return error
    try:
        coarse = float(got)
    except (TypeError, ValueError):
        return failed(f"central_difference should return a number; got {type(got).__name__}")
    slips = {3.31: "a forward difference (f(x+h) - f(x)) / h: step both ways, to x+h and x-h",
             2.71: "a backward difference (f(x) - f(x-h)) / h: step both ways, to x+h and x-h",
             6.02: "twice the central difference: divide by 2h, the distance between x-h and x+h",
             0.602: "the difference not divided by 2h"}
    for value, slip in slips.items():
        if math.isclose(coarse, value, rel_tol=1e-6):
            return failed(f"with h=0.1 on x**3 at x=1 yours gives {coarse:.6g}, which is {slip}. Expected 3.01.")
    if not math.isclose(coarse, 3.01, rel_tol=1e-6):
        return failed(f"with h=0.1 on x**3 at x=1 yours gives {coarse:.6g}; (f(x+h) - f(x-h)) / 2h gives 3.01.")
    cases = [("sin", math.sin, math.cos, 0.7), ("exp", math.exp, math.exp, -0.4)]
    for name, f, df, x in cases:
        value = float(central_difference(f, x, 1e-5))
        if not math.isclose(value, df(x), rel_tol=1e-6, abs_tol=1e-8):
            return failed(f"For f={name} at x={x:g}, h=1e-5: yours {value:.8g}, expected about {df(x):.8g}.")
    return passed("central_difference agrees with the true derivative, with an error that shrinks like h².")


def exercise_3_data() -> tuple[al.Tensor, al.Tensor]:
    """Five points near the line y = 2x + 1, for exercise 3."""
    x = al.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    y = al.tensor([1.2, 2.9, 5.1, 7.0, 8.8])
    return x, y


def ex_00_3(w: al.Tensor) -> Feedback:
    """``w``: a 2-element leaf after ``loss.backward()``, loss = mean((w[0]·x + w[1] - y)²) on exercise 3's data."""
    if is_placeholder(w):
        return not_answered("w (after calling loss.backward())")
    if not isinstance(w, al.Tensor) or tuple(w.shape) != (2,):
        return failed("w should be a tensor of 2 elements: the slope w[0] and the intercept w[1].")
    if not w.requires_grad:
        return failed("w needs requires_grad=True, or autograd records nothing to differentiate.")
    if w.grad is None:
        return failed("w.grad is None: build the loss from w, then call loss.backward().")
    x, y = exercise_3_data()
    slope, intercept = (float(v) for v in w.detach().numpy())
    residual = slope * x.numpy() + intercept - y.numpy()
    expected = np.array([2 * np.mean(residual * x.numpy()), 2 * np.mean(residual)])
    return compare_arrays("w.grad", w.grad, expected, rtol=1e-4, atol=1e-5, reference="the gradient worked out on paper")
