"""``nn.utils.rnn`` (``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``,
``pack_sequence``, ``unpack_sequence``, ``unpad_sequence``) and the recurrent layers on packed batches, against
PyTorch in float64: the packed data and batch sizes, the unpacked output and lengths, the final states (each
sequence's state at its own last step) and the gradients of the input, the initial state and every parameter."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

CASES = [("RNN", dict(), [4, 2, 1], True), ("LSTM", dict(bidirectional=True), [2, 4, 3], False),
         ("GRU", dict(num_layers=2, batch_first=True), [3, 3, 1, 2], False),
         ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2, batch_first=True), [1, 4], False),
         ("GRU", dict(bidirectional=True, bias=False), [5], True), ("RNN", dict(nonlinearity="relu"), [3, 1], True)]


def _layers(name, options):
    theirs = getattr(torch.nn, name)(2, 3, dtype=torch.float64, **options)
    ours = getattr(al.nn, name)(2, 3, dtype=al.float64, **options)
    with al.no_grad():
        for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            p.copy_(al.tensor(q.detach().numpy()))
    return ours, theirs


def _run(lib, layer, options, lengths, sorted_, x, h, as_tensor):
    utils = lib.nn.utils.rnn
    inputs = lib.tensor(x, requires_grad=True)
    packed = utils.pack_padded_sequence(inputs, lib.tensor(lengths) if as_tensor else lengths,
                                        batch_first=options.get("batch_first", False), enforce_sorted=sorted_)
    state = None if h is None else tuple(lib.tensor(a, requires_grad=True) for a in h)
    out, final = layer(packed, None if state is None else state if len(state) == 2 else state[0])
    padded, got_lengths = utils.pad_packed_sequence(out, batch_first=options.get("batch_first", False),
                                                    padding_value=-2.0, total_length=x.shape[1 if options.get(
                                                        "batch_first") else 0] + 1)
    finals = list(final) if isinstance(final, tuple) else [final]
    loss = (padded * lib.tensor(np.sin(np.arange(padded.numel())).reshape(tuple(padded.shape)))).sum()
    (loss + sum((f * f).sum() for f in finals)).backward()
    arrays = [packed.batch_sizes, out.batch_sizes, out.data, padded, got_lengths, *finals, inputs.grad]
    arrays += [] if state is None else [s.grad for s in state]
    return [a.detach().numpy() for a in arrays] + [p.grad.numpy() for p in layer.parameters()]


@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "given-state"])
@pytest.mark.parametrize("name,options,lengths,sorted_", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_layers_on_packed_batches_match_torch(name, options, lengths, sorted_, with_state):
    rng = np.random.default_rng(len(lengths) + len(options))
    lengths = sorted(lengths, reverse=True) if sorted_ else lengths
    steps = max(lengths) + 1  # one padding step more than needed
    x = rng.standard_normal((len(lengths), steps, 2) if options.get("batch_first") else (steps, len(lengths), 2))
    layers = (2 if options.get("bidirectional") else 1) * options.get("num_layers", 1)
    h = None
    if with_state:
        h = [rng.standard_normal((layers, len(lengths), options.get("proj_size") or 3))]
        h += [rng.standard_normal((layers, len(lengths), 3))] if name == "LSTM" else []
    ours, theirs = _layers(name, options)
    got = _run(al, ours, options, lengths, sorted_, x, h, as_tensor=with_state)
    expected = _run(torch, theirs, options, lengths, sorted_, x, h, as_tensor=with_state)
    for k, (a, b) in enumerate(zip(got, expected)):
        assert a.shape == b.shape, k
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12, err_msg=str(k))


@pytest.mark.parametrize("options", [dict(), dict(batch_first=True, padding_value=-1.0), dict(padding_side="left")])
def test_pad_pack_and_unpack_sequences_match_torch(options):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((n, 2)) for n in (2, 4, 1)]
    ours = al.nn.utils.rnn.pad_sequence([al.tensor(a) for a in arrays], **options)
    np.testing.assert_array_equal(ours.numpy(), torch.nn.utils.rnn.pad_sequence([torch.tensor(a) for a in arrays],
                                                                                **options).numpy())
    for sorted_ in (False, True):
        seqs = sorted(arrays, key=len, reverse=True) if sorted_ else arrays
        packed = al.nn.utils.rnn.pack_sequence([al.tensor(a) for a in seqs], enforce_sorted=sorted_)
        expected = torch.nn.utils.rnn.pack_sequence([torch.tensor(a) for a in seqs], enforce_sorted=sorted_)
        for got, want in zip(packed, expected):
            assert (got is None) == (want is None)
            if want is not None:
                np.testing.assert_array_equal(got.numpy(), want.numpy())
        for got, want in zip(al.nn.utils.rnn.unpack_sequence(packed), seqs):
            np.testing.assert_array_equal(got.numpy(), want)
    padded = al.tensor(np.arange(12.0).reshape(3, 4))
    parts = al.nn.utils.rnn.unpad_sequence(padded, al.tensor([4, 1, 2]), batch_first=True)
    assert [p.tolist() for p in parts] == [[0.0, 1.0, 2.0, 3.0], [4.0], [8.0, 9.0]]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2, 1), [3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2, 1), [1, 3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2, 1), [3, 0]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(0, 1, 1), [1]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2, 1), lib.tensor([[3, 2]])),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(lib.nn.utils.rnn.pack_sequence([lib.ones(3)]), total_length=2),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="top"),
    lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    lambda lib: lib.nn.GRU(1, 2)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, 1), lib.ones(2, 1)]), lib.zeros(1, 3, 2)),
])
def test_errors_match_torch(call):
    with pytest.raises((RuntimeError, ValueError)) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(al)
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value)
