"""Custom autograd Functions (``al.autograd.Function``) against ``torch.autograd.Function`` (issue 3).

Every Function is written once, for a module ``m`` that is ``al`` or ``torch`` (``_fns(m)``), and run in
both libraries: same outputs, node names, received gradients, computed gradients, versions, and the
same errors (ours may add an explanation after " [autograd_lab]").
"""

from __future__ import annotations

import functools
import gc
import re
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab.autograd.function import BackwardCFunction, FunctionCtx, once_differentiable
from autograd_lab.autograd.graph import Node

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def phrase(message: str) -> str:
    """PyTorch's part of one of our messages, spelled as PyTorch spells it."""
    return re.split(r"\s\[autograd_lab\]", message)[0].replace("al.", "torch.")


def same_error(program, *args):
    """``program(m, *args)`` raises the same type and text in both libraries; returns our message."""
    with pytest.raises(Exception) as theirs:
        program(torch, *args)
    with pytest.raises(type(theirs.value)) as ours:
        program(al, *args)
    assert phrase(str(ours.value)) == str(theirs.value)
    return str(ours.value)


def leaf(m, values, dtype="float64"):
    return m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)


def as_list(t):
    return None if t is None else t.detach().tolist()


@functools.cache
def _fns(m):
    """The custom Functions of these tests, defined for ``m`` (al or torch); received gradients are logged."""
    F = m.autograd.Function
    log = []

    class MulConst(F):  # a non-tensor argument, a saved input, an attribute on ctx
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            log.append(("needs", ctx.needs_input_grad, m.is_grad_enabled()))
            return x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            log.append(("backward grad mode", m.is_grad_enabled()))
            return grad * ctx.k, None

    class Cube(F):  # differentiable backward: second derivatives work
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    class ExpOut(F):  # saves its own output
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    class SinCos(F):  # two outputs
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            log.append(("sincos", as_list(g_sin), as_list(g_cos)))
            return g_sin * x.cos() - g_cos * x.sin()

    class SinCosNoMaterialize(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            log.append(("nomat", as_list(g_sin), as_list(g_cos)))
            grad = None
            if g_sin is not None:
                grad = g_sin * x.cos()
            if g_cos is not None:
                grad = -g_cos * x.sin() if grad is None else grad - g_cos * x.sin()
            return grad

    class WithIndex(F):  # a float output, an integer index output marked non-differentiable, a non-tensor
        @staticmethod
        def forward(ctx, x):
            index = m.tensor(np.argsort(x.detach().numpy()))
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(index)
            return x * 2, index, "label"

        @staticmethod
        def backward(ctx, grad, g_index, g_label):
            log.append(("index", as_list(g_index), g_index.dtype if g_index is not None else None, g_label))
            return grad * 2

    class Identity(F):  # returns its input as-is
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class MulInplace(F):  # modifies its input and says so
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Square(F):
        @staticmethod
        @once_differentiable_for(m)
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            log.append(("once grad mode", m.is_grad_enabled()))
            return 2 * x * grad

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

    class Scale(F):  # setup_context style, keyword argument with a default
        @staticmethod
        def forward(x, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            log.append(("setup", len(inputs), inputs[1], m.is_grad_enabled()))
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.scale, None

    return dict(MulConst=MulConst, Cube=Cube, ExpOut=ExpOut, SinCos=SinCos, SinCosNoMaterialize=SinCosNoMaterialize,
                WithIndex=WithIndex, Identity=Identity, MulInplace=MulInplace, Square=Square, Scale=Scale, log=log)


def once_differentiable_for(m):
    return once_differentiable if m is al else torch.autograd.function.once_differentiable


def run_log(m, program):
    log = _fns(m)["log"]
    log.clear()
    result = program(m, _fns(m))
    return result, list(log)


def both(program):
    """Run ``program(m, fns)`` in both libraries; return (ours, theirs) with what each Function logged."""
    return run_log(al, program), run_log(torch, program)


def assert_same(ours, theirs):
    if hasattr(theirs, "detach"):
        np.testing.assert_allclose(np.asarray(ours.detach().tolist()), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
        assert ours.requires_grad == theirs.requires_grad
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-12)
    else:
        assert ours == theirs


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


# -- an input returned as-is ----------------------------------------------------------------------
def test_an_input_returned_as_is_becomes_a_view_with_the_custom_node():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        a = x * 1
        y = f["Identity"].apply(a)
        flags = [y is a, y._is_view(), y._base is a, y.grad_fn.name(), y.data_ptr() == a.data_ptr()]
        a.add_(0)  # shared version counter
        flags.append(y._version)
        t = m.ones(2)
        z = f["Identity"].apply(t)
        flags += [z is t, z._is_view(), z.requires_grad]
        with m.no_grad():
            w = f["Identity"].apply(x)
        flags += [w is x, w.requires_grad]
        return flags, m.autograd.grad(f["Identity"].apply(x * 1).sum(), x)[0]

    (ours, _), (theirs, _) = both(program)
    assert ours[0] == theirs[0] == [False, True, True, "IdentityBackward", True, 1, False, True, False, False, False]
    assert_same(ours[1], theirs[1])


def test_in_place_on_an_output_that_is_a_view_is_refused():
    def returned_input(m):
        _fns(m)["Identity"].apply(leaf(m, [1.0, 2.0]) * 1).mul_(2)

    message = same_error(returned_input)
    assert message.startswith("Output 0 of Identity is a view and is being modified inplace. This view was created "
                              "inside a custom Function")

    def base_changed(m):
        class FirstHalf(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:1]

            @staticmethod
            def backward(ctx, grad):
                return m.cat([grad, m.zeros(1, dtype=grad.dtype)])

        base = leaf(m, [1.0, 2.0]) * 1
        view = FirstHalf.apply(base)
        base.mul_(2)
        return view.grad_fn

    assert "its base or another view of its base has been modified inplace" in same_error(base_changed)


# -- mark_dirty -----------------------------------------------------------------------------------
def test_mark_dirty_rewrites_the_history_of_the_modified_input():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        a = x * 1
        y = f["MulInplace"].apply(a)
        flags = [y is a, a.grad_fn.name(), a._version, a.grad_fn.next_functions[0][0].name()]
        (y * y).sum().backward()
        return flags, y, x.grad

    (ours, _), (theirs, _) = both(program)
    assert ours[0] == theirs[0] == [True, "MulInplaceBackward", 2, "MulBackward0"]  # mul_ and mark_dirty bump
    assert_same(ours[1:], theirs[1:])


def test_mark_dirty_on_a_view_goes_through_copy_slices():
    def program(m, f):
        x = leaf(m, [1.0, 2.0, 3.0])
        base = x * 1
        view = base[1:]
        other = base[:1]
        f["MulInplace"].apply(view)
        names = [base.grad_fn.name().split("::")[-1], view.grad_fn.name(), other.grad_fn.name(), base._version]
        (base * m.tensor([3.0, 5.0, 7.0], dtype=m.float64)).sum().backward()
        return names, base, x.grad

    (ours, _), (theirs, _) = both(program)
    assert ours[0] == theirs[0] == ["CopySlices", "AsStridedBackward0", "AsStridedBackward0", 2]
    assert_same(ours[1:], theirs[1:])


def test_mark_dirty_errors():
    leaf_message = same_error(lambda m: _fns(m)["MulInplace"].apply(leaf(m, [1.0])))
    assert leaf_message.startswith("a leaf Variable that requires grad has been used in an in-place operation.")
    assert same_error(lambda m: _fns(m)["MulInplace"].apply(leaf(m, [1.0, 2.0])[:1])).startswith(
        "a view of a leaf Variable that requires grad is being used in an in-place operation.")

    def not_returned(m):
        class Hidden(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x * 1

        Hidden.apply(leaf(m, [1.0]) * 1)

    assert "were not returned as output" in same_error(not_returned)

    def view_and_two_outputs(m):
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x, x * 2

        Two.apply((leaf(m, [1.0, 2.0]) * 1)[:1])

    assert "your Function cannot return more than one Tensor" in same_error(view_and_two_outputs)

    def inference(m):
        with m.inference_mode():
            t = m.ones(2)
        _fns(m)["MulInplace"].apply(t)

    assert "Inplace update to inference tensor outside InferenceMode" in same_error(inference)


def test_mark_dirty_under_no_grad_and_on_a_non_input():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        with m.no_grad():
            y = f["MulInplace"].apply(x)  # allowed: how optimizers update parameters
        return [y is x, y.requires_grad, x._version], x

    (ours, _), (theirs, _) = both(program)
    assert ours[0] == theirs[0] == [False, False, 2]
    assert_same(ours[1], theirs[1])

    class NotInput(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    with pytest.warns(UserWarning, match="ctx.mark_dirty\\(\\) received a tensor that was not an input"):
        assert NotInput.apply(leaf(al, [1.0])).grad_fn.name() == "NotInputBackward"


def test_a_modified_view_must_be_the_first_argument():
    class AddInto(al.autograd.Function):
        @staticmethod
        def forward(ctx, a, v):
            v.add_(a)
            ctx.mark_dirty(v)
            return v

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    view = (leaf(al, [1.0, 2.0]) * 1)[:1]
    with pytest.raises(RuntimeError, match=r"modifies in place its tensor argument 1, a view of another tensor"):
        AddInto.apply(leaf(al, [5.0]), view)


def _scaled_into(m):
    class ScaleInto(m.autograd.Function):
        @staticmethod
        def forward(ctx, k, v, name):  # non-tensor arguments around the tensor
            v.mul_(k)
            ctx.k = k
            ctx.mark_dirty(v)
            return v

        @staticmethod
        def backward(ctx, grad):
            return None, grad * ctx.k, None

    x = leaf(m, [1.0, 2.0, 3.0])
    base = x * 1
    out = ScaleInto.apply(3.0, base[1:], "scale")  # a view: the first *tensor* argument, after a number
    base.sum().backward()
    edges = [(type(n).__name__ if n is not None else None, nr) for n, nr in out.grad_fn.next_functions]
    return out.tolist(), x.grad.tolist(), edges, type(base.grad_fn).__name__


def test_non_tensor_arguments_have_no_edge_as_in_torch():
    """``next_functions`` has one edge per tensor argument (a number or string has none); backward still returns
    one gradient per argument."""
    ours, theirs = _scaled_into(al), _scaled_into(torch)
    assert ours == theirs
    assert ours[1] == [1.0, 3.0, 3.0]


# -- saved tensors --------------------------------------------------------------------------------
def test_saved_tensor_modified_in_place_raises_torch_error():
    def saved_input(m):
        a = leaf(m, [1.0, 2.0], "float32") * 1
        y = _fns(m)["MulConst"].apply(a, 2)
        a.mul_(2)
        y.sum().backward()

    message = same_error(saved_input)
    assert "is at version 1; expected version 0 instead" in message
    assert "saved as 'saved_tensors[0]' by MulConstBackward" in message

    def saved_output(m):
        y = _fns(m)["ExpOut"].apply(leaf(m, [1.0, 2.0], "float32"))
        y.mul_(2)
        y.sum().backward()

    assert "which is output 0 of ExpOut" in same_error(saved_output)


def test_saved_tensors_are_freed_after_backward():
    def program(m):
        y = _fns(m)["MulConst"].apply(leaf(m, [1.0]), 2)
        y.sum().backward(retain_graph=True)
        y.sum().backward()  # the first pass kept them for this one
        return y.grad_fn.saved_tensors

    assert "Trying to backward through the graph a second time" in same_error(program)


def test_what_can_be_saved():
    def program(m):
        class SaveMany(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None, x * 2)  # an input, None, an intermediate
                return x * 3

            @staticmethod
            def backward(ctx, grad):
                x, nothing, double = ctx.saved_tensors
                return grad * double / x + (0 if nothing is None else 1)

        x = leaf(m, [1.0, 2.0])
        SaveMany.apply(x).sum().backward()
        return x.grad

    assert_same(program(al), program(torch))

    def non_tensor(m):
        class SaveInt(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1

        SaveInt.apply(leaf(m, [1.0]))

    assert same_error(non_tensor).startswith("save_for_backward can only save variables, but argument 1 is of type int")


# -- setup_context ---------------------------------------------------------------------------------
def test_setup_context_style():
    def program(m, f):
        x = leaf(m, [1.0, 2.0])
        a = f["Scale"].apply(x, scale=3.0)
        b = f["Scale"].apply(x)
        (a + b).sum().backward()
        return a, b, x.grad

    (ours, log_ours), (theirs, log_theirs) = both(program)
    assert_same(ours, theirs)
    assert log_ours == log_theirs == [("setup", 2, 3.0, False), ("setup", 2, 2.0, False)]


def test_setup_context_misuse():
    def forward_with_ctx(m):
        class Wrong(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

        Wrong.apply(leaf(m, [1.0]))

    assert "forward takes the inputs only" in same_error(forward_with_ctx)

    def save_returned_input(m):
        class Keep(m.autograd.Function):
            @staticmethod
            def forward(x):
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(output)

        Keep.apply(leaf(m, [1.0]) * 1)

    assert "An input that has been returned as-is as output is being saved" in same_error(save_returned_input)


# -- the Function class itself --------------------------------------------------------------------
def test_function_class_misuse():
    def instantiate_and_call(m):
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            fn = _fns(m)["Cube"]()
        fn(leaf(m, [1.0]))

    assert same_error(instantiate_and_call).startswith("Legacy autograd function with non-static forward method")

    def no_forward(m):
        class Empty(m.autograd.Function):
            pass

        Empty.apply(leaf(m, [1.0]))

    assert same_error(no_forward) == "You must implement the forward function for custom autograd.Function."

    def no_backward(m):
        class ForwardOnly(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        ForwardOnly.apply(leaf(m, [1.0])).sum().backward()

    assert same_error(no_backward).startswith("You must implement either the backward or vjp method")


def test_vjp_instead_of_backward():
    def program(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, grad):
                return grad * 2

        x = leaf(m, [1.0, 2.0])
        Double.apply(x).sum().backward()
        return x.grad

    assert_same(program(al), program(torch))


# -- anomaly mode ---------------------------------------------------------------------------------
def test_anomaly_mode_names_the_custom_node_and_its_forward_line():
    def program(m):
        class NanFn(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * float("nan")

        x = leaf(m, [1.0])
        with pytest.warns(UserWarning):
            with m.autograd.detect_anomaly():
                y = NanFn.apply(x)  # the line the error must point to
                y.sum().backward()

    message = same_error(program)
    assert message == "Function 'NanFnBackward' returned nan values in its 0th output."
    with pytest.raises(RuntimeError) as info:
        program(al)
    note = "\n".join(getattr(info.value, "__notes__", [])) or str(info.value)
    assert "Error detected in NanFnBackward" in note and "y = NanFn.apply(x)" in note


def test_a_modified_view_keeps_and_frees_what_the_function_saved():
    def program(m):
        class ScaleInplace(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                x.mul_(w)
                ctx.mark_dirty(x)
                ctx.save_for_backward(w)
                return x

            @staticmethod
            def backward(ctx, grad):
                (w,) = ctx.saved_tensors
                return grad * w, None

        x = leaf(m, [1.0, 2.0, 3.0])
        base = x.clone()  # saves nothing: only what ScaleInplace saved can be freed
        ScaleInplace.apply(base[1:], m.tensor([4.0, 5.0], dtype=m.float64))
        base.sum().backward(retain_graph=True)
        base.sum().backward()  # the first pass kept the saved w for this one
        base.sum().backward()

    message = same_error(program)
    assert message.startswith("Trying to backward through the graph a second time")


@pytest.mark.parametrize("kwargs", [{}, {"k": 3.0}])
def test_setup_context_with_a_keyword_only_forward_parameter_raises_as_torch(kwargs):
    """``inputs`` holds forward's positional arguments: torch refuses a keyword-only one (we dropped k silently)."""
    def program(m):
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(x, *, k=1.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, grad):
                return grad
        Scale.apply(leaf(m, [1.0, 2.0]), **kwargs)
    assert same_error(program) == "forward() got an unexpected keyword argument 'k' [autograd_lab] Scale defines " \
        "setup_context, whose inputs are forward's positional arguments: make the keyword-only parameters of forward " \
        "positional"
