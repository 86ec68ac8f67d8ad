"""How ``matmul`` decomposes a product into ``mm``, ``mv`` or ``bmm``, as PyTorch 2.13 does: the graph it records
(node by node), the gradients, and what the nodes save (a folded copy or the operand itself decides whether a
later in-place change of the operand makes backward raise)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

SHAPES = [((3, 2, 4), (1, 4, 5)), ((1, 2, 4), (3, 4, 5)), ((1, 2, 4), (1, 4, 5)), ((3, 2, 4), (3, 4, 5)),
          ((3, 2, 4), (1, 1, 4, 5)), ((2, 3, 2, 4), (1, 4, 5)), ((1, 2, 4), (4, 5)), ((4,), (1, 4, 5)),
          ((1, 2, 4), (4,)), ((2, 3, 4), (4,)), ((2, 2, 3, 4), (4, 5)), ((0, 2, 4), (4, 5)), ((4,), (2, 4, 5)),
          ((2, 4), (3, 4, 5)), ((2, 4), (1, 4, 5))]


def _tree(node, depth: int = 0) -> list:
    """The node names of the graph under ``node``, indented by depth."""
    if node is None or depth > 6:
        return []
    lines = ["  " * depth + node.name().replace("torch::autograd::", "")]
    for child, _ in node.next_functions:
        lines += _tree(child, depth + 1)
    return lines


def _product(m, shapes, requires, transposed: bool):
    first, second = shapes
    a = (m.arange(1, m.Size(first).numel() + 1, dtype=m.float64).reshape(first) / 7).requires_grad_(requires[0])
    b = (m.full(second, 0.5, dtype=m.float64)).requires_grad_(requires[1])
    x = a.mT.contiguous().mT if transposed and a.ndim >= 2 else a  # (the same values, laid out column-major)
    return a, b, x @ b


@pytest.mark.parametrize("transposed", [False, True], ids=["row-major", "column-major"])
@pytest.mark.parametrize("requires", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_records_the_graph_torch_records(shapes, requires, transposed):
    results = []
    for m in (al, torch):
        a, b, y = _product(m, shapes, requires, transposed)
        graph = _tree(y.grad_fn)
        (y * y).sum().backward()
        results.append((graph, [None if t.grad is None else np.array(t.grad.tolist()) for t in (a, b)]))
    (ours, our_grads), (theirs, their_grads) = results
    assert ours == theirs
    for g, expected in zip(our_grads, their_grads):
        assert (g is None) == (expected is None)
        if g is not None:
            np.testing.assert_allclose(g, expected, rtol=1e-13)  # (the order of the sums may differ)


def test_a_folded_operand_is_saved_as_a_copy_so_a_later_in_place_change_is_harmless():
    """(3, 2, 1) @ (1, 1, 2) with the right operand requiring grad: PyTorch drops its batch of one and folds the
    left one, a permuted view, into rows by copying it; a change of that view's base does not reach the saved copy
    (found by the differential fuzzer, seed 8048711: ours used bmm on the view and raised a version error)."""
    grads = []
    for m in (al, torch):
        x1 = m.tensor([[[-0.5, 0.0, -1.79]], [[1.0, -0.55, -1.0]]], dtype=m.float64, requires_grad=True)
        x5 = m.tensor([[[1.0, 2.0]]], dtype=m.float64, requires_grad=True)
        y = x1.permute(2, 0, 1) @ x5
        with m.no_grad():
            x1.clamp_(-1, 1)
        (y * y.detach()).sum().backward()
        grads.append(np.concatenate([x1.grad.numpy().ravel(), x5.grad.numpy().ravel()]))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-13)
