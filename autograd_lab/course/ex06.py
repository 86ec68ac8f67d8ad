"""Checkers for ``06_hooks.ipynb``: a gradient-clipping tensor hook, the firing order of hooks, and an
optimizer step run inside backward by post-accumulate-grad hooks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_06_1", "ex_06_2", "ex_06_3", "order_puzzle"]


# -- exercise 1: a hook that clips the gradient ------------------------------------------------------
def ex_06_1(clip_hook: Callable) -> Feedback:
    """``clip_hook(grad)`` returns the gradient clamped to [-1, 1] and leaves its argument alone."""
    if is_placeholder(clip_hook):
        return not_answered(msg("ex06.your_hook"))
    grad = al.tensor([-3.0, -0.5, 0.0, 0.25, 1.0, 7.5])
    original = grad.numpy().copy()
    result, problem = call_learner(clip_hook, grad, what="clip_hook(grad)")
    if problem is not None:
        return problem
    if not np.array_equal(grad.numpy(), original):
        return failed(msg("ex06.changed_argument"))
    if result is None:
        return failed(msg("ex06.returned_none"))
    if not isinstance(result, al.Tensor):
        return failed(msg("ex06.not_a_tensor", type=type(result).__name__))
    direct = compare_arrays("clip_hook(grad)", result, np.clip(original, -1.0, 1.0), reference=msg("ex06.clamped"))
    if not direct:
        return direct
    # In a graph: the hook on h changes what flows on to x.
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1.0
    h.register_hook(clip_hook)
    (h * al.tensor([4.0, -0.5, -2.0])).sum().backward()
    in_graph = compare_arrays(msg("ex06.x_grad_in_graph"), x.grad, [1.0, -0.5, -1.0], reference=msg("ex06.clipped"))
    if not in_graph:
        return in_graph
    return passed(msg("ex06.clip_passed"))


# -- exercise 2: predict the order in which hooks fire ----------------------------------------------
def order_puzzle(log: list) -> None:
    """The program of exercise 2: every hook appends its label to ``log``."""
    w = al.tensor([1.0, -2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda param: log.append("w post-accumulate"))
    w.register_hook(lambda grad: log.append("w hook"))
    h = w * 3
    h.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append("MulBackward0 post-hook"))
    h.grad_fn.register_prehook(lambda grad_outputs: log.append("MulBackward0 pre-hook"))
    h.register_hook(lambda grad: log.append("h hook"))
    loss = h.exp().sum()
    loss.grad_fn.register_prehook(lambda grad_outputs: log.append("SumBackward0 pre-hook"))
    loss.backward()


def ex_06_2(predicted_order) -> Feedback:
    """``predicted_order`` lists the labels of :func:`order_puzzle` in the order the hooks fire."""
    if is_placeholder(predicted_order):
        return not_answered(msg("ex06.labels_in_order"))
    if isinstance(predicted_order, str) or not hasattr(predicted_order, "__iter__"):
        return failed(msg("ex06.not_a_list"))
    predicted = list(predicted_order)
    if not predicted or any(is_placeholder(label) for label in predicted):
        return not_answered(msg("ex06.six_labels"))
    actual: list[str] = []
    order_puzzle(actual)
    unknown = [label for label in predicted if label not in actual]
    if unknown:
        return failed(msg("ex06.unknown_labels", unknown=unknown, labels=sorted(actual)))
    missing = [label for label in actual if label not in predicted]
    if missing or len(predicted) != len(actual):
        return failed(msg("ex06.each_once", total=len(actual), given=len(predicted))
                      + (msg("ex06.and_misses", missing=missing) if missing else msg("ex06.full_stop")))
    if predicted == actual:
        return passed(msg("ex06.order_passed"))
    first = next(i for i, (p, a) in enumerate(zip(predicted, actual)) if p != a)
    key = "ex06.first_wrong_after" if first else "ex06.first_wrong"
    return failed(msg(key, position=first, given=repr(predicted[first]), actual=repr(actual[first])))


# -- exercise 3: SGD inside backward with post-accumulate-grad hooks -------------------------------------
def _batch() -> tuple:
    gen = al.Generator().manual_seed(6)
    return al.randn(5, 3, generator=gen), al.randn(5, 2, generator=gen)


def _model() -> al.nn.Linear:
    al.manual_seed(6)
    return al.nn.Linear(3, 2)


def ex_06_3(sgd_in_backward: Callable) -> Feedback:
    """``sgd_in_backward(lr)`` returns a post-accumulate hook: ``param -= lr * param.grad``, then frees the grad."""
    if is_placeholder(sgd_in_backward):
        return not_answered(msg("ex06.your_sgd_in_backward"))
    lr = 0.1
    x, target = _batch()
    reference = _model()
    loss = ((reference(x) - target) ** 2).mean()
    grads = al.autograd.grad(loss, list(reference.parameters()))
    expected = [(p - lr * g).detach().numpy() for p, g in zip(reference.parameters(), grads)]

    model = _model()
    for param in model.parameters():
        hook, problem = call_learner(sgd_in_backward, lr, what="sgd_in_backward(lr)")
        if problem is not None:
            return problem
        if not callable(hook):
            return failed(msg("ex06.not_a_hook", type=type(hook).__name__))
        param.register_post_accumulate_grad_hook(hook)
    try:
        ((model(x) - target) ** 2).mean().backward()
    except Exception as error:  # noqa: BLE001 - the learner's hook raised inside backward
        return failed(msg("ex06.hook_raised", type=type(error).__name__, error=error))
    for (name, param), want in zip(model.named_parameters(), expected):
        if np.allclose(param.detach().numpy(), reference.get_parameter(name).detach().numpy()):
            return failed(msg("ex06.not_updated", name=name))
        result = compare_arrays(msg("ex06.after_backward", name=name), param, want, reference=msg("ex06.plain_sgd"))
        if not result:
            return result
        if param.grad is not None:
            return failed(msg("ex06.grad_kept", name=name))
    return passed(msg("ex06.sgd_passed"))
