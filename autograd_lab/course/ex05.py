"""Checkers for ``05_backward_step_by_step.ipynb``: a vector-Jacobian product by hand, gradient accumulation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, passed

EX2_X = [1.0, 2.0, -1.0]
EX2_V = [1.0, 0.5, -2.0]


def ex_05_2(x_grad) -> Feedback:
    """``x_grad``: x.grad after ``(x ** 3).backward(gradient=v)`` with exercise 2's x and v, worked out by hand."""
    x = al.tensor(EX2_X, requires_grad=True)
    (x ** 3).backward(gradient=al.tensor(EX2_V))
    result = compare_arrays("x.grad", x_grad, x.grad, reference="autograd")
    if not result and not is_placeholder(x_grad):
        try:
            without_v = np.allclose(np.asarray(x_grad, dtype=float), 3 * np.asarray(EX2_X) ** 2)
        except (TypeError, ValueError):
            without_v = False
        if without_v:
            result.message += "\n" + msg("ex05.hint_times_v")
    return result


def _setup():
    al.manual_seed(5)
    model = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 1))
    inputs, targets = al.randn(12, 3), al.randn(12, 1)
    return model, inputs, targets


def _grads(model, inputs, targets, scale: float = 1.0) -> dict:
    """The parameters' gradients of ``scale * mse_loss(model(inputs), targets)``, from a fresh .grad."""
    model.zero_grad()
    (al.nn.functional.mse_loss(model(inputs), targets) * scale).backward()
    grads = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    model.zero_grad()
    return grads


def _slips(model, inputs, targets, parts: int) -> dict[str, dict]:
    """What ``.grad`` holds after the usual slips, each with its explanation."""
    full = _grads(model, inputs, targets)
    last = _grads(model, inputs.chunk(parts)[-1], targets.chunk(parts)[-1])
    stale, unscaled, cleared = msg("ex05.stale"), msg("ex05.unscaled", parts=parts), msg("ex05.cleared")
    return {
        stale: {k: g + 1 for k, g in full.items()},
        msg("ex05.unscaled_and_stale", unscaled=unscaled, stale=stale): {k: parts * g + 1 for k, g in full.items()},
        unscaled: {k: parts * g for k, g in full.items()},
        cleared: {k: g / parts for k, g in last.items()},
        msg("ex05.cleared_and_unscaled", cleared=cleared): last,
    }


def ex_05_1(accumulate: Callable) -> Feedback:
    """``accumulate(model, inputs, targets, parts)``: leaves in each parameter's ``.grad`` the gradient of the mean
    squared error over the whole batch, computed with ``parts`` backward passes on slices of the batch."""
    model, inputs, targets = _setup()
    expected = _grads(model, inputs, targets)
    slips = _slips(model, inputs, targets, 3)
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
        return failed(msg("ex05.calls", calls=calls))
    if any(p.grad is None for p in model.parameters()):
        missing = [name for name, p in model.named_parameters() if p.grad is None]
        return failed(msg("ex05.grad_none", name=missing[0]))
    got = {name: p.grad.numpy() for name, p in model.named_parameters()}
    for why, grads in slips.items():
        if all(np.allclose(got[k], grads[k], rtol=1e-4, atol=1e-6) for k in got):
            return failed(msg("ex05.not_full_batch", why=why))
    for name, grad in got.items():
        result = compare_arrays(f"{name}.grad", grad, expected[name], reference=msg("ex05.full_batch"))
        if not result:
            return result
    return passed(msg("ex05.accumulate_passed"))
