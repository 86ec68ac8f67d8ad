"""``ReduceLROnPlateau`` and ``OneCycleLR`` against PyTorch's: the learning rates (and momenta) of every step,
for every mode and option, state_dict round trips that resume identically, and the errors."""

from __future__ import annotations

import math

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

# a validation loss that improves, stalls, wobbles, improves a little, then stalls for good
METRICS = [1.0, 0.8, 0.8, 0.81, 0.79995, 0.8, 0.7, 0.7, 0.71, 0.7, 0.69999, 0.75, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7,
           0.7, 0.7, 0.65, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]


def _optimizer(lib, name="SGD", groups=1, **kwargs):
    params = [{"params": [(al.nn.Parameter if lib is al else torch.nn.Parameter)(lib.zeros(2))],
               "lr": 0.1 * (i + 1)} for i in range(groups)]
    return getattr(lib.optim, name)(params, **{"lr": 0.1, **kwargs})


def _rates(lib, scheduler_name, scheduler_kwargs, metrics=None, steps=None, optimizer=("SGD", {}), groups=1):
    optimizer = _optimizer(lib, optimizer[0], groups, **optimizer[1])
    scheduler = getattr(lib.optim.lr_scheduler, scheduler_name)(optimizer, **scheduler_kwargs)
    history = []
    for k in range(len(metrics) if metrics else steps):
        optimizer.step()
        scheduler.step(metrics[k]) if metrics else scheduler.step()
        history.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in optimizer.param_groups])
        history.append(scheduler.get_last_lr())
    return history


def _same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):  # every rate, momentum and beta, step by step
        assert _flat(a) == pytest.approx(_flat(b), rel=1e-12, abs=1e-15)


def _flat(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat(v))
        elif v is not None:
            out.append(float(v))
    return out


PLATEAU = [dict(), dict(patience=2), dict(patience=0, factor=0.5), dict(mode="max", patience=1),
           dict(threshold_mode="abs", threshold=0.01, patience=1), dict(mode="max", threshold_mode="abs", patience=2),
           dict(cooldown=2, patience=1), dict(min_lr=0.02, patience=0, factor=0.5), dict(min_lr=[0.05, 0.001], patience=0),
           dict(eps=0.05, patience=0, factor=0.6), dict(threshold=0.2, patience=1)]


@pytest.mark.parametrize("kwargs", PLATEAU)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    groups = 2 if isinstance(kwargs.get("min_lr"), list) else 1
    metrics = METRICS if kwargs.get("mode") != "max" else [-m for m in METRICS]
    ours = _rates(al, "ReduceLROnPlateau", kwargs, metrics, groups=groups)
    theirs = _rates(torch, "ReduceLROnPlateau", kwargs, metrics, groups=groups)
    _same(ours, theirs)


def test_reduce_lr_on_plateau_takes_a_tensor_metric_and_resumes_from_its_state_dict():
    optimizer = _optimizer(al)
    scheduler = al.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1, cooldown=1)
    assert isinstance(scheduler, al.optim.lr_scheduler.LRScheduler)
    for m in METRICS[:8]:
        scheduler.step(al.tensor(m))
    state = scheduler.state_dict()
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(torch), patience=1, cooldown=1).state_dict()
    assert set(state) == set(theirs)
    resumed_optimizer = _optimizer(al)
    resumed_optimizer.param_groups[0]["lr"] = optimizer.param_groups[0]["lr"]
    resumed = al.optim.lr_scheduler.ReduceLROnPlateau(resumed_optimizer, mode="max")
    resumed.load_state_dict(state)
    assert resumed.mode == "min" and resumed.mode_worse == math.inf
    for m in METRICS[8:]:
        scheduler.step(m)
        resumed.step(m)
        assert resumed.get_last_lr() == scheduler.get_last_lr()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        scheduler.step(0.1, epoch=40)
    assert scheduler.last_epoch == 40


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_reduce_lr_on_plateau_errors(lib):
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        plateau(_optimizer(lib), factor=1.0)
    with pytest.raises(ValueError, match="mode middle is unknown!"):
        plateau(_optimizer(lib), mode="middle")
    with pytest.raises(ValueError, match="threshold mode pct is unknown!"):
        plateau(_optimizer(lib), threshold_mode="pct")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        plateau(_optimizer(lib), min_lr=[0.1, 0.2])
    optimizer = _optimizer(lib)
    scheduler = plateau(optimizer, min_lr=[0.0], patience=0)
    optimizer.add_param_group({"params": [(al.nn.Parameter if lib is al else torch.nn.Parameter)(lib.zeros(1))]})
    scheduler.step(1.0)
    with pytest.raises(RuntimeError, match=r"The number of param groups in the `optimizer` \(2\) differs"):
        scheduler.step(2.0)


ONE_CYCLE = [dict(max_lr=1.0, total_steps=20), dict(max_lr=0.5, total_steps=17, anneal_strategy="linear"),
             dict(max_lr=1.0, epochs=3, steps_per_epoch=7, pct_start=0.4), dict(max_lr=1.0, total_steps=30, three_phase=True),
             dict(max_lr=[1.0, 2.0], total_steps=12, div_factor=10.0, final_div_factor=100.0),
             dict(max_lr=1.0, total_steps=15, cycle_momentum=False),
             dict(max_lr=1.0, total_steps=16, base_momentum=0.8, max_momentum=0.9, three_phase=True,
                  anneal_strategy="linear")]
OPTIMIZERS = [("SGD", {"momentum": 0.9}), ("SGD", {}), ("Adam", {}), ("AdamW", {"betas": (0.8, 0.99)}),
              ("RMSprop", {"momentum": 0.5})]


@pytest.mark.parametrize("optimizer", OPTIMIZERS, ids=[o[0] + str(o[1]) for o in OPTIMIZERS])
@pytest.mark.parametrize("kwargs", ONE_CYCLE)
def test_one_cycle_matches_torch(kwargs, optimizer):
    groups = 2 if isinstance(kwargs["max_lr"], list) else 1
    total = kwargs.get("total_steps") or kwargs["epochs"] * kwargs["steps_per_epoch"]
    ours = _rates(al, "OneCycleLR", kwargs, steps=total, optimizer=optimizer, groups=groups)
    theirs = _rates(torch, "OneCycleLR", kwargs, steps=total, optimizer=optimizer, groups=groups)
    _same(ours, theirs)


def test_one_cycle_peaks_and_resumes():
    optimizer = _optimizer(al, momentum=0.9)
    scheduler = al.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=10)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1.0 / 25) and optimizer.param_groups[0]["momentum"] == 0.95
    seen = []
    for _ in range(5):
        optimizer.step()
        scheduler.step()
        seen.append(optimizer.param_groups[0]["lr"])
    assert max(seen) == pytest.approx(1.0)
    resumed_optimizer = _optimizer(al, momentum=0.9)
    resumed_optimizer.load_state_dict(optimizer.state_dict())
    resumed = al.optim.lr_scheduler.OneCycleLR(resumed_optimizer, max_lr=1.0, total_steps=10, last_epoch=4)
    resumed.load_state_dict(scheduler.state_dict())
    for _ in range(4):
        scheduler.step()
        resumed.step()
        assert resumed.get_last_lr() == scheduler.get_last_lr()
    assert scheduler.last_epoch == 9 and scheduler.get_last_lr()[0] == pytest.approx(1.0 / 25 / 1e4)  # the last step


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_one_cycle_errors(lib):
    one_cycle = lib.optim.lr_scheduler.OneCycleLR
    for kwargs, message in ((dict(), "You must define either total_steps OR \\(epochs AND steps_per_epoch\\)"),
                            (dict(total_steps=0), "Expected positive integer total_steps, but got 0"),
                            (dict(epochs=2, steps_per_epoch=0), "Expected positive integer steps_per_epoch, but got 0"),
                            (dict(total_steps=5, pct_start=1), "Expected float between 0 and 1 pct_start, but got 1"),
                            (dict(total_steps=5, anneal_strategy="step"), "anneal_strategy must be one of 'cos' or "
                                                                          "'linear', instead got step"),
                            (dict(total_steps=5, max_lr=[1.0, 2.0]), "max_lr must have the same length as "
                                                                     "optimizer.param_groups")):
        with pytest.raises(ValueError, match=message):
            one_cycle(_optimizer(lib), **{"max_lr": 1.0, **kwargs})
    optimizer = _optimizer(lib)
    scheduler = one_cycle(optimizer, max_lr=1.0, total_steps=2)
    optimizer.step()
    scheduler.step()
    scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        scheduler.step()
