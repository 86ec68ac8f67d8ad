"""Schedulers made of schedulers: ``SequentialLR`` hands over from one to the next at given epochs (a warm-up
then a decay), ``ChainedScheduler`` steps several at once, their factors multiplying. Both are reached as
``al.optim.lr_scheduler.<name>``."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from .lr_scheduler import LRScheduler, ReduceLROnPlateau, _set_group_value
from .optimizer import Optimizer

__all__ = ["SequentialLR", "ChainedScheduler"]


class SequentialLR(LRScheduler):
    """``schedulers[0]`` until epoch ``milestones[0]``, then ``schedulers[1]`` (started afresh, its epoch 0)
    until ``milestones[1]``, and so on. Build the schedulers on the same optimizer first; constructing them
    stepped each once, so this undoes those steps and starts the first again from the initial rates."""

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        _check_parts(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        """Take back the step each scheduler (and each scheduler inside a SequentialLR) took when made."""
        scheduler = self if sched is None else sched
        if hasattr(scheduler, "_schedulers"):
            for part in scheduler._schedulers:
                self.recursive_undo(part)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:
        """One epoch of the scheduler whose turn it is (at a milestone: that scheduler's epoch 0)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        return _state_with_parts(self)

    def load_state_dict(self, state_dict: dict) -> None:
        _load_with_parts(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step every scheduler in ``schedulers`` at each ``step()``: their changes compound (e.g. a ``ConstantLR``
    warm-up with an ``ExponentialLR`` decay)."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_parts(self, optimizer, schedulers, empty_checked=True)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = self._group_lrs()

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._group_lrs()

    def state_dict(self) -> dict:
        return _state_with_parts(self)

    def load_state_dict(self, state_dict: dict) -> None:
        _load_with_parts(self, state_dict)


def _check_parts(owner: LRScheduler, optimizer, schedulers, empty_checked: bool = False) -> None:
    """PyTorch's checks of the schedulers a SequentialLR or ChainedScheduler is made of."""
    name = type(owner).__name__
    if not empty_checked and len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             "kwargs to be specified when calling `step`, but got one at index "
                             f"{i} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(scheduler).__name__} at index {i} has {scheduler.optimizer}, which is different "
                             f"from {type(optimizer).__name__}.")


def _state_with_parts(owner: LRScheduler) -> dict:
    """The owner's attributes but the optimizer, with each part's own ``state_dict()`` under ``_schedulers``."""
    state = {k: v for k, v in owner.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [part.state_dict() for part in owner._schedulers]
    return state


def _load_with_parts(owner: LRScheduler, state_dict: dict) -> None:
    state_dict = dict(state_dict)
    parts = state_dict.pop("_schedulers")
    owner.__dict__.update(state_dict)
    for part, saved in zip(owner._schedulers, parts):
        part.load_state_dict(saved)
