"""Checkers for ``14_broadcasting.ipynb``: summing a gradient back to the shape of a broadcast input, and the
gradients of a broadcast product worked out by hand."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.engine import sum_to as engine_sum_to

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_14_1", "ex_14_2", "EX2_X", "EX2_Y"]

# (shape of the gradient, shape of the input it must be summed back to)
CASES = [((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 4)), ((2, 3), ()), ((3, 4), (3, 4))]


def ex_14_1(sum_to: Callable) -> Feedback:
    """``sum_to(grad, shape)``: ``grad`` summed down to ``shape``, the shape its input had before broadcasting."""
    if is_placeholder(sum_to):
        return not_answered(msg("feedback.your_named_function", name="sum_to"))
    for grad_shape, shape in CASES:
        grad = al.arange(float(np.prod(grad_shape))).reshape(grad_shape)
        call = msg("ex14.call", grad_shape=grad_shape, shape=shape)
        got, problem = call_learner(sum_to, grad, shape, what=call)
        if problem is not None:
            return problem
        if not isinstance(got, al.Tensor):
            return failed(msg("ex14.not_a_tensor", grad_shape=grad_shape, type=type(got).__name__))
        expected = engine_sum_to(grad.numpy(), shape)
        if tuple(got.shape) != shape:
            hint = msg("ex14.hint_keepdim") if got.numel() == int(np.prod(shape)) else ""
            return failed(msg("ex14.shape_wrong", call=call, got=tuple(got.shape), shape=shape) + hint)
        result = compare_arrays(call, got, expected, reference=msg("ex14.engine_sum_to"))
        if not result:
            return result
    return passed(msg("ex14.sum_to_passed"))


EX2_X = [[1.0], [2.0]]  # shape (2, 1)
EX2_Y = [[1.0, 2.0, 3.0]]  # shape (1, 3)


def ex_14_2(x_grad, y_grad) -> Feedback:
    """``x_grad``, ``y_grad``: the gradients of ``(x * y).sum()`` for exercise 2's x (2, 1) and y (1, 3), by hand."""
    if is_placeholder(x_grad) or is_placeholder(y_grad):
        return not_answered(msg("ex14.two_grads"))
    x = al.tensor(EX2_X, requires_grad=True)
    y = al.tensor(EX2_Y, requires_grad=True)
    (x * y).sum().backward()
    for name, got, expected in (("x_grad", x_grad, x.grad), ("y_grad", y_grad, y.grad)):
        try:
            shape = np.shape(np.asarray(got.numpy() if isinstance(got, al.Tensor) else got, dtype=float))
        except (TypeError, ValueError):
            return failed(msg("ex14.not_nested", name=name, got=repr(got)))
        if shape != tuple(expected.shape):
            return failed(msg("ex14.grad_shape", name=name, shape=shape, expected=tuple(expected.shape)))
        result = compare_arrays(name, got, expected, reference="autograd")
        if not result:
            if np.allclose(np.asarray(got, dtype=float), 1.0):
                result.message += "\n" + msg("ex14.hint_three_terms")
            return result
    return passed(msg("ex14.product_passed"))
