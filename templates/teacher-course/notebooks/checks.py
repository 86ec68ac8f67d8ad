"""This course's exercise checkers, built on autograd_lab's checker API.

A checker takes the learner's answer and returns a ``Feedback``: it passed or not, and a message that says what is
right or which part is wrong. The notebooks call them as their exercise cells' last line, so the message is what the
learner sees (and what nbval compares): plain, deterministic text.
"""

from __future__ import annotations

import math

import numpy as np

import autograd_lab as al
from autograd_lab.course import Feedback, as_array, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

POINTS = [-1.5, -0.5, 0.0, 0.7, 2.0]


def chain_rule(dfdx) -> Feedback:
    """Lesson 1, exercise 1: ``dfdx(x)``, the learner's derivative of f(x) = sin(x²), compared with autograd's."""
    x = al.tensor(POINTS, dtype=al.float64, requires_grad=True)
    al.sin(x ** 2).sum().backward()
    got, error = call_learner(dfdx, al.tensor(POINTS, dtype=al.float64), what="dfdx")
    if error is not None:  # a placeholder, something not callable, or an exception: feedback, not a traceback
        return error
    result = compare_arrays("dfdx(x)", got, x.grad, labels=[f"at x={p:g}" for p in POINTS], reference="autograd")
    if not result and _close(got, np.cos(np.square(POINTS))):  # a slip worth naming
        result.message += "\nHint: that is the outer derivative alone; the chain rule multiplies it by (x²)' = 2x."
    return result


def _close(answer, values) -> bool:
    """Whether the learner's answer (whatever it is: ``...``, a list, a tensor) equals ``values``."""
    if is_placeholder(answer):
        return False
    try:
        answer = as_array(answer)
    except (TypeError, ValueError):
        return False
    return answer.shape == np.shape(values) and bool(np.allclose(answer, values))


def descend(gradient_descent) -> Feedback:
    """Lesson 1, exercise 2: ``gradient_descent(f, x0, lr, steps)`` returns x after ``steps`` steps x -= lr * f'(x),
    the derivative taken by autograd."""
    if is_placeholder(gradient_descent):
        return not_answered("your gradient_descent function")
    expected = 3.0 + (0.0 - 3.0) * (1 - 2 * 0.1) ** 25  # on f(x) = (x - 3)², each step shrinks x - 3 by 1 - 2 lr
    got, error = call_learner(gradient_descent, lambda x: (x - 3) ** 2, 0.0, 0.1, 25, what="gradient_descent")
    if error is not None:
        return error
    try:
        value = float(got)
    except (TypeError, ValueError):
        return failed(f"gradient_descent should return x, a number or a one-element tensor; got {got!r}")
    if math.isclose(value, 0.0):
        return failed("x is still 0.0, where it started: take steps x = x - lr * grad, with the gradient from "
                      "al.autograd.grad(f(x), x) (or f(x).backward() and x.grad).")
    if math.isclose(value, 3.0 + (0.0 - 3.0) * (1 + 2 * 0.1) ** 25, rel_tol=1e-6):  # each step away from 3
        return failed("x went the wrong way: subtract lr * grad to go down the function.")
    if not math.isclose(value, expected, rel_tol=1e-6):
        return failed(f"after 25 steps from 0.0 with lr=0.1 on (x - 3)², x should be {expected:.6f}; yours is "
                      f"{value:.6f}. Is each step's gradient taken at the current x?")
    return passed(f"x = {expected:.4f} after 25 steps: each one shrinks the distance to the minimum 3 by a factor 0.8.")
