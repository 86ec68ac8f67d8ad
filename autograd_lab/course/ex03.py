"""Checkers for ``03_how_history_is_encoded.ipynb``: walking the ``grad_fn`` DAG through ``next_functions``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import autograd_lab as al

from ._feedback import Feedback, call_learner, failed, passed


def _graphs() -> list[tuple[str, al.Tensor, list[al.Tensor]]]:
    """Test graphs: a chain, a shared subexpression (a DAG, not a tree), a leaf used twice, a frozen input."""
    x = al.tensor([1.0, 2.0], requires_grad=True)
    w = al.tensor(3.0, requires_grad=True)
    b = al.tensor(0.5, requires_grad=True)
    c = al.tensor([4.0, 5.0])  # needs no grad
    h = (x * w).exp()
    return [
        ("((x * w).sin()).sum()", (x * w).sin().sum(), [x, w]),
        ("(h * h + h).sum() with h = (x * w).exp()", (h * h + h).sum(), [x, w]),
        ("(x * x * c).sum() + b", (x * x * c).sum() + b, [x, b]),
    ]


def _reference_counts(root: al.Tensor) -> Counter:
    counts: Counter = Counter()
    seen, stack = set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        counts[node.name()] += 1
        stack.extend(next_node for next_node, _ in node.next_functions)
    return counts


def ex_03_1(count_nodes: Callable) -> Feedback:
    """``count_nodes(tensor)``: {node name: how many distinct nodes of that name} in the graph behind ``tensor``."""
    for description, root, _ in _graphs():
        got, error = call_learner(count_nodes, root, what="count_nodes")
        if error is not None:
            return error
        if not isinstance(got, dict):
            return failed(f"count_nodes should return a dict of node name -> count; got {type(got).__name__}")
        expected = _reference_counts(root)
        wrong = sorted(set(expected) | set(got), key=str)
        wrong = [name for name in wrong if got.get(name, 0) != expected.get(name, 0)]
        if wrong:
            lines = [f"For {description}:"]
            lines += [f"  {name}: yours {got.get(name, 0)}, expected {expected.get(name, 0)}" for name in wrong]
            if any(got.get(name, 0) > expected.get(name, 0) for name in wrong):
                lines.append("Hint: a node reached along two paths is one node; remember the nodes you have visited.")
            return failed("\n".join(lines))
    return passed("Your walk counts each node once, shared subexpressions and leaves used twice included.")


def ex_03_2(leaves_reached: Callable) -> Feedback:
    """``leaves_reached(tensor)``: the leaf tensors whose ``.grad`` a backward from ``tensor`` fills (via AccumulateGrad)."""
    for description, root, expected in _graphs():
        got, error = call_learner(leaves_reached, root, what="leaves_reached")
        if error is not None:
            return error
        try:
            got_ids = {id(t) for t in got}
        except TypeError:
            return failed(f"leaves_reached should return a list (or set) of tensors; got {type(got).__name__}")
        if any(not isinstance(t, al.Tensor) for t in got):
            return failed("leaves_reached should return tensors: AccumulateGrad's .variable, not the node itself.")
        expected_ids = {id(t) for t in expected}
        if got_ids != expected_ids:
            extra, missing = len(got_ids - expected_ids), len(expected_ids - got_ids)
            return failed(f"For {description}: {missing} leaf(s) missing and {extra} extra. Every leaf that requires "
                          "grad has an AccumulateGrad node; a tensor that needs no grad has no node at all.")
    return passed("The leaves are exactly the .variable of the AccumulateGrad nodes.")
