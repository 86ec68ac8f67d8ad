"""Tensors and shapes print as PyTorch prints them, character for character (``torch.`` read as ``al.``)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(0)

# (name, array): 0-d to 3-d; ints, bools, floats of mixed magnitudes; nan/inf; large tensors (summarised)
TABLE = [
    ("0-d float", np.array(3.5, np.float32)),
    ("0-d int", np.array(7)),
    ("0-d bool", np.array(True)),
    ("0-d nan", np.array(np.nan, np.float32)),
    ("empty", np.zeros(0, np.float32)),
    ("empty 2-d", np.zeros((0, 3), np.float32)),
    ("empty int", np.zeros(0, np.int64)),
    ("empty float64 3-d", np.zeros((2, 0, 1))),
    ("whole floats", np.array([1.0, 2.0, 3.0], np.float32)),
    ("negative whole", np.array([-1.0, 20.0, 300.0], np.float32)),
    ("decimals", np.array([0.1, -2.25, 3.0], np.float32)),
    ("tiny: sci", np.array([1e-5, 1.0], np.float32)),
    ("huge: sci", np.array([1e9, 1.0], np.float32)),
    ("spread > 1000: sci", np.array([0.5, 1500.0], np.float32)),
    ("whole, spread", np.array([1.0, 100000.0], np.float32)),
    ("one huge whole", np.array([123456789.0], np.float32)),
    ("nan inf", np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)),
    ("nan among whole", np.array([np.nan, 1.0, 2.0], np.float32)),
    ("only nan and inf", np.array([np.nan, -np.inf], np.float32)),
    ("signed zeros", np.array([0.0, -0.0], np.float32)),
    ("zeros", np.zeros((2, 3), np.float32)),
    ("float64", np.array([1.0, 2.5])),
    ("float16", np.array([0.1, 0.25], np.float16)),
    ("int32", np.array([1, -2, 300], np.int32)),
    ("uint8", np.array([0, 255], np.uint8)),
    ("bools", np.array([[True, False], [False, True]])),
    ("2-d sevenths", np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7),
    ("2-d mixed", np.array([[1e-3, 1.0], [5.0, 1e4]], np.float32)),
    ("3-d ints", np.arange(24).reshape(2, 3, 4)),
    ("wide row wraps", _rng.standard_normal((2, 20)).astype(np.float32)),
    ("column", np.arange(30.0, dtype=np.float32).reshape(30, 1)),
    ("100 ints wrap", np.arange(100)),
    ("1001 ints: summarised", np.arange(1001)),
    ("2000 floats", np.arange(2000.0, dtype=np.float32)),
    ("summarised: formatted by the shown values", _rng.standard_normal(2000) * 1e5),
    ("summarised 2-d", np.arange(2000).reshape(40, 50)),
    ("summarised 3-d", _rng.standard_normal((3, 4, 1005)).astype(np.float32)),
    ("summarised, few rows", _rng.standard_normal((4, 400)).astype(np.float32)),
]


def _torch_repr(value) -> str:
    return repr(value).replace("torch.", "al.")


@pytest.mark.parametrize("name,array", TABLE, ids=[name for name, _ in TABLE])
def test_repr_matches_pytorch(name, array):
    assert repr(al.from_numpy(array.copy())) == _torch_repr(torch.from_numpy(array.copy()))


FLOATING = [(name, array) for name, array in TABLE if array.dtype.kind == "f" and array.size <= 1000]


@pytest.mark.parametrize("name,array", FLOATING, ids=[name for name, _ in FLOATING])
def test_requires_grad_and_grad_fn_suffixes_wrap_as_in_pytorch(name, array):
    a, t = al.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    assert repr(a) == _torch_repr(t)
    assert repr(a * 2) == _torch_repr(t * 2)  # grad_fn=<MulBackward0>, on a new line where it would not fit


def test_long_suffixes_go_on_their_own_line():
    array = np.linspace(-1, 1, 18).reshape(2, 9)  # rows filling the line: the dtype suffix does not fit after them
    a, t = al.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    assert repr(a.sum(0)) == _torch_repr(t.sum(0))
    assert repr(a.exp()) == _torch_repr(t.exp())
    assert "\n" in repr(a.exp()).split("]]")[-1]


def test_parameter_and_default_dtype():
    assert repr(al.nn.Parameter(al.tensor([1.0, 2.0]))) == _torch_repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    al.set_default_dtype(al.float64)
    torch.set_default_dtype(torch.float64)
    try:  # float64 is now the default (no suffix); float32 gets one
        for array in (np.array([1.5, 2.0]), np.array([1.5, 2.0], np.float32), np.zeros(0)):
            assert repr(al.tensor(array)) == _torch_repr(torch.tensor(array))
    finally:
        al.set_default_dtype(al.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("options", [
    dict(precision=2), dict(threshold=5), dict(edgeitems=1, threshold=10), dict(linewidth=40),
    dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"), dict(profile="full"), dict(edgeitems=0, threshold=3),
])
def test_set_printoptions_as_in_pytorch(options):
    arrays = [np.arange(10), np.array([1.123456, 1e-6, 250.0]), np.linspace(0, 1, 50).reshape(5, 10),
              _rng.standard_normal((30, 40)).astype(np.float32)]
    try:
        al.set_printoptions(**options)
        torch.set_printoptions(**options)
        for array in arrays:
            assert repr(al.from_numpy(array)) == _torch_repr(torch.from_numpy(array))
    finally:
        al.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert al.set_printoptions is al._tensor_str.set_printoptions
    assert al._tensor_str.get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3, linewidth=80,
                                                     sci_mode=None)


def test_printoptions_context_restores_the_options():
    with al._tensor_str.printoptions(precision=1):
        assert repr(al.tensor([0.25])) == "tensor([0.2])"
    assert repr(al.tensor([0.25])) == "tensor([0.2500])"


def test_size_prints_as_torch_size_with_the_module_renamed():
    t = torch.ones(2, 3)
    a = al.ones(2, 3)
    for get in (lambda s: s, lambda s: s[1:], lambda s: s + (4,), lambda s: (1,) + s, lambda s: s * 2,
                lambda s: s[:0]):
        assert repr(get(a.shape)) == _torch_repr(get(t.shape))
        assert str(get(a.shape)) == _torch_repr(get(t.shape))
    assert a.shape[0] == 2 and isinstance(a.shape[0], int)
    assert f"{a.shape}" == "al.Size([2, 3])"  # as in messages: "Using a target size (al.Size([3]))..."


def test_messages_quote_shapes_as_pytorch_does():
    messages = []
    for lib in (al, torch):
        with pytest.warns(UserWarning) as caught:
            lib.nn.functional.mse_loss(lib.ones(3, 1), lib.ones(3))
        messages.append(str(caught[0].message))
    assert "(al.Size([3]))" in messages[0]
    assert messages[0] == messages[1].replace("torch.Size", "al.Size")
