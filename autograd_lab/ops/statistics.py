"""Statistics: ``quantile``/``nanquantile``, ``cov``, ``corrcoef``, ``trapezoid`` (``trapz``),
``cumulative_trapezoid`` (made of other ops, so their gradients are those ops' gradients, as PyTorch's are), and the
counts ``histc``, ``bincount`` and ``histogram`` (no gradient)."""

from __future__ import annotations

import warnings
from collections import namedtuple

from .. import backend
from ..tensor import Tensor
from ..tensor import _wrap_dim as _wrap
from ._args import checked
from ._errors import no_kernel
from .pointwise_binary import lerp
from .shape import SqueezeBackward4

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


# -- quantiles --------------------------------------------------------------------------------------
def _quantile_checks(input, q, interpolation: str) -> None:
    """PyTorch's checks, in its order and words (which say ``quantile()`` for ``nanquantile`` too); a tensor ``q``'s
    range is checked later, after the dim."""
    if not isinstance(q, Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _MODES:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (backend.float32, backend.float64):
        raise RuntimeError(f"quantile() input tensor must be either float or double dtype [autograd_lab] got "
                           f"{input.dtype!r}: convert it first, e.g. x.float()")
    if isinstance(q, Tensor) and q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor [autograd_lab] convert it "
                           "first, e.g. q.to(input.dtype)")


def _quantile(name: str, input, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool):
    _quantile_checks(input, q, interpolation)
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap(dim, input.ndim, name) if input.ndim else 0
        x = input if input.ndim else input.reshape(1)
    qs = [float(v) for v in q.reshape(-1).tolist()] if isinstance(q, Tensor) else [float(q)]
    if not all(0 <= v <= 1 for v in qs):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    ordered = x.movedim(d, -1).sort(-1).values  # (NaNs last)
    xp = backend.namespace_of(ordered._data)
    data = ordered._data
    nan = xp.isnan(data)
    last = data.shape[-1] - 1
    q_array = xp.asarray(qs, dtype=data.dtype)
    if ignore_nan:  # ranks among the numbers; a row of NaNs takes its first (a NaN, which gets the gradient)
        scale = xp.sum(~nan, axis=-1, keepdims=True) - 1
        ranks = q_array * scale
        kept = ranks >= 0
        ranks = xp.where(kept, ranks, 0)
    else:  # a row with a NaN gives NaN: its last value
        scale, kept = last, ~xp.any(nan, axis=-1, keepdims=True)
        ranks = xp.where(kept, q_array * last, last)
    slope = xp.broadcast_to(scale, ranks.shape).astype(data.dtype)  # d rank / d q, where the rank is kept
    kept = xp.broadcast_to(kept, ranks.shape)
    result = _interpolate(ordered, ranks, interpolation, xp, q if isinstance(q, Tensor) else None, slope, kept)
    if dim is None:
        result = result.reshape((1,) * input.ndim + (len(qs),)) if keepdim else result.reshape(len(qs))
    elif keepdim and input.ndim:
        result = result.unsqueeze(d)  # (..., 1 at d, ..., Q)
    result = result.movedim(-1, 0)
    if not isinstance(q, Tensor) or q.ndim == 0:
        return SqueezeBackward4.apply(result, dim=0)  # (the node PyTorch's quantile ends with)
    return result


def _interpolate(ordered: Tensor, ranks, interpolation: str, xp, q: Tensor | None, slope, kept) -> Tensor:
    """The values at fractional ``ranks`` (..., Q) of the sorted rows, interpolated as asked. A tensor ``q`` has a
    gradient through the weights of ``linear`` (``ranks - floor(ranks)``, the ranks ``q * slope`` where ``kept``,
    a fixed rank elsewhere), as in PyTorch; the other modes read positions only."""
    below, above = xp.floor(ranks), xp.ceil(ranks)

    def at(positions):
        index = xp.broadcast_to(positions, ordered.shape[:-1] + positions.shape[-1:]).astype("int64")
        return ordered.gather(-1, Tensor._make(index))
    if interpolation == "lower":
        return at(below)
    if interpolation == "higher":
        return at(above)
    if interpolation == "nearest":
        return at(xp.round(ranks))  # (half to even, as PyTorch's round)
    weights = xp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
    low, high = at(below), at(above)
    weights = Tensor._make(xp.broadcast_to(weights, low.shape).astype(low._data.dtype))
    if interpolation == "linear" and q is not None:  # (adds 0: only q's gradient, slope, comes in)
        q_ranks = (q.reshape(-1) * Tensor._make(xp.broadcast_to(slope, low.shape)))
        q_ranks = q_ranks.masked_fill(Tensor._make(~xp.broadcast_to(kept, low.shape)), 0)
        weights = weights + (q_ranks - q_ranks.detach())
    return lerp(low, high, weights)


@checked(kinds={"q": "Tensor|Number", "dim": "int?", "keepdim": "bool"})
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (a number or a 1-D tensor of them, in [0, 1]) of all of ``input`` or along ``dim``;
    between two values ``interpolation`` decides: ``linear``, ``lower``, ``higher``, ``midpoint`` or ``nearest``.
    A tensor ``q`` puts its dim first (and has a gradient with ``linear``, as in PyTorch). NaN where a NaN is among
    the values."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


@checked(kinds={"q": "Tensor|Number", "dim": "int?", "keepdim": "bool"})
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` ignoring NaNs (NaN only where every value is NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


# -- covariance ---------------------------------------------------------------------------------------
def _weights(name: str, w, observations: int, integral: bool):
    if w is None:
        return None
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           "dimensions")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {observations}")
    if integral and w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{backend.kernel_type_name(w.dtype)} dtype")
    if not integral and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{backend.kernel_type_name(w.dtype)} dtype")
    if bool((w._data < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w.detach()


@checked(kinds={"correction": "int"})
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in its columns; a 1-D input is
    one variable): ``correction`` 1 divides by N - 1 (Bessel's), 0 by N; ``fweights`` (integer counts) and
    ``aweights`` (floating importances) weigh the observations. A 0-dim result for one variable."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} "
                           "dimensions")
    if input.dtype is backend.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input [autograd_lab] convert it first, e.g. "
                           "x.float()")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not x.dtype.is_floating_point:
        x = x.to(backend.get_default_dtype())
    n = x.shape[1]
    f, a = _weights("fweights", fweights, n, True), _weights("aweights", aweights, n, False)
    w = f if a is None else (a if f is None else f * a)  # (in the weights' own dtype, as PyTorch)
    total = float(n) if w is None else w.sum()
    if w is not None and float(total) == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = x.mean(1, keepdim=True) if w is None else (x * w).sum(1, keepdim=True) / total
    if w is not None and a is not None and correction != 0:
        norm = total - correction * (w * a).sum() / total
    else:
        norm = total - correction
    if float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=3)
        norm = 0.0
    centred = x - mean
    return ((centred if w is None else centred * w) @ centred.t() / norm).squeeze()


@checked
def corrcoef(input):
    """Pearson's correlation coefficients of the variables in the rows of ``input``, clamped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    spread = c.diagonal().sqrt()
    return (c / spread.unsqueeze(1) / spread.unsqueeze(0)).clamp(-1, 1)


# -- integrals -----------------------------------------------------------------------------------------
def _spacing(name: str, y, x, dx, dim):
    """The dim and the spacing of the points: a number, or a tensor of gaps that broadcasts along that dim."""
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, x=Tensor, "
                        f"dx={type(dx).__name__}), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n[autograd_lab] pass x or dx, not both")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(x).__name__}), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        f" * (Tensor y, *, Number dx = 1, int dim = -1)\n[autograd_lab] a spacing goes in dx=, "
                        f"e.g. {name}(y, dx={x!r})")
    if y.dtype is backend.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported [autograd_lab] convert "
                           "it first, e.g. y.float()")
    if isinstance(dx, bool):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number. [autograd_lab] got dx={dx}")
    d = _wrap(dim, y.ndim, name)
    if not isinstance(x, Tensor):
        return d, 1.0 if x is None and dx is None else (dx if dx is not None else x)
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        return d, x.diff().reshape([-1] + [1] * (y.ndim - 1 - d))
    if x.shape[dim] != y.shape[d]:
        raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
    return d, x.diff(dim=dim)


def _float(y):
    return y if y.dtype.is_floating_point else y.to(backend.get_default_dtype())


@checked(kinds={"y": "Tensor", "dim": "int"})
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoid rule, at points ``x`` (a tensor) or ``dx`` apart."""
    d, step = _spacing("trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:  # (PyTorch returns zeros in y's own dtype here, an integer one too)
        return y.sum(d)
    y = _float(y)
    ends = y.narrow(d, 1, y.shape[d] - 1) + y.narrow(d, 0, y.shape[d] - 1)
    return (ends * step).sum(d) / 2 if isinstance(step, Tensor) else ends.sum(d) * (step / 2)


@checked(kinds={"y": "Tensor", "dim": "int"})
def trapz(y, x=None, *, dx=None, dim=-1):
    """The older name of ``trapezoid`` (its ``dx`` is a float: True is 1.0 there)."""
    return trapezoid(y, x, dx=float(dx) if isinstance(dx, bool) else dx, dim=dim)


@checked(kinds={"y": "Tensor", "dim": "int"})
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoid rule (one value fewer than ``y`` has)."""
    d, step = _spacing("cumulative_trapezoid", y, x, dx, dim)
    y = _float(y)
    if y.shape[d] == 0:
        return y
    ends = y.narrow(d, 1, y.shape[d] - 1) + y.narrow(d, 0, y.shape[d] - 1)
    return (ends * step / 2).cumsum(d) if isinstance(step, Tensor) else (ends * (step / 2)).cumsum(d)


# -- counts (no gradient) ------------------------------------------------------------------------------
@checked(kinds={"bins": "int", "min": "number", "max": "number"})
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - PyTorch's parameter names
    """Counts of the values of ``input`` in ``bins`` equal bins over [min, max] (the data's range if both are 0;
    values outside are left out), in ``input``'s dtype. No gradient."""
    if not input.dtype.is_floating_point:
        raise no_kernel("histogram_cpu", input.dtype, "histc counts floating-point values: convert first, e.g. "
                        "x.float()")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    data = input._data.reshape(-1)
    xp = backend.namespace_of(data)
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (abs(low) < float("inf") and abs(high) < float("inf")):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    # PyTorch's kernel: the bin is int((x - min) * bins / (max - min)) in the input's dtype (the last bin takes max);
    # NumPy's histogram corrects this against its edges, so a value near an edge could land one bin over
    lo, hi = data.dtype.type(low), data.dtype.type(high)
    inside = data[(data >= lo) & (data <= hi)]
    where = ((inside - lo) * data.dtype.type(bins) / (hi - lo)).astype("int64")
    counts = xp.bincount(xp.minimum(where, bins - 1), minlength=bins)
    return Tensor._make(counts.astype(data.dtype))


@checked(kinds={"minlength": "int"})
def bincount(input, weights=None, minlength=0):
    """How often each of 0, 1, ..., max(input) occurs in the 1-D non-negative integer ``input`` (at least
    ``minlength`` counts); with ``weights``, their sums instead (float64 unless the weights are float32)."""
    if input.dtype.is_floating_point or input.dtype is backend.bool_:
        raise no_kernel("bincount_cpu", input.dtype, "bincount counts integers: convert first, e.g. x.long()")
    data = input._data
    if input.ndim != 1 or (data.size and int(data.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = backend.namespace_of(data)
    if weights is None or data.size == 0:  # (PyTorch: int64 zeros for an empty input, weights or not)
        return Tensor._make(xp.bincount(data, minlength=minlength).astype("int64"))
    if weights.ndim != 1 or weights.shape[0] != input.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = "float32" if weights.dtype is backend.float32 else "float64"
    return Tensor._make(xp.bincount(data, weights=weights._data.astype("float64"),
                                    minlength=minlength).astype(out_dtype))


histogram_result = namedtuple("histogram", ["hist", "bin_edges"])


@checked(kinds={"input": "Tensor", "bins": "Tensor|Number"})
def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002 - PyTorch's parameter name
    """Counts (or sums of ``weight``) of the values of ``input`` in ``bins`` (a count of equal bins over ``range``,
    or the data's range; or a 1-D tensor of increasing edges), with the edges; ``density`` divides by the total and
    the bin widths. No gradient."""
    if not input.dtype.is_floating_point:
        raise no_kernel("histogramdd", input.dtype, "histogram counts floating-point values: convert first")
    data = input._data.reshape(-1)
    xp = backend.namespace_of(data)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                           f"have the same dtype, but got input({_meta_name(input)}), and weight({_meta_name(weight)}) "
                           "[autograd_lab] convert the weights first, e.g. weight.to(input.dtype)")
    if isinstance(bins, Tensor) and bins.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input "
                           f"with dtype {_meta_name(input)} and bins for dimension 0 with dtype {_meta_name(bins)} "
                           "[autograd_lab] convert the edges first, e.g. bins.to(input.dtype)")
    if isinstance(bins, Tensor):
        edges = bins._data
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        low, high = (float(range[0]), float(range[1])) if range is not None else (
            (float(data.min()), float(data.max())) if data.size else (0.0, 1.0))  # (PyTorch's for no data)
        if not (abs(low) < float("inf") and abs(high) < float("inf")):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite "
                               "[autograd_lab] give a finite range=, or leave the NaN and infinite values out")
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for "
                               "dimension 0")
        if low == high:
            low, high = low - 0.5, high + 0.5  # (NumPy's choice, and PyTorch's for an empty range)
        edges = xp.linspace(low, high, int(bins) + 1).astype(data.dtype)
    w = None if weight is None else weight._data.reshape(-1)
    hist = _counts(xp, data, edges, w)
    if density:
        widths = xp.diff(edges)
        hist = hist / hist.sum() / widths
    return histogram_result(Tensor._make(hist.astype(data.dtype)), Tensor._make(edges.astype(data.dtype)))


def _meta_name(t: Tensor) -> str:
    """The dtype as PyTorch's histogram errors print it: float, double, c10::Half."""
    name = backend.kernel_type_name(t.dtype)
    return name.lower() if name in ("Float", "Double") else f"c10::{name}" if name in ("Half", "BFloat16") else name


def _counts(xp, data, edges, weights):
    """Counts in the bins ``[e0, e1), [e1, e2), ..., [e_n-1, e_n]`` (edges in order; none for edges out of order)."""
    if edges.size < 2 or bool((xp.diff(edges) < 0).any()):
        return xp.zeros(max(edges.size - 1, 1), dtype="float64")
    inside = (data >= edges[0]) & (data <= edges[-1])
    where = xp.minimum(xp.searchsorted(edges, data[inside], side="right") - 1, edges.size - 2)
    return xp.bincount(where, weights=None if weights is None else weights[inside].astype("float64"),
                       minlength=edges.size - 1).astype("float64")


_FUNCTIONS = dict(quantile=quantile, nanquantile=nanquantile, cov=cov, corrcoef=corrcoef, histc=histc,
                  bincount=bincount, histogram=histogram)


def _bind() -> None:
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)


_bind()
__all__ = ["quantile", "nanquantile", "cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid", "histc",
           "bincount", "histogram"]
