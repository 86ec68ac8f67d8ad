"""Checkers for ``build_it/b1_tensor_and_graph.ipynb``: the learner's tensor records its history as PyTorch's does,
one node per op, edges in ``next_functions``, and one ``AccumulateGrad`` per leaf."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._build import FakeNode, describe, first_problem, make_tensor, missing_class, run
from ._feedback import Feedback, failed, is_placeholder, not_answered, passed


def _edge_problem(edge: Any, what: str) -> str | None:
    if not isinstance(edge, tuple) or len(edge) != 2:
        return f"gradient_edge({what}) returned {describe(edge)}; it should return a pair (node or None, 0)."
    if not isinstance(edge[1], int) or edge[1] != 0:
        return (f"gradient_edge({what}) returned {describe(edge[1])} as the pair's second item; it should be 0 (which output "
                "of the node the tensor is: our ops have one output).")
    return None


def _leaf_problem(node: Any, leaf: Any) -> str | None:
    if node is None:
        return ("gradient_edge(leaf) returned (None, 0) for a leaf that requires grad: its gradient must go to an "
                "AccumulateGrad node, which will add it into leaf.grad.")
    if getattr(node, "variable", None) is not leaf:
        return "gradient_edge(leaf) returned a node whose .variable is not the leaf: make it with AccumulateGrad(t)."
    if tuple(getattr(node, "next_functions", ())) != ():
        return "the AccumulateGrad node should have no next_functions: a leaf's gradient goes nowhere further."
    return None


def ex_b1_1(gradient_edge: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``gradient_edge(t)``: ``(None, 0)`` for a tensor that needs no grad, ``(t.grad_fn, 0)`` for a result, and
    ``(its AccumulateGrad, 0)`` for a leaf that requires grad, the same node every time."""
    if is_placeholder(gradient_edge):
        return not_answered("your gradient_edge function")
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    constant, error = make_tensor(Tensor, [1.0, 2.0])
    leaf, error2 = make_tensor(Tensor, [3.0, 4.0], requires_grad=True)
    result, error3 = make_tensor(Tensor, [5.0, 6.0], requires_grad=True)
    problem = first_problem(error, error2, error3)
    if problem is not None:
        return problem
    maker = FakeNode("MulBackward")
    result.grad_fn = maker
    edges = {}
    for what, t in (("constant", constant), ("leaf", leaf), ("result", result)):
        edges[what], error = run(lambda t=t: gradient_edge(t), what=f"gradient_edge({what})")
        if error is not None:
            return error
        text = _edge_problem(edges[what], what)
        if text:
            return failed(text)
    if edges["constant"][0] is not None:
        return failed("gradient_edge(constant) returned a node for a tensor that does not require grad: no gradient "
                      "is wanted for it, so its edge is (None, 0) and backward will skip it.")
    if edges["result"][0] is not maker:
        return failed("gradient_edge(result) should send the gradient to result.grad_fn, the node that made it; "
                      f"it returned {describe(edges['result'][0])}.")
    text = _leaf_problem(edges["leaf"][0], leaf)
    if text:
        return failed(text)
    again, error = run(lambda: gradient_edge(leaf), what="gradient_edge(leaf), called a second time")
    if error is not None:
        return error
    if again[0] is not edges["leaf"][0]:
        return failed("Called twice on the same leaf, gradient_edge made two AccumulateGrad nodes. A leaf has one: "
                      "keep it on the tensor (t.accumulator) the first time and return it after, so that the "
                      "gradients of every path that reaches the leaf end up in one place.")
    return passed("no node for a constant, grad_fn for a result, and one AccumulateGrad per leaf, kept on the leaf.")


class _Probe:
    """A node for record() to fill in; the checker reads what record set on it."""

    def __init__(self, label: str) -> None:
        self.label = label

    def name(self) -> str:
        return self.label


def _recorded(record: Callable, Tensor: type, inputs: tuple, values: list, saved: dict):  # noqa: N803
    out, error = make_tensor(Tensor, values)
    if error is not None:
        return None, None, error
    node = _Probe("MulBackward")
    returned, error = run(lambda: record(out, node, inputs, **saved), what="record")
    if error is not None:
        return None, None, error
    if returned is not out:
        return None, None, failed("record should return out (the tensor it was given), so that an op can end with "
                                  "return record(...).")
    return out, node, None


def _check_edges(node: Any, inputs: tuple, names: list[str], accumulators: dict) -> str | None:
    edges = getattr(node, "next_functions", None)
    if not isinstance(edges, tuple) or len(edges) != len(inputs):
        return (f"node.next_functions should be a tuple with one (node, 0) edge per input ({len(inputs)} here); "
                f"got {describe(edges)}.")
    for i, ((child, _), t, name) in enumerate(zip(edges, inputs, names)):
        if not t.requires_grad:
            expected = None
        elif t.grad_fn is not None:
            expected = t.grad_fn
        else:
            expected = accumulators.setdefault(id(t), child)
            if getattr(child, "variable", None) is not t:
                return (f"edge {i} should lead to {name}'s AccumulateGrad (gradient_edge({name})); "
                        "next_functions must follow the order of the inputs.")
        if child is not expected:
            return (f"edge {i} ({name}) should be gradient_edge({name}); got ({describe(child)}, ...). next_functions must "
                    "follow the order of the inputs.")
    return None


def ex_b1_2(record: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``record(out, node, inputs, **saved)``: when an input requires grad, ``out`` requires grad too, gets ``node``
    as its ``grad_fn``, ``node.next_functions`` has one edge per input, ``node.shape`` is ``out``'s shape and each
    saved value is kept as ``node._saved_<name>``. Otherwise nothing is recorded. Returns ``out``."""
    if is_placeholder(record):
        return not_answered("your record function")
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    a, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    c, error2 = make_tensor(Tensor, [3.0, 4.0])
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    out, node, error = _recorded(record, Tensor, (a, c), [3.0, 8.0], {"a": a, "b": c})
    if error is not None:
        return error
    if not out.requires_grad:
        return failed("a requires grad, so a * c must too: set out.requires_grad when any input requires grad.")
    if out.grad_fn is not node:
        return failed("out.grad_fn should be the node you were given: that is how out remembers how it was made.")
    accumulators: dict = {}
    text = _check_edges(node, (a, c), ["a", "c"], accumulators)
    if text:
        return failed(text)
    if getattr(node, "shape", None) != out.shape:
        return failed(f"node.shape should be out's shape {out.shape}: backward (notebook b4) checks the gradients that "
                      "arrive at a node against it.")
    for name, value in (("a", a), ("b", c)):
        if getattr(node, "_saved_" + name, None) is not value:
            return failed(f"record(..., {name}=...) should keep that value as node._saved_{name} (PyTorch's naming), "
                          "for the node's backward to read.")
    out2, node2, error = _recorded(record, Tensor, (out, a, a), [0.0, 0.0], {})
    if error is not None:
        return error
    text = _check_edges(node2, (out, a, a), ["out", "a", "a"], accumulators)
    if text:
        return failed(text + " (inputs: a result, then the same leaf twice)")
    out3, node3, error = _recorded(record, Tensor, (c, c), [9.0, 16.0], {"b": c})
    if error is not None:
        return error
    if out3.requires_grad or out3.grad_fn is not None:
        return failed("no input of c * c requires grad, so nothing should be recorded: out.requires_grad stays False "
                      "and out.grad_fn stays None (PyTorch builds no graph for it either).")
    return passed("out requires grad exactly when an input does, and its grad_fn has one edge per input, in order, "
                  "the node's output shape and what backward will need.")
