"""Linear algebra on (batches of) matrices: determinants, inverse, solve, and the decompositions.

Each op is named as PyTorch's node (``LinalgDetBackward0``, ``LinalgInvExBackward0``...), takes inputs of shape
``(..., m, n)`` and works on every matrix of the batch. The derivatives are the standard ones (PyTorch's
``FunctionsManual.cpp`` computes the same): for ``det`` ``grad * det * A^-T``, for ``inv`` ``-A^-T grad A^-T``,
for the decompositions the formulas in each class. The decompositions save their factors (``outputs`` names
them as PyTorch does: ``Q``, ``R``; ``eigenvalues``, ``eigenvectors``; ``U``, ``S``, ``Vh``), so that
``qr(A).Q.grad_fn._saved_Q`` is there to read, and an in-place change of a factor before ``backward()`` is an
error; under ``create_graph`` a saved factor unpacks with this node as its ``grad_fn``, so the gradient of a
gradient follows the factors.

Where the derivative is not defined (repeated eigenvalues, repeated singular values), the formulas divide by
zero and give ``inf`` or ``nan``, as PyTorch's do and document.
"""

from __future__ import annotations

from .. import backend
from . import formulas as F
from ._lapack import cholesky_arrays, lu_factor_arrays, lu_solve_arrays
from ._lapack import column_major as _column_major
from ._op import Op


class LinAlgError(RuntimeError):
    """A matrix the op cannot work with (singular, not positive-definite): PyTorch's ``torch.linalg.LinAlgError``."""


def singular_error(name: str, info, shape, solver: bool = False) -> LinAlgError:
    """PyTorch's error for a singular matrix, naming the first one of a batch (``info``: where each one's LU met its
    first zero pivot, 1-based, 0 for none)."""
    flat = info.reshape(-1)
    first = int((flat != 0).argmax())
    prefix = f"(Batch element {first}): " if len(shape) > 2 else ""
    what = "The solver failed because the input matrix is singular." if solver else \
        f"The diagonal element {int(flat[first])} is zero, the inversion could not be completed because the input " \
        "matrix is singular."
    return LinAlgError(f"{name}: {prefix}{what} [autograd_lab] shape {list(shape)}: an exactly singular matrix has "
                       "no inverse; check it (al.linalg.det, al.linalg.svdvals) or use al.linalg.pinv")


def not_positive_definite_error(name: str, info, shape) -> LinAlgError:
    """PyTorch's error for a matrix that is not positive-definite (``info``: the order of each one's first leading
    minor that is not, 0 for none)."""
    flat = info.reshape(-1)
    first = int((flat != 0).argmax())
    prefix = f"(Batch element {first}): " if len(shape) > 2 else ""
    return LinAlgError(f"{name}: {prefix}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {int(flat[first])} is not positive-definite). "
                       f"[autograd_lab] shape {list(shape)}: Cholesky needs a symmetric positive-definite matrix, e.g. "
                       "X @ X.mT + eps * I")


def _mT(x):
    return F.transpose(x, -2, -1)


def _trace(x):
    return F.sum(F.diagonal(x), -1)


def _unsq2(x):
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


def _lu_det(xp, A):
    """``(LU, pivots, U's diagonal, ±1)`` of each matrix, from its LU factorization: the determinant is the product of
    U's diagonal, its sign flipped by each row swap (a pivot that is not its own row), as LAPACK and PyTorch compute
    it. As PyTorch does, a row-major A is factored as A^T (LAPACK reads its memory so, without a copy; det(A^T) =
    det(A)), so the LU and pivots kept are A^T's, and a column-major A (a transpose) is factored as it is."""
    LU, pivots, _ = lu_factor_arrays(xp, A.swapaxes(-2, -1) if A.flags.c_contiguous else A)
    swaps = (pivots != xp.arange(1, A.shape[-1] + 1, dtype=pivots.dtype)).sum(-1)
    return _column_major(LU), pivots, xp.diagonal(LU, 0, -2, -1), (1 - 2 * (swaps % 2)).astype(A.dtype)


class LinalgDetBackward0(Op):
    """out = det(A), per matrix, from A's LU factors (kept, as PyTorch keeps them: ``LU``, ``pivots``; no gradient)"""
    outputs = ("result", "LU", "pivots")
    non_differentiable = ("LU", "pivots")
    saves = ("A", "LU", "pivots", "result")

    def forward(xp, A):
        LU, pivots, diagonal, parity = _lu_det(xp, A)
        # inf * 0 = nan and overflow to inf, quietly, as in PyTorch (NumPy's prod warns from its own module, which
        # the package's filter of its IEEE warnings does not cover)
        with backend.np.errstate(invalid="ignore", over="ignore"):
            det = xp.prod(diagonal, -1)
        return xp.asarray(det * parity).astype(A.dtype, copy=False), LU, pivots

    def d_A(grads, A, result):  # the cofactor matrix det(A) A^-T; from the SVD where a matrix is (nearly) singular
        return _unsq2(grads[0]) * _cofactors(A, result)

    def f_A(tangent, A, result):  # d det = sum(cofactors * dA) = det * trace(A^-1 dA)
        if F.any_true(_singular(result)):
            return F.sum(_cofactors(A, result) * tangent, (-2, -1)), None, None
        return result * _trace(F.solve(A, tangent)), None, None


def _singular(result):
    """Where ``|det(A)| < 100 eps``, PyTorch's test (``linalg_det_backward``) for the matrices whose cofactors it
    takes from the SVD: the determinant the LU gives a singular matrix is often rounding noise, not 0, and A^-1
    then overflows (a constant mask, an array)."""
    data = F.array_of(result)
    return F.abs(data) < 100 * backend.np.finfo(data.dtype).eps


def _cofactors(A, result):
    """The matrix of cofactors of each matrix, ``det(A) A^-T``; where one is (nearly) singular, from its SVD
    ``U S Vh``: ``det(U) det(Vh) U diag(prod of the other singular values) Vh`` (as PyTorch computes it under
    create_graph). In a batch with both kinds each formula runs on its own matrices, the others replaced by a
    constant (the lower triangle of ones: invertible, distinct singular values), so that neither formula's inf or
    nan (A^-1 of a singular A, the SVD's derivative at repeated singular values) reaches the other's matrices, even
    in a second derivative (as PyTorch's ``masked_fmap`` does). A 1x1 matrix's one cofactor is the constant 1:
    no second-order gradient then flows through det(A) or A^-1, as in PyTorch (where a hook or retain_grad on the
    determinant sees it)."""
    if F.array_of(A).shape[-1] == 1:
        return F.ones_like(A)
    singular = _singular(result)
    if not F.any_true(singular):
        return _unsq2(result) * _mT(F.inv(A))
    if F.any_true(~singular):
        mask, other = singular[..., None, None], F.tril(F.ones_like(A))
        return F.where(mask, _svd_cofactors(F.where(mask, A, other)),
                       _unsq2(result) * _mT(F.inv(F.where(mask, other, A))))
    return _svd_cofactors(A)


def _svd_cofactors(A):
    U, S, Vh = F.call(LinalgSvdBackward0, A, full_matrices=False)
    square = F.unsqueeze(S, -2) + F.zeros_like(F.unsqueeze(S, -1))
    others = F.prod(F.where(F.eye_like(square) == 1, 1.0, square), -1)
    signs = F.call(LinalgDetBackward0, U)[0] * F.call(LinalgDetBackward0, Vh)[0]
    return _unsq2(signs) * F.matmul(U * F.unsqueeze(others, -2), Vh)


class LinalgSlogdetBackward0(Op):
    """out = ``(sign(det A), log|det A|)``, per matrix, from A's LU factors (kept, as PyTorch keeps them); only
    ``log|det A|`` has a gradient for real matrices"""
    outputs = ("sign", "logabsdet", "LU", "pivots")
    non_differentiable = ("LU", "pivots")
    saves = ("A", "LU", "pivots", "sign")  # (the formulas read A: under create_graph they are differentiated again)

    def forward(xp, A):
        LU, pivots, diagonal, parity = _lu_det(xp, A)
        sign = xp.asarray(xp.prod(xp.sign(diagonal), -1) * parity).astype(A.dtype, copy=False)
        with backend.np.errstate(divide="ignore", invalid="ignore"):  # (log 0 = -inf, for a singular matrix; inf - inf)
            logabsdet = xp.asarray(xp.log(xp.abs(diagonal)).sum(-1)).astype(A.dtype, copy=False)
        return sign, logabsdet, LU, pivots

    def d_A(grads, A):
        if grads[1] is None:
            return None
        return _unsq2(grads[1]) * _mT(F.inv(A))

    def f_A(tangent, A):
        return None, _trace(F.solve(A, tangent)), None, None


class LinalgInvExBackward0(Op):
    """out = (A^-1, info), per matrix (PyTorch's ``linalg_inv_ex``: ``inv`` and ``inverse`` record it); ``info``
    (int32, no gradient) is 0, or where a singular matrix's LU met a zero pivot (its inverse then holds inf)"""
    outputs = ("inverse", "info")
    non_differentiable = ("info",)
    saves = ("inverse",)

    def forward(xp, A):
        try:
            inverse, info = xp.linalg.inv(A), xp.zeros(A.shape[:-2], dtype=xp.int32)
        except xp.linalg.LinAlgError:  # singular: solve A X = I from the LU, as PyTorch does (inf where it divides by 0)
            LU, pivots, info = lu_factor_arrays(xp, A)
            inverse = lu_solve_arrays(xp, LU, pivots, xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape))
        return _column_major(inverse), info

    def d_A(grads, inverse):
        return -F.matmul(F.matmul(_mT(inverse), grads[0]), _mT(inverse))

    def f_A(tangent, inverse):
        return -F.matmul(F.matmul(inverse, tangent), inverse), None


class LinalgSolveExBackward0(Op):
    """out = (X, info) with A X = B, per matrix (``vector``: B is a batch of vectors, not of matrices); ``info`` as
    ``LinalgInvExBackward0``'s"""
    outputs = ("result", "info")
    non_differentiable = ("info",)
    saves = ("A", "result", "vector")

    def forward(xp, A, B, *, vector=False):
        B = B[..., None] if vector else B
        try:
            X, info = xp.linalg.solve(A, B), xp.zeros(A.shape[:-2], dtype=xp.int32)
        except xp.linalg.LinAlgError:  # singular: from the LU, as PyTorch (inf where it divides by 0)
            LU, pivots, info = lu_factor_arrays(xp, A)
            X = lu_solve_arrays(xp, LU, pivots, B)
        return (X[..., 0] if vector else _column_major(X)), info

    def backward(grads, A, result, vector, grad_input_mask):
        g = F.unsqueeze(grads[0], -1) if vector else grads[0]
        gB = F.solve(_mT(A), g)  # B's gradient: A^-T grad
        gA = -F.matmul(gB, _mT(F.unsqueeze(result, -1) if vector else result)) if grad_input_mask[0] else None
        return gA, (F.squeeze(gB, -1) if vector else gB) if grad_input_mask[1] else None

    def jvp(tangents, A, B, result, vector):  # dX = A^-1 (dB - dA X)
        dA, dB = tangents
        X = F.unsqueeze(result, -1) if vector else result
        out = F.solve(A, (F.unsqueeze(dB, -1) if vector else dB) - F.matmul(dA, X))
        return (F.squeeze(out, -1) if vector else out), None


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return F.tril(x, -1) + 0.5 * F.diag_embed(F.diagonal(x))


class LinalgCholeskyExBackward0(Op):
    """out = (L, info): L lower triangular with L L^T = A (``upper``: L^T), per symmetric positive-definite matrix;
    ``info`` (int32, no gradient) is 0, or the order of the first leading minor that is not positive-definite"""
    outputs = ("L", "info")
    non_differentiable = ("info",)
    saves = ("L", "upper")

    def forward(xp, A, *, upper=False):
        try:
            L, info = xp.linalg.cholesky(A), xp.zeros(A.shape[:-2], dtype=xp.int32)
        except xp.linalg.LinAlgError:
            L, info = cholesky_arrays(xp, A)
        return _column_major(L.swapaxes(-2, -1) if upper else L), info

    def d_A(grads, L, upper):  # gA = L^-T Phi(L^T gL) L^-1, symmetrized (L: the lower factor)
        L, gL = (_mT(L), _mT(grads[0])) if upper else (L, grads[0])
        inner = F.tril(F.matmul(_mT(L), gL))
        inner = 0.5 * (inner + _mT(F.tril(inner, -1)))
        # (L^-T inner) L^-1 by two triangular solves, which read only L's triangle, as PyTorch's
        half = F.solve_triangular(_mT(L), inner, upper=True)
        return F.solve_triangular(L, half, upper=False, left=False)

    def f_A(tangent, L, upper):  # dL = L Phi(L^-1 dA L^-T)
        L = _mT(L) if upper else L
        inner = F.solve_triangular(_mT(L), F.solve_triangular(L, tangent, upper=False), upper=True, left=False)
        dL = F.matmul(L, _phi(inner))
        return (_mT(dL) if upper else dL), None


class LinalgQrBackward0(Op):
    """out = (Q, R) with A = Q R, Q with orthonormal columns, R upper triangular (``mode``: 'reduced' or
    'complete')"""
    outputs = ("Q", "R")
    saves = ("Q", "R", "mode")

    def forward(xp, A, *, mode="reduced"):
        return tuple(_column_major(factor) for factor in xp.linalg.qr(A, mode=mode))

    def backward(grads, Q, R, mode):
        m, n = Q.shape[-2], R.shape[-1]
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        gQ = F.zeros_like(Q) if grads[0] is None else grads[0]
        gR = F.zeros_like(R) if grads[1] is None else grads[1]
        if m >= n:
            return _qr_tall_backward(gQ, gR, Q, R)
        # wide: A = [X | Y] with X square, R = [U | V], so X = Q U and Y = Q V
        gU, gV = F.split(gR, (m, n - m), -1)
        U, V = F.split(R, (m, n - m), -1)
        gX = _qr_tall_backward(gQ + F.matmul(F.matmul(Q, V), _mT(gV)), gU, Q, U)
        return F.cat([gX, F.matmul(Q, gV)], -1)

    def jvp(tangents, Q, R):
        (dA,) = tangents
        m, n = Q.shape[-2], R.shape[-1]
        if m >= n:
            return _qr_tall_jvp(dA, Q, R)
        dX, dY = F.split(dA, (m, n - m), -1)
        U, V = F.split(R, (m, n - m), -1)
        Y = F.matmul(Q, V)
        dQ, dU = _qr_tall_jvp(dX, Q, U)
        dV = F.matmul(_mT(dQ), Y) + F.matmul(_mT(Q), dY)
        return dQ, F.cat([dU, dV], -1)


def _right_solve_upper(X, R):
    """X R^-T: the product with the inverse transpose of a square upper triangular ``R``, by a triangular solve
    (which reads only R's triangle, as PyTorch's)."""
    return F.solve_triangular(_mT(R), X, upper=False, left=False)


def _qr_tall_backward(gQ, gR, Q, R):
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (m >= n), copyltu copying the lower triangle up."""
    M = F.matmul(R, _mT(gR)) - F.matmul(_mT(gQ), Q)
    copyltu = F.tril(M) + _mT(F.tril(M, -1))
    return _right_solve_upper(gQ + F.matmul(Q, copyltu), R)


def _qr_tall_jvp(dA, Q, R):
    """dR = (C - Omega) R, dQ = (dA - Q dR) R^-1, with C = Q^T dA R^-1 and Omega its skew part from the lower
    triangle."""
    dA_Rinv = F.solve_triangular(R, dA, upper=True, left=False)
    C = F.matmul(_mT(Q), dA_Rinv)
    low = F.tril(C, -1)
    dR = F.matmul(C - low + _mT(low), R)
    dQ = dA_Rinv - F.matmul(Q, F.solve_triangular(R, dR, upper=True, left=False))
    return dQ, dR


class LinalgEighBackward0(Op):
    """out = (L, V) with A = V diag(L) V^T, L ascending, per symmetric matrix (``UPLO``: the triangle read)"""
    outputs = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    def forward(xp, A, *, UPLO="L"):
        values, vectors = xp.linalg.eigh(A, UPLO=UPLO)
        return values, _column_major(vectors)

    def backward(grads, eigenvalues, eigenvectors):
        gL, gV = grads
        L, V = eigenvalues, eigenvectors
        if gV is None:  # only the eigenvalues: V diag(gL) V^T
            return F.matmul(V * F.unsqueeze(gL, -2), _mT(V))
        VgV = F.matmul(_mT(V), gV)
        VgV = 0.5 * (VgV - _mT(VgV))  # projected on the skew-symmetric matrices
        inner = VgV / _gaps(L)
        if gL is not None:
            inner = inner + F.diag_embed(gL)
        return F.matmul(V, F.matmul(inner, _mT(V)))

    def jvp(tangents, eigenvalues, eigenvectors):
        (dA,) = tangents
        L, V = eigenvalues, eigenvectors
        inner = F.matmul(_mT(V), F.matmul(dA, V))
        return F.diagonal(inner), F.matmul(V, inner / _gaps(L) * (1 - F.eye_like(inner)))


def _gaps(values):
    """E[i, j] = values[j] - values[i], with 1 on the diagonal (where the formulas read nothing)."""
    E = F.unsqueeze(values, -2) - F.unsqueeze(values, -1)
    return E + F.eye_like(E)


class LinalgSvdBackward0(Op):
    """out = (U, S, Vh) with A = U diag(S) Vh, S descending (``full_matrices=False``: the reduced factors)"""
    outputs = ("U", "S", "Vh")
    saves = ("full_matrices", "U", "S", "Vh")

    def forward(xp, A, *, full_matrices=False):
        U, S, Vh = xp.linalg.svd(A, full_matrices=full_matrices)
        return _column_major(U), S, _column_major(Vh)

    def backward(grads, full_matrices, U, S, Vh):
        gU, gS, gVh = grads
        if full_matrices:  # the columns of U (rows of Vh) past min(m, n) are arbitrary: their gradients are dropped
            k = S.shape[-1]
            U, gU = _leading(U, k, -1), _leading(gU, k, -1)
            Vh, gVh = _leading(Vh, k, -2), _leading(gVh, k, -2)
        return _svd_backward((gU, gS, gVh), U, S, Vh)

    def jvp(tangents, full_matrices, U, S, Vh):
        (dA,) = tangents
        k = S.shape[-1]
        U, Vh = _leading(U, k, -1), _leading(Vh, k, -2)
        dP = F.matmul(_mT(U), F.matmul(dA, _mT(Vh)))
        dS = F.diagonal(dP)
        if full_matrices:
            return None, dS, None
        E = _gaps(S * S)
        Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
        off = 1 - F.eye_like(E)
        dU_in = (dP * Sr + Sc * _mT(dP)) / E * off
        dV_in = (Sc * dP + _mT(dP) * Sr) / E * off
        dU = F.matmul(U, dU_in) + F.matmul(dA, _mT(Vh)) / Sr - F.matmul(U, dP) / Sr
        V = _mT(Vh)
        dV = F.matmul(V, dV_in) + F.matmul(_mT(dA), U) / Sr - F.matmul(V, _mT(dP)) / Sr
        return dU, dS, _mT(dV)


def _leading(x, k: int, dim: int):
    """The first ``k`` entries of ``x`` along ``dim`` (``x`` itself if it has no more; None stays None)."""
    if x is None or x.shape[dim] == k:
        return x
    return F.split(x, (k, x.shape[dim] - k), dim)[0]


def _svd_backward(grads, U, S, Vh):
    """PyTorch's ``svd_backward`` for real matrices (reduced factors)."""
    gU, gS, gVh = grads
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return F.matmul(U * F.unsqueeze(gS, -2), Vh)
    E = _gaps(S * S)
    Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    inner = F.zeros_like(E)
    if gU is not None:
        UgU = F.matmul(_mT(U), gU)
        inner = inner + (UgU - _mT(UgU)) * Sr / E
    if gVh is not None:
        VgV = F.matmul(Vh, _mT(gVh))
        inner = inner + Sc * (VgV - _mT(VgV)) / E
    if gS is not None:
        inner = inner + F.diag_embed(gS)
    k = S.shape[-1]
    if m > k and gU is not None:
        gUS = gU / Sr
        outer = F.matmul(U, inner) + gUS - F.matmul(U, F.matmul(_mT(U), gUS))
        return F.matmul(outer, Vh)
    if n > k and gVh is not None:
        gVS = gVh / Sc
        outer = F.matmul(inner, Vh) + gVS - F.matmul(F.matmul(gVS, _mT(Vh)), Vh)
        return F.matmul(U, outer)
    return F.matmul(U, F.matmul(inner, Vh))


class LinalgCrossBackward0(Op):
    """out = self x other along ``dim`` (of size 3), broadcast"""
    saves = ("dim", "other", "self")

    def forward(xp, self, other, *, dim=-1):
        a, b = xp.broadcast_arrays(self, other)
        return xp.cross(a, b, axis=dim)

    def d_self(grad, dim, other):
        return F.cross(other, grad, dim)

    def d_other(grad, dim, self):
        return F.cross(grad, self, dim)

    def f_self(tangent, dim, other):
        return F.cross(tangent, other, dim)

    def f_other(tangent, dim, self):
        return F.cross(self, tangent, dim)
