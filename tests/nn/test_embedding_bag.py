"""``EmbeddingBag`` / ``F.embedding_bag`` against PyTorch in float64: modes sum, mean and max, bags given by ``offsets``
(with or without ``include_last_offset``) or by the rows of a 2-D input, empty bags, ``padding_idx``,
``per_sample_weights``, ``max_norm``; outputs, the table after renormalisation, the gradients of the table and of
the per-sample weights; reprs, ``from_pretrained`` and errors. ``scale_grad_by_freq`` is compared with its
definition (PyTorch's CPU kernel scales some rows by the count of another index)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

TABLE = np.random.default_rng(0).standard_normal((5, 3)) * 1.5
TIES = np.array([[1.0, 2, 0], [1, 0, 2], [3, 2, 2], [0, 0, 0], [1, 2, 2]])  # max: ties go to the first row
CASES = [
    ("sum", [0, 2, 2, 4, 1], [0, 2, 2], {}),
    ("mean", [0, 2, 2, 4, 1], [0, 3], dict(padding_idx=2)),
    ("max", [0, 2, 2, 4, 1, 4], [0, 1, 1, 4], dict(padding_idx=-1)),
    ("max", [0, 1, 4, 2], [0, 2], dict(table=TIES)),
    ("sum", [3, 3, 0, 1], [0, 1, 4], dict(include_last_offset=True, per_sample_weights=True)),
    ("mean", [[1, 2], [4, 4], [0, 3]], None, dict(max_norm=1.0)),
    ("max", [[1, 2, 3], [4, 4, 0]], None, dict(max_norm=0.5, norm_type=1.0, padding_idx=4)),
    ("sum", [[1, 2], [4, 0]], None, dict(per_sample_weights=True, padding_idx=0)),
    ("mean", [], [0, 0], {}),
]


def _run(lib, mode, indices, offsets, options, pretrained):
    options = dict(options)
    table, weights = options.pop("table", TABLE), options.pop("per_sample_weights", False)
    if pretrained:
        bag = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(table), freeze=False, mode=mode, **options)
    else:
        bag = lib.nn.EmbeddingBag(*table.shape, mode=mode, dtype=lib.float64, **options)
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(table))
    index = lib.tensor(indices, dtype=lib.int64)
    per_sample = lib.tensor(np.linspace(-1, 2, index.numel()).reshape(tuple(index.shape)), requires_grad=True) \
        if weights else None
    out = bag(index, None if offsets is None else lib.tensor(offsets), per_sample)
    (out * lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))).sum().backward()
    return [repr(bag), out.detach().numpy(), bag.weight.detach().numpy(), bag.weight.grad.numpy(),
            None if per_sample is None else per_sample.grad.numpy()]


@pytest.mark.parametrize("pretrained", [False, True], ids=["constructed", "from_pretrained"])
@pytest.mark.parametrize("mode,indices,offsets,options", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_embedding_bag_matches_torch(mode, indices, offsets, options, pretrained):
    got, expected = (_run(lib, mode, indices, offsets, options, pretrained) for lib in (al, torch))
    assert got[0] == expected[0]
    for ours, theirs, what in zip(got[1:], expected[1:], ["output", "table", "table's gradient", "weights' gradient"]):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert ours.shape == theirs.shape, what
            np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15, err_msg=what)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_divides_by_each_index_count(mode):
    indices = [[1, 1], [2, 3], [2, 0]]
    weight = al.tensor(TABLE, requires_grad=True)
    al.nn.functional.embedding_bag(al.tensor(indices), weight, mode=mode, scale_grad_by_freq=True).sum().backward()
    reference = torch.tensor(TABLE, requires_grad=True)  # the definition: embedding's scaling, then the bags
    rows = torch.nn.functional.embedding(torch.tensor(indices), reference, scale_grad_by_freq=True)
    (rows.sum(1) if mode == "sum" else rows.mean(1)).sum().backward()
    np.testing.assert_allclose(weight.grad.numpy(), reference.grad.numpy(), rtol=1e-13)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2), lib.tensor([1])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2), lib.tensor([0, 3])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), lib.ones(3, 2), [0]),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[[1]]]), lib.ones(3, 2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3), lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([0]), mode="min"),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([0]), mode="max",
                                                scale_grad_by_freq=True),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([0]),
                                                per_sample_weights=lib.ones(1)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([0]), mode="sum",
                                                per_sample_weights=lib.ones(2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([0]), padding_idx=3),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.ones(3, 2), lib.tensor([], dtype=lib.int64),
                                                include_last_offset=True),
])
def test_errors_match_torch(call):
    with pytest.raises((ValueError, RuntimeError, NotImplementedError)) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(al)
    # (PyTorch's offsets[0] message ends with a printed empty tensor, "\n[ torch.LongTensor{} ]": not copied)
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value).split("\n")[0].replace("torch.", "al.")
