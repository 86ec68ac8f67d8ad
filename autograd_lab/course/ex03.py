"""Checkers for ``03_how_history_is_encoded.ipynb``: walking the ``grad_fn`` DAG through ``next_functions``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import autograd_lab as al

from ..i18n import msg
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
        (msg("feedback.graph_shared_h"), (h * h + h).sum(), [x, w]),
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
            return failed(msg("ex03.not_a_dict", type=type(got).__name__))
        expected = _reference_counts(root)
        wrong = sorted(set(expected) | set(got), key=str)
        wrong = [name for name in wrong if got.get(name, 0) != expected.get(name, 0)]
        if wrong:
            lines = [msg("ex03.for_graph", graph=description)]
            lines += [msg("ex03.count", name=name, got=got.get(name, 0), expected=expected.get(name, 0)) for name in wrong]
            if any(got.get(name, 0) > expected.get(name, 0) for name in wrong):
                lines.append(msg("ex03.hint_visited"))
            return failed("\n".join(lines))
    return passed(msg("ex03.count_passed"))


def ex_03_2(leaves_reached: Callable) -> Feedback:
    """``leaves_reached(tensor)``: the leaf tensors whose ``.grad`` a backward from ``tensor`` fills (via AccumulateGrad)."""
    for description, root, expected in _graphs():
        got, error = call_learner(leaves_reached, root, what="leaves_reached")
        if error is not None:
            return error
        try:
            got_ids = {id(t) for t in got}
        except TypeError:
            return failed(msg("ex03.not_a_list", type=type(got).__name__))
        if any(not isinstance(t, al.Tensor) for t in got):
            return failed(msg("ex03.not_tensors"))
        expected_ids = {id(t) for t in expected}
        if got_ids != expected_ids:
            extra, missing = len(got_ids - expected_ids), len(expected_ids - got_ids)
            return failed(msg("ex03.leaves_wrong", graph=description, missing=missing, extra=extra))
    return passed(msg("ex03.leaves_passed"))
