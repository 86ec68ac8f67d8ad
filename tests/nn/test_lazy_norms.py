"""The lazy normalisations (``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``) and ``UninitializedBuffer``
against PyTorch: reprs and state_dict keys before the first call, the layer they become, the running statistics
after a training step, evaluation, loading a state_dict, and saving an uninitialized one."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

SHAPES = {"BatchNorm1d": (4, 3, 5), "BatchNorm2d": (4, 3, 2, 5), "BatchNorm3d": (2, 3, 2, 2, 3),
          "InstanceNorm1d": (4, 3, 5), "InstanceNorm2d": (4, 3, 2, 5), "InstanceNorm3d": (2, 3, 2, 2, 3)}


def _twins(name, **settings):
    return getattr(al.nn, "Lazy" + name)(**settings), getattr(torch.nn, "Lazy" + name)(**settings)


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("settings", [{}, {"affine": False}, {"track_running_stats": False, "momentum": None}])
def test_a_lazy_norm_learns_num_features_and_becomes_its_layer(name, settings):
    ours, theirs = _twins(name, **settings)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(0).standard_normal(SHAPES[name]).astype(np.float32)
    outs = [m(lib.tensor(x)) for m, lib in ((ours, al), (theirs, torch))]
    assert type(ours).__name__ == type(theirs).__name__ == name and ours.num_features == theirs.num_features == 3
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-6)
    for (key, a), (key2, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert key == key2
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    ours.eval(), theirs.eval()
    evaluated = [m(lib.tensor(x * 2)).detach().numpy() for m, lib in ((ours, al), (theirs, torch))]
    np.testing.assert_allclose(evaluated[0], evaluated[1], rtol=1e-5, atol=1e-6)


def test_an_uninitialized_buffer_has_no_shape_and_materializes_into_a_tensor():
    buffer = al.nn.UninitializedBuffer()
    assert repr(buffer) == repr(torch.nn.UninitializedBuffer()) == "<UninitializedBuffer>"
    assert not buffer.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
        _ = buffer.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        buffer + 1
    buffer.materialize((3,))
    assert type(buffer) is al.Tensor and tuple(buffer.shape) == (3,)


def test_a_lazy_norm_loads_a_state_dict_and_saves_uninitialized(tmp_path):
    trained = al.nn.BatchNorm1d(4)
    with al.no_grad():
        trained.running_mean.copy_(al.tensor([0.5, -1.0, 2.0, 0.0]))
    lazy = al.nn.LazyBatchNorm1d()
    lazy.load_state_dict(trained.state_dict())
    assert lazy.running_mean.tolist() == [0.5, -1.0, 2.0, 0.0] and tuple(lazy.weight.shape) == (4,)
    lazy(al.ones(2, 4))  # (the first call finds its parameters loaded, and becomes BatchNorm1d)
    assert type(lazy) is al.nn.BatchNorm1d
    path = tmp_path / "lazy.pt"
    al.save(al.nn.LazyBatchNorm1d().state_dict(), path)
    loaded = al.load(path)
    assert isinstance(loaded["running_mean"], al.nn.UninitializedBuffer)
    assert isinstance(loaded["weight"], al.nn.UninitializedParameter)
    fresh = al.nn.LazyBatchNorm1d()
    fresh.load_state_dict(loaded)  # (nothing to load: it stays lazy)
    assert isinstance(fresh.running_var, al.nn.UninitializedBuffer)
