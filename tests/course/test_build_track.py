"""The build-your-own track (notebooks/build_it/) holds together: each notebook starts from exactly the engine the
notebooks before it built, and the engine the track ends with computes autograd_lab's gradients. That every exercise
is followed by its folded solution, calling the same checker, is the style of every notebook of the course, checked
for all of them in test_course_style.py."""

from __future__ import annotations

import numpy as np
import pytest
from build_engine import SO_FAR, engine_before, load_engine, notebooks, so_far_cell

import autograd_lab as al


def _source(cell: dict) -> str:
    return "".join(cell["source"])


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
