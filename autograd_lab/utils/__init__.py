"""``autograd_lab.utils``: as ``torch.utils``; ``utils.data`` is :mod:`autograd_lab.data`."""

from __future__ import annotations

from . import data

__all__ = ["data"]
