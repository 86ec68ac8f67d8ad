"""The transformer modules against PyTorch's in float64: ``TransformerEncoderLayer``, ``TransformerDecoderLayer``,
``TransformerEncoder``, ``TransformerDecoder`` and ``Transformer`` loaded with PyTorch's weights give the same outputs
and gradients (post- and pre-norm, relu/gelu as strings, functions or modules, ``batch_first``, causal and padding
masks) in train mode with dropout 0, and the same outputs in eval mode (where PyTorch takes its fused fast path);
state_dict keys, reprs, ``generate_square_subsequent_mask``, PyTorch's warning and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # (tested once, below)

_RNG = np.random.default_rng(0)
_SRC, _TGT = _RNG.standard_normal((5, 2, 8)), _RNG.standard_normal((4, 2, 8))
_SRC_PADDING = np.array([[False] * 4 + [True], [False] * 5])


def _build(lib, kind: str, settings: dict):
    nn = lib.nn
    settings = {"dropout": 0.0, "dim_feedforward": 16, **settings}
    if kind == "Transformer":
        return nn.Transformer(8, 2, 2, 2, **settings)
    if kind.endswith("Layer"):
        return getattr(nn, kind)(8, 2, **settings)
    layer = (nn.TransformerEncoderLayer if kind == "TransformerEncoder" else nn.TransformerDecoderLayer)(8, 2, **settings)
    return getattr(nn, kind)(layer, 2, norm=nn.LayerNorm(8))


def _twins(kind: str, settings: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the nested-tensor warning: tested below)
        theirs = _build(torch, kind, settings).double()
        ours = _build(al, kind, settings).double()
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _call(lib, module, kind: str, masks: bool, batch_first: bool):
    """The module's output on the shared inputs (the source requires grad), with a causal target mask and a
    source padding mask where ``masks``."""
    def batch(a):
        return a.transpose(1, 0, 2).copy() if batch_first else a
    src = lib.tensor(batch(_SRC), requires_grad=True)
    tgt = lib.tensor(batch(_TGT), requires_grad=True)
    padding = lib.tensor(_SRC_PADDING) if masks else None
    causal = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64) if masks else None
    if kind == "Transformer":
        out = module(src, tgt, tgt_mask=causal, src_key_padding_mask=padding, memory_key_padding_mask=padding)
    elif kind.startswith("TransformerEncoder"):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(5, dtype=lib.float64) if masks else None
        out = module(src, mask, padding)
    else:
        out = module(tgt, src, tgt_mask=causal, memory_key_padding_mask=padding)
    return out, (src, tgt)


KINDS = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer"]
SETTINGS = {
    "post-norm relu": ({}, True),
    "pre-norm gelu": ({"norm_first": True, "activation": "gelu"}, True),
    "batch_first, no bias": ({"batch_first": True, "bias": False}, False),
    "gelu function": ({"activation": "gelu function"}, True),
    "silu module": ({"activation": "SiLU module"}, False),
}


def _settings(lib, name: str) -> tuple[dict, bool]:
    settings, masks = SETTINGS[name]
    activation = settings.get("activation")
    if activation == "gelu function":
        settings = {**settings, "activation": lib.nn.functional.gelu}
    elif activation == "SiLU module":
        settings = {**settings, "activation": lib.nn.SiLU()}
    return settings, masks


def _repair_decoder_copies(module) -> None:
    """Undo PyTorch 2.13's slip: its decoder layer's ``__setstate__`` (run by the deep copies of
    ``TransformerDecoder``) puts ``F.relu`` in the instance dict when the activation is a module, which then hides the
    module. Ours keeps the module; with PyTorch's fixed, both compute the same function."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.TransformerDecoderLayer) and "activation" in layer._modules:
            layer.__dict__.pop("activation", None)


def _grads(module, inputs):
    return [p.grad.numpy() for p in module.parameters()] + [x.grad.numpy() for x in inputs if x.grad is not None]


@pytest.mark.filterwarnings("ignore:Support for mismatched")  # (a float causal mask with a boolean padding mask)
@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("kind", KINDS)
def test_train_mode_matches_torch(kind, name):
    settings, masks = _settings(al, name)
    ours, theirs = _twins(kind, settings)
    if not isinstance(settings.get("activation", ""), str):  # (each library's own callable)
        theirs = _build(torch, kind, _settings(torch, name)[0]).double()
        theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
        _repair_decoder_copies(theirs)
    batch_first = settings.get("batch_first", False)
    out, inputs = _call(al, ours, kind, masks, batch_first)
    their_out, their_inputs = _call(torch, theirs, kind, masks, batch_first)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-11, atol=1e-12)
    seed = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
    out.backward(al.tensor(seed))
    their_out.backward(torch.tensor(seed))
    ours_g, theirs_g = _grads(ours, inputs), _grads(theirs, their_inputs)
    assert len(ours_g) == len(theirs_g)
    for a, t in zip(ours_g, theirs_g):
        np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("kind", KINDS)
def test_eval_mode_matches_torchs_fast_path(kind):
    ours, theirs = _twins(kind, {"dropout": 0.3, "batch_first": True})
    ours.eval(), theirs.eval()
    with torch.no_grad():
        their_out, _ = _call(torch, theirs, kind, False, True)
    with al.no_grad():
        out, _ = _call(al, ours, kind, False, True)
    np.testing.assert_allclose(out.numpy(), their_out.numpy(), rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("padding", [[[False] * 4 + [True], [False] * 3 + [True] * 2],
                                     [[False] * 4 + [True], [True] + [False] * 4]], ids=["at the ends", "elsewhere"])
@pytest.mark.parametrize("no_grad", [True, False], ids=["no_grad", "grad"])
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")  # (PyTorch's own, about its prototype)
def test_eval_with_padding_matches_torchs_nested_tensors(padding, no_grad):
    """In evaluation without gradients, PyTorch's encoder packs a batch padded at the ends into nested tensors, and
    its padded positions come out as 0 (then the final norm); otherwise they hold what attention computed."""
    ours, theirs = _twins("TransformerEncoder", {"batch_first": True})
    ours.eval(), theirs.eval()
    x = _SRC.transpose(1, 0, 2).copy()
    with torch.set_grad_enabled(not no_grad):
        expected = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(padding)).detach().numpy()
    with al.set_grad_enabled(not no_grad):
        got = ours(al.tensor(x), src_key_padding_mask=al.tensor(padding)).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-11)


def test_unbatched_input_matches_torch():
    ours, theirs = _twins("TransformerEncoder", {})
    got = ours(al.tensor(_SRC[:, 0]))
    expected = theirs(torch.tensor(_SRC[:, 0]))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-11, atol=1e-12)


def test_generate_square_subsequent_mask():
    ours = al.nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert ours.dtype is al.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert al.nn.Transformer.generate_square_subsequent_mask(3, dtype=al.float64).dtype is al.float64


@pytest.mark.parametrize("kind", KINDS)
def test_state_dict_keys_and_repr_as_torch(kind):
    ours, theirs = _twins(kind, {"norm_first": True})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def test_transformer_initialises_every_matrix_xavier_uniform():
    model = al.nn.Transformer(8, 2, 1, 1, 16)
    bound = (6 / (16 + 8)) ** 0.5
    assert model.encoder.layers[0].linear1.weight.abs().max().item() <= bound
    assert (model.encoder.norm.weight == 1).all() and (model.decoder.norm.bias == 0).all()


def test_nested_tensor_warning_as_torch():
    for lib in (torch, al):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16)
        with pytest.warns(UserWarning, match=r"enable_nested_tensor is True, but self.use_nested_tensor is False because "
                                             r"encoder_layer.self_attn.batch_first was not True\(use batch_first"):
            lib.nn.TransformerEncoder(layer, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)


ERRORS = {
    "unknown activation": (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                           "activation should be relu/gelu, not tanh"),
    "batch sizes differ": (lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.randn(5, 2, 8), lib.randn(4, 3, 8)),
                           "the batch number of src and tgt must be equal"),
    "feature size": (lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.randn(5, 2, 6), lib.randn(4, 2, 6)),
                     "the feature number of src and tgt must be equal to d_model"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    build, phrase = ERRORS[name]
    for lib in (torch, al):
        with pytest.raises(RuntimeError, match=phrase):
            build(lib)


@pytest.mark.parametrize("kind, phrase", [("TransformerEncoder", "src_key_padding_mask and mask"),
                                          ("TransformerEncoderLayer", "src_key_padding_mask and src_mask")])
def test_mismatched_mask_types_warn_as_torch(kind, phrase):
    for lib in (torch, al):
        module = _build(lib, kind, {}).double()
        with pytest.warns(UserWarning, match=f"Support for mismatched {phrase} is deprecated") as caught:
            module(lib.tensor(_SRC), lib.nn.Transformer.generate_square_subsequent_mask(5, dtype=lib.float64),
                   lib.tensor(_SRC_PADDING))
        assert len([w for w in caught if "mismatched" in str(w.message)]) == 1


def test_a_boolean_causal_mask_gives_the_float_masks_result():
    ours, theirs = _twins("TransformerEncoder", {})
    boolean = np.triu(np.ones((5, 5), dtype=bool), 1)
    got = ours(al.tensor(_SRC), mask=al.tensor(boolean))
    expected = theirs(torch.tensor(_SRC), mask=torch.tensor(boolean))
    floating = ours(al.tensor(_SRC), mask=al.nn.Transformer.generate_square_subsequent_mask(5, dtype=al.float64))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-11, atol=1e-12)
    np.testing.assert_array_equal(got.detach().numpy(), floating.detach().numpy())


def test_float32_transformer_matches_torch():
    ours, theirs = _twins("Transformer", {})
    ours.float(), theirs.float()
    src, tgt = _SRC.astype(np.float32), _TGT.astype(np.float32)
    got = ours(al.tensor(src), al.tensor(tgt), tgt_mask=al.nn.Transformer.generate_square_subsequent_mask(4))
    expected = theirs(torch.tensor(src), torch.tensor(tgt),
                      tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4))
    assert got.dtype is al.float32
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
