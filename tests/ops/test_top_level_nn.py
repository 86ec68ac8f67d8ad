"""PyTorch's top-level names for neural-network functions (``torch.softmax``, ``torch.conv2d``...) and the
tensor's ``is_cpu`` / ``get_device``, against torch: values, grad_fn and gradients."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch

import autograd_lab as al

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 4, 6))
IMAGE, KERNEL = rng.standard_normal((1, 4, 5, 5)), rng.standard_normal((3, 4, 2, 2))

CASES = {
    "softmax": (lambda m, x: m.softmax(x, 1), [X]),
    "softmax_dtype": (lambda m, x: m.softmax(x.float(), -1, dtype=m.float64), [X]),
    "log_softmax": (lambda m, x: m.log_softmax(x, 2), [X]),
    "dropout_off": (lambda m, x: m.dropout(x, 0.5, False), [X]),
    "conv1d": (lambda m, x, w: m.conv1d(x, w, stride=2), [X, rng.standard_normal((3, 4, 3))]),
    "conv2d": (lambda m, x, w: m.conv2d(x, w, None, 1, 1), [IMAGE, KERNEL]),
    "conv3d": (lambda m, x, w: m.conv3d(x, w), [IMAGE[..., None], KERNEL[..., None]]),
    "conv_transpose1d": (lambda m, x, w: m.conv_transpose1d(x, w), [X, rng.standard_normal((4, 2, 3))]),
    "conv_transpose2d": (lambda m, x, w: m.conv_transpose2d(x, w, stride=2), [IMAGE, KERNEL.transpose(1, 0, 2, 3)]),
    "conv_transpose3d": (lambda m, x, w: m.conv_transpose3d(x, w), [IMAGE[..., None], KERNEL[..., None].swapaxes(0, 1)]),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 2), [X]),
    "adaptive_avg_pool1d": (lambda m, x: m.adaptive_avg_pool1d(x, 4), [X]),
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 3, 1), [X]),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2), [IMAGE]),
    "cosine_similarity": (lambda m, a, b: m.cosine_similarity(a, b), [X, X[::-1].copy()]),
    "pairwise_distance": (lambda m, a, b: m.pairwise_distance(a, b, 1.5), [X[0], X[1]]),
    "pixel_shuffle": (lambda m, x: m.pixel_shuffle(x, 2), [IMAGE]),
    "pixel_unshuffle": (lambda m, x: m.pixel_unshuffle(x, 1), [IMAGE]),
    "channel_shuffle": (lambda m, x: m.channel_shuffle(x, 2), [IMAGE]),
    "hardshrink": (lambda m, x: m.hardshrink(x, 0.7), [X]),
    "selu": (lambda m, x: m.selu(x), [X]),
    "celu": (lambda m, x: m.celu(x, 0.5), [X]),
    "threshold": (lambda m, x: m.threshold(x, 0.1, -2.0), [X]),
    "prelu": (lambda m, x, w: m.prelu(x, w), [IMAGE, np.array([0.1, 0.2, 0.3, 0.4])]),
    "layer_norm": (lambda m, x, w: m.layer_norm(x, (6,), w), [X, rng.standard_normal(6)]),
    "group_norm": (lambda m, x: m.group_norm(x, 2), [IMAGE]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_top_level_name_matches_torch(name):
    fn, values = CASES[name]
    same_as_torch(torch, fn, *values)


def test_softmax_needs_its_dim_as_torchs_does():
    for m in (al, torch):
        with pytest.raises(TypeError):
            m.softmax(m.ones(2, 3))


def test_dropout_in_training_zeroes_and_scales():
    out = al.dropout(al.ones(1000), 0.25, True)
    kept = out[out != 0]
    assert abs(kept.numel() / 1000 - 0.75) < 0.06 and al.allclose(kept, al.full_like(kept, 1 / 0.75))


def test_where_a_tensor_lives_as_torch():
    ours, theirs = al.ones(2), torch.ones(2)
    assert (ours.is_cpu, ours.get_device()) == (theirs.is_cpu, theirs.get_device()) == (True, -1)
