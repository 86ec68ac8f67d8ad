"""Errors carry PyTorch's key phrase (so that searching for it finds PyTorch's answers) and, where
PyTorch is installed, have the same exception type as PyTorch's."""

from __future__ import annotations

import re

import pytest

import autograd_lab as al


def _same_error(torch_fn, al_fn, phrase: str) -> None:
    """Both raise; same exception type; both messages contain ``phrase``."""
    with pytest.raises(Exception) as texc:
        torch_fn()
    assert phrase in str(texc.value), f"torch's message changed: {texc.value}"
    with pytest.raises(type(texc.value)) as aexc:
        al_fn()
    assert type(aexc.value) is type(texc.value) or isinstance(aexc.value, type(texc.value))
    assert phrase in str(aexc.value)


# -- backward roots --------------------------------------------------------------------------------
def test_backward_of_tensor_without_grad():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        (al.tensor([1.0]) * 2).sum().backward()


def test_backward_of_tensor_without_grad_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: (torch.tensor([1.0]) * 2).sum().backward(),
                lambda: (al.tensor([1.0]) * 2).sum().backward(),
                "element 0 of tensors does not require grad and does not have a grad_fn")


def test_grad_of_output_without_grad():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        al.autograd.grad(al.tensor(1.0), x)


def test_backward_under_no_grad_computed_output():
    x = al.tensor([1.0], requires_grad=True)
    with al.no_grad():
        y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        y.backward()


def test_implicit_gradient_only_for_scalars():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        al.autograd.grad(x * 2, x)


def test_implicit_gradient_only_for_scalars_matches_torch():
    torch = pytest.importorskip("torch")
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ax = al.tensor([1.0, 2.0], requires_grad=True)
    _same_error(lambda: (tx * 2).backward(), lambda: (ax * 2).backward(),
                "grad can be implicitly created only for scalar outputs")


def test_gradient_count_mismatch():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        al.autograd.backward([x * 2, x * 3], [al.ones(2)])


# -- numpy / item / requires_grad ------------------------------------------------------------------
def test_numpy_of_tensor_requiring_grad():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("Can't call numpy() on Tensor that requires grad")):
        x.numpy()
    with pytest.raises(RuntimeError, match=re.escape("Can't call numpy() on Tensor that requires grad")):
        (x * 2).numpy()
    assert x.detach().numpy().tolist() == [1.0]


def test_numpy_of_tensor_requiring_grad_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.tensor([1.0], requires_grad=True).numpy(),
                lambda: al.tensor([1.0], requires_grad=True).numpy(),
                "Can't call numpy() on Tensor that requires grad")


def test_requires_grad_on_integer_tensor():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        al.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        al.zeros(2, dtype=al.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        al.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        al.arange(3).requires_grad = True


def test_requires_grad_on_integer_tensor_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.tensor([1, 2], requires_grad=True),
                lambda: al.tensor([1, 2], requires_grad=True),
                "Only Tensors of floating point and complex dtype can require gradients")
    _same_error(lambda: torch.tensor([1, 2]).requires_grad_(),
                lambda: al.tensor([1, 2]).requires_grad_(),
                "only Tensors of floating point dtype can require gradients")


def test_requires_grad_false_on_non_leaf():
    y = al.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    y.requires_grad_(True)  # allowed: it already requires grad
    assert y.requires_grad


def test_requires_grad_false_on_non_leaf_matches_torch():
    torch = pytest.importorskip("torch")

    def set_false(lib):
        y = lib.tensor([1.0], requires_grad=True) * 2
        y.requires_grad = False

    _same_error(lambda: set_false(torch), lambda: set_false(al),
                "you can only change requires_grad flags of leaf variables")


def test_item_of_multi_element_tensor():
    with pytest.raises(RuntimeError, match="a Tensor with 3 elements cannot be converted to Scalar"):
        al.tensor([1.0, 2.0, 3.0]).item()
    assert al.tensor([[4.0]]).item() == 4.0


def test_item_of_multi_element_tensor_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.tensor([1.0, 2.0, 3.0]).item(), lambda: al.tensor([1.0, 2.0, 3.0]).item(),
                "a Tensor with 3 elements cannot be converted to Scalar")


def test_bool_of_multi_element_tensor_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: bool(torch.tensor([1.0, 2.0])), lambda: bool(al.tensor([1.0, 2.0])),
                "Boolean value of Tensor with more than one value is ambiguous")


# -- autograd.grad ---------------------------------------------------------------------------------
def test_unused_input():
    x = al.tensor([1.0], requires_grad=True)
    unused = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used in the graph"):
        al.autograd.grad((x * 2).sum(), [x, unused])


def test_unused_input_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        unused = lib.tensor([1.0], requires_grad=True)
        lib.autograd.grad((x * 2).sum(), [x, unused])

    _same_error(lambda: run(torch), lambda: run(al),
                "The differentiated Tensor at index 1 appears to not have been used in the graph")


def test_input_that_does_not_require_grad():
    x = al.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        al.autograd.grad((x * 2).sum(), [x, al.tensor([1.0])])
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        (x * 2).sum().backward(inputs=[al.tensor([1.0])])  # (PyTorch's phrase: backward retains grad of its inputs)


def test_input_that_does_not_require_grad_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        lib.autograd.grad((x * 2).sum(), [x, lib.tensor([1.0])])

    _same_error(lambda: run(torch), lambda: run(al), "One of the differentiated Tensors does not require grad")


def test_second_backward_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    _same_error(lambda: run(torch), lambda: run(al), "Trying to backward through the graph a second time")


def test_gradient_shape_mismatch_names_both_shapes():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape") as exc:
        (x * 2).backward(al.ones(3))
    assert "[3]" in str(exc.value) and "[2]" in str(exc.value)


# -- broadcasting ----------------------------------------------------------------------------------
def test_broadcasting_failure_names_both_shapes():
    a = al.ones(2, 3)
    b = al.ones(4)
    with pytest.raises(RuntimeError, match=re.escape("The size of tensor a (3) must match the size of tensor b (4)")) as exc:
        a + b
    message = str(exc.value)
    assert "(2, 3)" in message and "(4,)" in message


def test_broadcasting_failure_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.ones(2, 3) * torch.ones(4), lambda: al.ones(2, 3) * al.ones(4),
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")
    _same_error(lambda: torch.ones(5, 1, 3) + torch.ones(2, 4), lambda: al.ones(5, 1, 3) + al.ones(2, 4),
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2")


# -- hooks and grads -------------------------------------------------------------------------------
def test_hook_on_tensor_without_grad_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.ones(1).register_hook(lambda g: g), lambda: al.ones(1).register_hook(lambda g: g),
                "cannot register a hook on a tensor that doesn't require gradient")


def test_retain_grad_without_grad_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.ones(1).retain_grad(), lambda: al.ones(1).retain_grad(),
                "can't retain_grad on Tensor that has requires_grad=False")


def test_post_accumulate_hook_on_non_leaf_matches_torch():
    torch = pytest.importorskip("torch")
    _same_error(lambda: (torch.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
                lambda: (al.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
                "post accumulate grad hooks cannot be registered on non-leaf tensors")


def test_assigning_grad_of_wrong_shape():
    x = al.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("attempting to assign a gradient of size '[3]' to a tensor of size '[2]'")):
        x.grad = al.ones(3)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        x.grad = al.ones(2, dtype=al.float64)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        x.grad = [1.0, 1.0]


def test_assigning_grad_of_wrong_shape_matches_torch():
    torch = pytest.importorskip("torch")

    def assign(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = lib.ones(3)

    _same_error(lambda: assign(torch), lambda: assign(al),
                "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'")


def test_node_hook_returning_wrong_shape_names_the_hook():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: (lib.ones(3), None))
        y.sum().backward()

    _same_error(lambda: run(torch), lambda: run(al), "hook '<lambda>' has changed the size of value")


def test_deepcopy_of_non_leaf_matches_torch():
    torch = pytest.importorskip("torch")
    import copy

    _same_error(lambda: copy.deepcopy(torch.ones(1, requires_grad=True) * 2),
                lambda: copy.deepcopy(al.ones(1, requires_grad=True) * 2),
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol")


def test_anomaly_mode_error_carries_the_forward_traceback_of_the_failing_node():
    x = al.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = al.autograd.detect_anomaly()
    with mode:
        y = (x.sqrt() * 0).sum()  # d sqrt(x)/dx at 0 is inf, times 0 gives nan
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output") as info:
            y.backward()
    note = "\n".join(getattr(info.value, "__notes__", [])) or str(info.value)
    assert "Traceback of forward call that caused the error" in note
    assert "test_errors.py" in note and "x.sqrt()" in note  # the learner's own line
    assert "autograd_lab/ops" not in note  # the library's frames are left out


def test_op_errors_name_the_function_as_pytorch_spells_it():
    """Errors raised inside an op name the function the user called, in PyTorch's spelling (``mse_loss``,
    not the node's ``MseLossBackward0``)."""
    import warnings

    from autograd_lab.ops._errors import function_name as _function_name
    from autograd_lab.ops.nn import NativeBatchNormBackward0
    from autograd_lab.ops.pointwise import Log1PBackward0
    assert _function_name(NativeBatchNormBackward0) == "native_batch_norm"
    assert _function_name(Log1PBackward0) == "log1p"
    assert _function_name(type("MaxPool2DWithIndicesBackward0", (), {})) == "max_pool2d_with_indices"
    assert _function_name(type("MaskedFillBackward1", (), {})) == "masked_fill"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the size warning that precedes the error)
        with pytest.raises(RuntimeError, match=r"\[autograd_lab\] mse_loss cannot broadcast shapes \(3,\) and \(4,\)"):
            al.nn.functional.mse_loss(al.ones(3), al.ones(4))


def _gather_scatter_cases(m):
    x, long = m.ones(3, 4), m.long
    return {
        "index larger along dim": lambda: x.gather(1, m.zeros(3, 5, dtype=long)),
        "index larger elsewhere": lambda: x.gather(1, m.zeros(4, 2, dtype=long)),
        "negative index": lambda: x.gather(1, m.full((3, 2), -1)),
        "int32 index": lambda: x.gather(1, m.zeros(3, 2, dtype=m.int32)),
        "float index": lambda: x.gather(1, m.zeros(3, 2)),
        "bool index": lambda: x.gather(1, m.zeros(3, 2, dtype=m.bool)),
        "index of other ndim": lambda: x.gather(0, m.tensor([1])),
        "0-d input": lambda: m.tensor(2.0).gather(0, m.tensor([0, 0])),
        "empty index": lambda: x.gather(1, m.zeros(3, 0, dtype=long)),
        "scatter_add src dtype": lambda: x.scatter_add(1, m.zeros(3, 2, dtype=long), m.ones(3, 2, dtype=m.float64)),
        "scatter_add small src": lambda: x.scatter_add(1, m.zeros(3, 2, dtype=long), m.ones(3, 1)),
        "scatter_add out of bounds": lambda: x.scatter_add(1, m.full((3, 2), 7), m.ones(3, 2)),
        "scatter_add float index": lambda: x.scatter_add(1, m.zeros(3, 2), m.ones(3, 2)),
        "scatter_add index of other ndim": lambda: x.scatter_add(1, m.zeros(3, dtype=long), m.ones(3)),
    }


@pytest.mark.parametrize("case", list(_gather_scatter_cases(al)))
def test_gather_and_scatter_add_check_their_index_as_pytorch_does(case):
    """PyTorch's index checks, with its messages: NumPy would wrap a negative index around, broadcast an
    index of the wrong rank, or take a float index's error for its own."""
    torch = pytest.importorskip("torch")
    theirs, ours = _gather_scatter_cases(torch)[case], _gather_scatter_cases(al)[case]
    try:
        expected = theirs()
    except RuntimeError as exc:
        phrase = str(exc).split(" [autograd_lab]")[0]
        with pytest.raises(RuntimeError) as caught:
            ours()
        assert str(caught.value).startswith(phrase)
    else:
        assert tuple(ours().shape) == tuple(expected.shape)


@pytest.mark.parametrize("args", [("cuda", -1), ("cuda:0", 1), ("cuda:01",), ("cuda: 1",), ("cuda:",), (" cpu",),
                                  ("cuda:x",), ("CUDA",), ("tpu",)])
def test_bad_device_strings_raise_pytorchs_errors(args):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.device(*args)
    with pytest.raises(RuntimeError) as ours:
        al.device(*args)
    phrase = str(theirs.value).split(" device type at start")[0].split(", ipu")[0]
    assert str(ours.value).startswith(phrase)


def test_good_device_strings():
    assert repr(al.device("cpu:1")) == "device(type='cpu', index=1)"
    assert repr(al.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert repr(al.device(0)) == "device(type='cuda', index=0)"  # an index alone is an accelerator's


def test_integer_powers_with_negative_exponents_follow_pytorch():
    """A negative Python exponent of an integer tensor is PyTorch's RuntimeError; negative exponents in a
    tensor give PyTorch's truncated results (NumPy raises ValueError for both)."""
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.tensor([2]) ** -1, lambda: al.tensor([2]) ** -1,
                "Integers to negative integer powers are not allowed.")
    for m in (torch, al):
        base, exponent = m.tensor([2, 1, -1, -1, 0, 3]), m.tensor([-1, -3, -3, -2, 2, 2])
        assert m.pow(base, exponent).tolist() == [0, 1, -1, 1, 0, 9]
        assert (2 ** exponent).tolist() == [0, 0, 0, 0, 4, 4]
        assert ((-1) ** exponent).tolist() == [-1, -1, -1, 1, 1, 1]


def _window_cases(m):
    F, x, w = m.nn.functional, m.ones(1, 1, 6, 6), m.ones(2, 1, 3, 3)
    return {
        "conv stride 0": lambda: F.conv2d(x, w, stride=0), "conv stride -1": lambda: F.conv2d(x, w, stride=-1),
        "conv dilation 0": lambda: F.conv2d(x, w, dilation=0), "conv padding -1": lambda: F.conv2d(x, w, padding=-1),
        "conv groups 0": lambda: F.conv2d(x, w, groups=0),
        "max_pool stride 0": lambda: F.max_pool2d(x, 2, stride=0), "max_pool kernel 0": lambda: F.max_pool2d(x, 0),
        "max_pool kernel 0 stride 1": lambda: F.max_pool2d(x, 0, 1),
        "max_pool stride -1": lambda: F.max_pool2d(x, 2, stride=-1),
        "max_pool dilation 0": lambda: F.max_pool2d(x, 2, dilation=0),
        "max_pool padding -1": lambda: F.max_pool2d(x, 2, padding=-1),
        "max_pool padding 2": lambda: F.max_pool2d(x, 2, padding=2),
        "avg_pool stride 0": lambda: F.avg_pool2d(x, 2, stride=0), "avg_pool kernel 0": lambda: F.avg_pool2d(x, 0),
        "avg_pool padding -1": lambda: F.avg_pool2d(x, 2, padding=-1), "MaxPool2d(2, 0)": lambda: m.nn.MaxPool2d(2, 0)(x),
    }


@pytest.mark.parametrize("case", list(_window_cases(al)))
def test_convolution_and_pooling_windows_are_checked_as_in_pytorch(case):
    """Strides, kernels, dilations, paddings and groups out of range raise PyTorch's RuntimeError and phrase
    (a zero stride used to reach a Python ZeroDivisionError, a negative padding NumPy's indexing error)."""
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        _window_cases(torch)[case]()
    with pytest.raises(RuntimeError) as ours:
        _window_cases(al)[case]()
    assert str(ours.value).startswith(str(theirs.value).split(" [")[0])


def test_creation_refuses_negative_sizes_and_where_a_non_boolean_condition():
    torch = pytest.importorskip("torch")
    for make in ("ones", "randn", "rand", "empty"):
        _same_error(lambda make=make: getattr(torch, make)(2, -1), lambda make=make: getattr(al, make)(2, -1),
                    "Trying to create tensor with negative dimension -1: [2, -1]")
    _same_error(lambda: torch.zeros(2, -1), lambda: al.zeros(2, -1), "zeros: Dimension size must be non-negative.")
    _same_error(lambda: torch.where(torch.ones(2), torch.ones(2), torch.zeros(2)),
                lambda: al.where(al.ones(2), al.ones(2), al.zeros(2)),
                "where expected condition to be a boolean tensor, but got a tensor with dtype Float")
    _same_error(lambda: torch.cat([]), lambda: al.cat([]), "expected a non-empty list of Tensors")


def test_index_select_matches_pytorch():
    """``index_select``: values, node and saved attributes, gradient (repeated indices accumulate), the 0-d
    rule and PyTorch's index checks."""
    torch = pytest.importorskip("torch")
    import numpy as np
    results = {}
    for m in (torch, al):
        x = m.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        y = x.index_select(1, m.tensor([2, 0, 2]))
        node = y.grad_fn
        assert node.name() == "IndexSelectBackward0"
        assert (node._saved_dim, tuple(node._saved_self_sym_sizes)) == (1, (2, 3))
        (y * m.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
        scalar = m.tensor(2.0).index_select(0, m.tensor([0]))
        results[m] = (y.tolist(), x.grad.tolist(), tuple(scalar.shape))
        assert m.autograd.gradgradcheck(lambda a, m=m: a.index_select(0, m.tensor([1, 1, 0])),
                                        (m.tensor(np.random.default_rng(0).random((2, 3)), requires_grad=True),))
    assert results[al] == results[torch]
    checks = [lambda m: m.ones(2, 3).index_select(1, m.tensor([[0]])), lambda m: m.ones(2, 3).index_select(1, m.tensor([3])),
              lambda m: m.ones(2, 3).index_select(1, m.tensor([0.0])), lambda m: m.ones(2, 3).index_select(1, m.tensor([-1])),
              lambda m: m.tensor(2.0).index_select(0, m.tensor([0, 0]))]
    for check in checks:
        with pytest.raises(Exception) as theirs:
            check(torch)
        with pytest.raises(type(theirs.value)) as ours:
            check(al)
        assert str(ours.value).startswith(str(theirs.value))


_OUT_OF_BOUNDS_KEYS = [((3, 4), (0, 5)), ((3, 4), (5, 0)), ((3, 4), (slice(None), 7)), ((3, 4), (-4,)),
                       ((3, 4), (1, -5)), ((3, 4), (slice(1, None), -5)), ((3, 4), (None, 0, 9)),
                       ((3, 4), (None, None, 2, 4)), ((3, 4), (0, Ellipsis, 9)), ((2, 3, 4), (Ellipsis, 9)),
                       ((2, 3, 4), (0, 0, Ellipsis, 9)), ((2, 3, 4), (Ellipsis, 0, 9)), ((2, 3, 4), (None, Ellipsis, 9)),
                       ((2, 3, 4), (1, slice(0, 2), 4)), ((3,), 3), ((3,), -4)]


@pytest.mark.parametrize(("shape", "key"), _OUT_OF_BOUNDS_KEYS, ids=[repr(k) for _, k in _OUT_OF_BOUNDS_KEYS])
def test_out_of_bounds_index_names_the_dimension_as_pytorch_does(shape, key):
    """PyTorch names the dimension by the index's position in the key (``None`` and ``...`` count one
    each), whether the key takes the fast path (ints and slices) or the general one."""
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError) as theirs:
        torch.zeros(shape)[key]
    with pytest.raises(IndexError) as ours:
        al.zeros(shape)[key]
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("key", [0, 1, -1, slice(None), slice(0, 1), (0,), (0, 0), (slice(None),)], ids=repr)
def test_indexing_a_0_dim_tensor_raises_pytorchs_errors(key):
    """``loss[0]`` on a 0-dim loss: the error PyTorch 0.4 taught a generation to fix with ``.item()``."""
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError) as theirs:
        torch.tensor(2.0)[key]
    with pytest.raises(IndexError) as ours:
        al.tensor(2.0)[key]
    assert str(ours.value).startswith(str(theirs.value))


def test_relu_of_bool_tensor_raises_pytorchs_error():
    with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu$"):
        al.tensor([True, False]).relu()
    assert al.tensor([3, -2]).relu().tolist() == [3, 0]  # integers keep their dtype, as in PyTorch
    assert al.tensor([3, -2]).relu().dtype == al.int64


@pytest.mark.parametrize("name, kernel", [("abs", "abs_cpu"), ("floor", "floor_vml_cpu"), ("ceil", "ceil_vml_cpu"),
                                          ("round", "round_vml_cpu"), ("trunc", "trunc_vml_cpu")])
def test_ops_without_a_bool_kernel_refuse_bool_tensors_as_torch_does(name, kernel):
    torch = pytest.importorskip("torch")
    message = f'^"{kernel}" not implemented for \'Bool\''
    for m in (torch, al):
        with pytest.raises(NotImplementedError, match=message):
            getattr(m, name)(m.tensor([True, False]))
    assert al.abs(al.tensor([-3, 2])).tolist() == [3, 2] and al.floor(al.tensor([1, 2])).dtype == al.int64


def test_relu_of_bool_tensor_matches_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu$"):
        torch.tensor([True, False]).relu()


@pytest.mark.parametrize("dim1, dim2", [(0, 0), (1, -1)])
def test_diagonal_across_one_dim_twice_matches_torch(dim1, dim2):
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.ones(2, 3).diagonal(offset=1, dim1=dim1, dim2=dim2),
                lambda: al.ones(2, 3).diagonal(offset=1, dim1=dim1, dim2=dim2),
                f"diagonal dimensions cannot be identical {dim1}, {dim2}")


@pytest.mark.parametrize("first", [(0,), (3,), (3, 0)], ids=str)
def test_cat_of_a_zero_dimensional_tensor_matches_torch(first):
    """PyTorch refuses a 0-dim tensor in cat before it compares dims (ours raised IndexError beside an empty tensor,
    found by the differential fuzzer)."""
    torch = pytest.importorskip("torch")
    _same_error(lambda: torch.cat([torch.ones(first), torch.tensor(1.0)]),
                lambda: al.cat([al.ones(first), al.tensor(1.0)]),
                "zero-dimensional tensor (at position 1) cannot be concatenated")
