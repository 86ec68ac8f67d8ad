"""Checkers for ``01_excluding_subgraphs.ipynb``: predicting ``requires_grad``, freezing a network's body."""

from __future__ import annotations

from collections.abc import Callable

import autograd_lab as al

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
        return not_answered("True or False for each expression")
    if not isinstance(answers, dict):
        return failed(f"answers should be a dict like {{'a': True, ...}}; got {type(answers).__name__}")
    actual = _actual_requires_grad()
    missing = [key for key in actual if key not in answers or is_placeholder(answers[key])]
    if missing:
        return failed(f"No answer yet for {', '.join(missing)}.")
    not_bools = [key for key in actual if not isinstance(answers[key], bool)]
    if not_bools:
        shown = ", ".join(f"{key}={answers[key]!r}" for key in not_bools)
        return failed(f"Answer each with True or False, written without quotes ({shown}): a string such as 'False' "
                      "is not the boolean False.")
    wrong = [key for key in actual if answers[key] != actual[key]]
    if not wrong:
        return passed("An output requires grad exactly when at least one input that autograd records requires grad.")
    lines = [f"{len(wrong)} of {len(actual)} predictions are wrong:"]
    for key in wrong:
        lines.append(f"  {key} = {EXPRESSIONS[key]}: requires_grad is {actual[key]}, you said {answers[key]}")
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
    replaced = [name or "the model" for name, module in model.named_modules() if modules_before.get(name) is not module]
    replaced += [name for name, p in model.named_parameters() if parameters_before.get(name) is not p]
    if replaced:
        return failed(f"freeze_body replaced {', '.join(dict.fromkeys(replaced))}: the exercise keeps every layer "
                      "(the head is pretrained too). Set requires_grad on the existing parameters instead of "
                      "creating new ones.")
    should_train = {name: name.startswith("fc.") for name, _ in model.named_parameters()}
    wrong = [(name, p.requires_grad) for name, p in model.named_parameters() if p.requires_grad != should_train[name]]
    if wrong:
        lines = [f"{len(wrong)} of {len(should_train)} parameters have the wrong requires_grad:"]
        lines += [f"  {name}: requires_grad={flag}, should be {not flag}" for name, flag in wrong]
        return failed("\n".join(lines))
    out = model(al.zeros(2, 1, 8, 8)).sum()
    out.backward()
    stray = [name for name, p in model.named_parameters() if not name.startswith("fc.") and p.grad is not None]
    if stray:
        return failed(f"backward still reached {', '.join(stray)}")
    return passed("Only fc.weight and fc.bias require grad; a backward pass leaves the body's .grad at None.")
