"""Every optimizer on a device that is not NumPy's (the ``device`` fixture of tests/fake_backend.py): the same
weights and state as on the CPU after a few steps, the state kept on the parameters' device (the step counts,
and ASGD's ``eta`` and ``mu``, on the CPU as PyTorch keeps them)."""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture)

import autograd_lab as al
from autograd_lab import nn, optim

OPTIMIZERS = {
    "Adagrad": dict(lr=0.1, lr_decay=0.01, weight_decay=0.1), "Adadelta": dict(weight_decay=0.1),
    "Adamax": dict(weight_decay=0.1), "NAdam": dict(weight_decay=0.1, decoupled_weight_decay=True),
    "RAdam": dict(betas=(0.9, 0.9)), "ASGD": dict(t0=2, weight_decay=0.1), "Rprop": dict(maximize=True),
    "AdamW": dict(amsgrad=True), "RMSprop": dict(centered=True, momentum=0.5),
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True),
    "LBFGS": dict(line_search_fn="strong_wolfe", history_size=3, max_iter=5),
}


def host(t: al.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_steps_on_device_equal_cpu(name, device):  # noqa: F811
    al.manual_seed(0)
    cpu_model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    dev_model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    dev_model.load_state_dict(cpu_model.state_dict())
    dev_model.cuda()
    data = np.random.default_rng(1).standard_normal((5, 4))
    optimizers = []
    for model, dev in ((cpu_model, al.device("cpu")), (dev_model, device)):
        optimizer = getattr(optim, name)(model.parameters(), **OPTIMIZERS[name])
        x = al.tensor(data, dtype=al.float64, device=dev)

        def closure(optimizer=optimizer, model=model, x=x):
            optimizer.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            return loss
        for _ in range(4):
            optimizer.step(closure)
        optimizers.append(optimizer)
    for p_cpu, p_dev in zip(cpu_model.parameters(), dev_model.parameters()):
        assert p_dev.device == device
        np.testing.assert_allclose(host(p_dev), host(p_cpu), rtol=1e-10, atol=1e-12)
    states = [opt.state_dict()["state"] for opt in optimizers]
    assert states[0].keys() == states[1].keys()
    for index, state in states[1].items():
        for key, value in state.items():
            if isinstance(value, al.Tensor):
                on_cpu = key in ("step", "eta", "mu", "mu_product")
                assert value.device == (al.device("cpu") if on_cpu else device), key
                np.testing.assert_allclose(host(value), host(states[0][index][key]), rtol=1e-10, atol=1e-12)
