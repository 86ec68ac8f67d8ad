"""The build-your-own track (notebooks/build_it/) holds together: each notebook starts from exactly the engine the
notebooks before it built, every exercise is followed by its folded solution calling the same checker, and the
engine the track ends with computes autograd_lab's gradients."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from build_engine import SO_FAR, engine_before, load_engine, notebooks, so_far_cell

import autograd_lab as al

CHECKER = re.compile(r"check\.(ex_b(\d)_(\d+))\(")


def _cells(path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def test_the_track_has_its_six_notebooks():
    assert [path.name[:2] for path in notebooks()] == ["b1", "b2", "b3", "b4", "b5", "b6"]


@pytest.mark.parametrize("index", range(1, 6), ids=lambda i: f"b{i + 1}")
def test_each_notebook_starts_from_the_engine_before_it(index):
    path = notebooks()[index]
    cell = so_far_cell(path)
    assert cell is not None, f"{path.name} has no cell tagged {SO_FAR!r}"
    body = _source(cell).split("\n", 1)[1]
    assert body == engine_before(index).rstrip("\n"), (
        f"{path.name}'s first engine cell is not the engine of the notebooks before it: run "
        "`PYTHONPATH=$PWD python tests/build_engine.py --write`, then re-execute the notebooks that changed")


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_every_exercise_is_followed_by_its_folded_solution(path):
    cells = _cells(path)
    exercises = [i for i, cell in enumerate(cells) if "exercise" in _tags(cell)]
    assert exercises, f"{path.name} has no exercise"
    for number, index in enumerate(exercises, start=1):
        called = CHECKER.findall(_source(cells[index]))
        assert [(nb, k) for _, nb, k in called] == [(path.name[1], str(number))], (
            f"{path.name}: exercise {number} should call check.ex_b{path.name[1]}_{number}; it calls {called}")
        heading, solution = cells[index + 1], cells[index + 2]
        assert _source(heading) == f"#### Solution to exercise {number}"
        assert {"solution", "hide-input"} <= set(_tags(solution))
        assert solution["metadata"].get("jupyter", {}).get("source_hidden") is True
        assert CHECKER.findall(_source(solution)) == called
        assert all(output["output_type"] != "error" for output in solution.get("outputs", []))
        shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in solution.get("outputs", []))
        assert "Correct!" in shown, f"{path.name}: the solution of exercise {number} does not pass its checker"


def test_the_finished_engine_matches_autograd_lab():
    engine = load_engine()
    Tensor = engine["Tensor"]  # noqa: N806 - the learner's class
    rng = np.random.default_rng(23)
    values = {"x": rng.normal(size=(4, 3)), "w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,)),
              "s": np.array(1.5)}

    def program(x, w, b, s):
        hidden = (x @ w + b).tanh() * s - (x @ w).relu() / (b * b + 1.0)
        return (hidden.exp().log() + hidden.sum(axis=0, keepdims=True)).sum()

    mine = {name: Tensor(array, requires_grad=True) for name, array in values.items()}
    program(**mine).backward()
    theirs = {name: al.tensor(array, requires_grad=True) for name, array in values.items()}
    hidden = (theirs["x"] @ theirs["w"] + theirs["b"]).tanh() * theirs["s"] - (
        (theirs["x"] @ theirs["w"]).relu() / (theirs["b"] * theirs["b"] + 1.0))
    (hidden.exp().log() + hidden.sum(dim=0, keepdim=True)).sum().backward()
    for name in values:
        np.testing.assert_allclose(mine[name].grad, theirs[name].grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
