"""The small namespace every derivative formula is written in: each function takes arrays or tensors.

A derivative is written once, like a line of PyTorch's ``derivatives.yaml``::

    def d_self(grad, result):          # TanhBackward0
        return grad * (1 - result * result)

    def d_self(grad, dim, result):     # SoftmaxBackward0
        return result * (grad - sum(grad * result, dim, keepdim=True))

It runs in two worlds. In a ``backward()`` without ``create_graph`` nothing records the derivative, so
it runs on the raw arrays (NumPy or CuPy): no Tensor is made for its intermediate results. Under
``create_graph`` it runs on tensors, and each operation it makes is recorded, so the derivative can be
differentiated again. Python's operators (``+ - * / ** @``, comparisons, ``&``, ``.shape``, ``.ndim``)
mean the same on both. Everything else a formula needs is a function of this module, which looks at its
arguments: any tensor among them, and it calls the tensor op (recorded); arrays only, and it calls the
array library directly. (HIPS autograd writes its derivative rules the same way, against one namespace.)

Derivatives whose work is an op of their own (``SliceBackwardBackward0``, the convolution's backward)
go through :func:`call`: the op's ``forward`` on arrays, its ``apply`` on tensors.
"""

from __future__ import annotations

import builtins

from .. import backend
from ..autograd import engine
from ..tensor import Tensor

_ndarray = backend.np.ndarray


def _xp(array):
    """The array library of ``array`` (NumPy, or CuPy for a CUDA array)."""
    return backend.np if array.__class__ is _ndarray else backend.namespace_of(array)


def _tensor_among(values) -> bool:
    for v in values:
        if isinstance(v, Tensor):
            return True
    return False


def call(op, *inputs, **params):
    """Run the op class ``op``: its ``forward`` on arrays (nothing recorded), its ``apply`` on tensors."""
    if _tensor_among(inputs):
        return op.apply(*inputs, **params)
    # a NumPy scalar (what arithmetic on 0-d arrays gives) as the 0-d array it stands for: a forward that writes
    # into a copy of its input (scatter's: ``out = self.copy(); out.reshape(1)[...] = ...``) would write into a
    # temporary, and lose the writes, on a scalar's copy
    inputs = [backend.np.asarray(v) if isinstance(v, backend.np.generic) else v for v in inputs]
    return op.forward(_xp(inputs[0]), *inputs, **params)


# -- elementwise --------------------------------------------------------------------------------
def exp(x):
    return x.exp() if isinstance(x, Tensor) else _xp(x).exp(x)


def log(x):
    return x.log() if isinstance(x, Tensor) else _xp(x).log(x)


def log1p(x):
    return x.log1p() if isinstance(x, Tensor) else _xp(x).log1p(x)


def sqrt(x):
    return x.sqrt() if isinstance(x, Tensor) else _xp(x).sqrt(x)


def power(x, exponent):
    """``x ** exponent`` elementwise with a tensor exponent, as PyTorch computes it: C's pow, with no special
    case for a one-value exponent of 0.5 (NumPy's power takes sqrt there: NaN at -inf, where pow gives inf)."""
    if _tensor_among((x, exponent)):
        return x ** exponent if isinstance(x, Tensor) else exponent.__rpow__(x)
    xp = _xp(x if hasattr(x, "dtype") else exponent)
    return xp.float_power(x, exponent).astype(xp.result_type(x, exponent), copy=False)


def sin(x):
    return x.sin() if isinstance(x, Tensor) else _xp(x).sin(x)


def cos(x):
    return x.cos() if isinstance(x, Tensor) else _xp(x).cos(x)


def sign(x):
    """PyTorch's sign: 0 at NaN (NumPy's is NaN), and a bool is its own sign."""
    if isinstance(x, Tensor):
        return x.sign()
    if x.dtype.kind == "b":
        return x.copy()
    out = _xp(x).sign(x)
    return _xp(x).where(out != out, 0, out) if out.dtype.kind == "f" else out


def abs(x):  # noqa: A001 - the same name as in every array library
    return x.abs() if isinstance(x, Tensor) else _xp(x).abs(x)


def tanh(x):
    return x.tanh() if isinstance(x, Tensor) else _xp(x).tanh(x)


def sigmoid(x):
    return x.sigmoid() if isinstance(x, Tensor) else _pointwise.SigmoidBackward0.forward(_xp(x), x)  # (no overflow)


def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (either may be a Python number, which keeps the other's dtype).

    On arrays, where one side is the number 0 (the masks of relu, clamp, maximum, the losses): the other side
    times the mask, which NumPy computes about 15 times faster than its ``where``. It is the same array except
    where that side holds a NaN or an infinity (times 0 gives NaN; then ``where`` itself runs) and for the
    sign of zeros (adding 0.0 makes every zero positive, as ``where`` gives them).
    """
    if isinstance(condition, Tensor) or isinstance(x, Tensor) or isinstance(y, Tensor):
        if not isinstance(condition, Tensor):
            condition = Tensor._make(condition)
        return _pointwise.where(condition, x, y)
    xp = _xp(condition)
    if y.__class__ is float and y == 0 and hasattr(x, "dtype") or x.__class__ is float and x == 0 and hasattr(y, "dtype"):
        out = x * condition if hasattr(x, "dtype") else y * ~condition
        if not xp.isnan(out).any():
            out += 0.0
            return out
    return xp.where(condition, x, y)


def floor_div(a, b):
    """``a // b``, Python's and PyTorch's floor division (either may be a number)."""
    if _tensor_among((a, b)):
        return a // b if isinstance(a, Tensor) else b.__rfloordiv__(a)
    return _xp(a if hasattr(a, "dtype") else b).floor_divide(a, b)


def trunc_div(a, b):
    """``a / b`` rounded toward zero (C's and PyTorch's ``rounding_mode="trunc"``)."""
    if _tensor_among((a, b)):
        return a.div(b, rounding_mode="trunc") if isinstance(a, Tensor) else b.new_tensor(a).div(b, rounding_mode="trunc")
    xp = _xp(a if hasattr(a, "dtype") else b)
    return xp.trunc(xp.true_divide(a, b))


def cosh(x):
    return x.cosh() if isinstance(x, Tensor) else _xp(x).cosh(x)


def sinh(x):
    return x.sinh() if isinstance(x, Tensor) else _xp(x).sinh(x)


def digamma(x):
    return x.digamma() if isinstance(x, Tensor) else _special.digamma(_xp(x), x)


def polygamma(n: int, x):
    return x.polygamma(n) if isinstance(x, Tensor) else _special.polygamma(_xp(x), n, x)


def xlogy(x, y):
    """``x * log(y)``, 0 where x is 0 (unless y is NaN)."""
    if _tensor_among((x, y)):
        return (x if isinstance(x, Tensor) else Tensor._make(x)).xlogy(y)
    return _special.xlogy(_xp(x), x, y)


def clamp_min(x, low):
    return x.clamp(min=low) if isinstance(x, Tensor) else _xp(x).maximum(x, low)


# -- shapes ---------------------------------------------------------------------------------------
def reshape(x, shape):
    return x.reshape(shape)  # (the same method on arrays and tensors)


def expand(x, shape):
    """``x`` broadcast to ``shape`` without copying (a read-only view on arrays)."""
    if isinstance(x, Tensor):
        return x.expand(shape)
    if x.__class__ is _ndarray and x.ndim == 0:  # (a loss's gradient: a zero-stride view, without the
        view = _ndarray(shape, x.dtype, x, 0, (0,) * len(shape))  # cost of broadcast_to's checks)
        view.flags.writeable = False
        return view
    return _xp(x).broadcast_to(x, shape)


def sum_to(x, shape):
    """``x`` summed down to ``shape``: the inverse of broadcasting ``shape`` up to ``x``'s shape (on arrays, the
    engine's own function, the one place that undoes broadcasting)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    return x.sum_to_size(shape) if isinstance(x, Tensor) else engine.sum_to(x, shape)


def t(x):
    """The transpose of a matrix."""
    return x.t() if isinstance(x, Tensor) else x.T


def transpose(x, dim0: int, dim1: int):
    return x.transpose(dim0, dim1) if isinstance(x, Tensor) else x.swapaxes(dim0, dim1)


def permute(x, dims):
    return x.permute(tuple(dims)) if isinstance(x, Tensor) else x.transpose(tuple(dims))


def unsqueeze(x, dim: int):
    return x.unsqueeze(dim) if isinstance(x, Tensor) else _xp(x).expand_dims(x, dim)


def squeeze(x, dim: int):
    return x.squeeze(dim) if isinstance(x, Tensor) else _xp(x).squeeze(x, axis=dim)


def flip(x, dims):
    return x.flip(tuple(dims)) if isinstance(x, Tensor) else _xp(x).flip(x, axis=tuple(dims)).copy()


# -- reductions -----------------------------------------------------------------------------------
def sum(x, dims=None, keepdim: bool = False):  # noqa: A001
    """The sum over ``dims`` (an int, a tuple, or every dim when ``None``); a boolean mask sums to int64."""
    if isinstance(x, Tensor):
        return x.sum() if dims is None and not keepdim else x.sum(dims, keepdim=keepdim)
    return _xp(x).asarray(x.sum(axis=dims, keepdims=keepdim))


def mean(x, dims=None, keepdim: bool = False):
    """The mean over ``dims``. On arrays: the sum (float16's in float32) over the count, as NumPy's ``mean``
    computes it, but an empty mean is nan without a word, as in PyTorch (NumPy's warns from inside NumPy)."""
    if isinstance(x, Tensor):
        return x.mean() if dims is None and not keepdim else x.mean(dims, keepdim=keepdim)
    xp = _xp(x)
    total = xp.sum(x, axis=dims, keepdims=keepdim, dtype=xp.float32 if x.dtype == xp.float16 else None)
    count = _count(x.shape, dims)
    if count == 0:  # (0 / 0 without NumPy's "invalid value" warning)
        return xp.full(total.shape, xp.nan, dtype=x.dtype)
    return xp.asarray(total / count).astype(x.dtype, copy=False)


def var(x, dims, correction: int | None = 1, keepdim: bool = False):
    """The variance over ``dims`` (``correction=0``: the biased one): ``sum((x - mean)^2) / max(N - correction,
    0)``, as NumPy's ``var`` computes it, silent where no degree of freedom is left (the caller warns).

    On arrays it is computed about each group's first value (a shift that changes nothing but the rounding), so
    that equal values have a variance of exactly 0, as PyTorch's Welford algorithm gives: about the mean,
    [1.48, 1.48, 1.48] gives 5e-32, and std's gradient there would be noise, not 0."""
    if isinstance(x, Tensor):
        return x.var(dims, correction=correction, keepdim=keepdim)
    xp = _xp(x)
    correction = 1 if correction is None else correction  # (PyTorch's default, recorded as None)
    reduced = {d % x.ndim for d in (range(x.ndim) if dims is None else (dims,) if isinstance(dims, int) else dims)}
    if x.ndim and builtins.all(x.shape[d] for d in reduced):
        x = x - x[tuple(slice(0, 1) if d in reduced else slice(None) for d in range(x.ndim))]
    centered = x - mean(x, dims, keepdim=True)
    dof = builtins.max(_count(x.shape, dims) - correction, 0)
    total = xp.sum(centered * centered, axis=dims, keepdims=keepdim)
    if dof == 0:  # (total / 0 without NumPy's warnings: inf, or nan for 0 and nan)
        return xp.asarray(xp.where(total > 0, xp.inf, xp.nan)).astype(x.dtype, copy=False)
    return xp.asarray(total / dof).astype(x.dtype, copy=False)


def _count(shape: tuple, dims) -> int:
    """How many elements a reduction over ``dims`` (an int, a tuple, or ``None`` for all) takes."""
    n = 1
    for d in range(len(shape)) if dims is None else (dims,) if isinstance(dims, int) else dims:
        n *= shape[d]
    return n


def amin(x, dims):
    """The smallest values over ``dims`` (a tuple), kept as dims of size 1."""
    return x.amin(dims, keepdim=True) if isinstance(x, Tensor) else x.min(axis=dims, keepdims=True)


def amax(x, dims):
    """The largest values over ``dims`` (a tuple), kept as dims of size 1."""
    return x.amax(dims, keepdim=True) if isinstance(x, Tensor) else x.max(axis=dims, keepdims=True)


def prod(x, dim: int):
    return x.prod(dim) if isinstance(x, Tensor) else _xp(x).prod(x, axis=dim)


def isnan(x):
    return x.isnan() if isinstance(x, Tensor) else _xp(x).isnan(x)


def count(mask) -> int:
    """How many elements of a boolean mask are true (a Python int: a constant of the derivative)."""
    return int(mask.sum())


def any_true(mask) -> bool:
    """Whether any element of a boolean mask is true (a Python bool, on arrays or tensors)."""
    return builtins.bool(mask.any())


def numel(x) -> int:
    """The number of elements."""
    return x.numel() if isinstance(x, Tensor) else int(x.size)


# -- products ---------------------------------------------------------------------------------------
def mm(a, b):
    """The product of two matrices (``mm`` on tensors; on arrays ``dot`` or ``@``, whichever is quicker for its
    size: NumPy's ``dot`` costs less per call, but zeroes its output before the product, which costs more
    than it saves once the product is large, a layer's weight gradient; benchmarks/NOTES.md, "what stayed")."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return _linalg.mm(a if isinstance(a, Tensor) else Tensor._make(a), b if isinstance(b, Tensor) else Tensor._make(b))
    if a.shape[0] * b.shape[1] <= 4096 and a.shape[1] > 1:  # (an inner size of 1 goes to @: there OpenBLAS's dot
        return a.dot(b)  # scales by the 1x1 side and skips a zero, so [[0.]] by [[nan]] gives 0; @ gives NaN)
    return a @ b


def bmm(a, b):
    """Batched matrix products (3-D by 3-D)."""
    if _tensor_among((a, b)):
        return a.bmm(b)
    return _xp(a).matmul(a, b)


def mv(a, v):
    """A matrix times a vector."""
    if _tensor_among((a, v)):
        return a.mv(v)
    return a @ v


def dot(a, b):
    """The dot product of two vectors (a 0-dim result)."""
    if _tensor_among((a, b)):
        return a.dot(b)
    return _xp(a).asarray(a.dot(b))


# -- making and joining ---------------------------------------------------------------------------------
def zeros(shape, like):
    """Zeros of ``shape`` with ``like``'s dtype and device."""
    if isinstance(like, Tensor):
        return Tensor._make(backend.namespace_of(like._data).zeros(tuple(shape), dtype=like._data.dtype))
    return _xp(like).zeros(tuple(shape), dtype=like.dtype)


def zeros_like(x):
    return zeros(x.shape, x)


def ones_like(x):
    """Ones shaped like ``x``, with its dtype and device."""
    if isinstance(x, Tensor):
        return Tensor._make(backend.namespace_of(x._data).ones(x._data.shape, dtype=x._data.dtype))
    return _xp(x).ones(x.shape, dtype=x.dtype)


def to_device(x, device):
    """``x`` on ``device`` (itself where it is there already, or ``device`` is None)."""
    if device is None:
        return x
    return x.to(device) if isinstance(x, Tensor) else backend.move(x, device)


def opmath(x):
    """``x`` in the dtype PyTorch's kernels compute it in: float16 in float32 (a tensor's ``.float()``, an array's
    ``astype``), any other dtype as it is. Normalisations take their statistics so: squares of float16 values above
    256 would overflow."""
    if isinstance(x, Tensor):
        return x.float() if x.dtype is backend.float16 else x
    return x.astype(_xp(x).float32) if x.dtype == _xp(x).float16 else x


def cast_like(x, like):
    """``x`` in ``like``'s dtype (a tensor's ``.to``, an array's ``astype``)."""
    target = like._data.dtype if isinstance(like, Tensor) else like.dtype
    if isinstance(x, Tensor):
        return x if x._data.dtype == target else x.to(backend.from_np(target))
    return x if x.dtype == target else x.astype(target)


def array_of(x):
    """The array underneath (a tensor's data): for values a derivative uses as constants, not differentiated."""
    return x._data if isinstance(x, Tensor) else x


def cat(xs, dim: int):
    return _join.cat(xs, dim) if _tensor_among(xs) else _xp(xs[0]).concatenate(xs, axis=dim)


def stack(xs, dim: int):
    return _join.stack(xs, dim) if _tensor_among(xs) else _xp(xs[0]).stack(xs, axis=dim)


def split(x, sizes, dim: int) -> tuple:
    """``x`` cut along ``dim`` into pieces of the given sizes."""
    if isinstance(x, Tensor):
        return tuple(x.split(list(sizes), dim))
    bounds, total = [], 0
    for s in sizes[:-1]:
        total += s
        bounds.append(total)
    return tuple(_xp(x).split(x, bounds, axis=dim))


def unbind(x, dim: int) -> tuple:
    if isinstance(x, Tensor):
        return tuple(x.unbind(dim))
    return tuple(_xp(x).moveaxis(x, dim, 0))


# -- linear algebra (on the last two dims, batched) ------------------------------------------------------
def matmul(a, b):
    """The matrix product, batch dims broadcast."""
    if _tensor_among((a, b)):
        return _as_tensor(a) @ _as_tensor(b)
    return _xp(a).matmul(a, b)


def inv(A):
    """The inverse of each matrix."""
    return call(_decomp.LinalgInvExBackward0, A)[0]


def solve(A, B):
    """X with A X = B for each matrix (B a batch of matrices)."""
    if _tensor_among((A, B)):
        return _decomp.LinalgSolveExBackward0.apply(_as_tensor(A), _as_tensor(B))[0]
    return _decomp.LinalgSolveExBackward0.forward(_xp(A), A, B)[0]


def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False):
    """X with T X = B (``left=False``: X T = B), T the upper or lower triangle of each A (ones on its diagonal when
    ``unitriangular``)."""
    params = dict(upper=upper, left=left, unitriangular=unitriangular)
    if _tensor_among((A, B)):
        return _lu.LinalgSolveTriangularBackward0.apply(_as_tensor(A), _as_tensor(B), **params)
    return _lu.LinalgSolveTriangularBackward0.forward(_xp(A), A, B, **params)


def tril(x, diagonal: int = 0):
    """The lower triangle of each matrix (on tensors: times a constant mask, so it is recorded)."""
    if isinstance(x, Tensor):
        xp = backend.namespace_of(x._data)
        mask = xp.tri(x.shape[-2], x.shape[-1], diagonal, dtype=x._data.dtype)
        return x * Tensor._make(mask)
    return _xp(x).tril(x, diagonal)


def eye_like(x):
    """The identity of each matrix's shape, in ``x``'s dtype (a constant)."""
    xp = backend.namespace_of(x._data) if isinstance(x, Tensor) else _xp(x)
    eye = xp.eye(x.shape[-2], x.shape[-1], dtype=x._data.dtype if isinstance(x, Tensor) else x.dtype)
    return Tensor._make(eye) if isinstance(x, Tensor) else eye


def diagonal(x):
    """The main diagonal of each matrix (its last dim)."""
    return x.diagonal(0, -2, -1) if isinstance(x, Tensor) else _xp(x).diagonal(x, 0, -2, -1)


def diag_embed(v):
    """Square matrices with ``v`` on their diagonal."""
    n = v.shape[-1]
    xp = backend.namespace_of(v._data) if isinstance(v, Tensor) else _xp(v)
    eye = xp.eye(n, dtype=v._data.dtype if isinstance(v, Tensor) else v.dtype)
    return unsqueeze(v, -1) * (Tensor._make(eye) if isinstance(v, Tensor) else eye)


def cross(a, b, dim: int):
    """The cross product along ``dim`` (of size 3)."""
    if _tensor_among((a, b)):
        return _decomp.LinalgCrossBackward0.apply(_as_tensor(a), _as_tensor(b), dim=dim)
    return _decomp.LinalgCrossBackward0.forward(_xp(a), a, b, dim=dim)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor._make(x)


# The tensor ops this namespace calls (their modules import this one, so they are bound once all are loaded).
from . import join as _join  # noqa: E402
from . import linalg as _linalg  # noqa: E402
from . import linalg_decomp as _decomp  # noqa: E402
from . import linalg_lu as _lu  # noqa: E402
from . import pointwise as _pointwise  # noqa: E402
from . import special as _special  # noqa: E402
