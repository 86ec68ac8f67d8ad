"""Checkers for ``02_turning_gradients_off.ipynb``: evaluating without recording, an update under ``no_grad``,
and choosing the right tool."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import autograd_lab as al

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
        return failed(f"evaluate should return the model's output tensor; got {type(out).__name__}")
    if not al.is_grad_enabled():
        return failed("gradient recording is still off after evaluate returned: use `with al.no_grad():` (a block) "
                      "rather than al.set_grad_enabled(False) on its own, so that the previous mode comes back.")
    if out.requires_grad or out.grad_fn is not None:
        recorded = f"its grad_fn is {out.grad_fn.name()}" if out.grad_fn is not None else "it requires grad"
        return failed(f"the output was recorded ({recorded}): run the model inside `with al.no_grad():` "
                      "or `with al.inference_mode():`.")
    if saved:
        return failed(f"the output has no grad_fn, but {saved} tensors were saved for a backward while it was computed: "
                      "a graph was recorded and then cut off (detach?), which costs the memory and time no_grad saves. "
                      "Run the forward inside `with al.no_grad():` so that nothing is recorded.")
    if model.training:
        return failed("model.eval() was not called (or was undone): Dropout still drops activations, so the outputs "
                      "are random. Call model.eval() before the forward pass.")
    return compare_arrays("evaluate(model, x)", out, expected, reference="the model's outputs in eval mode")


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
        return failed("sgd_step changed no parameter: subtract lr * p.grad from each p in params, in place, "
                      "under `with al.no_grad():`.")
    for i, (p, original) in enumerate(zip(params, originals)):
        if p is not original:
            return failed(f"params[{i}] was replaced by a new tensor: update it in place (p -= ..., or p.sub_(...)) so "
                          "that the model and the optimizer keep pointing at the same parameter.")
        if not p.is_leaf or p.grad_fn is not None:
            return failed(f"params[{i}] is no longer a leaf (its grad_fn is {p.grad_fn.name()}): the update was recorded. "
                          "Do it under `with al.no_grad():`.")
        if not p.requires_grad:
            return failed(f"params[{i}] no longer requires grad: the next forward pass would not train it.")
        if p._version == versions[i] and not np.array_equal(p.detach().numpy(), before[i]):
            return failed(f"params[{i}] changed, but its version counter did not: the update went through .data, "
                          "which hides it from autograd (a graph that saved the parameter would not notice, and "
                          "backward could return wrong gradients silently). Update p itself under "
                          "`with al.no_grad():`; the version check then still protects you.")
    for i, p in enumerate(params):
        result = compare_arrays(f"params[{i}]", p, before[i] - 0.1 * grads[i], reference="p - lr * p.grad")
        if not result:
            if np.allclose(p.detach().numpy(), before[i] + 0.1 * grads[i]):
                return failed(f"params[{i}] moved up the gradient: subtract lr * p.grad to go down the loss.")
            return result
    return passed("Both parameters moved by -lr * grad, in place, and are still leaves that require grad.")


CHOICES = ("no_grad", "inference_mode", "set_grad_enabled", "detach", "eval")
SCENARIOS = {
    "a": "A validation loop: compute predictions and a loss for logging, never call backward.",
    "b": "One train_or_eval(loader, train: bool) function that records a graph only when train is True.",
    "c": "A model served behind an API: predictions only, the results never enter a training computation.",
    "d": "Use the current prediction as a fixed target (e.g. a teacher's output) inside a loss that is backpropagated.",
    "e": "Make Dropout keep every activation and BatchNorm use its running statistics.",
}
ANSWERS = {
    "a": ("no_grad", "nothing from the loop is used by a later backward: no_grad records nothing "
                     "(inference_mode also works here)"),
    "b": ("set_grad_enabled", "set_grad_enabled(train) takes the decision as an argument"),
    "c": ("inference_mode", "results never re-enter autograd, so inference_mode's extra savings (no version counters, "
                            "no view tracking) are safe"),
    "d": ("detach", "detach() cuts one tensor out of the graph while the rest of the loss is still recorded"),
    "e": ("eval", "model.eval() changes how layers compute; it does not stop recording"),
}
ALSO_ACCEPTED = {"a": {"inference_mode"}}
HINTS = {
    "a": "is anything computed here ever differentiated?",
    "b": "the decision to record is a value known only when the function is called.",
    "c": "nothing here ever enters autograd again, so the strictest mode, which skips even the bookkeeping, is safe.",
    "d": "only one tensor must stop carrying history; the rest of the loss is still recorded.",
    "e": "this is about how layers compute, not about recording.",
}


def ex_02_3(answers: dict) -> Feedback:
    """``answers``: scenario letter -> one of CHOICES."""
    if is_placeholder(answers) or (isinstance(answers, dict) and all(is_placeholder(v) for v in answers.values())):
        return not_answered(f"one of {', '.join(CHOICES)} for each scenario")
    if not isinstance(answers, dict):
        return failed(f"answers should be a dict like {{'a': 'no_grad', ...}}; got {type(answers).__name__}")
    lines = []
    for key, (choice, _) in ANSWERS.items():
        given = answers.get(key)
        if is_placeholder(given):
            lines.append(f"  {key}: no answer yet")
        elif given not in CHOICES:
            lines.append(f"  {key}: {given!r} is not one of {', '.join(CHOICES)}")
        elif given != choice and given not in ALSO_ACCEPTED.get(key, ()):
            lines.append(f"  {key}: not {given}. Hint: {HINTS[key]}")
    if lines:
        return failed(f"{len(lines)} of {len(ANSWERS)} answers need another look:\n" + "\n".join(lines))
    return passed("\n" + "\n".join(f"  {key}: {choice}, because {why}" for key, (choice, why) in ANSWERS.items()))
