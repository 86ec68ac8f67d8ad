"""Schedulers against PyTorch 2.13 when the learning rates are tensors (``lr=al.tensor(0.1)``): the groups keep
their own tensors, filled in place, while ``get_last_lr()`` and ``base_lrs`` are copies; and the warning for
a scheduler stepped before its optimizer, judged from when the optimizer's first scheduler was made."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

SCHEDULES = {
    "StepLR": lambda S, opt: S.StepLR(opt, step_size=2, gamma=0.5),
    "CosineAnnealingLR": lambda S, opt: S.CosineAnnealingLR(opt, T_max=4, eta_min=0.01),
    "WarmRestarts": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2),
    "LinearLR": lambda S, opt: S.LinearLR(opt, start_factor=0.25, total_iters=3),
    "OneCycleLR": lambda S, opt: S.OneCycleLR(opt, max_lr=1.0, total_steps=8),
    "CyclicLR": lambda S, opt: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2),
    "ReduceLROnPlateau": lambda S, opt: S.ReduceLROnPlateau(opt, patience=0, factor=0.5),
    "SequentialLR": lambda S, opt: S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=2),
                                                        S.ExponentialLR(opt, gamma=0.9)], milestones=[2]),
}


@pytest.mark.parametrize("key", list(SCHEDULES))
def test_tensor_learning_rates_are_filled_in_place(key):
    seen = {}
    for T in (al, torch):
        lr = T.tensor(0.1)
        opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=lr, momentum=0.9)
        scheduler = SCHEDULES[key](T.optim.lr_scheduler, opt)
        values = []
        for _ in range(7):
            opt.step()
            scheduler.step(1.0) if key == "ReduceLROnPlateau" else scheduler.step()
            last = scheduler.get_last_lr()[0]
            assert isinstance(last, T.Tensor) and last is not lr
            values.append([float(lr), float(last)])
        assert opt.param_groups[0]["lr"] is lr  # the group's own tensor, filled in place
        seen[T] = values
    np.testing.assert_allclose(seen[al], seen[torch], rtol=1e-7)


def test_base_lrs_are_copies_of_tensor_rates():
    for T in (al, torch):
        opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=T.tensor(0.1))
        scheduler = T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step()
        scheduler.step()
        assert float(scheduler.base_lrs[0]) == float(opt.param_groups[0]["initial_lr"]) == pytest.approx(0.1)


def test_the_step_order_warning_counts_from_the_first_scheduler():
    """An optimizer step after the first scheduler was made counts for a second one made later (no warning)."""
    for T in (al, torch):
        opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=0.1)
        T.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        later = T.optim.lr_scheduler.ExponentialLR(opt, 0.9)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            later.step()
        assert "_optimizer_steps_at_start" not in later.state_dict()
