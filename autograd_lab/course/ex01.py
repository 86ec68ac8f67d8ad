"""Checkers for ``01_excluding_subgraphs.ipynb``: predicting ``requires_grad``, freezing a network's body."""

from __future__ import annotations

from collections.abc import Callable

import autograd_lab as al

from ..i18n import join, msg
from ._feedback import Feedback, call_learner, failed, is_placeholder, not_answered, passed

# Exercise 1's expressions, evaluated with x = al.randn(3) (no grad), w = al.randn(3, requires_grad=True),
# and frozen = al.nn.Linear(3, 3) with every parameter frozen.
EXPRESSIONS = {
    "a": "x * 2",
    "b": "x * w",
    "c": "(w * 0).sum()",
    "d": "w.detach() + x",
    "e": "frozen(x)",
    "f": "frozen(w)",
    "g": "w > 0",
}


def _actual_requires_grad() -> dict[str, bool]:
    al.manual_seed(0)
    x = al.randn(3)
    w = al.randn(3, requires_grad=True)
    frozen = al.nn.Linear(3, 3).requires_grad_(False)
    scope = {"x": x, "w": w, "frozen": frozen}
    return {key: bool(eval(expression, {}, scope).requires_grad) for key, expression in EXPRESSIONS.items()}  # noqa: S307


def ex_01_1(answers: dict) -> Feedback:
    """``answers``: {"a": True/False, ...}, the learner's prediction of ``requires_grad`` for each expression."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(msg("ex01.true_or_false"))
    if not isinstance(answers, dict):
        return failed(msg("ex01.not_a_dict", type=type(answers).__name__))
    actual = _actual_requires_grad()
    missing = [key for key in actual if key not in answers or is_placeholder(answers[key])]
    if missing:
        return failed(msg("ex01.no_answer", keys=join(missing)))
    not_bools = [key for key in actual if not isinstance(answers[key], bool)]
    if not_bools:
        shown = ", ".join(f"{key}={answers[key]!r}" for key in not_bools)
        return failed(msg("ex01.quoted", shown=shown))
    wrong = [key for key in actual if answers[key] != actual[key]]
    if not wrong:
        return passed(msg("ex01.rule"))
    lines = [msg("ex01.wrong_predictions", wrong=len(wrong), total=len(actual))]
    for key in wrong:
        lines.append(msg("ex01.wrong_prediction", key=key, expression=EXPRESSIONS[key], actual=actual[key],
                         given=answers[key]))
    return failed("\n".join(lines))


def ex_01_2(freeze_body: Callable) -> Feedback:
    """``freeze_body(model)``: freezes every parameter of a SmallCNN except those of its head ``fc``."""
    from autograd_lab import models
    model = models.small_cnn()
    modules_before = dict(model.named_modules())
    parameters_before = dict(model.named_parameters())
    _, error = call_learner(freeze_body, model, what="freeze_body")
    if error is not None:
        return error
    replaced = [name or msg("ex01.the_model") for name, module in model.named_modules() if modules_before.get(name) is not module]
    replaced += [name for name, p in model.named_parameters() if parameters_before.get(name) is not p]
    if replaced:
        return failed(msg("ex01.replaced", names=join(dict.fromkeys(replaced))))
    should_train = {name: name.startswith("fc.") for name, _ in model.named_parameters()}
    wrong = [(name, p.requires_grad) for name, p in model.named_parameters() if p.requires_grad != should_train[name]]
    if wrong:
        lines = [msg("ex01.wrong_flags", wrong=len(wrong), total=len(should_train))]
        lines += [msg("ex01.wrong_flag", name=name, flag=flag, right=not flag) for name, flag in wrong]
        return failed("\n".join(lines))
    out = model(al.zeros(2, 1, 8, 8)).sum()
    out.backward()
    stray = [name for name, p in model.named_parameters() if not name.startswith("fc.") and p.grad is not None]
    if stray:
        return failed(msg("ex01.stray", names=join(stray)))
    return passed(msg("ex01.frozen"))
