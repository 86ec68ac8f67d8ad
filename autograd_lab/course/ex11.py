"""Checkers for ``11_history_2017_api.ipynb``: inference without ``volatile``, the 2017 names matched with
today's, and REINFORCE written as a loss: today's score-function gradient, compared with the legacy layer's
2017 ``reinforce`` where the two agree (through a softmax)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

import autograd_lab as al

from ..i18n import Catalogued, join, msg
from ._feedback import Feedback, call_learner, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_11_1", "ex_11_2", "ex_11_3", "OLD", "MODERN", "reinforce_2017", "score_function_grad"]


# -- exercise 1: inference without volatile ------------------------------------------------------------------
def ex_11_1(modern_predict: Callable) -> Feedback:
    """``modern_predict(model, x)`` returns ``model(x)`` without recording a graph (what volatile did)."""
    if is_placeholder(modern_predict):
        return not_answered(msg("feedback.your_named_function", name="modern_predict"))
    al.manual_seed(11)
    model = al.nn.Sequential(al.nn.Linear(4, 8), al.nn.Tanh(), al.nn.Linear(8, 2))
    x = al.randn(5, 4, generator=al.Generator().manual_seed(110))
    with al.no_grad():
        expected = model(x)
    packed = []
    with al.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        out, problem = call_learner(modern_predict, model, x, what="modern_predict(model, x)")
    if problem is not None:
        return problem
    if out is None:
        return failed(msg("ex11.predict_none"))
    value = compare_arrays("modern_predict(model, x)", out, expected, reference=msg("ex11.under_no_grad"))
    if not value:
        return value
    if out.requires_grad or out.grad_fn is not None:
        return failed(msg("ex11.still_grad_fn"))
    if packed:
        return failed(msg("ex11.saved_then_detached", saved=len(packed)))
    return passed(msg("ex11.predict_passed"))


# -- exercise 2: old names, new names ------------------------------------------------------------------------------
OLD = {
    "1": "Variable(t, requires_grad=True)",
    "2": "Variable(x, volatile=True)",
    "3": "y.creator",
    "4": "y.backward(retain_variables=True)",
    "5": "sample.reinforce(reward)",
}
MODERN = Catalogued("ex11.modern", "ABCDE")  # code, with a word of explanation in the learner's language
_MATCH = {"1": "C", "2": "E", "3": "B", "4": "D", "5": "A"}
_WHY = Catalogued("ex11.why", "12345")


def ex_11_2(answer: dict) -> Feedback:
    """``answer`` maps each key of :data:`OLD` ('1'..'5') to the letter of its modern form in :data:`MODERN`."""
    if is_placeholder(answer) or not isinstance(answer, dict):
        return not_answered(msg("ex11.letters_dict"))
    missing = [old for old in OLD if is_placeholder(answer.get(old))]
    if missing:
        return not_answered(msg("ex11.letter_for", keys=join(missing)))
    wrong = [old for old in OLD if str(answer[old]).strip().upper() != _MATCH[old]]
    if not wrong:
        return passed(msg("ex11.why_separator").join(_WHY[old] for old in OLD))
    lines = [msg("feedback.n_wrong", wrong=len(wrong), total=len(OLD))]
    for old in wrong:
        given = MODERN.get(str(answer[old]).strip().upper(), msg("ex11.not_a_letter"))
        lines.append(msg("ex11.chose", old=OLD[old], given=repr(answer[old]), modern=given))
    return failed("\n".join(lines))


# -- exercise 3: REINFORCE as a loss ----------------------------------------------------------------------------------
def reinforce_2017(leaf: al.Tensor, to_probs: Callable, index: int, reward: float) -> al.Tensor:
    """The gradient 2017's API gave ``leaf``: ``probs = to_probs(leaf)``, a multinomial sample of ``probs`` that drew
    ``index``, ``sample.reinforce(reward)``, then a backward through the sample (``autograd_lab.legacy``)."""
    from autograd_lab.legacy import multinomial
    from autograd_lab.legacy.autograd import Variable, backward
    state = al.get_rng_state()  # the draw below must not shift the learner's random numbers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        variable = Variable(leaf.detach().clone(), requires_grad=True)
        drawn = multinomial(to_probs(variable), 1)
        al.set_rng_state(state)
        drawn.creator.sample[...] = index  # score the given index, whatever was drawn
        drawn.reinforce(reward)
        backward([drawn], [None])
    return variable.grad.detach()


def score_function_grad(weights: list[float], index: int, reward: float) -> np.ndarray:
    """d/dw of -reward * log(w[index] / sum(w)): -reward * (onehot(index) / w[index] - 1 / sum(w))."""
    w = np.asarray(weights, dtype=np.float64)
    onehot = np.eye(len(w))[index]
    return -reward * (onehot / w[index] - 1.0 / w.sum())


def _learner_grad(score_function_loss: Callable, leaf: al.Tensor, to_probs: Callable, index: int,
                  reward: float) -> tuple:
    """leaf.grad after backward through the learner's loss on ``to_probs(leaf)``, or the feedback saying why not."""
    loss, problem = call_learner(score_function_loss, to_probs(leaf), al.tensor([index]), reward,
                                 what="score_function_loss(...)")
    if problem is not None:
        return None, problem
    if not isinstance(loss, al.Tensor) or loss.numel() != 1 or not loss.requires_grad:
        return None, failed(msg("ex11.loss_not_scalar"))
    loss.backward()
    return leaf.grad, None


CASES = [([0.2, 0.5, 0.3], 1, 2.0), ([1.0, 3.0, 4.0, 2.0], 3, -0.5), ([0.6, 0.4], 0, 1.5)]


def ex_11_3(score_function_loss: Callable) -> Feedback:
    """``score_function_loss(probs, sample, reward)``: -reward * log of the sampled entry of probs / probs.sum(); its
    gradient is today's score function, and through a softmax it agrees with 2017's ``reinforce``."""
    if is_placeholder(score_function_loss):
        return not_answered(msg("feedback.your_named_function", name="score_function_loss"))
    for weights, index, reward in CASES:
        probs = al.tensor(weights, dtype=al.float64, requires_grad=True)
        got, problem = _learner_grad(score_function_loss, probs, lambda t: t, index, reward)
        if problem is not None:
            return problem
        result = compare_arrays("probs.grad", got, score_function_grad(weights, index, reward),
                                reference="-reward * d log(probs[sample] / probs.sum()) / d probs")
        if not result:
            result.message = msg("ex11.with_case", weights=weights, index=index, reward=reward, message=result.message)
            if np.allclose(got.numpy(), reinforce_2017(probs, lambda t: t, index, reward).numpy(), rtol=1e-4):
                result.message += "\n" + msg("ex11.hint_normalise")
            return result
    logits = al.tensor([0.3, -1.2, 0.8], dtype=al.float64, requires_grad=True)
    softmax = lambda t: al.nn.functional.softmax(t, dim=0)  # noqa: E731
    got, problem = _learner_grad(score_function_loss, logits, softmax, 2, 1.5)
    if problem is not None:
        return problem
    result = compare_arrays(msg("ex11.through_softmax"), got, reinforce_2017(logits, softmax, 2, 1.5), rtol=1e-4,
                            reference=msg("ex11.reinforce_2017"))
    if not result:
        return result
    return passed(msg("ex11.score_passed"))
