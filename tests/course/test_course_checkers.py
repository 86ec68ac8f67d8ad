"""The course's exercise checkers: right answers pass, wrong ones fail with feedback naming what is wrong.

(The notebooks' solution cells also run every checker on a right answer under nbval.)
"""

from __future__ import annotations

import pytest

import autograd_lab as al
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


def test_ex_01_2_lists_parameters_left_trainable():
    result = check.ex_01_2(lambda model: model.features[0].requires_grad_(False))
    assert not result and "features.3.weight: requires_grad=True, should be False" in str(result)


def test_ex_02_1_and_2_explain_what_is_missing():
    assert "model.eval()" in str(check.ex_02_1(lambda model, x: model(x).detach()))

    def data_step(params, lr):
        for p in params:
            p.data = p.data - lr * p.grad.data

    assert check.ex_02_2(data_step)  # assigning .data is also a valid in-place update


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


def test_ex_05_checks_accumulation_and_vjp():
    def no_scaling(model, inputs, targets, parts):
        model.zero_grad()
        for xs, ys in zip(inputs.chunk(parts), targets.chunk(parts)):
            al.nn.functional.mse_loss(model(xs), ys).backward()

    assert "3 times the expected" in str(check.ex_05_1(no_scaling))
    result = check.ex_05_2([3.0, 12.0, -6.0])
    assert not result and "x.grad[1]: yours 12, expected 6" in str(result)
