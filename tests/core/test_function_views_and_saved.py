"""Custom autograd Functions against ``torch.autograd.Function``, continued from ``test_function.py``: an input
returned as-is, mark_dirty, saved tensors, setup_context, misuse of the class, anomaly mode."""

from __future__ import annotations

import pytest
from function_programs import (
    _fns,
    assert_same,
    both,
    leaf,
    same_error,
    torch,
)

import autograd_lab as al


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
