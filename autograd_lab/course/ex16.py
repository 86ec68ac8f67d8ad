"""Checkers for ``16_common_bugs.ipynb``: naming the bug in five training steps, and a tool that lists the parameters
a backward from a loss would not reach."""

from __future__ import annotations

from collections.abc import Callable

import autograd_lab as al

from ..i18n import Catalogued, join, msg
from ._feedback import Feedback, call_learner, failed, is_placeholder, not_answered, passed

__all__ = ["ex_16_1", "ex_16_2", "STEPS", "BUGS"]

BUGS = Catalogued("ex16.bug", ("zero_grad", "data", "rebind", "detached", "broadcast"))  # key -> the bug, in words


# -- exercise 1: five training steps, five bugs ---------------------------------------------------------------
def step_a(model, optimizer, x, y):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


def step_b(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = ((model(x).squeeze(1) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


def step_c(model, optimizer, x, y):
    optimizer.zero_grad()
    error = model(x) - y
    loss = al.tensor((error ** 2).mean().item(), requires_grad=True)
    loss.backward()
    optimizer.step()
    return loss.item()


def step_d(model, optimizer, x, y):
    optimizer.zero_grad()
    hidden = model[0](x).sigmoid()
    hidden.data.clamp_(0.1, 0.9)
    loss = ((model[1](hidden) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


def step_e(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    for layer in model:
        if isinstance(layer, al.nn.Linear):
            layer.weight = al.nn.Parameter(layer.weight - 0.1 * layer.weight.grad)
            layer.bias = al.nn.Parameter(layer.bias - 0.1 * layer.bias.grad)
    return loss.item()


STEPS: dict[str, Callable] = {"a": step_a, "b": step_b, "c": step_c, "d": step_d, "e": step_e}
_ANSWERS = {"a": "zero_grad", "b": "broadcast", "c": "detached", "d": "data", "e": "rebind"}
_HINTS = Catalogued("ex16.hint", "abcde")


def ex_16_1(answers: dict) -> Feedback:
    """``answers`` maps each step ('a'..'e') to the key of its bug in :data:`BUGS`."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(msg("ex16.one_of_each", bugs=join(BUGS)))
    if not isinstance(answers, dict):
        return failed(msg("ex16.not_a_dict", type=type(answers).__name__))
    lines = []
    for step, bug in _ANSWERS.items():
        given = answers.get(step)
        if is_placeholder(given):
            lines.append(msg("feedback.no_answer_yet", key=step))
        elif given not in BUGS:
            lines.append(msg("feedback.not_one_of", key=step, given=repr(given), choices=join(BUGS)))
        elif given != bug:
            lines.append(msg("feedback.not_this", key=step, given=given, hint=_HINTS[step]))
    if lines:
        return failed(msg("feedback.another_look", wrong=len(lines), total=len(_ANSWERS)) + "\n" + "\n".join(lines))
    return passed("\n" + "\n".join(msg("ex16.bug_named", step=step, bug=BUGS[bug]) for step, bug in _ANSWERS.items()))


# -- exercise 2: which parameters does a backward reach? ----------------------------------------------------
def _model() -> al.nn.Module:
    al.manual_seed(16)
    return al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 2))


def _cases() -> list[tuple[str, al.nn.Module, al.Tensor, list[str]]]:
    x = al.randn(5, 3, generator=al.Generator().manual_seed(160))
    cases = []
    model = _model()
    cases.append((msg("ex16.case.whole"), model, model(x).pow(2).sum(), []))
    model = _model()
    hidden = model[1](model[0](x)).detach()
    cases.append((msg("ex16.case.detached"), model, model[2](hidden).pow(2).sum(),
                  ["0.weight", "0.bias"]))
    model = _model()
    out = model(x)
    cases.append((msg("ex16.case.item"), model, al.tensor(out.pow(2).sum().item(), requires_grad=True),
                  ["0.weight", "0.bias", "2.weight", "2.bias"]))
    model = _model()
    cases.append((msg("ex16.case.bias"), model, (model[0].bias * 2).sum(),
                  ["0.weight", "2.weight", "2.bias"]))
    return cases


def ex_16_2(unreached: Callable) -> Feedback:
    """``unreached(loss, model)``: the names of ``model``'s parameters that a backward from ``loss`` would leave
    without a gradient, found by walking ``loss.grad_fn``'s graph (without running backward)."""
    if is_placeholder(unreached):
        return not_answered(msg("feedback.your_named_function", name="unreached"))
    for label, model, loss, expected in _cases():
        got, problem = call_learner(unreached, loss, model, what="unreached(loss, model)")
        if problem is not None:
            return problem
        try:
            names = sorted(got)
        except TypeError:
            return failed(msg("ex16.not_names", label=label, got=repr(got)))
        if any(p.grad is not None for p in model.parameters()):
            return failed(msg("ex16.ran_backward"))
        if names != sorted(expected):
            missing = sorted(set(expected) - set(names))
            extra = sorted(set(names) - set(expected))
            detail = []
            if missing:
                detail.append(msg("ex16.misses", missing=missing))
            if extra:
                detail.append(msg("ex16.lists", extra=extra))
            hint = msg("ex16.no_grad_fn") if loss.grad_fn is None else ""
            return failed(msg("ex16.unreached_wrong", label=label, detail=msg("ex16.and").join(detail), hint=hint))
    return passed(msg("ex16.unreached_passed"))
