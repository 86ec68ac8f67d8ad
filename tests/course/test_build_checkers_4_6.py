"""The checkers of the build track's notebooks B4 to B6: the notebooks' own solutions pass, and each typical mistake
gets feedback that names it. The engine is the one the notebooks build (tests/build_engine.py reads it from them)."""

from __future__ import annotations

import numpy as np
import pytest
from build_engine import load_engine

from autograd_lab.course import check


@pytest.fixture
def engine() -> dict:
    return load_engine()


def _fails(feedback, *phrases: str) -> None:
    assert not feedback, feedback
    assert " at 0x" not in feedback.message, "feedback shows an object address; the notebook output would vary"
    for phrase in phrases:
        assert phrase in feedback.message, f"{phrase!r} not in:\n{feedback.message}"


# -- B4 ------------------------------------------------------------------------------------------------------------
def test_b4_passes_the_notebook_solutions(engine):
    assert check.ex_b4_1(engine["AccumulateGrad"], engine["Tensor"])
    assert check.ex_b4_2(engine["sum_to"])
    assert check.ex_b4_3(engine["backward"], engine["Tensor"])


def _accumulator(engine: dict, accumulate):
    base = engine["AccumulateGrad"]
    return type("AccumulateGrad", (base,), {"backward": accumulate})


def _replaces(self, grad):
    self.variable.grad = grad
    return ()


def _adds_in_place_without_copy(self, grad):
    if self.variable.grad is None:
        self.variable.grad = grad
    else:
        self.variable.grad += grad
    return ()


def _returns_nothing(self, grad):
    self.variable.grad = grad.copy() if self.variable.grad is None else self.variable.grad + grad


@pytest.mark.parametrize(("accumulate", "phrase"), [
    (_replaces, "the second replaced the first"),
    (_adds_in_place_without_copy, "grad.copy()"),
    (_returns_nothing, "return ()"),
    (lambda self, grad: (), "is still None"),
])
def test_b4_1_typical_mistakes(engine, accumulate, phrase):
    _fails(check.ex_b4_1(_accumulator(engine, accumulate), engine["Tensor"]), phrase)


def _leading_axes_only(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))


def _drops_stretched_axes(grad, shape):
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead)))
    return grad.sum(axis=tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1))


def _mean_instead_of_sum(grad, shape):
    return grad.mean(axis=tuple(range(grad.ndim - len(shape))))


@pytest.mark.parametrize(("sum_to", "phrases"), [
    (_leading_axes_only, ["(2, 1)", "sum over the axes where shape has a 1"]),
    (_drops_stretched_axes, ["(2, 1)", "keepdims=True"]),
    (_mean_instead_of_sum, ["times the expected one"]),
    (lambda grad, shape: None, ["returned None"]),
])
def test_b4_2_typical_mistakes(sum_to, phrases):
    _fails(check.ex_b4_2(sum_to), *phrases)


def test_b4_3_broadcasting_not_summed_back(engine):
    order, edge = engine["topological_order"], engine["gradient_edge"]

    def backward_of_b3(tensor, gradient=None):
        grads = {edge(tensor)[0]: np.ones_like(tensor.data) if gradient is None else gradient}
        for node in order(edge(tensor)[0]):
            grad = grads.pop(node)
            for (child, _), child_grad in zip(node.next_functions, node.backward(grad)):
                if child is not None:
                    grads[child] = grads[child] + child_grad if child in grads else child_grad

    _fails(check.ex_b4_3(backward_of_b3, engine["Tensor"]), "w.grad has shape (3, 4) but should have shape (4,)",
           "sum_to(grad, child.shape)")


# -- B5 ------------------------------------------------------------------------------------------------------------
def test_b5_passes_the_notebook_solutions(engine):
    assert check.ex_b5_1(engine["commit"], engine["Tensor"])
    assert check.ex_b5_2(engine["saved"], engine["Tensor"])


def _commit_variant(*, same_array=True, bump=1, refuse_leaves=True, take_history=True, give_back=True):
    def commit(t, result):
        if refuse_leaves and t.requires_grad and t.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if same_array:
            t.data[...] = result.data
        else:
            t.data = result.data.copy()
        t._version += bump
        if take_history:
            t.requires_grad, t.grad_fn = result.requires_grad, result.grad_fn
        return t if give_back else None

    return commit


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"give_back": False}, "should return t itself"),
    ({"same_array": False}, "same memory"),
    ({"bump": 0}, "went from 0 to 0"),
    ({"bump": 2}, "adds exactly 1"),
    ({"refuse_leaves": False}, "a leaf that requires grad"),
    ({"take_history": False}, "the new AddBackward"),
])
def test_b5_1_typical_mistakes(engine, mistake, phrase):
    _fails(check.ex_b5_1(_commit_variant(**mistake), engine["Tensor"]), phrase)


def _saved_variant(engine: dict, *, check_version=True, strict=False, message=None, as_array=True):
    tensor_class = engine["Tensor"]

    def saved(node, name):
        value = getattr(node, "_saved_" + name)
        if not isinstance(value, tensor_class):
            return value
        was = node.saved_versions[name]
        if check_version and (value._version != was or strict):
            raise RuntimeError(message or "one of the variables needed for gradient computation has been modified by "
                               f"an inplace operation: '{name}' is at version {value._version}; expected version "
                               f"{was} instead.")
        return value.data if as_array else value

    return saved


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"check_version": False}, "saved c at version 0"),
    ({"strict": True}, "before any change"),
    ({"message": "tensor changed"}, "PyTorch's words"),
    ({"as_array": False}, "the saved tensor's array"),
])
def test_b5_2_typical_mistakes(engine, mistake, phrase):
    variant = _saved_variant(engine, **mistake)
    engine["saved"] = variant  # the learner's cell rebinds the name every backward formula calls
    _fails(check.ex_b5_2(variant, engine["Tensor"]), phrase)


# -- B6 ------------------------------------------------------------------------------------------------------------
def test_b6_passes_the_notebook_solutions(engine):
    assert check.ex_b6_1(engine["mlp"], engine["Tensor"])
    assert check.ex_b6_2(engine["cross_entropy"], engine["Tensor"])
    assert check.ex_b6_3(engine["sgd_step"], engine["Tensor"])


def _mlp(*, bias=True, activation="tanh"):
    def mlp(params, x):
        hidden = x @ params["W1"] + params["b1"]
        hidden = hidden.tanh() if activation == "tanh" else hidden.relu()
        out = hidden @ params["W2"]
        return out + params["b2"] if bias else out

    return mlp


@pytest.mark.parametrize("mistake", [{"bias": False}, {"activation": "relu"}])
def test_b6_1_a_different_network(engine, mistake):
    _fails(check.ex_b6_1(_mlp(**mistake), engine["Tensor"]), "differ from autograd_lab", "tanh(x @ W1 + b1) @ W2 + b2")
    _fails(check.ex_b6_1(lambda params, x: None, engine["Tensor"]), "Replace the `...`")


def _cross_entropy(engine: dict, *, mean=True, shift=True):
    def cross_entropy(logits, targets):
        shifted = logits - logits.data.max(axis=1, keepdims=True) if shift else logits
        log_probs = shifted - shifted.exp().sum(axis=1, keepdims=True).log()
        total = -(log_probs * np.eye(logits.shape[1])[targets]).sum()
        return total / len(targets) if mean else total

    return cross_entropy


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"mean": False}, "the mean over the batch"),
    ({"shift": False}, "Subtract each row's maximum"),
])
def test_b6_2_typical_mistakes(engine, mistake, phrase):
    with np.errstate(over="ignore", invalid="ignore"):
        _fails(check.ex_b6_2(_cross_entropy(engine, **mistake), engine["Tensor"]), phrase)
    _fails(check.ex_b6_2(lambda logits, targets: None, engine["Tensor"]), "returned NoneType")


def _sgd(engine: dict, *, sign=-1.0, clear=True, through_commit=False):
    def sgd_step(params, lr):
        for p in params.values():
            if through_commit:
                engine["commit"](p, p - lr * p.grad)
            else:
                p.data += sign * lr * p.grad
            if clear:
                p.grad = None

    return sgd_step


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"sign": 1.0}, "uphill"),
    ({"clear": False}, "still set after the step"),
    ({"through_commit": True}, "p.data -= lr * p.grad"),
    ({"sign": 0.0}, "left every parameter as it was"),
])
def test_b6_3_typical_mistakes(engine, mistake, phrase):
    _fails(check.ex_b6_3(_sgd(engine, **mistake), engine["Tensor"]), phrase)
