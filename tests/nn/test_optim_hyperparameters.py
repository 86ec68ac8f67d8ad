"""Every optimizer against PyTorch 2.13 (``foreach=False``) for the inputs its loops once did not take: ``lr`` and
``weight_decay`` given as one-element tensors (whose float32 arithmetic PyTorch's step keeps), and 0-d
parameters (NumPy gives a 0-d array's results as scalars, which the in-place update cannot write into)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

CONFIGS = [
    ("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(betas=(0.3, 0.6))),
    ("Adagrad", dict(lr_decay=0.1, initial_accumulator_value=0.5)),
    ("Adadelta", dict(rho=0.5, weight_decay=0.1)),
    ("Adamax", dict(weight_decay=0.1, maximize=True)),
    ("NAdam", dict(momentum_decay=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(betas=(0.5, 0.8), weight_decay=0.1)),
    ("RMSprop", dict(centered=True, momentum=0.5, maximize=True)),
    ("RMSprop", dict(weight_decay=0.1)),
    ("Rprop", dict(etas=(0.3, 1.7))),
    ("ASGD", dict(t0=2, lambd=0.1, weight_decay=0.1)),
]


def _run(T, name, kwargs, arrays, grads, dtype, tensors):
    params = [T.tensor(a, dtype=getattr(T, dtype), requires_grad=True) for a in arrays]
    kwargs = dict(kwargs, lr=0.03, **({"foreach": False} if T is torch else {}))
    for key in tensors:  # (given as float32 tensors)
        kwargs[key] = T.tensor(kwargs.get(key, 0.1))
    opt = getattr(T.optim, name)(params, **kwargs)
    for step in grads:
        for param, grad in zip(params, step):
            param.grad = T.tensor(grad, dtype=getattr(T, dtype))
        opt.step()
    return params, opt


TENSORS = [(), ("lr",), ("lr", "weight_decay")]
CASES = [(name, kwargs, tensors) for name, kwargs in CONFIGS for tensors in TENSORS
         if not (name == "Rprop" and "weight_decay" in tensors)]  # (Rprop has no weight_decay)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, kwargs, tensors", CASES,
                         ids=[f"{n}-{CONFIGS.index((n, k))}-{'-'.join(t) or 'floats'}" for n, k, t in CASES])
def test_tensor_hyperparameters_and_0d_parameters_match_torch(name, kwargs, tensors, dtype):
    rng = np.random.default_rng(len(name) + len(kwargs))
    arrays = [rng.standard_normal(()), rng.standard_normal((2, 3))]
    grads = [[rng.standard_normal(np.shape(a)) for a in arrays] for _ in range(4)]
    ours, opt_a = _run(al, name, kwargs, arrays, grads, dtype, tensors)
    theirs, opt_b = _run(torch, name, kwargs, arrays, grads, dtype, tensors)
    tol = 1e-12 if dtype == "float64" else 1e-6
    for p, q in zip(ours, theirs):
        assert p.shape == tuple(q.shape)
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=tol, atol=tol)
        for key, value in opt_b.state[q].items():
            np.testing.assert_allclose(opt_a.state[p][key].numpy(), value.numpy(), rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "Rprop", "ASGD", "LBFGS"])
def test_tensor_lr_must_have_one_element(name):
    for T in (al, torch):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            getattr(T.optim, name)([T.zeros(2, requires_grad=True)], lr=T.tensor([0.1, 0.2]))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_tensor_lr_refuses_foreach(name):
    for T in (al, torch):
        with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False and foreach=True"):
            getattr(T.optim, name)([T.zeros(2, requires_grad=True)], lr=T.tensor(0.1), foreach=True)


def test_lbfgs_tensor_lr_matches_torch():
    steps = []
    for T in (al, torch):
        w = T.tensor([1.5, -0.5], requires_grad=True)
        opt = T.optim.LBFGS([w], lr=T.tensor([0.1]), max_iter=3)

        def closure(w=w, opt=opt, T=T):
            opt.zero_grad()
            loss = ((w - T.tensor([1.0, 2.0])) ** 2).sum() + (w ** 4).sum()
            loss.backward()
            return loss
        opt.step(closure)
        steps.append(w.detach().numpy())
    np.testing.assert_allclose(steps[0], steps[1], rtol=1e-6)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("betas", [(0, 0.5), (0.9, 0)])
def test_adam_betas_must_be_floats(name, betas):
    for T in (al, torch):
        with pytest.raises(ValueError, match="betas must be either both floats or both Tensors"):
            getattr(T.optim, name)([T.zeros(2, requires_grad=True)], betas=betas)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adamax", "NAdam", "RAdam"])
def test_tensor_betas_are_refused_with_a_message(name):
    """PyTorch takes them; ours refuses them plainly instead of failing inside the step."""
    with pytest.raises(ValueError, match="betas given as Tensors are not supported"):
        getattr(al.optim, name)([al.zeros(2, requires_grad=True)], betas=(al.tensor(0.9), al.tensor(0.99)))
