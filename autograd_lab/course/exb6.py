"""Checkers for ``build_it/b6_train_a_net.ipynb``: the learner's engine runs an MLP, its cross-entropy and an SGD step,
with gradients equal to autograd_lab's."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._build import compare_grad, first_problem, leaf_grad, make_tensor, missing_class, run
from ._feedback import Feedback, compare_arrays, failed, is_placeholder, not_answered, passed

_RNG = np.random.default_rng(6)
SHAPES = {"W1": (4, 3), "b1": (3,), "W2": (3, 2), "b2": (2,)}
VALUES = {name: _RNG.normal(size=shape).round(3) for name, shape in SHAPES.items()}
X = _RNG.normal(size=(5, 4)).round(3)
UPSTREAM = _RNG.normal(size=(5, 2)).round(3)


def _reference_mlp(params: dict, x: al.Tensor) -> al.Tensor:
    return (x @ params["W1"] + params["b1"]).tanh() @ params["W2"] + params["b2"]


def _learner_params(Tensor: type) -> tuple[dict, Feedback | None]:  # noqa: N803
    params = {}
    for name, values in VALUES.items():
        params[name], error = make_tensor(Tensor, values, requires_grad=True)
        if error is not None:
            return {}, error
    return params, None


def ex_b6_1(mlp: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``mlp(params, x)``: ``tanh(x @ W1 + b1) @ W2 + b2`` with the learner's engine; its output and the gradients of
    every parameter equal autograd_lab's."""
    if is_placeholder(mlp):
        return not_answered(msg("feedback.your_named_function", name="mlp"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    params, error = _learner_params(Tensor)
    x, error2 = make_tensor(Tensor, X)
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    logits, error = run(lambda: mlp(params, x), what="mlp(params, x)")
    if error is not None:
        return error
    reference = {name: al.tensor(values, requires_grad=True) for name, values in VALUES.items()}
    expected = _reference_mlp(reference, al.tensor(X))
    result = compare_arrays("mlp(params, x)", getattr(logits, "data", logits), expected.detach().numpy(),
                            reference="autograd_lab", rtol=1e-6, atol=1e-9)
    if not result:
        return failed(result.message + "\n" + msg("exb6.the_network"))
    _, error = run(lambda: (logits * Tensor(UPSTREAM)).sum().backward(), what=msg("exb6.backward_through", what="mlp"))
    if error is not None:
        return error
    (expected * al.tensor(UPSTREAM)).sum().backward()
    for name, tensor in params.items():
        result = compare_grad(f"{name}.grad", leaf_grad(tensor), reference[name].grad.numpy())
        if not result:
            return result
    return passed(msg("exb6.mlp_passed"))


TARGETS = np.array([0, 2, 1, 2])
LOGITS = np.array([[1.0, -0.5, 0.25], [0.5, 2.0, -1.0], [-0.25, 0.75, 1.5], [2.0, 1.0, 0.0]])


def _cross_entropy_case(cross_entropy: Callable, Tensor: type, logits_values: np.ndarray,  # noqa: N803
                        label: str) -> Feedback | None:
    logits, error = make_tensor(Tensor, logits_values, requires_grad=True)
    if error is not None:
        return error
    loss, error = run(lambda: cross_entropy(logits, TARGETS), what=f"cross_entropy({label}, targets)")
    if error is not None:
        return error
    if loss is None or not hasattr(loss, "backward"):
        return failed(msg("exb6.loss_type", label=label, type=type(loss).__name__))
    reference = al.tensor(logits_values, requires_grad=True)
    expected = al.nn.functional.cross_entropy(reference, al.tensor(TARGETS))
    expected.backward()
    value = np.asarray(getattr(loss, "data", loss), dtype=np.float64)
    result = compare_arrays(f"cross_entropy({label}, targets)", value, expected.item(), reference="autograd_lab")
    if not result:
        if np.all(np.isfinite(value)) and np.allclose(value, expected.item() * len(TARGETS)):
            result = failed(result.message + "\n" + msg("exb6.hint_mean"))
        if not np.all(np.isfinite(value)):
            result = failed(result.message + "\n" + msg("exb6.hint_overflow"))
        return result
    _, error = run(lambda: loss.backward(), what=msg("exb6.backward_through", what=f"cross_entropy({label}, targets)"))
    if error is not None:
        return error
    result = compare_grad(f"logits.grad ({label})", leaf_grad(logits), reference.grad.numpy())
    return None if result else result


def ex_b6_2(cross_entropy: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``cross_entropy(logits, targets)``: the mean of ``-log softmax(logits)[i, targets[i]]``, computed without
    overflow; its value and its gradient equal autograd_lab's."""
    if is_placeholder(cross_entropy):
        return not_answered(msg("feedback.your_named_function", name="cross_entropy"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for values, label in ((LOGITS, "logits"), (LOGITS * 400.0, msg("exb6.large_logits"))):
        problem = _cross_entropy_case(cross_entropy, Tensor, values, label)
        if problem is not None:
            return problem
    return passed(msg("exb6.cross_entropy_passed"))


def ex_b6_3(sgd_step: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``sgd_step(params, lr)``: each parameter moves by ``-lr * grad`` and its ``.grad`` is cleared."""
    if is_placeholder(sgd_step):
        return not_answered(msg("feedback.your_named_function", name="sgd_step"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    params, error = _learner_params(Tensor)
    if error is not None:
        return error
    grads = {name: np.full(SHAPES[name], 0.5) * (i + 1) for i, name in enumerate(SHAPES)}
    for name, tensor in params.items():
        tensor.grad = grads[name].copy()
    _, error = run(lambda: sgd_step(params, 0.1), what="sgd_step(params, 0.1)")
    if error is not None:
        if "in-place" in error.message:
            return failed(error.message + "\n" + msg("exb6.hint_commit_refuses"))
        return error
    if all(np.array_equal(tensor.data, VALUES[name]) for name, tensor in params.items()):
        return failed(msg("exb6.unchanged"))
    if all(np.allclose(tensor.data, VALUES[name] + 0.1 * grads[name]) for name, tensor in params.items()):
        return failed(msg("exb6.uphill"))
    for name, tensor in params.items():
        result = compare_arrays(msg("exb6.after_step", name=name), tensor.data, VALUES[name] - 0.1 * grads[name],
                                reference="p - lr * p.grad")
        if not result:
            return result
        if tensor.grad is not None:
            return failed(msg("exb6.grad_kept", name=name))
    return passed(msg("exb6.sgd_passed"))
