"""The message catalogue (autograd_lab.i18n): every key in every language with the same fields, no key used by the
code that the catalogue lacks, one switch (set_language, else AUTOGRAD_LAB_LANG, else English), and Chinese spacing
that never touches a filled-in value."""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
import re
import warnings

import pytest

import autograd_lab as al
from autograd_lab import i18n
from autograd_lab.i18n import Catalogued, catalogue, fields, msg, msg_n

PACKAGE = pathlib.Path(al.__file__).parent
ENGLISH, *OTHERS = i18n.LANGUAGES
LITERAL_KEY = re.compile(r"""\bmsg(_n)?\(\s*["']([\w.]+)["']""")  # msg("key", ...) and msg_n("key", count, ...)
BUILT_KEY = re.compile(r"""\bmsg(?:_n)?\(\s*f["']([\w.]+)\.\{""")  # msg(f"lab.legend.{key}"): a prefix


def _sources() -> dict[str, str]:
    return {str(path.relative_to(PACKAGE)): path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")
            if "i18n" not in path.parts}


@pytest.mark.parametrize("lang", OTHERS)
def test_every_key_in_every_language_with_the_same_fields(lang):
    english, other = catalogue(ENGLISH), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"keys missing in {lang}"
    assert sorted(set(other) - set(english)) == [], f"keys only in {lang}"
    differ = {key: (fields(english[key]), fields(other[key])) for key in english
              if fields(english[key]) != fields(other[key])}
    assert differ == {}


def test_every_count_pair_is_whole():
    keys = set(catalogue(ENGLISH))
    stems = {key.rsplit(".", 1)[0] for key in keys if key.endswith((".one", ".other"))}
    assert [stem for stem in stems if not {f"{stem}.one", f"{stem}.other"} <= keys] == []


def test_the_code_uses_no_key_the_catalogue_lacks():
    keys = set(catalogue(ENGLISH))
    missing, prefixes = [], set()
    for name, text in _sources().items():
        for counted, key in LITERAL_KEY.findall(text):
            wanted = [f"{key}.one", f"{key}.other"] if counted else [key]
            missing += [f"{name}: {k}" for k in wanted if k not in keys]
        prefixes |= {(name, prefix) for prefix in BUILT_KEY.findall(text)}
    missing += [f"{name}: {prefix}.*" for name, prefix in prefixes if not any(k.startswith(prefix + ".") for k in keys)]
    assert missing == []


def test_keys_built_at_run_time_exist():
    from autograd_lab.lab.scene import LEGEND

    keys = set(catalogue(ENGLISH))
    built = [f"lab.legend.{key}" for key in LEGEND]
    built += [f"lab.step.fired.{kind}" for kind in ("tensor", "prehook", "hook", "post_accumulate")]  # the engine's
    for info in pkgutil.iter_modules(al.course.__path__):
        module = importlib.import_module(f"autograd_lab.course.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Catalogued):
                built += value.keys_in_catalogue()
    assert [key for key in built if key not in keys] == []


def test_set_language_then_the_environment_then_english(monkeypatch):
    with i18n.language("en"):
        monkeypatch.delenv(i18n.ENV_VAR, raising=False)
        i18n._chosen.clear()  # as in a fresh process: set_language not called yet
        assert i18n.get_language() == "en"
        monkeypatch.setenv(i18n.ENV_VAR, "zh_CN.UTF-8")
        assert i18n.get_language() == "zh" and msg("list.separator") == "、"
        al.course.set_language("en")
        assert i18n.get_language() == "en" and al.lab.get_language() == "en"
        monkeypatch.setenv(i18n.ENV_VAR, "klingon")
        i18n._chosen.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert i18n.get_language() == "en"
        assert any(i18n.ENV_VAR in str(w.message) for w in caught)
        with pytest.raises(ValueError, match="unknown language 'fr'"):
            al.course.set_language("fr")
        al.lab.set_language("zh-Hans")
        assert al.course.get_language() == "zh"


def test_chinese_spacing_never_changes_a_filled_in_value():
    with i18n.language("zh"):
        assert msg("lab.detail.into", node="AccumulateGrad", leaf="w") == "AccumulateGrad，累加进 w"
        assert msg("lab.detail.into", node="AccumulateGrad", leaf="权重w") == "AccumulateGrad，累加进权重w"
        assert msg_n("lab.more_nodes", 3) == "⋯ 另有 3 个节点"
        assert msg("lab.norm_short", norm=3.14159) == "(范数 3.14)"  # format specs kept
    with i18n.language("en"):
        assert msg("lab.detail.into", node="AccumulateGrad", leaf="权重w") == "AccumulateGrad into 权重w"
