"""The exercise checkers of notebooks 06-11: a right answer passes, each common mistake fails with feedback naming it,
and an untouched placeholder asks for an answer. The puzzles' programs are checked against PyTorch."""

from __future__ import annotations

import inspect
import re

import pytest

import autograd_lab as al
from autograd_lab.autograd import Function
from autograd_lab.course import check
from autograd_lab.course.ex06 import order_puzzle
from autograd_lab.course.ex07 import SNIPPETS, version_puzzle
from autograd_lab.course.ex11 import reinforce_2017, score_function_grad


def assert_passes(feedback):
    assert feedback, str(feedback)
    assert str(feedback).startswith("Correct!")


def assert_fails(feedback, *phrases: str):
    assert not feedback, f"expected a failure, got: {feedback}"
    for phrase in phrases:
        assert phrase in str(feedback), f"{phrase!r} not in feedback:\n{feedback}"


@pytest.mark.parametrize("name", [f"ex_{nb:02d}_{k}" for nb in range(6, 12) for k in (1, 2, 3)])
def test_placeholder_asks_for_an_answer(name):
    assert_fails(getattr(check, name)(...), "Replace the `...`")


# -- 06 hooks --------------------------------------------------------------------------------------------------
def test_06_1_clip_hook():
    assert_passes(check.ex_06_1(lambda g: g.clamp(-1, 1)))
    assert_fails(check.ex_06_1(lambda g: g.clamp_(-1, 1)), "in place")
    assert_fails(check.ex_06_1(lambda g: None), "returned None")
    assert_fails(check.ex_06_1(lambda g: g.clamp(-2, 2)), "2 of 6", "yours 2, expected 1", "clamped to [-1, 1]")
    assert "autograd" not in str(check.ex_06_1(lambda g: g.clamp(-2, 2)))  # the reference is np.clip, not autograd


def _run_order_puzzle_with_torch(torch) -> list[str]:
    source = inspect.getsource(order_puzzle).replace("al.", "torch.")
    namespace = {"torch": torch}
    exec(source, namespace)  # the same program, run by PyTorch
    log: list[str] = []
    namespace["order_puzzle"](log)
    return log


def test_06_2_order_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours: list[str] = []
    order_puzzle(ours)
    assert ours == _run_order_puzzle_with_torch(torch)
    assert_passes(check.ex_06_2(ours))
    assert_fails(check.ex_06_2(list(reversed(ours))), "At position 0")
    swapped = ours[:2] + [ours[3], ours[2]] + ours[4:]
    assert_fails(check.ex_06_2(swapped), "The first 2 label(s) are right")
    assert_fails(check.ex_06_2(ours[:3]), "misses")
    assert_fails(check.ex_06_2(["nonsense"] + ours[1:]), "Unknown label")


def _sgd_hook(lr, *, release=True, sign=1.0, update=True):
    def hook(param):
        if update:
            param.sub_(sign * lr * param.grad)
        if release:
            param.grad = None
    return hook


def test_06_3_sgd_in_backward():
    assert_passes(check.ex_06_3(_sgd_hook))
    assert_fails(check.ex_06_3(lambda lr: _sgd_hook(lr, release=False)), "grad is still set")
    assert_fails(check.ex_06_3(lambda lr: _sgd_hook(lr, update=False)), "was not updated")
    assert_fails(check.ex_06_3(lambda lr: _sgd_hook(lr, sign=-1.0)), "differ from a plain SGD step")


# -- 07 in-place ---------------------------------------------------------------------------------------------------
def test_07_1_versions_match_pytorch():
    torch = pytest.importorskip("torch")
    source = inspect.getsource(version_puzzle).replace("al.", "torch.")
    namespace = {"torch": torch}
    exec(source, namespace)
    actual = version_puzzle()
    assert actual == namespace["version_puzzle"]()
    assert_passes(check.ex_07_1(actual))
    assert_fails(check.ex_07_1({**actual, "row": 0}), "row: yours 0", "view")
    assert_fails(check.ex_07_1({**actual, "copy": actual["base"]}), "clone()")
    assert_fails(check.ex_07_1({**actual, "base": str(actual["base"])}), "whole number without quotes")


def test_07_2_repair():
    def fixed(x):
        s = x.sigmoid()
        s = s * 2
        return (s * x).sum()

    from autograd_lab.course.ex07 import buggy
    assert_passes(check.ex_07_2(fixed))
    assert_fails(check.ex_07_2(buggy), "still raises", "modified by an inplace operation")
    assert_fails(check.ex_07_2(lambda x: (x.sigmoid() * x).sum()), "fixed(x)", "expected")
    assert_fails(check.ex_07_2(lambda x: fixed(x).detach()), "no grad_fn")


def test_07_3_which_raise_matches_pytorch():
    torch = pytest.importorskip("torch")
    truth = {}
    for name, snippet in SNIPPETS.items():
        namespace = {"torch": torch}
        exec(inspect.getsource(snippet).replace("al.", "torch."), namespace)
        try:
            namespace[snippet.__name__]()
            truth[name] = False
        except RuntimeError:
            truth[name] = True
    assert_passes(check.ex_07_3(truth))
    flipped = {**truth, "add_then_in_place": not truth["add_then_in_place"]}
    assert_fails(check.ex_07_3(flipped), "1 of 5 wrong", "add_then_in_place")
    assert_fails(check.ex_07_3({name: str(value) for name, value in truth.items()}), "without quotes")


# -- 08 custom Functions -------------------------------------------------------------------------------------------
class Softplus(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + al.log1p((-x.abs()).exp())  # nothing large is exponentiated

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sigmoid()


class SoftplusOverflows(Softplus):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return al.log1p(x.exp())  # inf at x = 100 in float32


class SoftplusWrongSlope(Softplus):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.exp()


class SoftplusIgnoresGrad(Softplus):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return x.sigmoid()


class SoftplusNoBackward(Softplus):
    @staticmethod
    def backward(ctx, grad):
        return None


class SoftplusAttribute(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return al.log1p(x.exp())

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.x.sigmoid()


def test_08_1_softplus():
    assert_passes(check.ex_08_1(Softplus))
    assert_fails(check.ex_08_1(SoftplusOverflows), "inf", "x = 100", "max(x, 0) + log1p(exp(-|x|))")
    assert_fails(check.ex_08_1(SoftplusWrongSlope), "d Softplus(x) / dx", "6 of 6", "sigmoid(x)")
    assert_fails(check.ex_08_1(SoftplusIgnoresGrad), "ignores grad_output")
    assert_fails(check.ex_08_1(SoftplusNoBackward), "backward returned None")
    assert_fails(check.ex_08_1(SoftplusAttribute), "save_for_backward")
    assert_fails(check.ex_08_1(lambda x: x), "class itself")


class Linear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.t() + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_x = grad @ weight if ctx.needs_input_grad[0] else None
        grad_w = grad.t() @ x if ctx.needs_input_grad[1] else None
        grad_b = grad.sum(0) if ctx.needs_input_grad[2] else None
        return grad_x, grad_w, grad_b


class LinearAlways(Linear):
    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return grad @ weight, grad.t() @ x, grad.sum(0)


class LinearWrongWeight(Linear):
    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return grad @ weight, 1.5 * (grad.t() @ x), grad.sum(0)


def test_08_2_linear_and_gradcheck_lists_wrong_entries():
    assert_passes(check.ex_08_2(Linear))
    assert_fails(check.ex_08_2(LinearAlways), "needs_input_grad")
    feedback = check.ex_08_2(LinearWrongWeight)
    assert_fails(feedback, "gradcheck failed", "with respect to input 1", "numerical", "analytical")
    assert re.search(r"\[out \d+, in \d+\]", str(feedback))


class ReluWithMask(Function):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return x * mask, mask

    @staticmethod
    def backward(ctx, grad_out, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_out * mask


class ReluMaskUnmarked(ReluWithMask):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.save_for_backward(mask)
        return x * mask, mask


class ReluPassAll(ReluWithMask):
    @staticmethod
    def backward(ctx, grad_out, grad_mask):
        return grad_out


def test_08_3_mark_non_differentiable():
    assert_passes(check.ex_08_3(ReluWithMask))
    assert_fails(check.ex_08_3(ReluMaskUnmarked), "mark_non_differentiable")
    assert_fails(check.ex_08_3(ReluPassAll), "gradcheck failed", "2 of 25")
    assert_fails(check.ex_08_3(Softplus), "two tensors")


# -- 09 higher order -----------------------------------------------------------------------------------------------
def _jacobian(f, x):
    x = x.detach().requires_grad_()
    y = f(x)
    return al.stack([al.autograd.grad(y[i], x, retain_graph=True)[0] for i in range(y.shape[0])])


def test_09_1_jacobian():
    assert_passes(check.ex_09_1(_jacobian))
    assert_fails(check.ex_09_1(lambda f, x: _jacobian(f, x).t()), "transpose")


def _hvp(f, x, v, create_graph=True):
    x = x.detach().requires_grad_()
    (g,) = al.autograd.grad(f(x), x, create_graph=create_graph)
    return al.autograd.grad((g * v).sum(), x)[0]


def test_09_2_hvp():
    assert_passes(check.ex_09_2(_hvp))
    assert_fails(check.ex_09_2(lambda f, x, v: _hvp(f, x, v, create_graph=False)), "create_graph=True")
    assert_fails(check.ex_09_2(lambda f, x, v: 2 * _hvp(f, x, v)), "2 times")


def _penalty(critic, x, create_graph=True, target=1.0):
    x = x.requires_grad_()
    (g,) = al.autograd.grad(critic(x).sum(), x, create_graph=create_graph)
    return ((g.norm(dim=1) - target) ** 2).mean()


def test_09_3_gradient_penalty():
    assert_passes(check.ex_09_3(_penalty))

    def without_requires_grad(critic, x):
        (g,) = al.autograd.grad(critic(x).sum(), x, create_graph=True)
        return ((g.norm(dim=1) - 1) ** 2).mean()

    assert_fails(check.ex_09_3(without_requires_grad), "x.requires_grad_()")
    assert_fails(check.ex_09_3(lambda c, x: _penalty(c, x) * 6), "6 times the mean")
    assert_fails(check.ex_09_3(lambda c, x: _penalty(c, x, create_graph=False)), "no grad_fn")
    assert_fails(check.ex_09_3(lambda c, x: _penalty(c, x, target=0.0)), "gradient_penalty(critic, x)")


# -- 10 training -----------------------------------------------------------------------------------------------------
def test_10_1_count_parameters():
    assert_passes(check.ex_10_1(lambda m: sum(p.numel() for p in m.parameters() if p.requires_grad)))
    assert_fails(check.ex_10_1(lambda m: sum(p.numel() for p in m.parameters())), "only those with requires_grad")
    assert_fails(check.ex_10_1(lambda m: len(list(m.parameters()))), "the count is")


def test_10_1_leaves_the_learners_random_numbers_alone():
    """Notebook 10 runs the checker (exercise, then solution) between its seed and the MLP's initial weights."""
    al.manual_seed(0)
    expected = al.rand(3)
    al.manual_seed(0)
    check.ex_10_1(lambda m: sum(p.numel() for p in m.parameters() if p.requires_grad))
    assert al.equal(al.rand(3), expected)


def _step(model, optimizer, xb, yb, *, zero=True, step=True):
    if zero:
        optimizer.zero_grad()
    loss = al.nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    if step:
        optimizer.step()
    return loss.item()


def test_10_2_train_step():
    assert_passes(check.ex_10_2(_step))
    assert_fails(check.ex_10_2(lambda *a: _step(*a, zero=False)), "zero_grad")
    assert_fails(check.ex_10_2(lambda *a: _step(*a, step=False)), "optimizer.step()")
    assert_fails(check.ex_10_2(lambda m, o, x, y: al.tensor(_step(m, o, x, y))), "loss.item()")

    def detached(model, optimizer, xb, yb):
        optimizer.zero_grad()
        loss = al.nn.functional.cross_entropy(model(xb).detach().requires_grad_(), yb)
        loss.backward()
        optimizer.step()
        return loss.item()

    def cleared_late(model, optimizer, xb, yb):
        loss = al.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        return loss.item()

    assert_fails(check.ex_10_2(detached), "no gradient had reached the parameters", "detached")
    assert_fails(check.ex_10_2(cleared_late), "zero_grad() ran after backward")


def test_10_3_conv_output_size():
    assert_passes(check.ex_10_3(lambda s, k, st, p: (s + 2 * p - k) // st + 1))
    assert_fails(check.ex_10_3(lambda s, k, st, p: (s + p - k) // st + 1), "should be 8")
    assert_fails(check.ex_10_3(lambda s, k, st, p: (s + 2 * p - k) / st + 1), "floor division")


# -- 11 history --------------------------------------------------------------------------------------------------------
def test_11_1_modern_predict():
    def predict(model, x):
        with al.no_grad():
            return model(x)

    assert_passes(check.ex_11_1(predict))
    assert_fails(check.ex_11_1(lambda m, x: m(x).detach()), "detach")
    assert_fails(check.ex_11_1(lambda m, x: m(x)), "al.no_grad()")


def test_11_2_names():
    right = {"1": "C", "2": "E", "3": "B", "4": "D", "5": "A"}
    assert_passes(check.ex_11_2(right))
    assert_passes(check.ex_11_2({k: v.lower() for k, v in right.items()}))
    assert_fails(check.ex_11_2({**right, "3": "E", "2": "B"}), "2 of 5 wrong", "y.creator")


def _score_loss(probs, sample, reward):
    return -(reward * (probs / probs.sum()).log()[sample]).sum()


def test_11_3_reinforce_loss():
    assert_passes(check.ex_11_3(_score_loss))
    assert_fails(check.ex_11_3(lambda p, s, r: -(r * p.log()[s]).sum()), "2017's reinforce", "Normalise first")
    assert_fails(check.ex_11_3(lambda p, s, r: -_score_loss(p, s, r)), "wrong sign")


def test_2017_reinforce_and_todays_score_function_differ_on_weights_and_agree_through_a_softmax():
    """The numbers of the issue: probs [.2, .3, .5], reward 2, sample 2."""
    probs = al.tensor([0.2, 0.3, 0.5], dtype=al.float64)
    then = reinforce_2017(probs, lambda t: t, 2, 2.0)
    assert then.tolist() == pytest.approx([0.0, 0.0, -2.0 / (0.5 + 1e-6)])
    assert score_function_grad([0.2, 0.3, 0.5], 2, 2.0).tolist() == pytest.approx([2.0, 2.0, -2.0])
    logits = al.tensor([0.3, -1.2, 0.8], dtype=al.float64, requires_grad=True)
    p = al.nn.functional.softmax(logits, dim=0)
    _score_loss(p, al.tensor([2]), 2.0).backward()
    softmax = reinforce_2017(logits, lambda t: al.nn.functional.softmax(t, dim=0), 2, 2.0)
    assert softmax.tolist() == pytest.approx(logits.grad.tolist(), rel=1e-5)
    state = al.get_rng_state()
    reinforce_2017(probs, lambda t: t, 0, 1.0)
    assert repr(al.get_rng_state()) == repr(state)  # the legacy draw leaves the learner's random numbers alone
