"""``nn.utils`` against ``torch.nn.utils``: gradient clipping by norm (every norm type, non-finite norms, empty
inputs) and by value, and a model's parameters as one vector."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

GRADS = [np.array([3.0, -4.0]), np.array([[1.0, 2.0], [-0.5, 7.0]]), np.array(0.25)]


def _params(lib, grads=GRADS, none_at=None):
    params = []
    for i, g in enumerate(grads):
        p = (al.nn.Parameter if lib is al else torch.nn.Parameter)(lib.tensor(np.zeros_like(g)))
        if i != none_at:
            p.grad = lib.tensor(g.copy())
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, "inf", float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("none_at", [None, 1])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, none_at):
    ours, theirs = _params(al, none_at=none_at), _params(torch, none_at=none_at)
    total = al.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total.ndim == 0 and total.dtype is al.float64
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-12)
    for p, q in zip(ours, theirs):
        assert (p.grad is None) == (q.grad is None)
        if p.grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
            assert p.grad._version == q.grad._version == 1  # scaled in place, even by 1


def test_clip_grad_norm_options_and_edge_cases():
    for lib in (al, torch):
        utils = lib.nn.utils
        single = _params(lib)[0]
        assert utils.clip_grad_norm_(single, 1.0, foreach=True).item() == pytest.approx(5.0)  # a tensor, foreach
        assert utils.clip_grad_norm_([], 1.0).item() == 0.0
        with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
            utils.clip_grad_norm_((p for p in []), 1.0)
        broken = _params(lib, [np.array([np.nan, 1.0])])
        with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                               "non-finite, so it cannot be clipped"):
            utils.clip_grad_norm_(broken, 1.0, error_if_nonfinite=True)
        assert np.isnan(utils.clip_grad_norm_(broken, 1.0).item())
        with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
            utils.clip_grad_norm(_params(lib), 1.0)
    total = al.nn.utils.get_total_norm([al.tensor([3.0, 4.0]), al.tensor([12.0])])
    assert total.item() == pytest.approx(13.0)
    p = _params(al)
    al.nn.utils.clip_grads_with_norm_(p, 1.0, al.tensor(10.0))
    assert np.allclose(p[0].grad.numpy(), GRADS[0] / (10 + 1e-6))


@pytest.mark.parametrize("clip", [0.5, 3])
def test_clip_grad_value_matches_torch(clip):
    ours, theirs = _params(al, none_at=2), _params(torch, none_at=2)
    assert al.nn.utils.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(theirs, clip, foreach=False)
    for p, q in zip(ours[:2], theirs[:2]):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    al.nn.utils.clip_grad_value_(ours[0], 0.1, foreach=True)
    assert ours[0].grad.abs().max().item() == pytest.approx(0.1)


def test_parameters_to_vector_and_back():
    for lib in (al, torch):
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
        vec = lib.nn.utils.parameters_to_vector(model.parameters())
        assert tuple(vec.shape) == (11,) and type(vec.grad_fn).__name__ == "CatBackward0"
        np.testing.assert_array_equal(vec.detach().numpy()[:6], model[0].weight.detach().numpy().ravel())
        new = lib.arange(11.0)
        lib.nn.utils.vector_to_parameters(new, model.parameters())
        assert model[0].weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and model[2].bias.tolist() == [10.0]
        assert model[0].weight.is_leaf and model[0].weight.requires_grad
        with al.no_grad() if lib is al else torch.no_grad():
            new[0] = 100.0  # the parameters share the vector's memory, as in PyTorch
        assert model[0].weight[0, 0].item() == 100.0
    with pytest.raises(TypeError, match="expected al.Tensor, but got: list"):
        al.nn.utils.vector_to_parameters([1.0], [al.nn.Parameter(al.ones(1))])


def test_clip_grad_norm_of_half_gradients_accumulates_in_float32():
    """300 and 400 square past float16's largest value: PyTorch's norm accumulates half in float32 (500), as ours
    now does (it overflowed to inf and every gradient was scaled to 0)."""
    results = []
    for lib in (torch, al):
        param = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
        param.grad = lib.tensor([300.0, 400.0], dtype=lib.float16)
        total = lib.nn.utils.clip_grad_norm_([param], 1.0)
        results.append((total.item(), param.grad.tolist(), lib.linalg.vector_norm(param.grad * 1000, 3).item()))
    assert results[0] == results[1]
