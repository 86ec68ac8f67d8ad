"""The linear-algebra functions made of other ops (norms, ``matrix_power``, ``multi_dot``, ``vecdot``, ``pinv``,
``kron``, ``tensordot``, ``inner``, ``cdist``), the top-level names and Tensor methods, and special values (a
singular determinant, ``logdet`` of a negative determinant, ``svd(full_matrices=True)``), against torch."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

RNG = np.random.default_rng(3)
SQUARE = RNG.uniform(-0.5, 0.5, (2, 3, 3)) + np.diag([2.0, 3.0, 4.0])
WIDE = RNG.uniform(-1, 1, (2, 3, 4)) + np.eye(3, 4) * np.array([3.0, 2.0, 1.0, 0.0])
VECTORS = RNG.standard_normal((4, 5))

# name -> (arrays, function called with al or torch as ``lib`` and the tensors, node PyTorch records)
CASES = {
    "norm_default": ([WIDE], lambda lib, A: lib.linalg.norm(A), "LinalgVectorNormBackward0"),
    "norm_matrix_ord": ([WIDE[0]], lambda lib, A: lib.linalg.norm(A, float("inf")), "AmaxBackward0"),
    "norm_nuc_dims": ([WIDE], lambda lib, A: lib.linalg.norm(A, "nuc", dim=(0, 2), keepdim=True), None),
    "norm_vector_dim": ([WIDE], lambda lib, A: lib.linalg.norm(A, 3, dim=1), "LinalgVectorNormBackward0"),
    "matrix_norm_keepdim": ([WIDE], lambda lib, A: lib.linalg.matrix_norm(A, -1, keepdim=True), "AminBackward0"),
    "matrix_norm_dims": ([WIDE], lambda lib, A: lib.linalg.matrix_norm(A, 1, dim=(2, 0)), "AmaxBackward0"),
    "vector_norm": ([VECTORS], lambda lib, x: lib.linalg.vector_norm(x, 1, dim=(0, 1)), "LinalgVectorNormBackward0"),
    "matrix_power_3": ([SQUARE], lambda lib, A: lib.linalg.matrix_power(A, 3), None),
    "matrix_power_0": ([SQUARE], lambda lib, A: lib.linalg.matrix_power(A, 0) * A, "MulBackward0"),
    "matrix_power_0_node": ([SQUARE], lambda lib, A: lib.linalg.matrix_power(A, 0), "CopyBackwards"),
    "matrix_power_-2": ([SQUARE], lambda lib, A: lib.matrix_power(A, -2), None),
    "matrix_power_5_method": ([SQUARE], lambda lib, A: A.matrix_power(5), None),
    "multi_dot": ([VECTORS[0, :3], SQUARE[0], WIDE[1]], lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]), None),
    "vecdot": ([VECTORS, VECTORS[:1]], lambda lib, x, y: lib.linalg.vecdot(x, y), "SumBackward1"),
    "pinv": ([WIDE], lambda lib, A: lib.linalg.pinv(A), None),
    "pinv_hermitian": ([SQUARE + SQUARE.swapaxes(1, 2)], lambda lib, A: lib.linalg.pinv(A, hermitian=True), None),
    "kron": ([SQUARE[0], WIDE[0, :2]], lambda lib, a, b: lib.kron(a, b), "UnsafeViewBackward0"),
    "kron_dims": ([VECTORS[0], WIDE[0]], lambda lib, a, b: lib.kron(a, b), "UnsafeViewBackward0"),
    "tensordot": ([WIDE, SQUARE], lambda lib, a, b: lib.tensordot(a, b, dims=([0, 1], [0, 2])), "ViewBackward0"),
    "tensordot_int": ([WIDE, WIDE[0].T.copy()], lambda lib, a, b: lib.tensordot(a, b, 1), "ViewBackward0"),
    "inner": ([WIDE, VECTORS[:, :4]], lambda lib, a, b: lib.inner(a, b), "ViewBackward0"),
    "cdist": ([WIDE, WIDE[:1, :2] + 0.1], lambda lib, a, b: lib.cdist(a, b), None),
    "cdist_zero_distance": ([WIDE, WIDE[:1, :2]], lambda lib, a, b: lib.cdist(a, b), None),
    "cdist_p1": ([VECTORS, VECTORS[:2] * 2], lambda lib, a, b: lib.cdist(a, b, p=1), None),
    "logdet_negative": ([-SQUARE], lambda lib, A: A.logdet(), "WhereBackward0"),
    "slogdet_method": ([-SQUARE], lambda lib, A: A.slogdet()[1], "LinalgSlogdetBackward0"),
    "cholesky_top": ([SQUARE @ SQUARE.swapaxes(1, 2)], lambda lib, A: lib.linalg.cholesky(A), None),
    "svd_full_matrices": ([WIDE[0]], lambda lib, A: lib.linalg.svd(A).U.abs().sum() + lib.linalg.svd(A)[1],
                          "AddBackward0"),
}


def _run(lib, fn, arrays):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *tensors)
    finite = out.isfinite()
    out.masked_fill(~finite, 0).sum().backward()
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name):
    arrays, fn, node = CASES[name]
    out, grads = _run(al, fn, arrays)
    t_out, t_grads = _run(torch, fn, arrays)
    assert tuple(out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    if node is not None:
        assert type(out.grad_fn).__name__ == type(t_out.grad_fn).__name__ == node
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", ["matrix_power_-2", "multi_dot", "pinv", "kron", "tensordot", "inner", "cdist",
                                  "norm_nuc_dims"])
def test_gradcheck_and_gradgradcheck(name):
    arrays, fn, _ = CASES[name]
    inputs = [al.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *xs: fn(al, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(al, *xs), inputs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_determinant_of_a_singular_matrix_has_the_cofactor_matrix_as_gradient(create_graph):
    """PyTorch gives the cofactors under create_graph, but zeros in a plain backward (its formula there multiplies
    by det = 0); the derivative is the cofactor matrix either way, and so it is here."""
    A = al.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=al.float64, requires_grad=True)
    (g,) = al.autograd.grad(al.linalg.det(A), A, create_graph=create_graph)
    t = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    (t_g,) = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), t_g.detach().numpy(), rtol=1e-9)
    np.testing.assert_allclose(g.detach().numpy(), [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-9)
    assert gradcheck(al.linalg.det, [A], check_forward_ad=True)



def _numerically_singular():
    """A matrix with two equal rows, whose LU leaves rounding noise (about 1e-16) for its determinant, not 0."""
    A = np.random.default_rng(5).standard_normal((4, 4))
    A[-1] = A[0]
    return A


@pytest.mark.parametrize("case", ["noise", "mixed_batch", "float32"])
def test_the_determinant_takes_its_cofactors_from_the_svd_where_torch_does(case):
    """PyTorch takes the cofactors from the SVD where |det| < 100 eps, and from A^-1 elsewhere, each formula on its
    own matrices of a batch: det(A) A^-T of a matrix whose det is rounding noise overflowed (inf, nan), and the
    SVD's derivative at the repeated singular values of an invertible matrix of the batch was nan."""
    dtype = "float32" if case == "float32" else "float64"
    data = {"noise": _numerically_singular(),
            "mixed_batch": np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 1.0], [-1.0, 1.0]]]),
            "float32": np.array([[[1e-3, 0.0], [0.0, 2e-3]], [[1.0, 2.0], [3.0, 4.0]]])}[case]
    results = []
    for lib in (al, torch):
        A = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
        det = lib.linalg.det(A)
        (g,) = (al if lib is al else torch).autograd.grad(det.sum(), A, create_graph=True)
        weights = lib.tensor(np.linspace(-1, 1, data.size).reshape(data.shape), dtype=getattr(lib, dtype))
        (gg,) = (al if lib is al else torch).autograd.grad((g * weights).sum(), A)
        results.append((g.detach().numpy(), gg.numpy()))
    tol = 1e-5 if dtype == "float32" else 1e-9
    for ours, theirs in zip(*results):
        assert np.isfinite(ours).all()
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    if dtype == "float64":  # (not gradgradcheck: its differences of the first derivative, 1e-6 off a singular
        # matrix, lose about 1e-4 to rounding)
        assert gradcheck(al.linalg.det, [al.tensor(data, requires_grad=True)], check_forward_ad=True)

def test_namespace_and_result_names_read_like_torch():
    A = al.tensor(SQUARE[0])
    assert al.linalg.slogdet(A)._fields == ("sign", "logabsdet")
    assert al.linalg.eigh(A + A.mT)._fields == ("eigenvalues", "eigenvectors")
    assert al.linalg.qr(A)._fields == ("Q", "R") and al.linalg.svd(A)._fields == ("U", "S", "Vh")
    assert issubclass(al.linalg.LinAlgError, RuntimeError)
    np.testing.assert_allclose(A.inverse().numpy(), np.linalg.inv(SQUARE[0]))
    np.testing.assert_allclose(al.inverse(A).numpy(), np.linalg.inv(SQUARE[0]))
    np.testing.assert_allclose(A.det().item(), np.linalg.det(SQUARE[0]))
    np.testing.assert_allclose(al.cross(A, A.flip(0), dim=-1).numpy(), np.cross(SQUARE[0], SQUARE[0][::-1]))


@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
def test_top_level_cross_svd_and_qr_read_like_torch():
    a = np.arange(6.0).reshape(3, 2) ** 1.5
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        ours = al.cross(al.tensor(a), al.tensor(a[::-1].copy()))
    with pytest.warns(UserWarning):
        theirs = torch.cross(torch.tensor(a), torch.tensor(a[::-1].copy()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())  # (the first dim of size 3: dim 0)
    U, S, V = al.svd(al.tensor(WIDE[0]))
    t_U, t_S, t_V = torch.svd(torch.tensor(WIDE[0]))
    np.testing.assert_allclose(((U * S) @ V.mT).numpy(), WIDE[0], atol=1e-12)
    assert tuple(V.shape) == tuple(t_V.shape) and tuple(U.shape) == tuple(t_U.shape)
    np.testing.assert_allclose(S.numpy(), t_S.numpy())
    Q, R = al.qr(al.tensor(WIDE[0].T.copy()), some=False)
    assert tuple(Q.shape) == tuple(torch.qr(torch.tensor(WIDE[0].T.copy()), some=False).Q.shape) == (4, 4)


def test_pinv_drops_small_singular_values_as_torch():
    """Values only: where a singular value is dropped, PyTorch's ``LinalgPinvBackward0`` differentiates the
    pseudo-inverse as a smooth function of A, ours differentiates through the truncated SVD (the gradients differ)."""
    A = np.diag([3.0, 1.0, 1e-3]) + 1e-4
    for kwargs in ({"atol": 0.01}, {"rtol": 0.01}, {"atol": 0.01, "rtol": 1e-6}, {}):
        ours = al.linalg.pinv(al.tensor(A), **kwargs).numpy()
        np.testing.assert_allclose(ours, torch.linalg.pinv(torch.tensor(A), **kwargs).numpy(), rtol=1e-9, atol=1e-9)
