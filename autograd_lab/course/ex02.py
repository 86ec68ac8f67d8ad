"""Checkers for ``02_turning_gradients_off.ipynb``: evaluating without recording, an update under ``no_grad``,
and choosing the right tool."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import Catalogued, join, msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed


def count_saved(fn: Callable, *args, what: str) -> tuple:
    """Calls ``fn(*args)`` and counts the tensors autograd saved for a backward meanwhile (saved-tensor hooks see
    every one): a result without ``grad_fn`` whose graph was recorded and then cut off (``detach``) shows up here."""
    saved = []
    with al.autograd.graph.saved_tensors_hooks(lambda t: saved.append(1) or t, lambda t: t):
        result, error = call_learner(fn, *args, what=what)
    return result, error, len(saved)


def ex_02_1(evaluate: Callable) -> Feedback:
    """``evaluate(model, x)``: the model's outputs, computed without recording a graph and with the model in eval mode."""
    al.manual_seed(1)
    model = al.nn.Sequential(al.nn.Linear(4, 8), al.nn.ReLU(), al.nn.Dropout(0.5), al.nn.Linear(8, 2))
    x = al.randn(5, 4)
    model.eval()
    expected = model(x).detach()
    model.train()
    out, error, saved = count_saved(evaluate, model, x, what="evaluate")
    if error is not None:
        return error
    if not isinstance(out, al.Tensor):
        return failed(msg("ex02.not_a_tensor", type=type(out).__name__))
    if not al.is_grad_enabled():
        return failed(msg("ex02.still_off"))
    if out.requires_grad or out.grad_fn is not None:
        recorded = (msg("ex02.its_grad_fn", node=out.grad_fn.name()) if out.grad_fn is not None
                    else msg("ex02.it_requires_grad"))
        return failed(msg("ex02.recorded", recorded=recorded))
    if saved:
        return failed(msg("ex02.saved_then_detached", saved=saved))
    if model.training:
        return failed(msg("ex02.no_eval"))
    return compare_arrays("evaluate(model, x)", out, expected, reference=msg("ex02.eval_outputs"))


def ex_02_2(sgd_step: Callable) -> Feedback:
    """``sgd_step(params, lr)``: p -= lr * p.grad for each parameter, in place, without recording."""
    al.manual_seed(2)
    params = [al.randn(3, requires_grad=True), al.randn(2, 2, requires_grad=True)]
    (params[0].sin().sum() + (params[1] ** 2).sum()).backward()
    before = [p.detach().clone().numpy() for p in params]
    grads = [p.grad.numpy().copy() for p in params]
    versions = [p._version for p in params]
    originals = list(params)
    _, error = call_learner(sgd_step, params, 0.1, what="sgd_step")
    if error is not None:
        return error
    if all(p is q and np.array_equal(p.detach().numpy(), b) for p, q, b in zip(params, originals, before)):
        return failed(msg("ex02.unchanged"))
    for i, (p, original) in enumerate(zip(params, originals)):
        if p is not original:
            return failed(msg("ex02.replaced", i=i))
        if not p.is_leaf or p.grad_fn is not None:
            return failed(msg("ex02.not_a_leaf", i=i, node=p.grad_fn.name()))
        if not p.requires_grad:
            return failed(msg("ex02.no_requires_grad", i=i))
        if p._version == versions[i] and not np.array_equal(p.detach().numpy(), before[i]):
            return failed(msg("ex02.through_data", i=i))
    for i, p in enumerate(params):
        result = compare_arrays(f"params[{i}]", p, before[i] - 0.1 * grads[i], reference="p - lr * p.grad")
        if not result:
            if np.allclose(p.detach().numpy(), before[i] + 0.1 * grads[i]):
                return failed(msg("ex02.uphill", i=i))
            return result
    return passed(msg("ex02.sgd_passed"))


CHOICES = ("no_grad", "inference_mode", "set_grad_enabled", "detach", "eval")
SCENARIOS = Catalogued("ex02.scenario", "abcde")  # the scenario of each letter, in the learner's language
ANSWERS = {"a": "no_grad", "b": "set_grad_enabled", "c": "inference_mode", "d": "detach", "e": "eval"}
WHY = Catalogued("ex02.why", "abcde")
ALSO_ACCEPTED = {"a": {"inference_mode"}}
HINTS = Catalogued("ex02.hint", "abcde")


def ex_02_3(answers: dict) -> Feedback:
    """``answers``: scenario letter -> one of CHOICES."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(msg("ex02.one_of_each", choices=join(CHOICES)))
    if not isinstance(answers, dict):
        return failed(msg("ex02.not_a_dict", type=type(answers).__name__))
    lines = []
    for key, choice in ANSWERS.items():
        given = answers.get(key)
        if is_placeholder(given):
            lines.append(msg("feedback.no_answer_yet", key=key))
        elif given not in CHOICES:
            lines.append(msg("feedback.not_one_of", key=key, given=repr(given), choices=join(CHOICES)))
        elif given != choice and given not in ALSO_ACCEPTED.get(key, ()):
            lines.append(msg("feedback.not_this", key=key, given=given, hint=HINTS[key]))
    if lines:
        return failed(msg("feedback.another_look", wrong=len(lines), total=len(ANSWERS)) + "\n" + "\n".join(lines))
    return passed("\n" + "\n".join(msg("ex02.because", key=key, choice=choice, why=WHY[key])
                                    for key, choice in ANSWERS.items()))
