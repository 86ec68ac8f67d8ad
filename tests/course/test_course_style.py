"""Every notebook of the course, the lessons (``notebooks/NN_*.ipynb``) and the build-it track
(``notebooks/build_it/bN_*.ipynb``), is written in one style, defined once here:

- a numbered title (``# 5. ...``, ``# B2. ...``), the goals under ``**By the end you will be able to:**``, and, where
  there are exercises, the sentence ``MARKER`` saying how they and their solutions are shown;
- exercises headed ``### ✏️ Exercise N: ...``, numbered 1, 2, 3... Exercise N's code cell, tagged ``exercise``, calls
  its checker ``check.ex_<notebook>_N`` and is stored with the checker's "Not yet" feedback;
- right after it, the worked solution: a markdown cell ``#### Solution to exercise N``, then a code cell tagged
  ``solution`` and ``hide-input`` with its source folded (``jupyter.source_hidden``: JupyterLab folds it, the docs
  site shows a "Show code cell source" toggle), calling the same checker and stored with its "Correct!". Cells that
  explain the solution may follow it;
- a ``## What you saw`` section after the last solution.

The guide for teachers (docs/teachers.md) teaches the same style; its example lesson, in templates/teacher-course/,
is checked here too (its checkers are ``checks.<name>``).

The build track cannot gather its solutions at the end, since later cells use the learner's code; so no notebook
does. The folded cell's first line stays visible beside the fold in JupyterLab: it must not give the answer away.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb")) + sorted(NOTEBOOKS_DIR.glob("build_it/b[0-9]_*.ipynb"))
TEMPLATE_LESSONS = sorted((ROOT / "templates" / "teacher-course" / "notebooks").glob("[0-9][0-9]_*.ipynb"))

CHECKER = re.compile(r"check\.(ex_(?:\d\d|b\d)_\d+)\(")  # the course's: check.ex_05_2, check.ex_b3_1
TEMPLATE_CHECKER = re.compile(r"checks\.(\w+)\(")     # the template's: checks.chain_rule
EXERCISE_HEADING = re.compile(r"^### (✏️ )?Exercise (\d+)\b", re.MULTILINE)
MARKER = ("Exercises are marked ✏️. Each is followed by its solution, folded away (unfold it with the `⋯` in "
          "JupyterLab, or *Show code cell source* on the web pages): try first.")
HARMLESS_FIRST_LINE = re.compile(r"(#|def |class )")  # what a folded solution may show beside its fold


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _result(cell: dict) -> str:
    """The text of what the cell's last line (the checker call) returned, '' if nothing."""
    for output in cell.get("outputs", []):
        if output["output_type"] == "execute_result":
            plain = output.get("data", {}).get("text/plain", "")
            return "".join(plain) if isinstance(plain, list) else plain
    return ""


def _names(path: Path) -> tuple[str, str]:
    """(title number, checker prefix): ('5', '05') for 05_backward..., ('B2', 'b2') for build_it/b2_ops..."""
    prefix = path.name[:2]
    return (prefix.upper() if prefix.startswith("b") else str(int(prefix))), prefix


def _solution_problems(cells: list[dict], at: int, number: int, name: str, checker: re.Pattern) -> list[str]:
    """What is wrong with exercise ``number``'s solution, expected in the two cells after its exercise cell ``at``."""
    if at + 2 >= len(cells) or _source(cells[at + 1]) != f"#### Solution to exercise {number}":
        return [f"exercise {number}: the cell after it should be the markdown '#### Solution to exercise {number}'"]
    solution = cells[at + 2]
    problems = []
    if solution["cell_type"] != "code" or not {"solution", "hide-input"} <= _tags(solution):
        problems.append(f"exercise {number}: its solution should be a code cell tagged 'solution' and 'hide-input'")
    if solution.get("metadata", {}).get("jupyter", {}).get("source_hidden") is not True:
        problems.append(f"exercise {number}: its solution's source should be folded (jupyter.source_hidden)")
    if checker.findall(_source(solution)) != [name]:
        problems.append(f"exercise {number}: its solution should call the checker {name} once, as the exercise does")
    if not _result(solution).startswith("Correct!"):
        problems.append(f"exercise {number}: its solution's stored result should be the checker's 'Correct!'")
    if not HARMLESS_FIRST_LINE.match(_source(solution)):
        problems.append(f"exercise {number}: its solution's first line shows beside the fold; make it a comment "
                        "(or a def/class line) that does not give the answer away")
    return problems


def style_problems(path: Path, checker: re.Pattern = CHECKER) -> list[str]:
    """What keeps a notebook from the course's style (an empty list: none). With the course's ``CHECKER``, exercise N
    of notebook NN must call ``check.ex_NN_N``; with another, any one checker, the same in exercise and solution."""
    cells = _cells(path)
    title, prefix = _names(path)
    first = _source(cells[0])
    problems = []
    if not first.startswith(f"# {title}. "):
        problems.append(f"the title should read '# {title}. <title>'")
    if "**By the end you will be able to:**" not in first:
        problems.append("the first cell should list the goals under '**By the end you will be able to:**'")
    if any(c["cell_type"] == "markdown" and re.search(r"^## Solutions", _source(c), re.M) for c in cells):
        problems.append("solutions follow their exercises: there should be no '## Solutions' section")
    headings = [(i, m) for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                for m in EXERCISE_HEADING.finditer(_source(c))]
    exercises = [i for i, c in enumerate(cells) if "exercise" in _tags(c)]
    if not headings and not exercises:
        return problems
    if MARKER not in " ".join(first.split()):
        problems.append(f"the first cell should say '{MARKER}'")
    problems += [f"cell {i}: exercise headings read '### ✏️ Exercise {m.group(2)}: ...'"
                 for i, m in headings if not m.group(1)]
    if [int(m.group(2)) for _, m in headings] != list(range(1, len(headings) + 1)):
        problems.append("exercises should be numbered 1, 2, 3... in order")
    if len(exercises) != len(headings):
        return problems + [f"{len(headings)} exercise headings but {len(exercises)} code cells tagged 'exercise'"]
    bounds = [i for i, _ in headings] + [len(cells)]
    for number, at in enumerate(exercises, start=1):
        called = checker.findall(_source(cells[at]))
        name = f"ex_{prefix}_{number}" if checker is CHECKER else (called or ["a checker"])[0]
        if not bounds[number - 1] < at < bounds[number]:
            problems.append(f"exercise {number}: its cell tagged 'exercise' should follow its heading")
        if called != [name]:
            problems.append(f"exercise {number}: its cell should call the checker {name} once")
        if not _result(cells[at]).startswith("Not yet"):
            problems.append(f"exercise {number}: it should be stored as a learner first sees it, with 'Not yet'")
        problems += _solution_problems(cells, at, number, name, checker)
    solutions = [i for i, c in enumerate(cells) if "solution" in _tags(c)]
    if solutions != [at + 2 for at in exercises]:
        problems.append("every cell tagged 'solution' should follow an exercise and its '#### Solution to' heading")
    calls = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and checker.search(_source(c))]
    if calls != sorted(exercises + solutions):
        problems.append("only exercise and solution cells should call a checker")
    if not any("## What you saw" in _source(c) for c in cells[max(solutions + [0]):]):
        problems.append("a '## What you saw' section should follow the last solution")
    return problems


def test_there_are_lessons_and_build_it_notebooks():
    assert any(p.parent == NOTEBOOKS_DIR for p in NOTEBOOKS) and any(p.parent.name == "build_it" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(NOTEBOOKS_DIR).as_posix())
def test_notebook_follows_the_course_style(path):
    problems = style_problems(path)
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", TEMPLATE_LESSONS, ids=lambda p: p.name)
def test_the_teachers_example_lesson_follows_the_course_style(path):
    problems = style_problems(path, TEMPLATE_CHECKER)
    assert not problems, f"templates/teacher-course/notebooks/{path.name}:\n  " + "\n  ".join(problems)


def test_the_style_check_catches_solutions_at_the_end(tmp_path):
    """A lesson with its solution gathered under '## Solutions', unfolded, is refused, with the reasons."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": f"# 1. A lesson\n\n**By the end you will be able to:**\n"
                                                           f"- one thing.\n\n{MARKER}"},
        {"cell_type": "markdown", "metadata": {}, "source": "### ✏️ Exercise 1: a sum"},
        {"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": "check.ex_01_1(...)",
         "outputs": [{"output_type": "execute_result", "data": {"text/plain": "Not yet. Replace the `...`"}}]},
        {"cell_type": "markdown", "metadata": {}, "source": "## What you saw\n- a sum.\n\n## Solutions"},
        {"cell_type": "code", "metadata": {}, "source": "answer = 3\ncheck.ex_01_1(answer)",
         "outputs": [{"output_type": "execute_result", "data": {"text/plain": "Correct! 3."}}]},
    ]
    path = tmp_path / "01_lesson.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    problems = style_problems(path)
    assert "solutions follow their exercises: there should be no '## Solutions' section" in problems
    assert any("'#### Solution to exercise 1'" in problem for problem in problems)
    assert "only exercise and solution cells should call a checker" in problems
