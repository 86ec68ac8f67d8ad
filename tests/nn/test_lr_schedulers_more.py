"""LinearLR, ConstantLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts (fractional epochs too),
CyclicLR (every mode, momentum and beta1 cycled), SequentialLR and ChainedScheduler against PyTorch's: the
rates (and momenta) of 60 steps over two param groups, state_dicts that resume and load across the two
libraries, the warning for a scheduler stepped before its optimizer, and the errors."""

from __future__ import annotations

import math
import re
import warnings

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

STEPS = 60


def _optimizer(lib, name="SGD"):
    params = [{"params": [lib.zeros(2, requires_grad=True)], "lr": 0.1},
              {"params": [lib.zeros(3, requires_grad=True)], "lr": 0.25}]
    return getattr(lib.optim, name)(params, **({"momentum": 0.9} if name == "SGD" else {}))


def _warm_cosine(S, opt):
    return S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=5), S.CosineAnnealingLR(opt, T_max=20)],
                          milestones=[5])


SCHEDULES = {
    "LinearLR": lambda S, opt: S.LinearLR(opt, start_factor=0.25, total_iters=8),
    "LinearLR-down": lambda S, opt: S.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=30),
    "LinearLR-default": lambda S, opt: S.LinearLR(opt),
    "ConstantLR": lambda S, opt: S.ConstantLR(opt, factor=0.5, total_iters=7),
    "MultiplicativeLR": lambda S, opt: S.MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.95),
    "MultiplicativeLR-per-group": lambda S, opt: S.MultiplicativeLR(opt, [lambda e: 0.9, lambda e: 1 - e / 200]),
    "PolynomialLR": lambda S, opt: S.PolynomialLR(opt, total_iters=40, power=2.0),
    "PolynomialLR-default": lambda S, opt: S.PolynomialLR(opt),
    "WarmRestarts": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, T_0=7),
    "WarmRestarts-Tmult": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001),
    "CyclicLR": lambda S, opt: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=5),
    "CyclicLR-triangular2": lambda S, opt: S.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=4,
                                                      step_size_down=7, mode="triangular2"),
    "CyclicLR-exp_range": lambda S, opt: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=6, mode="exp_range",
                                                    gamma=0.97),
    "CyclicLR-scale_fn": lambda S, opt: S.CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_mode="iterations",
                                                   scale_fn=lambda x: 0.5 * (1 + math.sin(x)), base_momentum=0.5,
                                                   max_momentum=0.95),
    "CyclicLR-no-momentum": lambda S, opt: S.CyclicLR(opt, 0.01, 0.1, step_size_up=3, cycle_momentum=False),
    "SequentialLR": _warm_cosine,
    "SequentialLR-three": lambda S, opt: S.SequentialLR(
        opt, [S.ConstantLR(opt, factor=0.2, total_iters=10), S.ExponentialLR(opt, gamma=0.9),
              S.MultiStepLR(opt, milestones=[5, 12], gamma=0.5)], milestones=[10, 30]),
    "SequentialLR-nested": lambda S, opt: S.SequentialLR(
        opt, [_warm_cosine(S, opt), S.StepLR(opt, step_size=4, gamma=0.7)], milestones=[25]),
    "ChainedScheduler": lambda S, opt: S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=4),
                                                           S.ExponentialLR(opt, gamma=0.95)]),
    "ChainedScheduler-warm-cyclic": lambda S, opt: S.ChainedScheduler(
        [S.CyclicLR(opt, base_lr=0.05, max_lr=0.2, step_size_up=5), S.LinearLR(opt, start_factor=0.5)], optimizer=opt),
}


def _rates(lib, make, steps=STEPS, optimizer="SGD", scheduler=None):
    """The rates, momenta and betas of each step, and ``get_last_lr()``."""
    opt = _optimizer(lib, optimizer) if scheduler is None else scheduler.optimizer
    scheduler = scheduler or make(lib.optim.lr_scheduler, opt)
    history = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        history.append(_flat([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]))
        history.append(_flat(scheduler.get_last_lr()))
    return history, scheduler


def _flat(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat(v))
        elif v is not None:
            out.append(float(v))
    return out


def _same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)


# (a SequentialLR inside a SequentialLR restarts its first scheduler, whose next step then comes before any
# optimizer step: PyTorch warns there too)
NESTED_WARNS = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")


@NESTED_WARNS
@pytest.mark.parametrize("key", SCHEDULES)
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_rates_match_torch(key, optimizer):
    ours, theirs = _rates(al, SCHEDULES[key], optimizer=optimizer)[0], _rates(torch, SCHEDULES[key],
                                                                            optimizer=optimizer)[0]
    _same(ours, theirs)
    assert len({step[0] for step in ours}) > 1  # the rates moved


@NESTED_WARNS
@pytest.mark.parametrize("key", SCHEDULES)
def test_state_dict_resumes_and_loads_across_the_libraries(key):
    """After 20 steps, a new optimizer and scheduler given the saved states (ours, or torch's) follow the next 40
    steps of the run; the state_dicts hold the same names as torch's (but for bookkeeping of our own)."""
    make = SCHEDULES[key]
    whole = _rates(torch, make)[0]
    for source in (al, torch):
        _, first = _rates(source, make, steps=20)
        saved = (first.optimizer.state_dict()["param_groups"], first.state_dict())
        for target in (al, torch):
            opt = _optimizer(target)
            scheduler = make(target.optim.lr_scheduler, opt)
            for group, saved_group in zip(opt.param_groups, saved[0]):
                group.update({k: v for k, v in saved_group.items() if k != "params"})
            scheduler.load_state_dict(saved[1])
            _same(_rates(target, make, steps=STEPS - 20, scheduler=scheduler)[0], whole[40:])
    ours, theirs = _rates(al, make, steps=3)[1].state_dict(), _rates(torch, make, steps=3)[1].state_dict()
    assert set(theirs) <= set(ours)


def test_warm_restarts_take_fractional_epochs():
    """Stepped once per batch, ``scheduler.step(epoch + i / batches)``: the same rates as torch, with no
    deprecation warning; a restart at each period's end."""
    seen = {}
    for lib in (al, torch):
        for T_mult in (1, 2):
            opt = _optimizer(lib)
            scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=T_mult, eta_min=0.01)
            rates = []
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for epoch in range(20):
                    for i in range(5):
                        opt.step()
                        scheduler.step(epoch + i / 5)
                        rates.append(scheduler.get_last_lr() + [scheduler.T_cur, scheduler.T_i, scheduler.last_epoch])
            seen[lib, T_mult] = rates
    for T_mult in (1, 2):
        _same(seen[al, T_mult], seen[torch, T_mult])
    assert seen[al, 1][15][:2] == [0.1, 0.25]  # epoch 3: the first restart
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        scheduler.step(-1)


def test_epoch_argument_uses_the_closed_form_as_torch():
    rates = {}
    for lib in (al, torch):
        S, opt = lib.optim.lr_scheduler, _optimizer(lib)
        schedulers = [S.LinearLR(opt, start_factor=0.2, total_iters=10), S.ConstantLR(opt, total_iters=4),
                      S.PolynomialLR(opt, total_iters=12, power=0.5)]
        rates[lib] = []
        for scheduler in schedulers:
            for epoch in (3, 7, 15, 2):
                opt.step()
                with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
                    scheduler.step(epoch)
                rates[lib].append(scheduler.get_last_lr())
    _same(rates[al], rates[torch])


@pytest.mark.parametrize("key", ["LinearLR", "ConstantLR", "MultiplicativeLR", "PolynomialLR", "WarmRestarts",
                                 "CyclicLR", "SequentialLR", "ChainedScheduler"])
@pytest.mark.parametrize("order", ["scheduler first", "optimizer first"])
def test_a_scheduler_stepped_before_its_optimizer_warns_as_torch(key, order):
    caught = {}
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            opt = _optimizer(lib)
            scheduler = SCHEDULES[key](lib.optim.lr_scheduler, opt)
            for _ in range(3):
                if order == "scheduler first":
                    scheduler.step()
                opt.step()
                if order == "optimizer first":
                    scheduler.step()
        caught[lib] = [str(w.message) for w in seen if "before `optimizer.step()`" in str(w.message)]
    assert caught[al] == caught[torch]
    assert len(caught[al]) == (0 if order == "optimizer first" or key == "WarmRestarts" else len(caught[torch]))


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_scheduler_errors(lib):
    S, opt = lib.optim.lr_scheduler, _optimizer(lib)
    for make, error, message in (
            (lambda: S.LinearLR(opt, start_factor=0), ValueError,
             "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
            (lambda: S.LinearLR(opt, end_factor=1.5), ValueError,
             "Ending multiplicative factor expected to be between 0 and 1."),
            (lambda: S.ConstantLR(opt, factor=2), ValueError, "Constant multiplicative factor expected to be between 0 "
                                                              "and 1."),
            (lambda: S.MultiplicativeLR(opt, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
            (lambda: S.MultiplicativeLR(opt, 0.9), TypeError, "lr_lambda should be a function, but got float"),
            (lambda: S.CosineAnnealingWarmRestarts(opt, T_0=0), ValueError, "Expected positive integer T_0, but got 0"),
            (lambda: S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5), ValueError,
             "Expected integer T_mult >= 1, but got 1.5"),
            (lambda: S.CyclicLR(opt, 0.01, 0.1, mode="sawtooth"), ValueError, "mode is invalid and scale_fn is None"),
            (lambda: S.CyclicLR(opt, [0.01], 0.1), ValueError, "base_lr must have the same length as "
                                                               "optimizer.param_groups"),
            (lambda: S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.01, 0.1), ValueError,
             "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
            (lambda: S.SequentialLR(opt, [S.ConstantLR(opt), S.ExponentialLR(opt, 0.9)], milestones=[]), ValueError,
             "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
             "milestone points, but got number of schedulers 2 and the number of milestones to be equal to 0"),
            (lambda: S.SequentialLR(opt, [], milestones=[]), ValueError,
             "SequentialLR expects at least one scheduler, but got no scheduler."),
            (lambda: S.SequentialLR(opt, [S.ConstantLR(_optimizer(lib))], milestones=[]), ValueError,
             "SequentialLR expects all schedulers to belong to the same optimizer"),
            (lambda: S.ChainedScheduler([S.ReduceLROnPlateau(opt)]), ValueError,
             "ChainedScheduler does not support `ReduceLROnPlateau` scheduler"),
            (lambda: S.ChainedScheduler([]), ValueError,
             "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
            (lambda: S.StepLR(lib.optim.SGD([lib.zeros(1, requires_grad=True)]), 2, last_epoch=3), KeyError,
             "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0.")):
        with pytest.raises(error, match=re.escape(message)):
            make()


RESUMABLE = {
    "ExponentialLR": lambda S, opt, last: S.ExponentialLR(opt, gamma=0.9, last_epoch=last),
    "CosineAnnealingLR": lambda S, opt, last: S.CosineAnnealingLR(opt, T_max=12, last_epoch=last),
    "MultiplicativeLR": lambda S, opt, last: S.MultiplicativeLR(opt, lambda e: 0.97, last_epoch=last),
    "PolynomialLR": lambda S, opt, last: S.PolynomialLR(opt, total_iters=20, power=1.5, last_epoch=last),
    "LinearLR": lambda S, opt, last: S.LinearLR(opt, start_factor=0.2, total_iters=15, last_epoch=last),
    "WarmRestarts": lambda S, opt, last: S.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2, last_epoch=last),
    "CyclicLR": lambda S, opt, last: S.CyclicLR(opt, 0.01, 0.1, step_size_up=4, last_epoch=last),
}


@pytest.mark.parametrize("key", RESUMABLE)
def test_resuming_with_last_epoch_matches_torch(key):
    """The PyTorch way of resuming: the optimizer's groups restored (with ``initial_lr``), then the scheduler
    built with ``last_epoch``; its constructor's step keeps the rates it finds, as torch 2.13's."""
    rates = {}
    for lib in (al, torch):
        opt = _optimizer(lib)
        scheduler = RESUMABLE[key](lib.optim.lr_scheduler, opt, -1)
        for _ in range(10):
            opt.step()
            scheduler.step()
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.state_dict()["param_groups"]]
        resumed_opt = _optimizer(lib)
        for group, saved in zip(resumed_opt.param_groups, groups):
            group.update(saved)
        resumed = RESUMABLE[key](lib.optim.lr_scheduler, resumed_opt, 9)
        rates[lib] = [_flat(resumed.get_last_lr())] + _rates(lib, None, steps=15, scheduler=resumed)[0]
    _same(rates[al], rates[torch])


@pytest.mark.parametrize("key", ["LinearLR", "MultiplicativeLR", "WarmRestarts", "CyclicLR", "PolynomialLR"])
def test_get_lr_by_hand_warns_as_torch(key):
    """``get_lr()`` outside ``step()`` computes a further step from the current rates: PyTorch's warning points
    to ``get_last_lr()``. ``step()`` itself does not warn."""
    for lib in (al, torch):
        opt = _optimizer(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            scheduler = SCHEDULES[key](lib.optim.lr_scheduler, opt)
            opt.step()
            scheduler.step()
        with pytest.warns(UserWarning, match="To get the last learning rate computed by the scheduler, please use "
                                             "`get_last_lr\\(\\)`."):
            scheduler.get_lr()
