"""Checkers for ``build_it/b5_version_counter.ipynb``: an in-place change bumps the tensor's version and takes over the
new history, a leaf that requires grad refuses it, and a node refuses to use a saved tensor changed since it saved it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

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
        return failed("commit(t, result) should return t itself (as PyTorch's in-place ops return self).")
    if c.data is not array:
        return failed("After commit, c.data is a new array. In place means the same memory: write into it with "
                      "t.data[...] = result.data, so that every reference to that array sees the new values.")
    result_check = compare_arrays("c after commit(c, c + 1.0)", c.data, np.array([2.0, 3.0, 4.0]))
    if not result_check:
        return result_check
    if c._version != version + 1:
        return failed(f"c._version went from {version} to {c._version}; an in-place change adds exactly 1. Nodes that "
                      "saved c compare this number with the one they saw when saving it.")
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
        return failed(f"commit on a leaf that requires grad raised RuntimeError: {raised}; use PyTorch's message: "
                      f"'{LEAF_MESSAGE}'")
    except Exception as raised:  # noqa: BLE001 - any learner error becomes feedback
        return failed(f"commit on a leaf that requires grad raised {type(raised).__name__}: {raised}")
    return failed("commit(w, w + 1.0) changed w, a leaf that requires grad. Refuse it, as PyTorch does, with "
                  f"RuntimeError('{LEAF_MESSAGE}'): its .grad would be for values it no longer has.")


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
        return failed("After z += x (commit(z, z + x)), z.grad_fn should be the new AddBackward (result.grad_fn): z's "
                      "values now come from the addition, so its history must end with it.")
    if not z.requires_grad:
        return failed("After commit, z should require grad exactly when result does (t.requires_grad = "
                      "result.requires_grad).")
    return None


def ex_b5_1(commit: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``commit(t, result)``: writes ``result``'s values into ``t``'s own array, adds 1 to ``t._version``, gives ``t``
    the history of ``result``, and refuses a leaf that requires grad."""
    if is_placeholder(commit):
        return not_answered("your commit function")
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = first_failure(lambda: _commit_constant(commit, Tensor), lambda: _commit_leaf(commit, Tensor),
                            lambda: _commit_history(commit, Tensor))
    return finish(problem, "same array, version + 1, the new history, and leaves that require grad refused.")


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
    value, error = run(lambda: saved(node, "b"), what="saved(node, 'b') before any change")
    if error is not None:
        return error
    if not isinstance(value, np.ndarray) or value is not c.data:
        return failed("saved(node, name) should return the saved tensor's array (its .data): the formulas compute "
                      f"on arrays. Got {type(value).__name__}.")
    setting, error = run(lambda: saved(node, "axis"), what="saved(node, 'axis')")
    if error is not None:
        return error
    if setting != 1:
        return failed(f"saved(node, 'axis') should return the saved setting as it is (1); got {describe(setting)}. Only "
                      "tensors have a version.")
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
            return failed(f"backward raised RuntimeError: {text}\nUse PyTorch's words, 'one of the variables needed "
                          "for gradient computation has been modified by an inplace operation', then say which.")
        if "version 1" not in text or "version 0" not in text:
            return failed(f"The message should give both versions, as PyTorch's does ('... is at version 1; expected "
                          f"version 0 instead.'); yours: {text}")
        return None
    except Exception as raised:  # noqa: BLE001 - any learner error becomes feedback
        return failed(f"backward raised {type(raised).__name__}: {raised}")
    got = leaf_grad(x)
    return failed(f"MulBackward saved c at version 0, then c.mul_(10.0) made it version 1, and backward still ran: "
                  f"x.grad = {None if got is None else got.tolist()}, computed from the new c, instead of [3.0, 4.0]. "
                  "Compare node.saved_versions[name] with the tensor's _version in saved(), and raise when they "
                  "differ.")


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
    _, error = run(lambda: y.backward(), what="y.backward() after changing c, which no node saved")
    if error is not None:
        return failed(error.message + "\nHint: only the tensors a node saved matter; c went into an addition, which "
                      "saves nothing, so this backward is correct and must run.")
    result = compare_grad("x.grad", leaf_grad(x), np.array([2.0, 2.0]))
    return None if result else result


def ex_b5_2(saved: Callable, Tensor: type) -> Feedback:  # noqa: N803 - the learner's class
    """``saved(node, name)``: the saved tensor's array, or an error when its version moved since it was saved."""
    if is_placeholder(saved):
        return not_answered("your saved function")
    problem = missing_class(Tensor)
    if problem is not None:
        return problem
    problem = first_failure(lambda: _direct(saved, Tensor), lambda: _stale(Tensor), lambda: _unaffected(Tensor))
    return finish(problem, "a saved tensor changed in place is refused with PyTorch's error; an unchanged one, or a changed "
                  "tensor that nobody saved, is fine.")
