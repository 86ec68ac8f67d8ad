"""Every notebook of the course, the lessons (``notebooks/NN_*.ipynb``) and the build-it track
(``notebooks/build_it/bN_*.ipynb``), is written in one style, defined once here:

- a numbered title (``# 5. ...``, ``# B2. ...``), the goals under ``**By the end you will be able to:**``, and, where
  there are exercises, the sentence (``Style.marker``) saying how they and their solutions are shown;
- exercises headed ``### ✏️ Exercise N: ...``, numbered 1, 2, 3... Exercise N's code cell, tagged ``exercise``, calls
  its checker ``check.ex_<notebook>_N`` and is stored with the checker's "Not yet" feedback;
- right after it, the worked solution: a markdown cell ``#### Solution to exercise N``, then a code cell tagged
  ``solution`` and ``hide-input`` with its source folded (``jupyter.source_hidden``: JupyterLab folds it, the docs
  site shows a "Show code cell source" toggle), calling the same checker and stored with its "Correct!". Cells that
  explain the solution may follow it;
- a ``## What you saw`` section after the last solution.

The Chinese edition (``notebooks/zh/``) follows the same style in Chinese words: ``STYLES`` holds each language's
phrases, in one place (TRANSLATING.md teaches the Chinese ones), and its checkers answer "还不对" and "正确". The guide for
teachers (docs/teachers.md) teaches the same style; its example lesson, in templates/teacher-course/, is checked here
too (its checkers are ``checks.<name>``).

The build track cannot gather its solutions at the end, since later cells use the learner's code; so no notebook
does. The folded cell's first line stays visible beside the fold in JupyterLab: it must not give the answer away.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from course_notebooks import ROOT, all_course_notebooks, course_notebooks, language_of, notebook_id

NOTEBOOKS = all_course_notebooks()  # both editions
TEMPLATE_LESSONS = sorted((ROOT / "templates" / "teacher-course" / "notebooks").glob("[0-9][0-9]_*.ipynb"))

CHECKER = re.compile(r"check\.(ex_(?:\d\d|b\d)_\d+)\(")  # the course's: check.ex_05_2, check.ex_b3_1
TEMPLATE_CHECKER = re.compile(r"checks\.(\w+)\(")     # the template's: checks.chain_rule
HARMLESS_FIRST_LINE = re.compile(r"(#|def |class )")  # what a folded solution may show beside its fold


@dataclass(frozen=True)
class Style:
    """The course style's fixed phrases in one language."""

    goals: str  # the heading of the goals, in the first cell
    marker: str  # the sentence saying how exercises and solutions are shown
    exercise: re.Pattern  # finds an exercise heading's line; group 1: its number
    exercise_form: re.Pattern  # how an exercise heading must read
    exercise_example: str
    solution: str  # the markdown cell before exercise {number}'s solution, exactly
    solutions_section: re.Pattern  # a section gathering solutions at the end (refused)
    what_you_saw: str  # the closing section's heading
    not_yet: str  # how the checker's feedback starts, stored in an exercise
    correct: str  # and in a solution


STYLES = {
    "en": Style(
        goals="**By the end you will be able to:**",
        marker=("Exercises are marked ✏️. Each is followed by its solution, folded away (unfold it with the `⋯` in "
                "JupyterLab, or *Show code cell source* on the web pages): try first."),
        exercise=re.compile(r"^### [^\n]*?\bExercise (\d+)\b[^\n]*", re.MULTILINE),
        exercise_form=re.compile(r"### ✏️ Exercise \d+: \S"), exercise_example="### ✏️ Exercise N: ...",
        solution="#### Solution to exercise {number}", solutions_section=re.compile(r"^## Solutions", re.MULTILINE),
        what_you_saw="## What you saw", not_yet="Not yet", correct="Correct!"),
    "zh": Style(
        goals="**学完本课，你将能够：**",
        marker=("练习标有 ✏️。每个练习后面都有折叠起来的参考答案（在 JupyterLab 里点 `⋯` 展开，网页上点 *Show code cell "
                "source*）：先自己试一试。"),
        exercise=re.compile(r"^### [^\n]*?练习 ?(\d+)[^\n]*", re.MULTILINE),
        exercise_form=re.compile(r"### ✏️ 练习 \d+：\S"), exercise_example="### ✏️ 练习 N：...",
        solution="#### 练习 {number} 的参考答案", solutions_section=re.compile(r"^## (Solutions|参考答案|答案)", re.MULTILINE),
        what_you_saw="## 你看到了什么", not_yet="还不对", correct="正确"),
}
MARKER = STYLES["en"].marker


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


def _solution_problems(cells: list[dict], at: int, number: int, name: str, checker: re.Pattern,
                       style: Style) -> list[str]:
    """What is wrong with exercise ``number``'s solution, expected in the two cells after its exercise cell ``at``."""
    heading = style.solution.format(number=number)
    if at + 2 >= len(cells) or _source(cells[at + 1]) != heading:
        return [f"exercise {number}: the cell after it should be the markdown '{heading}'"]
    solution = cells[at + 2]
    problems = []
    if solution["cell_type"] != "code" or not {"solution", "hide-input"} <= _tags(solution):
        problems.append(f"exercise {number}: its solution should be a code cell tagged 'solution' and 'hide-input'")
    if solution.get("metadata", {}).get("jupyter", {}).get("source_hidden") is not True:
        problems.append(f"exercise {number}: its solution's source should be folded (jupyter.source_hidden)")
    if checker.findall(_source(solution)) != [name]:
        problems.append(f"exercise {number}: its solution should call the checker {name} once, as the exercise does")
    if not _result(solution).startswith(style.correct):
        problems.append(f"exercise {number}: its solution's stored result should be the checker's '{style.correct}'")
    if not HARMLESS_FIRST_LINE.match(_source(solution)):
        problems.append(f"exercise {number}: its solution's first line shows beside the fold; make it a comment "
                        "(or a def/class line) that does not give the answer away")
    return problems


def style_problems(path: Path, checker: re.Pattern = CHECKER, language: str | None = None) -> list[str]:
    """What keeps a notebook from the course's style (an empty list: none). With the course's ``CHECKER``, exercise N
    of notebook NN must call ``check.ex_NN_N``; with another, any one checker, the same in exercise and solution.
    ``language``: whose phrases (:data:`STYLES`) to expect; by default, the notebook's edition's."""
    style = STYLES[language or language_of(path)]
    cells = _cells(path)
    title, prefix = _names(path)
    first = _source(cells[0])
    problems = []
    if not first.startswith(f"# {title}. "):
        problems.append(f"the title should read '# {title}. <title>'")
    if style.goals not in first:
        problems.append(f"the first cell should list the goals under '{style.goals}'")
    if any(c["cell_type"] == "markdown" and style.solutions_section.search(_source(c)) for c in cells):
        problems.append("solutions follow their exercises: there should be no section of solutions at the end")
    headings = [(i, m) for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                for m in style.exercise.finditer(_source(c))]
    exercises = [i for i, c in enumerate(cells) if "exercise" in _tags(c)]
    if not headings and not exercises:
        return problems
    if style.marker not in " ".join(first.split()) and style.marker not in first.replace("\n", ""):
        problems.append(f"the first cell should say '{style.marker}'")
    problems += [f"cell {i}: exercise headings read '{style.exercise_example}', not '{m.group(0)}'"
                 for i, m in headings if not style.exercise_form.match(m.group(0))]
    if [int(m.group(1)) for _, m in headings] != list(range(1, len(headings) + 1)):
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
        if not _result(cells[at]).startswith(style.not_yet):
            problems.append(f"exercise {number}: it should be stored as a learner first sees it, with '{style.not_yet}'")
        problems += _solution_problems(cells, at, number, name, checker, style)
    solutions = [i for i, c in enumerate(cells) if "solution" in _tags(c)]
    if solutions != [at + 2 for at in exercises]:
        problems.append(f"every cell tagged 'solution' should follow an exercise and its '{style.solution}' heading")
    calls = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and checker.search(_source(c))]
    if calls != sorted(exercises + solutions):
        problems.append("only exercise and solution cells should call a checker")
    if not any(style.what_you_saw in _source(c) for c in cells[max(solutions + [0]):]):
        problems.append(f"a '{style.what_you_saw}' section should follow the last solution")
    return problems


def test_there_are_lessons_and_build_it_notebooks():
    english = course_notebooks("en")
    assert any(p.parent.name == "notebooks" for p in english) and any(p.parent.name == "build_it" for p in english)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=notebook_id)
def test_notebook_follows_the_course_style(path):
    problems = style_problems(path)
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", TEMPLATE_LESSONS, ids=lambda p: p.name)
def test_the_teachers_example_lesson_follows_the_course_style(path):
    problems = style_problems(path, TEMPLATE_CHECKER, "en")
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
    assert "solutions follow their exercises: there should be no section of solutions at the end" in problems
    assert any("'#### Solution to exercise 1'" in problem for problem in problems)
    assert "only exercise and solution cells should call a checker" in problems
