"""Linear algebra: ``matmul`` (``@``) and its special cases ``mm``, ``mv``, ``dot``, ``bmm``, ``outer``.

``matmul`` dispatches on the operands' dims as PyTorch does, so the recorded node is the one a
learner sees there: ``DotBackward0`` for vector·vector, ``MvBackward0``, ``MmBackward0``, and batched
products folded into ``mm`` or ``bmm`` around reshapes.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import Op
from .out import write_out
from .shape import SqueezeBackward4, UnsafeViewBackward0


def _check_same_dtype(op: str, a: Tensor, b: Tensor) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype!r} != {b.dtype!r}. "
            f"[autograd_lab] {op} of shapes {list(a.shape)} and {list(b.shape)}: convert one, e.g. b.to(a.dtype)"
        )


def matrix_product(a, b):
    """``a @ b`` for 2-D arrays (``formulas.mm`` on arrays: the quicker of ``dot`` and ``@`` for its size)."""
    return formulas.mm(a, b)


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides):
    """The gradient of ``mat1 @ mat2`` for ``mat2``, laid out as ``mat2`` is (PyTorch's ``mm_mat2_backward``):
    a column-major ``mat2``, such as ``linear``'s ``weight.t()``, gets ``(grad.t() @ mat1).t()``, so that the
    gradient reaches the row-major weight through ``t()`` laid out as the weight is."""
    if mat2_strides[0] == 1 and mat2_strides[1] == mat2_sizes[0]:
        return formulas.t(formulas.mm(formulas.t(grad), mat1))
    return formulas.mm(formulas.t(mat1), grad)


class MmBackward0(Op):
    """out = self @ mat2 (2-D by 2-D)"""
    saves = ("mat2", "mat2_sym_sizes", "mat2_sym_strides", "self", "self_sym_sizes", "self_sym_strides")

    def forward(xp, self, mat2):
        return matrix_product(self, mat2)

    def d_self(grad, mat2):
        return formulas.mm(grad, formulas.t(mat2))

    def d_mat2(grad, mat2_sym_sizes, mat2_sym_strides, self):
        return mm_mat2_backward(grad, self, mat2_sym_sizes, mat2_sym_strides)

    # forward derivatives (the product rule: each factor's tangent times the other factor)
    def f_self(tangent, mat2):
        return formulas.mm(tangent, mat2)

    def f_mat2(tangent, self):
        return formulas.mm(self, tangent)


class BmmBackward0(Op):
    """out[b] = self[b] @ mat2[b] (3-D by 3-D)"""
    saves = ("mat2", "self")

    def forward(xp, self, mat2):
        return xp.matmul(self, mat2)

    def d_self(grad, mat2):
        return formulas.bmm(grad, formulas.transpose(mat2, 1, 2))

    def d_mat2(grad, self):
        return formulas.bmm(formulas.transpose(self, 1, 2), grad)

    def f_self(tangent, mat2):
        return formulas.bmm(tangent, mat2)

    def f_mat2(tangent, self):
        return formulas.bmm(self, tangent)


class MvBackward0(Op):
    """out = self @ vec (2-D by 1-D)"""
    saves = ("self", "vec")

    def forward(xp, self, vec):
        return self @ vec

    def d_self(grad, vec):
        return formulas.unsqueeze(grad, 1) * vec

    def d_vec(grad, self):
        return formulas.mv(formulas.t(self), grad)

    def f_self(tangent, vec):
        return formulas.mv(tangent, vec)

    def f_vec(tangent, self):
        return formulas.mv(self, tangent)


class DotBackward0(Op):
    """out = sum(self * tensor) (1-D by 1-D)"""
    saves = ("self", "tensor")

    def forward(xp, self, tensor):
        return xp.asarray(xp.dot(self, tensor)) + 0  # a sum that starts at +0.0, as BLAS's and PyTorch's do

    def d_self(grad, tensor):
        return grad * tensor

    def d_tensor(grad, self):
        return grad * self

    def f_self(tangent, tensor):
        return formulas.dot(tangent, tensor)

    def f_tensor(tangent, self):
        return formulas.dot(self, tangent)


@checked
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    if out is not None:
        return write_out("mm", mm, out, input, mat2, exact_dtype=True)
    a, b = input._data, mat2._data  # (shapes read from the arrays: this runs for every layer)
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype:
        return MmBackward0.apply(input, mat2)
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {input.ndim}-D and {mat2.ndim}-D "
                           f"(shapes {list(input.shape)} and {list(mat2.shape)}); use matmul (@) for other dims")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]}). [autograd_lab] the columns of the first must equal the rows of the "
            "second; transpose one operand (.t()) if you meant the other product"
        )
    _check_same_dtype("mm", input, mat2)
    return MmBackward0.apply(input, mat2)


@checked
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with the same batch size."""
    if out is not None:
        return write_out("bmm", bmm, out, input, mat2, exact_dtype=True)
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got shapes {list(input.shape)} and {list(mat2.shape)})")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, {input.shape[2]}] but "
            f"got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    _check_same_dtype("bmm", input, mat2)
    return BmmBackward0.apply(input, mat2)


@checked
def mv(input, vec):
    """Matrix-vector product."""
    if input.ndim != 2 or vec.ndim != 1 or input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 0}), mat "
                           f"({'x'.join(map(str, input.shape))}), vec ({'x'.join(map(str, vec.shape))})")
    _check_same_dtype("mv", input, vec)
    return MvBackward0.apply(input, vec)


@checked
def dot(input, other):
    """Inner product of two 1-D tensors of the same length."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           "to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    _check_same_dtype("dot", input, other)
    return DotBackward0.apply(input, other)


@checked
def outer(input, vec2):
    """Outer product: ``out[i, j] = input[i] * vec2[j]``."""
    return input.reshape(-1, 1) * vec2


@checked
def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch semantics: 1-D operands are vectors, leading dims broadcast."""
    if out is not None:
        return write_out("matmul", matmul, out, input, other, exact_dtype=True)
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(other).__name__}")
    x, y = input._data, other._data
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == y.shape[0] and (x.dtype is y.dtype or x.dtype == y.dtype):
        return MmBackward0.apply(input, other)  # (the common case: what mm checks first, without its frame)
    a, b = x.ndim, y.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        out = SqueezeBackward4.apply(mm(input.unsqueeze(0), other), dim=0)
        out._vc.bump("squeeze_")  # (PyTorch squeezes its product in place: the result is at version 1)
        return out
    if a == 2 and b == 2:
        return mm(input, other)
    if b <= 2 and _folds_into_rows(input, other):  # the batch folded into rows: (..., n, k) @ (k, m) is one mm (mv
        # for a vector), as in PyTorch
        rows = input.reshape(_rows(input.shape), input.shape[-1])
        if b == 2 and input.shape[-1] != other.shape[0]:
            mm(rows, other)  # raises the shape error
        out = mm(rows, other) if b == 2 else mv(rows, other)
        return UnsafeViewBackward0.apply(out, shape=tuple(input.shape[:-1]) + tuple(other.shape[1:]))
    if a <= 2 and _folds_on_transpose(input, other):  # other's batch folded into rows of its transpose
        if input.shape[-1] != other.shape[-2]:
            mm(input.reshape(_rows(input.shape), input.shape[-1]),
               other.reshape(_rows(other.shape), other.shape[-1]))  # raises the shape error
        rows = other.mT.reshape(_rows(other.mT.shape), other.shape[-2])
        out = mm(rows, input.t()) if a == 2 else mv(rows, input)
        batch = tuple(other.shape[:-2]) + (other.shape[-1],)
        out = UnsafeViewBackward0.apply(out, shape=batch + ((input.shape[0],) if a == 2 else ()))
        return out.mT.contiguous() if a == 2 else out
    if a == 3 and b == 3 and 1 in (input.shape[0], other.shape[0]) and input.shape[0] != other.shape[0]:
        # one operand's batch is a single matrix: PyTorch drops that batch dim when the operand requires grad and
        # folds the product as above (its gradient is then one mm, not a sum over the broadcast batch)
        if other.shape[0] == 1 and other.requires_grad:
            return matmul(input, other.squeeze(0))
        if input.shape[0] == 1 and input.requires_grad:
            return matmul(input.squeeze(0), other)
    # batched: broadcast batch dims, then bmm
    left = input if a > 1 else input.unsqueeze(0)
    right = other if b > 1 else other.unsqueeze(-1)
    batch = _broadcast_batch(left.shape[:-2], right.shape[:-2])
    n, k, m = left.shape[-2], left.shape[-1], right.shape[-1]
    if right.shape[-2] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{k}] but got: "
                           f"[{right.shape[-2]}]. [autograd_lab] matmul of shapes {list(input.shape)} and "
                           f"{list(other.shape)}")
    lhs = left.expand(batch + (n, k)).reshape(_rows(batch + (n,)), n, k)
    rhs = right.expand(batch + (k, m)).reshape(_rows(batch + (k,)), k, m)
    out = bmm(lhs, rhs) if b > 1 else bmm(lhs, rhs).squeeze(-1)
    return UnsafeViewBackward0.apply(out, shape=batch + (n,) * (a > 1) + (m,) * (b > 1))  # (no view)


def _folds_into_rows(input, other) -> bool:
    """PyTorch's ``should_fold`` for a batched ``input`` times a 1-D or 2-D ``other``: fold when ``other`` needs grad
    (its gradient is then one mm, not a sum over the batch), when ``input`` is empty, or when the rows of ``input``
    are one stride apart across its batch dims (the fold is then a view, not a copy)."""
    if other.requires_grad or input.numel() == 0:
        return True
    sizes, strides = input.shape, input.stride()
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(input.ndim - 2))


def _folds_on_transpose(input, other) -> bool:
    """PyTorch's ``should_fold`` for a 1-D or 2-D ``input`` times a batched ``other``: fold when ``input`` needs
    grad (its gradient is then one mm, not a sum over the batch); for a vector, also when ``other`` is empty or
    its transpose's batch dims are contiguous. The choice decides the graph: the nodes recorded, whether the
    result is a view, and what is saved (a folded copy of ``other``, or ``other`` itself)."""
    if input.requires_grad:
        return True
    if input.ndim == 2:
        return False
    if other.numel() == 0:
        return True
    sizes = tuple(other.shape[:-2]) + (other.shape[-1], other.shape[-2])
    strides = other.stride()[:-2] + (other.stride(-1), other.stride(-2))
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(len(sizes) - 2))


def _rows(shape) -> int:
    """The product of all sizes but the last: the rows a ``(..., k)`` shape folds into (written out, not -1, which
    a size 0 elsewhere would make ambiguous)."""
    n = 1
    for s in tuple(shape)[:-1]:
        n *= s
    return n


def _broadcast_batch(s1, s2) -> tuple:
    n = max(len(s1), len(s2))
    s1, s2 = (1,) * (n - len(s1)) + tuple(s1), (1,) * (n - len(s2)) + tuple(s2)
    out = []
    for x, y in zip(s1, s2):
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"matmul: batch dimensions {list(s1)} and {list(s2)} cannot be broadcast")
        out.append(y if x == 1 else x)  # (a size 1 takes the other's, 0 included)
    return tuple(out)


def _bind() -> None:
    for name, fn in dict(mm=mm, bmm=bmm, mv=mv, dot=dot, outer=outer, matmul=matmul, ger=outer).items():
        setattr(Tensor, name, fn)
    Tensor.__matmul__ = matmul
    Tensor.__rmatmul__ = lambda self, other: matmul(other, self)


_bind()
