"""Checkers for ``build_it/b2_ops_and_derivatives.ipynb``: each of the learner's nodes turns the gradient of its output
into one gradient per input, checked against autograd_lab's on inputs and upstream gradients that expose a
missing chain-rule factor, a flipped sign, a transposed matrix or a forgotten axis."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._build import compare_grad, finish, grads_of_node, make_tensor, missing_class, reference_grads, run
from ._feedback import Feedback, failed, passed

_RNG = np.random.default_rng(2023)
A = np.array([[1.5, -2.0, 0.5], [3.0, 1.0, -0.5]])
B = np.array([[2.0, 0.5, -1.5], [1.25, -4.0, 2.5]])
UPSTREAM = np.array([[1.0, -0.5, 2.0], [0.25, 1.5, -1.0]])

REMINDERS = {
    "a / b": "d(a/b)/da = 1/b and d(a/b)/db = -a/b², each times grad.",
    "x.exp()": "d exp(x)/dx = exp(x): the node saved it as result, no need to compute it again.",
    "x.log()": "d log(x)/dx = 1/x.",
    "x.tanh()": "d tanh(x)/dx = 1 - tanh(x)²: the node saved tanh(x) as result.",
    "x.relu()": "d relu(x)/dx is 1 where x > 0 and 0 elsewhere: a mask, result > 0 (the node saved result).",
    "a @ b": "for a: grad @ b.T, for b: a.T @ grad. Each gradient has the shape of its input.",
    "x.sum": ("each element of x adds once into its sum, so it receives that sum's gradient: put the summed axis "
              "back (np.expand_dims, when keepdims=False), then np.broadcast_to(grad, x's shape)."),
}


def _check_op(Tensor: type, label: str, mine: Callable, reference: Callable, arrays: list[np.ndarray],  # noqa: N803
              names: list[str], upstream: np.ndarray, reminder: str) -> Feedback | None:
    """Runs the learner's op on tensors that require grad, then its node's backward; None when it is right."""
    tensors = []
    for array in arrays:
        t, error = make_tensor(Tensor, array, requires_grad=True)
        if error is not None:
            return error
        tensors.append(t)
    out, error = run(lambda: mine(*tensors), what=label)
    if error is not None:
        return error
    grads, error = grads_of_node(getattr(out, "grad_fn", None), upstream, label)
    if error is not None:
        return failed(f"{label}: {error.message}\nReminder: {REMINDERS[reminder]}")
    expected = reference_grads(reference, arrays, upstream)
    for name, got, want in zip(names, grads, expected):
        result = compare_grad(f"{label}, gradient for {name}", got, want, upstream)
        if not result:
            return failed(f"{result.message}\nReminder: {REMINDERS[reminder]}")
    return None


def ex_b2_1(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``DivBackward``: the gradients of ``a / b`` for ``a`` and ``b``."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = _check_op(Tensor, "a / b", lambda a, b: a / b, lambda a, b: a / b, [A, B], ["a", "b"], UPSTREAM, "a / b")
    return finish(problem, "DivBackward sends grad / b to a and -grad * a / b² to b.")


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
    return passed("exp, log, tanh and relu: each local derivative, times grad. exp and tanh reuse their saved result.")


def ex_b2_3(Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``MatmulBackward``: the gradients of ``a @ b`` for a (2, 3) and a (3, 4) matrix."""
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    a, b = A, _RNG.normal(size=(3, 4)).round(2)
    upstream = _RNG.normal(size=(2, 4)).round(2)
    problem = _check_op(Tensor, "a @ b", lambda a, b: a @ b, lambda a, b: a @ b, [a, b], ["a", "b"], upstream, "a @ b")
    return finish(problem, "grad @ b.T for a and a.T @ grad for b: the only products whose shapes fit.")


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
    return passed("the gradient of a sum is spread back over every element that was summed, for any axis.")


def reference_upstream_shape(dims: dict) -> np.ndarray:
    """An upstream gradient of the shape of ``A.sum(**dims)``, with distinct values."""
    axis = dims.get("dim")
    shape = A.sum(axis=axis, keepdims=dims.get("keepdim", False)).shape
    return np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape) * 0.5
