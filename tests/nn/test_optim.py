"""``autograd_lab.optim``: several steps of every optimizer (and every scheduler) against PyTorch's from the
same initial weights, ``zero_grad``, state_dict round trips, param groups, closures, and the errors.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn as nn

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
W, B, X = rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((6, 4))


def problem(lib, dtype="float64"):
    """Two parameter tensors and a loss with curvature, built in ``lib`` (al or torch) from the same numbers."""
    cast = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(W, dtype=cast))
    b = lib.nn.Parameter(lib.tensor(B, dtype=cast))
    x = lib.tensor(X, dtype=cast)

    def loss():
        return ((x @ w.T + b).tanh() ** 2).sum() + (w * w).sum() * 0.1
    return w, b, loss


def train(lib, opt_name, kwargs, steps=6, groups=False, scheduler=None, dtype="float64"):
    w, b, loss = problem(lib, dtype)
    params = [{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", 0.01) * 3}] if groups else [w, b]
    optimizer = getattr(lib.optim, opt_name)(params, **kwargs)
    sched = getattr(lib.optim.lr_scheduler, scheduler[0])(optimizer, **scheduler[1]) if scheduler else None
    lrs = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss().backward()
        optimizer.step()
        if sched is not None:
            sched.step()
            lrs.append(sched.get_last_lr())
    return w.detach().numpy().copy(), b.detach().numpy().copy(), lrs, optimizer


OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.8, weight_decay=0.05)),
    ("RMSprop", dict(lr=0.005, centered=True, momentum=0.5, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
@pytest.mark.parametrize("groups", [False, True])
def test_optimizer_steps_match_torch(name, kwargs, groups):
    ours, theirs = train(al, name, kwargs, groups=groups), train(torch, name, kwargs, groups=groups)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-13)
    assert not np.allclose(ours[0], W)  # the weights moved
    ours_state, theirs_state = ours[3].state_dict(), theirs[3].state_dict()
    assert set(ours_state["state"]) == set(theirs_state["state"])
    for index, state in theirs_state["state"].items():
        assert set(ours_state["state"][index]) == set(state)
        for key, value in state.items():
            np.testing.assert_allclose(np.asarray(ours_state["state"][index][key]), value.numpy(), rtol=1e-11,
                                       atol=1e-13, err_msg=key)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                         ("RMSprop", dict(lr=0.01, centered=True))])
def test_optimizer_float32_steps_match_torch(name, kwargs):
    ours, theirs = train(al, name, kwargs, dtype="float32"), train(torch, name, kwargs, dtype="float32")
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert ours[0].dtype == np.float32


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.8)),
    ("CosineAnnealingLR", dict(T_max=4)),
    ("CosineAnnealingLR", dict(T_max=5, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 1 / (1 + epoch))),
]


@pytest.mark.parametrize("scheduler", SCHEDULERS, ids=[s[0] + str(i) for i, s in enumerate(SCHEDULERS)])
def test_schedulers_match_torch(scheduler):
    kwargs = dict(lr=0.1, momentum=0.9)
    ours = train(al, "SGD", kwargs, steps=12, groups=True, scheduler=scheduler)
    theirs = train(torch, "SGD", kwargs, steps=12, groups=True, scheduler=scheduler)
    np.testing.assert_allclose(np.array(ours[2]), np.array(theirs[2]), rtol=1e-13)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-13)
    assert ours[2][0] != ours[2][-1] or scheduler[0] == "CosineAnnealingLR"


def test_cosine_annealing_follows_the_closed_form():
    w = nn.Parameter(al.zeros(1))
    optimizer = al.optim.SGD([w], lr=1.0)
    sched = al.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10, eta_min=0.1)
    for epoch in range(1, 11):
        optimizer.step()
        sched.step()
        expected = 0.1 + 0.9 * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(expected, rel=1e-12)


def test_scheduler_state_dict_resumes():
    w = nn.Parameter(al.zeros(1))
    optimizer = al.optim.SGD([w], lr=1.0)
    sched = al.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    for _ in range(3):
        optimizer.step()  # (a step without gradients changes nothing; stepping it first is the documented order)
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3
    other = al.optim.lr_scheduler.StepLR(al.optim.SGD([nn.Parameter(al.zeros(1))], lr=1.0), step_size=2, gamma=0.5)
    other.load_state_dict(state)
    assert other.last_epoch == 3 and other.get_last_lr() == sched.get_last_lr() == [0.5]
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        al.optim.lr_scheduler.StepLR(al.optim.SGD([w], lr=1.0), step_size=2, last_epoch=4)


def test_updates_are_in_place_and_not_recorded():
    w, b, loss = problem(al)
    optimizer = al.optim.Adam([w, b], lr=0.1)
    loss().backward()
    version, ptr = w._version, w.data_ptr()
    optimizer.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    assert w.data_ptr() == ptr and w._version > version  # the same storage, changed in place
    assert all(not t.requires_grad for t in optimizer.state[w].values())


def test_zero_grad_and_parameters_without_gradients():
    w, b, loss = problem(al)
    optimizer = al.optim.SGD([w, b], lr=0.1)
    (w * w).sum().backward()  # b gets no gradient: it is left unchanged
    before = b.detach().clone()
    optimizer.step()
    assert b.equal(before)
    grad = w.grad
    optimizer.zero_grad(set_to_none=False)
    assert w.grad is grad and float(grad.abs().sum()) == 0.0
    optimizer.zero_grad()
    assert w.grad is None and b.grad is None


def test_closure_is_evaluated_with_grad_enabled():
    w, b, loss = problem(al)
    optimizer = al.optim.SGD([w, b], lr=0.01)

    def closure():
        optimizer.zero_grad()
        value = loss()
        value.backward()
        return value
    with al.no_grad():
        first = optimizer.step(closure)
    assert first.item() > optimizer.step(closure).item()


def test_optimizer_state_dict_round_trip_continues_identically():
    def fresh():
        w, b, loss = problem(al)
        return w, b, loss, al.optim.Adam([w, b], lr=0.05, amsgrad=True)

    w, b, loss, optimizer = fresh()
    for _ in range(3):
        optimizer.zero_grad()
        loss().backward()
        optimizer.step()
    assert optimizer.state_dict()["state"][0]["exp_avg"] is optimizer.state[w]["exp_avg"]  # references, as PyTorch
    saved_state = copy.deepcopy(optimizer.state_dict())  # what saving to a file does
    saved_weights = (w.detach().clone(), b.detach().clone())
    assert saved_state["param_groups"][0]["params"] == [0, 1] and saved_state["state"][0]["step"].item() == 3
    for _ in range(2):
        optimizer.zero_grad()
        loss().backward()
        optimizer.step()

    w2, b2, loss2, resumed = fresh()
    with al.no_grad():
        w2.copy_(saved_weights[0])
        b2.copy_(saved_weights[1])
    resumed.load_state_dict(saved_state)
    assert resumed.state[w2]["exp_avg"] is not saved_state["state"][0]["exp_avg"]  # a copy, not shared
    for _ in range(2):
        resumed.zero_grad()
        loss2().backward()
        resumed.step()
    assert w2.equal(w) and b2.equal(b)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        al.optim.Adam([{"params": [w]}, {"params": [b]}]).load_state_dict(saved_state)


def test_param_groups_and_add_param_group():
    w, b, _ = problem(al)
    optimizer = al.optim.SGD([w], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": b, "lr": 0.01})
    assert [g["lr"] for g in optimizer.param_groups] == [0.1, 0.01]
    assert optimizer.param_groups[1]["momentum"] == 0.9  # defaults fill what the group does not set
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optimizer.add_param_group({"params": [w]})
    assert repr(optimizer).startswith("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
                                      "    foreach: None\n    fused: None\n    lr: 0.1\n")
    w2, b2 = torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)
    theirs = torch.optim.SGD([w2], lr=0.1, momentum=0.9)
    theirs.add_param_group({"params": b2, "lr": 0.01})
    assert repr(optimizer) == repr(theirs)  # the same hyperparameters, PyTorch's layout


def test_optimizer_errors():
    w = nn.Parameter(al.zeros(2))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        al.optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        al.optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        al.optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        al.optim.Adam([])
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        al.optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        al.optim.SGD([w * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid alpha value: -0.5"):
        al.optim.RMSprop([w], alpha=-0.5)


def test_optimizer_trains_a_model_with_a_scheduler():
    """Linear regression recovered by SGD with momentum and a step schedule, checked against the true weights."""
    data_rng = np.random.default_rng(1)
    true_w = np.array([[2.0, -3.0, 0.5]])
    x = data_rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ true_w.T + 1.0).astype(np.float32)
    al.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = al.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = al.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)
    loss_fn = nn.MSELoss()
    for _ in range(150):
        optimizer.zero_grad()
        loss_fn(model(al.tensor(x)), al.tensor(y)).backward()
        optimizer.step()
        sched.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), true_w, atol=1e-3)
    np.testing.assert_allclose(model.bias.detach().numpy(), [1.0], atol=1e-3)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.0125)


def test_step_into_read_only_memory_says_what_to_do_as_add_does():
    frozen = np.ones(3)
    frozen.flags.writeable = False
    param = al.nn.Parameter(al.from_numpy(frozen))
    param.grad = al.ones(3, dtype=al.float64)
    for update in (lambda: al.optim.SGD([param], lr=0.1).step(), lambda: al.from_numpy(frozen).add_(1)):
        with pytest.raises(RuntimeError, match=r"add_: cannot write into this tensor of shape \(3,\).*read-only memory"):
            update()
    assert frozen.tolist() == [1.0, 1.0, 1.0]


def test_sgd_bumps_versions_as_torch():
    torch = pytest.importorskip("torch")
    w0 = np.random.default_rng(0).standard_normal((4, 3))
    ours = al.tensor(w0, requires_grad=True)
    theirs = torch.tensor(w0, requires_grad=True)
    opt_a = al.optim.SGD([ours], lr=0.1, momentum=0.9, weight_decay=0.01)
    opt_b = torch.optim.SGD([theirs], lr=0.1, momentum=0.9, weight_decay=0.01, foreach=False)
    for _ in range(3):
        for p, opt in ((ours, opt_a), (theirs, opt_b)):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
    assert ours._version == theirs._version
    assert opt_a.state[ours]["momentum_buffer"]._version == opt_b.state[theirs]["momentum_buffer"]._version
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


def test_sgd_refuses_inference_parameters_as_add_():
    with al.inference_mode():
        p = al.ones(2)
    p.requires_grad_(False)
    p.grad = al.ones(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        al.optim.SGD([p], lr=0.1).step()


@pytest.mark.parametrize("order", ["scheduler first", "optimizer first"])
def test_a_scheduler_stepped_before_its_optimizer_warns_as_in_torch(order):
    """PyTorch's warning for the common slip (the schedule then skips its first value); none in the right order."""
    import warnings

    caught = {}
    for lib in (al, torch):
        w = (al.nn.Parameter if lib is al else torch.nn.Parameter)(lib.zeros(2))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            opt = lib.optim.SGD([w], lr=0.1)
            scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=1)
            for _ in range(3):
                w.grad = lib.ones(2)
                if order == "scheduler first":
                    scheduler.step()
                    opt.step()
                else:
                    opt.step()
                    scheduler.step()
        caught[lib] = [str(x.message) for x in seen if "before `optimizer.step()`" in str(x.message)]
    assert caught[al] == caught[torch]
    assert len(caught[al]) == (1 if order == "scheduler first" else 0)
