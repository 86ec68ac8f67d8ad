"""autograd_lab: reverse-mode automatic differentiation on NumPy, the way PyTorch does it.

``import autograd_lab as al`` reads like ``import torch``: ``al.tensor``, ``requires_grad``,
``grad_fn``, ``backward()``, ``al.no_grad()``, ``al.autograd.grad``...
"""

from __future__ import annotations

import math as _math
import warnings as _warnings

from . import autograd, backend, backends, cuda, data, linalg, models, nn, ops, optim, profiler, serialization, utils  # noqa: F401  (ops binds Tensor methods)
from ._tensor_str import set_printoptions
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .backend import (
    bool_,
    device,
    dtype,
    float16,
    float32,
    float64,
    get_default_device,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_device,
    set_default_dtype,
    uint8,
)
from .backends import (
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .creation import (
    Generator,
    arange,
    as_tensor,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    linspace,
    manual_seed,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from .creation_more import asarray, empty_strided, scalar_tensor
from .info import finfo, get_num_threads, iinfo, set_num_threads
from .linalg import _cross as cross
from .linalg import _qr_legacy as qr
from .linalg import _svd_legacy as svd
from .linalg import det, logdet, matrix_power, slogdet  # (al.linalg, as torch.linalg)
from .linalg import inv as inverse
from .linalg_lu import _lu_legacy as lu
from .linalg_lu import _lu_solve_legacy as lu_solve
from .linalg_lu import lu_unpack
from .linalg_more import cholesky, cholesky_inverse, cholesky_solve, geqrf, matrix_exp, ormqr, pinverse, triangular_solve
from .linalg_more import householder_product as orgqr
from .ops._args import checked as _checked
from .ops.arithmetic import add, div, floor_divide, fmod, mul, neg, pow, reciprocal, remainder, rsub, square, sub
from .ops.bitwise import (
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
)
from .ops.clamp_bounds import clamp_max, clamp_min
from .ops.comparison import (
    eq,
    ge,
    gt,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
)
from .ops.conjugation import (
    adjoint,
    angle,
    conj,
    conj_physical,
    imag,
    is_conj,
    is_neg,
    isneginf,
    isposinf,
    isreal,
    real,
    resolve_conj,
    resolve_neg,
)
from .ops.cumulative import cummax, cummin, cumprod, cumsum, diff, logcumsumexp
from .ops.einsum import einsum
from .ops.fill import index_put, masked_fill
from .ops.index_writes import index_add, index_copy, index_fill, masked_scatter, scatter, take
from .ops.indexing import getitem as _getitem  # noqa: F401
from .ops.join import cat, concat, concatenate, flip, stack
from .ops.join_more import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    column_stack,
    combinations,
    dsplit,
    dstack,
    hsplit,
    hstack,
    meshgrid,
    row_stack,
    tensor_split,
    tile,
    vsplit,
    vstack,
)
from .ops.linalg import bmm, dot, matmul, mm, mv, outer
from .ops.nan_reductions import aminmax, nanmean, nansum
from .ops.nn import addmm
from .ops.norm import norm
from .ops.pointwise import (
    abs,
    ceil,
    clamp,
    clip,
    clone,
    cos,
    exp,
    floor,
    log,
    log1p,
    maximum,
    minimum,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    tan,
    tanh,
    trunc,
    where,
)
from .ops.pointwise_binary import (
    addcdiv,
    addcmul,
    arctan2,
    atan2,
    copysign,
    float_power,
    heaviside,
    hypot,
    lerp,
    logaddexp,
    logaddexp2,
    xlogy,
)
from .ops.pointwise_math import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    asin,
    asinh,
    atan,
    atanh,
    cosh,
    deg2rad,
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    frac,
    lgamma,
    log2,
    log10,
    logit,
    nan_to_num,
    polygamma,
    rad2deg,
    sgn,
    signbit,
    sinc,
    sinh,
)
from .ops.pointwise_more import fix, fmax, fmin, frexp, gcd, i0, lcm, ldexp, nextafter, positive
from .ops.predicates import is_complex, is_nonzero, is_same_size, is_signed, isclose, isin, unique_consecutive
from .ops.products_more import addbmm, addmv, addr, baddbmm, chain_matmul, dist, ger, vdot
from .ops.put_renorm import put, renorm
from .ops.random_sampling import bernoulli, multinomial, poisson
from .ops.reductions import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    prod,
    sum,
)
from .ops.scatter_gather import gather, index_select, scatter_add
from .ops.scatter_more import (
    diagonal_scatter,
    index_put_,
    index_reduce,
    masked_select,
    scatter_reduce,
    select_scatter,
    slice_scatter,
    take_along_dim,
)
from .ops.searching import argwhere, bucketize, count_nonzero, nonzero, searchsorted, unique
from .ops.shape import (
    broadcast_to,
    chunk,
    diagonal,
    flatten,
    movedim,
    narrow,
    permute,
    reshape,
    select,
    split,
    squeeze,
    swapaxes,
    t,
    transpose,
    unbind,
    unflatten,
    unsqueeze,
)
from .ops.sorting import argsort, kthvalue, median, mode, msort, nanmedian, sort, topk
from .ops.split import split_with_sizes, unsafe_chunk, unsafe_split, unsafe_split_with_sizes
from .ops.statistics import (
    bincount,
    corrcoef,
    cov,
    cumulative_trapezoid,
    histc,
    histogram,
    nanquantile,
    quantile,
    trapezoid,
    trapz,
)
from .ops.tensor_products import cdist, inner, kron, tensordot
from .ops.top_level_nn import (
    adaptive_avg_pool1d,
    alpha_dropout_,
    avg_pool1d,
    celu,
    celu_,
    channel_shuffle,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_similarity,
    dropout,
    dropout_,
    feature_alpha_dropout_,
    group_norm,
    hardshrink,
    layer_norm,
    log_softmax,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    pairwise_distance,
    pixel_shuffle,
    pixel_unshuffle,
    prelu,
    rrelu_,
    selu,
    selu_,
    softmax,
    threshold,
    threshold_,
)
from .ops.triangles import diag_embed, repeat_interleave, roll, rot90, trace, tril, triu
from .ops.variance import std, std_mean, var, var_mean
from .ops.views_more import (
    diag,
    diagflat,
    fliplr,
    flipud,
    moveaxis,
    narrow_copy,
    ravel,
    swapdims,
    tril_indices,
    triu_indices,
    unravel_index,
)
from .ranges import logspace, vander
from .tensor import Size, Tensor
from .warn_once import is_warn_always_enabled, set_warn_always
from .windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window

save, load = serialization.save, serialization.load  # al.save / al.load, as torch.save / torch.load
bool = bool_  # noqa: A001 - al.bool, as torch.bool
float = float32  # noqa: A001 - al.float, as torch.float
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

multiply, subtract, divide, negative = mul, sub, div, neg
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne
clamp_, true_divide, absolute = Tensor.clamp_, div, abs
result_type = backend.result_type
# PyTorch's top-level in-place functions: ``al.exp_(x)`` is ``x.exp_()``, each the Tensor method itself.
_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_",
    "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)
globals().update({_name: getattr(Tensor, _name) for _name in _INPLACE_FUNCTIONS})
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None  # as torch.pi ... torch.newaxis

__version__ = "0.1.0"


def is_tensor(obj) -> bool:
    """True if ``obj`` is an autograd_lab Tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def numel(input: Tensor) -> int:
    return input.numel()


@_checked
def detach(input: Tensor) -> Tensor:
    return input.detach()


@_checked
def equal(input: Tensor, other: Tensor) -> bool:
    return input.equal(other)


@_checked
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return input.allclose(other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def __getattr__(name: str):
    # ``al.lab`` and ``al.course`` are imported on first use only: the core never needs them (or the lab's
    # dependencies). A Chinese notebook starts with ``al.course.set_language("zh")``.
    if name in ("lab", "course"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'autograd_lab' has no attribute '{name}'")


# PyTorch's typed constructors (al.FloatTensor([1, 1, 1])...); autograd_lab.legacy has the 2017 API itself.
from .legacy.constructors import make_types as _make_types  # noqa: E402

_types = _make_types(warns=False)
FloatTensor, DoubleTensor, HalfTensor = _types["FloatTensor"], _types["DoubleTensor"], _types["HalfTensor"]
LongTensor, IntTensor, ShortTensor = _types["LongTensor"], _types["IntTensor"], _types["ShortTensor"]
CharTensor, ByteTensor, BoolTensor = _types["CharTensor"], _types["ByteTensor"], _types["BoolTensor"]
del _types, _make_types


def load_ipython_extension(ipython) -> None:
    """``%load_ext autograd_lab``: adds the lab's ``%watch`` and ``%unwatch`` magics."""
    from .lab.live import load_ipython_extension as load
    load(ipython)


def _quiet_ieee_warnings() -> None:
    """PyTorch computes log(0) = -inf, 0/0 = nan and exp(1000) = inf without a word; NumPy warns
    ("divide by zero encountered in log"). The warnings our ops' NumPy calls raise are ignored, to
    match; NumPy code of the user's own keeps its warnings (the filter is for warnings raised from
    autograd_lab's modules only), and anomaly mode still reports NaN gradients. Installed at import;
    call it again after an import made inside ``warnings.catch_warnings()`` (pytest's collection)."""
    _warnings.filterwarnings("ignore", message=r"(divide by zero|invalid value|overflow|underflow) encountered",
                             category=RuntimeWarning, module=r"autograd_lab(\.|$)")


_quiet_ieee_warnings()
