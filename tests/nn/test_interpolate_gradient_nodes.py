"""The gradient of ``F.interpolate`` under ``create_graph``, against PyTorch, in every mode and rank: the node of the
gradient (``Upsample<Kind>BackwardBackward0``) and, differentiated again, the resampling's node
(``Upsample<Kind>Backward0``) and so on, alternating; their names, saved values, edges, and the values and gradients
of each order; finite differences (gradcheck, gradgradcheck) of the gradient as a function of the output's
gradient."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

# (mode, rank, antialias, PyTorch's name for the pair)
KINDS = [("nearest", 1, False, "Nearest1D"), ("nearest", 2, False, "Nearest2D"), ("nearest", 3, False, "Nearest3D"),
         ("nearest-exact", 1, False, "NearestExact1D"), ("nearest-exact", 2, False, "NearestExact2D"),
         ("nearest-exact", 3, False, "NearestExact3D"), ("linear", 1, False, "Linear1D"),
         ("bilinear", 2, False, "Bilinear2D"), ("bicubic", 2, False, "Bicubic2D"), ("trilinear", 3, False, "Trilinear3D"),
         ("bilinear", 2, True, "Bilinear2DAa"), ("bicubic", 2, True, "Bicubic2DAa")]
SPATIAL = (4, 5, 3)  # the input's spatial sizes, the first `rank` of them
RESIZES = {"scale": lambda rank: dict(scale_factor=(2.0, 1.5, 0.7)[:rank]),
           "size": lambda rank: dict(size=(7, 3, 5)[:rank]),
           "align_corners": lambda rank: dict(scale_factor=1.6, align_corners=True)}


def _cases():
    for mode, rank, antialias, kind in KINDS:
        for resize, options in RESIZES.items():
            if resize == "align_corners" and mode.startswith("nearest"):
                continue  # (no align_corners for the nearest modes)
            yield pytest.param(mode, rank, dict(options(rank), antialias=antialias), kind, id=f"{kind}-{resize}")


def _saved(node) -> dict:
    """Every ``_saved_<name>`` the node shows, by name."""
    return {name: getattr(node, name) for name in dir(node) if name.startswith("_saved_")}


def _orders(m, mode, options, image, seeds) -> list:
    """Gradients of interpolate of every order, in library ``m``: each the gradient of the one before with respect to
    the gradient that made it, given a new gradient that requires grad (the first: of the output, given ``seeds[0]``).
    Each entry is (the gradient, the leaf it was taken with respect to, the leaf it was given)."""
    x = m.tensor(image, requires_grad=True)
    out, wrt = m.nn.functional.interpolate(x, mode=mode, **options), x
    orders = []
    for seed in seeds:
        given = m.tensor(seed(tuple(out.shape)), requires_grad=True)
        (grad,) = m.autograd.grad(out, wrt, given, create_graph=True)
        orders.append((grad, wrt, given))
        out, wrt = grad, given
    return orders


@pytest.mark.parametrize("mode, rank, options, kind", list(_cases()))
def test_gradients_of_every_order_record_torchs_nodes_with_its_saved_values(mode, rank, options, kind):
    rng = np.random.default_rng(rank)
    image = rng.standard_normal((1, 2) + SPATIAL[:rank])
    seeds = [lambda shape, seed=seed: np.random.default_rng(seed).standard_normal(shape) for seed in range(3)]
    ours, theirs = (_orders(m, mode, options, image, seeds) for m in (al, torch))
    names = [f"Upsample{kind}BackwardBackward0", f"Upsample{kind}Backward0", f"Upsample{kind}BackwardBackward0"]
    for order, name, (grad, _, given), (their_grad, _, their_given) in zip((2, 3, 4), names, ours, theirs):
        node, their_node = grad.grad_fn, their_grad.grad_fn
        assert (node.name(), their_node.name()) == (name, name), order
        assert _saved(node) == _saved(their_node), order
        # its one edge: to the gradient it was given (the resampling is linear: nothing of its input is kept)
        ((edge, _),) = node.next_functions
        ((their_edge, _),) = their_node.next_functions
        assert (edge.name(), edge.variable is given) == (their_edge.name(), their_edge.variable is their_given)
        np.testing.assert_allclose(grad.detach().numpy(), their_grad.detach().numpy(), rtol=1e-12, atol=1e-12)
    # and the gradient of the last order, through the whole chain, to the first input
    (grad, _, _), (their_grad, _, _) = ours[-1], theirs[-1]
    end = np.random.default_rng(7).standard_normal(tuple(grad.shape))
    first = [m.autograd.grad(g, orders[-1][2], m.tensor(end))[0].numpy()
             for m, g, orders in ((al, grad, ours), (torch, their_grad, theirs))]
    np.testing.assert_allclose(*first, rtol=1e-12, atol=1e-12)


def test_the_gradient_node_shows_no_input_sizes_and_the_forward_node_the_input_it_resampled():
    x = al.rand(1, 1, 4, 5, dtype=al.float64, requires_grad=True)
    y = al.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    go = al.rand(y.shape, dtype=al.float64, requires_grad=True)
    (g2,) = al.autograd.grad(y, x, go, create_graph=True)
    assert _saved(g2.grad_fn) == {"_saved_align_corners": True, "_saved_output_size": (8, 10),
                                  "_saved_scales_h": 2.0, "_saved_scales_w": 2.0}
    (g3,) = al.autograd.grad(g2, go, al.rand(g2.shape, dtype=al.float64, requires_grad=True), create_graph=True)
    assert g3.grad_fn._saved_self_sym_sizes == (1, 1, 4, 5)


@pytest.mark.parametrize("mode, rank, options, kind", [case for case in _cases() if case.id.endswith("-scale")])
def test_the_gradient_as_a_function_of_the_outputs_gradient_passes_gradcheck_and_gradgradcheck(mode, rank, options,
                                                                                            kind):
    x = al.tensor(np.random.default_rng(0).standard_normal((1, 2) + SPATIAL[:rank]), requires_grad=True)
    out = al.nn.functional.interpolate(x, mode=mode, **options)
    given = al.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), requires_grad=True)

    def gradient(g):
        return al.autograd.grad(out, x, g, create_graph=True)[0]

    assert gradient(given).grad_fn.name() == f"Upsample{kind}BackwardBackward0"
    assert gradcheck(gradient, [given])
    assert gradgradcheck(gradient, [given])
