"""Triangular solves and the LU factorization: ``solve_triangular``, ``lu_factor(_ex)``, ``lu``, ``lu_solve`` and
``lu_unpack``, each on (batches of) matrices, each op named as PyTorch's node.

The LU factorization with partial pivoting writes ``A = P L U``: ``L`` unit lower triangular (its diagonal of ones
is not stored), ``U`` upper triangular, ``P`` the permutation made of the row swaps. LAPACK's ``getrf`` packs ``L``
and ``U`` in one matrix ``LU`` and gives the swaps as ``pivots``: at step ``i``, row ``i`` was swapped with row
``pivots[i]`` (1-based, int32, as PyTorch returns them). NumPy has no LU, so ``_lapack.lu_factor_arrays`` runs the
textbook elimination, one column at a time for the whole batch, choosing as pivot the largest entry of the column
(the first of equal ones, as LAPACK's ``idamax``).

The derivatives are the standard ones (PyTorch's ``linalg_lu_backward`` computes the same): for a square ``A``,
``dA = P (dL U + L dU)``, so ``L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1`` splits into its strictly lower part (``dL``'s)
and its upper part (``dU``'s); the gradient is ``gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``. A tall or
wide ``A`` is a square LU beside a block that is a triangular solve, whose derivative is added to it. The
integer ``pivots`` and ``info``, and ``lu``'s ``P``, have no gradient (``Op.non_differentiable``).
"""

from __future__ import annotations

from . import formulas as F
from ._lapack import column_major, lu_factor_arrays, lu_solve_arrays, substitute, unpack_arrays
from ._op import Op


def _mT(x):
    return F.transpose(x, -2, -1)


def _triu(x, diagonal: int = 0):
    return x - F.tril(x, diagonal - 1)


def _triangle(x, upper: bool, unitriangular: bool = False):
    """The upper (or lower) triangle of each matrix, without its diagonal when ``unitriangular``."""
    if upper:
        return _triu(x, 1 if unitriangular else 0)
    return F.tril(x, -1 if unitriangular else 0)


class LinalgSolveTriangularBackward0(Op):
    """out = X with A X = B (``left=False``: X A = B), A read as its upper (``upper``) or lower triangle, with ones
    on its diagonal when ``unitriangular``"""
    saves = ("left", "result", "self", "unitriangular", "upper")

    def forward(xp, self, B, *, upper, left=True, unitriangular=False):
        if left:
            return column_major(substitute(xp, self, B, upper, unitriangular))
        return column_major(substitute(xp, self.swapaxes(-2, -1), B.swapaxes(-2, -1), not upper, unitriangular)
                            .swapaxes(-2, -1))

    def backward(grad, left, result, self, unitriangular, upper, grad_input_mask):
        # gB = A^-T grad (left) or grad A^-T (right); gA = -gB X^T (left) or -X^T gB (right), on A's triangle
        gB = F.solve_triangular(_mT(self), grad, upper=not upper, left=left, unitriangular=unitriangular)
        gA = None
        if grad_input_mask[0]:
            gA = _triangle(-(F.matmul(gB, _mT(result)) if left else F.matmul(_mT(result), gB)), upper, unitriangular)
        return gA, gB if grad_input_mask[1] else None

    def jvp(tangents, self, result, upper, left, unitriangular):  # dX = A^-1 (dB - dA X), or (dB - X dA) A^-1
        dA, dB = tangents
        dA = _triangle(dA, upper, unitriangular)
        rest = dB - (F.matmul(dA, result) if left else F.matmul(result, dA))
        return F.solve_triangular(self, rest, upper=upper, left=left, unitriangular=unitriangular)


def _unpack(LU, pivots):
    """``(P, L, U)`` in a formula (recorded through ``LuUnpackBackward0`` under create_graph)."""
    return F.call(LuUnpackBackward0, LU, LU_pivots=pivots)


def _lu_backward(gL, gU, P, L, U):
    """The gradient of ``A = P L U`` for A, given the gradients of L and U (either may be None)."""
    m, n, k = L.shape[-2], U.shape[-1], U.shape[-2]
    gL = F.zeros_like(L) if gL is None else gL
    gU = F.zeros_like(U) if gU is None else gU
    if m > k:  # tall: L = [L1; L2] with L2 = A2 U^-1, so gA2 = gL2 U^-T, and U gets -L2^T gL2 U^-T
        (L1, L2), (gL1, gL2) = F.split(L, (k, m - k), -2), F.split(gL, (k, m - k), -2)
        gA2 = F.solve_triangular(_mT(U), gL2, upper=False, left=False)
        gA1 = _lu_square_backward(gL1, gU - F.matmul(_mT(L2), gA2), L1, U)
        return F.matmul(P, F.cat([gA1, gA2], -2))
    if n > k:  # wide: U = [U1 | U2] with U2 = L^-1 A2, so gA2 = L^-T gU2, and L gets -L^-T gU2 U2^T
        (U1, U2), (gU1, gU2) = F.split(U, (k, n - k), -1), F.split(gU, (k, n - k), -1)
        gA2 = F.solve_triangular(_mT(L), gU2, upper=True, unitriangular=True)
        gA1 = _lu_square_backward(gL - F.matmul(gA2, _mT(U2)), gU1, L, U1)
        return F.matmul(P, F.cat([gA1, gA2], -1))
    return F.matmul(P, _lu_square_backward(gL, gU, L, U))


def _lu_square_backward(gL, gU, L, U):
    """``L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``: the gradient of ``P^T A = L U`` for square factors."""
    inner = F.tril(F.matmul(_mT(L), gL), -1) + _triu(F.matmul(gU, _mT(U)))
    inner = F.solve_triangular(_mT(L), inner, upper=True, unitriangular=True)
    return F.solve_triangular(_mT(U), inner, upper=False, left=False)


def _lu_jvp(dA, P, L, U):
    """``(dL, dU)`` for a tangent ``dA`` of ``A = P L U``: with X = L^-1 P^T dA U^-1 (square part), dL = L tril(X, -1)
    and dU = triu(X) U; a tall A's last rows give dL2 = (dA2 - L2 dU) U^-1, a wide A's last columns
    dU2 = L^-1 (dA2 - dL U2)."""
    m, n, k = L.shape[-2], U.shape[-1], U.shape[-2]
    dA = F.matmul(_mT(P), dA)
    if m > k:
        (dA1, dA2), (L1, L2) = F.split(dA, (k, m - k), -2), F.split(L, (k, m - k), -2)
        dL1, dU = _lu_jvp_square(dA1, L1, U)
        dL2 = F.solve_triangular(U, dA2 - F.matmul(L2, dU), upper=True, left=False)
        return F.cat([dL1, dL2], -2), dU
    if n > k:
        (dA1, dA2), (U1, U2) = F.split(dA, (k, n - k), -1), F.split(U, (k, n - k), -1)
        dL, dU1 = _lu_jvp_square(dA1, L, U1)
        dU2 = F.solve_triangular(L, dA2 - F.matmul(dL, U2), upper=False, unitriangular=True)
        return dL, F.cat([dU1, dU2], -1)
    return _lu_jvp_square(dA, L, U)


def _lu_jvp_square(dA, L, U):
    X = F.solve_triangular(L, dA, upper=False, unitriangular=True)
    X = F.solve_triangular(U, X, upper=True, left=False)
    return F.matmul(L, F.tril(X, -1)), F.matmul(_triu(X), U)


def _packed(dL, dU):
    """One matrix holding the strictly lower part of dL and the upper part of dU (as LU holds L and U)."""
    m, k, n = dL.shape[-2], dL.shape[-1], dU.shape[-1]
    if m > k:
        return dL + F.cat([dU, F.zeros(dU.shape[:-2] + (m - k, n), dU)], -2)
    if n > k:
        return F.cat([dL, F.zeros(dL.shape[:-2] + (m, n - k), dL)], -1) + dU
    return dL + dU


class LinalgLuFactorExBackward0(Op):
    """out = (LU, pivots, info): the LU factorization with partial pivoting of each matrix, packed as LAPACK's
    ``getrf`` packs it (``pivot=False`` is not implemented on the CPU, as in PyTorch)"""
    outputs = ("LU", "pivots", "info")
    non_differentiable = ("pivots", "info")
    saves = ("LU", "pivot", "pivots")

    def forward(xp, A, *, pivot=True):
        LU, pivots, info = lu_factor_arrays(xp, A)
        return column_major(LU), pivots, info

    def d_A(grads, LU, pivots):
        gLU = grads[0]
        P, L, U = _unpack(LU, pivots)
        k = U.shape[-2]
        return _lu_backward(F.tril(gLU, -1)[..., :, :k], _triu(gLU)[..., :k, :], P, L, U)

    def f_A(tangent, LU, pivots):
        dL, dU = _lu_jvp(tangent, *_unpack(LU, pivots))
        return _packed(dL, dU), None, None


class LinalgLuBackward0(Op):
    """out = (P, L, U) with A = P L U: P a permutation matrix (no gradient), L unit lower triangular (m x k), U upper
    triangular (k x n), k = min(m, n)"""
    outputs = ("P", "L", "U")
    non_differentiable = ("P",)
    saves = ("L", "P", "U", "pivot")

    def forward(xp, A, *, pivot=True):
        LU, pivots, _ = lu_factor_arrays(xp, A)
        return unpack_arrays(xp, LU, pivots)

    def d_A(grads, L, P, U):
        return _lu_backward(grads[1], grads[2], P, L, U)

    def f_A(tangent, L, P, U):
        return (None,) + _lu_jvp(tangent, P, L, U)


class LuUnpackBackward0(Op):
    """out = (P, L, U) read from the packed ``LU_data`` and its ``LU_pivots`` (``unpack_data=False``: L and U
    empty; ``unpack_pivots=False``: P empty); the gradient of L and U goes back to their places in ``LU_data``"""
    outputs = ("P", "L", "U")
    non_differentiable = ("P",)
    tensor_params = ("LU_pivots",)
    saves = ("LU_data_sym_argsize_minus_1", "LU_data_sym_argsize_minus_2")

    def forward(xp, LU_data, *, LU_pivots, unpack_data=True, unpack_pivots=True):
        P, L, U = unpack_arrays(xp, LU_data, LU_pivots)
        empty = xp.zeros((0,), dtype=LU_data.dtype)
        return P if unpack_pivots else empty, L if unpack_data else empty, U if unpack_data else empty

    def d_LU_data(grads, LU_data_sym_argsize_minus_1, LU_data_sym_argsize_minus_2):
        n, m = LU_data_sym_argsize_minus_1, LU_data_sym_argsize_minus_2
        gL, gU = (g if g is not None and g.ndim >= 2 else None for g in grads[1:])
        if gL is None and gU is None:
            return None
        like = gL if gL is not None else gU
        zero = F.zeros(like.shape[:-2] + (m, n), like)
        gL = zero if gL is None else _packed(F.tril(gL, -1), F.zeros(gL.shape[:-2] + (gL.shape[-1], n), gL))
        gU = zero if gU is None else _packed(F.zeros(gU.shape[:-2] + (m, gU.shape[-2]), gU), _triu(gU))
        return gL + gU

    def f_LU_data(tangent, unpack_data):
        if not unpack_data:
            return None, None, None
        k = min(tangent.shape[-2:])
        return None, F.tril(tangent[..., :, :k], -1), _triu(tangent[..., :k, :])


class LinalgLuSolveBackward0(Op):
    """out = X with A X = B (``left=False``: X A = B; ``adjoint``: A^T in place of A), A = P L U given by its
    packed ``LU`` and ``pivots``"""
    tensor_params = ("pivots",)
    saves = ("LU", "adjoint", "left", "pivots", "result")

    def forward(xp, LU, B, *, pivots, left=True, adjoint=False):
        return column_major(lu_solve_arrays(xp, LU, pivots, B, left=left, adjoint=adjoint))

    def backward(grad, LU, adjoint, left, pivots, result, grad_input_mask):
        gB = F.call(LinalgLuSolveBackward0, LU, grad, pivots=pivots, left=left, adjoint=not adjoint)
        if not grad_input_mask[0]:
            return None, gB
        X = result
        if left:
            gA = -F.matmul(X, _mT(gB)) if adjoint else -F.matmul(gB, _mT(X))
        else:
            gA = -F.matmul(_mT(gB), X) if adjoint else -F.matmul(_mT(X), gB)
        P, L, U = _unpack(LU, pivots)  # A = P L U: gL = P^T gA U^T, gU = L^T P^T gA
        PgA = F.matmul(_mT(P), gA)
        gLU = F.tril(F.matmul(PgA, _mT(U)), -1) + _triu(F.matmul(_mT(L), PgA))
        return gLU, gB if grad_input_mask[1] else None

    def jvp(tangents, LU, result, pivots, left, adjoint):  # dX = A^-1 (dB - dA X) for A X = B, and so on
        dLU, dB = tangents
        P, L, U = _unpack(LU, pivots)
        dA = F.matmul(P, F.matmul(F.tril(dLU, -1), U) + F.matmul(L, _triu(dLU)))
        dA = _mT(dA) if adjoint else dA
        rest = dB - (F.matmul(dA, result) if left else F.matmul(result, dA))
        return F.call(LinalgLuSolveBackward0, LU, rest, pivots=pivots, left=left, adjoint=adjoint)
