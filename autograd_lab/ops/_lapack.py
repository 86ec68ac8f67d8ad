"""The LAPACK routines NumPy does not expose, on arrays (NumPy's or CuPy's ``xp``), batched: the triangular solve
(``trsm``), the LU factorization with partial pivoting (``getrf``) and the solve from it (``getrs``). They are
written out as the textbook algorithms, one row or column at a time for the whole batch, so they read as the math;
they compute what LAPACK computes, up to rounding (and give inf or nan where LAPACK divides by a zero pivot).
"""

from __future__ import annotations

import math

from .. import backend


def _flat(a, tail: tuple):
    """``a`` as one batch dim then ``tail``: ``reshape((-1,) + tail)`` reads no size from an empty ``a`` (a 0 x 0
    matrix, or a batch of them), so the batch's size is counted here."""
    return a.reshape((math.prod(a.shape[:a.ndim - len(tail)]),) + tail)


def column_major(a):
    """``a`` laid out as LAPACK writes its results, and PyTorch returns them: each matrix by columns (so ``a.mT`` is
    contiguous and ``a.mT.view(-1)`` works, as in PyTorch, while ``a.view(-1)`` raises, as there)."""
    return a if a.ndim < 2 else a.swapaxes(-2, -1).copy().swapaxes(-2, -1)


def substitute(xp, A, B, upper: bool, unitriangular: bool):
    """X with T X = B, T the upper (or lower) triangle of each A, by substitution one row of X at a time (from the
    last row up for an upper T), as LAPACK's ``trsm``: a zero on the diagonal gives inf or nan, not an error."""
    n = A.shape[-1]
    T = xp.triu(A, 1) if upper else xp.tril(A, -1)  # (the diagonal is divided by, or taken as ones)
    batch = backend.np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    X = xp.zeros(batch + B.shape[-2:], dtype=xp.result_type(A, B))
    with backend.np.errstate(divide="ignore", invalid="ignore"):
        for i in reversed(range(n)) if upper else range(n):  # the rows of X not computed yet are still 0
            row = B[..., i, :] - xp.matmul(T[..., i:i + 1, :], X)[..., 0, :]
            X[..., i, :] = row if unitriangular else row / A[..., i, i:i + 1]
    return X


def _idamax(xp, columns):
    """The row of each column's largest absolute value, the first of equal ones, as BLAS's ``idamax`` finds it: a NaN
    is never larger than what came before it (every comparison with it is false), so it is the pivot only where it
    comes first. (NumPy's ``argmax`` would take the first NaN anywhere.)"""
    size = xp.abs(columns)
    nan = xp.isnan(size)
    return xp.where(nan[:, 0], 0, xp.argmax(xp.where(nan, -1, size), axis=1))


def lu_factor_arrays(xp, A):
    """``(LU, pivots, info)`` of each matrix of ``A`` (m x n): Gaussian elimination with partial pivoting, as LAPACK's
    ``getrf``. ``info`` is the 1-based step of the first exactly zero pivot (0 if none): the factorization still
    completes there (that column is already zero below the diagonal), and ``U`` has a zero on its diagonal."""
    m, n = A.shape[-2:]
    k = min(m, n)
    LU = _flat(A, (m, n)).copy()
    pivots = xp.zeros((LU.shape[0], k), dtype=xp.int32)
    info = xp.zeros(LU.shape[0], dtype=xp.int32)
    every = xp.arange(LU.shape[0])
    for j in range(k):
        p = j + _idamax(xp, LU[:, j:, j])
        pivots[:, j] = p + 1
        row = LU[every, j].copy()
        LU[every, j] = LU[every, p]
        LU[every, p] = row
        pivot = LU[:, j, j]
        zero = pivot == 0
        info = xp.where(zero & (info == 0), j + 1, info).astype(xp.int32)
        LU[:, j + 1:, j] /= xp.where(zero, 1, pivot)[:, None]  # (below a zero pivot the column is zero already)
        LU[:, j + 1:, j + 1:] -= LU[:, j + 1:, j, None] * LU[:, j, None, j + 1:]
    batch = A.shape[:-2]
    return LU.reshape(A.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def _order(xp, pivots, m: int):
    """``order`` (per matrix, shape ``pivots.shape[:-1] + (m,)``) of the row swaps ``pivots`` (1-based), made one after
    the other on the rows ``0 .. m-1``: ``(P^T A)[i] = A[order[i]]`` for ``A = P L U``."""
    flat = _flat(pivots, pivots.shape[-1:]).astype(xp.int64) - 1
    order = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    every = xp.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        here = order[every, j].copy()
        order[every, j] = order[every, flat[:, j]]
        order[every, flat[:, j]] = here
    return order.reshape(pivots.shape[:-1] + (m,))


def permutation(xp, pivots, m: int, dtype):
    """The matrix P of the row swaps ``pivots`` (1-based), with ``A = P L U``: ``(P^T A)[i] = A[order[i]]``."""
    order = _flat(_order(xp, pivots, m), (m,))
    every = xp.arange(order.shape[0])
    P = xp.zeros((order.shape[0], m, m), dtype=dtype)
    P[every[:, None], order, xp.arange(m)] = 1  # column i of P is the unit vector e_order[i]
    return P.reshape(pivots.shape[:-1] + (m, m))


def _rows(xp, X, order):
    """``X[..., order[i], :]`` for each row i, batch dims broadcast: a permutation applied by moving rows, as LAPACK's
    ``laswp`` applies the swaps, not by a product with P (whose zeros times an inf in X would give nan in every
    row)."""
    batch = backend.np.broadcast_shapes(X.shape[:-2], order.shape[:-1])
    X = xp.broadcast_to(X, batch + X.shape[-2:])
    index = xp.broadcast_to(order[..., :, None], batch + (order.shape[-1], X.shape[-1]))
    return xp.take_along_axis(X, index, axis=-2)


def unpack_arrays(xp, LU, pivots):
    """``(P, L, U)`` from the packed factors of ``lu_factor``."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=LU.dtype)
    U = xp.triu(LU[..., :k, :])
    return permutation(xp, pivots, m, LU.dtype), L, U


def lu_solve_arrays(xp, LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (``left=False``: X A = B; ``adjoint``: A^T in place of A) from A's packed LU factors, as
    LAPACK's ``getrs``: two triangular solves and the row swaps."""
    n = LU.shape[-1]
    L, U = xp.tril(LU, -1) + xp.eye(n, dtype=LU.dtype), xp.triu(LU)
    order = _order(xp, pivots, n)  # (P^T B)[i] = B[order[i]], and P Y = Y[argsort(order)]
    if not left:  # X A = B is A^T X^T = B^T, and X A^T = B is A X^T = B^T
        B = B.swapaxes(-2, -1)
    if left != adjoint:  # A X = B (or A X^T = B^T): X = U^-1 L^-1 P^T B
        Y = substitute(xp, L, _rows(xp, B, order), False, True)
        X = substitute(xp, U, Y, True, False)
    else:  # A^T X = B (or A^T X^T = B^T): X = P L^-T U^-T B
        Y = substitute(xp, U.swapaxes(-2, -1), B, False, False)
        X = _rows(xp, substitute(xp, L.swapaxes(-2, -1), Y, True, True), xp.argsort(order, axis=-1))
    return X if left else X.swapaxes(-2, -1)


def cholesky_arrays(xp, A):
    """``(L, info)`` of each symmetric matrix, reading its lower triangle, as LAPACK's ``potrf``: ``info`` is 0, or the
    order of the first leading minor that is not positive-definite; there that matrix's factorization stops (the
    diagonal element where it failed holds what would have had a square root taken, the later columns are 0)."""
    n = A.shape[-1]
    flat = _flat(A, (n, n))
    L = xp.zeros(flat.shape, dtype=A.dtype)
    info = xp.zeros(flat.shape[0], dtype=xp.int32)
    for j in range(n):
        going = info == 0
        d = flat[:, j, j] - (L[:, j, :j] * L[:, j, :j]).sum(-1)
        failed = going & ~(d > 0)
        info = xp.where(failed, j + 1, info).astype(xp.int32)
        root = xp.sqrt(xp.where(going & ~failed, d, 1))
        L[:, j, j] = xp.where(going & ~failed, root, xp.where(failed, d, L[:, j, j]))
        column = (flat[:, j + 1:, j] - xp.matmul(L[:, j + 1:, :j], L[:, j, :j, None])[..., 0]) / root[:, None]
        L[:, j + 1:, j] = xp.where((going & ~failed)[:, None], column, 0)
    return L.reshape(A.shape), info.reshape(A.shape[:-2])
