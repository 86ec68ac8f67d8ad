"""Checkers for ``build_it/b4_accumulation_and_broadcasting.ipynb``: ``.grad`` adds up over backward calls without
touching the arrays it is given, and gradients are summed back down to the shape of the input they belong to."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.engine import sum_to as reference_sum_to

from ._build import compare_grad, describe, first_problem, leaf_grad, make_tensor, missing_class, run
from ._feedback import Feedback, compare_arrays, failed, is_placeholder, not_answered, passed


def _accumulate(node, grad: np.ndarray, what: str) -> Feedback | None:
    returned, error = run(lambda: node.backward(grad), what=what)
    if error is not None:
        if "read-only" in error.message:
            return failed(error.message + "\nHint: the first gradient may be a read-only view (np.broadcast_to makes "
                          "one): store a copy, grad.copy(), and add to that.")
        return error
    if returned is None or len(tuple(returned)) != 0:
        return failed(f"AccumulateGrad.backward returned {describe(returned)}; return () (an empty tuple): a leaf sends "
                      "no gradient further, and backward's loop zips this with next_functions, which is ().")
    return None


def ex_b4_1(AccumulateGrad: type, Tensor: type) -> Feedback:  # noqa: N803 - the learner's classes
    """``AccumulateGrad.backward(grad)`` adds ``grad`` into the leaf's ``.grad`` (storing a copy the first time) and
    returns ``()``."""
    if is_placeholder(AccumulateGrad):
        return not_answered("your AccumulateGrad class")
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
        problem = _accumulate(node, grad, f"AccumulateGrad({name}).backward, first call")
        if problem is not None:
            return problem
        got = leaf_grad(getattr(node, "variable", None))
        if got is None:
            return failed(f"{name}.grad is still None after AccumulateGrad({name}).backward(grad): the node's job is to "
                          "put the gradient in its leaf's .grad (self.variable.grad).")
        result = compare_arrays(f"{name}.grad after one backward", got, np.array([0.5, -1.0]))
        if not result:
            return result
    second = np.array([2.0, 4.0])
    for node, name in ((node_a, "a"), (node_b, "b")):
        problem = _accumulate(node, second, f"AccumulateGrad({name}).backward, second call")
        if problem is not None:
            return problem
    if not np.array_equal(shared, [0.5, -1.0]):
        return failed("The second backward changed the array the first one passed in (now "
                      f"{shared.tolist()}): .grad was that very array, and += wrote into it. Other nodes may hold "
                      "the same array (AddBackward sends one array to both inputs): store grad.copy() the first time.")
    for name, leaf in (("a", a), ("b", b)):
        got = leaf_grad(leaf)
        if got is not None and np.allclose(got, second):
            return failed(f"{name}.grad is {got.tolist()} after two backward calls: the second replaced the first. "
                          "PyTorch adds each backward's gradient into .grad (you clear it yourself between steps).")
        result = compare_arrays(f"{name}.grad after two backward calls", got, np.array([2.5, 3.0]),
                                reference="the sum of both gradients")
        if not result:
            return result
    return passed("each backward adds into .grad, and the arrays passed in are never written to.")


SHAPES = [((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((2, 3), ()), ((2, 3), (2, 3)),
          ((3, 1), (3, 1)), ((2, 3, 4), (1, 1, 4))]


def ex_b4_2(sum_to: Callable) -> Feedback:
    """``sum_to(grad, shape)``: ``grad`` summed over the axes that broadcasting added or stretched, so that it has
    ``shape``."""
    if is_placeholder(sum_to):
        return not_answered("your sum_to function")
    for big, small in SHAPES:
        grad = np.arange(1.0, 1.0 + np.prod(big)).reshape(big)
        label = f"sum_to(grad of shape {big}, {small})"
        got, error = run(lambda grad=grad, small=small: sum_to(grad.copy(), small), what=label)
        if error is not None:
            return error
        if got is None:
            return failed(f"{label} returned None: return the summed array.")
        got_shape = np.shape(got)
        if got_shape != small:
            hint = ("keep each axis where shape has a 1 (keepdims=True), and drop only the leading axes that shape "
                    "does not have" if len(got_shape) != len(small) else "sum over the axes where shape has a 1")
            return failed(f"{label} has shape {got_shape}, but should have shape {small}: {hint}.")
        result = compare_arrays(label, got, reference_sum_to(grad, small), reference="the sum over the broadcast axes")
        if not result:
            return result
    return passed("leading axes summed away, stretched axes of size 1 summed with keepdims: every shape comes back.")


BROADCASTS = [  # (description, the expression on either engine, the leaves' names and values)
    ("(x * w + b).sum() with x (3, 4), w (4,), b (3, 1)", lambda x, w, b: (x * w + b).sum(),
     {"x": np.arange(12.0).reshape(3, 4) / 4, "w": [1.0, -2.0, 0.5, 3.0], "b": [[0.5], [-1.0], [2.0]]}),
    ("((x * s).tanh() + w).sum() with x (2, 2), w (2,), s ()", lambda x, w, s: ((x * s).tanh() + w).sum(),
     {"x": [[0.1, -0.2], [0.3, 0.4]], "w": [1.0, 2.0], "s": 0.7}),
]


def ex_b4_3(backward: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``backward`` sums each gradient down to the shape of the node it goes to (``sum_to(grad, child.shape)``)."""
    if is_placeholder(backward):
        return not_answered("your backward function")
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for description, fn, named in BROADCASTS:
        values = list(named.values())
        leaves = []
        for value in values:
            leaf, error = make_tensor(Tensor, value, requires_grad=True)
            if error is not None:
                return error
            leaves.append(leaf)
        out, error = run(lambda fn=fn, leaves=leaves: fn(*leaves), what=description)
        if error is not None:
            return error
        _, error = run(lambda out=out: backward(out), what=f"backward, for {description}")
        if error is not None:
            return failed(error.message + "\nHint: an op broadcast its inputs, so the gradients its node returns have "
                          "the broadcast shape; sum_to(grad, child.shape) before adding them up.")
        references = [al.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
        fn(*references).backward()
        for leaf, reference, name in zip(leaves, references, named):
            result = compare_grad(f"{name}.grad", leaf_grad(leaf), reference.grad.numpy())
            if not result:
                return failed(f"For {description}: {result.message}\nHint: every gradient must have the shape of the "
                              "tensor it belongs to: sum_to(grad, child.shape) in backward's loop, before adding it.")
    return passed("broadcast inputs get their gradients summed back to their own shapes, in one place: backward.")
