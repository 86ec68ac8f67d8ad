"""Bad inputs a user could plausibly type, each called in both libraries: both must raise the same kind of
error, with PyTorch's phrase in ours (learners search for it), our message naming the function, and no raw
NumPy text, AttributeError or KeyError reaching the user.

Each row is ``(program, phrase, names)``: the program is written once with ``m`` (``al`` or ``torch``) and
``x`` (a 2x3 float tensor), ``phrase`` is found in both messages, and every word of ``names`` (the function,
the argument, the types or shapes involved) in ours.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

NUMPY_WORDS = ("ufunc", "numpy boolean", "axis", "ndarray object", "truth value of an array", "zero-size array",
               "could not be broadcast together", "has no attribute", "object is not iterable", "invalid literal")

WRONG_KINDS = [  # an argument of the wrong type
    ("m.exp(None)", "exp(): argument 'input' (position 1) must be Tensor, not NoneType", "exp"),
    ("m.exp([1.0, 2.0])", "exp(): argument 'input' (position 1) must be Tensor, not list", "exp"),
    ("m.exp(np.ones(2))", "exp(): argument 'input' (position 1) must be Tensor, not numpy.ndarray", "exp"),
    ("m.tanh(1)", "tanh(): argument 'input' (position 1) must be Tensor, not int", "tanh"),
    ("m.sum([1, 2])", "sum(): argument 'input' (position 1) must be Tensor, not list", "sum"),
    ("m.sum(None)", "sum(): argument 'input' (position 1) must be Tensor, not NoneType", "sum"),
    ("m.mean('a')", "must be Tensor, not str", "mean"),
    ("m.amax([1.0])", "amax(): argument 'input' (position 1) must be Tensor, not list", "amax"),
    ("m.argmax(None)", "argmax(): argument 'input' (position 1) must be Tensor, not NoneType", "argmax"),
    ("m.matmul(x, [1.0, 2.0])", "matmul(): argument 'other' (position 2) must be Tensor, not list", "matmul"),
    ("m.mm(x, [[1.0]])", "mm(): argument 'mat2' (position 2) must be Tensor, not list", "mm"),
    ("m.bmm('a', x)", "bmm(): argument 'input' (position 1) must be Tensor, not str", "bmm"),
    ("m.nn.functional.linear([1.0], x)", "argument 'input' (position 1) must be Tensor, not list", "linear"),
    ("m.nn.functional.linear(x, [1.0])", "argument 'weight' (position 2) must be Tensor, not list", "linear"),
    ("m.nn.functional.relu('a')", "relu(): argument 'input' (position 1) must be Tensor, not str", "relu"),
    ("m.nn.functional.cross_entropy(x, [1, 0])", "argument 'target' (position 2) must be Tensor, not list",
     "cross_entropy"),
    ("m.add(x, 'a')", "must be Tensor, not str", "add"),
    ("m.ones(2).add(None)", "must be Tensor, not NoneType", "add"),
    ("m.index_select(x, 0, [0])", "index_select(): argument 'index' (position 3) must be Tensor, not list",
     "index_select"),
    ("m.logical_xor(None, x)", "logical_xor(): argument 'input' (position 1) must be Tensor, not NoneType",
     "logical_xor"),
    ("m.allclose(x, [1.0])", "allclose(): argument 'other' (position 2) must be Tensor, not list", "allclose"),
    ("m.detach(None)", "detach(): argument 'input' (position 1) must be Tensor, not NoneType", "detach"),
    ("m.zeros(2.5)", "zeros(): argument 'size' (position 1) must be tuple of ints, not float", "zeros"),
    ("m.ones('a')", "ones(): argument 'size' (position 1) must be tuple of ints, not str", "ones"),
    ("m.rand(2.5)", "rand(): argument 'size' (position 1) must be tuple of ints, not float", "rand"),
    ("m.full(2.5, 1.0)", "full(): argument 'size' (position 1) must be tuple of ints, not float", "full"),
    ("m.zeros((2, 2.5))", "zeros(): argument 'size'", "zeros float"),
    ("m.reshape(x, (1.5, 4))", "must be tuple of ints, but found element of type float at pos 0", "reshape shape"),
    ("x.sum(dim=1.5)", "sum() received an invalid combination of arguments", "sum dim 1.5"),
    ("x.sum(dim='a')", "sum() received an invalid combination of arguments", "sum dim"),
    ("m.sum(x, 1.5)", "sum() received an invalid combination of arguments", "sum"),
    ("m.std(x, 1.5)", "std() received an invalid combination of arguments", "std"),
    ("m.amax(x, 1.5)", "amax(): argument 'dim' (position 2) must be tuple of ints", "amax"),
    ("m.nn.functional.softmax(x, 1.5)", "must be int, not float", "softmax(): argument 'dim'"),
    ("m.unsqueeze(x, 1.5)", "unsqueeze(): argument 'dim' (position 2) must be int, not float", "unsqueeze"),
    ("m.cat([x], 1.5)", "cat(): argument 'dim' (position 2) must be int, not float", "cat"),
    ("m.stack([x], 1.5)", "stack(): argument 'dim' (position 2) must be int, not float", "stack"),
    ("m.transpose(x, 1.5, 0)", "transpose(): argument 'dim0' (position 2) must be int, not float", "transpose"),
    ("m.flatten(x, 1.5)", "flatten(): argument 'start_dim' (position 2) must be int, not float", "flatten"),
    ("m.gather(x, 1.5, m.zeros(2, 1, dtype=m.int64))", "gather(): argument 'dim' (position 2) must be int, not float",
     "gather"),
    ("m.chunk(x, 1.5)", "chunk(): argument 'chunks' (position 2) must be int, not float", "chunk"),
    ("m.select(x, 0, 1.5)", "select(): argument 'index' (position 3) must be int, not float", "select"),
    ("m.flip(x, (1.5,))", "must be tuple of ints, but found element of type float at pos 0", "flip"),
    ("m.sum(x, 0, keepdim='yes')", "argument 'keepdim' must be bool, not str", "sum keepdim"),
    ("m.nn.functional.one_hot(m.tensor([1]), 2.5)", "one_hot(): argument 'num_classes' (position 2) must be int, "
     "not float", "one_hot"),
    ("m.where(x > 0, x, 'a')", "where() received an invalid combination of arguments", "where"),
    ("m.clamp(x, 'a')", "clamp() received an invalid combination of arguments", "clamp"),
    ("x.equal([1.0])", "equal(): argument 'other' (position 1) must be Tensor, not list", ""),
    ("x.allclose(None)", "allclose(): argument 'other' (position 1) must be Tensor, not NoneType", ""),
    ("x.view_as([1.0])", "must be Tensor, not list", "view_as(): argument 'other'"),
    ("x.reshape_as(None)", "must be Tensor, not NoneType", "reshape_as other"),
    ("x.type_as('a')", "must be Tensor, not str", "type_as other"),
    ("x.eq(None)", "eq() received an invalid combination of arguments", ""),
    ("x.fill_(None)", "fill_() received an invalid combination of arguments - got (NoneType)", ""),
    ("x.fill_([1.0])", "fill_() received an invalid combination of arguments - got (list)", ""),
    ("x.sum({})", "sum() received an invalid combination of arguments", "sum dim"),
    ("x.sum_to_size([1.0, 2.0])", "must be tuple of ints, but found element of type float at pos 0", "sum_to_size"),
    ("x.flip({})", "must be tuple of ints, not dict", "flip"),
]

HOOKS = [  # what hooks return, checked as PyTorch checks it
    ("_hook(m, 'tensor', lambda g: [1.0, 2.0])", "expected Variable, but hook returned 'list'", "hook '<lambda>'"),
    ("_hook(m, 'tensor', lambda g: np.ones(2))", "expected Variable, but hook returned 'numpy.ndarray'", "hook"),
    ("_hook(m, 'tensor', lambda g: 1.0)", "expected Variable, but hook returned 'float'", "hook"),
    ("_hook(m, 'leaf', lambda g: (g,))", "expected Variable, but hook returned 'tuple'", "hook"),
    ("_hook(m, 'tensor', lambda g: g[:1])", "hook '<lambda>' has changed the size of value", "[2] [1]"),
    ("_hook(m, 'leaf', lambda g: g[:1])", "hook '<lambda>' has changed the size of value", "[2] [1]"),
    ("_hook(m, 'tensor', lambda g: g.long())", "hook '<lambda>' has changed the type of value", "FloatTensor"),
    ("_hook(m, 'pre', lambda gs: [1.0])", "expected tuple, but hook returned 'list'", "hook '<lambda>'"),
    ("_hook(m, 'pre', lambda gs: gs[0])", "expected tuple, but hook returned 'Tensor'", "hook"),
    ("_hook(m, 'pre', lambda gs: (1.0,))", "expected Variable, but hook returned 'float'", "hook"),
    ("_hook(m, 'pre', lambda gs: (gs[0][:1],))", "hook '<lambda>' has changed the size of value", "[2] [1]"),
    ("_hook(m, 'post', lambda gi, go: 1.0)", "expected tuple, but hook returned 'float'", "hook"),
    ("_hook(m, 'post', lambda gi, go: (gi[0],))", "hook '<lambda>' has returned an incorrect number of values "
     "(got 1, but expected 2)", "hook"),
    ("_hook(m, 'post', lambda gi, go: (gi[0].long(), None))", "hook '<lambda>' has changed the type of value",
     "hook"),
    ("_hook(m, 'post', lambda gi, go: (gi[0], gi[0]))", "can't replace a None gradient with a non-None value", "hook"),
    ("_hook(m, 'post_accumulate', lambda leaf: None) or m.ones(2).register_post_accumulate_grad_hook(print)",
     "post accumulate grad hooks cannot be registered on non-leaf tensors", ""),
]

VALUES = [  # right types, wrong values: dims out of range, shapes that do not fit, dtypes
    ("x.sum(dim=2)", "Dimension out of range (expected to be in range of [-2, 1], but got 2)", "sum"),
    ("x.sum(dim=(0, 0))", "appears multiple times in the list of dims", "sum"),
    ("x.view(4, -1)", "shape '[4, -1]' is invalid for input of size 6", ""),
    ("x.view(-1, -1)", "only one dimension can be inferred", "view"),
    ("x.view(-2, 3)", "invalid shape dimension -2", ""),
    ("m.zeros(0, 3).reshape(-1, 0)", "cannot reshape tensor of 0 elements into shape [-1, 0]", ""),
    ("x @ m.ones(2, 2)", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)", ""),
    ("x + m.ones(4)", "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
     "(2, 3) (4,)"),
    ("m.cat([x, m.ones(2, 2)])", "Sizes of tensors must match except in dimension 0", "cat"),
    ("m.stack([x, m.ones(2, 2)])", "stack expects each tensor to be equal size", ""),
    ("x.expand(3, 4)", "The expanded size of the tensor (4) must match the existing size (3)", ""),
    ("x[2]", "index 2 is out of bounds for dimension 0 with size 2", ""),
    ("x[1.5]", "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
     "(got float)", ""),
    ("x[m.tensor([0.0])]", "tensors used as indices must be long, int, byte or bool tensors", ""),
    ("x['a']", "new(): invalid data type 'str'", ""),
    ("m.ones(2, dtype=m.int64).requires_grad_()", "only Tensors of floating point", ""),
    ("m.ones(2, requires_grad=True).add_(1)", "a leaf Variable that requires grad is being used in an in-place "
     "operation.", "add_"),
    ("m.tensor([1, 2]).mean()", "mean(): could not infer output dtype", "Long"),
    ("m.randn(2, dtype=m.int64)", "\"normal_kernel_cpu\" not implemented for 'Long'", "al.int64"),
    ("m.tensor([5]) // 0", "ZeroDivisionError", "div"),
    ("m.tensor([True]) - m.tensor([False])", "Subtraction, the `-` operator, with two bool tensors is not supported",
     "bool"),
    ("-m.tensor([True])", "Negation, the `-` operator, on a bool tensor is not supported", "bool"),
    ("m.tensor([2**63])", "Overflow when unpacking long long", "int64"),
    ("m.tensor([300], dtype=m.uint8)", "value cannot be converted to type uint8 without overflow", "al.uint8"),
    ("m.full((2,), 300, dtype=m.uint8)", "value cannot be converted to type uint8_t without overflow", "full"),
    ("m.zeros(0, 3).amax()", "amax(): Expected reduction dim to be specified for input.numel() == 0", ""),
    ("m.zeros(0, 3).argmax(0)", "argmax(): Expected reduction dim 0 to have non-zero size.", ""),
    ("m.zeros(0).max()", "max(): Expected reduction dim to be specified for input.numel() == 0", ""),
    ("m.zeros(0, 3).norm(p=float('inf'))", "cannot compute the inf norm on an empty tensor", "(0, 3)"),
    ("m.nn.functional.conv2d(m.ones(1, 1, 5, 5), m.ones(0, 1, 3, 3))", "expected weight to be at least 1 at "
     "dimension 0", "[0, 1, 3, 3]"),
    ("m.ones(2, 3).clone().index_put_((m.tensor([0]),), m.ones(2))", "shape mismatch: value tensor of shape [2] "
     "cannot be broadcast to indexing result of shape [1, 3]", ""),
    ("m.nn.functional.batch_norm(m.ones(1, 3), m.zeros(3), m.ones(3), training=True)",
     "Expected more than 1 value per channel when training", ""),
    ("(m.ones(2, requires_grad=True) * 2).backward()", "grad can be implicitly created only for scalar outputs", ""),
    ("(m.ones(2, requires_grad=True) * 2).sum().backward([1.0])", "gradients can be either Tensors or None, but got "
     "float", ""),
    ("m.autograd.grad(m.ones(2, requires_grad=True).sum(), [1.0])", "all inputs have to be Tensors or GradientEdges, "
     "but got float", ""),
    ("m.ones(2, requires_grad='yes')", "argument 'requires_grad' must be bool, not str", "ones"),
    ("m.tensor('a')", "new(): invalid data type 'str'", "tensor"),
    ("m.tensor([1, 'a'])", "new(): invalid data type 'str'", "tensor"),
    ("m.tensor([None])", "Could not infer dtype of NoneType", "tensor"),
    ("m.tensor({1: 2})", "Could not infer dtype of dict", "tensor"),
    ("m.tensor([[1, 2], [3]])", "expected sequence of length 2 at dim 1 (got 1)", "tensor"),
    ("x.select(0, 5)", "select(): index 5 out of range for tensor of size [2, 3] at dimension 0", ""),
    ("x.index_select(0, m.tensor([5]))", "index out of range in self", "index_select [2, 3]"),
    ("m.zeros(2, device='gpu')", "device type at start of device string: gpu", ""),
    ("m.zeros(2, device='cuda:x')", "Invalid device string: 'cuda:x'", ""),
    ("m.zeros(2, dtype='floot')", "zeros(): argument 'dtype' must be", "str"),
    ("m.nn.functional.cross_entropy(x, m.tensor([0, 5]))", "Target 5 is out of bounds.", ""),
    ("m.nn.functional.cross_entropy(x, m.tensor([0, 1]), reduction='avg')", "avg is not a valid value for reduction",
     ""),
    ("m.nn.functional.linear(x, m.ones(4, 2))", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)", "linear"),
    ("m.nn.functional.embedding(m.tensor([5]), m.ones(3, 2))", "index out of range in self", "embedding"),
    ("m.nn.Linear(3, 2)(x.reshape(3, 2))", "mat1 and mat2 shapes cannot be multiplied (3x2 and 3x2)", "linear"),
    ("m.optim.SGD(x, lr=0.1)", "params argument given to the optimizer should be an iterable of Tensors or dicts", ""),
]


def _hook(m, kind: str, hook):
    """Register ``hook`` of ``kind`` on a small graph and run backward."""
    x = m.ones(2, requires_grad=True)
    y = x * 2
    if kind == "tensor":
        y.register_hook(hook)
    elif kind == "leaf":
        x.register_hook(hook)
    elif kind == "pre":
        y.grad_fn.register_prehook(hook)
    elif kind == "post":
        y.grad_fn.register_hook(hook)
    else:
        y.register_post_accumulate_grad_hook(hook)
    (y * 2).sum().backward()


def _raised(m, program: str) -> BaseException:
    x = m.ones(2, 3)
    with pytest.raises(Exception) as info:
        eval(program, {"m": m, "x": x, "np": np, "_hook": _hook})  # noqa: S307  (the rows above)
    return info.value


def _check(program: str, phrase: str, names: str) -> None:
    theirs, ours = _raised(torch, program), _raised(al, program)
    assert phrase in str(theirs), f"PyTorch's message changed: {theirs}"
    assert isinstance(ours, type(theirs)), (program, type(theirs), type(ours), str(ours))
    assert phrase in str(ours), (program, str(ours))
    for name in names.split():
        assert name in str(ours), (program, name, str(ours))
    assert not isinstance(ours, (AttributeError, KeyError)), str(ours)
    assert not any(word in str(ours) for word in NUMPY_WORDS), str(ours)


def _rows(table):
    return pytest.mark.parametrize("program, phrase, names", table, ids=[row[0] for row in table])


@_rows(WRONG_KINDS)
def test_arguments_of_the_wrong_kind(program, phrase, names):
    _check(program, phrase, names)


@_rows(HOOKS)
def test_hook_results(program, phrase, names):
    _check(program, phrase, names)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@_rows(VALUES)
def test_values_that_do_not_fit(program, phrase, names):
    _check(program, phrase, names)
