"""``autograd_lab.utils``: as ``torch.utils``; ``utils.data`` is :mod:`autograd_lab.data`, ``utils.checkpoint``
trades compute for memory."""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
