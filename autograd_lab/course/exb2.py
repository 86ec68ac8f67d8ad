"""Checkers for ``build_it/b2_ops_and_derivatives.ipynb``: each of the learner's nodes turns the gradient of its output
into one gradient per input, checked against autograd_lab's on inputs and upstream gradients that expose a
missing chain-rule factor, a flipped sign, a transposed matrix or a forgotten axis."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..i18n import Catalogued, msg
from ._build import compare_grad, finish, grads_of_node, make_leaves, missing_class, reference_grads, run
from ._feedback import Feedback, failed, passed

_RNG = np.random.default_rng(2023)
A = np.array([[1.5, -2.0, 0.5], [3.0, 1.0, -0.5]])
B = np.array([[2.0, 0.5, -1.5], [1.25, -4.0, 2.5]])
UPSTREAM = np.array([[1.0, -0.5, 2.0], [0.25, 1.5, -1.0]])

# each op's derivative in a sentence, shown under a wrong gradient (the op's label -> its reminder's key)
REMINDERS = Catalogued("exb2.reminder", ("div", "exp", "log", "tanh", "relu", "matmul", "sum"))
REMINDER_OF = {"a / b": "div", "x.exp()": "exp", "x.log()": "log", "x.tanh()": "tanh", "x.relu()": "relu",
               "a @ b": "matmul", "x.sum": "sum"}


def _check_op(Tensor: type, label: str, mine: Callable, reference: Callable, arrays: list[np.ndarray],  # noqa: N803
              names: list[str], upstream: np.ndarray, reminder: str) -> Feedback | None:
    """Runs the learner's op on tensors that require grad, then its node's backward; None when it is right."""
    tensors, error = make_leaves(Tensor, arrays)
    if error is not None:
        return error
    out, error = run(lambda: mine(*tensors), what=label)
    if error is not None:
        return error
    grads, error = grads_of_node(getattr(out, "grad_fn", None), upstream, label)
    if error is not None:
        return failed(msg("exb2.with_reminder", label=label, message=error.message,
                          reminder=REMINDERS[REMINDER_OF[reminder]]))
    expected = reference_grads(reference, arrays, upstream)
    for name, got, want in zip(names, grads, expected):
        result = compare_grad(msg("exb2.gradient_for", label=label, name=name), got, want, upstream)
        if not result:
            return failed(msg("exb2.reminder_after", message=result.message, reminder=REMINDERS[REMINDER_OF[reminder]]))
    return None


def ex_b2_1(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``DivBackward``: the gradients of ``a / b`` for ``a`` and ``b``."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = _check_op(Tensor, "a / b", lambda a, b: a / b, lambda a, b: a / b, [A, B], ["a", "b"], UPSTREAM, "a / b")
    return finish(problem, msg("exb2.div_passed"))


UNARY = [  # (label, the op on either engine, input values)
    ("x.exp()", lambda x: x.exp(), A),
    ("x.log()", lambda x: x.log(), np.abs(A) + 0.25),
    ("x.tanh()", lambda x: x.tanh(), A),
    ("x.relu()", lambda x: x.relu(), A),
]


def ex_b2_2(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``ExpBackward``, ``LogBackward``, ``TanhBackward`` and ``ReluBackward``."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for label, op, values in UNARY:
        problem = _check_op(Tensor, label, op, op, [values], ["x"], UPSTREAM, label)
        if problem is not None:
            return problem
    return passed(msg("exb2.unary_passed"))


def ex_b2_3(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``MatmulBackward``: the gradients of ``a @ b`` for a (2, 3) and a (3, 4) matrix."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    a, b = A, _RNG.normal(size=(3, 4)).round(2)
    upstream = _RNG.normal(size=(2, 4)).round(2)
    problem = _check_op(Tensor, "a @ b", lambda a, b: a @ b, lambda a, b: a @ b, [a, b], ["a", "b"], upstream, "a @ b")
    return finish(problem, msg("exb2.matmul_passed"))


SUMS = [  # (label, keyword arguments of the learner's sum, those of autograd_lab's)
    ("x.sum()", {}, {}),
    ("x.sum(axis=0)", {"axis": 0}, {"dim": 0}),
    ("x.sum(axis=1, keepdims=True)", {"axis": 1, "keepdims": True}, {"dim": 1, "keepdim": True}),
    ("x.sum(axis=1)", {"axis": 1}, {"dim": 1}),
]


def ex_b2_4(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``SumBackward``: the gradient of ``x.sum(axis, keepdims)``, for every axis and both settings of keepdims."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for label, mine, theirs in SUMS:
        reference = (lambda x, kw=theirs: x.sum(**kw))
        upstream = np.asarray(reference_upstream_shape(theirs))
        problem = _check_op(Tensor, label, lambda x, kw=mine: x.sum(**kw), reference, [A], ["x"], upstream, "x.sum")
        if problem is not None:
            return problem
    return passed(msg("exb2.sum_passed"))


def reference_upstream_shape(dims: dict) -> np.ndarray:
    """An upstream gradient of the shape of ``A.sum(**dims)``, with distinct values."""
    axis = dims.get("dim")
    shape = A.sum(axis=axis, keepdims=dims.get("keepdim", False)).shape
    return np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape) * 0.5
