"""Custom autograd Functions (``al.autograd.Function``) against ``torch.autograd.Function`` (issue 3): forward,
backward and the ctx, what backward may return, several outputs, once_differentiable, needs_input_grad.

Every Function is written once, for a module ``m`` that is ``al`` or ``torch`` (``function_programs._fns(m)``), and
run in both libraries: same outputs, node names, received gradients, computed gradients, versions, and the
same errors (ours may add an explanation after " [autograd_lab]"). ``test_function_views_and_saved.py`` has the rest.
"""

from __future__ import annotations

import functools
import gc
import weakref

import numpy as np
import pytest
from function_programs import (
    _fns,
    assert_same,
    both,
    leaf,
    same_error,
    torch,
)
from hypothesis import given
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab.autograd.function import BackwardCFunction, FunctionCtx
from autograd_lab.autograd.graph import Node


# -- forward, backward, ctx -----------------------------------------------------------------------
def test_forward_backward_and_the_node_match_torch():
    def program(m, f):
        x = leaf(m, [1.0, -2.0, 3.0])
        y = f["MulConst"].apply(x, 3)
        assert y.grad_fn.name() == "MulConstBackward"
        assert y.grad_fn.k == 3 and y.grad_fn.needs_input_grad == (True, False)
        assert y.grad_fn.saved_tensors[0] is x  # the node is the ctx
        assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
        (y * y).sum().backward()
        return y, x.grad

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert_same(ours, theirs)
    assert log_ours == log_theirs == [("needs", (True, False), False), ("backward grad mode", False)]


def test_the_node_is_a_graph_node_and_the_ctx():
    x = leaf(al, [1.0, 2.0])
    y = _fns(al)["ExpOut"].apply(x)
    node = y.grad_fn
    assert isinstance(node, Node) and isinstance(node, FunctionCtx) and isinstance(node, BackwardCFunction)
    assert type(node) is _fns(al)["ExpOut"]._backward_cls and node._forward_cls is _fns(al)["ExpOut"]
    assert repr(node).startswith("<ExpOutBackward object at")
    (record,) = node._raw_saved_tensors
    assert record.is_output and record.saved_version == 0
    saved = node.saved_tensors[0]
    assert saved.equal(y) and saved is not y and saved.grad_fn is node  # the output, without a reference cycle
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated; use 'saved_tensors'"):
        assert node.saved_variables[0].equal(y)
    seen = []
    node.register_prehook(lambda grads: seen.append("pre"))
    node.register_hook(lambda grad_inputs, grad_outputs: seen.append("post"))
    y.sum().backward()
    assert seen == ["pre", "post"]
    np.testing.assert_allclose(x.grad._data, np.exp([1.0, 2.0]))


def test_the_node_does_not_keep_its_outputs_alive():
    gc.disable()
    try:
        x = leaf(al, [1.0, 2.0])
        y = _fns(al)["ExpOut"].apply(x)
        node, ref = y.grad_fn, weakref.ref(y)
        del y
        assert ref() is None  # freed by reference counting alone: no cycle through the node
        assert node.saved_tensors[0].tolist() == pytest.approx(np.exp([1.0, 2.0]).tolist())
    finally:
        gc.enable()


def test_forward_runs_under_no_grad_and_outputs_follow_the_inputs():
    def program(m, f):
        x, c = leaf(m, [1.0, 2.0]), m.tensor([1.0, 2.0])
        with m.no_grad():
            under_no_grad = f["MulConst"].apply(x, 2)
        return [under_no_grad.requires_grad, under_no_grad.grad_fn is None, f["MulConst"].apply(c, 2).requires_grad]

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert ours == theirs == [False, True, False]
    assert log_ours == log_theirs  # needs_input_grad is computed even under no_grad


@pytest.mark.parametrize("name", ["MulConst", "Cube", "ExpOut"])
def test_gradcheck_and_gradgradcheck(name):
    fn = _fns(al)[name]
    x = al.tensor([0.3, -1.2, 0.8], dtype=al.float64, requires_grad=True)
    call = (lambda t: fn.apply(t, 2.5)) if name == "MulConst" else fn.apply
    assert al.autograd.gradcheck(call, (x,))
    assert al.autograd.gradgradcheck(call, (x,))


def test_gradcheck_of_several_outputs():
    x = al.tensor([0.3, -1.2, 0.8], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(_fns(al)["SinCos"].apply, (x,))
    assert al.autograd.gradgradcheck(_fns(al)["SinCos"].apply, (x,))


@given(st.lists(st.integers(1, 3), min_size=0, max_size=3), st.integers(0, 2))
def test_broadcasting_function_on_random_shapes(shape, lead):
    """A Function whose backward returns the broadcast gradient: the engine sums it down, as PyTorch does."""
    def program(m):
        rng = np.random.default_rng(len(shape) * 10 + lead)
        x = m.tensor(rng.standard_normal((2,) * lead + tuple(shape)), requires_grad=True)
        b = m.tensor(rng.standard_normal(tuple(shape)), requires_grad=True)
        (_add_bias(m).apply(x, b) * x).sum().backward()
        return x.grad, b.grad

    assert_same(program(al), program(torch))
    b = al.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), dtype=al.float64, requires_grad=True)
    x = al.tensor(np.ones((2,) * lead + tuple(shape)), dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(_add_bias(al).apply, (x, b))


@functools.cache
def _add_bias(m):
    class AddBias(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad  # b's gradient still has x's (broadcast) shape: the engine sums it down

    return AddBias


# -- what backward returns ------------------------------------------------------------------------
def _returning(m, result, args=("x",)):
    """A Function of ``args`` whose backward returns ``result(grad)``."""
    class MyFn(m.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            return inputs[0] * 2

        @staticmethod
        def backward(ctx, grad):
            return result(m, grad)

    return MyFn


def test_wrong_number_of_gradients_is_the_issue_message():
    def program(m):
        _returning(m, lambda m, g: g).apply(leaf(m, [1.0, 2.0]), 3).sum().backward()

    message = same_error(program)
    assert message.startswith("function MyFnBackward returned an incorrect number of gradients (expected 2, got 1)")
    assert "one gradient per argument of forward" in message


def test_extra_none_gradients_are_allowed_but_not_extra_tensors():
    def trailing_none(m):
        x = leaf(m, [1.0, 2.0])
        _returning(m, lambda m, g: (g, None, None)).apply(x).sum().backward()
        return x.grad

    assert_same(trailing_none(al), trailing_none(torch))
    same_error(lambda m: _returning(m, lambda m, g: (g, g)).apply(leaf(m, [1.0])).sum().backward())


def test_gradient_of_the_wrong_shape():
    message = same_error(lambda m: _returning(m, lambda m, g: m.ones(3)).apply(leaf(m, [1.0, 2.0])).sum().backward())
    assert message.startswith("Function MyFnBackward returned an invalid gradient at index 0 - got [3] but expected "
                              "shape compatible with [2]")
    same_error(lambda m: _returning(m, lambda m, g: m.ones(1)).apply(leaf(m, [1.0, 2.0])).sum().backward())


def test_gradient_of_the_wrong_type():
    message = same_error(lambda m: _returning(m, lambda m, g: 3.0).apply(leaf(m, [1.0])).sum().backward())
    assert message.startswith("expected Variable or None (got float)")
    same_error(lambda m: _returning(m, lambda m, g: [g]).apply(leaf(m, [1.0])).sum().backward())


def test_gradient_for_a_non_tensor_argument():
    message = same_error(lambda m: _returning(m, lambda m, g: (g, m.ones(1))).apply(leaf(m, [1.0]), 2).sum().backward())
    assert "returned a gradient different than None at position 2" in message


def test_gradients_that_are_summed_cast_or_ignored_as_in_torch():
    def program(m):
        x, c = leaf(m, [1.0, 2.0], "float32"), m.ones(2)
        _returning(m, lambda m, g: m.ones(3, 2, dtype=m.float64)).apply(x).sum().backward()  # summed, cast
        first = x.grad.clone()
        x.grad = None
        _returning(m, lambda m, g: (g, m.ones(5)), ("x", "c")).apply(x, c).sum().backward()  # c needs none
        return first, first.dtype == m.float32, x.grad

    assert_same(program(al), program(torch))


def test_a_node_without_incoming_gradient_still_runs_its_backward():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        y = _returning(m, lambda m, g: None).apply(f["MulConst"].apply(x, 3))
        y.sum().backward()
        return x.grad

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert_same(ours, theirs)  # zeros: MulConst's backward ran on a materialized zero gradient
    assert log_ours == log_theirs


# -- several outputs, materialization, non-differentiable outputs ---------------------------------
@pytest.mark.parametrize("name", ["SinCos", "SinCosNoMaterialize"])
@pytest.mark.parametrize("use", ["sin", "cos", "both"])
def test_several_outputs_and_materialized_gradients(name, use):
    def program(m, f):
        x = leaf(m, [0.5, -1.0])
        s, c = f[name].apply(x)
        assert s.grad_fn is c.grad_fn and s.grad_fn.name() == name + "Backward"
        loss = {"sin": s.sum(), "cos": (c * 3).sum(), "both": (s * c).sum()}[use]
        loss.backward()
        return x.grad

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert_same(ours, theirs)
    assert_same(log_ours, log_theirs)  # zeros for the unused output, or None without materialization


def test_non_differentiable_and_non_tensor_outputs():
    def program(m, f):
        x = leaf(m, [3.0, 1.0, 2.0])
        y, index, label = f["WithIndex"].apply(x)
        flags = [index.requires_grad, index.grad_fn is None, index.is_leaf, y.grad_fn.name(), label]
        y.sum().backward()
        return flags, x.grad, index

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert ours[0] == theirs[0] == [False, True, True, "WithIndexBackward", "label"]
    assert_same(ours[1:], theirs[1:])
    assert log_ours[-1][:2] == log_theirs[-1][:2] == ("index", [0, 0, 0])  # integer zeros, as materialized
    assert str(log_ours[-1][2]).split(".")[-1] == str(log_theirs[-1][2]).split(".")[-1] == "int64"
    assert log_ours[-1][3] is None and log_theirs[-1][3] is None


def test_marking_a_non_tensor():
    def nondiff(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(3)
                return x * 1

        Bad.apply(leaf(m, [1.0]))

    with pytest.raises(RuntimeError, match="mark_non_differentiable only accepts variable arguments, but got"):
        nondiff(torch)
    with pytest.raises(RuntimeError, match="mark_non_differentiable only accepts variable arguments, but got int"):
        nondiff(al)


def test_same_tensor_returned_twice_takes_the_last_slot():
    def program(m):
        class Dup(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                return y, y

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 10 + g2

        x = leaf(m, [1.0, 2.0])
        a, b = Dup.apply(x)
        (a + b * 3).sum().backward()
        return a is b, x.grad

    assert_same(program(al), program(torch))


# -- once_differentiable --------------------------------------------------------------------------
def test_once_differentiable_first_order_and_its_error_on_double_backward():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        y = f["Square"].apply(x)
        (gx,) = m.autograd.grad((y * y).sum(), x, create_graph=True)  # the incoming gradient requires grad
        flags = [gx.requires_grad, gx.grad_fn.name().split("::")[-1]]
        with pytest.raises(RuntimeError) as info:
            gx.sum().backward()
        (plain,) = m.autograd.grad(f["Square"].apply(x).sum(), x, create_graph=True)
        return flags, str(info.value), gx, plain.requires_grad

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert ours[0] == theirs[0] == [True, "Error"]
    assert ours[1] == theirs[1] == "trying to differentiate twice a function that was marked with @once_differentiable"
    assert_same(ours[2:], theirs[2:])
    assert log_ours == log_theirs and ("once grad mode", False) in log_ours


def test_gradgradcheck_catches_a_once_differentiable_function():
    x = al.tensor([0.5, 1.5], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(_fns(al)["Square"].apply, (x,))
    with pytest.raises(al.autograd.GradcheckError, match="Jacobian mismatch"):
        al.autograd.gradgradcheck(_fns(al)["Square"].apply, (x,))


# -- needs_input_grad -----------------------------------------------------------------------------
def test_needs_input_grad_in_forward_and_backward():
    def program(m):
        seen = []

        class Three(m.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k, c):
                seen.append(ctx.needs_input_grad)
                return a * b * c * k

            @staticmethod
            def backward(ctx, grad):
                seen.append(ctx.needs_input_grad)
                return (grad if ctx.needs_input_grad[0] else None), None, None, grad

        x = leaf(m, [1.0, 2.0])
        Three.apply(x, m.ones(2), 3, x * 1).sum().backward()
        return seen, x.grad

    ours, theirs = program(al), program(torch)
    assert ours[0] == theirs[0] == [(True, False, False, True)] * 2
    assert_same(ours[1], theirs[1])
