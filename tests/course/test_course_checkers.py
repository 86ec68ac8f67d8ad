"""The course's exercise checkers: right answers pass, wrong ones fail with feedback naming what is wrong.

(The notebooks' solution cells also run every checker on a right answer under nbval.)
"""

from __future__ import annotations

import pytest

import autograd_lab as al
from autograd_lab.autograd.graph import saved_tensors_hooks
from autograd_lab.course import check
from autograd_lab.course._feedback import compare_arrays


def test_compare_arrays_names_the_wrong_elements():
    result = compare_arrays("x.grad", [[1.0, -2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]])
    assert not result
    assert "1 of 4 element(s)" in str(result) and "x.grad[0, 1]: yours -2, expected 2" in str(result)
    assert compare_arrays("x.grad", al.tensor([1.0, 2.0]), [1.0, 2.0])


@pytest.mark.parametrize("got, hint", [([2.0, 4.0, 6.0], "2 times"), ([-1.0, -2.0, -3.0], "wrong sign")])
def test_compare_arrays_hints_at_common_slips(got, hint):
    assert hint in str(compare_arrays("g", got, [1.0, 2.0, 3.0]))


def test_shape_and_placeholder_messages():
    assert "shape (2,) but should have shape (3,)" in str(compare_arrays("g", [1.0, 2.0], [1.0, 2.0, 3.0]))
    assert "Replace the `...`" in str(compare_arrays("g", ..., [1.0]))


def test_check_finds_checkers_by_name_and_explains_missing_ones():
    assert callable(check.ex_00_1)
    assert "ex_00_1" in dir(check)
    with pytest.raises(AttributeError, match="no checkers for notebook 99"):
        check.ex_99_1  # noqa: B018
    with pytest.raises(AttributeError, match="has no checker 'ex_00_9'"):
        check.ex_00_9  # noqa: B018


def test_ex_00_1_lists_the_points_where_a_derivative_is_wrong():
    wrong = check.ex_00_1(lambda x: -2 * x * al.exp(-x ** 2) * al.cos(3 * x))  # forgot the cos term's derivative
    assert not wrong and "at x=1" in str(wrong)


def test_ex_00_2_recognises_a_forward_difference():
    assert "forward difference" in str(check.ex_00_2(lambda f, x, h: (f(x + h) - f(x)) / h))


def test_ex_01_1_names_the_wrong_predictions():
    answers = {"a": False, "b": True, "c": False, "d": False, "e": False, "f": True, "g": False}
    assert "c = (w * 0).sum(): requires_grad is True, you said False" in str(check.ex_01_1(answers))


def test_ex_01_1_refuses_strings_for_booleans():
    right = {"a": False, "b": True, "c": True, "d": False, "e": False, "f": True, "g": False}
    assert check.ex_01_1(right)
    quoted = {key: str(value) for key, value in right.items()}
    result = check.ex_01_1(quoted)
    assert not result and "without quotes" in str(result) and "a='False'" in str(result)


def test_ex_01_2_lists_parameters_left_trainable():
    result = check.ex_01_2(lambda model: model.features[0].requires_grad_(False))
    assert not result and "features.3.weight: requires_grad=True, should be False" in str(result)


def test_ex_01_2_refuses_a_replaced_head():
    def replace_head(model):
        model.requires_grad_(False)
        model.fc = al.nn.Linear(model.fc.in_features, model.fc.out_features)

    result = check.ex_01_2(replace_head)
    assert not result and "replaced fc" in str(result)


def test_ex_02_1_wants_eval_and_nothing_recorded():
    def no_eval(model, x):
        with al.no_grad():
            return model(x)

    assert "model.eval()" in str(check.ex_02_1(no_eval))

    def detached(model, x):
        model.eval()
        return model(x).detach()

    result = check.ex_02_1(detached)  # as ex_11_1: a graph recorded then cut off is not "without recording"
    assert not result and "recorded and then cut off" in str(result)

    def inference(model, x):
        model.eval()
        with al.inference_mode():
            return model(x)

    assert check.ex_02_1(inference)


def test_ex_02_2_refuses_data_and_names_an_update_that_did_nothing():
    def data_step(params, lr):
        for p in params:
            p.data = p.data - lr * p.grad.data

    result = check.ex_02_2(data_step)
    assert not result and "went through .data" in str(result)
    assert "changed no parameter" in str(check.ex_02_2(lambda params, lr: None))

    def no_grad_step(params, lr):
        with al.no_grad():
            for p in params:
                p.sub_(lr * p.grad)

    assert check.ex_02_2(no_grad_step)


def test_ex_03_counts_shared_nodes_once():
    def tree_walk(tensor):  # follows every edge: counts a shared node once per path
        counts, stack = {}, [tensor.grad_fn]
        while stack:
            node = stack.pop()
            if node is not None:
                counts[node.name()] = counts.get(node.name(), 0) + 1
                stack.extend(n for n, _ in node.next_functions)
        return counts

    result = check.ex_03_1(tree_walk)
    assert not result and "a node reached along two paths is one node" in str(result)


def test_ex_04_checks_saved_names_bytes_and_compression():
    answers = {"a": {"self", "other"}, "b": {"self"}, "c": set(), "d": {"result"}, "e": {"self"}, "f": set()}
    assert "b = x.exp(): you said ['self'], it saves ['result']" in str(check.ex_04_1(answers))
    assert "0 bytes" in str(check.ex_04_2(lambda forward: 0))
    assert "not float16" in str(check.ex_04_3(lambda t: t, lambda t: t))
    assert "dtype" in str(check.ex_04_3(lambda t: t.detach().to(al.float16), lambda t: t))


def _saved_bytes(forward, *, once: bool):
    seen = {}
    total = 0

    def pack(tensor):
        nonlocal total
        total += tensor.nbytes
        seen[tensor.data_ptr()] = tensor.nbytes
        return tensor

    with saved_tensors_hooks(pack, lambda t: t):
        forward()
    return sum(seen.values()) if once else total


def test_ex_04_2_counts_a_buffer_saved_twice_once():
    assert check.ex_04_2(lambda forward: _saved_bytes(forward, once=True))
    result = check.ex_04_2(lambda forward: _saved_bytes(forward, once=False))
    assert not result and "saved twice" in str(result) and "data_ptr()" in str(result)


def _accumulate(*, clear="once", scale=True):
    def accumulate(model, inputs, targets, parts):
        if clear == "once":
            model.zero_grad()
        for xs, ys in zip(inputs.chunk(parts), targets.chunk(parts)):
            if clear == "each":
                model.zero_grad()
            loss = al.nn.functional.mse_loss(model(xs), ys)
            (loss / parts if scale else loss).backward()
    return accumulate


@pytest.mark.parametrize("slip, phrase", [
    (dict(scale=False), "add up to 3 times the full-batch gradient"),
    (dict(clear="never"), "still there"),
    (dict(clear="never", scale=False), "divide each part's loss by parts; and the .grad left by an earlier step"),
    (dict(clear="each"), "only the last part's gradient is left"),
])
def test_ex_05_1_names_the_slip(slip, phrase):
    assert check.ex_05_1(_accumulate())
    result = check.ex_05_1(_accumulate(**slip))
    assert not result and phrase in str(result)


def test_ex_05_2_checks_the_vjp_and_spots_a_missing_v():
    result = check.ex_05_2([3.0, 12.0, -6.0])
    assert not result and "x.grad[1]: yours 12, expected 6" in str(result)
    assert "multiplies it by v" in str(check.ex_05_2([3.0, 12.0, 3.0]))
