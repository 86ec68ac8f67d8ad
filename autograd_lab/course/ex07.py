"""Checkers for ``07_inplace_and_versions.ipynb``: version counters shared by views, repairing a function that
trips the in-place correctness check, and which in-place programs raise (and why)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_07_1", "ex_07_2", "ex_07_3", "version_puzzle", "buggy", "SNIPPETS"]


# -- exercise 1: predict version counters -------------------------------------------------------------
def version_puzzle() -> dict[str, int]:
    """The program of exercise 1; returns each tensor's ``_version`` at the end."""
    base = al.zeros(6)
    row = base[2:4]  # a view of base
    base.add_(1)
    row.mul_(2)
    copy = base.clone()
    copy.zero_()
    base[0] = 5.0
    return {"base": base._version, "row": row._version, "copy": copy._version}


def ex_07_1(predicted: dict) -> Feedback:
    """``predicted`` maps 'base', 'row' and 'copy' to their ``_version`` after :func:`version_puzzle`."""
    if is_placeholder(predicted) or not isinstance(predicted, dict):
        return not_answered("a dict such as {'base': 0, 'row': 0, 'copy': 0}")
    actual = version_puzzle()
    if any(is_placeholder(predicted.get(name)) for name in actual):
        return not_answered("a number for each of " + ", ".join(repr(name) for name in actual))
    not_ints = [name for name in actual if isinstance(predicted[name], bool) or not isinstance(predicted[name], int)]
    if not_ints:
        return failed("Give each version as a whole number without quotes: "
                      + ", ".join(f"{name}={predicted[name]!r}" for name in not_ints) + ".")
    wrong = [name for name in actual if predicted.get(name) != actual[name]]
    if not wrong:
        return passed("a view shares its base's counter (every in-place op on either bumps both), a clone starts "
                      "its own at 0, and an assignment like base[0] = 5.0 is an in-place op too.")
    lines = [f"{len(wrong)} of {len(actual)} wrong:"]
    for name in wrong:
        lines.append(f"  {name}: yours {predicted.get(name)!r}, actually {actual[name]}")
    if "row" in wrong or "base" in wrong:
        lines.append("Hint: row is a view of base, so they count the same in-place ops. Count add_, mul_ and the "
                     "item assignment.")
    if "copy" in wrong:
        lines.append("Hint: clone() makes new memory with a new counter starting at 0.")
    return failed("\n".join(lines))


# -- exercise 2: repair a function that modifies a saved tensor ----------------------------------------
def buggy(x: al.Tensor) -> al.Tensor:
    """Sum of ``2 * sigmoid(x) * x``, written with an in-place op that breaks backward."""
    s = x.sigmoid()
    s.mul_(2)  # sigmoid saved its output s for backward: this overwrites it
    return (s * x).sum()


def _reference(x: al.Tensor) -> al.Tensor:
    return (x.sigmoid() * 2 * x).sum()


def ex_07_2(fixed: Callable) -> Feedback:
    """``fixed(x)`` computes the same value as :func:`buggy` and backward through it works."""
    if is_placeholder(fixed):
        return not_answered("your fixed function")
    values = al.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], dtype=al.float64)
    x_ref = values.clone().requires_grad_()
    expected = _reference(x_ref)
    expected.backward()
    x = values.clone().requires_grad_()
    out, problem = call_learner(fixed, x, what="fixed(x)")
    if problem is not None:
        return problem
    if out is None:
        return failed("fixed(x) returned None: write its body so that it returns the sum, like buggy(x) does.")
    if not isinstance(out, al.Tensor) or out.numel() != 1:
        return failed("fixed(x) should return a single-element tensor (the sum), like buggy(x).")
    value = compare_arrays("fixed(x)", out.reshape(()), expected.detach(), reference="buggy(x)'s value")
    if not value:
        return value
    if not out.requires_grad:
        return failed("fixed(x) returns the right number but has no grad_fn: don't detach, and don't use no_grad.")
    try:
        out.backward()
    except RuntimeError as error:
        return failed("backward through fixed(x) still raises:\n" + str(error).splitlines()[0] +
                      "\nReplace the in-place op with its out-of-place form (s = s * 2), or clone before changing it.")
    if not np.array_equal(x.detach().numpy(), values.numpy()):
        return failed("fixed(x) changed its input x in place; it should leave x alone.")
    grad = compare_arrays("x.grad", x.grad, x_ref.grad, reference="the gradient of sum(2 * sigmoid(x) * x)")
    if not grad:
        return grad
    return passed("same value as buggy(x), and backward now works: x.grad matches.")


# -- exercise 3: which of these raise? ------------------------------------------------------------------
def _leaf_in_place() -> None:
    w = al.ones(3, requires_grad=True)
    w.add_(1)


def _leaf_in_place_no_grad() -> None:
    w = al.ones(3, requires_grad=True)
    with al.no_grad():
        w.add_(1)


def _exp_then_in_place() -> None:
    a = al.ones(3, requires_grad=True)
    y = a.exp()
    y.add_(1)
    y.sum().backward()


def _add_then_in_place() -> None:
    a = al.ones(3, requires_grad=True)
    y = a + 1
    y.mul_(2)
    y.sum().backward()


def _write_into_view_of_saved() -> None:
    a = al.ones(3, requires_grad=True)
    b = a * 1
    c = b.sin()
    b[0] = 0.0
    c.sum().backward()


SNIPPETS: dict[str, Callable[[], None]] = {
    "leaf_in_place": _leaf_in_place,
    "leaf_in_place_no_grad": _leaf_in_place_no_grad,
    "exp_then_in_place": _exp_then_in_place,
    "add_then_in_place": _add_then_in_place,
    "write_into_view_of_saved": _write_into_view_of_saved,
}


def _raises(snippet: Callable[[], None]) -> str | None:
    try:
        snippet()
    except RuntimeError as error:
        return str(error).splitlines()[0]
    return None


def ex_07_3(answers: dict) -> Feedback:
    """``answers`` maps each name in :data:`SNIPPETS` to True (it raises) or False (it runs)."""
    if is_placeholder(answers) or not isinstance(answers, dict):
        return not_answered("a dict of True/False, one per snippet")
    unanswered = [name for name in SNIPPETS if is_placeholder(answers.get(name))]
    if unanswered:
        return not_answered("True or False for " + ", ".join(unanswered))
    not_bools = [name for name in SNIPPETS if not isinstance(answers[name], bool)]
    if not_bools:
        return failed("Answer each with True or False, written without quotes: "
                      + ", ".join(f"{name}={answers[name]!r}" for name in not_bools)
                      + " (a string such as 'False' is not the boolean False).")
    lines = []
    for name, snippet in SNIPPETS.items():
        message = _raises(snippet)
        if answers[name] and message is None:
            lines.append(f"  {name}: runs without error (you said it raises).")
        elif not answers[name] and message is not None:
            lines.append(f"  {name}: raises (you said it runs): {message}")
    if not lines:
        return passed("in-place ops are refused on leaves that require grad (unless under no_grad), and backward "
                      "refuses a tensor that was changed after a node saved it, also through a view.")
    return failed(f"{len(lines)} of {len(SNIPPETS)} wrong:\n" + "\n".join(lines) +
                  "\nHint: ask of each op whether it saved the tensor that is later changed (exp saves its result, "
                  "add saves nothing, sin saves its input).")
