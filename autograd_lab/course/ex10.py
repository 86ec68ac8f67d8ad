"""Checkers for ``10_training.ipynb``: accuracy of a batch of logits, one training step (with the usual slips
named: a missing ``zero_grad`` or ``step``), and the output size of a convolution."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_10_1", "ex_10_2", "ex_10_3"]


# -- exercise 1: count the trainable parameters -----------------------------------------------------------
def _models() -> list[tuple[str, al.nn.Module]]:
    state = al.get_rng_state()  # their initial weights must not shift the learner's random numbers
    frozen = al.nn.Sequential(al.nn.Linear(64, 32), al.nn.ReLU(), al.nn.Linear(32, 10))
    frozen[0].requires_grad_(False)
    models = [("nn.Linear(64, 10)", al.nn.Linear(64, 10)), ("nn.Conv2d(1, 8, 3)", al.nn.Conv2d(1, 8, 3)),
              ("an MLP whose first layer is frozen", frozen)]
    al.set_rng_state(state)
    return models


def ex_10_1(count_parameters: Callable) -> Feedback:
    """``count_parameters(model)`` is the number of scalars the optimizer trains (parameters requiring grad)."""
    if is_placeholder(count_parameters):
        return not_answered("your count_parameters function")
    for label, model in _models():
        got, problem = call_learner(count_parameters, model, what="count_parameters(model)")
        if problem is not None:
            return problem
        if got is None:
            return failed("count_parameters returned None: replace the `...` with code that returns the count.")
        expected = sum(p.numel() for p in model.parameters() if p.requires_grad)
        everything = sum(p.numel() for p in model.parameters())
        if got == expected:
            continue
        if got == everything:
            return failed(f"for {label} you counted all {everything} parameters; only those with requires_grad=True "
                          f"are trained ({expected}).")
        return failed(f"for {label} the count is {expected}, you returned {got!r}. Add up p.numel() over "
                      "model.parameters() that require grad (weights and biases).")
    return passed("weights and biases that require grad, element by element, frozen ones left out.")


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
        return "the parameters did not change: call optimizer.step() after loss.backward()."
    if any(name == "zero_grad" and had_grads for name, had_grads in calls):
        return ("optimizer.step() found no gradients: zero_grad() ran after backward and cleared them. The order is "
                "zero_grad, forward, loss, backward, step.")
    return ("optimizer.step() ran, but no gradient had reached the parameters: call loss.backward() before step(), on "
            "a loss computed from model(xb) (a loss built from a detached output has no path back to the model).")


def ex_10_2(train_step: Callable) -> Feedback:
    """``train_step(model, optimizer, xb, yb)`` does zero_grad, forward, cross-entropy, backward, step; returns the loss."""
    if is_placeholder(train_step):
        return not_answered("your train_step function")
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
            return failed("train_step returned None: return the loss as a number (loss.item()).")
        if isinstance(loss, al.Tensor):
            return failed("train_step returned a Tensor: return loss.item(), a float, so that the graph is not kept "
                          "alive by a list of losses.")
        if not np.isclose(float(loss), expected_loss, rtol=1e-4):
            return failed(f"step {step}: the loss should be {expected_loss:.5f} (cross_entropy of model(xb) and yb), "
                          f"got {float(loss):.5f}.")
        if step == 0 and all(np.array_equal(p.detach().numpy(), s) for p, s in zip(model.parameters(), start)):
            return failed(_no_update(watched.calls))
        for (name, param), ref in zip(model.named_parameters(), ref_model.parameters()):
            result = compare_arrays(f"{name} after step {step}", param, ref, reference="two reference SGD steps")
            if not result:
                if step == 1 and not any(name == "zero_grad" for name, _ in watched.calls):
                    result.message += ("\nThe first step was right, the second is not: optimizer.zero_grad() was not "
                                       "called, so the second backward added onto the first one's gradients.")
                return result
    return passed("zero_grad, forward, loss, backward, step: the parameters match two reference SGD steps.")


# -- exercise 3: output size of a convolution -----------------------------------------------------------------------
def ex_10_3(conv_output_size: Callable) -> Feedback:
    """``conv_output_size(size, kernel_size, stride, padding)`` is the output length of Conv2d/MaxPool2d."""
    if is_placeholder(conv_output_size):
        return not_answered("your conv_output_size function")
    cases = [(8, 3, 1, 1), (8, 3, 1, 0), (8, 2, 2, 0), (7, 3, 2, 1), (28, 5, 1, 2), (9, 4, 3, 0), (5, 5, 1, 0)]
    for size, kernel, stride, padding in cases:
        conv = al.nn.Conv2d(1, 1, kernel, stride=stride, padding=padding)
        with al.no_grad():
            expected = conv(al.zeros(1, 1, size, size)).shape[-1]
        got, problem = call_learner(conv_output_size, size, kernel, stride, padding, what="conv_output_size(...)")
        if problem is not None:
            return problem
        if isinstance(got, float) and not got.is_integer():
            return failed(f"conv_output_size({size}, kernel_size={kernel}, stride={stride}, padding={padding}) returned "
                          f"{got!r}, not a whole number: a layer has a whole number of positions. Use floor division "
                          "(//), which keeps the positions where the kernel fits entirely.")
        if got != expected:
            return failed(f"conv_output_size({size}, kernel_size={kernel}, stride={stride}, padding={padding}) should "
                          f"be {expected} (what al.nn.Conv2d gives), got {got!r}. Padding adds to both sides; count the "
                          "positions where the whole kernel fits, keeping every stride-th one.")
    return passed("(size + 2·padding − kernel_size) // stride + 1, for every case, as al.nn.Conv2d computes it.")
