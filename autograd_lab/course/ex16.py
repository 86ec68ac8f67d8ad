"""Checkers for ``16_common_bugs.ipynb``: naming the bug in five training steps, and a tool that lists the parameters
a backward from a loss would not reach."""

from __future__ import annotations

from collections.abc import Callable

import autograd_lab as al

from ._feedback import Feedback, call_learner, failed, is_placeholder, not_answered, passed

__all__ = ["ex_16_1", "ex_16_2", "STEPS", "BUGS"]

BUGS = {
    "zero_grad": "the gradients of earlier steps are never cleared",
    "data": "a change made through .data, hidden from the version counter",
    "rebind": "a parameter rebound to a new tensor instead of updated in place",
    "detached": "a loss with no path back to the parameters",
    "broadcast": "prediction and target of different shapes, silently broadcast",
}


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
        layer.weight = al.nn.Parameter(layer.weight - 0.1 * layer.weight.grad)
        layer.bias = al.nn.Parameter(layer.bias - 0.1 * layer.bias.grad)
    return loss.item()


STEPS: dict[str, Callable] = {"a": step_a, "b": step_b, "c": step_c, "d": step_d, "e": step_e}
_ANSWERS = {"a": "zero_grad", "b": "broadcast", "c": "detached", "d": "data", "e": "rebind"}
_HINTS = {
    "a": "what does .grad hold at the start of the second call?",
    "b": "print the shapes: model(x).squeeze(1) is (N,), y is (N, 1). What is the shape of their difference?",
    "c": "after loss.backward(), which tensors have a .grad? Follow loss.grad_fn.",
    "d": "sigmoid saved its output for backward. Who can see that the output changed?",
    "e": "the optimizer holds the parameters it was given. Which tensors does it update at its next step?",
}


def ex_16_1(answers: dict) -> Feedback:
    """``answers`` maps each step ('a'..'e') to the key of its bug in :data:`BUGS`."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(f"one of {', '.join(BUGS)} for each step")
    if not isinstance(answers, dict):
        return failed(f"answers should be a dict like {{'a': 'zero_grad', ...}}; got {type(answers).__name__}")
    lines = []
    for step, bug in _ANSWERS.items():
        given = answers.get(step)
        if is_placeholder(given):
            lines.append(f"  {step}: no answer yet")
        elif given not in BUGS:
            lines.append(f"  {step}: {given!r} is not one of {', '.join(BUGS)}")
        elif given != bug:
            lines.append(f"  {step}: not {given}. Hint: {_HINTS[step]}")
    if lines:
        return failed(f"{len(lines)} of {len(_ANSWERS)} answers need another look:\n" + "\n".join(lines))
    return passed("\n" + "\n".join(f"  {step}: {BUGS[bug]}" for step, bug in _ANSWERS.items()))


# -- exercise 2: which parameters does a backward reach? ----------------------------------------------------
def _model() -> al.nn.Module:
    al.manual_seed(16)
    return al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 2))


def _cases() -> list[tuple[str, al.nn.Module, al.Tensor, list[str]]]:
    x = al.randn(5, 3, generator=al.Generator().manual_seed(160))
    cases = []
    model = _model()
    cases.append(("the loss of the whole model", model, model(x).pow(2).sum(), []))
    model = _model()
    hidden = model[1](model[0](x)).detach()
    cases.append(("a loss computed after .detach() of the hidden layer", model, model[2](hidden).pow(2).sum(),
                  ["0.weight", "0.bias"]))
    model = _model()
    out = model(x)
    cases.append(("a loss rebuilt from .item()", model, al.tensor(out.pow(2).sum().item(), requires_grad=True),
                  ["0.weight", "0.bias", "2.weight", "2.bias"]))
    model = _model()
    cases.append(("a loss that uses only the first layer's bias", model, (model[0].bias * 2).sum(),
                  ["0.weight", "2.weight", "2.bias"]))
    return cases


def ex_16_2(unreached: Callable) -> Feedback:
    """``unreached(loss, model)``: the names of ``model``'s parameters that a backward from ``loss`` would leave
    without a gradient, found by walking ``loss.grad_fn``'s graph (without running backward)."""
    if is_placeholder(unreached):
        return not_answered("your unreached function")
    for label, model, loss, expected in _cases():
        got, problem = call_learner(unreached, loss, model, what="unreached(loss, model)")
        if problem is not None:
            return problem
        try:
            names = sorted(got)
        except TypeError:
            return failed(f"unreached should return a list of parameter names; for {label} it returned {got!r}")
        if any(p.grad is not None for p in model.parameters()):
            return failed("unreached ran backward (a parameter now has a .grad): walk the graph instead, from "
                          "loss.grad_fn through next_functions to the AccumulateGrad nodes.")
        if names != sorted(expected):
            missing = sorted(set(expected) - set(names))
            extra = sorted(set(names) - set(expected))
            detail = []
            if missing:
                detail.append(f"it misses {missing}")
            if extra:
                detail.append(f"it lists {extra}, which the backward does reach")
            hint = ""
            if loss.grad_fn is None:
                hint = " This loss has no grad_fn at all: nothing is reachable."
            return failed(f"For {label}: {' and '.join(detail)}.{hint} Compare the AccumulateGrad nodes' .variable "
                          "with each parameter by identity (is), not by value.")
    return passed("you can now tell, before training, which parameters a loss will train: a detached tensor or a loss "
                  "rebuilt from a number shows up as parameters left out.")
