"""More products: ``addmv``, ``addr``, ``baddbmm``, ``addbmm`` (``beta * input + alpha * product``, each one node as in
PyTorch), ``vdot`` and ``dist``; the composites ``chain_matmul`` and ``ger``; the Tensor methods of these and of
``addmm``, ``inner`` and ``kron``, with the in-place ``addmm_``, ``addmv_``, ``addr_``, ``baddbmm_`` and ``addbmm_``.
"""

from __future__ import annotations

import warnings

from .. import backend
from ..tensor import Tensor
from . import formulas as F
from ._args import checked
from ._op import Op
from .inplace import _method
from .linalg import mm, outer
from .nn import addmm
from .norm import LinalgVectorNormBackward0
from .tensor_products import inner, kron


def _scaled(grad, factor):
    return grad if factor == 1 else grad * factor


def _combine(xp, self, product, beta, alpha):
    """``beta * self + alpha * product``; with ``beta`` 0 the values of ``self`` are ignored (a NaN there stays out,
    as PyTorch documents)."""
    product = product if alpha == 1 else alpha * product
    if beta == 0:
        return xp.broadcast_to(product, xp.broadcast_shapes(self.shape, product.shape)).astype(product.dtype)
    return (self if beta == 1 else beta * self) + product


class AddmvBackward0(Op):
    """out = beta * self + alpha * (mat @ vec)"""
    saves = ("alpha", "beta", "mat", "vec")

    def forward(xp, self, mat, vec, *, beta, alpha):
        return _combine(xp, self, mat @ vec, beta, alpha)

    def d_self(grad, beta):
        return _scaled(grad, beta)

    def d_mat(grad, alpha, vec):
        return _scaled(F.unsqueeze(grad, 1) * vec, alpha)

    def d_vec(grad, alpha, mat):
        return _scaled(F.mv(F.t(mat), grad), alpha)

    f_self = d_self

    def f_mat(tangent, alpha, vec):
        return _scaled(F.mv(tangent, vec), alpha)

    def f_vec(tangent, alpha, mat):
        return _scaled(F.mv(mat, tangent), alpha)


class AddrBackward0(Op):
    """out = beta * self + alpha * outer(vec1, vec2)"""
    saves = ("alpha", "beta", "vec1", "vec2")
    promotes = True

    def forward(xp, self, vec1, vec2, *, beta, alpha):
        return _combine(xp, self, vec1[:, None] * vec2, beta, alpha)

    def d_self(grad, beta):
        return _scaled(grad, beta)

    def d_vec1(grad, alpha, vec2):
        return _scaled(F.mv(grad, vec2), alpha)

    def d_vec2(grad, alpha, vec1):
        return _scaled(F.mv(F.t(grad), vec1), alpha)

    f_self = d_self

    def f_vec1(tangent, alpha, vec2):
        return _scaled(F.unsqueeze(tangent, 1) * vec2, alpha)

    def f_vec2(tangent, alpha, vec1):
        return _scaled(F.unsqueeze(vec1, 1) * tangent, alpha)


class BaddbmmBackward0(Op):
    """out[b] = beta * self[b] + alpha * (batch1[b] @ batch2[b])"""
    saves = ("alpha", "batch1", "batch2", "beta")

    def forward(xp, self, batch1, batch2, *, beta, alpha):
        return _combine(xp, self, xp.matmul(batch1, batch2), beta, alpha)

    def d_self(grad, beta):
        return _scaled(grad, beta)

    def d_batch1(grad, alpha, batch2):
        return _scaled(F.bmm(grad, F.transpose(batch2, 1, 2)), alpha)

    def d_batch2(grad, alpha, batch1):
        return _scaled(F.bmm(F.transpose(batch1, 1, 2), grad), alpha)

    f_self = d_self

    def f_batch1(tangent, alpha, batch2):
        return _scaled(F.bmm(tangent, batch2), alpha)

    def f_batch2(tangent, alpha, batch1):
        return _scaled(F.bmm(batch1, tangent), alpha)


class AddbmmBackward0(Op):
    """out = beta * self + alpha * sum over b of batch1[b] @ batch2[b]"""
    saves = ("alpha", "batch1", "batch1_sym_sizes", "batch2", "batch2_sym_sizes", "beta")

    def forward(xp, self, batch1, batch2, *, beta, alpha):
        return _combine(xp, self, xp.matmul(batch1, batch2).sum(0, dtype=batch1.dtype), beta, alpha)

    def d_self(grad, beta):
        return _scaled(grad, beta)

    def d_batch1(grad, alpha, batch1_sym_sizes, batch2):
        every = F.expand(F.unsqueeze(grad, 0), (batch1_sym_sizes[0],) + tuple(grad.shape))
        return _scaled(F.bmm(every, F.transpose(batch2, 1, 2)), alpha)

    def d_batch2(grad, alpha, batch1, batch2_sym_sizes):
        every = F.expand(F.unsqueeze(grad, 0), (batch2_sym_sizes[0],) + tuple(grad.shape))
        return _scaled(F.bmm(F.transpose(batch1, 1, 2), every), alpha)

    f_self = d_self

    def f_batch1(tangent, alpha, batch2):
        return _scaled(F.sum(F.bmm(tangent, batch2), (0,)), alpha)

    def f_batch2(tangent, alpha, batch1):
        return _scaled(F.sum(F.bmm(batch1, tangent), (0,)), alpha)


class VdotBackward0(Op):
    """out = sum(conj(self) * other) (1-D by 1-D; real tensors here, so the dot product)"""
    saves = ("other", "self")

    def forward(xp, self, other):
        return xp.asarray(xp.dot(self, other)) + 0

    def d_self(grad, other):
        return grad * other

    def d_other(grad, self):
        return grad * self

    def f_self(tangent, other):
        return F.dot(tangent, other)

    def f_other(tangent, self):
        return F.dot(self, tangent)


class DistBackward0(Op):
    """out = the p-norm of (self - other), broadcasting"""
    saves = ("other", "p", "result", "self")
    promotes = True

    def forward(xp, self, other, *, p):
        return LinalgVectorNormBackward0.forward(xp, self - other, ord=p, dim=None, keepdim=False)

    def d_self(grad, other, p, result, self):
        return _d_norm(grad, self - other, p, result)

    def d_other(grad, other, p, result, self):
        return -_d_norm(grad, self - other, p, result)

    def f_self(tangent, other, p, result, self):  # (the gradient of the norm, dotted with the tangent)
        return F.sum(tangent * _d_norm(F.ones_like(result), self - other, p, result))

    def f_other(tangent, other, p, result, self):
        return -F.sum(tangent * _d_norm(F.ones_like(result), self - other, p, result))


def _d_norm(grad, difference, p, result):
    """The gradient of the p-norm of all of ``difference`` (the norm's own formula), 0 for p = 0."""
    out = LinalgVectorNormBackward0.d_self(grad, None, False, p, result, difference)
    return F.zeros_like(difference) if out is None else out


# -- checks and front-end functions ---------------------------------------------------------------
def _dtype_name(t: Tensor) -> str:
    return backend.kernel_type_name(t.dtype)


def _integral_scalars(input: Tensor, beta, alpha) -> tuple:
    """``beta`` and ``alpha`` as an integer product uses them: truncated to ints, as PyTorch's kernels cast them."""
    if input.dtype.is_floating_point:
        return beta, alpha
    return int(beta), int(alpha)


def _check_scalars(input: Tensor, beta, alpha) -> None:
    """addr's check: no float beta or alpha with integer tensors (its error; the other products truncate them)."""
    if not input.dtype.is_floating_point:
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number. "
                                   f"[autograd_lab] {name}={value} with a {input.dtype!r} input: pass an int, or "
                                   "convert the tensors to floats first")


def _check_broadcast(op: str, input: Tensor, shape: tuple) -> None:
    """``input`` must broadcast to the product's ``shape`` (PyTorch expands it: its error)."""
    fits = input.ndim <= len(shape) and all(s in (1, t) for s, t in zip(reversed(input.shape), reversed(shape)))
    if not fits:
        n = len(shape) - input.ndim
        dim = next((i for i in reversed(range(len(shape))) if i >= n and input.shape[i - n] not in (1, shape[i])), 0)
        raise RuntimeError(f"The expanded size of the tensor ({shape[dim]}) must match the existing size "
                           f"({input.shape[dim - n] if dim >= n else 1}) at non-singleton dimension {dim}.  "
                           f"Target sizes: {list(shape)}.  Tensor sizes: {list(input.shape)} [autograd_lab] {op}: "
                           f"input must broadcast to the product's shape {list(shape)}")


@checked(kinds={"beta": "number", "alpha": "number"})
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``: a matrix-vector product added to a vector, one node."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or input.numel() not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    if not (input.dtype is mat.dtype and mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_dtype_name(input)}, "
                           f"{_dtype_name(mat)}, and {_dtype_name(vec)} [autograd_lab] convert them first, e.g. "
                           "vec.to(mat.dtype)")
    beta, alpha = _integral_scalars(input, beta, alpha)
    return AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha)


@checked(kinds={"beta": "number", "alpha": "number"})
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``, one node (the dtypes promote)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _check_broadcast("addr", input, (vec1.shape[0], vec2.shape[0]))
    if backend.result_type(input, vec1, vec2) is backend.bool_:  # (an int beta or alpha counts as true if not 0)
        _check_scalars(input, beta, alpha)
        return input.logical_and(bool(beta)).logical_or(outer(vec1, vec2).logical_and(bool(alpha)))
    for name, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results. [autograd_lab] addr of "
                               f"{backend.result_type(input, vec1, vec2)!r} tensors: pass {name}={int(value)}")
    _check_scalars(input if input.dtype is not backend.bool_ else vec1, beta, alpha)
    return AddrBackward0.apply(input, vec1, vec2, beta=beta, alpha=alpha)


def _check_batches(batch1: Tensor, batch2: Tensor) -> None:
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor [autograd_lab] got shape {list(b.shape)}")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, "
                           f"{batch1.shape[2]}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_name(batch1)} and "
                           f"{_dtype_name(batch2)} [autograd_lab] convert one, e.g. batch2.to(batch1.dtype)")


@checked(kinds={"beta": "number", "alpha": "number"})
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, batch by batch (``input`` broadcasts), one node."""
    _check_batches(batch1, batch2)
    _check_broadcast("baddbmm", input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    beta, alpha = _integral_scalars(input, beta, alpha)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Expected self and batch1 to have the same dtype, but got: {input.dtype!r} != "
                           f"{batch1.dtype!r} [autograd_lab] convert one first")
    return BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


@checked(kinds={"beta": "number", "alpha": "number"})
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (the sum over the batch of batch1[b] @ batch2[b])``, one node."""
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor [autograd_lab] got shape {list(b.shape)}")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    _check_batches(batch1, batch2)
    _check_broadcast("addbmm", input, (batch1.shape[1], batch2.shape[2]))
    beta, alpha = _integral_scalars(input, beta, alpha)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Expected self and batch1 to have the same dtype, but got: {input.dtype!r} != "
                           f"{batch1.dtype!r} [autograd_lab] convert one first")
    return AddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


@checked
def vdot(input, other):
    """The dot product of two 1-D tensors (the first conjugated in PyTorch; these tensors are real)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           "to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_dtype_name(input)} and "
                           f"{_dtype_name(other)} [autograd_lab] convert one first, e.g. other.to(input.dtype)")
    return VdotBackward0.apply(input, other)


@checked(kinds={"p": "number"})
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcasting): one number."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    dtype = backend.result_type(input, other)
    if not dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dtype_name(input)} instead. [autograd_lab] convert first, e.g. input.float()")
    if (p < 0 or p == float("inf")) and 0 in tuple(input.shape) + tuple(other.shape):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the operation "
                           f"does not have an identity [autograd_lab] dist(p={p}) of tensors with no elements: there "
                           "is nothing to take the maximum or minimum over")
    return DistBackward0.apply(input, other, p=p)


def chain_matmul(*matrices, out=None):
    """The product of two or more 2-D tensors, left to right (PyTorch deprecates it for ``linalg.multi_dot``)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if not isinstance(m, Tensor):
            raise TypeError(f"chain_matmul(): argument 'matrices' must be tuple of Tensors, but found element of type "
                            f"{type(m).__name__} at pos {i}")
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    result = matrices[0]
    for i, m in enumerate(matrices[1:], 1):
        if result.shape[1] != m.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(matrices[i - 1].shape)} and "
                               f"{list(m.shape)} cannot be multiplied")
        result = mm(result, m)
    return result.view(result.shape)


@checked
def ger(input, vec2):
    """The outer product of two vectors (the old name of ``outer``)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return outer(input, vec2)


_FUNCTIONS = dict(addmv=addmv, addr=addr, baddbmm=baddbmm, addbmm=addbmm, vdot=vdot, dist=dist, ger=ger,
                  addmm=addmm, inner=inner, kron=kron)
_INPLACE = ("addmm", "addmv", "addr", "baddbmm", "addbmm")


def _bind() -> None:
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)
    for name in _INPLACE:
        setattr(Tensor, name + "_", _method(name + "_", _FUNCTIONS[name]))


_bind()
