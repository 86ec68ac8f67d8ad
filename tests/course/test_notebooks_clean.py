"""The course notebooks are stored clean, and together they cover every section of PyTorch's autograd notes.

Clean, in both editions (the English notebooks and their Chinese translations in notebooks/zh/): executed top to
bottom in one run (execution counts 1..n), no error outputs, no absolute paths of the machine that ran them, no widget
state or output bloating the file, no progress bar stored at 0%, no memory address, and a first markdown cell saying
what the learner will be able to do. ``make test`` also re-runs each notebook and compares its outputs (nbval). The
sections of the autograd notes are checked in the English notebooks (the Chinese ones have the same code:
test_editions.py); the seed documents' sections: ``test_seed_coverage.py``, in English only too.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from course_notebooks import NOTEBOOKS_DIR, all_course_notebooks, notebook_id

from autograd_lab.course.store import problems

# the lessons (NN_name.ipynb), then the build-your-own track (build_it/bN_name.ipynb), in English then in Chinese
NOTEBOOKS = all_course_notebooks()

MAX_OUTPUT_BYTES = 200_000  # one output (all its MIME types together)
MAX_NOTEBOOK_BYTES = 1_500_000
ABSOLUTE_PATHS = re.compile(r"(/work/|/tmp/|/root/|/home/[^/\s]+/|[A-Za-z]:\\\\Users\\\\)")
WIDGET_STATE_KEY = "widgets"  # nbconvert stores live widget models (with the lab's front end) under this key

# Each section of the autograd notes (https://pytorch.org/docs/stable/notes/autograd.html) -> the notebook that
# teaches it (by number prefix) and the names its code cells must use, so that a section cannot silently lose
# its demonstration.
NOTES_SECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "How autograd encodes the history": ("03", ("grad_fn", "next_functions", "AccumulateGrad", "al.lab.draw")),
    "Saved tensors": ("04", ("_saved_self", "_saved_result", "_raw_saved_self")),
    "Locally disabling gradient computation: setting requires_grad (excluding subgraphs from backward)":
        ("01", ("requires_grad", "requires_grad_(False)")),
    "Locally disabling gradient computation: grad modes (default, no-grad, inference, evaluation mode)":
        ("02", ("no_grad", "inference_mode", "set_grad_enabled", ".eval()")),
    "In-place operations with autograd and in-place correctness checks": ("07", ("_version", "add_")),
    "Multithreading": ("05", ("threading", "Thread")),
    "Backward hooks execution": ("06", ("register_hook", "register_prehook", "retain_grad")),
    "Hooks for saved tensors": ("04", ("saved_tensors_hooks", "save_on_cpu")),
}


def _load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _output_text(output: dict) -> str:
    return json.dumps(output, ensure_ascii=False)


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no lesson notebooks (NN_name.ipynb) in {NOTEBOOKS_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=notebook_id)
def test_stored_as_a_learner_first_sees_it(path):
    """The package's own check (``python -m autograd_lab.course.store --check``): goals first, run top to bottom in one
    run, no error output, no widget state, no progress bar stuck at 0%, no memory address, no absolute path."""
    found = problems(path)
    assert not found, f"{notebook_id(path)}:\n  " + "\n  ".join(found) + "\n(store it with python -m autograd_lab.course.store)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=notebook_id)
def test_no_absolute_paths(path):
    for index, cell in enumerate(_load(path)["cells"]):
        texts = [_source(cell)] + [_output_text(output) for output in cell.get("outputs", [])]
        for text in texts:
            match = ABSOLUTE_PATHS.search(text)
            assert match is None, f"{notebook_id(path)} cell {index} contains the absolute path {match.group(0)!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=notebook_id)
def test_no_bloat(path):
    nb = _load(path)
    assert WIDGET_STATE_KEY not in nb.get("metadata", {}), (
        f"{notebook_id(path)} stores widget state in its metadata; execute it with "
        "--ExecutePreprocessor.store_widget_state=False (the widgets redraw when the cells run)")
    for index, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []):
            size = len(_output_text(output).encode("utf-8"))
            assert size <= MAX_OUTPUT_BYTES, f"{notebook_id(path)} cell {index} has an output of {size} bytes"
    size = path.stat().st_size
    assert size <= MAX_NOTEBOOK_BYTES, f"{notebook_id(path)} is {size} bytes; keep notebooks under {MAX_NOTEBOOK_BYTES}"


@pytest.mark.parametrize("section", sorted(NOTES_SECTIONS))
def test_notes_section_is_covered(section):
    prefix, names = NOTES_SECTIONS[section]
    matches = sorted(NOTEBOOKS_DIR.glob(f"{prefix}_*.ipynb"))
    assert len(matches) == 1, f"'{section}' is taught by notebook {prefix}_*.ipynb, found {[m.name for m in matches]}"
    code = "\n".join(_source(cell) for cell in _code_cells(_load(matches[0])))
    missing = [name for name in names if name not in code]
    assert not missing, f"{matches[0].name} teaches '{section}' but its code never uses {missing}"


def test_every_notebook_has_its_checkers():
    """A notebook that calls check.ex_NN_K (or check.ex_bN_K) has those checkers in autograd_lab.course.exNN
    (or exbN)."""
    from autograd_lab.course import check
    for path in NOTEBOOKS:
        code = "\n".join(_source(cell) for cell in _code_cells(_load(path)))
        for name in sorted(set(re.findall(r"check\.(ex_(?:\d\d|b\d)_\d+)", code))):
            assert callable(getattr(check, name)), f"{notebook_id(path)} calls check.{name}, which is not a function"
