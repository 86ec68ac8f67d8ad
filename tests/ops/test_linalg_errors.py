"""Linear-algebra mistakes (a singular matrix, one that is not positive-definite, not square, not a matrix, integer,
mismatched shapes) raise PyTorch's error type and phrase, then autograd_lab's advice."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
INDEFINITE = [[1.0, 2.0], [2.0, 1.0]]

CASES = {
    "inv_singular": lambda lib: lib.linalg.inv(lib.tensor(SINGULAR)),
    "inv_singular_batch": lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.tensor(SINGULAR)])),
    "inverse_zeros": lambda lib: lib.inverse(lib.zeros(3, 3)),
    "solve_singular": lambda lib: lib.linalg.solve(lib.tensor(SINGULAR), lib.ones(2)),
    "solve_singular_batch": lambda lib: lib.linalg.solve(lib.stack([lib.eye(2), lib.tensor(SINGULAR)]), lib.ones(2)),
    "cholesky_indefinite": lambda lib: lib.linalg.cholesky(lib.tensor(INDEFINITE)),
    "cholesky_batch": lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), lib.tensor(INDEFINITE)])),
    "det_not_square": lambda lib: lib.linalg.det(lib.ones(3, 4)),
    "det_vector": lambda lib: lib.det(lib.ones(3)),
    "det_integer": lambda lib: lib.linalg.det(lib.ones(3, 3, dtype=lib.long)),
    "inv_not_square": lambda lib: lib.linalg.inv(lib.ones(2, 3)),
    "eigh_not_square": lambda lib: lib.linalg.eigh(lib.ones(2, 3)),
    "svd_vector": lambda lib: lib.linalg.svd(lib.ones(3)),
    "matrix_power_not_square": lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    "solve_shapes": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4, 2)),
    "solve_dtypes": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, 2, dtype=lib.float64)),
    "cross_length": lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(2, 4)),
    "cross_dims": lambda lib: lib.linalg.cross(lib.ones(2, 2, 3), lib.ones(2, 3)),
    "matrix_norm_ord": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3), 3),
    "norm_3d_ord": lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), 2),
    "cdist_vector": lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)),
    "cdist_columns": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)),
    "tensordot_sizes": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(4, 2), 1),
    "inner_sizes": lambda lib: lib.inner(lib.ones(2, 3), lib.ones(4, 2)),
    "multi_dot_one": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3)]),
    "solve_batches": lambda lib: lib.linalg.solve(lib.randn(2, 3, 3), lib.randn(4, 3, 2)),
    "cross_batches": lambda lib: lib.linalg.cross(lib.randn(2, 3), lib.randn(4, 3)),
    "multi_dot_shapes": lambda lib: lib.linalg.multi_dot([lib.randn(2, 3), lib.randn(4, 3)]),
    "multi_dot_3d": lambda lib: lib.linalg.multi_dot([lib.randn(2, 2, 3), lib.randn(3, 3)]),
    "multi_dot_middle": lambda lib: lib.linalg.multi_dot([lib.randn(2, 3), lib.randn(3), lib.randn(3, 3)]),
    "cdist_batches": lambda lib: lib.cdist(lib.randn(2, 3, 4), lib.randn(3, 3, 4)),
    "vecdot_sizes": lambda lib: lib.linalg.vecdot(lib.randn(2, 3), lib.randn(2, 4)),
    "qr_mode": lambda lib: lib.linalg.qr(lib.ones(2, 3), mode="x"),
    "inv_half": lambda lib: lib.linalg.inv(lib.eye(2).half()),
}


def _error(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn(lib)
    return info.value


@pytest.mark.parametrize("name", sorted(CASES))
def test_errors_read_like_torch(name):
    ours, theirs = _error(CASES[name], al), _error(CASES[name], torch)
    assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError)
    phrase = str(theirs).split("\n")[0]
    assert str(ours).startswith(phrase), (str(ours), phrase)
    if isinstance(theirs, torch.linalg.LinAlgError):
        assert isinstance(ours, al.linalg.LinAlgError)
        assert "[autograd_lab]" in str(ours)


def test_qr_complete_of_a_tall_matrix_has_no_gradient_as_in_torch():
    A = al.tensor(np.random.default_rng(0).standard_normal((4, 3)), requires_grad=True)
    Q, R = al.linalg.qr(A, mode="complete")
    with pytest.raises(RuntimeError, match="The QR decomposition is not differentiable when mode='complete' and "
                                           "nrows > ncols."):
        Q.sum().backward()


def test_repeated_eigenvalues_give_nan_eigenvector_gradients_as_in_torch():
    A = al.eye(3, dtype=al.float64, requires_grad=True)
    al.linalg.eigh(A).eigenvectors.sum().backward()
    assert np.isnan(A.grad.numpy()).all()
    B = al.eye(3, dtype=al.float64, requires_grad=True)
    al.linalg.eigvalsh(B).sum().backward()  # the eigenvalues alone are differentiable there
    np.testing.assert_allclose(B.grad.numpy(), np.eye(3))
