"""Every op's forward derivative (its ``f_<input>`` rules, ``jvp``, or ``jvp = LINEAR``) against finite differences:
``gradcheck(check_forward_ad=True)`` in float64 on each op of the inventory, with the builders of test_formulas.py.
The ops those builders reach only through a backward (the gradients of gradients, ``...BackwardBackward0``) are
checked by forward over reverse (``gradgradcheck(check_fwd_over_rev=True)``) of the op they differentiate; those
built with their own inputs get inputs here. Every op must have a forward rule; the rules' definitions are checked
when the class is made, and an op without one meets PyTorch's error.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_formulas import CASES, FIXED, _all_ops, _inputs

import autograd_lab as al
import autograd_lab.autograd.forward_ad as fwAD
from autograd_lab.autograd import gradcheck, gradgradcheck
from autograd_lab.ops._op import LINEAR, Op
from autograd_lab.ops.pointwise import ToCopyBackward0

F = al.nn.functional
_IDX = al.tensor([0, 2, 0])

_DETACHED = "the builder detaches a copy of its input: finite differences see it move, autograd (rightly) does not"
_RANDOM = "a random fill: each call draws new values, so finite differences are noise"
SKIPPED = {  # (op, builder index in CASES): why finite differences cannot check that builder
    ("PowBackward2", 1): "0 ** x is infinite for x < 0, where finite differences give nan",
    ("AddmmBackward0", 0): _DETACHED, ("MseLossBackward0", 1): _DETACHED, ("NllLossBackward0", 2): _DETACHED,
    ("NativeLayerNormBackward0", 0): _DETACHED, ("NativeGroupNormBackward0", 0): _DETACHED,
    ("NativeGroupNormBackward0", 1): _DETACHED,
    ("ToCopyBackward0", 0): "a float64 input is converted to float32, too coarse for finite differences",
    ("UniformBackward0", 0): _RANDOM, ("NormalBackward0", 0): _RANDOM,
    **{(name, 0): _RANDOM for name in ("BernoulliBackward0", "BernoulliBackward1", "BernoulliBackward2", "PoissonBackward0",
                                       "RandomBackward0", "RandomBackward1", "RandomBackward2", "ExponentialBackward0",
                                       "GeometricBackward0", "LogNormalBackward0", "CauchyBackward0")},
}


def _reached_by_builders(name: str) -> bool:
    return CASES[name][0] != FIXED and "BackwardBackward" not in name


def _leaf(rng, shape, low=0.5, high=1.5):
    values = rng.uniform(low, high, shape) * rng.choice([-1.0, 1.0], shape)
    return al.tensor(values, dtype=al.float64, requires_grad=True)


def _distinct(rng, shape):
    """Values far apart from each other (max pooling has no ties)."""
    n = int(np.prod(shape))
    return al.tensor((rng.permutation(n) * 0.3 + rng.uniform(0, 0.01, n)).reshape(shape), dtype=al.float64,
                     requires_grad=True)


def _pad(mode, dims):
    return lambda x: F.pad(x, (1, 1) * dims, mode=mode)


# The first-order op whose backward makes each ...BackwardBackward0 op, and how to make its inputs.
SECOND_ORDER = {
    "IndexBackwardBackward0": (lambda a: a[_IDX] * 1.0, lambda rng: [_leaf(rng, (3, 4))]),
    "ThresholdBackwardBackward0": (lambda a: a.relu(), lambda rng: [_leaf(rng, (3, 4))]),
    "LeakyReluBackwardBackward0": (lambda a: F.leaky_relu(a, 0.2), lambda rng: [_leaf(rng, (3, 4))]),
    "HardtanhBackwardBackward0": (lambda a: F.hardtanh(a, -0.7, 0.7), lambda rng: [_leaf(rng, (3, 4))]),
    "HardshrinkBackwardBackward0": (lambda a: F.hardshrink(a, 0.7), lambda rng: [_leaf(rng, (3, 4))]),
    "SoftshrinkBackwardBackward0": (lambda a: F.softshrink(a, 0.7), lambda rng: [_leaf(rng, (3, 4))]),
    "BinaryCrossEntropyBackwardBackward0": (lambda a: F.binary_cross_entropy(a.sigmoid(), al.full_like(a, 0.3)),
                                            lambda rng: [_leaf(rng, (3, 4))]),
    "SliceBackwardBackward0": (lambda a: a[1:, 1:3], lambda rng: [_leaf(rng, (3, 4))]),
    "SelectBackwardBackward0": (lambda a: a[1:, 0], lambda rng: [_leaf(rng, (3, 4))]),
    "DiagonalBackwardBackward0": (lambda a: a.diagonal(1), lambda rng: [_leaf(rng, (3, 4))]),
    "EmbeddingDenseBackwardBackward0": (lambda w: F.embedding(_IDX, w, scale_grad_by_freq=True),
                                        lambda rng: [_leaf(rng, (3, 4))]),
    "ConvolutionBackwardBackward0": (lambda x, w: F.conv2d(x, w, padding=1, stride=2),
                                     lambda rng: [_leaf(rng, (1, 2, 5, 4)), _leaf(rng, (3, 2, 3, 3))]),
    "MaxPool2DWithIndicesBackwardBackward0": (lambda x: F.max_pool2d(x, 2), lambda rng: [_distinct(rng, (1, 2, 4, 4))]),
    "AvgPool2DBackwardBackward0": (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
                                   lambda rng: [_leaf(rng, (1, 2, 5, 4))]),
    "AdaptiveAvgPool2DBackwardBackward0": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
                                           lambda rng: [_leaf(rng, (1, 2, 5, 4))]),
    "AdaptiveMaxPool2DBackwardBackward0": (lambda x: F.adaptive_max_pool2d(x, (2, 3)),
                                           lambda rng: [_distinct(rng, (1, 2, 5, 4))]),
    "MaxPool3DWithIndicesBackwardBackward0": (lambda x: F.max_pool3d(x, 2, 1),
                                              lambda rng: [_distinct(rng, (1, 2, 3, 3, 4))]),
    "AvgPool3DBackwardBackward0": (lambda x: F.avg_pool3d(x, 3, stride=2, padding=1),
                                   lambda rng: [_leaf(rng, (1, 2, 3, 5, 4))]),
    "AdaptiveAvgPool3DBackwardBackward0": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
                                           lambda rng: [_leaf(rng, (1, 2, 3, 5, 4))]),
    "AdaptiveMaxPool3DBackwardBackward0": (lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)),
                                           lambda rng: [_distinct(rng, (1, 2, 3, 5, 4))]),
    "UnfoldBackwardBackward0": (lambda a: a.unfold(1, 3, 2), lambda rng: [_leaf(rng, (2, 7))]),
    "GridSampler2DBackwardBackward0": (lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=False),
                                       lambda rng: [_leaf(rng, (1, 2, 3, 4)), _leaf(rng, (1, 2, 3, 2))]),
    "GridSampler3DBackwardBackward0": (lambda x, g: F.grid_sample(x, g, align_corners=True),
                                       lambda rng: [_leaf(rng, (1, 2, 3, 2, 2)), _leaf(rng, (1, 2, 1, 2, 3))]),
}
for _mode, _name in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad")):
    for _dims in (1, 2, 3):
        SECOND_ORDER[f"{_name}{_dims}DBackwardBackward0"] = (
            _pad(_mode, _dims), lambda rng, dims=_dims: [_leaf(rng, (1, 2) + (3,) * dims)])

_RESAMPLINGS = {  # each resampling's gradient op: made by interpolate in this mode, with these settings, on this input
    "Nearest1D": ("nearest", dict(scale_factor=2.5), (1, 2, 4)),
    "Nearest2D": ("nearest", dict(size=(5, 3)), (1, 2, 3, 4)),
    "Nearest3D": ("nearest", dict(scale_factor=1.5), (1, 2, 2, 3, 3)),
    "NearestExact1D": ("nearest-exact", dict(size=7), (1, 2, 4)),
    "NearestExact2D": ("nearest-exact", dict(scale_factor=1.5), (1, 2, 3, 4)),
    "NearestExact3D": ("nearest-exact", dict(scale_factor=0.7), (1, 2, 3, 3, 4)),
    "Linear1D": ("linear", dict(scale_factor=1.7, align_corners=True), (1, 2, 4)),
    "Bilinear2D": ("bilinear", dict(scale_factor=2), (1, 2, 3, 4)),
    "Trilinear3D": ("trilinear", dict(size=(3, 4, 2)), (1, 2, 2, 3, 3)),
    "Bicubic2D": ("bicubic", dict(scale_factor=1.5), (1, 2, 3, 4)),
    "Bilinear2DAa": ("bilinear", dict(scale_factor=0.6, antialias=True), (1, 2, 5, 6)),
    "Bicubic2DAa": ("bicubic", dict(scale_factor=0.6, antialias=True), (1, 2, 5, 6)),
}
for _kind, (_mode, _options, _shape) in _RESAMPLINGS.items():
    SECOND_ORDER[f"Upsample{_kind}BackwardBackward0"] = (
        lambda x, mode=_mode, options=_options: F.interpolate(x, mode=mode, **options),
        lambda rng, shape=_shape: [_leaf(rng, shape)])

# The ops test_formulas.py builds with inputs of their own, here on inputs gradcheck can perturb.
OWN_INPUTS = {
    "GatherBackward0": (lambda a: a.gather(1, al.tensor([[0, 2, 2], [1, 0, 3]])), lambda rng: [_leaf(rng, (2, 4))]),
    "ScatterAddBackward0": (lambda a, s: a.scatter_add(0, al.tensor([[0, 1, 0]]), s),
                            lambda rng: [_leaf(rng, (2, 3)), _leaf(rng, (1, 3))]),
    "NativeBatchNormBackward0": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True) + F.batch_norm(
            x, al.tensor([0.1, -0.2, 0.3], dtype=al.float64), al.tensor([1.5, 0.5, 2.0], dtype=al.float64), w, b),
        lambda rng: [_leaf(rng, (4, 3, 2)), _leaf(rng, (3,)), _leaf(rng, (3,))]),
    # (and those whose builders finite differences cannot check, see SKIPPED)
    "NativeGroupNormBackward0": (lambda x, w, b: F.group_norm(x, 2, w, b),
                                 lambda rng: [_leaf(rng, (2, 4, 3)), _leaf(rng, (4,)), _leaf(rng, (4,))]),
    "ToCopyBackward0": (lambda a: ToCopyBackward0.apply(a, dtype=np.dtype("float64")), lambda rng: [_leaf(rng, (2, 3))]),
    "UniformBackward0": (lambda a: (a * 1).uniform_(generator=al.Generator().manual_seed(0)) + a,
                         lambda rng: [_leaf(rng, (3,))]),
    "NormalBackward0": (lambda a: (a * 1).normal_(generator=al.Generator().manual_seed(0)) * a,
                        lambda rng: [_leaf(rng, (3,))]),
    **{name: (lambda a, fill=fill: fill(a * 1, al.Generator().manual_seed(0)) * a, lambda rng: [_leaf(rng, (3,))])
       for name, fill in {
           "BernoulliBackward0": lambda a, g: al.bernoulli(a.sigmoid(), generator=g),
           "BernoulliBackward1": lambda a, g: a.bernoulli_(a.sigmoid().detach(), generator=g),
           "BernoulliBackward2": lambda a, g: a.bernoulli_(0.3, generator=g),
           "PoissonBackward0": lambda a, g: al.poisson(a.abs() + 1, generator=g),
           "RandomBackward0": lambda a, g: a.random_(-2, 5, generator=g),
           "RandomBackward1": lambda a, g: a.random_(5, generator=g),
           "RandomBackward2": lambda a, g: a.random_(generator=g),
           "ExponentialBackward0": lambda a, g: a.exponential_(generator=g),
           "GeometricBackward0": lambda a, g: a.geometric_(0.4, generator=g),
           "LogNormalBackward0": lambda a, g: a.log_normal_(generator=g),
           "CauchyBackward0": lambda a, g: a.cauchy_(generator=g)}.items()},
}


def test_every_op_has_a_forward_rule_and_a_check():
    ops = {cls.__name__: cls for cls in _all_ops() if not cls.__name__.startswith("_") and cls.forward is not None}
    assert [name for name, cls in ops.items() if cls._forward_rule is None] == []
    by_builders = {name for name in CASES if _reached_by_builders(name)
                   and any((name, i) not in SKIPPED for i in range(len(CASES[name][2])))}
    assert by_builders | set(SECOND_ORDER) | set(OWN_INPUTS) == set(ops)


@pytest.mark.parametrize("name", sorted(name for name in CASES if _reached_by_builders(name)))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_forward_derivatives_match_finite_differences(name, data):
    kind, domain, builders = CASES[name]
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    for i, build in enumerate(builders):
        if (name, i) not in SKIPPED:
            inputs = _inputs(kind, domain, al.float64, rng, data)
            assert gradcheck(build, inputs, check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_forward_derivatives_of_gradient_ops_by_forward_over_reverse(name):
    fn, make = SECOND_ORDER[name]
    inputs = make(np.random.default_rng(0))
    # (the derivative's own forward rule sees tangents on the output gradient and on the saved inputs)
    assert gradgradcheck(fn, inputs, check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False)


@pytest.mark.parametrize("name", sorted(OWN_INPUTS))
def test_forward_derivatives_of_ops_on_inputs_of_their_own(name):
    fn, make = OWN_INPUTS[name]
    assert gradcheck(fn, make(np.random.default_rng(0)), check_forward_ad=True)


# -- the rules' definitions --------------------------------------------------------------------------------
def test_an_op_without_a_forward_rule_raises_pytorchs_error_only_when_a_tangent_reaches_it():
    class _NoRuleBackward0(Op):
        def forward(xp, self):
            return self * 2

        def d_self(grad):
            return grad * 2

    x = al.tensor([1.0, 2.0])
    assert _NoRuleBackward0.apply(x).tolist() == [2.0, 4.0]  # no dual level: nothing to do
    with fwAD.dual_level():
        assert _NoRuleBackward0.apply(x).tolist() == [2.0, 4.0]  # no tangent: nothing to do either
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with _NoRule that does not support it "
                                                      "because it has not been implemented yet"):
            _NoRuleBackward0.apply(fwAD.make_dual(x, al.ones(2)))


def test_a_forward_rule_naming_an_unknown_value_is_an_error_at_class_definition():
    with pytest.raises(TypeError, match=r"_BadBackward0.f_self takes 'other', which is neither an input of forward"):
        class _BadBackward0(Op):
            def forward(xp, self):
                return self

            def d_self(grad):
                return grad

            def f_self(tangent, other):
                return tangent


def test_forward_rules_for_some_inputs_only_are_an_error_at_class_definition():
    with pytest.raises(TypeError, match=r"_HalfBackward0 has no forward derivative for its input\(s\) \['other'\]"):
        class _HalfBackward0(Op):
            saves = ("self", "other")

            def forward(xp, self, other):
                return self * other

            def d_self(grad, other):
                return grad * other

            def d_other(grad, self):
                return grad * self

            f_self = d_self


def test_a_forward_rule_reads_inputs_result_settings_and_sizes_by_name():
    seen = {}

    class _ReadsBackward0(Op):
        def forward(xp, self, *, factor, scale=3.0):
            return self * factor * scale

        def d_self(grad):
            return grad

        def f_self(tangent, self, result, factor, scale, self_sym_sizes, self_sym_numel):
            seen.update(self=self, result=result, factor=factor, scale=scale, sizes=self_sym_sizes, numel=self_sym_numel)
            return tangent * factor * scale

    x = al.tensor([[1.0, 2.0]])
    with fwAD.dual_level():
        out = _ReadsBackward0.apply(fwAD.make_dual(x, al.ones(1, 2)), factor=2.0)
        assert fwAD.unpack_dual(out).tangent.tolist() == [[6.0, 6.0]]
    assert seen["result"] is out and seen["self"].tolist() == [[1.0, 2.0]]
    assert (seen["factor"], seen["scale"], seen["sizes"], seen["numel"]) == (2.0, 3.0, (1, 2), 2)
    assert repr(LINEAR) == "LINEAR"
