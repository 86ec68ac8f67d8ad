"""Tutorial-style scripts, written as a PyTorch user writes them but with ``import autograd_lab as al``, run twice:
as written, and with every ``autograd_lab`` import turned into ``torch``. Both runs must give the same numbers
(float64) and print the same text ("torch." read as "al."): the script is the proof that the API it uses is
PyTorch's. Each script is a file of ``models/`` with a ``main()`` returning its results (``test_api_tutorials.py`` runs the
scripts of ``scripts/``, one per API item, which leave a ``result``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

SCRIPTS = sorted((Path(__file__).parent / "models").glob("*.py"))


def _run(path: Path, library: str, capsys) -> tuple[dict, str]:
    source = path.read_text()
    if library == "torch":
        source = re.sub(r"^(import|from) autograd_lab\b", r"\1 torch", source, flags=re.MULTILINE)
    namespace = {"__name__": f"tutorial_{path.stem}"}
    exec(compile(source, f"{path} ({library})", "exec"), namespace)
    capsys.readouterr()
    results = namespace["main"]()
    return results, capsys.readouterr().out


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_gives_pytorchs_results(path, capsys):
    ours, our_output = _run(path, "autograd_lab", capsys)
    theirs, their_output = _run(path, "torch", capsys)
    assert our_output == their_output.replace("torch.", "al.")
    assert ours.keys() == theirs.keys()
    for key in ours:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-9, atol=1e-12, err_msg=f"{path.stem}: {key}")


def test_every_script_is_found():
    assert {p.stem for p in SCRIPTS} >= {"lstm_sequence_model", "transformer_block", "plateau_and_one_cycle",
                                         "signals_and_images", "printing", "transformer_language_model",
                                         "learning_with_examples", "nn_from_scratch"}
