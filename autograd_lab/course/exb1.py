"""Checkers for ``build_it/b1_tensor_and_graph.ipynb``: the learner's tensor records its history as PyTorch's does,
one node per op, edges in ``next_functions``, and one ``AccumulateGrad`` per leaf."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..i18n import msg
from ._build import FakeNode, describe, first_problem, make_tensor, missing_class, run
from ._feedback import Feedback, failed, is_placeholder, not_answered, passed


def _edge_problem(edge: Any, what: str) -> str | None:
    if not isinstance(edge, tuple) or len(edge) != 2:
        return msg("exb1.not_a_pair", what=what, edge=describe(edge))
    if not isinstance(edge[1], int) or edge[1] != 0:
        return msg("exb1.second_item", what=what, item=describe(edge[1]))
    return None


def _leaf_problem(node: Any, leaf: Any) -> str | None:
    if node is None:
        return msg("exb1.leaf_none")
    if getattr(node, "variable", None) is not leaf:
        return msg("exb1.leaf_variable")
    if tuple(getattr(node, "next_functions", ())) != ():
        return msg("exb1.leaf_next")
    return None


def ex_b1_1(gradient_edge: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``gradient_edge(t)``: ``(None, 0)`` for a tensor that needs no grad, ``(t.grad_fn, 0)`` for a result, and
    ``(its AccumulateGrad, 0)`` for a leaf that requires grad, the same node every time."""
    if is_placeholder(gradient_edge):
        return not_answered(msg("feedback.your_named_function", name="gradient_edge"))
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
        return failed(msg("exb1.constant_node"))
    if edges["result"][0] is not maker:
        return failed(msg("exb1.result_node", node=describe(edges["result"][0])))
    text = _leaf_problem(edges["leaf"][0], leaf)
    if text:
        return failed(text)
    again, error = run(lambda: gradient_edge(leaf), what=msg("exb1.second_call"))
    if error is not None:
        return error
    if again[0] is not edges["leaf"][0]:
        return failed(msg("exb1.two_accumulators"))
    return passed(msg("exb1.edge_passed"))


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
        return None, None, failed(msg("exb1.return_out"))
    return out, node, None


def _check_edges(node: Any, inputs: tuple, names: list[str], accumulators: dict) -> str | None:
    edges = getattr(node, "next_functions", None)
    if not isinstance(edges, tuple) or len(edges) != len(inputs):
        return msg("exb1.edges_tuple", inputs=len(inputs), edges=describe(edges))
    for i, ((child, _), t, name) in enumerate(zip(edges, inputs, names)):
        if not t.requires_grad:
            expected = None
        elif t.grad_fn is not None:
            expected = t.grad_fn
        else:
            expected = accumulators.setdefault(id(t), child)
            if getattr(child, "variable", None) is not t:
                return msg("exb1.edge_to_accumulator", i=i, name=name)
        if child is not expected:
            return msg("exb1.edge_wrong", i=i, name=name, child=describe(child))
    return None


def ex_b1_2(record: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``record(out, node, inputs, **saved)``: when an input requires grad, ``out`` requires grad too, gets ``node``
    as its ``grad_fn``, ``node.next_functions`` has one edge per input, ``node.shape`` is ``out``'s shape and each
    saved value is kept as ``node._saved_<name>``. Otherwise nothing is recorded. Returns ``out``."""
    if is_placeholder(record):
        return not_answered(msg("feedback.your_named_function", name="record"))
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
        return failed(msg("exb1.out_requires_grad"))
    if out.grad_fn is not node:
        return failed(msg("exb1.out_grad_fn"))
    accumulators: dict = {}
    text = _check_edges(node, (a, c), ["a", "c"], accumulators)
    if text:
        return failed(text)
    if getattr(node, "shape", None) != out.shape:
        return failed(msg("exb1.node_shape", shape=out.shape))
    for name, value in (("a", a), ("b", c)):
        if getattr(node, "_saved_" + name, None) is not value:
            return failed(msg("exb1.saved_name", name=name))
    out2, node2, error = _recorded(record, Tensor, (out, a, a), [0.0, 0.0], {})
    if error is not None:
        return error
    text = _check_edges(node2, (out, a, a), ["out", "a", "a"], accumulators)
    if text:
        return failed(text + msg("exb1.inputs_result_leaf_twice"))
    out3, node3, error = _recorded(record, Tensor, (c, c), [9.0, 16.0], {"b": c})
    if error is not None:
        return error
    if out3.requires_grad or out3.grad_fn is not None:
        return failed(msg("exb1.nothing_recorded"))
    return passed(msg("exb1.record_passed"))
