"""Every lesson notebook is written in one style: a numbered title, goals, exercises marked ✏️ and numbered, a
"What you saw" section, and a worked solution for every exercise at the end, run against its checker.

``AWAITING_RESTYLE`` lists the notebooks whose cells are being changed on another branch; the changes that bring them
into this style are written in ``notebooks/PENDING_03_05_07.md`` and applied once that branch is merged (then the
notebook is taken off the list: a test fails while a listed notebook already follows the style).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
AWAITING_RESTYLE = {"07_inplace_and_versions.ipynb"}

CHECKER = re.compile(r"check\.(ex_\d\d_\d+)\(")
EXERCISE_HEADING = re.compile(r"^### (✏️ )?Exercise (\d+)\b", re.MULTILINE)
MARKER_SENTENCE = "Exercises are marked ✏️; their solutions are at the end."


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _passed(cell: dict) -> bool:
    """Whether the cell's result (what its last line, the checker call, returned) starts with 'Correct!'."""
    for output in cell.get("outputs", []):
        if output["output_type"] == "execute_result":
            plain = output.get("data", {}).get("text/plain", "")
            return ("".join(plain) if isinstance(plain, list) else plain).startswith("Correct!")
    return False


def style_problems(path: Path) -> list[str]:
    """What keeps a notebook from the course's style (an empty list: none)."""
    cells = _cells(path)
    problems = []
    number = int(path.name[:2])
    if not _source(cells[0]).startswith(f"# {number}. "):
        problems.append(f"the title should read '# {number}. <title>'")
    if "**By the end you will be able to:**" not in _source(cells[0]):
        problems.append("the first cell should list the goals under '**By the end you will be able to:**'")
    headings = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## Solutions" in _source(c)]
    exercises = [(i, m) for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                 for m in EXERCISE_HEADING.finditer(_source(c))]
    if not exercises:
        return problems
    if MARKER_SENTENCE not in _source(cells[0]):
        problems.append(f"the first cell should say '{MARKER_SENTENCE}'")
    problems += [f"cell {i}: exercise headings read '### ✏️ Exercise {m.group(2)}: ...'"
                 for i, m in exercises if not m.group(1)]
    if [int(m.group(2)) for _, m in exercises] != list(range(1, len(exercises) + 1)):
        problems.append("exercises should be numbered 1, 2, 3... in order")
    if len(headings) != 1:
        return problems + ["there should be one '## Solutions' section, at the end"]
    solutions_at = headings[0]
    if "## What you saw" not in _source(cells[solutions_at]) and not any(
            "## What you saw" in _source(c) for c in cells[solutions_at - 1:solutions_at]):
        problems.append("the section before '## Solutions' should be '## What you saw'")
    asked = {name for c in cells[:solutions_at] if c["cell_type"] == "code" for name in CHECKER.findall(_source(c))}
    solved = {name for c in cells[solutions_at:] if c["cell_type"] == "code" for name in CHECKER.findall(_source(c))
              if _passed(c)}
    problems += [f"exercise {name} has no worked solution after '## Solutions' whose stored output is 'Correct!'"
                 for name in sorted(asked - solved)]
    if len(asked) != len(exercises):
        problems.append(f"{len(exercises)} exercise headings but {len(asked)} checkers called before the solutions")
    return problems


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name not in AWAITING_RESTYLE], ids=lambda p: p.name)
def test_notebook_follows_the_course_style(path):
    problems = style_problems(path)
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", sorted(AWAITING_RESTYLE))
def test_a_notebook_awaiting_its_restyle_is_still_listed_for_a_reason(name):
    path = NOTEBOOKS_DIR / name
    assert path.is_file(), f"{name} is listed in AWAITING_RESTYLE but does not exist"
    assert style_problems(path), (f"{name} now follows the course style: take it off AWAITING_RESTYLE "
                                  "(and notebooks/PENDING_03_05_07.md)")


def test_every_exercise_in_the_course_has_a_checker_and_a_solution():
    """Across all notebooks (those awaiting their restyle included), each checker called is also solved."""
    for path in NOTEBOOKS:
        if path.name in AWAITING_RESTYLE:
            continue
        cells = _cells(path)
        calls = [name for c in cells if c["cell_type"] == "code" for name in CHECKER.findall(_source(c))]
        for name in set(calls):
            assert calls.count(name) >= 2, f"{path.name}: {name} is called once: an exercise without its solution"
