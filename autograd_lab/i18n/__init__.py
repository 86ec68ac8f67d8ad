"""What the course and the lab say to a learner, in one message catalogue per language: English (the default) and
Chinese.

Everything a learner reads from the checkers (``autograd_lab.course``) and from the lab's drawings, captions, legend,
details panel and widget buttons (``autograd_lab.lab``) is a keyed message here, formatted with named fields::

    msg("feedback.shape", name="x.grad", got=(2,), expected=(3,))
    # 'x.grad has shape (2,) but should have shape (3,).'        (English)
    # 'x.grad 的形状是 (2,)，应为 (3,)。'                           (Chinese)

**The switch.** One setting, shared by the course and the lab: ``al.course.set_language("zh")`` (the same function
is ``al.lab.set_language`` and ``autograd_lab.i18n.set_language``). A Chinese notebook calls it in its first code
cell. Without a call, the environment variable ``AUTOGRAD_LAB_LANG`` (``en`` or ``zh``) decides, so that a class,
a CI job or a script can pick the language without editing notebooks; with neither, English. Only this variable is
read, never the system locale: the English notebooks' stored outputs must stay English on any machine.

What stays English in every language: the library's error messages (they are PyTorch's phrases, which learners search
for), code names (``requires_grad``, ``AccumulateGrad``...), numbers and values.

**The catalogue.** ``autograd_lab/i18n/<language>/<part>.py``, each a ``MESSAGES`` dict from key to template; the
parts are listed in :data:`PARTS`. Keys are namespaced by who says them (``feedback.*``, ``ex07.*``, ``exb3.*``,
``lab.*``, ``widget.*``). A key ending in ``.one`` / ``.other`` is a pair chosen by a count (:func:`msg_n`).

A language's ``__init__.py`` may define ``polish(text) -> text``, applied to each message's own words and at each
place where a filled-in value meets them: Chinese uses it to put a space between Chinese characters and the code names
or numbers filled into its templates. The values themselves (a learner's variable names, above all) are never
changed. ``polish`` must decide from adjacent characters only (a space between two characters, or none).

**Adding a language** (say French, ``fr``): copy ``autograd_lab/i18n/en/`` to ``autograd_lab/i18n/fr/``, translate
every template keeping its ``{fields}`` exactly, and add ``"fr"`` to :data:`LANGUAGES`.
``tests/course/test_i18n.py`` checks that every key exists in every language with the same fields, and that the code
uses no key the catalogue lacks.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import string
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping

__all__ = ["LANGUAGES", "PARTS", "ENV_VAR", "set_language", "get_language", "language", "msg", "msg_n", "join",
           "catalogue", "fields", "Catalogued"]

LANGUAGES = ("en", "zh")  # the first is the default
PARTS = ("feedback", "lessons", "lessons_late", "build_it", "lab")  # the files of each language's catalogue
ENV_VAR = "AUTOGRAD_LAB_LANG"

_chosen: list[str] = []  # what set_language chose (empty: not called; the environment variable or English decides)
_loaded: dict[str, dict[str, str]] = {}
_polish: dict[str, Callable[[str], str]] = {}
_warned: set[str] = set()


def _normalize(value: str) -> str | None:
    """``"zh"``, ``"zh_CN"``, ``"zh-Hans"``, ``"ZH"`` -> ``"zh"``; None for a language not in the catalogue."""
    code = str(value).strip().replace("-", "_").split("_")[0].split(".")[0].lower()
    return code if code in LANGUAGES else None


def set_language(lang: str) -> None:
    """Make the checkers' feedback and the lab speak ``lang`` (``"en"`` or ``"zh"``) from now on, in this process.

    Output already shown keeps its language; drawings made before the call keep theirs until they redraw.
    """
    code = _normalize(lang)
    if code is None:
        raise ValueError(f"unknown language {lang!r}: autograd_lab speaks {', '.join(LANGUAGES)}")
    _chosen[:] = [code]


def get_language() -> str:
    """The language in use: set_language's, else ``AUTOGRAD_LAB_LANG``'s, else English."""
    if _chosen:
        return _chosen[0]
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return LANGUAGES[0]
    code = _normalize(value)
    if code is None:
        if value not in _warned:
            _warned.add(value)
            warnings.warn(f"{ENV_VAR}={value!r} is not a language autograd_lab speaks ({', '.join(LANGUAGES)}): "
                          "using English", stacklevel=2)
        return LANGUAGES[0]
    return code


@contextlib.contextmanager
def language(lang: str) -> Iterator[None]:
    """``with language("zh"): ...``: speak ``lang`` inside the block, then whatever was in use before."""
    before = list(_chosen)
    set_language(lang)
    try:
        yield
    finally:
        _chosen[:] = before


def catalogue(lang: str | None = None) -> dict[str, str]:
    """All the templates of ``lang`` (default: the language in use), loaded once, by key."""
    code = _normalize(lang) if lang is not None else get_language()
    if code is None:
        raise ValueError(f"unknown language {lang!r}: autograd_lab speaks {', '.join(LANGUAGES)}")
    if code not in _loaded:
        merged: dict[str, str] = {}
        for part in PARTS:
            module = importlib.import_module(f"{__name__}.{code}.{part}")
            twice = sorted(set(merged) & set(module.MESSAGES))
            if twice:
                raise RuntimeError(f"autograd_lab.i18n.{code}: keys defined twice: {twice}")
            merged.update(module.MESSAGES)
        _polish[code] = getattr(importlib.import_module(f"{__name__}.{code}"), "polish", str)
        _loaded[code] = merged
    return _loaded[code]


def msg(key: str, /, **values) -> str:
    """The message ``key`` in the language in use, its ``{fields}`` filled from ``values``.

    A key the language lacks falls back to English (the tests keep the shipped languages complete)."""
    code = get_language()
    template = catalogue(code).get(key)
    if template is None:
        template = catalogue(LANGUAGES[0])[key]  # KeyError: a key no catalogue has is a bug in the caller
    return _filled(template, values, _polish[code])


_FORMATTER = string.Formatter()


def _filled(template: str, values: Mapping, polish: Callable[[str], str]) -> str:
    """``template.format(**values)`` with ``polish`` applied to the template's words and where they meet a value,
    never inside a value: a name such as ``权重w`` is shown as the learner wrote it."""
    if polish is str:
        return template.format(**values)
    text = ""
    for literal, name, spec, conversion in _FORMATTER.parse(template):
        text = _joined(text, polish(literal), polish)
        if name is not None:
            value = _FORMATTER.convert_field(_FORMATTER.get_field(name, (), values)[0], conversion)
            text = _joined(text, _FORMATTER.format_field(value, spec or ""), polish)
    return text


def _joined(left: str, right: str, polish: Callable[[str], str]) -> str:
    """``left + right``, with the space ``polish`` puts between the two characters where they meet."""
    if left and right and polish(left[-1] + right[0]) != left[-1] + right[0]:
        return f"{left} {right}"
    return left + right


def msg_n(key: str, count: int, /, **values) -> str:
    """``key.one`` when ``count`` is 1, else ``key.other`` (Chinese writes both alike); ``{count}`` is filled in."""
    return msg(f"{key}.{'one' if count == 1 else 'other'}", count=count, **values)


def join(items: Iterable) -> str:
    """Items listed in a sentence: ``a, b, c`` in English, ``a、b、c`` in Chinese."""
    return msg("list.separator").join(str(item) for item in items)


def fields(template: str) -> set[tuple[str, str]]:
    """The ``(name, format spec)`` of each replacement field of ``template``: what every language must keep."""
    return {(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name is not None}


class Catalogued(Mapping):
    """A read-only dict whose values are messages, read in the language in use at each lookup.

    ``SCENARIOS = Catalogued("ex02.scenario", "abcde")`` behaves like ``{"a": msg("ex02.scenario.a"), ...}``, so a
    notebook's ``for key, text in SCENARIOS.items()`` prints the scenarios in the learner's language.
    """

    def __init__(self, prefix: str, keys: Iterable[str]) -> None:
        self.prefix = prefix
        self._keys = tuple(keys)

    def __getitem__(self, key: str) -> str:
        if key not in self._keys:
            raise KeyError(key)
        return msg(f"{self.prefix}.{key}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def keys_in_catalogue(self) -> list[str]:
        """The catalogue keys this mapping reads (for the test that every key exists)."""
        return [f"{self.prefix}.{key}" for key in self._keys]

    def __repr__(self) -> str:
        return repr(dict(self.items()))
