"""The cases of ``test_formulas.py``, one or more per op class: what to run on inputs of which kind and domain
(``UNARY``: one tensor of any shape; ``BINARY``: two that broadcast; ``MATRIX``: a matrix and a second operand;
``SHAPED``: at least one dim; ``FIXED``: inputs the case makes itself). ``formula_cases_more.py`` has the families
added later; ``test_formulas.py`` checks that every op class has a case in one or the other."""

from __future__ import annotations

import numpy as np

import autograd_lab as al
from autograd_lab.ops._op import Op
from autograd_lab.ops.attention import _safe_softmax
from autograd_lab.ops.by_scalar import DivBackward1, MulBackward1
from autograd_lab.ops.nn_norm_more import AddBackward1
from autograd_lab.ops.pointwise_more import SpecialI1Backward0
from autograd_lab.ops.shape import SqueezeBackward4, UnsafeViewBackward0

F = al.nn.functional
UNARY, BINARY, MATRIX, SHAPED, FIXED = "unary", "binary", "matrix", "shaped", "fixed"


def _all_ops(cls=Op):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_ops(sub)


def _doubled(a):
    """``a`` and another copy of it along dim 0: every reduction over dim 0 has two different values."""
    return al.cat([a, a * 0.5 - 1])


_PICTURE = np.random.default_rng(5).standard_normal((2, 3, 7, 6))


def _picture(a):
    """A (2, 3, 7, 6) image that depends on every element of ``a`` (pooling and convolution need images)."""
    return a.sum() * al.tensor(_PICTURE, dtype=a.dtype) + al.tensor(_PICTURE ** 2, dtype=a.dtype)


def _leaf_picture(a):
    """``_picture(a)`` as a leaf that requires grad (its gradient is then exactly a pooling op's)."""
    return _picture(a).detach().requires_grad_()


def _targets(a):
    """Class indices for the rows of ``a`` (every class in turn)."""
    return al.tensor(np.arange(a.shape[0]) % a.shape[1])


def _second(first, a):
    """The gradient of ``first(a)`` with respect to ``a``, as a function of a gradient that requires grad:
    its node is the first op's derivative op (``...BackwardBackward0``)."""
    out = first(a)
    seed = al.ones_like(out).requires_grad_()
    return al.autograd.grad(out, a, seed, create_graph=True)[0]


def _written(method, *args):
    """``a`` (copied) with an in-place method applied: the node of the op it records."""
    def build(a, *more):
        target = a * 1.0
        getattr(target, method)(*(args + more))
        return target
    return build


def _layer_norm(a):
    """``layer_norm`` over the last dim of ``_doubled(a)``, with a weight and a bias that require grad."""
    x = _doubled(a)
    row = x.reshape(-1, x.shape[-1])[0].detach()
    return F.layer_norm(x, x.shape[-1:], row.requires_grad_(), (row * 0.5).requires_grad_())


def _masked_safe_softmax(a):
    """``_safe_softmax`` over dim 0 of ``_doubled(a)`` whose first line along it is all -inf (a zero line)."""
    x = _doubled(a)
    lines = al.tensor(np.arange(x.shape[-1]) == 0).expand(x.shape)
    return _safe_softmax(x.masked_fill(lines, float("-inf")), 0)


def _group_norm(a):
    """``group_norm`` of a (2, 3, 7, 6) image in 3 groups, with a weight and a bias that require grad."""
    weight = al.tensor([0.5, -1.0, 2.0], dtype=a.dtype, requires_grad=True)
    return F.group_norm(_leaf_picture(a), 3, weight, (weight * 0.3).detach().requires_grad_())


def _prelu(a):
    """``prelu`` with one slope per channel (dim 1; one slope for a 1-d input) that requires grad."""
    count = a.shape[1] if a.ndim > 1 else 1
    return F.prelu(a, al.tensor(np.linspace(-0.5, 0.5, count), dtype=a.dtype, requires_grad=True))


_IDX = al.tensor([0, 0, 1])
_COMPARISONS = (("Eq", "eq"), ("Ne", "ne"), ("Lt", "lt"), ("Le", "le"), ("Gt", "gt"), ("Ge", "ge"))

# op class -> (kind, domain, builders). Domains: "pos" (0.5..2), "any" (-2..2, away from 0). FIXED builders
# take (dtype) and make their own inputs.
CASES = {
    # arithmetic
    "AddBackward0": (BINARY, "any", [lambda a, b: a + b, lambda a, b: a.add(b, alpha=2.5)]),
    "SubBackward0": (BINARY, "any", [lambda a, b: a - b, lambda a, b: a.sub(b, alpha=0.5)]),
    "RsubBackward1": (UNARY, "any", [lambda a: 2.0 - a]),
    "RsubBackward0": (BINARY, "any", [lambda a, b: al.rsub(a, b), lambda a, b: al.rsub(a, b, alpha=0.5)]),
    "MulBackward0": (BINARY, "any", [lambda a, b: a * b, lambda a, b: a * 0.9]),
    "DivBackward0": (BINARY, "any", [lambda a, b: a / b, lambda a, b: a / 4]),
    "DivBackward2": (BINARY, "any", [lambda a, b: a.div(b, rounding_mode="floor")]),
    "ReciprocalBackward0": (UNARY, "any", [lambda a: a.reciprocal()]),
    "NegBackward0": (UNARY, "any", [lambda a: -a]),
    "PowBackward0": (UNARY, "pos", [lambda a: a ** 3, lambda a: a ** 2.5, lambda a: a ** 0]),
    "PowBackward1": (BINARY, "pos", [lambda a, b: a ** b]),
    "PowBackward2": (UNARY, "any", [lambda a: 2.0 ** a, lambda a: 0.0 ** a]),
    "RemainderBackward0": (UNARY, "any", [lambda a: a % 2.5, lambda a: al.remainder(-a, -3.0)]),
    "RemainderBackward1": (BINARY, "pos", [lambda a, b: a % b, lambda a, b: (-a).remainder(b)]),
    "FmodBackward0": (UNARY, "any", [lambda a: a.fmod(2.5), lambda a: al.fmod(-a, -3.0)]),
    "FmodBackward1": (BINARY, "pos", [lambda a, b: a.fmod(b), lambda a, b: (-a).fmod(b)]),
    # pointwise
    "AbsBackward0": (UNARY, "any", [lambda a: a.abs()]),
    "ExpBackward0": (UNARY, "any", [lambda a: a.exp()]),
    "LogBackward0": (UNARY, "pos", [lambda a: a.log()]),
    "Log1PBackward0": (UNARY, "pos", [lambda a: a.log1p()]),
    "SqrtBackward0": (UNARY, "pos", [lambda a: a.sqrt()]),
    "RsqrtBackward0": (UNARY, "pos", [lambda a: a.rsqrt()]),
    "SinBackward0": (UNARY, "any", [lambda a: a.sin()]),
    "CosBackward0": (UNARY, "any", [lambda a: a.cos()]),
    "TanBackward0": (UNARY, "any", [lambda a: (a * 0.5).tan()]),
    "TanhBackward0": (UNARY, "any", [lambda a: a.tanh()]),
    "SigmoidBackward0": (UNARY, "any", [lambda a: a.sigmoid()]),
    "ReluBackward0": (UNARY, "any", [lambda a: a.relu()]),
    "SignBackward0": (UNARY, "any", [lambda a: a.sign()]),
    "FloorBackward0": (UNARY, "any", [lambda a: a.floor()]),
    "CeilBackward0": (UNARY, "any", [lambda a: a.ceil()]),
    "RoundBackward0": (UNARY, "any", [lambda a: a.round()]),
    "RoundBackward1": (UNARY, "any", [lambda a: a.round(decimals=1), lambda a: al.round(a * 30, decimals=-1)]),
    "TruncBackward0": (UNARY, "any", [lambda a: a.trunc()]),
    "ClampBackward1": (UNARY, "any", [lambda a: a.clamp(-1.0, 1.0), lambda a: a.clamp(min=0.5)]),
    "ClampBackward0": (BINARY, "any", [lambda a, b: a.clamp(min=b), lambda a, b: a.clamp(b * 0.5, b)]),
    "MaximumBackward0": (BINARY, "any", [lambda a, b: al.maximum(a, b), lambda a, b: al.maximum(a, a.round())]),
    "MinimumBackward0": (BINARY, "any", [lambda a, b: al.minimum(a, b)]),
    "WhereBackward0": (BINARY, "any", [lambda a, b: al.where(a > 0, a, b)]),
    "ToCopyBackward0": (UNARY, "any", [lambda a: a.to(al.float64 if a.dtype is al.float32 else al.float32)]),
    "CloneBackward0": (UNARY, "any", [lambda a: a.clone()]),
    # reductions
    "SumBackward0": (UNARY, "any", [lambda a: a.sum()]),
    "SumBackward1": (SHAPED, "any", [lambda a: a.sum(-1), lambda a: a.sum(0, keepdim=True)]),
    "MeanBackward0": (UNARY, "any", [lambda a: a.mean()]),
    "MeanBackward1": (SHAPED, "any", [lambda a: a.mean(0), lambda a: a.mean(-1, keepdim=True)]),
    "ProdBackward0": (UNARY, "any", [lambda a: a.prod(), lambda a: (a * (a > 0)).prod()]),
    "ProdBackward1": (SHAPED, "any", [lambda a: a.prod(0), lambda a: (a * (a > 0)).prod(-1, keepdim=True)]),
    "VarBackward0": (SHAPED, "any", [lambda a: _doubled(a).var(), lambda a: _doubled(a).var(0, keepdim=True)]),
    "StdBackward0": (SHAPED, "any", [lambda a: _doubled(a).std(0), lambda a: (a * 0 + 1).std()]),
    "VarMeanBackward0": (SHAPED, "any", [lambda a: al.var_mean(_doubled(a), 0),
                                         lambda a: al.var_mean(_doubled(a), keepdim=True)[1]]),
    "StdMeanBackward0": (SHAPED, "any", [lambda a: al.std_mean(_doubled(a), 0), lambda a: al.std_mean(a * 0 + 1)]),
    "MaxBackward1": (UNARY, "any", [lambda a: a.max(), lambda a: a.round().max()]),
    "MinBackward1": (UNARY, "any", [lambda a: a.min()]),
    "AmaxBackward0": (SHAPED, "any", [lambda a: a.amax(), lambda a: a.round().amax(0, keepdim=True)]),
    "AminBackward0": (SHAPED, "any", [lambda a: a.amin(-1)]),
    "MaxBackward0": (SHAPED, "any", [lambda a: a.max(0).values, lambda a: a.max(-1, keepdim=True).values]),
    "MinBackward0": (SHAPED, "any", [lambda a: a.min(0).values]),
    "LogsumexpBackward0": (SHAPED, "any", [lambda a: a.logsumexp(0), lambda a: a.logsumexp(-1, keepdim=True)]),
    # gather, scatter, index_select, indexing
    "GatherBackward0": (FIXED, "any", [lambda d: al.randn(3, 4, dtype=d, requires_grad=True).gather(0, _IDX.reshape(3, 1))]),
    "ScatterAddBackward0": (FIXED, "any", [lambda d: al.randn(3, 4, dtype=d, requires_grad=True).scatter_add(
        0, _IDX.reshape(3, 1), al.randn(3, 1, dtype=d, requires_grad=True))]),
    "IndexSelectBackward0": (SHAPED, "any", [lambda a: a.index_select(0, al.tensor([0, 0]))]),
    "IndexBackward0": (SHAPED, "any", [lambda a: a[al.tensor([0, 0])], lambda a: a[a > 0]]),
    "IndexBackwardBackward0": (SHAPED, "any", [lambda a: _second(lambda x: x[al.tensor([0, 0])], a)]),
    # views and reshapes
    "AliasBackward0": (UNARY, "any", [lambda a: a[...]]),
    "ViewBackward0": (UNARY, "any", [lambda a: a.view(-1), lambda a: a.reshape(1, -1)]),
    "ReshapeAliasBackward0": (MATRIX, "any", [lambda a, w: a.t().reshape(1, *a.t().shape)]),
    "UnsafeViewBackward0": (UNARY, "any", [lambda a: UnsafeViewBackward0.apply(a, shape=(-1,))]),
    "TBackward0": (MATRIX, "any", [lambda a, w: a.t()]),
    "TransposeBackward0": (SHAPED, "any", [lambda a: a.transpose(0, -1)]),
    "TransposeBackward1": (SHAPED, "any", [_written("transpose_", 0, -1)]),
    "TBackward1": (MATRIX, "any", [lambda a, w: _written("t_")(a)]),
    "PermuteBackward0": (UNARY, "any", [lambda a: a.permute(*reversed(range(a.ndim)))]),
    "ExpandBackward0": (UNARY, "any", [lambda a: a.expand(2, *a.shape), lambda a: a.reshape(1, 1, -1)[:, :, :1].expand(2, 3, 4)]),
    "SqueezeBackward0": (UNARY, "any", [lambda a: a.unsqueeze(0).squeeze()]),
    "SqueezeBackward1": (UNARY, "any", [lambda a: a.unsqueeze(-1).squeeze(-1)]),
    "SqueezeBackward2": (UNARY, "any", [lambda a: a.unsqueeze(0).squeeze((0,))]),
    "SqueezeBackward4": (UNARY, "any", [lambda a: SqueezeBackward4.apply(a.unsqueeze(0), dim=(0,))]),
    "UnsqueezeBackward0": (UNARY, "any", [lambda a: a.unsqueeze(0)]),
    "SplitBackward0": (SHAPED, "any", [lambda a: a.split(1, 0)]),
    "SplitWithSizesBackward0": (SHAPED, "any", [lambda a: a.split([1, a.shape[0] - 1], 0)]),
    "UnbindBackward0": (SHAPED, "any", [lambda a: a.unbind(0)]),
    "SliceBackward0": (SHAPED, "any", [lambda a: a[::2], lambda a: a[..., 1:]]),
    "SelectBackward0": (SHAPED, "any", [lambda a: a[0], lambda a: a[..., -1]]),
    "SliceBackwardBackward0": (SHAPED, "any", [lambda a: _second(lambda x: x[0:1], a)]),
    "SelectBackwardBackward0": (SHAPED, "any", [lambda a: _second(lambda x: x[0], a)]),
    "DiagonalBackward0": (MATRIX, "any", [lambda a, w: a.diagonal(), lambda a, w: a.diagonal(1)]),
    "DiagonalBackwardBackward0": (MATRIX, "any", [lambda a, w: _second(lambda x: x.diagonal(), a)]),
    "RepeatBackward0": (UNARY, "any", [lambda a: a.repeat(*([2] * a.ndim)) if a.ndim else a.repeat(3)]),
    "CatBackward0": (BINARY, "any", [lambda a, b: al.cat([a.reshape(-1), b.reshape(-1)])]),
    "StackBackward0": (UNARY, "any", [lambda a: al.stack([a, a * 2])]),
    "FlipBackward0": (SHAPED, "any", [lambda a: a.flip(0)]),
    # products
    "MmBackward0": (MATRIX, "any", [lambda a, w: a @ w.t(), lambda a, w: a.mm(w.t().contiguous())]),
    "AddmmBackward0": (MATRIX, "any", [lambda a, w: F.linear(a, w, w[:, 0].detach().clone().requires_grad_()),
                                       lambda a, w: al.addmm(w[:, 0], a, w.t(), beta=0.5, alpha=2.0)]),
    "BmmBackward0": (MATRIX, "any", [lambda a, w: a.unsqueeze(0).bmm(w.t().unsqueeze(0))]),
    "MvBackward0": (MATRIX, "any", [lambda a, w: a.mv(w[0])]),
    "AddmvBackward0": (MATRIX, "any", [lambda a, w: al.addmv(a[:, 0], a, w[0], beta=0.5, alpha=2.0)]),
    "AddrBackward0": (MATRIX, "any", [lambda a, w: al.addr(a, a[:, 0], w[0], beta=0.5, alpha=2.0)]),
    "BaddbmmBackward0": (MATRIX, "any", [lambda a, w: al.baddbmm(a[:, :1], a[None], w.t()[None], beta=0.5, alpha=2.0)]),
    "AddbmmBackward0": (MATRIX, "any", [lambda a, w: al.addbmm(a[:, :1], al.stack([a, a * 2]), al.stack([w.t()] * 2))]),
    "VdotBackward0": (MATRIX, "any", [lambda a, w: al.vdot(a[0], w[0])]),
    "DistBackward0": (BINARY, "any", [lambda a, b: al.dist(a, b), lambda a, b: al.dist(a, b, 1),
                                      lambda a, b: al.dist(a, b, 3), lambda a, b: al.dist(a, b, float("inf"))]),
    "DotBackward0": (MATRIX, "any", [lambda a, w: a[0].dot(w[0])]),
    "EinsumBackward0": (MATRIX, "any", [lambda a, w: al.einsum("ij,kj->ik", a, w), lambda a, w: al.einsum("ij->i", a),
                                        lambda a, w: al.einsum("ii", a[:2, :2]),
                                        lambda a, w: al.einsum("ij,kj,k", a, w, w[:, 0])]),
    # nn
    "SoftmaxBackward0": (SHAPED, "any", [lambda a: F.softmax(a, -1)]),
    "LogSoftmaxBackward0": (SHAPED, "any", [lambda a: F.log_softmax(a, 0)]),
    "SafeSoftmaxBackward0": (SHAPED, "any", [lambda a: _safe_softmax(a, -1), _masked_safe_softmax]),
    "MulBackward1": (UNARY, "any", [lambda a: MulBackward1.apply(a, other=0.75)]),
    "DivBackward1": (UNARY, "any", [lambda a: DivBackward1.apply(a, other=0.75)]),
    "AddBackward1": (UNARY, "any", [lambda a: AddBackward1.apply(a, other=0.75)]),
    "NativeGroupNormBackward0": (UNARY, "any", [_group_norm, lambda a: F.group_norm(_leaf_picture(a), 1)]),
    "PreluKernelBackward0": (SHAPED, "any", [_prelu, lambda a: F.prelu(a, a.reshape(-1)[:1] * 0.5)]),
    "ErfBackward0": (UNARY, "any", [lambda a: a.erf()]),
    "GeluBackward0": (UNARY, "any", [lambda a: F.gelu(a), lambda a: F.gelu(a, approximate="tanh")]),
    "EmbeddingBackward0": (MATRIX, "any", [lambda a, w: F.embedding(_targets(w.t()), w),
                                           lambda a, w: F.embedding(_targets(w.t()), w, padding_idx=0,
                                                                    scale_grad_by_freq=True)]),
    "EmbeddingDenseBackwardBackward0": (MATRIX, "any", [lambda a, w: _second(
        lambda x: F.embedding(_targets(x.t()), x, scale_grad_by_freq=True), w)]),
    "NativeBatchNormBackward0": (FIXED, "any", [
        lambda d: F.batch_norm(al.randn(4, 3, 2, dtype=d, requires_grad=True), None, None,
                               al.randn(3, dtype=d, requires_grad=True), al.randn(3, dtype=d, requires_grad=True),
                               training=True),
        lambda d: F.batch_norm(al.randn(4, 3, dtype=d, requires_grad=True), al.randn(3, dtype=d), al.rand(3, dtype=d) + 1,
                               al.randn(3, dtype=d, requires_grad=True), None, training=False)]),
    "LeakyReluBackward0": (UNARY, "any", [lambda a: F.leaky_relu(a, 0.2), lambda a: F.leaky_relu(a, -0.5)]),
    "LeakyReluBackward1": (UNARY, "any", [lambda a: F.leaky_relu(a * 1.0, 0.2, inplace=True)]),
    "ThresholdBackward0": (UNARY, "any", [lambda a: F.threshold(a, 0.3, -2.0)]),
    "ThresholdBackward1": (UNARY, "any", [lambda a: F.threshold(a * 1.0, 0.3, 5.0, inplace=True)]),
    "NativeLayerNormBackward0": (SHAPED, "any", [_layer_norm, lambda a: F.layer_norm(_doubled(a), _doubled(a).shape)]),
    # convolution and pooling
    "ConvolutionBackward0": (UNARY, "any", [lambda a: F.conv2d(_picture(a), _picture(a)[:2, :, :3, :2] * 0.1, padding=1,
                                                                bias=a.sum().reshape(1).expand(2) * 1.0),
                                            lambda a: F.conv_transpose2d(
                                                _picture(a), _picture(a)[0, :, :3, :2].reshape(3, 1, 3, 2) * 0.1,
                                                a.sum().reshape(1).expand(3) * 1.0, stride=2, padding=1,
                                                output_padding=1, groups=3),
                                            lambda a: F.conv_transpose1d(_picture(a)[:, :, 0], _picture(a)[0, :, :2, :3],
                                                                         dilation=2, output_padding=1),
                                            lambda a: F.conv3d(_picture(a).reshape(2, 3, 7, 3, 2),
                                                               _picture(a)[:, :, :2, :2].reshape(2, 3, 2, 2, 1) * 0.1,
                                                               stride=(2, 1, 1), padding=(1, 0, 1), groups=1),
                                            lambda a: F.conv_transpose3d(
                                                _picture(a).reshape(2, 3, 7, 3, 2),
                                                _picture(a)[0, :, :2, :4].reshape(3, 1, 2, 2, 2), stride=2,
                                                output_padding=(1, 0, 1))]),
    "ConvolutionBackwardBackward0": (UNARY, "any", [lambda a: _second(
        lambda x: F.conv2d(x, _picture(a)[:2, :, :3, :2] * 0.1, stride=2), _leaf_picture(a)), lambda a: _second(
        lambda x: F.conv_transpose2d(x, _picture(a)[0, :, :2, :3].reshape(3, 1, 2, 3) * 0.1, stride=(2, 1),
                                     dilation=(1, 2), output_padding=1), _leaf_picture(a))]),
    "MaxPool2DWithIndicesBackward0": (UNARY, "any", [lambda a: F.max_pool2d(_picture(a), 2),
                                                     lambda a: F.max_pool2d(_picture(a), 3, stride=2, padding=1)]),
    "MaxPool2DWithIndicesBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.max_pool2d(x, 2),
                                                                                _leaf_picture(a))]),
    "AvgPool2DBackward0": (UNARY, "any", [lambda a: F.avg_pool2d(_picture(a), 3, stride=2, padding=1,
                                                                   count_include_pad=False, ceil_mode=True)]),
    "AvgPool2DBackwardBackward0": (UNARY, "any", [lambda a: _second(lambda x: F.avg_pool2d(x, 2), _leaf_picture(a))]),
    "AdaptiveAvgPool2DBackward0": (UNARY, "any", [lambda a: F.adaptive_avg_pool2d(_picture(a), (3, 2))]),
    "AdaptiveAvgPool2DBackwardBackward0": (UNARY, "any", [lambda a: _second(
        lambda x: F.adaptive_avg_pool2d(x, (3, 2)), _leaf_picture(a))]),
    "Im2ColBackward0": (UNARY, "any", [lambda a: F.unfold(_picture(a), 2),
                                       lambda a: F.unfold(_picture(a)[0], (3, 2), dilation=(1, 2), padding=1, stride=2)]),
    "Col2ImBackward0": (UNARY, "any", [lambda a: F.fold(F.unfold(_picture(a), 2), (7, 6), 2),
                                       lambda a: F.fold(_picture(a).reshape(6, 14, 3)[:, :12], (4, 6), (2, 3), stride=2,
                                                        padding=(1, 0), dilation=(1, 2))]),
    "AdaptiveMaxPool2DBackward0": (UNARY, "any", [lambda a: F.adaptive_max_pool2d(_picture(a), (3, 4)),
                                                  lambda a: F.adaptive_max_pool2d(_picture(a)[0], (5, 2))]),
    "AdaptiveMaxPool2DBackwardBackward0": (UNARY, "any", [lambda a: _second(
        lambda x: F.adaptive_max_pool2d(x, (3, 4)), _leaf_picture(a))]),
    "MaxUnpool2DBackward0": (UNARY, "any", [lambda a: F.max_unpool2d(*F.max_pool2d(_picture(a), 2, return_indices=True),
                                                                     2, output_size=(7, 6))]),
    "PixelShuffleBackward0": (UNARY, "any", [lambda a: F.pixel_shuffle(_picture(a).reshape(3, 4, 7, 3), 2),
                                             lambda a: F.pixel_shuffle(_picture(a).reshape(2, 9, 2, 7)[0], 3)]),
    "PixelUnshuffleBackward0": (UNARY, "any", [lambda a: F.pixel_unshuffle(_picture(a)[:, :, :6], 3)]),
    "ChannelShuffleBackward0": (UNARY, "any", [lambda a: F.channel_shuffle(_picture(a).reshape(1, 6, 7, 6), 3),
                                               lambda a: F.channel_shuffle(_picture(a).reshape(2, 6, 21), 2)]),
    # losses
    "NllLossBackward0": (MATRIX, "any", [lambda a, w: F.nll_loss(a, _targets(a)),
                                         lambda a, w: F.nll_loss(a, _targets(a), reduction="none", ignore_index=1),
                                         lambda a, w: F.nll_loss(a, _targets(a), weight=w[0].detach().abs())]),
    "NllLoss2DBackward0": (MATRIX, "any", [lambda a, w: F.nll_loss(a.reshape(*a.shape, 1, 1), _targets(a).reshape(-1, 1, 1))]),
    "MseLossBackward0": (MATRIX, "any", [lambda a, w: F.mse_loss(a, a * 0.5 + w[0]),
                                         lambda a, w: F.mse_loss(a, a.detach() * 2, reduction="none")]),
    "BinaryCrossEntropyBackward0": (UNARY, "any", [
        lambda a: F.binary_cross_entropy(a.sigmoid(), (a * 0.7).sigmoid()),
        lambda a: F.binary_cross_entropy(a.sigmoid(), (-a).sigmoid(), reduction="none", weight=al.tensor(2))]),
    "BinaryCrossEntropyWithLogitsBackward0": (UNARY, "any", [
        lambda a: F.binary_cross_entropy_with_logits(a, (a * 0.7).sigmoid()),
        lambda a: F.binary_cross_entropy_with_logits(a, (-a).sigmoid(), pos_weight=al.tensor(3), reduction="sum")]),
    # writes (the nodes of in-place ops) and random fills
    "ZeroBackward0": (UNARY, "any", [_written("zero_")]),
    "FillBackward2": (UNARY, "any", [_written("fill_", 2.0)]),
    "FillBackward3": (UNARY, "any", [lambda a: _written("fill_")(a, a.sum())]),
    "CopyBackwards": (BINARY, "any", [lambda a, b: _written("copy_")(a * b, b)]),
    "MaskedFillBackward0": (UNARY, "any", [lambda a: a.masked_fill(a > 0, 1.0)]),
    "MaskedFillBackward1": (UNARY, "any", [lambda a: a.masked_fill(a > 0, a.sum())]),
    "IndexPutBackward0": (SHAPED, "any", [lambda a: a.index_put((al.tensor([0, 0]),), a[0] * 3),
                                          lambda a: a.index_put((al.tensor([0]),), a[0] * 3, accumulate=True)]),
    "UniformBackward0": (UNARY, "any", [_written("uniform_")]),
    "NormalBackward0": (UNARY, "any", [_written("normal_")]),
    "BernoulliBackward0": (UNARY, "any", [lambda a: al.bernoulli(a.sigmoid())]),
    "BernoulliBackward1": (UNARY, "any", [lambda a: _written("bernoulli_")(a, a.sigmoid())]),
    "BernoulliBackward2": (UNARY, "any", [_written("bernoulli_", 0.3)]),
    "PoissonBackward0": (UNARY, "pos", [lambda a: al.poisson(a)]),
    "RandomBackward0": (UNARY, "any", [_written("random_", -2, 5)]),
    "RandomBackward1": (UNARY, "any", [_written("random_", 5)]),
    "RandomBackward2": (UNARY, "any", [_written("random_")]),
    "ExponentialBackward0": (UNARY, "any", [_written("exponential_")]),
    "GeometricBackward0": (UNARY, "any", [_written("geometric_", 0.4)]),
    "LogNormalBackward0": (UNARY, "any", [_written("log_normal_")]),
    "CauchyBackward0": (UNARY, "any", [_written("cauchy_")]),
    # comparisons written in place (zero gradients)
    **{f"{node}Backward0": (UNARY, "any", [_written(f"{name}_", 0.5)]) for node, name in _COMPARISONS},
    **{f"{node}Backward1": (UNARY, "any", [lambda a, name=name: _written(f"{name}_")(a, a.round())])
       for node, name in _COMPARISONS},
    # norms and padding
    "LinalgVectorNormBackward0": (SHAPED, "any", [lambda a: a.norm(), lambda a: a.norm(1, 0), lambda a: a.norm(3),
                                                  lambda a: a.norm(float("inf"))]),
    "ConstantPadNdBackward0": (SHAPED, "any", [lambda a: F.pad(a, (1, 2))]),
    # sorting
    "SortBackward0": (SHAPED, "any", [lambda a: a.sort(0).values, lambda a: a.sort(-1, descending=True).values,
                                      lambda a: a.msort()]),
    "SortBackward1": (SHAPED, "any", [lambda a: a.sort(stable=True, dim=0).values]),
    "TopkBackward0": (SHAPED, "any", [lambda a: a.topk(2, 0).values, lambda a: a.topk(1, largest=False).values]),
    "KthvalueBackward0": (SHAPED, "any", [lambda a: a.kthvalue(2, 0).values,
                                          lambda a: a.kthvalue(1, -1, keepdim=True).values]),
    "MedianBackward0": (UNARY, "any", [lambda a: a.median(), lambda a: a.round().median()]),
    "MedianBackward1": (SHAPED, "any", [lambda a: a.median(0).values, lambda a: a.median(-1, keepdim=True).values]),
    "NanmedianBackward0": (UNARY, "any", [lambda a: a.nanmedian()]),
    "NanmedianBackward1": (SHAPED, "any", [lambda a: a.nanmedian(-1).values]),
    "ModeBackward0": (SHAPED, "any", [lambda a: a.mode(0).values, lambda a: a.round().mode(-1, keepdim=True).values]),
    # pointwise math
    "Expm1Backward0": (UNARY, "any", [lambda a: a.expm1()]),
    "Exp2Backward0": (UNARY, "any", [lambda a: a.exp2()]),
    "Log2Backward0": (UNARY, "pos", [lambda a: a.log2()]),
    "Log10Backward0": (UNARY, "pos", [lambda a: a.log10()]),
    "AsinBackward0": (UNARY, "any", [lambda a: (a * 0.4).asin()]),
    "AcosBackward0": (UNARY, "any", [lambda a: (a * 0.4).acos()]),
    "AtanBackward0": (UNARY, "any", [lambda a: a.atan()]),
    "SinhBackward0": (UNARY, "any", [lambda a: a.sinh()]),
    "CoshBackward0": (UNARY, "any", [lambda a: a.cosh()]),
    "AsinhBackward0": (UNARY, "any", [lambda a: a.asinh()]),
    "AcoshBackward0": (UNARY, "pos", [lambda a: (a + 1).acosh()]),
    "AtanhBackward0": (UNARY, "any", [lambda a: (a * 0.4).atanh()]),
    "ErfcBackward0": (UNARY, "any", [lambda a: a.erfc()]),
    "ErfinvBackward0": (UNARY, "any", [lambda a: (a * 0.4).erfinv()]),
    "LgammaBackward0": (UNARY, "pos", [lambda a: a.lgamma()]),
    "DigammaBackward0": (UNARY, "any", [lambda a: a.digamma()]),
    "PolygammaBackward0": (UNARY, "pos", [lambda a: a.polygamma(1), lambda a: al.polygamma(3, a)]),
    "SincBackward0": (UNARY, "any", [lambda a: a.sinc(), lambda a: (a * 0).sinc()]),
    "LogitBackward0": (UNARY, "pos", [lambda a: (a * 0.4).logit(), lambda a: (a * 0.4).logit(eps=0.3)]),
    "FracBackward0": (UNARY, "any", [lambda a: (a * 3).frac()]),
    "SgnBackward0": (UNARY, "any", [lambda a: a.sgn()]),
    "Deg2RadBackward0": (UNARY, "any", [lambda a: a.deg2rad()]),
    "Rad2DegBackward0": (UNARY, "any", [lambda a: a.rad2deg()]),
    "NanToNumBackward0": (UNARY, "any", [lambda a: a.nan_to_num(), lambda a: a.nan_to_num(0.5, posinf=1.0)]),
    "Atan2Backward0": (BINARY, "any", [lambda a, b: al.atan2(a, b)]),
    "HypotBackward0": (BINARY, "any", [lambda a, b: al.hypot(a, b)]),
    "LogaddexpBackward0": (BINARY, "any", [lambda a, b: al.logaddexp(a, b)]),
    "Logaddexp2Backward0": (BINARY, "any", [lambda a, b: al.logaddexp2(a, b)]),
    "XlogyBackward0": (BINARY, "pos", [lambda a, b: al.xlogy(a, b), lambda a, b: al.xlogy(a.round() - 1, b)]),
    "XlogyBackward1": (UNARY, "pos", [lambda a: al.xlogy(2.5, a)]),
    "XlogyBackward2": (UNARY, "any", [lambda a: al.xlogy(a, 3.0), lambda a: al.xlogy(a.round(), 0.5)]),
    "CopysignBackward0": (BINARY, "any", [lambda a, b: al.copysign(a, b)]),
    "CopysignBackward1": (UNARY, "any", [lambda a: al.copysign(a, -1.0)]),
    "LerpBackward0": (BINARY, "any", [lambda a, b: al.lerp(a, b, 0.3), lambda a, b: al.lerp(a, b, 0.8)]),
    "LerpBackward1": (BINARY, "any", [lambda a, b: al.lerp(a, b, b), lambda a, b: a.lerp(a * 2, b)]),
    "AddcmulBackward0": (BINARY, "any", [lambda a, b: al.addcmul(a, a, b, value=0.5)]),
    "AddcdivBackward0": (BINARY, "any", [lambda a, b: al.addcdiv(b, a, b, value=2)]),
    "FmaxBackward0": (BINARY, "any", [lambda a, b: al.fmax(a, b), lambda a, b: al.fmax(a, a.round())]),
    "FminBackward0": (BINARY, "any", [lambda a, b: al.fmin(a, b)]),
    "LdexpBackward0": (BINARY, "any", [lambda a, b: al.ldexp(a, b)]),
    "FrexpBackward0": (UNARY, "any", [lambda a: al.frexp(a).mantissa, lambda a: a.frexp()]),
    "I0Backward0": (UNARY, "any", [lambda a: al.i0(a), lambda a: a.i0()]),
    "SpecialI1Backward0": (UNARY, "any", [lambda a: SpecialI1Backward0.apply(a)]),  # (i0's derivative)
    "NextafterBackward0": (BINARY, "any", [lambda a, b: al.nextafter(a, b), lambda a, b: al.nextafter(a, a.round())]),
    "NansumBackward0": (SHAPED, "any", [lambda a: a.nansum(), lambda a: al.nansum(a.log(), 0, keepdim=True)]),
    "AminmaxBackward0": (SHAPED, "any", [lambda a: al.aminmax(a), lambda a: a.aminmax(dim=0, keepdim=True),
                                         lambda a: al.aminmax(a.round(), dim=-1)]),
    # nn activations and losses
    "ClampMinBackward0": (UNARY, "any", [lambda a: a.clamp_min(0.5), lambda a: al.clamp_min(a, -1.0)]),
    "HardtanhBackward0": (UNARY, "any", [lambda a: F.hardtanh(a), lambda a: F.relu6(a * 4, inplace=True)]),
    "EluBackward0": (UNARY, "any", [lambda a: F.elu(a, 0.7), lambda a: F.selu(a)]),
    "EluBackward1": (UNARY, "any", [lambda a: F.elu(a * 1.0, 1.5, inplace=True), lambda a: F.selu(a * 1.0, True)]),
    "CeluBackward0": (UNARY, "any", [lambda a: F.celu(a, 0.5)]),
    "CeluBackward1": (UNARY, "any", [lambda a: F.celu(a * 1.0, 2.0, inplace=True)]),
    "SiluBackward0": (UNARY, "any", [lambda a: F.silu(a)]),
    "MishBackward0": (UNARY, "any", [lambda a: F.mish(a)]),
    "SoftplusBackward0": (UNARY, "any", [lambda a: F.softplus(a), lambda a: F.softplus(a, 2.0, 1.0)]),
    "HardsigmoidBackward0": (UNARY, "any", [lambda a: F.hardsigmoid(a * 2)]),
    "HardswishBackward0": (UNARY, "any", [lambda a: F.hardswish(a * 2)]),
    "LogSigmoidBackward0": (UNARY, "any", [lambda a: F.logsigmoid(a)]),
    "GluBackward0": (SHAPED, "any", [lambda a: F.glu(_doubled(a), 0)]),
    "HardshrinkBackward0": (UNARY, "any", [lambda a: F.hardshrink(a, 1.0)]),
    "SoftshrinkBackward0": (UNARY, "any", [lambda a: F.softshrink(a, 1.0)]),
    "SmoothL1LossBackward0": (MATRIX, "any", [lambda a, w: F.smooth_l1_loss(a, a * 0.5 + w[0]),
                                              lambda a, w: F.smooth_l1_loss(a, a * 0.3 + w[0], reduction="none", beta=0.5)]),
    "HuberLossBackward0": (MATRIX, "any", [lambda a, w: F.huber_loss(a, a * 0.5 + w[0], reduction="sum", delta=0.8)]),
    "SoftMarginLossBackward0": (UNARY, "any", [lambda a: F.soft_margin_loss(a, -al.ones_like(a)),
                                               lambda a: F.soft_margin_loss(a, al.ones_like(a), reduction="none")]),
    "NormBackward1": (MATRIX, "any", [lambda a, w: F.pairwise_distance(a, w[0]), lambda a, w: F.pairwise_distance(a, w[0], 3.0)]),
}
