"""Checkers for ``build_it/b5_version_counter.ipynb``: an in-place change bumps the tensor's version and takes over the
new history, a leaf that requires grad refuses it, and a node refuses to use a saved tensor changed since it saved it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..i18n import msg
from ._build import compare_grad, describe, finish, first_failure, first_problem, leaf_grad, make_tensor, missing_class, run
from ._feedback import Feedback, compare_arrays, failed, is_placeholder, not_answered

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VERSION_MESSAGE = "modified by an inplace operation"


def _commit_constant(commit: Callable, Tensor: type) -> Feedback | None:  # noqa: N803
    c, error = make_tensor(Tensor, [1.0, 2.0, 3.0])
    if error is not None:
        return error
    array, version = c.data, c._version
    result, error = run(lambda: c + 1.0, what="c + 1.0")
    if error is not None:
        return error
    returned, error = run(lambda: commit(c, result), what="commit(c, c + 1.0)")
    if error is not None:
        return error
    if returned is not c:
        return failed(msg("exb5.return_t"))
    if c.data is not array:
        return failed(msg("exb5.new_array"))
    result_check = compare_arrays(msg("exb5.c_after_commit"), c.data, np.array([2.0, 3.0, 4.0]))
    if not result_check:
        return result_check
    if c._version != version + 1:
        return failed(msg("exb5.version_step", before=version, after=c._version))
    return None


def _commit_leaf(commit: Callable, Tensor: type) -> Feedback | None:  # noqa: N803
    w, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    if error is not None:
        return error
    result, error = run(lambda: w + 1.0, what="w + 1.0")
    if error is not None:
        return error
    try:
        commit(w, result)
    except RuntimeError as raised:
        if LEAF_MESSAGE in str(raised):
            return None
        return failed(msg("exb5.leaf_other_message", error=raised, phrase=LEAF_MESSAGE))
    except Exception as raised:  # noqa: BLE001 - any learner error becomes feedback
        return failed(msg("exb5.leaf_raised", type=type(raised).__name__, error=raised))
    return failed(msg("exb5.leaf_changed", phrase=LEAF_MESSAGE))


def _commit_history(commit: Callable, Tensor: type) -> Feedback | None:  # noqa: N803
    x, error = make_tensor(Tensor, [0.5, 1.0], requires_grad=True)
    if error is not None:
        return error
    z, error = run(lambda: x * 2.0, what="x * 2.0")
    if error is not None:
        return error
    before = z.grad_fn
    result, error = run(lambda: z + x, what="z + x")
    if error is not None:
        return error
    _, error = run(lambda: commit(z, result), what="commit(z, z + x)")
    if error is not None:
        return error
    if z.grad_fn is before or z.grad_fn is not result.grad_fn:
        return failed(msg("exb5.new_history"))
    if not z.requires_grad:
        return failed(msg("exb5.requires_grad_after"))
    return None


def ex_b5_1(commit: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``commit(t, result)``: writes ``result``'s values into ``t``'s own array, adds 1 to ``t._version``, gives ``t``
    the history of ``result``, and refuses a leaf that requires grad."""
    if is_placeholder(commit):
        return not_answered(msg("feedback.your_named_function", name="commit"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = first_failure(lambda: _commit_constant(commit, Tensor), lambda: _commit_leaf(commit, Tensor),
                            lambda: _commit_history(commit, Tensor))
    return finish(problem, msg("exb5.commit_passed"))


class _Holder:
    """A node that saved one tensor and one setting, as record() leaves them."""

    def __init__(self, tensor: Any, version: int) -> None:
        self._saved_b = tensor
        self._saved_axis = 1
        self.saved_versions = {"b": version}

    def name(self) -> str:
        return "MulBackward"


def _direct(saved: Callable, Tensor: type) -> Feedback | None:  # noqa: N803
    c, error = make_tensor(Tensor, [3.0, 4.0])
    if error is not None:
        return error
    node = _Holder(c, c._version)
    value, error = run(lambda: saved(node, "b"), what=msg("exb5.before_change"))
    if error is not None:
        return error
    if not isinstance(value, np.ndarray) or value is not c.data:
        return failed(msg("exb5.not_the_array", type=type(value).__name__))
    setting, error = run(lambda: saved(node, "axis"), what="saved(node, 'axis')")
    if error is not None:
        return error
    if setting != 1:
        return failed(msg("exb5.setting", got=describe(setting)))
    return None


def _stale(Tensor: type) -> Feedback | None:  # noqa: N803
    x, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    c, error2 = make_tensor(Tensor, [3.0, 4.0])
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    y, error = run(lambda: (x * c).sum(), what="(x * c).sum()")
    if error is not None:
        return error
    _, error = run(lambda: c.mul_(10.0), what="c.mul_(10.0)")
    if error is not None:
        return error
    try:
        y.backward()
    except RuntimeError as raised:
        text = str(raised)
        if VERSION_MESSAGE not in text:
            return failed(msg("exb5.other_message", error=text))
        if "version 1" not in text or "version 0" not in text:
            return failed(msg("exb5.both_versions", error=text))
        return None
    except Exception as raised:  # noqa: BLE001 - any learner error becomes feedback
        return failed(msg("feedback.backward_raised", type=type(raised).__name__, error=raised))
    got = leaf_grad(x)
    return failed(msg("exb5.unchecked", got=None if got is None else got.tolist()))


def _unaffected(Tensor: type) -> Feedback | None:  # noqa: N803
    """Changing a tensor that no node saved is fine (add saves nothing), as in PyTorch."""
    x, error = make_tensor(Tensor, [1.0, 2.0], requires_grad=True)
    c, error2 = make_tensor(Tensor, [3.0, 4.0])
    problem = first_problem(error, error2)
    if problem is not None:
        return problem
    y, error = run(lambda: (x * 2.0 + c).sum(), what="(x * 2.0 + c).sum()")
    if error is not None:
        return error
    _, error = run(lambda: c.add_(1.0), what="c.add_(1.0)")
    if error is not None:
        return error
    _, error = run(lambda: y.backward(), what=msg("exb5.after_unsaved_change"))
    if error is not None:
        return failed(error.message + "\n" + msg("exb5.hint_unsaved"))
    result = compare_grad("x.grad", leaf_grad(x), np.array([2.0, 2.0]))
    return None if result else result


def ex_b5_2(saved: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``saved(node, name)``: the saved tensor's array, or an error when its version moved since it was saved."""
    if is_placeholder(saved):
        return not_answered(msg("feedback.your_named_function", name="saved"))
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = first_failure(lambda: _direct(saved, Tensor), lambda: _stale(Tensor), lambda: _unaffected(Tensor))
    return finish(problem, msg("exb5.saved_passed"))
