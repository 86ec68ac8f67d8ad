"""``Embedding`` / ``F.embedding`` against PyTorch in float64 with every option, given by keyword and by position in
PyTorch's order (``padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse``): outputs, the table after
``max_norm``'s in-place renormalisation (and its version counter), the table's gradient, reprs; ``from_pretrained``."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

OPTIONS = [dict(), dict(padding_idx=-1, scale_grad_by_freq=True), dict(max_norm=1.0), dict(max_norm=0.5, norm_type=1.0),
           dict(max_norm=2.0, norm_type=float("inf"), padding_idx=0), dict(max_norm=1.5, norm_type=3.0,
                                                                            scale_grad_by_freq=True)]


def _run(lib, options, table, indices, seed, pretrained):
    if pretrained:
        layer = lib.nn.Embedding.from_pretrained(lib.tensor(table), freeze=False, **options)
    else:
        layer = lib.nn.Embedding(*table.shape, dtype=lib.float64, **options)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(table))
    version = layer.weight._version
    out = layer(lib.tensor(indices))
    (out * lib.tensor(seed)).sum().backward()
    return repr(layer), out.detach().numpy(), layer.weight.detach().numpy(), layer.weight.grad.numpy(), \
        layer.weight._version - version


@pytest.mark.parametrize("pretrained", [False, True], ids=["constructed", "from_pretrained"])
@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_embedding_matches_torch(options, pretrained):
    rng = np.random.default_rng(len(str(options)))
    table, indices = rng.standard_normal((5, 3)) * 1.5, rng.integers(0, 5, (2, 4))
    seed = rng.standard_normal((2, 4, 3))
    got, expected = _run(al, options, table, indices, seed, pretrained), _run(torch, options, table, indices, seed,
                                                                             pretrained)
    assert got[0] == expected[0] and got[4] == expected[4]  # repr; the in-place renormalisation bumps the version
    for ours, theirs in zip(got[1:4], expected[1:4]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)


def test_positional_arguments_in_torch_order():
    table = np.random.default_rng(1).standard_normal((4, 3)) * 2
    indices = [[0, 2, 2], [3, 0, 1]]
    results = []
    for lib in (torch, al):
        weight = lib.tensor(table, requires_grad=True)
        with lib.no_grad():
            renormed = weight.clone()
        out = lib.nn.functional.embedding(lib.tensor(indices), renormed, None, 1.0, 2.0, True)  # max_norm 1, by freq
        layer = lib.nn.Embedding(4, 3, 1, 0.5, 1.0, True)  # the 4th positional argument is max_norm, not by-freq
        results.append((out.tolist(), renormed.tolist(), repr(layer), layer.max_norm, layer.scale_grad_by_freq))
    assert results[0] == results[1]


def test_sparse_gradients_are_refused():
    with pytest.raises(NotImplementedError, match="sparse gradients are not supported"):
        al.nn.Embedding(3, 2, sparse=True)(al.tensor([1]))
    assert repr(al.nn.Embedding(3, 2, sparse=True)) == repr(torch.nn.Embedding(3, 2, sparse=True))


@pytest.mark.parametrize("norm_type", [1.0, 2.0, float("inf")])
def test_float32_renormalisation_is_torch_bit_for_bit(norm_type):
    table = (np.random.default_rng(2).standard_normal((6, 4)) * 3).astype(np.float32)
    indices = [0, 3, 3, 5, 1]
    ours, theirs = al.tensor(table), torch.tensor(table)  # the scale is computed in double, then applied in float32
    got = al.nn.functional.embedding(al.tensor(indices), ours, max_norm=0.7, norm_type=norm_type)
    expected = torch.nn.functional.embedding(torch.tensor(indices), theirs, max_norm=0.7, norm_type=norm_type)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3)),  # (a 1-D or 3-D table was used as is)
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3, 2, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0], dtype=lib.uint8), lib.ones(3, 2)),  # (were accepted)
    lambda lib: lib.nn.functional.embedding(lib.tensor([0], dtype=lib.int16), lib.ones(3, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0.0]), lib.ones(3, 2)),
])
def test_errors_match_torch(call):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(al)
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value).replace("torch.", "al.")
