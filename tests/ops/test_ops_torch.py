"""PyTorch as the oracle: every op gives PyTorch's values, gradients and ``grad_fn`` names.

Each case is one function ``fn(m, *inputs)`` written once for both libraries (``m`` is ``al`` or
``torch``: their APIs are the same). Both run on the same float64 values; the outputs, the gradients
of every input (through the backward of a randomly weighted sum of the outputs) and the name of every
output's ``grad_fn`` must agree. Then type promotion, ``repr`` and error messages.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

RNG = np.random.default_rng(1234)


def _outputs(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(fn, *arrays, names=None, atol=1e-10):
    """Run ``fn`` in both libraries on ``arrays`` (float64 leaves) and compare everything.

    ``names``: the expected ``grad_fn`` names of our outputs, where they legitimately differ from PyTorch's
    (each use says why); by default they must be PyTorch's.
    """
    ours_in = [al.tensor(a, dtype=al.float64, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    ours, theirs = _outputs(fn(al, *ours_in)), _outputs(fn(torch, *theirs_in))
    assert len(ours) == len(theirs)
    rng = np.random.default_rng(0)
    loss_ours, loss_theirs = 0, 0
    for i, (a, t) in enumerate(zip(ours, theirs)):
        assert tuple(a.shape) == tuple(t.shape), f"output {i}: shape {tuple(a.shape)} != torch's {tuple(t.shape)}"
        assert str(a.dtype).replace("al.", "") == str(t.dtype).replace("torch.", ""), f"output {i} dtype"
        np.testing.assert_allclose(a._data, t.detach().numpy(), rtol=1e-9, atol=atol, err_msg=f"output {i}")
        if t.grad_fn is None:
            assert a.grad_fn is None, f"output {i}: torch records no grad_fn, we record {a.grad_fn.name()}"
            continue
        expected = names[i] if names is not None else t.grad_fn.name()
        assert a.grad_fn is not None and a.grad_fn.name() == expected, (
            f"output {i}: grad_fn {a.grad_fn and a.grad_fn.name()} != {expected} (torch: {t.grad_fn.name()})")
        weights = rng.standard_normal(tuple(t.shape))
        loss_ours = loss_ours + (a * al.tensor(weights, dtype=al.float64)).sum()
        loss_theirs = loss_theirs + (t * torch.tensor(weights, dtype=torch.float64)).sum()
    if isinstance(loss_theirs, int):
        return
    loss_ours.backward()
    loss_theirs.backward()
    for k, (a, t) in enumerate(zip(ours_in, theirs_in)):
        if t.grad is None:
            assert a.grad is None or not a.grad._data.any(), f"input {k}: torch has no gradient, we have {a.grad}"
            continue
        assert a.grad is not None, f"input {k}: no gradient, torch has {t.grad}"
        assert tuple(a.grad.shape) == tuple(t.grad.shape)
        np.testing.assert_allclose(a.grad._data, t.grad.numpy(), rtol=1e-9, atol=atol, err_msg=f"gradient of input {k}")


def r(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


def pos(*shape):
    return RNG.uniform(0.2, 2.0, shape)


def away(*shape):
    return RNG.choice([-1.0, 1.0], size=shape) * RNG.uniform(0.2, 1.5, shape)


def distinct(*shape):
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.25 - n * 0.125).reshape(shape)


def idx(m, values):
    return m.tensor(values)


CASES = {
    # pointwise arithmetic (broadcasting) ----------------------------------------------------------------
    "add": (lambda m, a, b: a + b, r(3, 1), r(4)),
    "add_alpha": (lambda m, a, b: m.add(a, b, alpha=2), r(2, 1, 4), r(3, 1)),
    "add_number": (lambda m, a: a + 2.5, r(3)),
    "radd_number": (lambda m, a: 2 + a, r(3)),
    "sub": (lambda m, a, b: a - b, r(2, 1, 4), r(3, 1)),
    "sub_alpha": (lambda m, a, b: m.sub(a, b, alpha=3), r(4), r(2, 4)),
    "sub_number": (lambda m, a: a - 1.5, r(3)),
    "rsub_number": (lambda m, a: 1.5 - a, r(2, 2)),
    "mul": (lambda m, a, b: a * b, r(3, 1), r(4)),
    "mul_number": (lambda m, a: a * 3, r(3)),
    "rmul_number": (lambda m, a: 3.5 * a, r(3)),
    "div": (lambda m, a, b: a / b, r(2, 1, 4), away(3, 1)),
    "div_number": (lambda m, a: a / 4, r(3)),
    "rdiv_number": (lambda m, a: 2 / a, away(3)),
    "neg": (lambda m, a: -a, r(2, 3)),
    "pow_tensor": (lambda m, a, b: a ** b, pos(3, 1), r(4)),
    "pow_tensor_fn": (lambda m, a, b: m.pow(a, b), pos(2, 1, 4), r(3, 1)),
    "pow_number": (lambda m, a: a ** 3, r(2, 3)),
    "pow_float": (lambda m, a: a ** 2.5, pos(2, 3)),
    "pow_negative": (lambda m, a: a ** -1.5, pos(4)),
    "pow_zero": (lambda m, a: a ** 0, r(3)),
    "pow_scalar_base": (lambda m, a: 2.0 ** a, r(2, 3)),
    "pow_fn_scalar_base": (lambda m, a: m.pow(3, a), r(4)),
    "square": (lambda m, a: a.square(), r(3)),
    "reciprocal": (lambda m, a: a.reciprocal(), away(3)),
    # unary -------------------------------------------------------------------------------------------
    "abs": (lambda m, a: a.abs(), away(2, 3)),
    "exp": (lambda m, a: m.exp(a), r(2, 3)),
    "log": (lambda m, a: m.log(a), pos(2, 3)),
    "log1p": (lambda m, a: m.log1p(a), r(2, 3, low=-0.7)),
    "sqrt": (lambda m, a: m.sqrt(a), pos(2, 3)),
    "rsqrt": (lambda m, a: m.rsqrt(a), pos(2, 3)),
    "sin": (lambda m, a: m.sin(a), r(2, 3, low=-3, high=3)),
    "cos": (lambda m, a: m.cos(a), r(2, 3, low=-3, high=3)),
    "tan": (lambda m, a: m.tan(a), r(2, 3)),
    "tanh": (lambda m, a: m.tanh(a), r(2, 3, low=-3, high=3)),
    "sigmoid": (lambda m, a: m.sigmoid(a), r(2, 3, low=-30, high=30)),
    "relu": (lambda m, a: m.relu(a), away(2, 3)),
    "sign": (lambda m, a: m.sign(a), away(2, 3)),
    "clamp_numbers": (lambda m, a: a.clamp(-0.5, 0.5), away(3, 4)),
    "clamp_min_number": (lambda m, a: m.clamp(a, min=0.1), away(3, 4)),
    "clamp_max_number": (lambda m, a: m.clamp(a, max=-0.1), away(3, 4)),
    "clamp_tensors": (lambda m, a, lo, hi: m.clamp(a, lo, hi), r(3, 4), r(4, low=-0.5, high=-0.1) - 0.03, r(3, 1, low=0.1)),
    "clamp_min_above_max": (lambda m, a, lo, hi: m.clamp(a, lo, hi), r(3, 4), away(4) + 3, r(3, 1, low=0.1)),
    "clamp_tensor_min": (lambda m, a, lo: m.clamp(a, min=lo), r(3, 4), r(4)),
    "clamp_tensor_max": (lambda m, a, hi: m.clamp(a, max=hi), r(3, 4), r(3, 1)),
    "maximum": (lambda m, a, b: m.maximum(a, b), r(3, 1), r(4) + 0.003),
    "minimum": (lambda m, a, b: m.minimum(a, b), r(2, 1, 4), r(3, 1) + 0.003),
    "maximum_ties": (lambda m, a, b: m.maximum(a, b), np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])),
    "minimum_ties": (lambda m, a, b: m.minimum(a, b), np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 4.0])),
    "where": (lambda m, a, b: m.where(a > 0, a, b), r(3, 1), r(4)),
    "where_scalar": (lambda m, a: m.where(a > 0, a, 0.5), r(2, 3)),
    "where_mask_broadcast": (lambda m, a, b: m.where(m.tensor([True, False, True, False]), a, b), r(2, 1, 4), r(3, 1)),
    # reductions --------------------------------------------------------------------------------------
    "sum": (lambda m, a: a.sum(), r(2, 3)),
    "sum_dim": (lambda m, a: a.sum(1), r(2, 3, 4)),
    "sum_dims_keepdim": (lambda m, a: a.sum((0, -1), keepdim=True), r(2, 3, 4)),
    "sum_0dim": (lambda m, a: a.sum(), np.array(2.5)),
    "mean": (lambda m, a: a.mean(), r(2, 3)),
    "mean_dim": (lambda m, a: m.mean(a, -1), r(2, 3, 4)),
    "mean_dims_keepdim": (lambda m, a: a.mean((0, 2), keepdim=True), r(2, 3, 4)),
    "prod": (lambda m, a: a.prod(), r(2, 3)),
    "prod_dim": (lambda m, a: a.prod(1), r(2, 3, 4)),
    "prod_dim_keepdim": (lambda m, a: a.prod(-1, keepdim=True), r(2, 3)),
    "prod_with_zero": (lambda m, a: a.prod(), np.array([[1.5, 0.0], [2.0, -3.0]])),
    "prod_dim_with_zeros": (lambda m, a: a.prod(0), np.array([[1.5, 0.0, 0.0], [2.0, -3.0, 0.0]])),
    "var": (lambda m, a: a.var(), r(2, 3)),
    "var_dim": (lambda m, a: a.var(1), r(2, 3, 4)),
    "var_dims_keepdim_biased": (lambda m, a: a.var((0, 2), keepdim=True, unbiased=False), r(2, 3, 4)),
    "var_correction": (lambda m, a: m.var(a, 0, correction=0), r(3, 2)),
    "std": (lambda m, a: a.std(), r(2, 3)),
    "std_dim": (lambda m, a: a.std(-1), r(2, 3, 4)),
    "std_dims_keepdim": (lambda m, a: m.std(a, (0, 1), keepdim=True), r(2, 3, 4)),
    "max": (lambda m, a: a.max(), distinct(2, 3)),
    "min": (lambda m, a: m.min(a), distinct(2, 3)),
    "max_ties": (lambda m, a: a.max(), np.array([1.0, 3.0, 3.0, 0.0])),
    "min_ties": (lambda m, a: a.min(), np.array([[1.0, 0.0], [0.0, 0.0]])),
    "max_dim": (lambda m, a: a.max(1), distinct(2, 3, 4)),
    "max_dim_keepdim": (lambda m, a: m.max(a, -1, keepdim=True), distinct(2, 3)),
    "min_dim": (lambda m, a: a.min(0), distinct(3, 2)),
    "min_dim_keepdim": (lambda m, a: m.min(a, 1, True), distinct(2, 3, 2)),
    "max_elementwise": (lambda m, a, b: m.max(a, b), r(3, 1), r(4) + 0.003),
    "logsumexp": (lambda m, a: m.logsumexp(a, 1), r(2, 3, 4, low=-5, high=5)),
    "logsumexp_dims_keepdim": (lambda m, a: a.logsumexp((0, 2), keepdim=True), r(2, 3, 4)),
    "logsumexp_large": (lambda m, a: a.logsumexp(0), np.array([1000.0, 1001.0, -5.0])),
    # linear algebra ------------------------------------------------------------------------------------
    "matmul_1d_1d": (lambda m, a, b: a @ b, r(3), r(3)),
    "matmul_2d_1d": (lambda m, a, b: a @ b, r(2, 3), r(3)),
    "matmul_1d_2d": (lambda m, a, b: a @ b, r(3), r(3, 4)),
    "matmul_2d_2d": (lambda m, a, b: m.matmul(a, b), r(2, 3), r(3, 4)),
    "matmul_3d_1d": (lambda m, a, b: a @ b, r(2, 2, 3), r(3)),
    "matmul_3d_2d": (lambda m, a, b: a @ b, r(2, 2, 3), r(3, 4)),
    "matmul_4d_2d": (lambda m, a, b: a @ b, r(2, 1, 2, 3), r(3, 4)),
    "matmul_1d_3d": (lambda m, a, b: a @ b, r(3), r(2, 3, 4)),
    "matmul_2d_3d": (lambda m, a, b: a @ b, r(2, 3), r(2, 3, 4)),
    "matmul_3d_3d": (lambda m, a, b: a @ b, r(2, 2, 3), r(2, 3, 4)),
    "matmul_3d_3d_broadcast": (lambda m, a, b: a @ b, r(1, 2, 3), r(3, 3, 4)),
    "matmul_4d_3d_broadcast": (lambda m, a, b: a @ b, r(2, 1, 2, 3), r(4, 3, 2)),
    "mm": (lambda m, a, b: m.mm(a, b), r(2, 3), r(3, 4)),
    "bmm": (lambda m, a, b: m.bmm(a, b), r(2, 2, 3), r(2, 3, 4)),
    "mv": (lambda m, a, b: m.mv(a, b), r(2, 3), r(3)),
    "dot": (lambda m, a, b: m.dot(a, b), r(4), r(4)),
    "outer": (lambda m, a, b: m.outer(a, b), r(3), r(4)),
    # shape ------------------------------------------------------------------------------------------------
    "t": (lambda m, a: a.t(), r(2, 3)),
    "t_1d": (lambda m, a: m.t(a), r(3)),
    "transpose": (lambda m, a: a.transpose(0, -1), r(2, 3, 4)),
    "permute": (lambda m, a: a.permute(2, 0, 1), r(2, 3, 4)),
    "T": (lambda m, a: a.T, r(2, 3)),
    "mT": (lambda m, a: a.mT, r(2, 3, 4)),
    "reshape_view": (lambda m, a: a.reshape(4, -1), r(2, 3, 4)),
    "view": (lambda m, a: a.view(6, 4), r(2, 3, 4)),
    "view_as_0dim": (lambda m, a: a.view(()), r(1, 1)),
    "flatten": (lambda m, a: a.flatten(), r(2, 3, 4)),
    "flatten_range": (lambda m, a: a.flatten(1), r(2, 3, 4)),
    "squeeze": (lambda m, a: a.squeeze(), r(2, 1, 3, 1)),
    "squeeze_dim": (lambda m, a: a.squeeze(1), r(2, 1, 3)),
    "squeeze_dims": (lambda m, a: a.squeeze((1, 3)), r(2, 1, 3, 1)),
    "unsqueeze": (lambda m, a: a.unsqueeze(1), r(2, 3)),
    "unsqueeze_negative": (lambda m, a: m.unsqueeze(a, -1), r(2, 3)),
    "expand": (lambda m, a: a.expand(2, 3, 4), r(3, 1)),
    "expand_keep": (lambda m, a: a.expand(-1, 4), r(3, 1)),
    "repeat": (lambda m, a: a.repeat(2, 1, 3), r(3, 2)),
    "cat": (lambda m, a, b: m.cat([a, b, a], 1), r(2, 3), r(2, 1)),
    "cat_negative_dim": (lambda m, a, b: m.cat([a, b], -1), r(2, 3), r(2, 2)),
    "stack": (lambda m, a, b: m.stack([a, b], 1), r(2, 3), r(2, 3)),
    "split_int": (lambda m, a: a.split(2, 1), r(2, 5)),
    "split_list": (lambda m, a: m.split(a, [1, 3, 1], 1), r(2, 5)),
    "split_single": (lambda m, a: a.split(4, 0), r(3)),
    "chunk": (lambda m, a: a.chunk(3, 0), r(5, 2)),
    "unbind": (lambda m, a: a.unbind(1), r(2, 3)),
    "unbind_single": (lambda m, a: a.unbind(0), r(1, 3)),
    "flip": (lambda m, a: a.flip(0, 2), r(2, 3, 4)),
    "narrow": (lambda m, a: a.narrow(1, 1, 2), r(2, 4)),
    "select": (lambda m, a: a.select(1, -1), r(2, 3, 4)),
    "diagonal": (lambda m, a: a.diagonal(), r(3, 4)),
    "diagonal_offset": (lambda m, a: a.diagonal(1, 0, 2), r(3, 2, 4)),
    "diagonal_negative_offset": (lambda m, a: m.diagonal(a, -1), r(3, 3)),
    "gather": (lambda m, a: a.gather(1, idx(m, [[0, 0, 2], [1, 0, 0]])), r(2, 3)),
    "gather_smaller_index": (lambda m, a: m.gather(a, 0, idx(m, [[1, 1], [0, 1]])), r(3, 4)),
    "scatter_add": (lambda m, a, s: a.scatter_add(0, idx(m, [[0, 1, 0], [0, 0, 0]]), s), r(2, 3), r(2, 3)),
    "scatter_add_fn": (lambda m, a, s: m.scatter_add(a, 1, idx(m, [[2, 2], [0, 2]]), s), r(2, 3), r(2, 2)),
    "index_select": (lambda m, a: a.index_select(1, idx(m, [2, 0, 2, 3])), r(2, 4, 3)),
    "index_select_fn": (lambda m, a: m.index_select(a, -1, idx(m, [1])), r(3, 2)),
    # indexing -------------------------------------------------------------------------------------------
    "index_int": (lambda m, a: a[1], r(3, 4)),
    "index_negative_int": (lambda m, a: a[-1, 2], r(3, 4)),
    "index_slice": (lambda m, a: a[1:], r(3, 4)),
    "index_step": (lambda m, a: a[::2, 1::2], r(5, 4)),
    "index_none": (lambda m, a: a[None], r(3, 4)),
    "index_ellipsis": (lambda m, a: a[...], r(3, 4)),
    "index_ellipsis_int": (lambda m, a: a[..., 0], r(2, 3, 4)),
    "index_mixed_basic": (lambda m, a: a[0, None, 1:3, ...], r(2, 3, 4)),
    "index_full_slice_then_int": (lambda m, a: a[:, 1], r(3, 4)),
    "index_list": (lambda m, a: a[[0, 2, 2]], r(3, 4)),
    "index_tensor_repeated": (lambda m, a: a[idx(m, [1, 1, 0, 1])], r(3, 4)),
    "index_tensor_2d": (lambda m, a: a[idx(m, [[0, 1], [1, 1]])], r(3, 4)),
    "index_two_tensors": (lambda m, a: a[idx(m, [0, 1, 1]), idx(m, [3, 3, 0])], r(3, 4)),
    "index_slice_tensor": (lambda m, a: a[1:, idx(m, [0, 0, 3])], r(3, 4)),
    "index_int_tensor": (lambda m, a: a[0, idx(m, [2, 2])], r(3, 4)),
    "index_separated_tensors": (lambda m, a: a[idx(m, [0, 1]), :, idx(m, [1, 1])], r(2, 3, 4)),
    "index_ellipsis_tensor": (lambda m, a: a[..., idx(m, [1, 0, 1])], r(2, 3, 4)),
    "index_none_tensor": (lambda m, a: a[None, idx(m, [2, 2])], r(3, 4)),
    "index_mask": (lambda m, a: a[a > 0], r(3, 4)),
    "index_mask_rows": (lambda m, a: a[idx(m, [True, False, True])], r(3, 4)),
    "index_mask_slice": (lambda m, a: a[:, idx(m, [True, False, True, False])], r(3, 4)),
    # a composition ----------------------------------------------------------------------------------------
    "composed": (lambda m, a, b: ((a @ b).tanh()[:, 1:].exp().sum(1) * b.sum()).logsumexp(0) / a.std(), r(3, 4), r(4, 3)),
}

# Where a composite op legitimately records a different node than PyTorch: our expected names (none at present;
# a 3-D @ 3-D product with a batch of one is folded as PyTorch folds it).
NAME_EXCEPTIONS: dict = {}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    fn, *arrays = CASES[case]
    compare(fn, *arrays, names=NAME_EXCEPTIONS.get(case))


def test_reshape_of_non_contiguous_copies():
    # reshape that no view can express: PyTorch clones, then views the copy (`_reshape_alias` of the clone,
    # recorded as UnsafeViewBackward0 in eager mode); we record the same
    compare(lambda m, a: a.t().reshape(-1), r(3, 4))
    compare(lambda m, a: a.transpose(0, 1).flatten(), r(2, 3, 4))
    compare(lambda m, a: a.permute(1, 0, 2).reshape(3, 8), r(2, 3, 4))
    compare(lambda m, a: a[::2].reshape(-1), r(4, 3))


@settings(max_examples=15, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4), seed=st.integers(0, 2**32 - 1),
       op=st.sampled_from(["add", "sub", "mul", "div", "maximum", "pow", "where"]))
@example(shapes=hnp.BroadcastableShapes(input_shapes=((3, 1), (4,)), result_shape=(3, 4)), seed=0, op="mul")
@example(shapes=hnp.BroadcastableShapes(input_shapes=((2, 1, 4), (3, 1)), result_shape=(2, 3, 4)), seed=0, op="div")
def test_broadcasting_binary_ops_match_torch(shapes, seed, op):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = rng.uniform(0.2, 2.0, sa)
    b = rng.choice([-1.0, 1.0], size=sb) * rng.uniform(0.2, 2.0, sb)
    fns = {
        "add": lambda m, x, y: x + y, "sub": lambda m, x, y: x - y, "mul": lambda m, x, y: x * y,
        "div": lambda m, x, y: x / y, "maximum": lambda m, x, y: m.maximum(x, y), "pow": lambda m, x, y: x ** y,
        "where": lambda m, x, y: m.where(x > 1, x, y),
    }
    compare(fns[op], a, b)


@settings(max_examples=15, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_reductions_match_torch(shape, data, seed):
    a = np.random.default_rng(seed).uniform(-1, 1, shape)
    nd = len(shape)
    dims = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda d: d % nd)))
    dim = data.draw(st.integers(-nd, nd - 1))
    keepdim = data.draw(st.booleans())
    compare(lambda m, x: x.sum(dims, keepdim=keepdim), a)
    compare(lambda m, x: x.mean(dims, keepdim=keepdim), a)
    compare(lambda m, x: x.prod(dim, keepdim=keepdim), a)
    compare(lambda m, x: x.logsumexp(dims, keepdim=keepdim), a)
    compare(lambda m, x: x.max(dim, keepdim=keepdim), a)
    compare(lambda m, x: x.min(dim, keepdim=keepdim), a)
    if all(shape[d] > 1 for d in dims):
        compare(lambda m, x: x.var(dims, keepdim=keepdim), a)
        compare(lambda m, x: x.std(dims, keepdim=keepdim, correction=0), a)


# -- type promotion -------------------------------------------------------------------------------------
def _operand(m, kind):
    if kind == "py_bool":
        return True
    if kind == "py_int":
        return 2
    if kind == "py_float":
        return 2.5
    dtype_name, _, zero_dim = kind.partition("_")
    value = [True, True] if dtype_name == "bool" else [3, 2]  # no division by zero (False)
    return m.tensor(value[0] if zero_dim else value, dtype=getattr(m, dtype_name))


TENSOR_KINDS = ["float32", "float64", "int64", "int32", "bool", "float32_0d", "float64_0d", "int64_0d", "bool_0d"]
KINDS = TENSOR_KINDS + ["py_bool", "py_int", "py_float"]
PAIRS = [(a, b) for a in KINDS for b in KINDS if a in TENSOR_KINDS or b in TENSOR_KINDS]


def _dtype_name(d) -> str:
    return str(d).split(".")[-1]


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_type_promotion_matches_torch(a, b):
    x, y = _operand(al, a), _operand(al, b)
    tx, ty = _operand(torch, a), _operand(torch, b)
    assert _dtype_name(al.result_type(x, y)) == _dtype_name(torch.result_type(tx, ty))
    ops = {"add": lambda p, q: p + q, "mul": lambda p, q: p * q, "div": lambda p, q: p / q,
           "maximum": lambda p, q: (p.maximum(q) if hasattr(p, "maximum") else q.maximum(p))}
    for name, op in ops.items():
        if name == "maximum" and not (hasattr(x, "shape") and hasattr(y, "shape")):
            continue  # torch.maximum takes tensors only
        ours, theirs = op(x, y), op(tx, ty)
        assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype), f"{name}: {ours.dtype} != {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours._data.astype(np.float64), theirs.double().numpy(), rtol=1e-6)


def test_where_and_cat_promote_like_torch():
    for m in (al, torch):
        cond = m.tensor([True, False])
        out = (m.where(cond, m.tensor([1, 2]), m.tensor([0.5, 1.5])),
               m.where(cond, m.tensor([1, 2], dtype=m.int32), 2.5),
               m.cat([m.tensor([1, 2]), m.tensor([0.5], dtype=m.float64)]),
               m.stack([m.tensor([1, 2], dtype=m.int32), m.tensor([3, 4])]))
        if m is al:
            ours = [_dtype_name(o.dtype) for o in out]
        else:
            assert ours == [_dtype_name(o.dtype) for o in out]


# -- repr ---------------------------------------------------------------------------------------------
REPRS = {
    "ints": lambda m: m.tensor([1, 2, 3]),
    "negative_ints": lambda m: m.tensor([[-10, 2], [3, 400]]),
    "bools": lambda m: m.tensor([True, False, True]),
    "floats_4_decimals": lambda m: m.tensor([0.1, 2.5, -3.25]),
    "whole_floats": lambda m: m.tensor([1.0, 2.0, -3.0]),
    "sci_small": lambda m: m.tensor([1e-5, 1.0]),
    "sci_large": lambda m: m.tensor([1e10, 1.0]),
    "sci_range": lambda m: m.tensor([0.5, 2000.0]),
    "nonfinite": lambda m: m.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    "zero_dim_float": lambda m: m.tensor(3.5),
    "zero_dim_whole": lambda m: m.tensor(3.0),
    "zero_dim_int": lambda m: m.tensor(7),
    "zero_dim_bool": lambda m: m.tensor(False),
    "empty": lambda m: m.tensor([]),
    "empty_2d": lambda m: m.zeros(0, 3),
    "float64": lambda m: m.tensor([1.5, 2.0], dtype=m.float64),
    "float64_0d": lambda m: m.tensor(1.0, dtype=m.float64),
    "int32": lambda m: m.tensor([1, 2], dtype=m.int32),
    "requires_grad": lambda m: m.tensor([1.0, 2.5], requires_grad=True),
    "requires_grad_float64": lambda m: m.tensor([[1.0], [2.0]], dtype=m.float64, requires_grad=True),
    "grad_fn": lambda m: m.tensor([1.0, 2.5], requires_grad=True) * 2,
    "grad_fn_sum": lambda m: (m.tensor([1.0, 2.5], requires_grad=True) ** 2).sum(),
    "large_1d": lambda m: m.arange(2000.0),
    "large_ints_2d": lambda m: m.arange(1500).reshape(30, 50),
    "large_3d": lambda m: m.arange(3000.0).reshape(10, 15, 20) / 7,
    "matrix": lambda m: m.arange(12.0).reshape(3, 4) / 3,
    "tensor_3d": lambda m: m.arange(24).reshape(2, 3, 4),
    "tensor_3d_float": lambda m: m.arange(24.0).reshape(2, 3, 4) - 11.5,
    "wide_row": lambda m: m.arange(30.0) * 1.5,
    "mixed_magnitudes": lambda m: m.tensor([[0.001, 123.456], [5.0, -0.25]]),
    "large_int_row": lambda m: m.arange(5000) - 2500,
    "wide_matrix_wraps": lambda m: m.arange(60.0).reshape(3, 20) / 9,
    "large_bools": lambda m: m.arange(1200).reshape(40, 30) % 3 == 0,
    "float64_grad_fn": lambda m: m.tensor([[1e-6, 3.0]], dtype=m.float64, requires_grad=True).exp(),
    "negative_zero_dim": lambda m: m.tensor(-0.125),
}


@pytest.mark.parametrize("case", sorted(REPRS))
def test_repr_matches_torch(case):
    assert repr(REPRS[case](al)) == repr(REPRS[case](torch)).replace("torch.", "al.")


# -- error messages ----------------------------------------------------------------------------------------
BROADCAST_ERRORS = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "pow": lambda m, a, b: a ** b,
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
    "where": lambda m, a, b: m.where(a > 0, a, b),
    "eq": lambda m, a, b: a == b,
    "lt": lambda m, a, b: a < b,
}


@pytest.mark.parametrize("op", sorted(BROADCAST_ERRORS))
@pytest.mark.parametrize(("sa", "sb"), [((3,), (4,)), ((2, 3), (3, 2)), ((2, 1, 4), (3, 5)), ((4,), (2, 3)), ((5, 1), (2, 3, 4))])
def test_broadcast_error_messages(op, sa, sb):
    fn = BROADCAST_ERRORS[op]
    with pytest.raises(RuntimeError) as theirs:
        fn(torch, torch.ones(sa), torch.ones(sb))
    with pytest.raises(RuntimeError) as ours:
        fn(al, al.ones(sa), al.ones(sb))
    message = str(ours.value)
    assert "The size of tensor a" in message
    assert str(theirs.value) in message  # the same sizes and the same dimension
    assert str(sa) in message and str(sb) in message


@pytest.mark.parametrize(("fn", "sa", "sb"), [
    (lambda m, a, b: m.mm(a, b), (2, 3), (2, 3)),
    (lambda m, a, b: a @ b, (2, 3), (4, 5)),
    (lambda m, a, b: a @ b, (2, 2, 3), (2, 3)),
])
def test_mm_shape_error_message(fn, sa, sb):
    with pytest.raises(RuntimeError) as theirs:
        fn(torch, torch.ones(sa), torch.ones(sb))
    with pytest.raises(RuntimeError) as ours:
        fn(al, al.ones(sa), al.ones(sb))
    assert "mat1 and mat2 shapes cannot be multiplied" in str(ours.value)
    assert str(theirs.value) in str(ours.value)


_FLOATING_UNARY = ["exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "reciprocal"]
_EXACT_UNARY = ["abs", "neg", "sign", "floor", "ceil", "round", "trunc", "relu"]


@pytest.mark.parametrize("name, values", [(n, [1, 2, 3]) for n in _FLOATING_UNARY + _EXACT_UNARY]
                         + [(n, [True, False, True]) for n in _FLOATING_UNARY])
def test_unary_ops_on_integer_tensors_give_torch_dtypes(name, values):
    """Floating functions of integer (and bool) tensors give the default float dtype, as in PyTorch
    (exp, tanh... used to give NumPy's float64, and sigmoid kept int64); the others keep the dtype."""
    expected = getattr(torch.tensor(values), name)()
    ours = getattr(al.tensor(values), name)()
    assert str(ours.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy().astype(np.float64), expected.numpy().astype(np.float64), rtol=1e-6)


def test_relu_matches_torch_bit_for_bit_signed_zeros_and_nans_included():
    for dtype in ("float32", "float64"):
        values = np.array([-0.0, 0.0, -1.0, 1.5, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45], dtype=dtype)
        ours = al.tensor(values).relu().numpy()
        theirs = torch.tensor(values).relu().numpy()
        assert ours.tobytes() == theirs.tobytes(), (dtype, ours, theirs)


@pytest.mark.parametrize("layout", ["row-major", "transposed", "strided", "0-d"])
def test_relu_keeps_the_input_layout_and_values(layout):
    """ReLU computes against an array of zeros (NumPy's vector loop, benchmarks/NOTES.md item 31): the values of
    ``maximum(x, 0)``, and a transposed input keeps its layout, as PyTorch's relu keeps it."""
    base = np.random.default_rng(0).standard_normal((6, 8))
    x = al.tensor(np.array(-1.5) if layout == "0-d" else base, requires_grad=True)
    if layout == "transposed":
        x = x.t()
    elif layout == "strided":
        x = x[:, ::2]
    out = x.relu()
    expected = np.maximum(x.detach().numpy(), 0)
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    assert out._data.flags.f_contiguous == expected.flags.f_contiguous
    assert out._data.flags.c_contiguous == expected.flags.c_contiguous
    if layout == "transposed":
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            out.view(-1)  # as torch.ones(8, 6).t().relu().view(-1) raises
