"""Checkers for ``10_training.ipynb``: accuracy of a batch of logits, one training step (with the usual slips
named: a missing ``zero_grad`` or ``step``), and the output size of a convolution."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_10_1", "ex_10_2", "ex_10_3"]


# -- exercise 1: count the trainable parameters -----------------------------------------------------------
def _models() -> list[tuple[str, al.nn.Module]]:
    state = al.get_rng_state()  # their initial weights must not shift the learner's random numbers
    frozen = al.nn.Sequential(al.nn.Linear(64, 32), al.nn.ReLU(), al.nn.Linear(32, 10))
    frozen[0].requires_grad_(False)
    models = [("nn.Linear(64, 10)", al.nn.Linear(64, 10)), ("nn.Conv2d(1, 8, 3)", al.nn.Conv2d(1, 8, 3)),
              (msg("ex10.frozen_mlp"), frozen)]
    al.set_rng_state(state)
    return models


def ex_10_1(count_parameters: Callable) -> Feedback:
    """``count_parameters(model)`` is the number of scalars the optimizer trains (parameters requiring grad)."""
    if is_placeholder(count_parameters):
        return not_answered(msg("feedback.your_named_function", name="count_parameters"))
    for label, model in _models():
        got, problem = call_learner(count_parameters, model, what="count_parameters(model)")
        if problem is not None:
            return problem
        if got is None:
            return failed(msg("ex10.count_none"))
        expected = sum(p.numel() for p in model.parameters() if p.requires_grad)
        everything = sum(p.numel() for p in model.parameters())
        if got == expected:
            continue
        if got == everything:
            return failed(msg("ex10.counted_all", label=label, everything=everything, expected=expected))
        return failed(msg("ex10.count_wrong", label=label, expected=expected, got=repr(got)))
    return passed(msg("ex10.count_passed"))


# -- exercise 2: one training step ------------------------------------------------------------------------------
def _setup() -> tuple:
    al.manual_seed(10)
    model = al.nn.Linear(64, 10)
    optimizer = al.optim.SGD(model.parameters(), lr=0.5)
    gen = al.Generator().manual_seed(100)
    batches = [(al.rand(16, 64, generator=gen), al.randint(0, 10, (16,), generator=gen)) for _ in range(2)]
    return model, optimizer, batches


def _correct_step(model, optimizer, xb, yb) -> float:
    optimizer.zero_grad()
    loss = al.nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()


class _Watched:
    """The learner's optimizer, logging each ``zero_grad`` and ``step`` with whether gradients were there."""

    def __init__(self, optimizer) -> None:
        self.optimizer, self.calls = optimizer, []

    def _has_grads(self) -> bool:
        return any(p.grad is not None and bool((p.grad != 0).any()) for group in self.optimizer.param_groups
                   for p in group["params"])

    def zero_grad(self, *args, **kwargs):
        self.calls.append(("zero_grad", self._has_grads()))
        return self.optimizer.zero_grad(*args, **kwargs)

    def step(self, *args, **kwargs):
        self.calls.append(("step", self._has_grads()))
        return self.optimizer.step(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.optimizer, name)


def _no_update(calls: list) -> str:
    """Why a step left the parameters where they were, from the optimizer's log."""
    steps = [had_grads for name, had_grads in calls if name == "step"]
    if not steps:
        return msg("ex10.no_step")
    if any(name == "zero_grad" and had_grads for name, had_grads in calls):
        return msg("ex10.cleared_after_backward")
    return msg("ex10.no_gradient")


def ex_10_2(train_step: Callable) -> Feedback:
    """``train_step(model, optimizer, xb, yb)`` does zero_grad, forward, cross-entropy, backward, step; returns the loss."""
    if is_placeholder(train_step):
        return not_answered(msg("feedback.your_named_function", name="train_step"))
    ref_model, ref_opt, batches = _setup()
    model, optimizer, _ = _setup()
    start = [p.detach().numpy().copy() for p in model.parameters()]
    for step, (xb, yb) in enumerate(batches):
        expected_loss = _correct_step(ref_model, ref_opt, xb, yb)
        watched = _Watched(optimizer)
        loss, problem = call_learner(train_step, model, watched, xb, yb, what="train_step(...)")
        if problem is not None:
            return problem
        if loss is None:
            return failed(msg("ex10.loss_none"))
        if isinstance(loss, al.Tensor):
            return failed(msg("ex10.loss_tensor"))
        if not np.isclose(float(loss), expected_loss, rtol=1e-4):
            return failed(msg("ex10.loss_wrong", step=step, expected=expected_loss, got=float(loss)))
        if step == 0 and all(np.array_equal(p.detach().numpy(), s) for p, s in zip(model.parameters(), start)):
            return failed(_no_update(watched.calls))
        for (name, param), ref in zip(model.named_parameters(), ref_model.parameters()):
            result = compare_arrays(msg("ex10.after_step", name=name, step=step), param, ref,
                                    reference=msg("ex10.two_steps"))
            if not result:
                if step == 1 and not any(name == "zero_grad" for name, _ in watched.calls):
                    result.message += "\n" + msg("ex10.no_zero_grad")
                return result
    return passed(msg("ex10.step_passed"))


# -- exercise 3: output size of a convolution -----------------------------------------------------------------------
def ex_10_3(conv_output_size: Callable) -> Feedback:
    """``conv_output_size(size, kernel_size, stride, padding)`` is the output length of Conv2d/MaxPool2d."""
    if is_placeholder(conv_output_size):
        return not_answered(msg("feedback.your_named_function", name="conv_output_size"))
    cases = [(8, 3, 1, 1), (8, 3, 1, 0), (8, 2, 2, 0), (7, 3, 2, 1), (28, 5, 1, 2), (9, 4, 3, 0), (5, 5, 1, 0)]
    for size, kernel, stride, padding in cases:
        conv = al.nn.Conv2d(1, 1, kernel, stride=stride, padding=padding)
        with al.no_grad():
            expected = conv(al.zeros(1, 1, size, size)).shape[-1]
        got, problem = call_learner(conv_output_size, size, kernel, stride, padding, what="conv_output_size(...)")
        call = f"conv_output_size({size}, kernel_size={kernel}, stride={stride}, padding={padding})"
        if problem is not None:
            return problem
        if isinstance(got, float) and not got.is_integer():
            return failed(msg("ex10.not_whole", call=call, got=repr(got)))
        if got != expected:
            return failed(msg("ex10.size_wrong", call=call, expected=expected, got=repr(got)))
    return passed(msg("ex10.size_passed"))
