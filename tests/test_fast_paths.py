"""The fast paths of issue 7 compute exactly what the paths they shortcut compute.

* Backward on arrays (``ops/_op.py``): for every op with an array form of its derivatives, the
  array form and the tensor form (the definition, used by ``create_graph``) agree in values and
  dtypes, on random shapes with broadcasting, in float64 and float32. Every such op must be listed
  here, so a new one cannot skip the check.
* The engine without step records (``backward()``): on random graphs, the same gradients and the
  same order of node execution as the recorded steps the lab's stepper pulls.
* SGD on raw arrays: the version counters move as the in-place tensor methods move them in PyTorch,
  and ``Linear``'s ``weight.grad`` comes in the weight's own layout.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import autograd_lab as al
from autograd_lab.autograd import engine
from autograd_lab.autograd.graph import AccumulateGrad
from autograd_lab.autograd.saved import SavedTensor
from autograd_lab.ops._op import Op
from autograd_lab.ops.nn import addmm
from autograd_lab.ops.pointwise import rsub
from autograd_lab.ops.shape import SqueezeBackward4, UnsafeViewBackward0

F = al.nn.functional


def _all_ops(cls=Op):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_ops(sub)


# op class -> (arity, domain, build(*tensors) -> output). Domains: "pos" (0.5..2), "any" (-2..2 without
# values near 0 or near integers' halves, so rounding and division stay well defined).
UNARY, BINARY, MATRIX, SHAPED = 1, 2, "matrix", "shaped"  # SHAPED: one input of at least one dim


def _reversed(a):
    return a.permute(*reversed(range(a.ndim)))
CASES = {
    "AddBackward0": (BINARY, "any", [lambda a, b: a + b, lambda a, b: a.add(b, alpha=2.5)]),
    "SubBackward0": (BINARY, "any", [lambda a, b: a - b, lambda a, b: a.sub(b, alpha=0.5)]),
    "RsubBackward1": (UNARY, "any", [lambda a: 2.0 - a, lambda a: rsub(a, 3.0, alpha=2)]),
    "MulBackward0": (BINARY, "any", [lambda a, b: a * b, lambda a, b: a * 0.9]),
    "DivBackward0": (BINARY, "any", [lambda a, b: a / b, lambda a, b: a / 4]),
    "DivBackward2": (BINARY, "any", [lambda a, b: a.div(b, rounding_mode="floor"),
                                     lambda a, b: a.div(b, rounding_mode="trunc")]),
    "ReciprocalBackward0": (UNARY, "any", [lambda a: a.reciprocal()]),
    "NegBackward0": (UNARY, "any", [lambda a: -a]),
    "PowBackward0": (UNARY, "pos", [lambda a: a ** 3, lambda a: a ** 2.5, lambda a: a ** -1, lambda a: a ** 0]),
    "ExpBackward0": (UNARY, "any", [lambda a: a.exp()]),
    "LogBackward0": (UNARY, "pos", [lambda a: a.log()]),
    "Log1PBackward0": (UNARY, "pos", [lambda a: a.log1p()]),
    "SqrtBackward0": (UNARY, "pos", [lambda a: a.sqrt()]),
    "RsqrtBackward0": (UNARY, "pos", [lambda a: a.rsqrt()]),
    "TanBackward0": (UNARY, "any", [lambda a: (a * 0.5).tan()]),
    "TanhBackward0": (UNARY, "any", [lambda a: a.tanh()]),
    "SigmoidBackward0": (UNARY, "any", [lambda a: a.sigmoid()]),
    "ReluBackward0": (UNARY, "any", [lambda a: a.relu()]),
    "SignBackward0": (UNARY, "any", [lambda a: a.sign()]),
    "FloorBackward0": (UNARY, "any", [lambda a: a.floor()]),
    "CeilBackward0": (UNARY, "any", [lambda a: a.ceil()]),
    "RoundBackward0": (UNARY, "any", [lambda a: a.round()]),
    "TruncBackward0": (UNARY, "any", [lambda a: a.trunc()]),
    "ClampBackward1": (UNARY, "any", [lambda a: a.clamp(-1.0, 1.0), lambda a: a.clamp(min=0.5),
                                      lambda a: a.clamp(max=-0.5)]),
    "CloneBackward0": (UNARY, "any", [lambda a: a.clone()]),
    "SumBackward0": (UNARY, "any", [lambda a: a.sum()]),
    # (a dim of a 0-d tensor: torch allows it, autograd_lab's sum(dim) does not yet; reported in benchmarks/NOTES.md)
    "SumBackward1": (UNARY, "any", [lambda a: a.sum(-1) if a.ndim else a.sum(),
                                    lambda a: a.sum(0, keepdim=True) if a.ndim else a.sum()]),
    "MeanBackward0": (UNARY, "any", [lambda a: a.mean()]),
    "MmBackward0": (MATRIX, "any", [lambda a, w: a @ w.t(), lambda a, w: a.mm(w.t().contiguous())]),
    "AddmmBackward0": (MATRIX, "any", [lambda a, w: F.linear(a, w, w[:, 0].detach().clone().requires_grad_()),
                                       lambda a, w: addmm(w[:, 0], a, w.t(), beta=0.5, alpha=2.0),
                                       lambda a, w: F.linear(a.detach(), w, w[:, 0])]),
    # views and reshapes: their gradient is the inverse rearrangement, on the array
    "AliasBackward0": (UNARY, "any", [lambda a: a[...]]),
    "ViewBackward0": (UNARY, "any", [lambda a: a.view(-1), lambda a: a.reshape(1, -1)]),
    "ReshapeAliasBackward0": (MATRIX, "any", [lambda a, w: a.t().reshape(1, *a.t().shape)]),
    "UnsafeViewBackward0": (UNARY, "any", [lambda a: UnsafeViewBackward0.apply(a, shape=(-1,))]),
    "TBackward0": (MATRIX, "any", [lambda a, w: a.t(), lambda a, w: w[0].t()]),
    "TransposeBackward0": (SHAPED, "any", [lambda a: a.transpose(0, -1), lambda a: a.transpose(-1, 0)]),
    "PermuteBackward0": (UNARY, "any", [_reversed, lambda a: a.permute(*range(a.ndim))]),
    "ExpandBackward0": (UNARY, "any", [lambda a: a.expand(2, *a.shape), lambda a: a.unsqueeze(0).expand(3, *a.shape),
                                       lambda a: a.reshape(1, 1, -1)[:, :, :1].expand(2, 3, 4)]),
    "SqueezeBackward0": (UNARY, "any", [lambda a: a.unsqueeze(0).squeeze()]),
    "SqueezeBackward1": (UNARY, "any", [lambda a: a.unsqueeze(-1).squeeze(-1)]),
    "SqueezeBackward2": (UNARY, "any", [lambda a: a.unsqueeze(0).squeeze((0,))]),
    "SqueezeBackward4": (UNARY, "any", [lambda a: SqueezeBackward4.apply(a.unsqueeze(0), dim=(0,))]),
    "UnsqueezeBackward0": (UNARY, "any", [lambda a: a.unsqueeze(0), lambda a: a.unsqueeze(-1)]),
    "SliceBackward0": (SHAPED, "any", [lambda a: a[::2], lambda a: a[..., 1:], lambda a: a.narrow(-1, 0, 1)]),
    "SelectBackward0": (SHAPED, "any", [lambda a: a[0], lambda a: a[..., -1], lambda a: a.select(0, 0)]),
    "IndexSelectBackward0": (SHAPED, "any", [lambda a: a.index_select(0, al.tensor([0, 0])),
                                             lambda a: a.index_select(-1, al.tensor([0, 0, 0])),
                                             lambda a: a.index_select(0, al.tensor([], dtype=al.int64))]),
    # softmax and the losses (cross_entropy = log_softmax + nll_loss); targets from _targets, weights from w
    "SoftmaxBackward0": (SHAPED, "any", [lambda a: F.softmax(a, -1), lambda a: F.softmax(a, 0)]),
    "LogSoftmaxBackward0": (SHAPED, "any", [lambda a: F.log_softmax(a, -1), lambda a: F.log_softmax(a, 0)]),
    "NllLossBackward0": (MATRIX, "any", [lambda a, w: F.nll_loss(a, _targets(a)),
                                         lambda a, w: F.nll_loss(a, _targets(a), reduction="sum"),
                                         lambda a, w: F.nll_loss(a, _targets(a), reduction="none"),
                                         lambda a, w: F.nll_loss(a, _targets(a), weight=w[0].detach().abs(), ignore_index=1),
                                         lambda a, w: F.nll_loss(a, _targets(a), ignore_index=1, reduction="none"),
                                         lambda a, w: F.nll_loss(a[0], _targets(a)[0])]),
    "NllLoss2DBackward0": (MATRIX, "any", [lambda a, w: F.nll_loss(_image(a), _targets(a).reshape(-1, 1, 1)),
                                           lambda a, w: F.nll_loss(_image(a), _targets(a).reshape(-1, 1, 1), reduction="none",
                                                                   weight=w[0].detach().abs())]),
    # reductions with an array form (a_self): over dims, the selecting ones (ties too: rounded values), var/std
    "MeanBackward1": (SHAPED, "any", [lambda a: a.mean(0), lambda a: a.mean(-1, keepdim=True),
                                      lambda a: a.mean(list(range(0, a.ndim, 2)))]),
    "MaxBackward1": (UNARY, "any", [lambda a: a.max(), lambda a: a.round().max()]),
    "MinBackward1": (UNARY, "any", [lambda a: a.min(), lambda a: a.round().min()]),
    "MaxBackward0": (SHAPED, "any", [lambda a: a.max(0).values, lambda a: a.max(-1, keepdim=True).values]),
    "MinBackward0": (SHAPED, "any", [lambda a: a.min(0).values, lambda a: a.min(-1, keepdim=True).values]),
    "LogsumexpBackward0": (SHAPED, "any", [lambda a: a.logsumexp(0), lambda a: a.logsumexp(-1, keepdim=True)]),
    "VarBackward0": (SHAPED, "any", [lambda a: _doubled(a).var(), lambda a: _doubled(a).var(0, keepdim=True),
                                     lambda a: a.var(-1, correction=0)]),
    "StdBackward0": (SHAPED, "any", [lambda a: _doubled(a).std(), lambda a: _doubled(a).std(0, keepdim=True),
                                     lambda a: _doubled(a).std(0, unbiased=False)]),
    # nn: gelu (exact and tanh), erf, embedding (options), the regression and binary losses (targets needing grad)
    "GeluBackward0": (UNARY, "any", [lambda a: F.gelu(a), lambda a: F.gelu(a, approximate="tanh")]),
    "ErfBackward0": (UNARY, "any", [lambda a: a.erf()]),
    "EmbeddingBackward0": (MATRIX, "any", [lambda a, w: F.embedding(_targets(w.t()), w),
                                           lambda a, w: F.embedding(_targets(w.t()).reshape(1, -1), w, padding_idx=0),
                                           lambda a, w: F.embedding(_targets(w.t()), w, scale_grad_by_freq=True)]),
    "MseLossBackward0": (MATRIX, "any", [lambda a, w: F.mse_loss(a, a * 0.5 + w[0]),
                                         lambda a, w: F.mse_loss(a, w[0].expand_as(a), reduction="sum"),
                                         lambda a, w: F.mse_loss(a, a.detach() * 2, reduction="none")]),
    "BinaryCrossEntropyBackward0": (UNARY, "any", [
        lambda a: F.binary_cross_entropy(a.sigmoid(), (a * 0.7).sigmoid()),
        lambda a: F.binary_cross_entropy(a.sigmoid(), (a * 0.7).sigmoid().detach(), reduction="sum",
                                         weight=al.tensor(2)),  # an integer weight: the gradient's dtype kept
        lambda a: F.binary_cross_entropy(a.sigmoid(), (-a).sigmoid(), reduction="none",
                                         weight=al.tensor(1.5, dtype=al.float64))]),
    "BinaryCrossEntropyWithLogitsBackward0": (UNARY, "any", [
        lambda a: F.binary_cross_entropy_with_logits(a, (a * 0.7).sigmoid()),
        lambda a: F.binary_cross_entropy_with_logits(a, (a * 0.7).sigmoid(), pos_weight=al.tensor(3), reduction="sum"),
        lambda a: F.binary_cross_entropy_with_logits(a, (-a).sigmoid(), weight=al.tensor(0.5), reduction="none",
                                                     pos_weight=al.tensor(1.5, dtype=al.float64))]),
    # linalg: batched, matrix-vector and vector-vector products
    "BmmBackward0": (MATRIX, "any", [lambda a, w: a.unsqueeze(0).bmm(w.t().unsqueeze(0)),
                                     lambda a, w: a.expand(2, *a.shape).bmm(w.detach().t().expand(2, *w.t().shape))]),
    "MvBackward0": (MATRIX, "any", [lambda a, w: a.mv(w[0]), lambda a, w: a @ w[-1]]),
    "DotBackward0": (MATRIX, "any", [lambda a, w: a[0].dot(w[0]), lambda a, w: a[-1] @ w[0].detach()]),
    # pooling (the array form runs the backward op's kernel): an image made from the input, several geometries
    "MaxPool2DWithIndicesBackward0": (UNARY, "any", [
        lambda a: F.max_pool2d(_picture(a), 2), lambda a: F.max_pool2d(_picture(a), 3, stride=2, padding=1),
        lambda a: F.max_pool2d(_picture(a), (2, 3), stride=1, dilation=2, ceil_mode=True),
        lambda a: F.max_pool2d(_picture(a)[0], 3, stride=2, ceil_mode=True)]),
    "AvgPool2DBackward0": (UNARY, "any", [
        lambda a: F.avg_pool2d(_picture(a), 2), lambda a: F.avg_pool2d(_picture(a), 3, stride=2, padding=1),
        lambda a: F.avg_pool2d(_picture(a), 3, stride=2, padding=1, count_include_pad=False, ceil_mode=True),
        lambda a: F.avg_pool2d(_picture(a), (2, 3), stride=(1, 2), divisor_override=4)]),
    "AdaptiveAvgPool2DBackward0": (UNARY, "any", [lambda a: F.adaptive_avg_pool2d(_picture(a), (3, 2)),
                                                  lambda a: F.adaptive_avg_pool2d(_picture(a)[0], 4)]),
}

def _doubled(a):
    """``a`` and a different copy of it stacked along dim 0: every reduction over dim 0 has two values."""
    return al.cat([a, a * 0.5 - 1])


_PICTURE = np.random.default_rng(5).standard_normal((2, 3, 7, 6))


def _picture(a):
    """A (2, 3, 7, 6) image that depends on every element of ``a`` (pooling needs 4-D inputs)."""
    return a.sum() * al.tensor(_PICTURE, dtype=a.dtype) + al.tensor(_PICTURE ** 2, dtype=a.dtype)


def _targets(a):
    """Class indices for the rows of ``a`` (every class in turn)."""
    return al.tensor(np.arange(a.shape[0]) % a.shape[1])


def _image(a):
    """``a`` (N, C) as (N, C, 1, 1) log-probabilities."""
    return a.reshape(a.shape[0], a.shape[1], 1, 1)


def test_every_op_with_an_array_form_is_checked():
    with_array_form = {cls.__name__ for cls in _all_ops()  # (private bases such as _Squeeze never make nodes)
                       if cls._array_derivatives is not None and not cls.__name__.startswith("_")}
    assert with_array_form == set(CASES)


def _values(rng, shape, domain, dtype):
    size = rng.uniform(0.5, 2.0, size=shape)
    if domain == "any":
        size = size * rng.choice([-1.0, 1.0], size=shape)
    return al.tensor(np.asarray(size), dtype=dtype, requires_grad=True)


def _tensor_form(node, grad):
    saved = node._unpack_saved()
    return [d(grad, *saved) if child is not None else None
            for d, (child, _) in zip(type(node)._derivatives, node.next_functions)]


def _check_node(out, rng, dtype):
    node = out.grad_fn
    assert node is not None and type(node)._array_derivatives is not None
    grad = al.tensor(rng.standard_normal(out.shape), dtype=dtype)
    with al.no_grad():
        by_arrays, fallback = node._backward_arrays(grad)
        by_tensors = _tensor_form(node, grad)
    assert by_arrays is not None and fallback is None  # the array form applied (one dtype)
    rtol = 1e-12 if dtype is al.float64 else 1e-5
    for a, t in zip(by_arrays, by_tensors):
        assert (a is None) == (t is None)
        if a is None:
            continue
        assert a.dtype is t.dtype, (type(node).__name__, a.dtype, t.dtype)
        assert a.shape == t.shape
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [al.float64, al.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_array_and_tensor_derivatives_agree(name, dtype, data):
    arity, domain, builders = CASES[name]
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    if arity == BINARY:
        shapes = data.draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3), label="shapes")
        inputs = [_values(rng, s, domain, dtype) for s in shapes.input_shapes]
    elif arity == MATRIX:
        n, k, m = data.draw(st.tuples(*[st.integers(1, 5)] * 3), label="n, k, m")
        inputs = [_values(rng, (n, k), domain, dtype), _values(rng, (m, k), domain, dtype)]
    else:
        min_dims = 1 if arity == SHAPED else 0
        shape = data.draw(array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=3), label="shape")
        inputs = [_values(rng, shape, domain, dtype)]
    for build in builders:
        _check_node(build(*inputs), rng, dtype)


def test_mixed_dtypes_take_the_tensor_path():
    """NumPy would promote float32 * float64-0d to float64 where PyTorch keeps float32: such nodes fall back."""
    a = al.ones(3, dtype=al.float32, requires_grad=True)
    b = al.tensor(2.0, dtype=al.float64, requires_grad=True)
    out = a * b
    with al.no_grad():
        grads, saved = out.grad_fn._backward_arrays(al.ones(3, dtype=al.float32))
    assert grads is None and [type(v) for v in saved] == [al.Tensor, al.Tensor]  # the tensor path gets them
    out.sum().backward()
    assert a.grad.dtype is al.float32 and b.grad.dtype is al.float64
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.item() == 3.0


def test_saved_tensor_hooks_are_unpacked_once_and_give_the_same_gradients():
    """Through hooks the array form still applies (same arithmetic, so bitwise-equal gradients, as
    notebook 04 shows with tensors saved to disk); each unpack hook runs once per backward."""
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)]
    def run(hooked):
        unpacked = []
        x, w = (al.tensor(v, requires_grad=True) for v in values)
        if hooked:
            with al.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: unpacked.append(t) or t):
                y = (x @ w.t()).tanh().pow(2).mean()
        else:
            y = (x @ w.t()).tanh().pow(2).mean()
        y.backward()
        return x.grad.numpy(), w.grad.numpy(), len(unpacked)

    plain, hooked = run(False), run(True)
    assert hooked[2] == 4  # mm: self and mat2; tanh: result; pow: self; each unpacked once
    for a, b in zip(plain[:2], hooked[:2]):
        assert np.array_equal(a, b)


def test_a_hook_changing_the_dtype_takes_the_tensor_path_with_one_unpack():
    unpacked = []
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with al.autograd.graph.saved_tensors_hooks(lambda t: t.detach().double(), lambda t: unpacked.append(t) or t):
        y = x.exp()
    y.sum().backward()
    assert len(unpacked) == 1 and x.grad.dtype is al.float32
    assert np.allclose(x.grad.numpy(), np.exp([1.0, 2.0]))


def test_array_form_checks_versions_as_the_tensor_form():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- the engine: recorded steps and plain nodes give the same pass ----------------------------------
OPS = [
    lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b * 0.5, lambda a, b: (a * b).tanh(),
    lambda a, b: a.exp() * 0.1 + b, lambda a, b: a.sum(0, keepdim=True) + b, lambda a, b: (a @ b.t()).sum(1) + a[:, 0],
    lambda a, b: a.sigmoid() / (b * b + 1), lambda a, b: a.relu() + b.clamp(-0.5, 0.5),
]


def _random_graph(draw_ops, seed):
    rng = np.random.default_rng(seed)
    leaves = [al.tensor(rng.uniform(-1, 1, size=(3, 3)), requires_grad=True) for _ in range(3)]
    values = list(leaves)
    for op_index, left, right in draw_ops:
        values.append(OPS[op_index](values[left % len(values)], values[right % len(values)]))
        if values[-1].shape != (3, 3):
            values[-1] = values[-1].expand(3, 3) * 1.0
    out = sum(v.sum() for v in values[len(leaves):])
    return leaves, out


def _order_of(run):
    """Nodes in the order they computed gradients, on tensors (``_compute``) or on arrays
    (``Op._backward_on_arrays``); AccumulateGrad nodes accumulate without either."""
    seen = []
    original = engine._compute
    original_arrays = Op._backward_on_arrays

    def spy(node, grads):
        seen.append(type(node).__name__)
        return original(node, grads)

    def spy_arrays(node, grads, retain_graph):
        seen.append(type(node).__name__)
        return original_arrays(node, grads, retain_graph)
    engine._compute = spy
    Op._backward_on_arrays = spy_arrays
    try:
        run()
    finally:
        engine._compute = original
        Op._backward_on_arrays = original_arrays
    return seen


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 20), st.integers(0, 20)),
                    min_size=1, max_size=12),
       seed=st.integers(0, 1000))
def test_plain_pass_matches_recorded_steps(ops, seed):
    leaves_a, out_a = _random_graph(ops, seed)
    order_plain = _order_of(lambda: out_a.backward())
    leaves_b, out_b = _random_graph(ops, seed)
    steps = []
    order_recorded = _order_of(lambda: steps.extend(engine.backward_steps([out_b], [al.ones_like(out_b)])))
    assert order_plain == order_recorded
    assert order_recorded == [s.node.name() for s in steps if not isinstance(s.node, AccumulateGrad)]
    for a, b in zip(leaves_a, leaves_b):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            assert np.array_equal(a.grad.numpy(), b.grad.numpy())


def _random_graph_with_hooks(draw_ops, seed, hooked):
    """``_random_graph`` where the intermediate values picked by ``hooked`` carry a tensor hook (which
    scales the gradient) and ``retain_grad``: their nodes take the full path amid array nodes."""
    rng = np.random.default_rng(seed)
    leaves = [al.tensor(rng.uniform(-1, 1, size=(3, 3)), requires_grad=True) for _ in range(3)]
    values = list(leaves)
    for i, (op_index, left, right) in enumerate(draw_ops):
        value = OPS[op_index](values[left % len(values)], values[right % len(values)])
        if value.shape != (3, 3):
            value = value.expand(3, 3) * 1.0
        if i in hooked:
            value.register_hook(lambda g: g * 1.5)
            value.retain_grad()
        values.append(value)
    out = sum(v.sum() for v in values[len(leaves):])
    return leaves, values[len(leaves):], out


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 20), st.integers(0, 20)),
                    min_size=1, max_size=10),
       hooked=st.sets(st.integers(0, 9), max_size=4), seed=st.integers(0, 1000))
def test_array_pass_with_hooked_nodes_matches_recorded_steps(ops, hooked, seed):
    """Hooks and retain_grad in the middle of a graph: the array pass hands tensors to those nodes and
    arrays to the others; gradients (leaves' and retained ones) equal the recorded pass's bitwise."""
    leaves_a, mids_a, out_a = _random_graph_with_hooks(ops, seed, hooked)
    out_a.backward()
    leaves_b, mids_b, out_b = _random_graph_with_hooks(ops, seed, hooked)
    engine.run_to_end(engine.backward_steps([out_b], [al.ones_like(out_b)]))  # recorded: every node yields a step
    for a, b in zip(leaves_a + mids_a, leaves_b + mids_b):
        ga = a.grad if a.is_leaf or a.retains_grad else None
        gb = b.grad if b.is_leaf or b.retains_grad else None
        assert (ga is None) == (gb is None)
        if ga is not None:
            assert np.array_equal(ga.numpy(), gb.numpy())


def test_grad_mode_during_and_after_the_pass():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    modes = []
    y = x * 2
    y.register_hook(lambda g: modes.append(al.is_grad_enabled()))
    y.sum().backward()
    assert modes == [False] and al.is_grad_enabled()
    z = (x * 3).tanh()
    steps = engine.backward_steps([z.sum()], [al.ones(())])
    with al.no_grad():
        next(steps)
        assert not al.is_grad_enabled()  # the caller's mode between steps, not the pass's
    next(steps)
    assert al.is_grad_enabled()
    list(steps)
    assert al.is_grad_enabled()


# -- optimizers and gradient layout ------------------------------------------------------------------
def test_sgd_bumps_versions_as_torch():
    torch = pytest.importorskip("torch")
    w0 = np.random.default_rng(0).standard_normal((4, 3))
    ours = al.tensor(w0, requires_grad=True)
    theirs = torch.tensor(w0, requires_grad=True)
    opt_a = al.optim.SGD([ours], lr=0.1, momentum=0.9, weight_decay=0.01)
    opt_b = torch.optim.SGD([theirs], lr=0.1, momentum=0.9, weight_decay=0.01, foreach=False)
    for _ in range(3):
        for p, opt in ((ours, opt_a), (theirs, opt_b)):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
    assert ours._version == theirs._version
    assert opt_a.state[ours]["momentum_buffer"]._version == opt_b.state[theirs]["momentum_buffer"]._version
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


def test_sgd_refuses_inference_parameters_as_add_():
    with al.inference_mode():
        p = al.ones(2)
    p.requires_grad_(False)
    p.grad = al.ones(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        al.optim.SGD([p], lr=0.1).step()


@pytest.mark.parametrize("batch_grad", [True, False])
def test_linear_weight_grad_has_the_weight_layout(batch_grad):
    layer = al.nn.Linear(5, 3)
    x = al.randn(4, 5, requires_grad=batch_grad)
    layer(x).sum().backward()
    assert layer.weight.grad.is_contiguous() and layer.weight.grad.stride() == layer.weight.stride()
    expected = np.ones((4, 3)).T @ x.detach().numpy()
    np.testing.assert_allclose(layer.weight.grad.numpy(), expected, rtol=1e-5)


# -- the inline save plans of Op.apply -------------------------------------------------------------
def _describe_saved(values):
    """Saved values compared by what they hold: a SavedTensor by name, role and the array it keeps."""
    out = []
    for v in values:
        if isinstance(v, SavedTensor):  # every field the constructor sets (objects by identity)
            out.append(("saved", v._name, v.is_output, id(v._tensor), id(v._data), id(v._version_counter),
                        v.saved_version, v.output_nr, v._requires_grad, v._released, v._unpack_hook))
        else:
            out.append(("value", v))
    return out


@pytest.mark.parametrize("case", [
    "a * b", "a * c", "c * a", "a * 2.0", "a / b", "c / a", "a / 3.0", "a + b", "a.exp()", "a.log()",
    "a.tanh()", "m @ w", "n @ w", "m @ v",
])
def test_inline_save_plans_keep_what_the_general_plan_keeps(case):
    """``Op.apply`` saves the common plans (result, self, one parameter, two inputs) without
    ``_save_needed``; what it keeps must be exactly what ``_save_needed`` would keep."""
    from autograd_lab.ops._op import _save_needed
    rng = np.random.default_rng(0)
    a = al.tensor(rng.uniform(0.5, 1.5, 3), requires_grad=True)
    b = al.tensor(rng.uniform(0.5, 1.5, 3), requires_grad=True)
    c = al.tensor(rng.uniform(0.5, 1.5, 3))  # needs no gradient: only the other operand's is computed
    m, w = al.tensor(rng.standard_normal((2, 3)), requires_grad=True), al.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    n, v = al.tensor(rng.standard_normal((2, 3))), al.tensor(rng.standard_normal((3, 4)))
    out = eval(case, {}, dict(a=a, b=b, c=c, m=m, w=w, n=n, v=v))  # noqa: S307  (the cases above)
    node = out.grad_fn
    cls = type(node)
    assert cls._save_shortcut is not None, f"{cls.__name__} takes the general plan: this case tests nothing"
    inputs = {"a * b": (a, b), "a * c": (a, c), "c * a": (c, a), "a * 2.0": (a, 2.0), "a / b": (a, b),
              "c / a": (c, a), "a / 3.0": (a, 3.0), "a + b": (a, b), "a.exp()": (a,), "a.log()": (a,),
              "a.tanh()": (a,), "m @ w": (m, w), "n @ w": (n, w), "m @ v": (m, v)}[case]
    params = {"alpha": 1} if cls.__name__ == "AddBackward0" else {}
    general = _save_needed(cls, node.next_functions, inputs, out, params)
    assert _describe_saved(node._saved) == _describe_saved(general)


# -- ops written with one backward and its array form, a_backward -----------------------------------------
def _conv_node(x_shape, w_shape, *, bias=True, x_grad=True, w_grad=True, **kwargs):
    def build(rng, dtype):
        x = al.tensor(rng.standard_normal(x_shape), dtype=dtype, requires_grad=x_grad)
        w = al.tensor(rng.standard_normal(w_shape), dtype=dtype, requires_grad=w_grad)
        b = al.tensor(rng.standard_normal(w_shape[0]), dtype=dtype, requires_grad=True) if bias else None
        out = F.conv2d(x, w, b, **kwargs)
        return out.grad_fn if len(x_shape) == 4 else out.grad_fn.next_functions[0][0]  # (unbatched: under a squeeze)
    return build


def _batch_norm_node(x_shape, *, training=True, affine=True, x_grad=True, stats_dtype=None):
    def build(rng, dtype):
        channels = x_shape[1]
        x = al.tensor(rng.standard_normal(x_shape) * 2 + 0.5, dtype=dtype, requires_grad=x_grad)
        w = al.tensor(rng.uniform(0.5, 1.5, channels), dtype=dtype, requires_grad=True) if affine else None
        b = al.tensor(rng.standard_normal(channels), dtype=dtype, requires_grad=True) if affine else None
        stats = stats_dtype or dtype
        mean = al.tensor(rng.standard_normal(channels), dtype=stats)
        var = al.tensor(rng.uniform(0.5, 2.0, channels), dtype=stats)
        return F.batch_norm(x, mean, var, w, b, training=training).grad_fn
    return build


# op class -> builders of its node, ``build(rng, dtype)``
WHOLE_CASES = {
    "ConvolutionBackward0": [
        _conv_node((2, 3, 7, 6), (4, 3, 3, 3)),
        _conv_node((2, 3, 7, 6), (4, 3, 3, 3), x_grad=False, stride=2, padding=1),  # a first layer: no input gradient
        _conv_node((2, 6, 9, 8), (6, 2, 2, 3), bias=False, w_grad=False, dilation=2, padding=(1, 2), groups=3),
        _conv_node((1, 4, 8, 8), (6, 2, 3, 2), groups=2, dilation=(1, 2), padding="same"),
        _conv_node((2, 4, 9, 7), (8, 2, 3, 3), groups=2, stride=(2, 3), padding=(0, 1)),
        _conv_node((3, 5, 5), (2, 3, 1, 1)),  # unbatched, a 1x1 kernel
    ],
    "NativeBatchNormBackward0": [
        _batch_norm_node((4, 3, 5, 2)),
        _batch_norm_node((6, 4), affine=False),
        _batch_norm_node((3, 2, 4), training=False),
        _batch_norm_node((4, 3, 2, 2), training=False, affine=False),
        _batch_norm_node((4, 3, 5, 2), x_grad=False),
        _batch_norm_node((4, 3, 5), training=False, stats_dtype=al.float64),  # running stats of another dtype
    ],
}


def test_every_op_with_an_array_backward_is_checked():
    with_array_backward = {cls.__name__ for cls in _all_ops()
                           if cls._array_backward is not None and not cls.__name__.startswith("_")}
    assert with_array_backward == set(WHOLE_CASES)


def _assert_same(a, t, rtol, where):
    assert a.dtype == t.dtype, (where, a.dtype, t.dtype)
    assert a.shape == t.shape, (where, a.shape, t.shape)
    np.testing.assert_allclose(a, t, rtol=rtol, atol=rtol, err_msg=str(where))


@pytest.mark.parametrize("dtype", [al.float64, al.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name, index", [(name, i) for name, builders in WHOLE_CASES.items() for i in range(len(builders))])
def test_array_and_tensor_backward_agree(name, index, dtype):
    rng = np.random.default_rng(index)
    node = WHOLE_CASES[name][index](rng, dtype)
    assert type(node).__name__ == name
    g = rng.standard_normal(node._output_meta[0][0]).astype(dtype.np_dtype)
    with al.no_grad():
        by_arrays = node._whole_backward_on_arrays([g], retain_graph=True)
        by_tensors = node._backward((al.tensor(g),))
        saved = [s.unpack_data(node) if isinstance(s, SavedTensor) else s for s in node._saved]
    rtol = 1e-12 if dtype is al.float64 else 1e-5
    edges = node.next_functions
    assert len(by_arrays) == len(by_tensors) == len(edges)
    for i, ((child, nr), a, t) in enumerate(zip(edges, by_arrays, by_tensors)):
        if child is None:
            assert a is None
            continue
        assert a is not None and t is not None
        expected = engine.conform_array(t.numpy(), *child._output_meta[nr], node, i)  # as the engine passes it on
        _assert_same(a, expected, rtol, (name, i))
    # with the mask of the gradients needed, only those are computed, with the same values
    mask = tuple(child is not None for child, _ in edges)
    masked = type(node)._array_backward(g, *saved, output_mask=mask)
    for i, (needed, m, a, (child, nr)) in enumerate(zip(mask, masked, by_arrays, edges)):
        assert (m is None) == (not needed or a is None)
        if m is not None:
            _assert_same(engine.conform_array(m, *child._output_meta[nr], node, i), a, 0, ("masked", name, i))


def _small_cnn(seed):
    al.manual_seed(seed)
    nn = al.nn
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 6, 3, stride=2, groups=2), nn.GELU(), nn.AvgPool2d(2, ceil_mode=True),
                         nn.AdaptiveAvgPool2d((2, 1)), nn.Flatten(), nn.Linear(12, 3))


def test_a_cnn_trains_to_the_same_bits_with_and_without_array_forms(monkeypatch):
    """``backward()`` through every array form of a small CNN gives exactly the gradients of the tensor forms."""
    rng = np.random.default_rng(0)
    x = al.tensor(rng.standard_normal((5, 2, 10, 10)), dtype=al.float32)
    target = al.tensor(rng.integers(0, 3, 5))

    def gradients():
        model = _small_cnn(3)
        F.cross_entropy(model(x), target).backward()
        return [p.grad.numpy().copy() for p in model.parameters()]

    fast = gradients()
    names = ("ConvolutionBackward0", "NativeBatchNormBackward0", "MaxPool2DWithIndicesBackward0", "GeluBackward0",
             "AvgPool2DBackward0", "AdaptiveAvgPool2DBackward0")
    classes = [cls for cls in _all_ops() if cls.__name__ in names]
    assert len(classes) == len(names) and all(cls._runs_on_arrays for cls in classes)
    for cls in classes:
        monkeypatch.setattr(cls, "_runs_on_arrays", False)
    slow = gradients()
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_whole_backward_through_saved_values_of_another_dtype_keeps_every_gradient():
    """Saved values unpacked in another dtype send an a_backward op to its tensor backward; the
    unpacked tensors must answer requires_grad as the saved ones did (convolution's backward asks
    it to know which gradients to compute: they were lost when it read False)."""
    al.manual_seed(0)
    x = al.randn(1, 1, 5, 5, requires_grad=True)
    w = al.randn(2, 1, 3, 3, requires_grad=True)
    with al.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t.double()):
        F.conv2d(x, w).sum().backward()
    gx, gw = x.grad, w.grad
    x.grad = w.grad = None
    F.conv2d(x, w).sum().backward()
    assert gx is not None and gw is not None and gx.dtype is al.float32
    np.testing.assert_allclose(gx.numpy(), x.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), w.grad.numpy(), rtol=1e-5)


# -- the short forms of apply and backward for one tensor input ----------------------------------------------
def test_add_without_alpha_saves_its_default_as_torch():
    """``a + b`` calls the op without ``alpha``; the node still saves PyTorch's ``_saved_alpha`` (1)."""
    from autograd_lab.ops._op import _save_needed
    a, b = al.ones(2, requires_grad=True), al.ones(2, requires_grad=True)
    node = (a + b).grad_fn
    assert node._saved_alpha == 1 and al.add(a, b, alpha=2).grad_fn._saved_alpha == 2
    assert _save_needed(type(node), node.next_functions, (a, b), None, {}) == (1,)
    al.add(a, b, alpha=2).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0] and a.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("expr", ["x * 0.5", "x + 0.5", "x - 0.5", "x / 4.0", "x ** 2.0"])
def test_a_tensor_and_a_number_record_one_edge_and_an_empty_one(expr):
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = eval(expr, {}, {"x": x})  # noqa: S307  (the cases above)
    edges = y.grad_fn.next_functions
    assert type(edges[0][0]).__name__ == "AccumulateGrad" and edges[0][0].variable is x and edges[0][1] == 0
    assert all(e == (None, 0) for e in edges[1:])
    z = eval(expr, {}, {"x": y})  # noqa: S307  (a non-leaf input: its node, at its output number)
    assert z.grad_fn.next_functions[0] == (y.grad_fn, 0)


@pytest.mark.parametrize("op", ["tanh", "exp", "log", "sigmoid", "sqrt"])
def test_unary_nodes_free_what_they_saved_unless_retained(op):
    """One input, one saved tensor: the engine's short backward for these frees the record as the
    general path does, so a second pass fails with PyTorch's message, or works with retain_graph."""
    x = al.tensor([0.5, 1.5], dtype=al.float64, requires_grad=True)
    y = getattr(x, op)()
    y.sum().backward(retain_graph=True)
    first = x.grad.clone()
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * first.numpy())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        getattr(y.grad_fn, "_saved_result" if hasattr(y.grad_fn, "_saved_result") else "_saved_self")


def _view_state(t):
    node = t.grad_fn
    attrs = {k: getattr(t, k) for k in ("_base", "_view_chain", "_view_version", "_creation_meta", "_is_inference")}
    return (attrs, t._version_counter, t.requires_grad, t._is_inference, type(node).__name__,
            None if node is None else (node.next_functions, node._output_meta, _describe_saved(node._saved)))


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
@pytest.mark.parametrize("expr", ["w.T", "w[:, 0]", "w.view(6)", "w.t()", "w.unsqueeze(0)", "w.expand(4, 2, 3)",
                                  "v.T", "v[1:]", "c.T", "i.T"])
def test_single_output_views_are_made_as_the_general_path_makes_them(expr, mode, monkeypatch):
    """``Op._wrap_view`` writes out what ``_wrap_general`` and ``_make_views`` do for one output."""
    def build():
        w = al.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        v = (w * 2.0)[0]  # a view of a non-leaf
        c = al.ones(2, 3)  # needs no gradient
        with al.inference_mode():
            i = al.ones(2, 3)
        names = dict(w=w, v=v, c=c, i=i)
        if mode == "grad":
            return eval(expr, {}, names), names  # noqa: S307  (the cases above)
        with al.no_grad() if mode == "no_grad" else al.inference_mode():
            return eval(expr, {}, names), names  # noqa: S307
    fast, names_fast = build()
    monkeypatch.setattr(Op, "_wrap_view", classmethod(lambda cls, inputs, data, params:
                                                      cls._wrap_general(inputs, data, params)))
    general, names_general = build()
    a, b = _view_state(fast), _view_state(general)
    base_name = expr[0]
    assert (a[0]["_base"] is names_fast[base_name]._base or a[0]["_base"] is names_fast[base_name])
    assert (a[1] is names_fast[base_name]._version_counter) and (b[1] is names_general[base_name]._version_counter)
    a[0].pop("_base"), b[0].pop("_base")
    assert a[0] == b[0] and a[2:5] == b[2:5]
    if a[5] is not None:
        assert [type(n).__name__ for n, _ in a[5][0]] == [type(n).__name__ for n, _ in b[5][0]]
        assert a[5][1:] == b[5][1:]


def test_tensor_params_must_be_keyword_parameters():
    with pytest.raises(TypeError, match=r"tensor_params names \['nope'\]"):
        class BadBackward0(Op):  # noqa: F841
            tensor_params = ("nope",)

            def forward(xp, self, *, mask):
                return self

            def d_self(grad):
                return grad


_bounds = st.one_of(st.none(), st.integers(-6, 6))


@st.composite
def _int_and_slice_keys(draw):
    """A shape and a key of ints (in range) and slices (any bounds, positive or no step), no longer than
    the shape: the keys ``getitem`` sends down its fast path (``indexing._ints_and_slices``)."""
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    key = []
    for size in shape[:draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            key.append(slice(draw(_bounds), draw(_bounds), draw(st.one_of(st.none(), st.integers(1, 3)))))
    bare = len(key) == 1 and isinstance(key[0], slice) and draw(st.booleans())
    return shape, key[0] if bare else tuple(key)


@settings(max_examples=150, deadline=None)
@given(case=_int_and_slice_keys())
def test_int_and_slice_keys_are_indexed_as_the_general_path_indexes_them(case):
    """``x[key]`` for ints and slices takes ``_ints_and_slices``; it must build what ``_basic`` builds
    (the same chain of view nodes, values, gradient) and what NumPy computes."""
    from autograd_lab.ops import indexing
    shape, key = case
    array = np.arange(float(np.prod(shape))).reshape(shape)
    results = []
    for index in (lambda t: t[key],
                  lambda t: indexing._basic(t, key if isinstance(key, tuple) else (key,), isinstance(key, slice))):
        x = al.tensor(array, requires_grad=True)
        out = index(x)
        names, node = [], out.grad_fn
        while node is not None and not isinstance(node, AccumulateGrad):
            names.append((type(node).__name__, node._saved))
            node = node.next_functions[0][0]
        if out.numel():
            (out * al.tensor(np.arange(1.0, out.numel() + 1).reshape(out.shape))).sum().backward()
        results.append((out.detach().numpy(), names, out._view_chain, x.grad))
    (fast, fast_names, fast_chain, fast_grad), (general, general_names, general_chain, general_grad) = results
    np.testing.assert_array_equal(fast, array[key])
    np.testing.assert_array_equal(fast, general)
    assert fast_names == general_names and fast_chain == general_chain
    if fast_grad is None:
        assert general_grad is None
    else:
        np.testing.assert_array_equal(fast_grad.numpy(), general_grad.numpy())


def test_relu_matches_torch_bit_for_bit_signed_zeros_and_nans_included():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "float64"):
        values = np.array([-0.0, 0.0, -1.0, 1.5, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45], dtype=dtype)
        ours = al.tensor(values).relu().numpy()
        theirs = torch.tensor(values).relu().numpy()
        assert ours.tobytes() == theirs.tobytes(), (dtype, ours, theirs)


@pytest.mark.parametrize("layout", ["row-major", "transposed", "strided", "0-d"])
def test_relu_keeps_the_input_layout_and_values(layout):
    """ReLU computes against an array of zeros (NumPy's vector loop, NOTES item 31): same values as
    ``maximum(x, 0)``, and a transposed input keeps its layout, as PyTorch's relu keeps it."""
    base = np.random.default_rng(0).standard_normal((6, 8))
    x = al.tensor(np.array(-1.5) if layout == "0-d" else base, requires_grad=True)
    if layout == "transposed":
        x = x.t()
    elif layout == "strided":
        x = x[:, ::2]
    assert x._data.flags.c_contiguous == (layout in ("row-major", "0-d"))
    out = x.relu()
    expected = np.maximum(x.detach().numpy(), 0)
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    assert out._data.flags.f_contiguous == expected.flags.f_contiguous
    assert out._data.flags.c_contiguous == expected.flags.c_contiguous
    if layout == "transposed":
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            out.view(-1)  # as torch.ones(8, 6).t().relu().view(-1) raises
