"""Checkers for ``14_broadcasting.ipynb``: summing a gradient back to the shape of a broadcast input, and the
gradients of a broadcast product worked out by hand."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.engine import sum_to as engine_sum_to

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_14_1", "ex_14_2", "EX2_X", "EX2_Y"]

# (shape of the gradient, shape of the input it must be summed back to)
CASES = [((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 4)), ((2, 3), ()), ((3, 4), (3, 4))]


def ex_14_1(sum_to: Callable) -> Feedback:
    """``sum_to(grad, shape)``: ``grad`` summed down to ``shape``, the shape its input had before broadcasting."""
    if is_placeholder(sum_to):
        return not_answered("your sum_to function")
    for grad_shape, shape in CASES:
        grad = al.arange(float(np.prod(grad_shape))).reshape(grad_shape)
        got, problem = call_learner(sum_to, grad, shape, what=f"sum_to(grad of shape {grad_shape}, {shape})")
        if problem is not None:
            return problem
        if not isinstance(got, al.Tensor):
            return failed(f"sum_to should return a tensor; for a gradient of shape {grad_shape} it returned "
                          f"{type(got).__name__}.")
        expected = engine_sum_to(grad.numpy(), shape)
        if tuple(got.shape) != shape:
            hint = ""
            if got.numel() == int(np.prod(shape)):
                hint = (" The numbers may be right but the shape is not: a dimension of size 1 in the input must stay "
                        "(sum it with keepdim=True), and the leading dimensions it did not have must go.")
            return failed(f"sum_to(grad of shape {grad_shape}, {shape}) has shape {tuple(got.shape)}, but the gradient "
                          f"of an input of shape {shape} must have that shape.{hint}")
        result = compare_arrays(f"sum_to(grad of shape {grad_shape}, {shape})", got, expected,
                                reference="the engine's sum_to")
        if not result:
            return result
    return passed("leading dimensions summed away, dimensions of size 1 summed with keepdim: the reduction the engine "
                  "applies to every gradient of a broadcast input.")


EX2_X = [[1.0], [2.0]]  # shape (2, 1)
EX2_Y = [[1.0, 2.0, 3.0]]  # shape (1, 3)


def ex_14_2(x_grad, y_grad) -> Feedback:
    """``x_grad``, ``y_grad``: the gradients of ``(x * y).sum()`` for exercise 2's x (2, 1) and y (1, 3), by hand."""
    if is_placeholder(x_grad) or is_placeholder(y_grad):
        return not_answered("x_grad and y_grad (nested lists, in the shapes of x and y)")
    x = al.tensor(EX2_X, requires_grad=True)
    y = al.tensor(EX2_Y, requires_grad=True)
    (x * y).sum().backward()
    for name, got, expected in (("x_grad", x_grad, x.grad), ("y_grad", y_grad, y.grad)):
        try:
            shape = np.shape(np.asarray(got.numpy() if isinstance(got, al.Tensor) else got, dtype=float))
        except (TypeError, ValueError):
            return failed(f"{name} should be numbers in nested lists, such as [[0.0], [0.0]]; got {got!r}")
        if shape != tuple(expected.shape):
            return failed(f"{name} has shape {shape}, but a gradient has the shape of its input, "
                          f"{tuple(expected.shape)}: the (2, 3) gradient of the product is summed back down.")
        result = compare_arrays(name, got, expected, reference="autograd")
        if not result:
            if np.allclose(np.asarray(got, dtype=float), 1.0):
                result.message += ("\nHint: each element of x meets all three elements of y in the product, so its "
                                   "gradient adds up three terms.")
            return result
    return passed("x[i] is multiplied by every y[j], so x.grad[i] = y.sum() = 6; y[j] by every x[i], so y.grad[j] = "
                  "x.sum() = 3.")
