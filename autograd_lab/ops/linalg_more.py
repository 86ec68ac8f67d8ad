"""The matrix exponential, and solves and inverses from a Cholesky factor: ``matrix_exp``, ``cholesky_solve``,
``cholesky_inverse``, each op named as PyTorch's node.

The derivative of the matrix exponential uses a classic identity: for the block matrix ``M = [[A, E], [0, A]]``,
``exp(M) = [[exp(A), D], [0, exp(A)]]`` where ``D`` is the derivative of ``exp`` at ``A`` in the direction ``E``. So
the forward rule is the top-right block of ``exp([[A, dA], [0, A]])``, and the gradient, the adjoint of that map,
the top-right block of ``exp([[A^T, grad], [0, A^T]])`` (PyTorch computes the same); both are exponentials, so the
gradient of a gradient follows. With ``A = L L^T`` (``upper``: ``U^T U``), ``cholesky_solve`` is ``A^-1 B`` and
``cholesky_inverse`` ``A^-1``; their derivatives are those of ``A^-1`` times the one of ``L L^T``.
"""

from __future__ import annotations

import math

from . import formulas as F
from ._lapack import column_major, substitute
from ._op import Op


def _mT(x):
    return F.transpose(x, -2, -1)


def expm_arrays(xp, A):
    """``exp(A)`` of each matrix, by scaling and squaring: ``A / 2^s`` has a 1-norm of at most 1/2, where 18 terms of
    the Taylor series are exact to rounding in float64; the result is then squared ``s`` times."""
    n = A.shape[-1]
    eye = xp.eye(n, dtype=A.dtype)
    norm = float(xp.abs(A).sum(-2).max()) if A.size else 0.0  # (the largest 1-norm of the batch)
    s = max(0, math.ceil(math.log2(norm)) + 1) if math.isfinite(norm) and norm > 0 else 0
    X = A / 2.0 ** s
    term = xp.broadcast_to(eye, A.shape)
    result = term.copy()
    for k in range(1, 19):
        term = xp.matmul(term, X) / k
        result = result + term
    for _ in range(s):
        result = xp.matmul(result, result)
    return result


def _exp_block(A, E):
    """The top-right block of ``exp([[A, E], [0, A]])``: the derivative of ``exp`` at A in the direction E."""
    n = A.shape[-1]
    top = F.cat([A, E], -1)
    bottom = F.cat([F.zeros_like(A) + F.zeros_like(E), A], -1)
    block = F.call(LinalgMatrixExpBackward0, F.cat([top, bottom], -2))
    return F.split(F.split(block, (n, n), -2)[0], (n, n), -1)[1]


class LinalgMatrixExpBackward0(Op):
    """out = exp(A) = I + A + A^2/2! + ..., per square matrix"""
    saves = ("self",)

    def forward(xp, self):
        return expm_arrays(xp, self)

    def d_self(grad, self):
        return _exp_block(_mT(self), grad)

    def f_self(tangent, self):
        return _exp_block(self, tangent)


def _lower(L, upper: bool):
    """The lower factor: L itself, or U^T."""
    return _mT(L) if upper else L


def _dA(dL, L, upper: bool):
    """The tangent of A = L L^T (``upper``: U^T U) for a tangent ``dL`` of the factor."""
    dL, L = _lower(dL, upper), _lower(L, upper)
    product = F.matmul(dL, _mT(L))
    return product + _mT(product)


def _cholesky_solve(xp, B, L, upper: bool):
    """X with L L^T X = B (``upper``: U^T U X = B), reading the factor's triangle only (as LAPACK's ``potrs``)."""
    L = L.swapaxes(-2, -1) if upper else L
    return substitute(xp, L.swapaxes(-2, -1), substitute(xp, L, B, False, False), True, False)


def _factor_gradient(gA, L, upper: bool):
    """The gradient of the factor, given the gradient ``gA`` of A = L L^T (``upper``: U^T U): (gA + gA^T) L, or
    U (gA + gA^T) (the whole matrix, as PyTorch gives it)."""
    both = gA + _mT(gA)
    return F.matmul(L, both) if upper else F.matmul(both, L)


class CholeskySolveBackward0(Op):
    """out = X with A X = B, A = L L^T (``upper``: U^T U) given by its Cholesky factor ``input2``; ``self`` is B"""
    saves = ("input2", "result", "self", "upper")

    def forward(xp, self, input2, *, upper=False):
        return column_major(_cholesky_solve(xp, self, input2, upper))

    def backward(grad, input2, result, self, upper, grad_input_mask):
        gB = F.call(CholeskySolveBackward0, grad, input2, upper=upper)  # A^-1 grad (A is symmetric)
        gL = _factor_gradient(-F.matmul(gB, _mT(result)), input2, upper) if grad_input_mask[1] else None
        return gB if grad_input_mask[0] else None, gL

    def jvp(tangents, input2, result, upper):  # dX = A^-1 (dB - dA X)
        dB, dL = tangents
        rest = dB - F.matmul(_dA(dL, input2, upper), result)
        return F.call(CholeskySolveBackward0, rest, input2, upper=upper)


class CholeskyInverseBackward0(Op):
    """out = A^-1 with A = L L^T (``upper``: U^T U) given by its Cholesky factor"""
    saves = ("result", "self", "upper")

    def forward(xp, self, *, upper=False):
        eye = xp.broadcast_to(xp.eye(self.shape[-1], dtype=self.dtype), self.shape)
        return column_major(_cholesky_solve(xp, eye, self, upper))

    def d_self(grad, result, self, upper):  # gA = -A^-1 grad A^-1 (A^-1 symmetric)
        return _factor_gradient(-F.matmul(result, F.matmul(grad, result)), self, upper)

    def f_self(tangent, result, self, upper):  # d(A^-1) = -A^-1 dA A^-1
        return -F.matmul(result, F.matmul(_dA(tangent, self, upper), result))
