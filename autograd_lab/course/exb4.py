"""Checkers for ``build_it/b4_accumulation_and_broadcasting.ipynb``: ``.grad`` adds up over backward calls without
touching the arrays it is given, and gradients are summed back down to the shape of the input they belong to."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.engine import sum_to as reference_sum_to

from ..i18n import msg
from ._build import compare_grad, describe, first_problem, leaf_grad, make_leaves, make_tensor, missing_class, run
from ._feedback import Feedback, compare_arrays, failed, is_placeholder, not_answered, passed


def _accumulate(node, grad: np.ndarray, what: str) -> Feedback | None:
    returned, error = run(lambda: node.backward(grad), what=what)
    if error is not None:
        if "read-only" in error.message:
            return failed(error.message + "\n" + msg("exb4.hint_read_only"))
        return error
    if returned is None or len(tuple(returned)) != 0:
        return failed(msg("exb4.not_empty", returned=describe(returned)))
    return None


def ex_b4_1(AccumulateGrad: type, Tensor: type) -> Feedback:  # noqa: N803 - the learner's classes
    """``AccumulateGrad.backward(grad)`` adds ``grad`` into the leaf's ``.grad`` (storing a copy the first time) and
    returns ``()``."""
    if is_placeholder(AccumulateGrad):
        return not_answered(msg("exb4.your_accumulate_grad"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    a, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    b, error2 = make_tensor(Tensor, [3.0, 4.0], requires_grad=True)
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    node_a, error = run(lambda: AccumulateGrad(a), what="AccumulateGrad(a)")
    node_b, error2 = run(lambda: AccumulateGrad(b), what="AccumulateGrad(b)")
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    first = np.broadcast_to(np.array([0.5, -1.0]), (2,))  # read-only, like the gradient SumBackward sends
    shared = np.array([0.5, -1.0])  # one array sent to both a and b, as AddBackward sends it
    for node, name, grad in ((node_a, "a", first), (node_b, "b", shared)):
        problem = _accumulate(node, grad, msg("exb4.first_call", name=name))
        if problem is not None:
            return problem
        got = leaf_grad(getattr(node, "variable", None))
        if got is None:
            return failed(msg("exb4.still_none", name=name))
        result = compare_arrays(msg("exb4.after_one", name=name), got, np.array([0.5, -1.0]))
        if not result:
            return result
    second = np.array([2.0, 4.0])
    for node, name in ((node_a, "a"), (node_b, "b")):
        problem = _accumulate(node, second, msg("exb4.second_call", name=name))
        if problem is not None:
            return problem
    if not np.array_equal(shared, [0.5, -1.0]):
        return failed(msg("exb4.aliased", now=shared.tolist()))
    for name, leaf in (("a", a), ("b", b)):
        got = leaf_grad(leaf)
        if got is not None and np.allclose(got, second):
            return failed(msg("exb4.replaced", name=name, got=got.tolist()))
        result = compare_arrays(msg("exb4.after_two", name=name), got, np.array([2.5, 3.0]),
                                reference=msg("exb4.sum_of_both"))
        if not result:
            return result
    return passed(msg("exb4.accumulate_passed"))


SHAPES = [((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((2, 3), ()), ((2, 3), (2, 3)),
          ((3, 1), (3, 1)), ((2, 3, 4), (1, 1, 4))]


def ex_b4_2(sum_to: Callable) -> Feedback:
    """``sum_to(grad, shape)``: ``grad`` summed over the axes that broadcasting added or stretched, so that it has
    ``shape``."""
    if is_placeholder(sum_to):
        return not_answered(msg("feedback.your_named_function", name="sum_to"))
    for big, small in SHAPES:
        grad = np.arange(1.0, 1.0 + np.prod(big)).reshape(big)
        label = msg("ex14.call", grad_shape=big, shape=small)
        got, error = run(lambda grad=grad, small=small: sum_to(grad.copy(), small), what=label)
        if error is not None:
            return error
        if got is None:
            return failed(msg("exb4.sum_to_none", label=label))
        got_shape = np.shape(got)
        if got_shape != small:
            hint = msg("exb4.hint_keepdims") if len(got_shape) != len(small) else msg("exb4.hint_axes_of_one")
            return failed(msg("exb4.sum_to_shape", label=label, got=got_shape, shape=small, hint=hint))
        result = compare_arrays(label, got, reference_sum_to(grad, small), reference=msg("exb4.broadcast_sum"))
        if not result:
            return result
    return passed(msg("exb4.sum_to_passed"))


BROADCASTS = [  # (key of the description, the expression on either engine, the leaves' names and values)
    ("bias", lambda x, w, b: (x * w + b).sum(),
     {"x": np.arange(12.0).reshape(3, 4) / 4, "w": [1.0, -2.0, 0.5, 3.0], "b": [[0.5], [-1.0], [2.0]]}),
    ("scalar", lambda x, w, s: ((x * s).tanh() + w).sum(),
     {"x": [[0.1, -0.2], [0.3, 0.4]], "w": [1.0, 2.0], "s": 0.7}),
]


def ex_b4_3(backward: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``backward`` sums each gradient down to the shape of the node it goes to (``sum_to(grad, child.shape)``)."""
    if is_placeholder(backward):
        return not_answered(msg("feedback.your_named_function", name="backward"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for case, fn, named in BROADCASTS:
        description = msg(f"exb4.case.{case}")
        values = list(named.values())
        leaves, error = make_leaves(Tensor, values)
        if error is not None:
            return error
        out, error = run(lambda fn=fn, leaves=leaves: fn(*leaves), what=description)
        if error is not None:
            return error
        _, error = run(lambda out=out: backward(out), what=msg("build.backward_for", graph=description))
        if error is not None:
            return failed(error.message + "\n" + msg("exb4.hint_broadcast_shape"))
        references = [al.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
        fn(*references).backward()
        for leaf, reference, name in zip(leaves, references, named):
            result = compare_grad(f"{name}.grad", leaf_grad(leaf), reference.grad.numpy())
            if not result:
                return failed(msg("build.for_case", graph=description, message=result.message) + "\n"
                              + msg("exb4.hint_sum_in_loop"))
    return passed(msg("exb4.broadcast_passed"))
