"""Tensors with a size-0 dimension, against PyTorch as the oracle: values, shapes and gradients, or the same error.

Each case is ``(input shapes, program)``: the program is written once with ``m`` (``al`` or ``torch``) and
``x0, x1, ...`` (float64 leaves of those shapes, the same values in both libraries). Both libraries must give
the same outputs and the same gradients of a weighted sum of them, or both raise the same exception type with
PyTorch's message at the start of ours.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def _run(m, shapes, program: str):
    """The outputs and the leaves' gradients, or ``("raised", type, message)``."""
    try:
        leaves = [m.tensor(np.random.default_rng(i).standard_normal(s), dtype=m.float64, requires_grad=True)
                  for i, s in enumerate(shapes)]
        env = {"m": m, "F": m.nn.functional, "nn": m.nn, **{f"x{i}": x for i, x in enumerate(leaves)}}
        out = eval(program, env)  # noqa: S307  (the cases below)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        loss = sum((o * 1.5).sum() for o in outs if o.requires_grad)
        if hasattr(loss, "backward"):
            loss.backward()
        return ([(tuple(o.shape), repr(o.tolist())) for o in outs],
                [None if x.grad is None else (tuple(x.grad.shape), repr(x.grad.tolist())) for x in leaves])
    except Exception as exc:  # noqa: BLE001  (the comparison is the point)
        return ("raised", type(exc), str(exc))


def _compare(shapes, program: str) -> None:
    theirs, ours = _run(torch, shapes, program), _run(al, shapes, program)
    if theirs[0] == "raised" or ours[0] == "raised":
        assert ours[0] == theirs[0] == "raised", (program, theirs, ours)
        assert issubclass(ours[1], theirs[1]) and ours[2].startswith(theirs[2]), (program, theirs, ours)
    else:
        assert ours == theirs, program


IN_PLACE = [
    ([(0, 3)], "x0.clone().add_(1)"), ([(0, 3)], "x0.clone().mul_(2)"), ([(3, 0)], "x0.clone().exp_()"),
    ([(0,)], "x0.clone().zero_()"), ([(2, 0)], "x0.clone().fill_(3)"), ([(0, 3)], "x0.clone().clamp_(-1, 1)"),
    ([(0, 3)], "x0.clone().masked_fill_(m.zeros(0, 3, dtype=m.bool), 1.0)"),
    ([(0, 3)], "x0.clone().masked_fill_(m.zeros(0, 3, dtype=m.bool), x0.sum())"),
    ([(2, 3)], "x0.clone()[:, 3:].add_(1)"), ([(0, 3)], "x0.clone().uniform_()"), ([(0, 3)], "x0.clone().normal_()"),
    ([(0, 3)], "x0.clone().copy_(m.zeros(0, 3))"),
    ([(2, 3)], "x0.clone().index_put_((m.zeros(0, dtype=m.int64),), m.zeros(0, 3, dtype=m.float64), accumulate=True)"),
    ([(2, 3)], "x0.clone().index_put_((m.zeros(0, dtype=m.int64),), m.zeros(0, dtype=m.float64), accumulate=True)"),
]

MATMUL = [
    ([(0, 2, 2), (1, 2, 1)], "x0 @ x1"), ([(0, 2, 2), (0, 2, 1)], "x0 @ x1"), ([(2, 0), (0, 3)], "x0 @ x1"),
    ([(2, 0), (0, 3)], "m.mm(x0, x1)"), ([(0, 3), (3, 2)], "x0 @ x1"), ([(0,), (0,)], "m.dot(x0, x1)"),
    ([(2, 0), (0,)], "m.mv(x0, x1)"), ([(0, 2, 3), (0, 3, 4)], "m.bmm(x0, x1)"), ([(2, 3, 0), (0, 5)], "x0 @ x1"),
    ([(2, 0, 3), (3, 4)], "x0 @ x1"), ([(0, 3), (3, 0)], "x0 @ x1"), ([(3, 0), (0,)], "x0 @ x1"),
    ([(0,), (0, 4)], "x0 @ x1"), ([(2, 1, 0, 3), (4, 3, 2)], "x0 @ x1"), ([(0,)], "m.outer(x0, x0)"),
    ([(0, 3)], "m.addmm(m.zeros(3, dtype=m.float64), x0, m.zeros(3, 3, dtype=m.float64))"),
]

SOFTMAX_AND_LOGSUMEXP = [
    ([(0, 3)], "x0.softmax(-1)"), ([(0, 3)], "x0.softmax(0)"), ([(3, 0)], "x0.softmax(-1)"),
    ([(3, 0)], "x0.log_softmax(-1)"), ([(0, 3)], "F.log_softmax(x0, 1)"), ([(0, 3)], "x0.logsumexp(0)"),
    ([(0, 3)], "x0.logsumexp(1)"), ([(3, 0)], "x0.logsumexp(1)"), ([(0,)], "x0.logsumexp(0)"),
]

REDUCTIONS = [([(0, 3)], f"x0.{op}({args})") for op in ("sum", "mean", "prod", "amax", "amin", "max", "min", "var",
                                                         "std", "argmax", "argmin", "norm", "all", "any")
              for args in ("", "0", "1")] + [
    ([(3, 0)], "x0.prod(1)"), ([(3, 0)], "x0.prod()"), ([(0,)], "x0.max()"), ([(0,)], "x0.sum()"),
    ([(0, 3)], "x0.max(1)[0].sum() + x0.min(1)[1].sum()"), ([(0, 3)], "x0.norm(p=1)"), ([(0, 3)], "x0.norm(p=0)"),
    ([(0, 3)], "x0.norm(p=float('inf'))"), ([(0, 3)], "x0.norm(p=float('-inf'))"), ([(0, 3)], "x0.norm(p=-1)"),
    ([(0, 3)], "x0.norm(p=0.5)"), ([(0, 3)], "x0.norm(p=float('inf'), dim=1)"),
    ([(0, 3)], "x0.norm(p=float('inf'), dim=0)"), ([(0, 3)], "x0.norm(p=-1, dim=0)"), ([(0, 3)], "x0.sum_to_size(1, 3)"),
]

JOIN_AND_INDEX = [
    ([(0, 3), (2, 3)], "m.cat([x0, x1])"), ([(0, 3), (2, 3)], "m.cat([x0, x1], 1)"), ([(0,), (2, 3)], "m.cat([x0, x1])"),
    ([(2, 3), (0,)], "m.cat([x1, x0, x1], 1)"), ([(0,), (0,)], "m.cat([x0, x1])"), ([(0, 3), (0, 3)], "m.stack([x0, x1])"),
    ([(0, 3), (0, 3)], "m.stack([x0, x1], 1)"), ([(2, 3)], "m.cat([x0[:0], x0])"), ([(0,)], "m.stack([x0, x0], 1)"),
    ([(0,), (2,)], "m.cat([x0.to(m.float32), x1])"),
    ([(2, 3)], "x0[m.tensor([], dtype=m.int64)]"), ([(2, 3)], "x0[:, m.tensor([], dtype=m.int64)]"),
    ([(2, 3)], "x0[m.zeros(2, 3, dtype=m.bool)]"), ([(2, 3)], "x0[[]]"),
    ([(2, 3)], "x0[m.tensor([], dtype=m.int64), m.tensor([], dtype=m.int64)]"), ([(0, 3)], "x0[x0 > 0]"),
    ([(0, 3)], "x0[m.tensor([], dtype=m.int64)]"), ([(0, 3)], "x0[0:0]"), ([(0, 3)], "x0[:, 1]"), ([(0, 3)], "x0[..., None]"),
    ([(2, 3)], "x0.gather(1, m.zeros(2, 0, dtype=m.int64))"), ([(2, 3)], "x0.gather(0, m.zeros(0, 3, dtype=m.int64))"),
    ([(2, 3), (2, 0)], "x0.scatter_add(1, m.zeros(2, 0, dtype=m.int64), x1)"),
    ([(2, 3)], "x0.index_select(0, m.zeros(0, dtype=m.int64))"),
    ([(0, 3)], "x0.index_put((m.zeros(0, dtype=m.int64),), m.zeros(0, 3, dtype=m.float64))"),
    ([(2, 3)], "x0.masked_fill(m.zeros(2, 3, dtype=m.bool), 0.0)"), ([(0, 3), (0, 3)], "m.where(x0 > x1, x0, x1)"),
]

SHAPE = [
    ([(0, 1)], "x0.expand(0, 3)"), ([(1, 3)], "x0.expand(0, 3)"), ([(0, 3)], "x0.expand(2, 0, 3)"), ([(1,)], "x0.expand(0)"),
    ([(0, 3)], "x0.expand(4, 0, 3).sum(0)"), ([(0, 3)], "x0.t()"), ([(0, 3)], "x0.reshape(3, 0)"),
    ([(0, 3)], "x0.reshape(-1)"), ([(0, 3)], "x0.view(0, -1)"), ([(0, 3)], "x0.reshape(-1, 0)"), ([(0, 3)], "x0.flatten()"),
    ([(0, 3)], "x0.unsqueeze(0)"), ([(0, 3)], "x0.squeeze()"), ([(0, 3)], "x0.permute(1, 0)"), ([(0, 3)], "x0.flip(0)"),
    ([(0, 3)], "x0.repeat(2, 2)"), ([(2, 3)], "x0.repeat(0, 1)"), ([(0, 3)], "x0.split(1)"), ([(0, 3)], "x0.chunk(2)"),
    ([(0, 3)], "x0.chunk(2, 1)"), ([(0, 3)], "x0.unbind(0)"), ([(0, 3)], "x0.unbind(1)"), ([(0, 3)], "x0.narrow(0, 0, 0)"),
    ([(0, 3)], "x0.diagonal()"), ([(0, 3)], "x0.movedim(0, 1)"), ([(0, 3)], "x0.unflatten(1, (3, 1))"),
    ([(0, 3)], "x0.split([0, 3], 1)"), ([(0, 3)], "x0.transpose(0, 1).contiguous()"),
]

POINTWISE = [
    ([(0, 3)], "x0.relu() * x0.sigmoid() + x0.tanh() - x0.exp()"), ([(0, 3)], "x0.pow(2) / (x0.abs() + 1)"),
    ([(0, 3), (3,)], "x0 + x1"), ([(0, 3), (1, 3)], "x0 * x1"), ([(0, 3), (0, 1)], "m.maximum(x0, x1)"),
    ([(0, 3)], "x0.clamp(-1, 1)"), ([(0, 3)], "m.where(x0 > 0, x0, 0.0)"), ([(0, 3)], "F.gelu(x0)"),
    ([(0, 3)], "F.dropout(x0, 0.5)"),
    ([(0, 3)], "m.zeros_like(x0) + m.ones(0, 3) + m.full((0, 3), 2.0) + m.rand(0, 3) + m.randn(0, 3)"),
]

NN = [
    ([(0, 4), (3, 4), (3,)], "F.linear(x0, x1, x2)"), ([(0, 4), (3, 4)], "F.linear(x0, x1)"),
    ([(2, 0), (3, 0), (3,)], "F.linear(x0, x1, x2)"), ([(0, 4), (3, 4), (3,)], "F.linear(x0, x1, x2).relu().sum(1)"),
    ([(0, 1, 5, 5), (2, 1, 3, 3), (2,)], "F.conv2d(x0, x1, x2)"),
    ([(0, 1, 5, 5), (2, 1, 3, 3), (2,)], "F.conv2d(x0, x1, x2, padding=1)"),
    ([(0, 1, 5, 5), (0, 1, 3, 3)], "F.conv2d(x0, x1)"), ([(2, 1, 5, 5), (0, 1, 3, 3)], "F.conv2d(x0, x1)"),
    ([(0, 2, 4, 4)], "F.max_pool2d(x0, 2)"), ([(0, 2, 4, 4)], "F.avg_pool2d(x0, 2)"),
    ([(0, 2, 4, 4)], "F.adaptive_avg_pool2d(x0, 1)"), ([(0, 2, 4, 4)], "F.adaptive_avg_pool2d(x0, 2)"),
    ([(0, 2, 4, 4)], "F.pad(x0, (1, 1))"), ([(0, 3, 4)], "F.pad(x0, (1, 1), mode='reflect')"),
    ([(0, 3, 4)], "F.pad(x0, (1, 1), mode='replicate')"), ([(0, 3, 4, 4)], "F.pad(x0, (1, 1, 1, 1), mode='circular')"),
    ([(0, 3), (3,), (3,)],
     "F.batch_norm(x0, m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64), x1, x2, training=False)"),
    ([(0, 3), (3,), (3,)],
     "F.batch_norm(x0, m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64), x1, x2, training=True)"),
    ([(5, 3)], "F.embedding(m.zeros(0, dtype=m.int64), x0)"), ([(5, 3)], "F.embedding(m.zeros(2, 0, dtype=m.int64), x0)"),
    ([(0, 3)], "nn.Linear(3, 2).double()(x0)"), ([(0, 3)], "nn.BatchNorm1d(3).double()(x0)"),
    ([(0, 3)], "nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).double()(x0)"),
    ([(0, 1, 4, 4)], "nn.Conv2d(1, 2, 3).double()(x0)"),
    ([(0, 2, 3, 3), (2, 3, 3, 3), (3,)], "F.conv_transpose2d(x0, x1, x2, stride=2)"),
    ([(0, 2, 3, 3, 3), (1, 2, 2, 2, 2)], "F.conv3d(x0, x1)"), ([(0, 2, 4, 4)], "F.unfold(x0, 2)"),
    ([(0, 8, 9)], "F.fold(x0, 4, 2)"), ([(0, 2, 6)], "F.max_pool1d(x0, 2)"), ([(0, 2, 6)], "F.avg_pool1d(x0, 2)"),
    ([(0, 2, 4, 4)], "F.adaptive_max_pool2d(x0, 3)"), ([(0, 2, 4, 4)], "F.lp_pool2d(x0, 2, 2)"),
    ([(0, 2, 4, 4)], "F.max_unpool2d(*F.max_pool2d(x0, 2, return_indices=True), 2)"),
    ([(0, 4, 3)], "F.channel_shuffle(x0, 2)"),  # (pixel_shuffle: PyTorch 2.13 fails its own backward at batch 0)
]

LOSSES = [([(0, 3), (0, 3)], f"F.{loss}(x0, x1, reduction='{reduction}')") for loss in ("mse_loss", "l1_loss")
          for reduction in ("mean", "sum", "none")] + [
    ([(0, 3)], f"F.{loss}(x0, m.zeros(0, dtype=m.int64), reduction='{reduction}')")
    for loss in ("cross_entropy", "nll_loss") for reduction in ("mean", "sum", "none")] + [
    ([(0, 3)], "F.cross_entropy(x0, m.zeros(0, 3, dtype=m.float64))"),
    ([(0, 3)], "F.cross_entropy(x0, m.zeros(0, dtype=m.int64), weight=m.ones(3, dtype=m.float64))"),
    ([(0, 3)], "F.cross_entropy(x0, m.zeros(0, dtype=m.int64), label_smoothing=0.1)"),
    ([(0, 3, 2)], "F.cross_entropy(x0, m.zeros(0, 2, dtype=m.int64))"),
    ([(0,)], "F.binary_cross_entropy(x0.sigmoid(), m.zeros(0, dtype=m.float64))"),
    ([(0,)], "F.binary_cross_entropy_with_logits(x0, m.zeros(0, dtype=m.float64))"),
    ([(0, 3)], "nn.MSELoss()(x0, x0.detach())"), ([(0, 3)], "nn.CrossEntropyLoss()(x0, m.zeros(0, dtype=m.int64))"),
]


def _cases(table):
    return pytest.mark.parametrize("shapes, program", table, ids=[program for _, program in table])


@_cases(IN_PLACE)
def test_in_place_ops_on_empty_tensors(shapes, program):
    _compare(shapes, program)


@_cases(MATMUL)
def test_matrix_products_with_a_size_0_dim(shapes, program):
    _compare(shapes, program)


@_cases(SOFTMAX_AND_LOGSUMEXP)
def test_softmax_and_logsumexp_of_empty_inputs(shapes, program):
    _compare(shapes, program)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")
@_cases(REDUCTIONS)
def test_reductions_of_empty_inputs(shapes, program):
    _compare(shapes, program)


@_cases(JOIN_AND_INDEX)
def test_joining_and_indexing_with_empty_pieces(shapes, program):
    _compare(shapes, program)


@_cases(SHAPE)
def test_shape_ops_on_empty_tensors(shapes, program):
    _compare(shapes, program)


@_cases(POINTWISE)
def test_pointwise_ops_on_empty_tensors(shapes, program):
    _compare(shapes, program)


@_cases(NN)
def test_layers_with_batch_0(shapes, program):
    _compare(shapes, program)


@_cases(LOSSES)
def test_losses_with_batch_0(shapes, program):
    _compare(shapes, program)


def test_batch_norm_with_batch_0_leaves_the_running_statistics_alone():
    for m in (torch, al):
        bn = m.nn.BatchNorm1d(3)
        assert bn(m.zeros(0, 3)).shape == (0, 3)
        assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3


@pytest.mark.parametrize("program", [
    lambda a, b: al.cat([a, al.zeros(0, dtype=al.float64), b]),
    lambda a, b: al.cat([a[:0], b.reshape(2, 3)[:, :2].reshape(-1), a]),
    lambda a, b: (a.reshape(2, 2) @ al.zeros(2, 0, dtype=al.float64)).sum() + a.sum() * b.sum(),
    lambda a, b: a.logsumexp(0) + b[:0].logsumexp(0).exp(),
    lambda a, b: al.stack([a[:0], b[:0]]).sum(0).sum() + (a * a).sum(),
])
def test_gradcheck_with_empty_pieces(program):
    a = al.tensor([0.3, -1.2, 0.5, 2.0], dtype=al.float64, requires_grad=True)
    b = al.tensor([1.1, -0.4, 0.7, 0.2, -0.9, 1.5], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(program, (a, b))
    assert al.autograd.gradgradcheck(program, (a, b))
