"""Optimizers, as ``torch.optim``: ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``; schedules in ``lr_scheduler``."""

from __future__ import annotations

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
