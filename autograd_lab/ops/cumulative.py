"""Scans along a dim: ``cumsum``, ``cumprod``, ``cummax``/``cummin``, ``logcumsumexp``; and ``diff``.

Element ``k`` of a scan depends on elements ``0..k``, so its gradient runs the other way: element ``i``
collects the incoming gradients of ``k >= i``, a cumulative sum taken from the end (``_reverse_cumsum``).
``cumprod`` is the delicate one: dividing the result by the input fails at a zero, so a slice with zeros is
handled as PyTorch's formula handles it (before the first zero the division is safe, at the first zero the
product of the others is scanned, after it everything is 0). ``cummax``/``cummin`` send each gradient to the
element that was selected, like ``max(dim)``. ``diff`` is made of slices and a subtraction, as in PyTorch.
"""

from __future__ import annotations

from collections import namedtuple

from .. import backend
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op
from .reductions import _ValueSelecting, select_values

CummaxValuesIndices = namedtuple("cummax", ["values", "indices"])
CumminValuesIndices = namedtuple("cummin", ["values", "indices"])


def _along(xp, self, dim, scan):
    """``scan(array, axis)`` along ``dim``; a 0-dim array is scanned as a 1-element vector (PyTorch's rule). The
    result is row-major whatever the input's layout, as PyTorch's scans write it (NumPy's follow the input's)."""
    if self.ndim == 0:
        return scan(self.reshape(1), 0).reshape(())
    return xp.ascontiguousarray(scan(self, dim))


def _reverse_cumsum(grad, dim: int):
    """``out[i] = sum(grad[k] for k >= i)`` along ``dim``: a cumulative sum taken from the end."""
    if grad.ndim == 0:
        return grad
    flipped = formulas.flip(grad, (dim,))
    return formulas.flip(formulas.call(CumsumBackward0, flipped, dim=dim, dtype=None), (dim,))


class CumsumBackward0(Op):
    """out[k] = self[0] + ... + self[k] along ``dim`` (in ``dtype`` when one is given)"""
    saves = ("dim",)

    def forward(xp, self, *, dim, dtype):
        return _along(xp, self, dim, lambda a, axis: xp.cumsum(a, axis=axis, dtype=dtype))

    def d_self(grad, dim):
        return _reverse_cumsum(grad, dim)

    jvp = LINEAR


class CumprodBackward0(Op):
    """out[k] = self[0] * ... * self[k] along ``dim`` (in ``dtype`` when one is given)"""
    saves = ("dim", "result", "self")

    def forward(xp, self, *, dim, dtype):
        return _along(xp, self, dim, lambda a, axis: xp.cumprod(a, axis=axis, dtype=dtype))

    def d_self(grad, dim, result, self):
        if self.ndim == 0 or self.shape[dim] == 1:  # each element is its own product (PyTorch's shortcut: exact)
            return grad
        self = formulas.cast_like(self, result)
        before, first_zero, before_second = _zeros_of(self, dim)
        if is_grad_enabled() and not before.all():  # create_graph through zeros: PyTorch's differentiable O(n^2) form
            return _cumprod_backward_differentiable(grad, self, dim)
        safe = formulas.where(before, self, 1.0)
        # the first zero: (the product before it) * sum over j of grad[j] * (the product from after it to j), in
        # PyTorch's order (an infinite product before it times the sum, not the sum of infinite terms: -inf, not NaN);
        # from the second zero on those products are 0, and left out (an infinite grad[j] there must not give NaN)
        prefix = formulas.call(CumprodBackward0, safe, dim=dim, dtype=None)
        after = formulas.call(CumprodBackward0, formulas.where(before | first_zero, 1.0, self), dim=dim, dtype=None)
        later = _reverse_cumsum(formulas.where(before_second, grad * after, 0.0), dim)
        at_zero = formulas.where(first_zero, prefix * later, 0.0)
        # (before the first zero, only the products before it count, as in PyTorch: the later ones are 0, and an
        # infinite gradient there must not make 0 * inf = NaN of them)
        return formulas.where(before, _reverse_cumsum(formulas.where(before, grad * result, 0.0), dim) / safe, at_zero)

    def f_self(tangent, dim, result, self):
        if self.ndim == 0 or self.shape[dim] == 1:
            return tangent
        self = formulas.cast_like(self, result)
        before, first_zero, _ = _zeros_of(self, dim)
        scaled = formulas.call(CumsumBackward0, tangent / formulas.where(before, self, 1.0), dim=dim, dtype=None)
        others = formulas.call(CumprodBackward0, formulas.where(first_zero, 1.0, self), dim=dim, dtype=None)
        at_zero = formulas.sum(formulas.where(first_zero, tangent, 0.0), dim, keepdim=True)
        return formulas.where(before, result * scaled, others * at_zero)


def _cumprod_backward_differentiable(grad, self, dim: int):
    """``sum(grad[k] * prod(self[j] for j <= k, j != i) for k >= i)`` for each ``i`` along ``dim``, one cumulative
    product per ``i``: exact at zeros and differentiable again (the masks of the fast form are constants)."""
    values = formulas.array_of(self)
    xp = backend.namespace_of(values)
    positions = xp.arange(values.shape[dim]).reshape((-1,) + (1,) * (values.ndim - dim - 1))
    parts = []
    for i in range(values.shape[dim]):
        others = formulas.call(CumprodBackward0, formulas.where(positions == i, 1.0, self), dim=dim, dtype=None)
        parts.append(formulas.sum(formulas.where(positions >= i, grad * others, 0.0), dim, keepdim=True))
    return formulas.cat(parts, dim)


def _zeros_of(self, dim: int):
    """Three constant masks of ``self`` along ``dim``: the elements before the first zero of their slice, that first
    zero, and the elements before the second zero."""
    values = formulas.array_of(self)
    xp = backend.namespace_of(values)
    zeros_so_far = xp.cumsum(values == 0, axis=dim)
    return zeros_so_far == 0, (zeros_so_far == 1) & (values == 0), zeros_so_far <= 1


class _Running(_ValueSelecting):
    """cummax, cummin: ``max(dim)``'s op with indices shaped like the input (each gradient goes to the element
    selected); the input is saved, and no ``keepdim``, as in PyTorch"""
    saves = ("dim", "indices", "self")

    def forward(xp, self, *, dim, indices, keepdim=True):
        return _ValueSelecting.forward(xp, self, dim=dim, indices=indices, keepdim=True)

    def d_self(grad, dim, indices, self):
        return _ValueSelecting.d_self(grad, dim, indices, True, tuple(self.shape))


class CummaxBackward0(_Running):
    """cummax(dim): the largest element so far along ``dim``, and where it is"""


class CumminBackward0(_Running):
    """cummin(dim): the smallest element so far along ``dim``, and where it is"""


class LogcumsumexpBackward0(Op):
    """out[k] = log(exp(self[0]) + ... + exp(self[k])) along ``dim``, without overflow"""
    saves = ("dim", "result", "self")

    def forward(xp, self, *, dim):
        return _along(xp, self, dim, lambda a, axis: xp.logaddexp.accumulate(a, axis=axis))

    def d_self(grad, dim, result, self):
        # grad[k] * exp(self[i] - result[k]) summed over k >= i, in log space (each sign apart) so nothing overflows
        if self.ndim == 0:
            return grad
        return _signed_log_scan(grad, -result, self, dim, reverse=True)

    def f_self(tangent, dim, result, self):
        # tangent[i] * exp(self[i] - result[k]) summed over i <= k
        if self.ndim == 0:
            return tangent
        return _signed_log_scan(tangent, self, -result, dim, reverse=False)


def _signed_log_scan(weights, inside, outside, dim: int, reverse: bool):
    """``exp(outside) * cumsum(weights * exp(inside))`` along ``dim`` (from the end when ``reverse``), computed as
    ``exp(logcumsumexp(log|w| + inside) + outside)`` for the positive and the negative weights apart."""
    parts = []
    for positive in (weights > 0, weights < 0):
        size = formulas.where(positive, formulas.abs(weights), 1.0)  # (1 where unused: log stays finite)
        logs = formulas.where(positive, formulas.log(size) + inside, float("-inf"))  # (masked last: no NaN leaks)
        if reverse:
            logs = formulas.flip(logs, (dim,))
        scanned = formulas.call(LogcumsumexpBackward0, logs, dim=dim)
        if reverse:
            scanned = formulas.flip(scanned, (dim,))
        parts.append(formulas.exp(scanned + outside))
    return parts[0] - parts[1]


# -- front-end functions ------------------------------------------------------------------------
def _scan_dtype(input: Tensor, dtype):
    """The dtype a cumulative sum or product computes in: ``dtype``, else int64 for bools and integers."""
    if dtype is not None:
        return backend.to_dtype(dtype).np_dtype
    return backend.np.dtype("int64") if input._data.dtype.kind in "biu" else None


@checked
def cumsum(input, dim, *, dtype=None):
    """Cumulative sums along ``dim``: ``out[k] = input[0] + ... + input[k]``."""
    d = _wrap_dim(dim, input.ndim, "cumsum")
    return CumsumBackward0.apply(input, dim=d, dtype=_scan_dtype(input, dtype))


@checked
def cumprod(input, dim, *, dtype=None):
    """Cumulative products along ``dim``; the gradient is exact where the input has zeros."""
    d = _wrap_dim(dim, input.ndim, "cumprod")
    return CumprodBackward0.apply(input, dim=d, dtype=_scan_dtype(input, dtype))


def _cumulative_extreme(input, dim, name, op, result_type, keep):
    d = _wrap_dim(dim, input.ndim, name)
    data = input._data if input.ndim else input._data.reshape(1)
    xp = backend.namespace_of(data)
    values = keep.accumulate(data, axis=d)
    chosen = data == values
    if data.dtype.kind == "f":  # a NaN is taken, and each later NaN, as in PyTorch
        chosen |= xp.isnan(data)
    steps = xp.arange(data.shape[d]).reshape((-1,) + (1,) * (data.ndim - d - 1))
    indices = xp.ascontiguousarray(xp.maximum.accumulate(xp.where(chosen, steps, 0), axis=d), dtype=xp.int64)
    return select_values(op, input, d, indices, True, result_type)


@checked
def cummax(input, dim):
    """``(values, indices)``: the largest element so far along ``dim`` (the last one among equals) and where it is."""
    xp = backend.namespace_of(input._data)
    return _cumulative_extreme(input, dim, "cummax", CummaxBackward0, CummaxValuesIndices, xp.maximum)


@checked
def cummin(input, dim):
    """``(values, indices)``: the smallest element so far along ``dim`` (the last one among equals) and where it is."""
    xp = backend.namespace_of(input._data)
    return _cumulative_extreme(input, dim, "cummin", CumminBackward0, CumminValuesIndices, xp.minimum)


@checked
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))``, computed without overflow; floating dtypes only, as in PyTorch."""
    d = _wrap_dim(dim, input.ndim, "logcumsumexp")
    if not input.is_floating_point():
        raise no_kernel("logcumsumexp_out_cpu", input.dtype, "convert first: t.float().logcumsumexp(dim)")
    return LogcumsumexpBackward0.apply(input, dim=d)


@checked(kinds={"prepend": "Tensor?", "append": "Tensor?"})
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``: ``out[i] = input[i + 1] - input[i]``, repeated ``n`` times,
    after putting ``prepend`` before and ``append`` after ``input`` along ``dim``."""
    from .join import cat
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional [autograd_lab] reshape a 0-dim tensor "
                           "first, e.g. t.reshape(1)")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim, "diff")
    ends = [t for t in (prepend, input, append) if t is not None]
    if any(t.ndim != input.ndim for t in ends):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input [autograd_lab] their "
                           "shapes must match input's except along dim")
    out = cat(ends, d) if len(ends) > 1 else input
    for _ in range(n):
        length = out.shape[d]
        if length == 0:
            break
        later, earlier = out.narrow(d, 1, length - 1), out.narrow(d, 0, length - 1)
        out = later.logical_xor(earlier) if out.dtype is backend.bool_ else later - earlier
    return out


def _bind() -> None:
    from .inplace import _method
    Tensor.cumsum_, Tensor.cumprod_ = _method("cumsum_", cumsum), _method("cumprod_", cumprod)
    for name, fn in dict(cumsum=cumsum, cumprod=cumprod, cummax=cummax, cummin=cummin, logcumsumexp=logcumsumexp,
                         diff=diff).items():
        setattr(Tensor, name, fn)


_bind()
