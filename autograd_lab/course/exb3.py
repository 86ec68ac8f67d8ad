"""Checkers for ``build_it/b3_topological_order_and_backward.ipynb``: an order in which every node runs after all the
nodes that send it gradients, and a backward pass that adds the gradients meeting at a node before running it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import join, msg
from ._build import FakeNode, compare_grad, finish, first_failure, leaf_grad, make_leaves, make_tensor, missing_class, run
from ._feedback import Feedback, failed, is_placeholder, not_answered, passed

DEEP = 5000  # nodes in the chain that a recursive walk cannot get through
SCALAR_MESSAGE = "grad can be implicitly created only for scalar outputs"  # PyTorch's words, in every language


def _graphs() -> list[tuple[str, FakeNode]]:
    """Graphs of fake nodes: a chain, a shared input, a node found early by one path and late by another, a deep chain."""
    x, w = FakeNode("AccumulateGrad(x)"), FakeNode("AccumulateGrad(w)")
    mul = FakeNode("MulBackward", x, w)
    add = FakeNode("AddBackward", mul, x)
    uses_twice = FakeNode("SumBackward", add)
    exp = FakeNode("ExpBackward", FakeNode("MulBackward", x, w))
    square = FakeNode("MulBackward(h * h)", exp, exp)
    late = FakeNode("SumBackward", FakeNode("AddBackward", square, exp))
    skip_x, skip_y = FakeNode("AccumulateGrad(p)"), None
    relu = FakeNode("ReluBackward", skip_x)
    skip = FakeNode("AddBackward", relu, FakeNode("TanhBackward", FakeNode("MulBackward", relu, skip_y)))
    chain = FakeNode("AccumulateGrad(deep)")
    for i in range(DEEP):
        chain = FakeNode(f"TanhBackward #{DEEP - i}", chain)
    return [("(x * w + x).sum()", uses_twice), (msg("feedback.graph_shared_h"), late),
            (msg("exb3.graph_skip"), skip), (msg("exb3.graph_chain", deep=DEEP), chain)]


def _reachable(root: FakeNode) -> list[FakeNode]:
    seen, stack, found = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return found


def _order_problem(order: list, root: FakeNode, description: str) -> str | None:
    expected = _reachable(root)
    ids = [id(node) for node in order]
    twice = sorted({node.name() for node in order if ids.count(id(node)) > 1}) if len(set(ids)) < len(ids) else []
    if twice:
        return msg("exb3.twice", graph=description, names=join(twice))
    listed = set(ids)
    missing = [node.name() for node in expected if id(node) not in listed]
    extra = len(listed - {id(node) for node in expected})
    if missing or extra:
        return msg("exb3.missing", graph=description, missing=len(missing), names=join(missing[:4]), extra=extra)
    position = {id(node): i for i, node in enumerate(order)}
    for node in order:
        for child, _ in node.next_functions:
            if child is not None and position[id(child)] < position[id(node)]:
                return msg("exb3.too_early", graph=description, child=child.name(), node=node.name())
    return None


def ex_b3_1(topological_order: Callable) -> Feedback:
    """``topological_order(root)``: every node reachable from ``root``, once each, each after every node that sends
    it a gradient, found without recursion."""
    if is_placeholder(topological_order):
        return not_answered(msg("feedback.your_named_function", name="topological_order"))
    for description, root in _graphs():
        order, error = run(lambda root=root: topological_order(root),
                           what=msg("exb3.order_for", graph=description))
        if error is not None:
            return error
        if not isinstance(order, (list, tuple)):
            return failed(msg("exb3.not_a_list", type=type(order).__name__))
        problem = _order_problem(list(order), root, description)
        if problem:
            return failed(problem)
    return passed(msg("exb3.order_passed", deep=DEEP))


CASES = [  # (key of the description, the expression on either engine, leaves' values (no broadcasting: B4),
    #          backward's gradient)
    ("two_paths", lambda x, w: (x * w + x).sum(), [[1.0, 2.0], [3.0, -1.0]], None),
    ("with_gradient", lambda x, w: x * w, [[1.5, -0.5], [2.0, 0.5]], [1.0, -2.0]),
    ("on_a_leaf", lambda x, w: x, [[1.0, 2.0], [1.0, 1.0]], [0.5, 1.0]),
]


def _expected(fn: Callable, values: list, gradient) -> list[np.ndarray]:
    leaves = [al.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    out = fn(*leaves)
    out.backward(None if gradient is None else al.tensor(np.asarray(gradient, dtype=np.float64)))
    return [leaf.grad.numpy() if leaf.grad is not None else None for leaf in leaves]


class _Counted:
    """Stands in for one of the learner's nodes in their graph, counting how often backward runs it."""

    def __init__(self, node) -> None:
        self.node, self.calls = node, 0

    def name(self) -> str:
        return self.node.name()

    @property
    def next_functions(self):
        return self.node.next_functions

    @property
    def shape(self):
        return self.node.shape

    def backward(self, grad):
        self.calls += 1
        return self.node.backward(grad)


def _fan_in(Tensor: type, backward: Callable) -> Feedback | None:  # noqa: N803
    """z = (h * h + h).sum() with one h: the gradients from three uses of h are added before ExpBackward runs."""
    x, error = make_tensor(Tensor, [0.5, -0.25], requires_grad=True)
    if error is not None:
        return error
    h, error = run(lambda: (x * 2.0).exp(), what="(x * 2.0).exp()")
    if error is not None:
        return error
    counted = h.grad_fn = _Counted(h.grad_fn)  # the nodes made from h below lead to it
    z, error = run(lambda: (h * h + h).sum(), what="(h * h + h).sum()")
    if error is not None:
        return error
    _, error = run(lambda: backward(z), what="backward(z)")
    if error is not None:
        return error
    values = np.array([0.5, -0.25])
    expected = 2 * (2 * np.exp(4 * values) + np.exp(2 * values))
    result = compare_grad("x.grad", leaf_grad(x), expected)
    if not result:
        return failed(msg("exb3.fan_in_wrong", message=result.message))
    if counted.calls != 1:
        return failed(msg("exb3.fan_in_calls", calls=counted.calls))
    return None


def _scalar_only(Tensor: type, backward: Callable) -> Feedback | None:  # noqa: N803
    x, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    if error is not None:
        return error
    y, error = run(lambda: x * 3.0, what="x * 3.0")
    if error is not None:
        return error
    try:
        backward(y)
    except RuntimeError as raised:
        if SCALAR_MESSAGE in str(raised):
            return None
        return failed(msg("exb3.scalar_other_message", error=raised, phrase=SCALAR_MESSAGE))
    except Exception as raised:  # noqa: BLE001 - any learner error becomes feedback
        return failed(msg("exb3.scalar_raised", type=type(raised).__name__, error=raised))
    return failed(msg("exb3.scalar_ran", phrase=SCALAR_MESSAGE))


def ex_b3_2(backward: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``backward(tensor, gradient=None)``: every node behind ``tensor`` runs once, in topological order, with the sum
    of the gradients sent to it; the leaves' ``.grad`` match autograd_lab's."""
    if is_placeholder(backward):
        return not_answered(msg("feedback.your_named_function", name="backward"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    for case, fn, values, gradient in CASES:
        description = msg(f"exb3.case.{case}")
        leaves, error = make_leaves(Tensor, values)
        if error is not None:
            return error
        out, error = run(lambda fn=fn, leaves=leaves: fn(*leaves), what=description)
        if error is not None:
            return error
        seed = None if gradient is None else np.asarray(gradient, dtype=np.float64)
        _, error = run(lambda out=out, seed=seed: backward(out, seed), what=msg("build.backward_for", graph=description),
                       hint=msg("exb3.hint_leaf") if case == "on_a_leaf" else "")
        if error is not None:
            return error
        for name, leaf, want in zip(["x", "w"], leaves, _expected(fn, values, gradient)):
            if want is None:
                continue
            result = compare_grad(f"{name}.grad", leaf_grad(leaf), want)
            if not result:
                two_paths = case == "two_paths" and name == "x" and leaf_grad(leaf) is not None
                hint = "\n" + msg("exb3.hint_two_paths") if two_paths else ""
                return failed(msg("build.for_case", graph=description, message=result.message) + hint)
    problem = first_failure(lambda: _fan_in(Tensor, backward), lambda: _scalar_only(Tensor, backward))
    return finish(problem, msg("exb3.backward_passed"))
