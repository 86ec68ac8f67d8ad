"""Triangular solves and the LU factorization, as ``torch.linalg`` has them: ``al.linalg.solve_triangular``,
``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``, and the top-level ``al.lu_unpack`` (with the deprecated
``al.lu`` and ``al.lu_solve``, which warn as PyTorch's do). The ops and their derivatives are in
:mod:`autograd_lab.ops.linalg_lu`.

Factor once, solve many times: ``LU, pivots = al.linalg.lu_factor(A)`` costs as much as one solve, and each
``al.linalg.lu_solve(LU, pivots, B)`` after it costs two triangular solves.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

from . import backend
from .linalg import _check, _check_batches, _check_matrix
from .ops import linalg_lu as _lu
from .ops._args import checked
from .ops._errors import no_kernel
from .tensor import Tensor

__all__ = ["solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack"]

LUFactorResult = namedtuple("linalg_lu_factor", ["LU", "pivots"])
LUFactorExResult = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LUResult = namedtuple("linalg_lu", ["P", "L", "U"])
LUUnpackResult = namedtuple("lu_unpack", ["P", "L", "U"])


_PIVOTS_HINT = ("pivots are 1-based row numbers (pivots[i] is the row swapped with row i + 1), each from 1 to the "
                "number of rows: a 0 or a negative one would read a row from the end")


def _floating(kernel: str, A) -> None:
    """PyTorch's NotImplementedError for a dtype its LAPACK kernel does not take (integers, half precision)."""
    if not A.dtype.is_floating_point or A.dtype.itemsize < 4:
        raise no_kernel(kernel, A.dtype, "LAPACK works in float32 or float64: convert it first, e.g. A.double()")


def _dims(name: str, A) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' (position 1) must be Tensor, not {backend.type_name(A)}")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead "
                           "[autograd_lab] a matrix is 2-D, a batch of matrices (..., m, n); unsqueeze a vector")


def _equation(left: bool) -> str:
    return "AX = B" if left else "XA = B"


def _check_system(name: str, A, B, left: bool, what: str = "A") -> None:
    """PyTorch's error for B whose rows (``left``) or columns do not match the square matrices A, then the batch
    dims' broadcast."""
    _check_matrix(name, B, square=False, arg="B")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {_equation(left)} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]}) [autograd_lab] {what} {list(A.shape)}, B "
                           f"{list(B.shape)}: B needs {n} {'rows' if left else 'columns'}")
    _check_batches(name, tuple(B.shape[:-2]), tuple(A.shape[:-2]))


@checked(name="linalg.solve_triangular")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with ``A X = B`` (``left=False``: ``X A = B``) for each triangular A, by substitution: only the upper
    (``upper=True``) or lower triangle of A is read, and with ``unitriangular`` its diagonal is taken as ones.
    Batch dims broadcast; B is cast to A's dtype, as in PyTorch. A zero on the diagonal gives inf or nan, not an
    error (``LinalgSolveTriangularBackward0``)."""
    _check_matrix("linalg.solve_triangular", A)
    _check_system("linalg.solve_triangular", A, B, left)
    _floating("triangular_solve_cpu", A)
    if B.dtype != A.dtype:
        B = B.to(A.dtype)
    return _lu.LinalgSolveTriangularBackward0.apply(A, B, upper=upper, left=left, unitriangular=unitriangular)


@checked(name="linalg.lu_factor_ex")
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the LU factorization with partial pivoting of each (m x n) matrix, ``A = P L U``, with
    L and U packed in ``LU`` and the row swaps in ``pivots`` (1-based, int32), as LAPACK's ``getrf`` returns them;
    ``info`` (int32) is 0, or the 1-based index of the first zero on U's diagonal (then A is singular and a solve
    would divide by zero). ``check_errors=True`` raises there (``LinalgLuFactorExBackward0``)."""
    return _lu_factor("torch.linalg.lu_factor_ex", A, pivot, check_errors)


@checked(name="linalg.lu_factor")
def lu_factor(A, *, pivot=True):
    """``(LU, pivots)`` of :func:`lu_factor_ex`, raising where U has a zero on its diagonal (a singular A): the
    factors to give :func:`lu_solve`."""
    LU, pivots, _ = _lu_factor("torch.linalg.lu_factor", A, pivot, True)
    return LUFactorResult(LU, pivots)


def _lu_factor(name: str, A, pivot: bool, check_errors: bool):
    _dims("torch.lu_factor", A)
    _no_pivoting("linalg.lu_factor", pivot)
    _floating("lu_cpu", A)
    LU, pivots, info = _lu.LinalgLuFactorExBackward0.apply(A, pivot=pivot)
    if check_errors and bool((info._data != 0).any()):
        flat = info._data.reshape(-1)
        first = int((flat != 0).argmax())
        k = int(flat[first])
        prefix = f"(Batch element {first}): " if A.ndim > 2 else ""
        raise RuntimeError(f"{name}: {prefix}U[{k},{k}] is zero and using it on lu_solve would result in a division by "
                           "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                           "or linalg.lu_factor_ex(A, pivot) [autograd_lab] A is singular: its LU exists, but no solve "
                           "can use it")
    return LUFactorExResult(LU, pivots, info)


def _no_pivoting(name: str, pivot: bool) -> None:
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU [autograd_lab] nor anywhere "
                           "here: leave pivot=True")


@checked(name="linalg.lu")
def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P @ L @ U`` for each (m x n) matrix: P a permutation matrix, L (m x k) lower
    triangular with ones on its diagonal, U (k x n) upper triangular, k = min(m, n). A singular A is fine (U then
    has a zero on its diagonal). P gets no gradient (``LinalgLuBackward0``)."""
    _dims("linalg.lu", A)
    _no_pivoting("linalg.lu_factor", pivot)
    _floating("lu_cpu", A)
    return LUResult(*_lu.LinalgLuBackward0.apply(A, pivot=pivot))


@checked(name="linalg.lu_solve")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with ``A X = B`` (``left=False``: ``X A = B``; ``adjoint``: A's transpose in place of A), for A given by
    its factors from :func:`lu_factor`; batch dims broadcast (``LinalgLuSolveBackward0``)."""
    _check_matrix("torch.linalg.lu_solve", LU)
    _check_system("linalg.lu_solve", LU, B, left, what="LU")
    if not LU.dtype.is_floating_point:
        _check("torch.linalg.lu_solve", LU)
    if B.dtype != LU.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{backend.kernel_type_name(LU.dtype)} and B of type {backend.kernel_type_name(B.dtype)} "
                           "instead [autograd_lab] convert one, e.g. B.to(LU.dtype)")
    if not isinstance(pivots, Tensor) or pivots.dtype != backend.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32 [autograd_lab] pass "
                           "the pivots lu_factor returned, as they are")
    if pivots.ndim == 0 or pivots.shape[-1] != LU.shape[-1]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots.shape)} instead")
    if bool((pivots._data < 1).any()):
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
                           f"result of lu_factor? [autograd_lab] {_PIVOTS_HINT}")
    if bool((pivots._data > LU.shape[-2]).any()):
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass "
                           f"the result of lu_factor? [autograd_lab] {_PIVOTS_HINT}")
    return _lu.LinalgLuSolveBackward0.apply(LU, B, pivots=pivots, left=left, adjoint=adjoint)


@checked(name="lu_unpack")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from the packed factors of :func:`lu_factor`, with ``A = P @ L @ U``; ``unpack_data=False``
    leaves L and U empty, ``unpack_pivots=False`` P (``LuUnpackBackward0``)."""
    _dims("torch.lu_unpack", LU_data)
    if not isinstance(LU_pivots, Tensor) or LU_pivots.dtype != backend.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                           "[autograd_lab] pass the pivots lu_factor returned, as they are")
    _floating("lu_unpack", LU_data)
    if unpack_pivots and bool(((LU_pivots._data < 1) | (LU_pivots._data > LU_data.shape[-2])).any()):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                           f"pass the result of lu_factor? [autograd_lab] {_PIVOTS_HINT}")
    return LUUnpackResult(*_lu.LuUnpackBackward0.apply(LU_data, LU_pivots=LU_pivots, unpack_data=unpack_data,
                                                       unpack_pivots=unpack_pivots))


_LU_DEPRECATED = ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                  "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                  "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)")
_LU_SOLVE_DEPRECATED = ("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                        "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                        "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, "
                        "B)")


@checked(name="lu")
def _lu_legacy(A, pivot=True, get_infos=False):
    """``al.lu`` (``torch.lu``, deprecated): ``(LU, pivots)``, and ``infos`` with ``get_infos=True``; warns."""
    warnings.warn(_LU_DEPRECATED, UserWarning, stacklevel=3)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


@checked(name="lu_solve")
def _lu_solve_legacy(b, LU_data, LU_pivots):
    """``al.lu_solve`` (``torch.lu_solve``, deprecated): :func:`lu_solve` with its arguments in the old order; warns."""
    warnings.warn(_LU_SOLVE_DEPRECATED, UserWarning, stacklevel=3)
    return lu_solve(LU_data, LU_pivots, b)


def _bind() -> None:
    Tensor.lu = _lu_legacy
    Tensor.lu_solve = _lu_solve_legacy


_bind()
