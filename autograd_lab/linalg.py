"""``al.linalg``: linear algebra on (batches of) matrices, as ``torch.linalg``.

Every function takes inputs of shape ``(..., m, n)`` and works on each matrix of the batch. The ops and their
derivatives are in :mod:`autograd_lab.ops.linalg_decomp`; what is made of other ops here (the norms,
``matrix_power``, ``multi_dot``, ``pinv``, ``vecdot``) records those ops' nodes, as PyTorch's composite
functions do.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

from . import backend
from .ops import linalg_decomp as _decomp
from .ops._args import checked
from .ops._errors import broadcast_message
from .ops.linalg import matmul as _matmul
from .ops.norm import norm as _vector_norm
from .tensor import Tensor

matmul = _matmul  # (as torch.linalg.matmul)
__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "det", "slogdet", "inv", "solve", "cholesky", "qr",
           "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_power", "cross", "vecdot", "multi_dot",
           "solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "inv_ex", "solve_ex", "cholesky_ex",
           "matrix_exp", "matrix_rank", "cond", "diagonal", "vander", "tensorinv", "tensorsolve", "lstsq",
           "householder_product"]

LinAlgError = _decomp.LinAlgError
SlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
QRResult = namedtuple("linalg_qr", ["Q", "R"])
EighResult = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("linalg_svd", ["U", "S", "Vh"])
InvExResult = namedtuple("linalg_inv_ex", ["inverse", "info"])
SolveExResult = namedtuple("linalg_solve_ex", ["result", "info"])
CholeskyExResult = namedtuple("linalg_cholesky_ex", ["L", "info"])
_SVDLegacy = namedtuple("svd", ["U", "S", "V"])
_INF = float("inf")


def _check(name: str, A, *, square: bool = True, arg: str = "A") -> None:
    """PyTorch's errors for a tensor that is not a (batch of) floating-point (square) matrices."""
    _check_matrix(name, A, square=square, arg=arg)
    if A.dtype.is_floating_point and A.dtype.itemsize < 4:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got "
                           f"{A.dtype._legacy_name.replace('Tensor', '')} [autograd_lab] convert it first, e.g. "
                           f"{arg}.float()")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype._legacy_name.replace('Tensor', '')} [autograd_lab] convert it first, e.g. "
                           f"{arg}.double()")


def _check_matrix(name: str, A, *, square: bool = True, arg: str = "A") -> None:
    """PyTorch's errors for a tensor that is not a (batch of) (square) matrices."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {backend.type_name(A)}")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions. [autograd_lab] got shape "
                           f"{list(A.shape)}: a matrix is 2-D, a batch of matrices (..., n, n); unsqueeze a vector")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices [autograd_lab] shape {list(A.shape)}: this needs n x n matrices")


@checked(name="linalg.det")
def det(A):
    """The determinant of each square matrix (``LinalgDetBackward0``)."""
    _check("linalg.det", A)
    return _decomp.LinalgDetBackward0.apply(A)[0]


@checked(name="linalg.slogdet")
def slogdet(A):
    """``(sign, logabsdet)`` of each square matrix's determinant: ``det = sign * exp(logabsdet)``."""
    _check("linalg.slogdet", A)
    return SlogdetResult(*_decomp.LinalgSlogdetBackward0.apply(A)[:2])


@checked(name="logdet")
def logdet(A):
    """``log(det(A))``: nan where the determinant is negative, ``-inf`` where it is 0 (as ``torch.logdet``)."""
    _check("logdet", A)
    sign, logabsdet = slogdet(A)
    return _where(sign == -1, float("nan"), logabsdet)


def _where(condition, x, y):
    from .ops.pointwise import where
    return where(condition, x, y)


@checked(name="linalg.inv")
def inv(A):
    """The inverse of each square matrix; a singular one raises :class:`LinAlgError` (``LinalgInvExBackward0``)."""
    return _inv_ex("linalg.inv", A, True).inverse


@checked(name="linalg.inv_ex")
def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: the inverse of each square matrix, and ``info`` (int32, per matrix) 0, or where a
    singular matrix's LU met a zero on U's diagonal (1-based; its inverse then holds inf or nan, unless
    ``check_errors=True``, which raises :class:`LinAlgError`)."""
    return _inv_ex("linalg.inv_ex", A, check_errors)


def _inv_ex(name: str, A, check_errors: bool):
    _check(name, A)
    inverse, info = _decomp.LinalgInvExBackward0.apply(A)
    if check_errors and bool(info._data.any()):
        raise _decomp.singular_error(name, info._data, tuple(A.shape))
    return InvExResult(inverse, info)


@checked(name="linalg.solve")
def solve(A, B, *, left=True):
    """X with ``A X = B`` for each square matrix A; B a batch of matrices, or of vectors (shape ``A.shape[:-1]``,
    or 1-D), batch dims broadcast (``LinalgSolveExBackward0``). ``left=False``: X with ``X A = B``. A singular A
    raises :class:`LinAlgError`."""
    return _solve_ex("torch.linalg.solve", A, B, left, True).result


@checked(name="linalg.solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)``: :func:`solve`, and ``info`` as :func:`inv_ex` gives it (for a singular A the result
    holds inf or nan, unless ``check_errors=True``, which raises :class:`LinAlgError`)."""
    return _solve_ex("torch.linalg.solve_ex", A, B, left, check_errors)


def _solve_ex(name: str, A, B, left: bool, check_errors: bool):
    _check("linalg.solve", A)
    if not left:
        result, info = _solve_ex(name, A.mT, B.mT, True, check_errors)
        return SolveExResult(result.mT, info)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if B.dtype != A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype._legacy_name.replace('Tensor', '')} and B of type "
                           f"{B.dtype._legacy_name.replace('Tensor', '')} instead")
    rows = B.shape[-1] if vector else B.shape[-2] if B.ndim >= 2 else None
    if rows != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {'x'.join(map(str, B.shape[-2:]))}) [autograd_lab] "
                           f"A {list(A.shape)}, B {list(B.shape)}: B needs {A.shape[-1]} rows")
    _check_batches("linalg.solve", tuple(B.shape[:-1] if vector else B.shape[:-2]), tuple(A.shape[:-2]))
    result, info = _decomp.LinalgSolveExBackward0.apply(A, B, vector=vector)
    if check_errors and bool(info._data.any()):
        raise _decomp.singular_error(name, info._data, tuple(A.shape), solver=True)
    return SolveExResult(result, info)


def _check_batches(name: str, *batches) -> None:
    """PyTorch's error for batch dims that do not broadcast (it names the dims of the broadcast batch)."""
    try:
        backend.np.broadcast_shapes(*batches)
    except ValueError:
        raise RuntimeError(broadcast_message(name, list(batches))) from None


@checked(name="linalg.cholesky")
def cholesky(A, *, upper=False):
    """L, lower triangular, with ``L @ L.mT == A`` for each symmetric positive-definite matrix (``upper``: ``L.mT``).
    Only the lower triangle of A is read; a matrix that is not positive-definite raises :class:`LinAlgError`."""
    return _cholesky_ex("linalg.cholesky", A, upper, True).L


@checked(name="linalg.cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: :func:`cholesky`, and ``info`` (int32, per matrix) 0, or the order of the first leading minor
    that is not positive-definite (L is then only partly computed, unless ``check_errors=True``, which raises
    :class:`LinAlgError`)."""
    return _cholesky_ex("linalg.cholesky_ex", A, upper, check_errors)


def _cholesky_ex(name: str, A, upper: bool, check_errors: bool):
    _check(name, A)
    L, info = _decomp.LinalgCholeskyExBackward0.apply(A, upper=upper)
    if check_errors and bool(info._data.any()):
        raise _decomp.not_positive_definite_error(name, info._data, tuple(A.shape))
    return CholeskyExResult(L, info)


@checked(name="linalg.qr")
def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q @ R``, Q with orthonormal columns, R upper triangular; ``mode`` 'reduced' (Q is
    m x min(m, n)) or 'complete' (Q is m x m)."""
    _check("linalg.qr", A, square=False)
    if mode not in ("reduced", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete' [autograd_lab] 'r' is not supported here: take qr(A)[1]")
    return QRResult(*_decomp.LinalgQrBackward0.apply(A, mode=mode))


@checked(name="linalg.eigh")
def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix, eigenvalues ascending. Only the triangle ``UPLO``
    is read. The gradient through the eigenvectors is only defined for distinct eigenvalues (it divides by their
    gaps): with repeated ones it is inf or nan, as in PyTorch."""
    _check("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return EighResult(*_decomp.LinalgEighBackward0.apply(A, UPLO=UPLO))


@checked(name="linalg.eigvalsh")
def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix, ascending (their gradient is defined even when they repeat)."""
    return eigh(A, UPLO)[0]


@checked(name="linalg.svd")
def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U @ diag(S) @ Vh``, S descending. The gradient through U or Vh needs
    ``full_matrices=False`` and distinct non-zero singular values (it divides by their gaps)."""
    _check("linalg.svd", A, square=False)
    return SVDResult(*_decomp.LinalgSvdBackward0.apply(A, full_matrices=full_matrices))


@checked(name="linalg.svdvals")
def svdvals(A):
    """The singular values of each matrix, descending."""
    _check("linalg.svdvals", A, square=False)
    return _decomp.LinalgSvdBackward0.apply(A, full_matrices=False)[1]


@checked(name="linalg.pinv")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse from the SVD (``hermitian``: from ``eigh``, reading the lower triangle): singular values
    at or below ``max(atol, rtol * max(S))`` count as zero (``rtol`` defaults to ``max(m, n) * eps``, or to 0 when
    only ``atol`` is given). (PyTorch records ``LinalgPinvBackward0``; here the decomposition's and products' nodes.)"""
    _check("linalg.pinv", A, square=hermitian)
    if rtol is None:
        rtol = 0.0 if atol is not None else max(A.shape[-2], A.shape[-1]) * float(backend.np.finfo(A._data.dtype).eps)
    if hermitian:
        S, V = eigh(A)
        left, right = V, V.mT
    else:
        U, S, Vh = svd(A, full_matrices=False)
        left, right = Vh.mT, U.mT
    cutoff = (S.abs().amax(-1, keepdim=True) * rtol).detach()
    if atol is not None:
        cutoff = cutoff.clamp(min=atol)
    keep = S.abs() > cutoff
    inverted = _where(keep, 1 / _where(keep, S, 1.0), 0.0)
    return _matmul(left * inverted.unsqueeze(-2), right)


@checked(name="linalg.matrix_power")
def matrix_power(A, n):
    """``A`` times itself ``n`` times (the identity for 0, powers of the inverse for negative ``n``), by repeated
    squaring, as PyTorch computes it."""
    _check("linalg.matrix_power", A)
    if n == 0:  # the identity, written over a copy of A (a zero gradient, PyTorch's CopyBackwards node)
        xp = backend.namespace_of(A._data)
        return A.clone().copy_(Tensor._make(xp.broadcast_to(xp.eye(A.shape[-1], dtype=A._data.dtype), tuple(A.shape))))
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, power = None, A
    while n:
        if n & 1:
            result = power if result is None else _matmul(result, power)
        n >>= 1
        if n:
            power = _matmul(power, power)
    return result


@checked(name="linalg.cross")
def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (batch dims broadcast)."""
    a, b = input.shape, other.shape
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. [autograd_lab] got shapes "
                           f"{list(a)} and {list(b)}: unsqueeze the smaller one")
    if a[dim] != 3 or b[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a[dim]} and {b[dim]}")
    return _decomp.LinalgCrossBackward0.apply(input, other, dim=dim)


@checked(name="cross")
def _cross(input, other, dim=None):
    """``al.cross`` (``torch.cross``): as :func:`cross`, but ``dim`` defaults to the first dim of size 3, with
    PyTorch's deprecation warning."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.", UserWarning, stacklevel=2)
        dim = next((d for d, size in enumerate(input.shape) if size == 3), -1)
    return cross(input, other, dim=dim)


@checked(name="linalg.vecdot")
def vecdot(x, y, *, dim=-1):
    """The dot product of vectors along ``dim``, batch dims broadcast."""
    return (x * y).sum(dim)


@checked(name="linalg.multi_dot")
def multi_dot(tensors):
    """The product of a list of matrices (the first may be a vector, and the last), left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        where = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
        if (where and t.ndim not in (1, 2)) or (where is None and t.ndim != 2):
            raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.ndim}D" if where else
                               f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i in range(len(tensors) - 1):
        a, b = tensors[i], tensors[i + 1]
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                               f"{list(b.shape)} cannot be multiplied")
    out = tensors[0]
    for t in tensors[1:]:
        out = _matmul(out, t)
    return out


@checked(name="linalg.vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False):
    """The ``ord``-norm of all elements, or over ``dim`` (``LinalgVectorNormBackward0``)."""
    return _vector_norm(x, ord, dim, keepdim)


@checked(name="linalg.matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):
    """The matrix norm over the two dims ``dim``: 'fro', 'nuc', 1 / -1 (max / min column sum of ``|A|``), inf /
    -inf (rows), 2 / -2 (largest / smallest singular value)."""
    _check("linalg.matrix_norm", A, square=False)
    if ord not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    r, c = (d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (r, c), keepdim)
    if ord in ("nuc", 2, -2):
        order = [d for d in range(A.ndim) if d not in (r, c)] + [r, c]
        S = svdvals(A.permute(*order) if order != list(range(A.ndim)) else A)
        out = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        for d in sorted((r, c)) if keepdim else ():
            out = out.unsqueeze(d)
        return out
    first, second = (r, c) if abs(ord) == 1 else (c, r)
    sums = A.abs().sum(first, keepdim=keepdim)
    second = second if keepdim or second < first else second - 1
    return sums.amax(second, keepdim=keepdim) if ord > 0 else sums.amin(second, keepdim=keepdim)


@checked(name="linalg.norm")
def norm(A, ord=None, dim=None, keepdim=False):
    """A vector norm (``dim`` an int, or a 1-D input) or a matrix norm (``dim`` two ints, a 2-D input, or a string
    ``ord``); with neither ``ord`` nor ``dim``, the 2-norm of all elements."""
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
    if isinstance(ord, str) or (isinstance(dim, tuple) and len(dim) == 2) or (dim is None and ord is not None
                                                                               and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim)
    if ord is not None and dim is None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim)


def _bind() -> None:
    Tensor.det = det
    Tensor.logdet = logdet
    Tensor.slogdet = slogdet
    Tensor.inverse = inv
    Tensor.matrix_power = matrix_power
    Tensor.qr = _qr_legacy
    Tensor.svd = _svd_legacy
    Tensor.pinverse = lambda self, rcond=1e-15: pinv(self, rtol=rcond)
    Tensor.cross = _cross


def _qr_legacy(A, some=True):
    """``torch.qr``: reduced unless ``some=False``."""
    return qr(A, "reduced" if some else "complete")


def _svd_legacy(A, some=True):
    """``torch.svd``: ``(U, S, V)`` (V, not Vh), reduced unless ``some=False``."""
    U, S, Vh = svd(A, full_matrices=not some)
    return _SVDLegacy(U, S, Vh.mT)


_bind()
from .linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve, solve_triangular  # noqa: E402,F401  (they use _check)
from .linalg_more import (  # noqa: E402,F401
    cond,
    diagonal,
    householder_product,
    lstsq,
    matrix_exp,
    matrix_rank,
    tensorinv,
    tensorsolve,
    vander,
)
