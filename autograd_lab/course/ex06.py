"""Checkers for ``06_hooks.ipynb``: a gradient-clipping tensor hook, the firing order of hooks, and an
optimizer step run inside backward by post-accumulate-grad hooks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_06_1", "ex_06_2", "ex_06_3", "order_puzzle"]


# -- exercise 1: a hook that clips the gradient ------------------------------------------------------
def ex_06_1(clip_hook: Callable) -> Feedback:
    """``clip_hook(grad)`` returns the gradient clamped to [-1, 1] and leaves its argument alone."""
    if is_placeholder(clip_hook):
        return not_answered("your hook function")
    grad = al.tensor([-3.0, -0.5, 0.0, 0.25, 1.0, 7.5])
    original = grad.numpy().copy()
    result, problem = call_learner(clip_hook, grad, what="clip_hook(grad)")
    if problem is not None:
        return problem
    if not np.array_equal(grad.numpy(), original):
        return failed("clip_hook changed its argument in place. A hook must not modify the gradient it receives "
                      "(other hooks and the engine still use it): return a new tensor, e.g. grad.clamp(-1, 1).")
    if result is None:
        return failed("clip_hook returned None, which tells autograd to keep the gradient unchanged. "
                      "Return the clipped gradient.")
    if not isinstance(result, al.Tensor):
        return failed(f"clip_hook should return a Tensor (the new gradient); it returned a {type(result).__name__}.")
    direct = compare_arrays("clip_hook(grad)", result, np.clip(original, -1.0, 1.0),
                            reference="the gradient clamped to [-1, 1]")
    if not direct:
        return direct
    # In a graph: the hook on h changes what flows on to x.
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1.0
    h.register_hook(clip_hook)
    (h * al.tensor([4.0, -0.5, -2.0])).sum().backward()
    in_graph = compare_arrays("x.grad (hook registered on h = x * 1)", x.grad, [1.0, -0.5, -1.0],
                              reference="the clipped gradient [1, -0.5, -1]")
    if not in_graph:
        return in_graph
    return passed("clip_hook clips each element to [-1, 1], and in a graph the clipped gradient is what reaches x.")


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
        return not_answered("a list of the labels, in the order you expect them to fire")
    if isinstance(predicted_order, str) or not hasattr(predicted_order, "__iter__"):
        return failed("Give a list of strings, e.g. ['h hook', ...].")
    predicted = list(predicted_order)
    if not predicted or any(is_placeholder(label) for label in predicted):
        return not_answered("the six labels, in the order you expect them to fire")
    actual: list[str] = []
    order_puzzle(actual)
    unknown = [label for label in predicted if label not in actual]
    if unknown:
        return failed(f"Unknown label(s) {unknown}. Use exactly these: {sorted(actual)}.")
    missing = [label for label in actual if label not in predicted]
    if missing or len(predicted) != len(actual):
        return failed(f"Each of the {len(actual)} labels fires exactly once; your list has {len(predicted)} entries"
                      + (f" and misses {missing}." if missing else "."))
    if predicted == actual:
        return passed("Tensor hooks run before their node's pre-hooks, the node runs, then its post-hooks; a leaf's "
                      "hooks run before its .grad is accumulated, and post-accumulate hooks after.")
    first = next(i for i, (p, a) in enumerate(zip(predicted, actual)) if p != a)
    right = f"The first {first} label(s) are right; at" if first else "At"
    return failed(f"{right} position {first} you wrote {predicted[first]!r} but {actual[first]!r} fires there. "
                  "Backward runs from the loss towards the leaves, and at each tensor: its hooks, then the "
                  "pre-hooks of its grad_fn, the node itself, then the node's post-hooks.")


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
        return not_answered("your sgd_in_backward function")
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
            return failed(f"sgd_in_backward(lr) should return the hook (a function of the parameter); "
                          f"it returned {type(hook).__name__}.")
        param.register_post_accumulate_grad_hook(hook)
    try:
        ((model(x) - target) ** 2).mean().backward()
    except Exception as error:  # noqa: BLE001 - the learner's hook raised inside backward
        return failed(f"backward raised {type(error).__name__} inside your hook: {error}")
    for (name, param), want in zip(model.named_parameters(), expected):
        if np.allclose(param.detach().numpy(), reference.get_parameter(name).detach().numpy()):
            return failed(f"{name} was not updated: the hook should change the parameter in place, e.g. "
                          "param.sub_(lr * param.grad) (hooks run in no-grad mode, so this is allowed on a leaf).")
        result = compare_arrays(f"{name} after backward", param, want, reference="a plain SGD step, param - lr * grad")
        if not result:
            return result
        if param.grad is not None:
            return failed(f"{name} was updated correctly, but {name}.grad is still set. Release it in the hook "
                          "(param.grad = None): that is what frees each gradient as soon as it has been used.")
    return passed("every parameter took its SGD step during backward, and no gradient was kept afterwards.")
