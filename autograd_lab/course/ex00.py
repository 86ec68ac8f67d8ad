"""Checkers for ``00_why_autograd.ipynb``: a derivative by hand, a finite difference, a first ``backward()``."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, as_number, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

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
    return compare_arrays("dg(x)", got, x.grad, labels=[msg("ex00.at_x", x=p) for p in POINTS], reference="autograd")


def ex_00_2(central_difference: Callable) -> Feedback:
    """``central_difference(f, x, h)``: (f(x+h) - f(x-h)) / 2h, checked on three functions and its error order."""
    # (x+h)^3 - (x-h)^3 = 6x²h + 2h³: at x=1, h=0.1 a central difference gives 3.01 (error h²), one-sided ones 3.31 or 2.71.
    got, error = call_learner(central_difference, lambda v: v ** 3, 1.0, 0.1, what="central_difference")
    if error is not None:
        return error
    try:
        coarse = as_number(got)
    except (TypeError, ValueError):
        return failed(msg("ex00.not_a_number", type=type(got).__name__))
    slips = {3.31: "forward", 2.71: "backward", 6.02: "twice", 0.602: "undivided"}
    for value, slip in slips.items():
        if math.isclose(coarse, value, rel_tol=1e-6):
            return failed(msg("ex00.slip", got=coarse, slip=msg(f"ex00.slip.{slip}")))
    if not math.isclose(coarse, 3.01, rel_tol=1e-6):
        return failed(msg("ex00.coarse_wrong", got=coarse))
    cases = [("sin", math.sin, math.cos, 0.7), ("exp", math.exp, math.exp, -0.4)]
    for name, f, df, x in cases:
        value = as_number(central_difference(f, x, 1e-5))
        if not math.isclose(value, df(x), rel_tol=1e-6, abs_tol=1e-8):
            return failed(msg("ex00.fine_wrong", name=name, x=x, got=value, expected=df(x)))
    return passed(msg("ex00.central_passed"))


def exercise_3_data() -> tuple[al.Tensor, al.Tensor]:
    """Five points near the line y = 2x + 1, for exercise 3."""
    x = al.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    y = al.tensor([1.2, 2.9, 5.1, 7.0, 8.8])
    return x, y


def ex_00_3(w: al.Tensor) -> Feedback:
    """``w``: a 2-element leaf after ``loss.backward()``, loss = mean((w[0]·x + w[1] - y)²) on exercise 3's data."""
    if is_placeholder(w):
        return not_answered(msg("ex00.w_after_backward"))
    if not isinstance(w, al.Tensor) or tuple(w.shape) != (2,):
        return failed(msg("ex00.w_shape"))
    if not w.requires_grad:
        return failed(msg("ex00.w_requires_grad"))
    if w.grad is None:
        return failed(msg("ex00.w_grad_none"))
    x, y = exercise_3_data()
    slope, intercept = (float(v) for v in w.detach().numpy())
    residual = slope * x.numpy() + intercept - y.numpy()
    expected = np.array([2 * np.mean(residual * x.numpy()), 2 * np.mean(residual)])
    return compare_arrays("w.grad", w.grad, expected, rtol=1e-4, atol=1e-5, reference=msg("ex00.on_paper"))
