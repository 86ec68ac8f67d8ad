"""Checkers for ``04_saved_tensors.ipynb``: what ops save, and saved-tensor hooks that count and compress."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al
from autograd_lab.autograd.graph import saved_tensors_hooks

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
        return not_answered("a set of names for each op (e.g. {'self', 'other'}, or set() for none)")
    if not isinstance(answers, dict):
        return failed(f"answers should be a dict of sets; got {type(answers).__name__}")
    lines = []
    for key, expected in _actual().items():
        given = answers.get(key)
        if is_placeholder(given):
            lines.append(f"  {key} = {OPS[key]}: no answer yet")
            continue
        given = {given} if isinstance(given, str) else set(given)
        if given != expected:
            lines.append(f"  {key} = {OPS[key]}: you said {sorted(given)}, it saves {sorted(expected)}")
    if lines:
        return failed(f"{len(lines)} of {len(OPS)} answers are off:\n" + "\n".join(lines))
    return passed("Each node saves exactly what its derivative formula reads, and nothing more.")


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
        return failed(f"saved_bytes should return a whole number of bytes; got {type(got).__name__}")
    if got == expected:
        return passed(f"{expected} bytes in {len(dict(seen))} buffers, although autograd saved {len(seen)} tensors: "
                      "the tanh output is saved by Tanh (its result) and by the next Linear (its input).")
    if got == every_save:
        hint = (f" Yours adds up all {len(seen)} saved tensors, but the tanh output is saved twice (by Tanh and by the "
                "next Linear) and is one buffer in memory: count each data_ptr() once.")
    elif got * 4 == expected or got * 4 == every_save:
        hint = " Yours is a quarter of it: count bytes (tensor.nbytes), not elements (each float32 is 4 bytes)."
    elif got == 0:
        hint = " Nothing was counted: run forward() inside `with saved_tensors_hooks(pack, unpack):`."
    else:
        hint = ""
    return failed(f"yours is {got} bytes; the buffers autograd kept hold {expected}.{hint}")


def ex_04_3(pack_hook: Callable, unpack_hook: Callable) -> Feedback:
    """Hooks that keep saved tensors as float16: the packed values are float16 and gradients stay close to exact ones."""
    if is_placeholder(pack_hook) or is_placeholder(unpack_hook):
        return not_answered("your pack and unpack functions")
    model, forward = _model_forward()
    forward().backward()
    exact = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    model.zero_grad()
    packed_dtypes = []
    original_dtypes = {}

    def spy_pack(tensor):
        packed = pack_hook(tensor)
        if packed is None:
            raise TypeError("pack_hook returned None: return what should be kept (the float16 tensor)")
        packed_dtypes.append(getattr(packed, "dtype", type(packed).__name__))
        original_dtypes[id(packed)] = tensor.dtype
        return packed

    def checked_unpack(packed):
        tensor = unpack_hook(packed)
        if not isinstance(tensor, al.Tensor):
            raise TypeError(f"unpack_hook must return a Tensor, got {type(tensor).__name__}")
        wanted = original_dtypes.get(id(packed))
        if wanted is not None and tensor.dtype != wanted:
            raise TypeError(f"unpack_hook returned a tensor of dtype {tensor.dtype} for one saved as {wanted}: give "
                            "back the dtype that was saved (.to(al.float32)), or the backward formulas mix dtypes")
        return tensor

    try:
        with saved_tensors_hooks(spy_pack, checked_unpack):
            loss = forward()
        loss.backward()
    except Exception as error:  # noqa: BLE001 - the learner's hooks may raise anything
        return failed(f"running a model with your hooks raised {type(error).__name__}: {error}")
    not_half = [str(d) for d in packed_dtypes if d != al.float16]
    if not_half:
        return failed(f"{len(not_half)} of {len(packed_dtypes)} packed values are not float16 (got {not_half[0]}): "
                      "pack_hook should return tensor.to(al.float16), or a NumPy float16 array.")
    for name, p in model.named_parameters():
        if p.grad is None:
            return failed(f"{name}.grad is None after backward")
        if p.grad.dtype != al.float32:
            return failed(f"{name}.grad is {p.grad.dtype}: unpack_hook should give back float32 (.to(al.float32)).")
        result = compare_arrays(f"{name}.grad", p.grad, exact[name], rtol=1e-2, atol=1e-3,
                                reference="the exact float32 gradient (within float16's precision)")
        if not result:
            return result
    return passed(f"All {len(packed_dtypes)} saved tensors were kept as float16, half the bytes, and the gradients "
                  "stay within float16's precision of the exact ones.")
