"""What the nodes of the new joining, view and scatter ops save (``_saved_<name>``) is what PyTorch's save, name for
name."""

from __future__ import annotations

import warnings

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

CASES = {
    "unfold": lambda m, x: x.unfold(1, 2, 1),
    "narrow_copy": lambda m, x: x.narrow_copy(1, 0, 2),
    "diag of a matrix": lambda m, x: m.diag(x),
    "masked_select": lambda m, x: x.masked_select(x > 0),
    "scatter_reduce": lambda m, x: x.scatter_reduce(0, m.tensor([[0, 1, 0]]), x[:1] * 2, "prod"),
    "index_reduce": lambda m, x: x.index_reduce(0, m.tensor([0]), x[:1] * 2, "prod"),
    "select_scatter": lambda m, x: m.select_scatter(x, x[0] * 2, 0, 1),
    "slice_scatter": lambda m, x: m.slice_scatter(x, x[:1] * 2, 0, 0, 1),
    "diagonal_scatter": lambda m, x: m.diagonal_scatter(x, x.diagonal() * 2),
    "unsqueeze_": lambda m, x: (x * 1).unsqueeze_(0),
    "squeeze_()": lambda m, x: (x * 1).unsqueeze(0).squeeze_(),
    "squeeze_(dim)": lambda m, x: (x * 1).unsqueeze(0).squeeze_(0),
    "squeeze_(dims)": lambda m, x: (x * 1).unsqueeze(0).squeeze_((0,)),
    "swapdims_": lambda m, x: (x * 1).swapdims_(0, 1),
    "block_diag": lambda m, x: m.block_diag(x, x[0]),
    "cat": lambda m, x: m.cat([x, x[:1]]),
    "to(float32)": lambda m, x: x.to(m.float32),
    "unfold's gradient": lambda m, x: m.autograd.grad(x.unfold(1, 2, 1), x, m.ones(3, 2, 2, dtype=m.float64,
                                                                                  requires_grad=True),
                                                      create_graph=True)[0],
}


def _saved(m, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's note that index_reduce is in beta)
        out = CASES[name](m, m.ones(3, 3, dtype=m.float64, requires_grad=True))
    return type(out.grad_fn).__name__, sorted(n for n in dir(out.grad_fn) if n.startswith("_saved_"))


@pytest.mark.parametrize("name", CASES)
def test_nodes_save_what_torchs_save(name):
    assert _saved(al, name) == _saved(torch, name)
