"""The exercise checkers of notebooks 12 and 14-16: a right answer passes, each common mistake fails with feedback naming it,
and an untouched placeholder asks for an answer. Reference semantics are checked against PyTorch where it has them."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.course import check
from autograd_lab.course.ex15 import reference_clip


def assert_passes(feedback):
    assert feedback, str(feedback)
    assert str(feedback).startswith("Correct!")


def assert_fails(feedback, *phrases: str):
    assert not feedback, f"expected a failure, got: {feedback}"
    for phrase in phrases:
        assert phrase in str(feedback), f"{phrase!r} not in feedback:\n{feedback}"


@pytest.mark.parametrize("name", ["ex_14_1", "ex_15_1", "ex_15_2", "ex_15_3", "ex_16_1", "ex_16_2"])
def test_placeholder_asks_for_an_answer(name):
    assert_fails(getattr(check, name)(...), "Replace the `...`")


def test_placeholder_asks_for_an_answer_with_two_arguments():
    assert_fails(check.ex_14_2(..., ...), "Replace the `...`")


# -- 14 broadcasting --------------------------------------------------------------------------------------------
def _sum_to(grad, shape, *, keep=True):
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    ones = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if ones:
        grad = grad.sum(dim=ones, keepdim=keep)
    return grad


def test_14_1_sum_to():
    assert_passes(check.ex_14_1(_sum_to))
    assert_fails(check.ex_14_1(lambda g, s: _sum_to(g, s, keep=False)), "has shape (3,)", "keepdim=True")
    assert_fails(check.ex_14_1(lambda g, s: g), "has shape (3, 4), but")
    assert_fails(check.ex_14_1(lambda g, s: _sum_to(g, s) * 2), "differ from the engine's sum_to")


def test_14_2_broadcast_product_matches_torch():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[1.0], [2.0]], requires_grad=True)
    y = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    (x * y).sum().backward()
    assert_passes(check.ex_14_2(x.grad.tolist(), y.grad.tolist()))
    assert_fails(check.ex_14_2([[6.0, 6.0]], y.grad.tolist()), "x_grad has shape (1, 2)", "(2, 1)")
    assert_fails(check.ex_14_2([[1.0], [1.0]], y.grad.tolist()), "three terms")
    assert_fails(check.ex_14_2("six", y.grad.tolist()), "nested lists")


# -- 15 numerical stability ---------------------------------------------------------------------------------------
def test_15_1_logsumexp():
    assert_passes(check.ex_15_1(lambda x: x.max() + (x - x.max()).exp().sum().log()))
    assert_fails(check.ex_15_1(lambda x: x.exp().sum().log()), "Subtract the largest input first")
    assert_fails(check.ex_15_1(lambda x: al.logsumexp(x, dim=0)), "al.logsumexp itself")
    assert_fails(check.ex_15_1(lambda x: al.tensor(float(np.logaddexp.reduce(x.detach().numpy().astype(float))))),
                 "no gradient reached x")


def _safe_distance(a, b):
    squares = ((a - b) ** 2).sum()
    safe = al.where(squares > 0, squares, al.ones_like(squares))
    return al.where(squares > 0, safe.sqrt(), al.zeros_like(squares))


def test_15_2_distance():
    assert_passes(check.ex_15_2(_safe_distance))
    assert_passes(check.ex_15_2(lambda a, b: (a - b).norm()))
    assert_fails(check.ex_15_2(lambda a, b: ((a - b) ** 2).sum().sqrt()), "nan", "al.where")
    assert_fails(check.ex_15_2(lambda a, b: ((a - b) ** 2).sum()), "expected 5")


def _clip(parameters, max_norm, *, per_parameter=False, by_value=False, return_after=False):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = al.stack([g.norm() for g in grads]).norm()
    with al.no_grad():
        for g in grads:
            if by_value:
                g.clamp_(-max_norm, max_norm)
            elif per_parameter:
                g.mul_(min(1.0, max_norm / (g.norm().item() + 1e-6)))
            elif total.item() > max_norm:
                g.mul_(max_norm / (total + 1e-6))
    return al.stack([g.norm() for g in grads]).norm() if return_after else total


def test_15_3_clip_grad_norm_matches_torch():
    torch = pytest.importorskip("torch")
    grads = [np.array([[3.0, -4.0]]), np.array([12.0])]
    params = [torch.zeros(1, 2, requires_grad=True), torch.zeros(1, requires_grad=True)]
    for p, g in zip(params, grads):
        p.grad = torch.tensor(g, dtype=torch.float32)
    total = torch.nn.utils.clip_grad_norm_(params, 1.0)
    expected_total, expected = reference_clip(grads, 1.0)
    assert float(total) == pytest.approx(expected_total)
    for p, want in zip(params, expected):
        np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-6)
    assert_passes(check.ex_15_3(_clip))
    assert_fails(check.ex_15_3(lambda ps, m: _clip(ps, m, by_value=True)), "clipping by value")
    assert_fails(check.ex_15_3(lambda ps, m: _clip(ps, m, per_parameter=True)), "clipped one by one")
    assert_fails(check.ex_15_3(lambda ps, m: _clip(ps, m, return_after=True)), "before clipping")


# -- 16 common bugs -------------------------------------------------------------------------------------------------
def test_16_1_names_the_bugs():
    right = {"a": "zero_grad", "b": "broadcast", "c": "detached", "d": "data", "e": "rebind"}
    assert_passes(check.ex_16_1(right))
    assert_fails(check.ex_16_1({**right, "b": "data", "d": "broadcast"}), "2 of 5", "print the shapes")
    assert_fails(check.ex_16_1({**right, "a": "zero grad"}), "is not one of")


def _unreached(loss, model, *, by_value=False):
    reached, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node.name() == "torch::autograd::AccumulateGrad":
            reached.append(node.variable)
        stack.extend(n for n, _ in node.next_functions)
    if by_value:
        return [name for name, p in model.named_parameters()
                if not any(p.shape == leaf.shape and bool((p == leaf).all()) for leaf in reached)]
    return [name for name, p in model.named_parameters() if not any(p is leaf for leaf in reached)]


def test_16_2_unreached():
    assert_passes(check.ex_16_2(_unreached))
    assert_fails(check.ex_16_2(lambda loss, model: []), "misses ['0.bias', '0.weight']")

    def by_backward(loss, model):
        if loss.requires_grad:
            loss.backward()
        return [name for name, p in model.named_parameters() if p.grad is None]

    assert_fails(check.ex_16_2(by_backward), "ran backward")


# -- 12 checkpointing (its exercise came with the course's style) ------------------------------------------------------
def test_12_1_half_checkpointed():
    assert_passes(check.ex_12_1(5, 12))
    assert_fails(check.ex_12_1(9, 16), "2 of 2 wrong", "one buffer", "run again inside backward")
    assert_fails(check.ex_12_1(10, 12), "actually 5")
    assert_fails(check.ex_12_1("5", 12), "without quotes")
    assert_fails(check.ex_12_1(..., 12), "Replace the `...`")
