"""Every differentiable op against finite differences: ``gradcheck`` and ``gradgradcheck`` in float64.

Shapes come from hypothesis (at most 4 dims, sizes at most 4, broadcasting pairs included); values
come from a seeded NumPy generator and are kept inside each op's domain and away from its kinks
(``abs``/``relu`` at 0, ``clamp`` at its bounds, ties of ``max``/``maximum``), where the derivative
does not exist and finite differences would disagree with any choice of subgradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

fast = settings(max_examples=12, deadline=None)

small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
nd_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4).filter(lambda s: int(np.prod(s)) <= 24)
broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)
broadcast_triples = hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=1, max_side=3)
seeds = st.integers(0, 2**32 - 1)


def leaf(array) -> al.Tensor:
    return al.tensor(np.array(array, dtype=np.float64, order="C"), dtype=al.float64, requires_grad=True)


def uniform(rng, shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


def away_from_zero(rng, shape, low=0.2, high=1.5):
    """Values with |v| in [low, high] and a random sign: no kink of abs/relu/sign nearby."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(low, high, shape)


def distinct(rng, shape, gap=0.25):
    """Values pairwise at least ``gap`` apart (in random order): max/min have no ties."""
    n = int(np.prod(shape, dtype=np.int64))
    return (rng.permutation(n) * gap - n * gap / 2 + rng.uniform(0, gap / 10, n)).reshape(shape)


def check(fn, *inputs, second=True):
    assert gradcheck(fn, inputs)
    if second:
        assert gradgradcheck(fn, inputs)


def shapes_of(pair):
    return pair.input_shapes


# -- pointwise binary ops, broadcasting --------------------------------------------------------
BINARY = {
    "add": lambda a, b: a + b,
    "add_alpha": lambda a, b: al.add(a, b, alpha=-2.5),
    "sub": lambda a, b: a - b,
    "sub_alpha": lambda a, b: al.sub(a, b, alpha=0.5),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": al.maximum,
    "minimum": al.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@fast
@given(shapes=broadcast_pairs, seed=seeds)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((3, 1), (4,)), result_shape=(3, 4)), seed=0)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((2, 1, 4), (3, 1)), result_shape=(2, 3, 4)), seed=1)
def test_binary_broadcasting(name, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = uniform(rng, sa)
    b = away_from_zero(rng, sb)  # no division by ~0
    if name in ("maximum", "minimum"):  # keep every broadcast pair at least 0.2 apart: no ties
        b = away_from_zero(rng, sb, 1.3, 2.0)
        a = uniform(rng, sa, -1.0, 1.0)
    check(BINARY[name], leaf(a), leaf(b))


@fast
@given(shapes=broadcast_pairs, seed=seeds)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((3, 1), (4,)), result_shape=(3, 4)), seed=0)
def test_pow_tensor_exponent(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    check(lambda a, b: a ** b, leaf(uniform(rng, sa, 0.3, 2.0)), leaf(uniform(rng, sb, -2.0, 2.0)))


@pytest.mark.parametrize("exponent", [2, 3, -1, 0.5, 2.5, -1.5, 0, 1])
@fast
@given(shape=small_shapes, seed=seeds)
def test_pow_scalar_exponent(exponent, shape, seed):
    rng = np.random.default_rng(seed)
    x = uniform(rng, shape, 0.3, 2.0) if not isinstance(exponent, int) or exponent < 0 else uniform(rng, shape)
    check(lambda t: t ** exponent, leaf(x))
    check(lambda t: al.pow(t, exponent), leaf(x))


@pytest.mark.parametrize("base", [2.0, 0.5, 3])
@fast
@given(shape=small_shapes, seed=seeds)
def test_pow_scalar_base(base, shape, seed):
    rng = np.random.default_rng(seed)
    check(lambda t: base ** t, leaf(uniform(rng, shape, -2.0, 2.0)))


SCALAR_OPERANDS = {
    "radd": lambda t: 2.5 + t,
    "rsub": lambda t: 2.5 - t,
    "rmul": lambda t: 3 * t,
    "rdiv": lambda t: 2.0 / t,
    "sub_number": lambda t: t - 1.5,
    "div_number": lambda t: t / 4,
    "square": lambda t: t.square(),
    "reciprocal": lambda t: t.reciprocal(),
}


@pytest.mark.parametrize("name", sorted(SCALAR_OPERANDS))
@fast
@given(shape=small_shapes, seed=seeds)
def test_python_number_operands(name, shape, seed):
    check(SCALAR_OPERANDS[name], leaf(away_from_zero(np.random.default_rng(seed), shape)))


# -- pointwise unary ops -------------------------------------------------------------------------
UNARY = {  # name: (function, value generator inside the domain and away from kinks)
    "neg": (lambda t: -t, uniform),
    "abs": (al.abs, away_from_zero),
    "exp": (al.exp, uniform),
    "log": (al.log, lambda rng, s: uniform(rng, s, 0.2, 3.0)),
    "log1p": (al.log1p, lambda rng, s: uniform(rng, s, -0.7, 3.0)),
    "sqrt": (al.sqrt, lambda rng, s: uniform(rng, s, 0.2, 3.0)),
    "rsqrt": (al.rsqrt, lambda rng, s: uniform(rng, s, 0.2, 3.0)),
    "sin": (al.sin, lambda rng, s: uniform(rng, s, -3.0, 3.0)),
    "cos": (al.cos, lambda rng, s: uniform(rng, s, -3.0, 3.0)),
    "tan": (al.tan, lambda rng, s: uniform(rng, s, -1.2, 1.2)),
    "tanh": (al.tanh, lambda rng, s: uniform(rng, s, -3.0, 3.0)),
    "sigmoid": (al.sigmoid, lambda rng, s: uniform(rng, s, -5.0, 5.0)),
    "relu": (al.relu, away_from_zero),
    "clamp_both": (lambda t: t.clamp(-0.5, 0.5), lambda rng, s: _away_from(rng, s, (-0.5, 0.5))),
    "clamp_min": (lambda t: t.clamp(min=0.1), lambda rng, s: _away_from(rng, s, (0.1,))),
    "clamp_max": (lambda t: al.clamp(t, max=-0.1), lambda rng, s: _away_from(rng, s, (-0.1,))),
}


def _away_from(rng, shape, kinks, margin=0.05):
    x = uniform(rng, shape, -1.5, 1.5)
    for k in kinks:
        near = np.abs(x - k) < margin
        x = np.where(near, k + np.sign(x - k + 1e-12) * margin * 2, x)
    return x


@pytest.mark.parametrize("name", sorted(UNARY))
@fast
@given(shape=nd_shapes, seed=seeds)
def test_unary(name, shape, seed):
    fn, values = UNARY[name]
    check(fn, leaf(values(np.random.default_rng(seed), shape)))


@fast
@given(shape=small_shapes, seed=seeds)
def test_sign_has_zero_gradient(shape, seed):
    x = leaf(away_from_zero(np.random.default_rng(seed), shape))
    check(al.sign, x)
    (al.sign(x) * 3).sum().backward()
    assert x.grad.shape == x.shape and not x.grad._data.any()


@fast
@given(shapes=broadcast_triples, seed=seeds)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((3, 1), (4,), (1,)), result_shape=(3, 4)), seed=0)
def test_clamp_tensor_bounds(shapes, seed):
    rng = np.random.default_rng(seed)
    sx, slo, shi = shapes.input_shapes
    # x in [-1, 1], lower bound in [-2.2, -1.2] or [-0.8, 0.8] shifted away from x, upper above lower
    x = uniform(rng, sx)
    lo = away_from_zero(rng, slo, 1.2, 2.0) - 0.0  # |lo| >= 1.2: never within 0.2 of x
    hi = np.abs(away_from_zero(rng, shi, 1.3, 2.0)) - 0.05  # in [1.25, 1.95]: above every x
    check(lambda a, b, c: al.clamp(a, b, c), leaf(x), leaf(lo), leaf(hi))
    check(lambda a, b: al.clamp(a, min=b), leaf(x), leaf(lo))
    check(lambda a, c: al.clamp(a, max=c), leaf(x), leaf(-hi))


@fast
@given(shapes=broadcast_triples, seed=seeds)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((2, 1, 4), (3, 1), (4,)), result_shape=(2, 3, 4)), seed=0)
def test_where(shapes, seed):
    rng = np.random.default_rng(seed)
    sc, sx, sy = shapes.input_shapes
    cond = al.tensor(rng.random(sc) < 0.5)
    check(lambda a, b: al.where(cond, a, b), leaf(uniform(rng, sx)), leaf(uniform(rng, sy)))
    check(lambda a: al.where(cond, a, 2.0), leaf(uniform(rng, sx)))
    check(lambda b: al.where(cond, -1.0, b), leaf(uniform(rng, sy)))


# -- reductions -----------------------------------------------------------------------------------
@st.composite
def shape_and_dims(draw, min_size=1, single=False):
    """A shape with 1-4 dims and a dim argument: None, an int (maybe negative) or a tuple of dims."""
    shape = draw(nd_shapes.filter(lambda s: min(s) >= min_size))
    ndim = len(shape)
    if single:
        return shape, draw(st.integers(-ndim, ndim - 1))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return shape, None
    if kind == "int":
        return shape, draw(st.integers(-ndim, ndim - 1))
    dims = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return shape, tuple(dims)


def _reduce(fn, dim, keepdim):
    return (lambda t: fn(t)) if dim is None else (lambda t: fn(t, dim, keepdim=keepdim))


@pytest.mark.parametrize("name", ["sum", "mean"])
@fast
@given(case=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_sum_mean(name, case, keepdim, seed):
    shape, dim = case
    check(_reduce(getattr(al, name), dim, keepdim), leaf(uniform(np.random.default_rng(seed), shape)))


@fast
@given(case=shape_and_dims(single=True), keepdim=st.booleans(), seed=seeds, zeros=st.integers(0, 2))
def test_prod(case, keepdim, seed, zeros):
    shape, dim = case
    rng = np.random.default_rng(seed)
    x = uniform(rng, shape, 0.5, 1.5) * rng.choice([-1, 1], size=shape)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, size=min(zeros, flat.size), replace=False)] = 0.0  # zeros take another path
    check(lambda t: t.prod(dim, keepdim=keepdim), leaf(x))
    check(lambda t: t.prod(), leaf(x))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1])
@fast
@given(case=shape_and_dims(min_size=2), keepdim=st.booleans(), seed=seeds)
def test_var_std(name, correction, case, keepdim, seed):
    shape, dim = case
    fn = getattr(al, name)
    check(lambda t: fn(t, dim, keepdim=keepdim, correction=correction), leaf(uniform(np.random.default_rng(seed), shape)))
    if dim is None:
        check(lambda t: fn(t), leaf(uniform(np.random.default_rng(seed), shape)))


@pytest.mark.parametrize("name", ["max", "min"])
@fast
@given(case=shape_and_dims(single=True), keepdim=st.booleans(), seed=seeds)
def test_max_min(name, case, keepdim, seed):
    shape, dim = case
    x = distinct(np.random.default_rng(seed), shape)
    fn = getattr(al, name)
    check(lambda t: fn(t), leaf(x))
    check(lambda t: fn(t, dim, keepdim=keepdim), leaf(x))  # (values, indices): indices carry no gradient
    check(lambda t: fn(t, dim, keepdim).values, leaf(x))
    values, indices = fn(leaf(x), dim, keepdim)
    expected = (np.argmax if name == "max" else np.argmin)(x, axis=dim)
    assert indices.dtype is al.int64
    assert np.array_equal(indices._data.reshape(expected.shape), expected)


def test_max_of_0dim_with_dim():
    check(lambda t: al.max(t, 0).values, leaf(np.array(1.5)))


@fast
@given(case=shape_and_dims(), keepdim=st.booleans(), seed=seeds)
def test_logsumexp(case, keepdim, seed):
    shape, dim = case
    dim = tuple(range(len(shape))) if dim is None else dim
    check(lambda t: al.logsumexp(t, dim, keepdim=keepdim), leaf(uniform(np.random.default_rng(seed), shape, -3, 3)))


# -- linear algebra --------------------------------------------------------------------------------
@st.composite
def matmul_shapes(draw):
    """Operand shapes for every matmul case: 1-D/2-D/batched on either side, batch dims broadcasting."""
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    left_kind = draw(st.sampled_from(["vec", "mat", "batch"]))
    right_kind = draw(st.sampled_from(["vec", "mat", "batch"]))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=2, min_side=1, max_side=3))
    bl, br = batch.input_shapes
    left = {"vec": (k,), "mat": (n, k), "batch": bl + (n, k)}[left_kind]
    right = {"vec": (k,), "mat": (k, m), "batch": br + (k, m)}[right_kind]
    return left, right


@fast
@given(shapes=matmul_shapes(), seed=seeds)
@example(shapes=((2, 1, 3, 2), (4, 2, 3)), seed=0)
@example(shapes=((3,), (2, 3, 2)), seed=0)
@example(shapes=((2, 2, 3), (3,)), seed=0)
def test_matmul(shapes, seed):
    rng = np.random.default_rng(seed)
    a, b = leaf(uniform(rng, shapes[0])), leaf(uniform(rng, shapes[1]))
    check(lambda x, y: x @ y, a, b)
    check(al.matmul, a, b, second=False)
    assert np.allclose((a @ b)._data, np.matmul(a._data, b._data))


@fast
@given(n=st.integers(1, 4), k=st.integers(1, 4), m=st.integers(1, 4), b=st.integers(1, 3), seed=seeds)
def test_mm_bmm_mv_dot_outer(n, k, m, b, seed):
    rng = np.random.default_rng(seed)
    check(al.mm, leaf(uniform(rng, (n, k))), leaf(uniform(rng, (k, m))))
    check(al.bmm, leaf(uniform(rng, (b, n, k))), leaf(uniform(rng, (b, k, m))))
    check(al.mv, leaf(uniform(rng, (n, k))), leaf(uniform(rng, (k,))))
    check(al.dot, leaf(uniform(rng, (k,))), leaf(uniform(rng, (k,))))
    check(al.outer, leaf(uniform(rng, (n,))), leaf(uniform(rng, (m,))))


# -- shape ops ---------------------------------------------------------------------------------------
@fast
@given(shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=4), seed=seeds)
def test_t(shape, seed):
    check(lambda x: x.t(), leaf(uniform(np.random.default_rng(seed), shape)))


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_transpose_permute_flip(shape, data, seed):
    nd = len(shape)
    d0, d1 = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
    perm = data.draw(st.permutations(range(nd)))
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    x = leaf(uniform(np.random.default_rng(seed), shape))
    check(lambda t: t.transpose(d0, d1), x)
    check(lambda t: t.permute(*perm), x)
    check(lambda t: t.flip(dims), x)
    check(lambda t: t.mT if t.ndim >= 2 else t.T, x)


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_reshape_view_flatten(shape, data, seed):
    n = int(np.prod(shape))
    x = leaf(uniform(np.random.default_rng(seed), shape))
    target = data.draw(st.sampled_from([(n,), (-1,), (1, n), (n, 1, -1)]))
    check(lambda t: t.reshape(target), x)  # a view: x is contiguous
    check(lambda t: t.view(target), x)
    check(lambda t: t.flatten(), x)
    start = data.draw(st.integers(0, len(shape) - 1))
    check(lambda t: t.flatten(start), x)
    if len(shape) >= 2:
        check(lambda t: t.transpose(0, -1).reshape(-1), x)  # a copy: transposed memory cannot be viewed flat
        check(lambda t: t.transpose(0, -1).flatten(), x)


@fast
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=2), data=st.data(), seed=seeds)
def test_squeeze_unsqueeze(shape, data, seed):
    x = leaf(uniform(np.random.default_rng(seed), shape))
    nd = len(shape)
    check(lambda t: t.squeeze(), x)
    if nd:
        d = data.draw(st.integers(-nd, nd - 1))
        dims = tuple(data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True)))
        check(lambda t: t.squeeze(d), x)
        check(lambda t: t.squeeze(dims), x)
    u = data.draw(st.integers(-nd - 1, nd))
    check(lambda t: t.unsqueeze(u), x)


@fast
@given(shapes=broadcast_pairs, seed=seeds)
@example(shapes=hnp.BroadcastableShapes(input_shapes=((3, 1), (4,)), result_shape=(3, 4)), seed=0)
def test_expand(shapes, seed):
    shape, _ = shapes.input_shapes
    target = shapes.result_shape
    x = leaf(uniform(np.random.default_rng(seed), shape))
    check(lambda t: t.expand(target), x)
    check(lambda t: t.expand((2,) + tuple(target)), x)
    if len(shape):
        check(lambda t: t.expand((-1,) * len(shape)), x)


@fast
@given(shape=small_shapes, data=st.data(), seed=seeds)
def test_repeat(shape, data, seed):
    extra = data.draw(st.integers(0, 1))
    reps = tuple(data.draw(st.lists(st.integers(1, 3), min_size=len(shape) + extra, max_size=len(shape) + extra)))
    check(lambda t: t.repeat(reps), leaf(uniform(np.random.default_rng(seed), shape)))


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_cat_stack(shape, data, seed):
    rng = np.random.default_rng(seed)
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    other = list(shape)
    other[d] = data.draw(st.integers(1, 3))
    a, b = leaf(uniform(rng, shape)), leaf(uniform(rng, other))
    check(lambda x, y: al.cat([x, y, x], d), a, b)
    s = data.draw(st.integers(-nd - 1, nd))
    check(lambda x, y: al.stack([x, y, x], s), a, leaf(uniform(rng, shape)))


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_split_chunk_unbind(shape, data, seed):
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    size = shape[d]
    x = leaf(uniform(np.random.default_rng(seed), shape))
    k = data.draw(st.integers(1, 4))
    check(lambda t: t.split(k, d), x)
    sections = data.draw(st.lists(st.integers(0, size), min_size=1, max_size=3).filter(lambda s: sum(s) <= size))
    sections = sections + [size - sum(sections)]
    check(lambda t: al.split(t, sections, d), x)
    chunks = data.draw(st.integers(1, 4))
    check(lambda t: t.chunk(chunks, d), x)
    check(lambda t: t.unbind(d), x)
    check(lambda t: t.split(k, d)[0] * 2, x)  # only one output used: the others contribute zeros
    check(lambda t: t.unbind(d)[-1], x)


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_narrow_select(shape, data, seed):
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    size = shape[d]
    start = data.draw(st.integers(-size, size - 1))
    length = data.draw(st.integers(0, size - (start % size)))
    index = data.draw(st.integers(-size, size - 1))
    x = leaf(uniform(np.random.default_rng(seed), shape))
    check(lambda t: t.narrow(d, start, length), x)
    check(lambda t: t.select(d, index), x)


@fast
@given(shape=nd_shapes.filter(lambda s: len(s) >= 2), data=st.data(), seed=seeds)
def test_diagonal(shape, data, seed):
    nd = len(shape)
    d1 = data.draw(st.integers(-nd, nd - 1))
    d2 = data.draw(st.integers(-nd, nd - 1).filter(lambda d: d % nd != d1 % nd))
    offset = data.draw(st.integers(-2, 2))
    check(lambda t: t.diagonal(offset, d1, d2), leaf(uniform(np.random.default_rng(seed), shape)))


@fast
@given(shape=nd_shapes, data=st.data(), seed=seeds)
def test_gather_scatter_add(shape, data, seed):
    rng = np.random.default_rng(seed)
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    index_shape = tuple(data.draw(st.integers(1, s)) for s in shape)
    index_shape = index_shape[:d % nd] + (data.draw(st.integers(1, 4)),) + index_shape[d % nd + 1:]
    index = al.tensor(rng.integers(0, shape[d], index_shape))  # repeated indices on purpose
    check(lambda t: t.gather(d, index), leaf(uniform(rng, shape)))
    # scatter_add with src shaped like index (a larger src has no gradient in PyTorch either: its
    # ScatterAddBackward0 returns grad.gather(dim, index), shaped like index, and the engine rejects it)
    check(lambda t, s: t.scatter_add(d, index, s), leaf(uniform(rng, shape)), leaf(uniform(rng, index_shape)))
    picks = al.tensor(rng.integers(0, shape[d], data.draw(st.integers(0, 5))))  # (repeats, or none at all)
    check(lambda t: t.index_select(d, picks), leaf(uniform(rng, shape)))


def test_gather_repeated_index_accumulates():
    x = leaf(np.arange(3.0))
    x.gather(0, al.tensor([2, 2, 0, 2])).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0]


# -- indexing --------------------------------------------------------------------------------------
BASIC_KEYS = [
    0, -1, (1,), slice(None), slice(1, None), slice(None, None, 2), slice(0, 3, 2), (slice(None), 1),
    (Ellipsis,), Ellipsis, None, (None, 0), (Ellipsis, None), (0, Ellipsis, 1), (slice(None, None, 3), None, -1),
    (Ellipsis, slice(1, 3)), (slice(5, 9),),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
@fast
@given(seed=seeds)
def test_basic_indexing(key, seed):
    check(lambda t: t[key], leaf(uniform(np.random.default_rng(seed), (4, 3, 2))))


ADVANCED_KEYS = {
    "list": lambda: [0, 2, 2, 0],
    "tensor": lambda: al.tensor([3, 1, 1, 1]),
    "2d_tensor": lambda: al.tensor([[0, 1], [1, 1]]),
    "negative": lambda: al.tensor([-1, -1, 0]),
    "two_arrays": lambda: (al.tensor([0, 1, 1]), al.tensor([2, 2, 0])),
    "array_then_slice": lambda: (al.tensor([1, 1]), slice(None, None, 2)),
    "slice_then_array": lambda: (slice(1, 3), al.tensor([0, 0, 2])),
    "int_and_array": lambda: (0, al.tensor([2, 2])),
    "separated_arrays": lambda: (al.tensor([0, 1]), slice(None), al.tensor([1, 1])),
    "ellipsis_array": lambda: (Ellipsis, al.tensor([1, 0, 1])),
    "none_and_array": lambda: (None, al.tensor([2, 2])),
    "mask": lambda: al.tensor([True, False, True, True]),
    "mask_2d": lambda: al.tensor(np.arange(12).reshape(4, 3) % 3 != 1),
    "mask_and_slice": lambda: (slice(None), al.tensor([True, False, True])),
    "all_false_mask": lambda: al.tensor([False, False, False, False]),
}


@pytest.mark.parametrize("name", sorted(ADVANCED_KEYS))
@fast
@given(seed=seeds)
def test_advanced_indexing(name, seed):
    key = ADVANCED_KEYS[name]()
    x = uniform(np.random.default_rng(seed), (4, 3, 2))
    check(lambda t: t[key], leaf(x))
    np_key = tuple(k._data if isinstance(k, al.Tensor) else k for k in key) if isinstance(key, tuple) else (
        key._data if isinstance(key, al.Tensor) else key)
    assert np.array_equal(leaf(x)[key]._data, x[np_key])


def test_repeated_indices_accumulate():
    x = leaf(np.zeros(4))
    x[al.tensor([1, 1, 3, 1])].sum().backward()
    assert x.grad.tolist() == [0.0, 3.0, 0.0, 1.0]
    y = leaf(np.zeros((2, 3)))
    (y[[0, 0], [2, 2]] * al.tensor([1.0, 2.0], dtype=al.float64)).sum().backward()
    assert y.grad.tolist() == [[0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]


@fast
@given(seed=seeds)
def test_composed_graph(seed):
    """Many ops in one function: the gradients flow through views, copies and reductions together."""
    rng = np.random.default_rng(seed)

    def f(a, b):
        h = (a @ b).tanh()
        return (h[:, 1:].exp().sum(1) + h.t()[0] * b.sum()).logsumexp(0) / a.std()

    check(f, leaf(uniform(rng, (3, 4))), leaf(uniform(rng, (4, 3))))
