"""The course's notebooks, in each of its editions: the one list the tests that read them share.

The English edition is ``notebooks/NN_name.ipynb`` (the lessons) and ``notebooks/build_it/bN_name.ipynb`` (the
build-it track); the Chinese edition (``notebooks/zh/``) holds the same files at the same relative paths, beside its
glossary (``notebooks/zh/glossary.md``), which is not a notebook. ``tests/course/test_editions.py`` checks that the
two editions stay in step.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = ROOT / "notebooks"
EDITIONS = {"en": NOTEBOOKS_DIR, "zh": NOTEBOOKS_DIR / "zh"}  # language -> the edition's folder


def course_notebooks(language: str = "en") -> list[Path]:
    """The lessons, then the build-it track, of the edition in ``language``."""
    folder = EDITIONS[language]
    return sorted(folder.glob("[0-9][0-9]_*.ipynb")) + sorted(folder.glob("build_it/b[0-9]_*.ipynb"))


def all_course_notebooks() -> list[Path]:
    """Every edition's notebooks, English first."""
    return [path for language in EDITIONS for path in course_notebooks(language)]


def language_of(path: Path) -> str:
    """The edition a notebook belongs to: ``"zh"`` under ``notebooks/zh/``, else ``"en"``."""
    return "zh" if EDITIONS["zh"] in Path(path).resolve().parents else "en"


def translation_of(english: Path, language: str) -> Path:
    """Where the ``language`` edition keeps the translation of the English notebook ``english``."""
    return EDITIONS[language] / Path(english).resolve().relative_to(NOTEBOOKS_DIR)


def notebook_id(path: Path) -> str:
    """A notebook named by its path under ``notebooks/`` (``03_how_history_is_encoded.ipynb``,
    ``zh/build_it/b2_ops_and_derivatives.ipynb``): a test id, unique across editions."""
    return Path(path).resolve().relative_to(NOTEBOOKS_DIR).as_posix()
