"""Checkers for ``07_inplace_and_versions.ipynb``: version counters shared by views, repairing a function that
trips the in-place correctness check, and which in-place programs raise (and why)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import join, msg
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
        return not_answered(msg("ex07.versions_dict"))
    actual = version_puzzle()
    if any(is_placeholder(predicted.get(name)) for name in actual):
        return not_answered(msg("ex07.number_for_each", names=join(repr(name) for name in actual)))
    not_ints = [name for name in actual if isinstance(predicted[name], bool) or not isinstance(predicted[name], int)]
    if not_ints:
        return failed(msg("ex07.whole_numbers", shown=join(f"{name}={predicted[name]!r}" for name in not_ints)))
    wrong = [name for name in actual if predicted.get(name) != actual[name]]
    if not wrong:
        return passed(msg("ex07.versions_passed"))
    lines = [msg("feedback.n_wrong", wrong=len(wrong), total=len(actual))]
    for name in wrong:
        lines.append(msg("ex07.version", name=name, given=repr(predicted.get(name)), actual=actual[name]))
    if "row" in wrong or "base" in wrong:
        lines.append(msg("ex07.hint_view"))
    if "copy" in wrong:
        lines.append(msg("ex07.hint_clone"))
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
        return not_answered(msg("ex07.your_fixed"))
    values = al.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], dtype=al.float64)
    x_ref = values.clone().requires_grad_()
    expected = _reference(x_ref)
    expected.backward()
    x = values.clone().requires_grad_()
    out, problem = call_learner(fixed, x, what="fixed(x)")
    if problem is not None:
        return problem
    if out is None:
        return failed(msg("ex07.fixed_none"))
    if not isinstance(out, al.Tensor) or out.numel() != 1:
        return failed(msg("ex07.fixed_not_scalar"))
    value = compare_arrays("fixed(x)", out.reshape(()), expected.detach(), reference=msg("ex07.buggy_value"))
    if not value:
        return value
    if not out.requires_grad:
        return failed(msg("ex07.fixed_no_grad_fn"))
    try:
        out.backward()
    except RuntimeError as error:
        return failed(msg("ex07.still_raises", error=str(error).splitlines()[0]))
    if not np.array_equal(x.detach().numpy(), values.numpy()):
        return failed(msg("ex07.changed_x"))
    grad = compare_arrays("x.grad", x.grad, x_ref.grad, reference=msg("ex07.gradient_of_sum"))
    if not grad:
        return grad
    return passed(msg("ex07.fixed_passed"))


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
        return not_answered(msg("ex07.bools_dict"))
    unanswered = [name for name in SNIPPETS if is_placeholder(answers.get(name))]
    if unanswered:
        return not_answered(msg("ex07.true_or_false_for", names=join(unanswered)))
    not_bools = [name for name in SNIPPETS if not isinstance(answers[name], bool)]
    if not_bools:
        return failed(msg("ex07.quoted", shown=join(f"{name}={answers[name]!r}" for name in not_bools)))
    lines = []
    for name, snippet in SNIPPETS.items():
        message = _raises(snippet)
        if answers[name] and message is None:
            lines.append(msg("ex07.runs", name=name))
        elif not answers[name] and message is not None:
            lines.append(msg("ex07.raises", name=name, error=message))
    if not lines:
        return passed(msg("ex07.raises_passed"))
    return failed(msg("feedback.n_wrong", wrong=len(lines), total=len(SNIPPETS)) + "\n" + "\n".join(lines) + "\n"
                  + msg("ex07.hint_saved"))
