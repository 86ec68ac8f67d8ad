"""The course notebooks are stored clean, and together they cover every section of PyTorch's autograd notes.

Clean: executed top to bottom in one run (execution counts 1..n), no error outputs, no absolute paths of
the machine that ran them, no widget state or output bloating the file, and a first markdown cell saying
what the learner will be able to do. ``make test`` also re-runs each notebook and compares its outputs (nbval).
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

NOTEBOOKS_DIR = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))

MAX_OUTPUT_BYTES = 200_000  # one output (all its MIME types together)
MAX_NOTEBOOK_BYTES = 1_500_000
ABSOLUTE_PATHS = re.compile(r"(/work/|/tmp/|/root/|/home/[^/\s]+/|[A-Za-z]:\\\\Users\\\\)")
WIDGET_STATE_KEY = "widgets"  # nbconvert stores live widget models (with the lab's front end) under this key
OBJECTIVE = re.compile(r"you will be able to|you'll be able to|by the end", re.IGNORECASE)

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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_in_order(path):
    counts = [cell.get("execution_count") for cell in _code_cells(_load(path)) if _source(cell).strip()]
    expected = list(range(1, len(counts) + 1))
    assert counts == expected, (
        f"{path.name}: execution counts {counts} should be {expected}: restart the kernel and run all cells "
        "(jupyter nbconvert --execute --to notebook --inplace NOTEBOOK) before committing it")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_error_outputs(path):
    for index, cell in enumerate(_load(path)["cells"]):
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", (
                f"{path.name} cell {index} stored an error ({output.get('ename')}: {output.get('evalue')}); "
                "an exercise placeholder should print the checker's message, not raise")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_absolute_paths(path):
    for index, cell in enumerate(_load(path)["cells"]):
        texts = [_source(cell)] + [_output_text(output) for output in cell.get("outputs", [])]
        for text in texts:
            match = ABSOLUTE_PATHS.search(text)
            assert match is None, f"{path.name} cell {index} contains the absolute path {match.group(0)!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_bloat(path):
    nb = _load(path)
    assert WIDGET_STATE_KEY not in nb.get("metadata", {}), (
        f"{path.name} stores widget state in its metadata; execute it with "
        "--ExecutePreprocessor.store_widget_state=False (the widgets redraw when the cells run)")
    for index, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []):
            size = len(_output_text(output).encode("utf-8"))
            assert size <= MAX_OUTPUT_BYTES, f"{path.name} cell {index} has an output of {size} bytes"
    size = path.stat().st_size
    assert size <= MAX_NOTEBOOK_BYTES, f"{path.name} is {size} bytes; keep notebooks under {MAX_NOTEBOOK_BYTES}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_opens_with_what_the_learner_will_be_able_to_do(path):
    first = _load(path)["cells"][0]
    assert first["cell_type"] == "markdown", f"{path.name} should open with a markdown cell"
    assert OBJECTIVE.search(_source(first)), (
        f"{path.name}'s first cell should say what the learner will be able to do (e.g. 'you will be able to ...')")


@pytest.mark.parametrize("section", sorted(NOTES_SECTIONS))
def test_notes_section_is_covered(section):
    prefix, names = NOTES_SECTIONS[section]
    matches = sorted(NOTEBOOKS_DIR.glob(f"{prefix}_*.ipynb"))
    assert len(matches) == 1, f"'{section}' is taught by notebook {prefix}_*.ipynb, found {[m.name for m in matches]}"
    code = "\n".join(_source(cell) for cell in _code_cells(_load(matches[0])))
    missing = [name for name in names if name not in code]
    assert not missing, f"{matches[0].name} teaches '{section}' but its code never uses {missing}"


def test_every_notebook_has_its_checkers():
    """A notebook that calls check.ex_NN_K has those checkers in autograd_lab.course.exNN."""
    from autograd_lab.course import check
    for path in NOTEBOOKS:
        code = "\n".join(_source(cell) for cell in _code_cells(_load(path)))
        for name in sorted(set(re.findall(r"check\.(ex_\d\d_\d+)", code))):
            assert callable(getattr(check, name)), f"{path.name} calls check.{name}, which is not a function"
