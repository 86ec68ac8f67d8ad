"""What every exercise checker shares: a ``Feedback`` result and comparisons that say what is wrong.

A checker returns a :class:`Feedback`; its text is what the notebook shows (and what nbval compares), so
messages are plain, deterministic text: no addresses, no timings. ``bool(feedback)`` says whether it passed. Every
sentence comes from the message catalogue (:mod:`autograd_lab.i18n`), in the language in use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..i18n import msg

__all__ = ["Feedback", "passed", "failed", "not_answered", "is_placeholder", "as_array", "as_number",
           "compare_arrays", "call_learner", "MAX_LISTED"]

MAX_LISTED = 6  # wrong elements listed before "... and N more"


class Feedback:
    """The outcome of a check: passed or not, with a message for the learner."""

    __slots__ = ("ok", "message")

    def __init__(self, ok: bool, message: str) -> None:
        self.ok = bool(ok)
        self.message = message

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        mark = msg("feedback.correct") if self.ok else msg("feedback.not_yet")
        return msg("feedback.shown", mark=mark, message=self.message) if self.message else mark

    __str__ = __repr__


def passed(message: str = "") -> Feedback:
    """A passed check; ``message`` says what the answer shows (it is printed after ``Correct!``)."""
    return Feedback(True, message)


def failed(message: str) -> Feedback:
    """A failed check; ``message`` says what is wrong and how to fix it (printed after ``Not yet.``)."""
    return Feedback(False, message)


def is_placeholder(answer: Any) -> bool:
    """``...`` (and ``None``) is how an exercise cell marks the answer still to write."""
    return answer is Ellipsis or answer is None


def not_answered(what: str) -> Feedback:
    """The feedback for an answer still ``...``: asks for ``what`` ("your function", "a number for each...")."""
    return failed(msg("feedback.replace_placeholder", what=what))


def as_array(value: Any) -> np.ndarray:
    """A learner's value (an autograd_lab tensor, a NumPy array, a number, a list, a torch tensor) as an array."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # autograd_lab or torch tensors
        value = value.detach().numpy()
    return np.asarray(value, dtype=np.float64)


def as_number(value: Any) -> float:
    """A learner's one-element value as a float. A tensor is detached first: a checker's ``float()`` of a loss
    that requires grad would show the learner PyTorch's "Converting a tensor with requires_grad=True to a
    scalar" warning about code they did not write. ``TypeError``/``ValueError`` for what is not a number."""
    return float(value.detach() if hasattr(value, "detach") else value)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def compare_arrays(name: str, got: Any, expected: Any, *, rtol: float = 1e-4, atol: float = 1e-6,
                   labels: list[str] | None = None, reference: str | None = None) -> Feedback:
    """Compares a learner's ``got`` with ``expected`` element by element, naming the wrong elements.

    The message lists the index (or ``labels[flat index]``, e.g. ``"at x=0.5"``), the learner's value and the
    expected one for the first few wrong elements, so that a learner sees *where* their formula goes wrong.
    ``reference`` names where the expected values come from ("autograd", "the worked-out gradient"...): say it, so
    that the message does not claim a source the values did not come from.
    """
    reference = msg("feedback.expected_values") if reference is None else reference
    if is_placeholder(got):
        return failed(msg("feedback.replace_value", name=name))
    try:
        got_a = as_array(got)
    except (TypeError, ValueError) as error:
        return failed(msg("feedback.not_numbers", name=name, type=type(got).__name__, error=error))
    exp_a = as_array(expected)
    if got_a.shape != exp_a.shape:
        return failed(msg("feedback.shape", name=name, got=tuple(got_a.shape), expected=tuple(exp_a.shape)))
    if not np.all(np.isfinite(got_a)) and np.all(np.isfinite(exp_a)):
        bad = np.argwhere(~np.isfinite(got_a))
        return failed(msg("feedback.not_finite", name=name, where=_indices(bad, got_a.ndim)))
    wrong = ~np.isclose(got_a, exp_a, rtol=rtol, atol=atol)
    if not wrong.any():
        return passed(msg("feedback.matches", name=name, reference=reference))
    idx = np.argwhere(wrong)
    lines = [msg("feedback.differ", name=name, wrong=len(idx), size=got_a.size, reference=reference)]
    for i in idx[:MAX_LISTED]:
        key = tuple(int(k) for k in i)
        where = f"[{', '.join(map(str, key))}]" if key else ""
        if labels is not None:
            where = f" {labels[int(np.ravel_multi_index(key, got_a.shape)) if key else 0]}"
        lines.append(msg("feedback.element", name=name, where=where, got=_fmt(got_a[key]), expected=_fmt(exp_a[key])))
    if len(idx) > MAX_LISTED:
        lines.append(msg("feedback.more_elements", count=len(idx) - MAX_LISTED))
    hint = _pattern_hint(got_a, exp_a)
    if hint:
        lines.append(hint)
    return failed("\n".join(lines))


def _indices(idx: np.ndarray, ndim: int) -> str:
    shown = ", ".join("[" + ", ".join(str(int(k)) for k in i) + "]" if ndim else msg("feedback.the_value")
                      for i in idx[:MAX_LISTED])
    return shown + (msg("feedback.and_more", count=len(idx) - MAX_LISTED) if len(idx) > MAX_LISTED else "")


def _pattern_hint(got: np.ndarray, expected: np.ndarray) -> str:
    """A one-line guess at a common slip: a flipped sign, a constant factor, a transpose."""
    if np.allclose(got, -expected, rtol=1e-4, atol=1e-6):
        return msg("feedback.hint_sign")
    nonzero = np.abs(expected) > 1e-12
    if got.size > 1 and nonzero.any() and np.all(np.abs(got[~nonzero]) <= 1e-9):
        ratio = got[nonzero] / expected[nonzero]
        if np.allclose(ratio, ratio.flat[0], rtol=1e-4) and not np.isclose(ratio.flat[0], 1.0):
            return msg("feedback.hint_factor", factor=_fmt(float(ratio.flat[0])))
    if got.ndim == 2 and got.shape[0] == got.shape[1] and np.allclose(got, expected.T, rtol=1e-4, atol=1e-6):
        return msg("feedback.hint_transpose")
    return ""


def call_learner(fn: Callable, *args: Any, what: str | None = None) -> tuple[Any, Feedback | None]:
    """Calls a learner's function; an exception becomes feedback naming it instead of a traceback."""
    what = msg("feedback.your_function") if what is None else what
    if is_placeholder(fn):
        return None, not_answered(what)
    if not callable(fn):
        return None, failed(msg("feedback.not_callable", what=what, type=type(fn).__name__))
    try:
        return fn(*args), None
    except Exception as error:  # noqa: BLE001 - any learner error becomes feedback
        return None, failed(msg("feedback.raised", what=what, type=type(error).__name__, error=error))
