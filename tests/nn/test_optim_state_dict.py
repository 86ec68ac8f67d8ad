"""``load_state_dict`` against PyTorch 2.13: a state dict saved by PyTorch (tensors turned into ours) resumes to
the same parameters, also in the older layout whose ``step`` (NAdam's ``mu_product``, ASGD's ``eta`` and ``mu``)
was a number; the loaded param groups replace the optimizer's own."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

NAMES = ["SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "ASGD"]
KWARGS = {"SGD": dict(momentum=0.9), "RMSprop": dict(momentum=0.5, centered=True), "Adam": dict(amsgrad=True)}
NUMBERS = ("step", "mu_product", "eta", "mu")  # the state entries older PyTorch kept as Python numbers


def _ours(value):
    """A PyTorch state dict with our tensors in place of PyTorch's."""
    if isinstance(value, torch.Tensor):
        return al.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: _ours(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_ours(v) for v in value)
    return value


def _resume(T, name, start, grads, saved=None):
    w = T.tensor(start, requires_grad=True, dtype=T.float64)
    opt = getattr(T.optim, name)([w], lr=0.01, **KWARGS.get(name, {}), **({"foreach": False} if T is torch else {}))
    if saved is not None:
        opt.load_state_dict(saved)
    for grad in grads:
        w.grad = T.tensor(grad, dtype=T.float64)
        opt.step()
    return w, opt


@pytest.mark.parametrize("numbers", [False, True], ids=["tensor-step", "number-step"])
@pytest.mark.parametrize("name", NAMES)
def test_resume_from_a_torch_state_dict(name, numbers):
    rng = np.random.default_rng(len(name))
    start, grads = rng.standard_normal(3), rng.standard_normal((6, 3))
    _, trained = _resume(torch, name, start, grads[:3])
    saved = copy.deepcopy(trained.state_dict())
    if numbers:
        for entry in saved["state"].values():
            entry.update({k: entry[k].item() for k in NUMBERS if k in entry})
    theirs, opt_b = _resume(torch, name, start, grads[3:], copy.deepcopy(saved))
    ours, opt_a = _resume(al, name, start, grads[3:], _ours(saved))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    for key, value in opt_b.state[theirs].items():
        assert str(opt_a.state[ours][key].dtype).split(".")[1] == str(value.dtype).split(".")[1], key
        np.testing.assert_allclose(opt_a.state[ours][key].numpy(), value.numpy(), rtol=1e-12, err_msg=key)


def test_loaded_groups_replace_the_optimizers_own():
    """Keys the optimizer's groups gained since the save (a scheduler's ``initial_lr``) go, as in PyTorch."""
    keys = []
    for T in (al, torch):
        opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=0.1)
        saved = opt.state_dict()
        T.optim.lr_scheduler.StepLR(opt, 2)
        opt.load_state_dict(saved)
        keys.append(sorted(opt.param_groups[0]))
    assert keys[0] == keys[1] and "initial_lr" not in keys[0]
