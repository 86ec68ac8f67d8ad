"""Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against PyTorch 2.13's single-tensor implementations
(``foreach=False``): 25 steps from the same start on three parameters of different shapes in two param groups
with different options, one parameter never getting a gradient; the same weights (float64, rtol 1e-10), the same
state under the same names, version counters bumped as PyTorch's in-place ops bump them; state_dicts that load
across the two libraries; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

rng = np.random.default_rng(7)
START = [rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((2, 2, 2))]
X = rng.standard_normal((5, 4))

# (name, the constructor's options, the second group's own options)
CONFIGS = [
    ("Adagrad", dict(lr=0.1), dict(lr_decay=0.01, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.05, initial_accumulator_value=0.3, eps=1e-6), dict(maximize=True, lr=0.2)),
    ("Adadelta", dict(), dict(rho=0.5, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(lr=0.5, eps=1e-4), dict(lr=2.0)),
    ("Adamax", dict(), dict(betas=(0.5, 0.9), weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True), dict(eps=1e-3)),
    ("NAdam", dict(), dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(weight_decay=0.1, lr=0.01), dict(momentum_decay=0.1, betas=(0.3, 0.8))),
    ("NAdam", dict(maximize=True), dict()),
    ("RAdam", dict(), dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(weight_decay=0.1, betas=(0.9, 0.9)), dict(maximize=True)),  # rectified from step 6 on
    ("RAdam", dict(lr=0.01, betas=(0.3, 0.5)), dict(eps=1e-3)),
    ("ASGD", dict(t0=5, lambd=0.01), dict(weight_decay=0.1, alpha=0.5)),
    ("ASGD", dict(lr=0.05), dict(maximize=True, t0=0)),
    ("Rprop", dict(), dict(etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
    ("Rprop", dict(lr=0.05, step_sizes=(1e-4, 0.1)), dict()),
    # the optimizers autograd_lab had before, over the same 25 steps
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True), dict(weight_decay=0.1, nesterov=False, dampening=0.5)),
    ("SGD", dict(lr=0.05), dict(momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True), dict(betas=(0.5, 0.9), weight_decay=0.1)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), dict(decoupled_weight_decay=False)),
    ("AdamW", dict(lr=0.01), dict(amsgrad=True, weight_decay=0.3, maximize=True)),
    ("RMSprop", dict(lr=0.01, centered=True), dict(momentum=0.5, alpha=0.9, weight_decay=0.05)),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CONFIGS)]


def run(lib, name, options, group_options, steps=25, state=None):
    """``steps`` steps on ``START`` (the third parameter gets no gradient); the parameters and the optimizer.
    ``state`` (an optimizer state_dict and the weights to start from) resumes a run."""
    params = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in (state[1] if state else START)]
    groups = [{"params": [params[0]]}, {"params": [params[1], params[2]], **group_options}]
    optimizer = getattr(lib.optim, name)(groups, **options, foreach=False)
    if state:
        optimizer.load_state_dict(state[0])
    x = lib.tensor(X, dtype=lib.float64)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((x @ params[0].t() + params[1]).tanh() ** 2).sum() + (params[0] * params[0]).sum() * 0.1
        loss.backward()
        optimizer.step()
    return params, optimizer


def assert_same_run(ours, theirs, versions=True):
    (params_a, opt_a), (params_b, opt_b) = ours, theirs
    for p, q in zip(params_a, params_b):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert not versions or p._version == q._version
        state_a, state_b = opt_a.state[p], opt_b.state[q]
        assert sorted(state_a) == sorted(state_b)
        for key, value in state_b.items():
            mine = state_a[key]
            assert str(mine.dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
            assert tuple(mine.shape) == tuple(value.shape), key
            assert not versions or mine._version == value._version, key
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-10, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("name, options, group_options", CONFIGS, ids=IDS)
def test_trajectory_and_state_match_torch(name, options, group_options):
    ours, theirs = run(al, name, options, group_options), run(torch, name, options, group_options)
    assert_same_run(ours, theirs)
    assert not np.allclose(ours[0][0].detach().numpy(), START[0])  # the weights moved
    assert ours[0][2].detach().numpy().tolist() == START[2].tolist()  # no gradient, no move
    assert ours[1].param_groups[1] == {**theirs[1].param_groups[1], "params": ours[1].param_groups[1]["params"]}


def _convert(value, lib):
    """A state_dict with every tensor turned into ``lib``'s (same values, same dtype)."""
    if isinstance(value, dict):
        return {k: _convert(v, lib) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v, lib) for v in value]
    if isinstance(value, (al.Tensor, torch.Tensor)):
        array = value.detach().numpy().copy()
        return lib.tensor(array, dtype=getattr(lib, str(value.dtype).split(".")[-1]))
    return value


@pytest.mark.parametrize("name, options, group_options", CONFIGS[::2], ids=IDS[::2])
def test_state_dicts_load_across_the_libraries(name, options, group_options):
    """Ten steps in one library, the state_dict and weights carried to the other, ten more steps there: the
    same weights as twenty steps in either. (Loading casts floating state to the parameter's dtype, in both
    libraries: NAdam's ``mu_product`` and ASGD's ``eta`` and ``mu`` become float64 here.)"""
    first_a, first_b = run(al, name, options, group_options, steps=10), run(torch, name, options, group_options,
                                                                           steps=10)
    weights = [p.detach().numpy().copy() for p in first_a[0]]
    carried_to_torch = run(torch, name, options, group_options, 10, (_convert(first_a[1].state_dict(), torch), weights))
    carried_to_al = run(al, name, options, group_options, 10, (_convert(first_b[1].state_dict(), al), weights))
    assert_same_run(carried_to_al, carried_to_torch, versions=False)
    for p, q in zip(carried_to_al[0], run(torch, name, options, group_options, steps=20)[0]):  # (the float32
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-7)  # scalars of a whole run)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", ["ASGD", "NAdam"])
def test_scalar_state_is_kept_in_the_default_dtype_as_torch(name, default):
    """ASGD's ``eta`` and ``mu`` and NAdam's ``mu_product`` round to float32 unless float64 is the default, and
    the float64 parameters' updates see the rounding, as in PyTorch."""
    previous = (al.get_default_dtype(), torch.get_default_dtype())
    al.set_default_dtype(getattr(al, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        options = dict(lr=0.3, lambd=0.3, t0=3) if name == "ASGD" else dict(momentum_decay=0.3)
        assert_same_run(run(al, name, options, {}), run(torch, name, options, {}))
    finally:
        al.set_default_dtype(previous[0])
        torch.set_default_dtype(previous[1])


@pytest.mark.parametrize("name", ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_float32_steps_match_torch(name):
    params = {}
    for lib in (al, torch):
        w = lib.tensor(START[0], dtype=lib.float32, requires_grad=True)
        optimizer = getattr(lib.optim, name)([w], **({"foreach": False} if lib is torch else {}))
        for _ in range(20):
            optimizer.zero_grad()
            (w.sin() * w).sum().backward()
            optimizer.step()
        params[lib] = w.detach().numpy()
    assert params[al].dtype == np.float32
    np.testing.assert_allclose(params[al], params[torch], rtol=1e-5, atol=1e-6)


def test_adagrad_makes_its_state_with_the_optimizer_as_torch():
    """Adagrad fills ``sum`` for every parameter at construction, from the constructor's
    ``initial_accumulator_value`` (a group's own value is kept in the group but not used, as in PyTorch)."""
    states = []
    for lib in (al, torch):
        w, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
        optimizer = lib.optim.Adagrad([{"params": [w]}, {"params": [b], "initial_accumulator_value": 2.0}],
                                      initial_accumulator_value=0.5)
        states.append([(sorted(optimizer.state[p]), optimizer.state[p]["sum"].numpy().tolist()) for p in (w, b)])
        assert optimizer.param_groups[1]["initial_accumulator_value"] == 2.0
    assert states[0] == states[1] == [(["step", "sum"], [0.5, 0.5]), (["step", "sum"], [0.5, 0.5, 0.5])]


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_invalid_hyperparameters_raise_torch_errors(lib):
    w = lib.zeros(2, requires_grad=True)
    optim = lib.optim
    for make, message in ((lambda: optim.Adagrad([w], lr=-0.1), "Invalid learning rate: -0.1"),
                          (lambda: optim.Adagrad([w], lr_decay=-1), "Invalid lr_decay value: -1"),
                          (lambda: optim.Adagrad([w], initial_accumulator_value=-1),
                           "Invalid initial_accumulator_value value: -1"),
                          (lambda: optim.Adadelta([w], rho=1.5), "Invalid rho value: 1.5"),
                          (lambda: optim.Adadelta([w], eps=-1), "Invalid epsilon value: -1"),
                          (lambda: optim.Adamax([w], betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
                          (lambda: optim.NAdam([w], momentum_decay=-0.1), "Invalid momentum_decay value: -0.1"),
                          (lambda: optim.RAdam([w], weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
                          (lambda: optim.ASGD([w], lr=-1), "Invalid learning rate: -1"),
                          (lambda: optim.Rprop([w], etas=(1.5, 2.0)), "Invalid eta values: 1.5, 2.0")):
        with pytest.raises(ValueError, match=message):
            make()
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        optim.Adagrad([w], fused=True, foreach=True)


@pytest.mark.parametrize("name", ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "SGD", "Adam",
                                  "AdamW", "RMSprop"])
def test_implementation_switches(name):
    """``foreach`` is accepted and kept in the groups (one loop computes every choice); ``differentiable`` and
    ``capturable`` cannot be honoured by an update on raw arrays, and say so."""
    w = al.zeros(2, requires_grad=True)
    cls = getattr(al.optim, name)
    for foreach in (None, False, True):
        assert cls([w], foreach=foreach).param_groups[0]["foreach"] is foreach
    with pytest.raises(RuntimeError, match="differentiable=True is not supported"):
        cls([w], differentiable=True)
    if name not in ("Adagrad", "SGD"):  # (they have no capturable option)
        with pytest.raises(RuntimeError, match="capturable=True is not supported"):
            cls([w], capturable=True)
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)]).param_groups[0]
    assert sorted(cls([w]).param_groups[0]) == sorted(theirs)


@pytest.mark.parametrize("name", ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_the_update_is_in_place_and_refuses_inference_tensors(name):
    w = al.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    alias, ptr = w.detach(), w.data_ptr()
    optimizer = getattr(al.optim, name)([w], lr=0.1)
    (w * w).sum().backward()
    optimizer.step()
    assert w.data_ptr() == ptr and np.array_equal(alias.numpy(), w.detach().numpy())
    assert w.is_leaf and w.grad_fn is None
    with al.inference_mode():
        p = al.ones(2)
    p.grad = al.ones(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        getattr(al.optim, name)([p], lr=0.1).step()
