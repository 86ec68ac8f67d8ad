"""Checkers for ``05_backward_step_by_step.ipynb``: a vector-Jacobian product by hand, gradient accumulation."""

from __future__ import annotations

from collections.abc import Callable

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, passed

EX2_X = [1.0, 2.0, -1.0]
EX2_V = [1.0, 0.5, -2.0]


def ex_05_2(x_grad) -> Feedback:
    """``x_grad``: x.grad after ``(x ** 3).backward(gradient=v)`` with exercise 2's x and v, worked out by hand."""
    x = al.tensor(EX2_X, requires_grad=True)
    (x ** 3).backward(gradient=al.tensor(EX2_V))
    return compare_arrays("x.grad", x_grad, x.grad)


def _setup():
    al.manual_seed(5)
    model = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 1))
    inputs, targets = al.randn(12, 3), al.randn(12, 1)
    return model, inputs, targets


def ex_05_1(accumulate: Callable) -> Feedback:
    """``accumulate(model, inputs, targets, parts)``: leaves in each parameter's ``.grad`` the gradient of the mean
    squared error over the whole batch, computed with ``parts`` backward passes on slices of the batch."""
    model, inputs, targets = _setup()
    al.nn.functional.mse_loss(model(inputs), targets).backward()
    expected = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    model.zero_grad()
    for p in model.parameters():  # stale gradients from an earlier step: accumulate must not add onto them
        p.grad = al.ones_like(p)
    calls = 0
    original_backward = al.Tensor.backward

    def counting_backward(self, *args, **kwargs):
        nonlocal calls
        calls += 1
        return original_backward(self, *args, **kwargs)

    al.Tensor.backward = counting_backward
    try:
        _, error = call_learner(accumulate, model, inputs, targets, 3, what="accumulate")
    finally:
        al.Tensor.backward = original_backward
    if error is not None:
        return error
    if calls != 3:
        return failed(f"accumulate called backward {calls} time(s); with parts=3 it should call it once per part.")
    for name, p in model.named_parameters():
        if p.grad is None:
            return failed(f"{name}.grad is None: did accumulate set the gradients to None after backward?")
        got = p.grad.numpy()
        if abs(got - expected[name] - 1).max() < 1e-5:
            return failed("Every gradient is 1 more than expected: the .grad from a previous step was still there. "
                          "Clear the gradients (model.zero_grad()) before the first part.")
        result = compare_arrays(f"{name}.grad", got, expected[name], reference="the full-batch gradient")
        if not result:
            return result
    return passed("Three backward passes on thirds of the batch, added up in .grad, give the full-batch gradient.")
