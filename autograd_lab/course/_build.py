"""What the checkers of the build-your-own track (``notebooks/build_it/``) share.

The learner's engine is NumPy code in their notebook: a ``Tensor`` class whose operators call op functions
(``add``, ``mul``...), nodes with ``name()``, ``next_functions`` and ``backward(grad)``, and the functions the
notebooks build (``gradient_edge``, ``record``, ``topological_order``, ``backward``...). The checkers run that
code on small cases chosen to expose the usual mistakes and compare with autograd_lab, which serves as the
reference: every expected gradient below is autograd_lab's, in float64. Messages come from the catalogue
(:mod:`autograd_lab.i18n`, keys ``build.*``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import autograd_lab as al

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["FakeNode", "make_tensor", "run", "reference_grads", "grads_of_node", "compare_grad", "leaf_grad",
           "missing_class", "first_problem", "first_failure", "finish", "describe"]


def describe(value: Any) -> str:
    """A learner's value in a message, without object addresses: a node by its name(), a tuple item by item."""
    if isinstance(value, tuple):
        return "(" + ", ".join(describe(item) for item in value) + ("," if len(value) == 1 else "") + ")"
    name = getattr(value, "name", None)
    if callable(name) and not isinstance(value, type):
        try:
            return f"<{name()}>"
        except Exception:  # noqa: BLE001 - a broken name() still gets described
            pass
    text = repr(value)
    return text if " at 0x" not in text and len(text) <= 60 else msg("build.a_value_of_type", type=type(value).__name__)


def first_problem(*problems: Feedback | None) -> Feedback | None:
    """The first of ``problems`` that is not None. (A failed Feedback is falsy, so ``a or b`` would skip it.)"""
    return next((problem for problem in problems if problem is not None), None)


def first_failure(*checks: Callable[[], Feedback | None]) -> Feedback | None:
    """Runs ``checks`` in order (each returns None when all is well) and returns the first feedback."""
    for check in checks:
        problem = check()
        if problem is not None:
            return problem
    return None


def finish(problem: Feedback | None, message: str) -> Feedback:
    """``problem`` if there is one, otherwise a pass with ``message``."""
    return problem if problem is not None else passed(message)


class FakeNode:
    """A node with PyTorch's introspection only (``name()``, ``next_functions``), for graph-walking exercises."""

    def __init__(self, label: str, *inputs: FakeNode | None) -> None:
        self.label = label
        self.next_functions = tuple((node, 0) for node in inputs)

    def name(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return self.label


def missing_class(Tensor: Any) -> Feedback | None:  # noqa: N803 - the learner's class, named as in the notebook
    """Feedback when the learner's ``Tensor`` class was not passed (or is not a class)."""
    if is_placeholder(Tensor):
        return not_answered(msg("build.your_tensor_class"))
    if not isinstance(Tensor, type):
        return failed(msg("build.not_a_class", type=type(Tensor).__name__))
    return None


def make_tensor(Tensor: type, values: Any, requires_grad: bool = False) -> tuple[Any, Feedback | None]:  # noqa: N803
    """``Tensor(values, requires_grad=...)`` with the learner's class; an exception becomes feedback."""
    return call_learner(lambda: Tensor(np.array(values, dtype=np.float64), requires_grad=requires_grad),
                        what="Tensor(...)")


def make_leaves(Tensor: type, values: Sequence[Any]) -> tuple[list, Feedback | None]:  # noqa: N803
    """One tensor that requires grad per entry of ``values``, with the learner's class (the first exception becomes
    feedback)."""
    leaves = []
    for value in values:
        leaf, error = make_tensor(Tensor, value, requires_grad=True)
        if error is not None:
            return [], error
        leaves.append(leaf)
    return leaves, None


def run(fn: Callable[[], Any], what: str, hint: str = "") -> tuple[Any, Feedback | None]:
    """Runs ``fn()``; an exception becomes feedback naming ``what`` (with a hint for the usual causes)."""
    result, error = call_learner(fn, what=what)
    if error is not None:
        text = error.message
        if "_saved_" in text and isinstance(text, str) and "attribute" in text:
            text += "\n" + msg("build.hint_saved_name")
        elif "RecursionError" in text or "recursion" in text:
            text += "\n" + msg("build.hint_recursion")
        if hint:
            text += "\n" + hint
        return None, failed(text)
    return result, None


def reference_grads(fn: Callable[..., al.Tensor], arrays: Sequence[np.ndarray],
                    upstream: np.ndarray | None = None) -> list[np.ndarray]:
    """autograd_lab's gradients of ``fn(*tensors)`` (times ``upstream``, or summed) for each array, in float64."""
    tensors = [al.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(*tensors)
    seed = al.tensor(upstream) if upstream is not None else al.ones_like(out)
    return [g.numpy() for g in al.autograd.grad(out, tensors, grad_outputs=seed)]


def grads_of_node(node: Any, grad: np.ndarray, label: str) -> tuple[tuple | None, Feedback | None]:
    """Calls the learner's ``node.backward(grad)``: one gradient per input, as a tuple, or feedback."""
    if node is None:
        return None, failed(msg("build.no_grad_fn", label=label))
    edges = getattr(node, "next_functions", ())
    grads, error = run(lambda: node.backward(grad.copy()), what=f"{node.name()}.backward")
    if error is not None:
        return None, error
    if grads is None:
        return None, failed(msg("build.backward_none", node=node.name(), inputs=len(edges)))
    if isinstance(grads, np.ndarray) or not isinstance(grads, (tuple, list)):
        return None, failed(msg("build.backward_not_tuple", node=node.name(), type=type(grads).__name__))
    if len(grads) != len(edges):
        return None, failed(msg("build.backward_count", node=node.name(), grads=len(grads), inputs=len(edges)))
    return tuple(grads), None


def compare_grad(name: str, got: Any, expected: np.ndarray, upstream: np.ndarray | None = None) -> Feedback:
    """``compare_arrays`` against autograd_lab, with a hint when the upstream gradient was left out."""
    if got is None:
        return failed(msg("build.grad_none", name=name, expected=np.round(expected, 4).tolist()))
    result = compare_arrays(name, got, expected, reference="autograd_lab", rtol=1e-6, atol=1e-9)
    if result or upstream is None or got is None:
        return result
    try:
        got_a = np.asarray(got, dtype=np.float64)
        if got_a.shape == expected.shape and np.allclose(got_a * upstream, expected, rtol=1e-6, atol=1e-9):
            return failed(result.message + "\n" + msg("build.hint_upstream"))
    except (TypeError, ValueError):
        pass
    return result


def leaf_grad(tensor: Any) -> np.ndarray | None:
    """A learner leaf's ``.grad`` as an array (None when it has none)."""
    grad = getattr(tensor, "grad", None)
    return None if grad is None else np.asarray(grad, dtype=np.float64)
