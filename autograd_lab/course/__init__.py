"""The course's exercise checkers, and the pieces to write your own.

A notebook calls ``from autograd_lab.course import check; check.ex_01_1(answer)``: each notebook's checkers live in
their own module (``ex00.py`` for ``00_*.ipynb``, ``ex01.py``...), named ``ex_<notebook>_<n>``; :mod:`.check` finds
them by name, so a new notebook only adds a module. Every checker returns a :class:`Feedback` whose text says what is
right or which elements are wrong.

A teacher's own checkers (in their own package, see the docs' guide for teachers) are built from the same pieces:
:func:`compare_arrays` (element by element, naming the wrong elements and common slips), :func:`call_learner` (a
learner's exception becomes feedback), :func:`is_placeholder` / :func:`not_answered` (the ``...`` still to replace),
:func:`passed` and :func:`failed`. ``python -m autograd_lab.course.store`` stores a lesson notebook's outputs
(:mod:`.store`).

The checkers speak English unless told otherwise: ``set_language("zh")`` (here, or as ``al.course.set_language``)
switches their feedback, and the lab's drawings, to Chinese (:mod:`autograd_lab.i18n`).
"""

from __future__ import annotations

from ..i18n import get_language, set_language
from . import check
from ._feedback import (
    Feedback,
    as_array,
    as_number,
    call_learner,
    compare_arrays,
    failed,
    is_placeholder,
    not_answered,
    passed,
)

__all__ = ["check", "Feedback", "passed", "failed", "not_answered", "is_placeholder", "as_array", "as_number",
           "compare_arrays", "call_learner", "set_language", "get_language"]
