"""Checkers for ``09_higher_order_and_functional.ipynb``: a Jacobian built from one backward per output, a
Hessian-vector product by double backward, and a gradient penalty that is itself differentiable."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.functional import hvp, jacobian

from ..i18n import msg
from ._feedback import Feedback, as_number, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_09_1", "ex_09_2", "ex_09_3", "reference_penalty", "make_critic"]


def _test_functions() -> list[tuple[str, Callable, al.Tensor]]:
    x = al.tensor([0.5, -1.0, 2.0], dtype=al.float64)
    return [
        ("f(x) = x * x.sum()", lambda t: t * t.sum(), x),
        ("f(x) = stack([x[0] * x[1], x.exp().sum()])", lambda t: al.stack([t[0] * t[1], t.exp().sum()]), x),
    ]


# -- exercise 1: a Jacobian, one backward per output element ----------------------------------------------
def ex_09_1(my_jacobian: Callable) -> Feedback:
    """``my_jacobian(f, x)`` for 1-D ``x`` and 1-D ``f(x)`` returns the (len(f(x)), len(x)) Jacobian."""
    if is_placeholder(my_jacobian):
        return not_answered(msg("feedback.your_named_function", name="my_jacobian"))
    for label, f, x in _test_functions():
        got, problem = call_learner(my_jacobian, f, x.clone(), what="my_jacobian(f, x)")
        if problem is not None:
            return problem
        if got is None:
            return failed(msg("ex09.jacobian_none"))
        result = compare_arrays(msg("ex09.for_function", name="my_jacobian", label=label), got, jacobian(f, x),
                                reference="al.autograd.functional.jacobian")
        if not result:
            return result
    return passed(msg("ex09.jacobian_passed"))


# -- exercise 2: Hessian-vector product by double backward ----------------------------------------------------
def ex_09_2(my_hvp: Callable) -> Feedback:
    """``my_hvp(f, x, v)`` returns H(x) @ v for a scalar ``f`` without forming H."""
    if is_placeholder(my_hvp):
        return not_answered(msg("feedback.your_named_function", name="my_hvp"))
    x = al.tensor([0.5, -1.0, 2.0], dtype=al.float64)
    v = al.tensor([1.0, 0.0, -2.0], dtype=al.float64)
    for label, f in [("f(x) = (x ** 3).sum()", lambda t: (t ** 3).sum()),
                     ("f(x) = x[0] * x[1].sin() + (x * x).sum() ** 2", lambda t: t[0] * t[1].sin() + (t * t).sum() ** 2)]:
        got, problem = call_learner(my_hvp, f, x.clone(), v, what="my_hvp(f, x, v)")
        if problem is not None:
            if "does not require grad" in problem.message:
                problem.message += "\n" + msg("ex09.hint_create_graph")
            return problem
        if got is None:
            return failed(msg("ex09.hvp_none"))
        result = compare_arrays(msg("ex09.for_function", name="my_hvp", label=label), got, hvp(f, x, v)[1],
                                reference="al.autograd.functional.hvp")
        if not result:
            return result
    return passed(msg("ex09.hvp_passed"))


# -- exercise 3: the gradient penalty ----------------------------------------------------------------------------
def make_critic() -> al.nn.Module:
    """The small network used by the gradient-penalty exercise (seeded, so every call makes the same one)."""
    al.manual_seed(9)
    return al.nn.Sequential(al.nn.Linear(2, 8), al.nn.Tanh(), al.nn.Linear(8, 1))


def _points() -> al.Tensor:
    return al.randn(6, 2, generator=al.Generator().manual_seed(90))


def reference_penalty(critic: al.nn.Module, x: al.Tensor) -> al.Tensor:
    """mean over samples of (||d critic(x_i) / d x_i|| - 1) ** 2, differentiable with respect to the critic."""
    x = x.detach().requires_grad_()
    (grad,) = al.autograd.grad(critic(x).sum(), x, create_graph=True)
    return ((grad.norm(dim=1) - 1) ** 2).mean()


def ex_09_3(gradient_penalty: Callable) -> Feedback:
    """``gradient_penalty(critic, x)`` matches :func:`reference_penalty` in value and in its parameter gradients."""
    if is_placeholder(gradient_penalty):
        return not_answered(msg("feedback.your_named_function", name="gradient_penalty"))
    reference = make_critic()
    expected = reference_penalty(reference, _points())
    # the last bias cannot change d critic / d x: its gradient is zero (materialized), not missing
    expected_grads = al.autograd.grad(expected, list(reference.parameters()), materialize_grads=True)
    critic = make_critic()
    got, problem = call_learner(gradient_penalty, critic, _points(), what="gradient_penalty(critic, x)")
    if problem is not None:
        if "does not require grad" in problem.message:
            problem.message += "\n" + msg("ex09.hint_requires_grad")
        return problem
    if not isinstance(got, al.Tensor) or got.numel() != 1:
        return failed(msg("ex09.penalty_not_scalar"))
    value = compare_arrays("gradient_penalty(critic, x)", got.reshape(()), expected.detach(), rtol=1e-4,
                           reference=msg("ex09.reference_penalty"))
    if not value:
        if np.isclose(as_number(got), as_number(expected) * len(_points()), rtol=1e-4):
            value.message += "\n" + msg("ex09.hint_mean", times=len(_points()))
        return value
    if not got.requires_grad:
        return failed(msg("ex09.penalty_no_grad_fn"))
    grads = al.autograd.grad(got, list(critic.parameters()), materialize_grads=True)
    for (name, _), grad, want in zip(critic.named_parameters(), grads, expected_grads):
        result = compare_arrays(f"d penalty / d {name}", grad, want, rtol=1e-3, reference=msg("ex09.reference_gradient"))
        if not result:
            return result
    return passed(msg("ex09.penalty_passed"))
