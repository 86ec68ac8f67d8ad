"""``templates/teacher-course/``, a course repository of a teacher's own, works as its guide (docs/teachers.md) says.

A copy of it outside this repository runs the steps of its CI workflow that follow the install (the checkers' tests,
``python -m autograd_lab.course.store --check``, nbval), with this checkout's autograd_lab on the path, as the
workflow's install step would provide it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "teacher-course"
WORKFLOW = TEMPLATE / ".github" / "workflows" / "notebooks.yml"

pytestmark = pytest.mark.slow


def workflow_commands() -> list[str]:
    """The ``run: python -m ...`` steps of the workflow, in order (the install step is a script, not one of these)."""
    return re.findall(r"^\s+run: (python -m .+)$", WORKFLOW.read_text(encoding="utf-8"), re.MULTILINE)


def test_the_template_keeps_the_course_sanitizers():
    assert (TEMPLATE / "nbval_sanitize.cfg").read_text() == (ROOT / "notebooks" / "nbval_sanitize.cfg").read_text()


def test_the_workflow_runs_the_checks_the_guide_describes():
    commands = workflow_commands()
    assert commands == [
        "python -m pytest -q",
        "python -m autograd_lab.course.store --check notebooks/*.ipynb",
        "python -m pytest -q -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg "
        "notebooks",
    ]
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    for command in commands:
        assert f"$ {command}\n" in guide, f"docs/teachers.md does not show the workflow's step {command!r}"


def test_a_copy_outside_the_repository_passes_its_workflow(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(TEMPLATE, course, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    env["PYTHONPATH"] = str(ROOT)  # what the workflow's install step gives: autograd_lab importable
    for command in workflow_commands():
        command = command.replace("python", f"'{sys.executable}'", 1)
        proc = subprocess.run(["bash", "-c", command], cwd=course, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{command} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
