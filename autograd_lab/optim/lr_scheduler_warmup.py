"""Schedules over a fixed number of epochs, then flat: ``LinearLR`` and ``ConstantLR`` (warm-ups, or a linear
decay) and ``PolynomialLR`` (a decay to 0). Reached as ``al.optim.lr_scheduler.<name>``."""

from __future__ import annotations

from .lr_scheduler import LRScheduler, _warn_if_outside_step
from .optimizer import Optimizer

__all__ = ["LinearLR", "ConstantLR", "PolynomialLR"]


class LinearLR(LRScheduler):
    """Warm up (or down) linearly: the rate goes from ``start_factor * base_lr`` to ``end_factor * base_lr`` over
    ``total_iters`` epochs, then stays."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        start, end, t = self.start_factor, self.end_factor, self.last_epoch
        if t == 0:
            return [lr * start for lr in self._group_lrs()]
        if self._is_initial or t > self.total_iters:
            return self._group_lrs()
        # the ratio of this epoch's factor to the last one's
        ratio = 1.0 + (end - start) / (self.total_iters * start + (t - 1) * (end - start))
        return [lr * ratio for lr in self._group_lrs()]

    def _closed_form(self) -> list[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the learning rate by ``factor`` for the first ``total_iters`` epochs, then give it back."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._group_lrs()]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [lr * (1.0 / self.factor) for lr in self._group_lrs()]

    def _closed_form(self) -> list[float]:
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to 0 over ``total_iters`` epochs along ``base_lr * (1 - epoch / total_iters) ** power``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t, total = self.last_epoch, self.total_iters
        if self._is_initial or t > total:
            return self._group_lrs()
        ratio = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power
        return [lr * ratio for lr in self._group_lrs()]

    def _closed_form(self) -> list[float]:
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]
