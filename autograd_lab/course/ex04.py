"""Checkers for ``04_saved_tensors.ipynb``: what ops save, and saved-tensor hooks that count and compress."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.graph import saved_tensors_hooks

from ..i18n import msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

# Exercise 1: with x and y two float tensors that require grad, what does each op's node save?
OPS = {"a": "x * y", "b": "x.exp()", "c": "x.sum()", "d": "x.tanh()", "e": "x ** 3", "f": "x + y"}


def saved_tensor_names(node) -> set[str]:
    """The names of the tensors a node saved (``self``, ``other``, ``result``...), from its ``_raw_saved_*`` attributes."""
    return {name[len("_raw_saved_"):] for name in dir(node) if name.startswith("_raw_saved_")}


def _actual() -> dict[str, set[str]]:
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = al.tensor([2.0, -1.0], requires_grad=True)
    return {key: saved_tensor_names(eval(expression, {}, {"x": x, "y": y}).grad_fn)  # noqa: S307
            for key, expression in OPS.items()}


def ex_04_1(answers: dict) -> Feedback:
    """``answers``: op letter -> set of saved tensor names, e.g. {"self"} or set()."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(msg("ex04.names_for_each_op"))
    if not isinstance(answers, dict):
        return failed(msg("ex04.not_a_dict", type=type(answers).__name__))
    lines = []
    for key, expected in _actual().items():
        given = answers.get(key)
        if is_placeholder(given):
            lines.append(msg("ex04.no_answer", key=key, op=OPS[key]))
            continue
        given = {given} if isinstance(given, str) else set(given)
        if given != expected:
            lines.append(msg("ex04.wrong_saves", key=key, op=OPS[key], given=sorted(given), expected=sorted(expected)))
    if lines:
        return failed(msg("ex04.answers_off", wrong=len(lines), total=len(OPS)) + "\n" + "\n".join(lines))
    return passed(msg("ex04.saves_passed"))


def _model_forward() -> tuple[al.nn.Module, Callable[[], al.Tensor]]:
    al.manual_seed(4)
    model = al.nn.Sequential(al.nn.Linear(6, 5), al.nn.Tanh(), al.nn.Linear(5, 3))
    inputs = al.randn(7, 6)
    return model, lambda: (model(inputs) ** 2).sum()


def saved_buffers(forward: Callable) -> list[tuple[int, int]]:
    """Runs ``forward()`` and lists ``(data_ptr, nbytes)`` of every tensor autograd saves for backward, in order."""
    seen = []

    def pack(tensor):
        seen.append((tensor.data_ptr(), tensor.nbytes))
        return tensor

    with saved_tensors_hooks(pack, lambda t: t):
        forward()
    return seen


def ex_04_2(saved_bytes: Callable) -> Feedback:
    """``saved_bytes(forward)``: runs ``forward()`` and returns how many bytes of memory the tensors autograd saved for
    backward hold, each buffer counted once (a tensor saved by two nodes is one buffer)."""
    _, forward = _model_forward()
    seen = saved_buffers(forward)
    expected = sum(dict(sorted(seen, key=lambda pair: pair[1])).values())  # one entry per buffer, its largest size
    every_save = sum(nbytes for _, nbytes in seen)
    got, error = call_learner(saved_bytes, forward, what="saved_bytes")
    if error is not None:
        return error
    if not isinstance(got, (int, np.integer)) or isinstance(got, bool):
        return failed(msg("ex04.not_whole_bytes", type=type(got).__name__))
    if got == expected:
        return passed(msg("ex04.bytes_passed", expected=expected, buffers=len(dict(seen)), saved=len(seen)))
    if got == every_save:
        hint = msg("ex04.hint_counted_twice", saved=len(seen))
    elif got * 4 == expected or got * 4 == every_save:
        hint = msg("ex04.hint_elements")
    elif got == 0:
        hint = msg("ex04.hint_nothing")
    else:
        hint = ""
    return failed(msg("ex04.bytes_wrong", got=got, expected=expected) + hint)


def ex_04_3(pack_hook: Callable, unpack_hook: Callable) -> Feedback:
    """Hooks that keep saved tensors as float16: the packed values are float16 and gradients stay close to exact ones."""
    if is_placeholder(pack_hook) or is_placeholder(unpack_hook):
        return not_answered(msg("ex04.your_hooks"))
    model, forward = _model_forward()
    forward().backward()
    exact = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    model.zero_grad()
    packed_dtypes = []
    original_dtypes = {}

    def spy_pack(tensor):
        packed = pack_hook(tensor)
        if packed is None:
            raise TypeError(msg("ex04.pack_none"))  # feedback to the learner, shown by the except below
        packed_dtypes.append(getattr(packed, "dtype", type(packed).__name__))
        original_dtypes[id(packed)] = tensor.dtype
        return packed

    def checked_unpack(packed):
        tensor = unpack_hook(packed)
        if not isinstance(tensor, al.Tensor):
            raise TypeError(msg("ex04.unpack_not_tensor", type=type(tensor).__name__))
        wanted = original_dtypes.get(id(packed))
        if wanted is not None and tensor.dtype != wanted:
            raise TypeError(msg("ex04.unpack_dtype", dtype=tensor.dtype, wanted=wanted))
        return tensor

    try:
        with saved_tensors_hooks(spy_pack, checked_unpack):
            loss = forward()
        loss.backward()
    except Exception as error:  # noqa: BLE001 - the learner's hooks may raise anything
        return failed(msg("ex04.hooks_raised", type=type(error).__name__, error=error))
    not_half = [str(d) for d in packed_dtypes if d != al.float16]
    if not_half:
        return failed(msg("ex04.not_half", wrong=len(not_half), total=len(packed_dtypes), dtype=not_half[0]))
    for name, p in model.named_parameters():
        if p.grad is None:
            return failed(msg("ex04.grad_none", name=name))
        if p.grad.dtype != al.float32:
            return failed(msg("ex04.grad_dtype", name=name, dtype=p.grad.dtype))
        result = compare_arrays(f"{name}.grad", p.grad, exact[name], rtol=1e-2, atol=1e-3,
                                reference=msg("ex04.exact_within_half"))
        if not result:
            return result
    return passed(msg("ex04.half_passed", saved=len(packed_dtypes)))
