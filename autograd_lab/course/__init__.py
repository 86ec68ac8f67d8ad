"""The course's exercise checkers: ``from autograd_lab.course import check; check.ex_01_1(answer)``.

Each notebook's checkers live in their own module (``ex00.py`` for ``00_*.ipynb``, ``ex01.py``...), named
``ex_<notebook>_<n>``; :mod:`.check` finds them by name, so a new notebook only adds a module.
Every checker returns a :class:`~._feedback.Feedback` whose text says what is right or which elements are wrong.
"""

from __future__ import annotations

from . import check
from ._feedback import Feedback

__all__ = ["check", "Feedback"]
