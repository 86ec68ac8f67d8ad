"""``al.linalg`` against ``torch.linalg``: values, the node recorded, gradients (float64 and float32, single and
batched matrices), and gradcheck / gradgradcheck / forward-mode checks in float64 on well-conditioned matrices.

Decompositions are compared through functions that do not depend on the factors' signs (``Q * Q``, ``U @ diag(S)
@ Vh``...), as the factors are only defined up to them."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def _spd(rng, shape):
    """Symmetric positive-definite matrices with well separated eigenvalues."""
    n = shape[-1]
    X = rng.standard_normal(shape)
    return X @ np.swapaxes(X, -1, -2) / n + np.diag(np.arange(1.0, n + 1))


def _general(rng, shape):
    """Well-conditioned square (or rectangular) matrices with distinct singular values."""
    X = rng.uniform(-0.5, 0.5, shape)
    k = min(shape[-2:])
    return X + np.eye(shape[-2], shape[-1]) * np.arange(2.0, 2.0 + shape[-1]) * (np.arange(shape[-1]) < k)


# name -> (make inputs from rng and a batch shape, al function, torch function, node, differentiable input count)
CASES = {
    "det": (lambda r, b: [_general(r, b + (3, 3))], al.linalg.det, torch.linalg.det, "LinalgDetBackward0"),
    "top_det": (lambda r, b: [_general(r, b + (3, 3))], lambda A: A.det(), lambda A: A.det(), "LinalgDetBackward0"),
    "slogdet": (lambda r, b: [-_general(r, b + (3, 3))], lambda A: al.linalg.slogdet(A)[1] + al.slogdet(A).sign,
                lambda A: torch.linalg.slogdet(A)[1] + torch.slogdet(A).sign, "AddBackward0"),
    "logdet": (lambda r, b: [_spd(r, b + (3, 3))], al.logdet, torch.logdet, "WhereBackward0"),
    "inv": (lambda r, b: [_general(r, b + (3, 3))], al.linalg.inv, torch.linalg.inv, "LinalgInvExBackward0"),
    "inverse": (lambda r, b: [_general(r, b + (4, 4))], lambda A: A.inverse(), lambda A: A.inverse(),
                "LinalgInvExBackward0"),
    "solve": (lambda r, b: [_general(r, b + (3, 3)), r.standard_normal(b + (3, 2))], al.linalg.solve,
              torch.linalg.solve, "LinalgSolveExBackward0"),
    "solve_vector": (lambda r, b: [_general(r, b + (3, 3)), r.standard_normal(b + (3,))], al.linalg.solve,
                     torch.linalg.solve, "LinalgSolveExBackward0"),
    "solve_broadcast": (lambda r, b: [_general(r, (3, 3)), r.standard_normal(b + (3, 2))], al.linalg.solve,
                        torch.linalg.solve, "LinalgSolveExBackward0"),
    "cholesky": (lambda r, b: [_spd(r, b + (3, 3))], al.linalg.cholesky, torch.linalg.cholesky,
                 "LinalgCholeskyExBackward0"),
    "cholesky_upper": (lambda r, b: [_spd(r, b + (3, 3))], lambda A: al.linalg.cholesky(A, upper=True),
                       lambda A: torch.linalg.cholesky(A, upper=True), "LinalgCholeskyExBackward0"),
    "qr_tall": (lambda r, b: [_general(r, b + (4, 3))], lambda A: _qr_invariant(al.linalg.qr(A)),
                lambda A: _qr_invariant(torch.linalg.qr(A)), "CatBackward0"),
    "qr_wide": (lambda r, b: [_general(r, b + (3, 5))], lambda A: _qr_invariant(al.linalg.qr(A)),
                lambda A: _qr_invariant(torch.linalg.qr(A)), "CatBackward0"),
    "eigh": (lambda r, b: [_spd(r, b + (4, 4))], lambda A: _eigh_invariant(al.linalg.eigh(A)),
             lambda A: _eigh_invariant(torch.linalg.eigh(A)), "CatBackward0"),
    "eigh_upper": (lambda r, b: [_spd(r, b + (3, 3)) + np.triu(np.ones((3, 3)), 1)],
                   lambda A: _eigh_invariant(al.linalg.eigh(A, UPLO="U")),
                   lambda A: _eigh_invariant(torch.linalg.eigh(A, UPLO="U")), "CatBackward0"),
    "eigvalsh": (lambda r, b: [_spd(r, b + (4, 4))], al.linalg.eigvalsh, torch.linalg.eigvalsh,
                 "LinalgEighBackward0"),
    "svd_tall": (lambda r, b: [_general(r, b + (4, 3))], lambda A: _svd_invariant(al.linalg.svd(A, False)),
                 lambda A: _svd_invariant(torch.linalg.svd(A, False)), "CatBackward0"),
    "svd_wide": (lambda r, b: [_general(r, b + (2, 4))], lambda A: _svd_invariant(al.linalg.svd(A, False)),
                 lambda A: _svd_invariant(torch.linalg.svd(A, False)), "CatBackward0"),
    "svdvals": (lambda r, b: [_general(r, b + (3, 4))], al.linalg.svdvals, torch.linalg.svdvals,
                "LinalgSvdBackward0"),
    "cross": (lambda r, b: [r.standard_normal(b + (2, 3)), r.standard_normal((1,) * len(b) + (1, 3))], al.linalg.cross,
              torch.linalg.cross, "LinalgCrossBackward0"),
}
for _ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
    CASES[f"matrix_norm_{_ord}"] = (lambda r, b: [_general(r, b + (3, 4))],
                                    lambda A, o=_ord: al.linalg.matrix_norm(A, o),
                                    lambda A, o=_ord: torch.linalg.matrix_norm(A, o), None)


def _qr_invariant(qr):
    Q, R = qr
    lib = al if isinstance(Q, al.Tensor) else torch
    return lib.cat([(Q * Q).sum(-1), (R * R).sum(-2), (Q @ R).sum(-1)], -1)


def _eigh_invariant(eigh):
    L, V = eigh
    lib = al if isinstance(L, al.Tensor) else torch
    return lib.cat([L * 1.5, (V * V * V * V).sum(-1)], -1)


def _svd_invariant(svd):
    U, S, Vh = svd
    lib = al if isinstance(S, al.Tensor) else torch
    return lib.cat([(U * U * U * U).sum(-1), S, (Vh * Vh * Vh * Vh).sum(-2), ((U * S.unsqueeze(-2)) @ Vh).sum(-1)],
                   -1)


def _symmetrized(fn):
    return lambda A: fn((A + A.mT) / 2)


def _run(lib, fn, arrays, dtype):
    tensors = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(*tensors)
    weights = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    (out * lib.tensor(weights, dtype=dtype)).sum().backward()
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("batch", [(), (2,), (2, 1)], ids=["single", "batch", "batch2"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name, dtype, batch):
    make, fn, torch_fn, node = CASES[name]
    arrays = make(np.random.default_rng(0), batch)
    out, grads = _run(al, fn, arrays, getattr(al, dtype))
    t_out, t_grads = _run(torch, torch_fn, arrays, getattr(torch, dtype))
    tol = 1e-9 if dtype == "float64" else 2e-4
    assert out.dtype is getattr(al, dtype) and tuple(out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=tol, atol=tol)
    assert out.grad_fn.name() == (node or t_out.grad_fn.name())
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_gradgradcheck_and_forward_mode(name):
    make, fn, _, _ = CASES[name]
    if name.startswith(("cholesky", "eigh", "eigvalsh")):  # (they read one triangle: perturb both, as torch's tests)
        fn = _symmetrized(fn)
    inputs = [al.tensor(a, requires_grad=True) for a in make(np.random.default_rng(1), (2,))]
    assert gradcheck(fn, inputs, check_forward_ad=True)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("hook", ["retain_grad", "register_hook"])
def test_det_of_a_1x1_matrix_sends_no_second_order_gradient_through_the_determinant(hook):
    """A 1x1 matrix's cofactor is the constant 1, as PyTorch's gradient has it: a retained or hooked gradient of the
    determinant sees only what reaches it directly in a second pass (fuzzer seeds 41007057, 41056065)."""
    results = []
    for m in (al, torch):
        x = m.tensor([[-1.0], [1.5], [-2.0]], dtype=m.float64, requires_grad=True)
        det = m.linalg.det(x.mT @ x + m.eye(1, dtype=m.float64))
        if hook == "retain_grad":
            det.retain_grad()
        else:
            det.register_hook(lambda g: g * -1.0)
        loss = det * -0.6
        (grad,) = m.autograd.grad(loss, [x], create_graph=True)
        assert grad.grad_fn is not None  # (through x.mT @ x: it depends on x, not on the determinant)
        (second,) = m.autograd.grad(loss + (grad * grad).sum(), [x])
        results.append((second.tolist(), None if det.grad is None else det.grad.item()))
    assert results[0][1] == results[1][1]
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
