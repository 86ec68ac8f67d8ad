"""More of ``torch.linalg``: ``matrix_exp``, ``matrix_rank``, ``cond``, ``diagonal``, ``vander``, ``tensorinv``,
``tensorsolve``, ``lstsq``, ``householder_product``, and the top-level ``al.cholesky_solve``, ``al.cholesky_inverse``,
``al.matrix_exp``, ``al.pinverse`` and ``al.orgqr`` (with their Tensor methods). ``matrix_exp``, ``cholesky_solve``
and ``cholesky_inverse`` are ops (:mod:`autograd_lab.ops.linalg_more`); the others are made of other ops, as
PyTorch's composite functions are, and record those ops' nodes.
"""

from __future__ import annotations

import math
import warnings
from collections import namedtuple

from . import backend
from .autograd.grad_mode import no_grad
from .linalg import _check, _check_batches, _check_matrix, _where, eigvalsh, inv, inv_ex, matrix_norm, pinv, solve, svdvals
from .linalg import cholesky as _linalg_cholesky
from .linalg_lu import solve_triangular
from .ops import linalg_more as _more
from .ops._args import checked
from .ops._errors import no_kernel
from .ops._lapack import column_major
from .tensor import Tensor

__all__ = ["matrix_exp", "matrix_rank", "cond", "diagonal", "vander", "tensorinv", "tensorsolve", "lstsq",
           "householder_product"]
_INF = float("inf")


@checked(name="linalg.matrix_exp")
def matrix_exp(A):
    """``exp(A) = I + A + A^2/2! + ...`` of each square matrix, by scaling and squaring (``LinalgMatrixExpBackward0``).
    ``exp(A) @ exp(B) == exp(A + B)`` only where A and B commute."""
    _check_matrix("linalg.matrix_exp", A)
    if not A.dtype.is_floating_point:
        _check("linalg.matrix_exp", A)
    return _more.LinalgMatrixExpBackward0.apply(A)


@checked(name="linalg.matrix_rank")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """How many singular values of each matrix exceed ``max(atol, rtol * largest)`` (int64, no gradient). ``rtol``
    defaults to ``max(m, n) * eps`` of A's dtype, or to 0 when only a positive ``atol`` is given; ``tol`` (the old
    spelling) is ``atol`` with ``rtol=0``; ``hermitian``: from the eigenvalues of the lower triangle."""
    if isinstance(A, Tensor) and not A.dtype.is_floating_point:
        raise RuntimeError("This function doesn't handle types other than float and double [autograd_lab] convert it "
                           "first, e.g. A.double()")
    _check_matrix("torch.linalg.matrix_rank", A, square=False, arg="input")
    if tol is not None:
        atol, rtol = tol, 0.0
    if rtol is None:
        positive = atol is not None and bool((atol > 0).all() if isinstance(atol, Tensor) else atol > 0)
        rtol = 0.0 if positive else max(A.shape[-2:]) * float(backend.np.finfo(A._data.dtype).eps)
    with no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        if S.shape[-1] == 0:
            return S.sum(-1).long()
        cutoff = S.amax(-1) * rtol
        if atol is not None:
            cutoff = cutoff.clamp(min=atol) if not isinstance(atol, Tensor) else cutoff.maximum(atol.to(S.dtype))
        return (S > cutoff.unsqueeze(-1)).sum(-1)


@checked(name="linalg.cond")
def cond(A, p=None):
    """The condition number of each matrix in the norm ``p``: ``norm(A) * norm(inv(A))``. ``None``, 2 and -2 take the
    ratio of the largest and smallest singular values (any m x n matrix); 'fro', 'nuc', 1, -1, inf and -inf need
    square matrices, and a singular one has inf (PyTorch records other nodes for some of them)."""
    if p not in (None, "fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        _check("linalg.svd", A, square=False)
        S = svdvals(A)
        largest, smallest = S[..., 0], S[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    _check(f"linalg.cond(ord={p})", A)
    inverse, info = inv_ex(A)
    out = matrix_norm(A, p) * matrix_norm(inverse, p)
    return _where(info != 0, _INF, out)


@checked(name="linalg.diagonal")
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix (``offset`` above it, or below when negative) over the dims ``dim1`` and ``dim2``:
    a view, as ``A.diagonal``."""
    return A.diagonal(offset, dim1, dim2)


@checked(name="linalg.vander")
def vander(x, *, N=None):
    """The Vandermonde matrix of the last dim of ``x``: columns ``x^0, x^1, ..., x^(N-1)`` (``N`` defaults to
    ``x.shape[-1]``), made of a ``cumprod`` and a ``cat`` as PyTorch makes it."""
    n = N if N is not None else x.shape[-1] if x.ndim else 1
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    from .ops.join import cat
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return cat([x.new_ones(tuple(x.shape) + (1,)).to(powers.dtype), powers], -1)


def _product(sizes) -> int:
    return math.prod(int(s) for s in sizes)


@checked(name="linalg.tensorinv")
def tensorinv(A, ind=2):
    """The inverse of ``A`` read as a matrix: its first ``ind`` dims the rows, the others the columns (their sizes'
    products must agree); the result has shape ``A.shape[ind:] + A.shape[:ind]``, so that ``tensordot(tensorinv(A),
    A, ind)`` is the identity."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _product(A.shape[:ind]), _product(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]),"
                           f" but got {cols} != {rows} [autograd_lab] shape {list(A.shape)}, ind={ind}")
    return inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


@checked(name="linalg.tensorsolve")
def tensorsolve(A, B, dims=None):
    """X with ``tensordot(A, X, X.ndim) == B``: A read as a matrix whose rows are B's elements (``dims``: dims of A
    moved to the end first); X has shape ``A.shape[B.ndim:]``."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in dims], *dims)
    rows, cols = B.numel(), _product(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows} [autograd_lab] A "
                           f"{list(A.shape)}, B {list(B.shape)}")
    return solve(A.reshape(rows, cols), B.reshape(-1)).reshape(A.shape[B.ndim:])


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
LstsqResult = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


@checked(name="linalg.lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)``: X minimizing ``||A X - B||`` for each (m x n) matrix A (B a
    batch of matrices, or of vectors), the smallest such X where A is rank-deficient, computed as ``pinv(A) @ B``
    with singular values at or below ``rcond * largest`` counted as zero (``rcond`` defaults to ``max(m, n) * eps``).
    The other fields are filled as PyTorch fills them on the CPU for each LAPACK ``driver`` (default 'gelsy'): the
    squared residuals of each column for 'gels', 'gelsd' and 'gelss' when m > n and every A has full rank, the
    rank for all but 'gels', the singular values for 'gelsd' and 'gelss'; the others are empty. (PyTorch records
    ``LinalgLstsqBackward0``, whose gradient is the same ``pinv``'s; here pinv's and the product's nodes.)"""
    if isinstance(A, Tensor) and isinstance(B, Tensor) and not (A.dtype.is_floating_point and B.dtype.is_floating_point):
        raise RuntimeError("This function doesn't handle types other than float and double [autograd_lab] convert "
                           "them first, e.g. A.double()")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                           f"{backend.kernel_type_name(A.dtype)} and other's dtype {backend.kernel_type_name(B.dtype)}")
    if (driver or "gelsy") not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.ndim == A.ndim - 1
    if B.ndim == 0 or (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2}) "
                           f"[autograd_lab] A {list(A.shape)}, B {list(B.shape)}")
    return _lstsq(A, B.unsqueeze(-1) if vector else B, rcond, driver or "gelsy", vector)


def _lstsq(A, B, rcond, driver: str, vector: bool):
    m, n = A.shape[-2:]
    if rcond is None:
        rcond = max(m, n) * float(backend.np.finfo(A._data.dtype).eps)
    X = pinv(A, rtol=max(rcond, 0.0) if driver != "gels" else 0.0) @ B
    empty = A.new_zeros(0)
    rank = matrix_rank(A, rtol=max(rcond, 0.0)) if driver != "gels" else empty.long()
    S = svdvals(A).detach() if driver in ("gelsd", "gelss") else empty
    full = driver == "gels" or bool((rank == min(m, n)).all())
    residuals = ((A @ X - B) ** 2).sum(-2) if driver != "gelsy" and m > n and full else empty
    return LstsqResult(X.squeeze(-1) if vector else X, residuals, rank, S)  # (residuals keep their column, as in
    # PyTorch)


@checked(name="linalg.householder_product")
def householder_product(A, tau):
    """The first n columns of ``H_1 H_2 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, with ``v_i`` the i-th column of
    A below its diagonal and a 1 on it (the form :func:`geqrf` leaves a QR in): the Q of a QR from its reflectors.
    Made of products, so the gradient reaches A and tau (PyTorch records ``LinalgHouseholderProductBackward0``)."""
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.ndim < 1 or n < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {backend.kernel_type_name(tau.dtype)} does not match input dtype "
                           f"{backend.kernel_type_name(A.dtype)}")
    return _reflections(A, tau)[..., :, :n]


def _reflections(A, tau):
    """The whole m x m product ``H_1 ... H_k`` of the reflectors stored in A's columns below the diagonal."""
    from .creation import eye
    m, n = A.shape[-2:]
    V = A.tril(-1) + eye(m, n, dtype=A.dtype, device=A.device)
    Q = eye(m, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, m)
    for i in range(tau.shape[-1]):  # Q H_i = Q - tau_i (Q v_i) v_i^T
        v = V[..., :, i:i + 1]
        Q = Q - (Q @ v) * tau[..., i, None, None] @ v.mT
    return Q


GeqrfResult = namedtuple("geqrf", ["a", "tau"])


@checked(name="geqrf")
def geqrf(input):
    """``(a, tau)``: the QR factorization as LAPACK's ``geqrf`` leaves it: R on and above the diagonal of ``a``, the
    Householder reflectors that make Q below it, their scales in ``tau`` (:func:`householder_product` rebuilds Q).
    Not differentiable: PyTorch records ``GeqrfBackward0``, whose backward raises; here the results do not require
    grad (differentiate :func:`autograd_lab.linalg.qr` instead)."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise no_kernel("geqrf_cpu", input.dtype, "convert it first, e.g. A.double()")
    xp = backend.namespace_of(input._data)
    h, tau = xp.linalg.qr(input._data, mode="raw")  # (h: LAPACK's column-major a, seen transposed)
    return GeqrfResult(Tensor._make(column_major(h.swapaxes(-2, -1))), Tensor._make(tau))


@checked(name="ormqr")
def ormqr(input, tau, other, left=True, transpose=False):
    """``other`` multiplied by the Q of :func:`geqrf`'s ``(input, tau)``: ``Q @ other`` (``left=False``: ``other @
    Q``; ``transpose``: Q^T in place of Q), Q the whole m x m product of the reflectors. Made of products
    (PyTorch records ``OrmqrBackward0``)."""
    name = "torch.ormqr"
    m = input.shape[-2]
    if (other.shape[-2] if left else other.shape[-1]) != m:
        raise RuntimeError(f"{name}: other.shape[{-2 if left else -1}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(other.shape[-2] if left else other.shape[-1], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
                           "input.shape[-1])")
    if other.dtype != input.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{backend.kernel_type_name(input.dtype)} and other has dtype "
                           f"{backend.kernel_type_name(other.dtype)}")
    Q = _reflections(input, tau)
    Q = Q.mT if transpose else Q
    return Q @ other if left else other @ Q


_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\n"
    "L = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
    "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent "
    "results for all valid (symmetric positive definite) inputs.")


def cholesky(input, upper=False):
    """``al.cholesky`` (``torch.cholesky``, deprecated: it warns): :func:`autograd_lab.linalg.cholesky`."""
    warnings.warn(_CHOLESKY_DEPRECATED, UserWarning, stacklevel=2)
    return _linalg_cholesky(input, upper=upper)


_TRIANGULAR_SOLVE_DEPRECATED = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of "
    "the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
    "torch.linalg.solve_triangular(A, B).")
TriangularSolveResult = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


@checked(name="triangular_solve")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """``al.triangular_solve`` (``torch.triangular_solve``, deprecated: it warns): ``(solution, cloned_coefficient)``,
    X with ``A X = input`` (``transpose``: ``A^T X = input``) for triangular A, and a copy of A. (PyTorch records
    ``TriangularSolveBackward0``; here :func:`autograd_lab.linalg.solve_triangular`'s node and a clone's.)"""
    warnings.warn(_TRIANGULAR_SOLVE_DEPRECATED, UserWarning, stacklevel=3)
    if input.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {input.ndim} "
                           "dimensions instead")
    if A.ndim >= 2 and input.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by "
                           f"{A.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    solution = solve_triangular(A.mT if transpose else A, input, upper=upper != transpose, unitriangular=unitriangular)
    return TriangularSolveResult(solution, A.expand(*solution.shape[:-2], *A.shape[-2:]).clone())


@checked(name="cholesky_solve")
def cholesky_solve(input, input2, upper=False):
    """X with ``A X = input`` for A given by its Cholesky factor ``input2``: ``A = L @ L.mT`` (``upper``: ``U.mT @
    U``); only that triangle of the factor is read (``CholeskySolveBackward0``)."""
    B, L = input, input2
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions instead")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} by {L.shape[-1]} matrices "
                           "[autograd_lab] input2 is the Cholesky factor of A, an n x n matrix")
    if B.dtype != L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{backend.kernel_type_name(B.dtype)} and A of type {backend.kernel_type_name(L.dtype)} "
                           "instead. [autograd_lab] convert one, e.g. input.to(input2.dtype)")
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-1]} by "
                           f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    _check_batches("cholesky_solve", tuple(B.shape[:-2]), tuple(L.shape[:-2]))
    if not L.dtype.is_floating_point or L.dtype.itemsize < 4:
        raise no_kernel("cholesky_solve_cpu", L.dtype, "convert both first, e.g. .double()")
    return _more.CholeskySolveBackward0.apply(B, L, upper=upper)


@checked(name="cholesky_inverse")
def cholesky_inverse(input, upper=False):
    """``A^-1`` for A given by its Cholesky factor: ``A = L @ L.mT`` (``upper``: ``U.mT @ U``); only that triangle is
    read (``CholeskyInverseBackward0``)."""
    _check_matrix("cholesky_inverse", input)
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise no_kernel("cholesky_inverse_out_cpu", input.dtype, "convert it first, e.g. .double()")
    return _more.CholeskyInverseBackward0.apply(input, upper=upper)


@checked(name="pinverse")
def pinverse(input, rcond=1e-15):
    """``al.pinverse`` (``torch.pinverse``): :func:`autograd_lab.linalg.pinv` with singular values at or below
    ``rcond`` times the largest counted as zero."""
    return pinv(input, rtol=rcond)


def _bind() -> None:
    Tensor.matrix_exp = matrix_exp
    Tensor.cholesky_solve = cholesky_solve
    Tensor.cholesky_inverse = cholesky_inverse
    Tensor.orgqr = householder_product
    Tensor.ormqr = ormqr
    Tensor.geqrf = geqrf
    Tensor.triangular_solve = triangular_solve
    Tensor.cholesky = cholesky  # (deprecated in PyTorch: it warns)


_bind()
