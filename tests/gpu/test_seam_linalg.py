"""The linear-algebra ops and functions on a device that is not NumPy's (the ``device`` fixture: the CuPy test
double in CI, a real GPU where CuPy sees one): values, nodes and gradients equal the CPU's to 1e-10, so none of
them calls NumPy on its data (the LU, triangular solves and Cholesky factor written out in ``ops/_lapack.py``
included)."""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture)
from gpu.test_seam_ops import assert_same

RNG = np.random.default_rng(11)
SQUARE = RNG.uniform(-0.5, 0.5, (2, 3, 3)) + np.diag([2.0, 3.0, 4.0])
RHS = RNG.standard_normal((2, 3, 2))
TALL = RNG.uniform(-1, 1, (2, 4, 3)) + np.eye(4, 3) * 2

CASES = {
    "det": (lambda m, A: m.linalg.det(A), SQUARE),
    "slogdet": (lambda m, A: m.linalg.slogdet(A), SQUARE),
    "inv_ex_singular": (lambda m, A: m.linalg.inv_ex(A.detach() * m.tensor([[1.0], [1.0], [0.0]], dtype=A.dtype)),
                        SQUARE),  # (inf in the inverse, and info; detached: a gradient through inf is nan)
    "cholesky_ex": (lambda m, A: m.linalg.cholesky_ex(A @ A.mT), SQUARE),
    "solve_triangular": (lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), SQUARE, RHS),
    "lu_factor": (lambda m, A: m.linalg.lu_factor_ex(A), TALL),
    "lu": (lambda m, A: m.linalg.lu(A), TALL),
    "lu_solve": (lambda m, A, B: m.linalg.lu_solve(*m.linalg.lu_factor(A), B, adjoint=True), SQUARE, RHS),
    "lu_unpack": (lambda m, A: m.lu_unpack(*m.linalg.lu_factor(A)), TALL),
    "matrix_exp": (lambda m, A: m.linalg.matrix_exp(A), SQUARE),
    "cholesky_solve": (lambda m, A, B: m.cholesky_solve(B, m.linalg.cholesky(A @ A.mT)), SQUARE, RHS),
    "cholesky_inverse": (lambda m, A: m.cholesky_inverse(m.linalg.cholesky(A @ A.mT), upper=False), SQUARE),
    "householder_product": (lambda m, A, tau: m.linalg.householder_product(A, tau), TALL, RHS[..., 0]),
    "lstsq": (lambda m, A, B: m.linalg.lstsq(A, B, driver="gelsd")[:2], TALL, RNG.standard_normal((2, 4, 2))),
    "cond": (lambda m, A: m.linalg.cond(A, 1), SQUARE),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_linalg_on_device_equals_cpu(case, device):  # noqa: F811
    fn, *arrays = CASES[case]
    assert_same(fn, arrays, device)
