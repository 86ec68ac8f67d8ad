"""Random samples from al's generators: ``bernoulli``, ``multinomial``, ``poisson`` and the in-place fills
``bernoulli_``, ``random_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``.

Each draws from the generator given (``generator=``) or the default one of the tensor's device, so
``al.manual_seed`` makes them reproducible. The distributions are PyTorch's; the streams are not (the same seed gives
other numbers than in PyTorch). A sample has no gradient: its node (named as PyTorch's) sends zeros back, as
PyTorch's does. The continuous samples are built from uniform and normal draws (``exponential`` by inverting its
CDF, ``cauchy`` as the tangent of a uniform angle, ``geometric`` as the floor of an exponential), which every
device's generator provides.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor
from . import formulas as F
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .inplace import _method


class _Sample(Op):
    """A random sample shaped like ``self`` (or drawn with probabilities ``self``): no gradient flows back."""

    def d_self(grad):
        return F.zeros_like(grad)

    f_self = d_self


def _uniform(xp, generator, shape):
    return xp.asarray(generator._rng.random(shape))


class BernoulliBackward0(_Sample):
    """out = 1 with probability self, else 0"""

    def forward(xp, self, *, generator):
        return (_uniform(xp, generator, self.shape) < self).astype(self.dtype)


class BernoulliBackward1(Op):
    """self filled with 1 with probability p (a tensor), else 0"""

    def forward(xp, self, p, *, generator):
        return (_uniform(xp, generator, self.shape) < p).astype(self.dtype)

    def d_self(grad):
        return F.zeros_like(grad)

    def d_p(grad):
        return F.zeros_like(grad)

    f_self, f_p = d_self, d_p


class BernoulliBackward2(_Sample):
    """self filled with 1 with probability p (a number), else 0"""

    def forward(xp, self, *, p, generator):
        return (_uniform(xp, generator, self.shape) < p).astype(self.dtype)


class PoissonBackward0(_Sample):
    """out = a count drawn from the Poisson distribution of rate self"""

    def forward(xp, self, *, generator):
        return xp.asarray(generator._rng.poisson(self, self.shape)).astype(self.dtype)


class _Random(_Sample):
    def forward(xp, self, *, low, high, generator):
        return xp.asarray(generator._rng.integers(low, high, self.shape)).astype(self.dtype)


class RandomBackward0(_Random):
    """self filled with integers drawn uniformly from [from, to)"""


class RandomBackward1(_Random):
    """self filled with integers drawn uniformly from [0, to)"""


class RandomBackward2(_Random):
    """self filled with integers drawn uniformly from [0, 2**mantissa bits] (a float) or [0, max] (an integer)"""


class ExponentialBackward0(_Sample):
    """self filled from the exponential distribution of rate lambd: -log(1 - u) / lambd"""

    def forward(xp, self, *, lambd, generator):
        return (-xp.log1p(-_uniform(xp, generator, self.shape)) / lambd).astype(self.dtype)


class GeometricBackward0(_Sample):
    """self filled with the number of trials to the first success, each a success with probability p"""

    def forward(xp, self, *, p, generator):
        u = 1.0 - _uniform(xp, generator, self.shape)  # in (0, 1]
        return (xp.floor(xp.log(u) / math.log1p(-p)) + 1).astype(self.dtype)


class LogNormalBackward0(_Sample):
    """self filled with exp(mean + std * z), z standard normal"""

    def forward(xp, self, *, mean, std, generator):
        return xp.exp(mean + std * xp.asarray(generator._rng.standard_normal(self.shape))).astype(self.dtype)


class CauchyBackward0(_Sample):
    """self filled from the Cauchy distribution: median + sigma * tan(pi * (u - 1/2))"""

    def forward(xp, self, *, median, sigma, generator):
        return (median + sigma * xp.tan(math.pi * (_uniform(xp, generator, self.shape) - 0.5))).astype(self.dtype)


# -- checks ---------------------------------------------------------------------------------------
def _generator(generator, t: Tensor):
    from ..creation import default_generator_for
    if generator is None:
        return default_generator_for(t.device)
    if generator.device.type != t.device.type:
        raise RuntimeError(f"Expected a '{t.device.type}' device type for generator but found "
                           f"'{generator.device.type}' [autograd_lab] pass a generator made with "
                           f"al.Generator(device='{t.device}'), or none")
    return generator


def _floating_only(t: Tensor, kernel: str, distribution: str | None = None) -> None:
    if t.dtype.is_floating_point:
        return
    if distribution is not None:
        name = "long int" if distribution == "Cauchy" and t.dtype is backend.int64 else backend.kernel_type_name(t.dtype)
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {name} [autograd_lab] fill a floating tensor "
                           "(e.g. al.empty(n, dtype=al.float32)) and convert")
    raise no_kernel(kernel, t.dtype, "this sample needs a floating tensor: convert first, e.g. x.float()")


def _probabilities(p: Tensor) -> None:
    data = p._data
    if data.size and not bool(((data >= 0) & (data <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. [autograd_lab] bernoulli's "
                           "probabilities must lie in [0, 1]; clamp them first, e.g. p.clamp(0, 1)")


# -- front-end functions ------------------------------------------------------------------------
@checked(kinds={"p": "number?"})
def bernoulli(input, p=None, *, generator=None):
    """0s and 1s: 1 with probability ``input`` (each element), or with probability ``p`` everywhere if given."""
    gen = _generator(generator, input)
    if p is not None:
        return BernoulliBackward2.apply(input.detach(), p=_probability(p, "bernoulli"), generator=gen)
    _floating_only(input, "bernoulli_tensor_cpu_p_")
    _probabilities(input)
    return BernoulliBackward0.apply(input, generator=gen)


def _probability(p, name: str) -> float:
    if not 0 <= p <= 1:
        raise RuntimeError(f"{name}_ expects p to be in [0, 1], but got p={p:g} [autograd_lab] a probability lies "
                           "between 0 and 1")
    return p


def _bernoulli_in_place(input, p=0.5, *, generator=None):
    gen = _generator(generator, input)
    if isinstance(p, Tensor):
        _floating_only(p, "bernoulli_tensor_cpu_p_")
        _probabilities(p)
        return BernoulliBackward1.apply(input, p, generator=gen)
    return BernoulliBackward2.apply(input, p=_probability(p, "bernoulli"), generator=gen)


def _check_weights(xp, w, entry_by_entry: bool) -> None:
    """Refuse negative, infinite and NaN weights, in PyTorch's words: drawing several with replacement, its kernel
    checks entry by entry and names the first bad one (NaN fails its ``>= 0`` test); otherwise one check of all."""
    bad = ~(w >= 0) | ~xp.isfinite(w)
    if not bool(bad.any()):
        return
    if not entry_by_entry:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    first = w.reshape(-1)[int(xp.argmax(bad.reshape(-1)))]
    raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                       f"{'< 0' if not first >= 0 else '= infinity or NaN'})")


@checked(kinds={"num_samples": "int"})
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices per row of ``input`` (weights, not necessarily summing to 1), drawn with or
    without replacement (then each index at most once, the weightless ones last). int64, no gradient."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim [autograd_lab] got shape {list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{backend.kernel_type_name(input.dtype)} [autograd_lab] convert first, e.g. w.float()")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    w = input._data.astype("float64").reshape(-1, categories)
    xp = backend.namespace_of(w)
    _check_weights(xp, w, replacement and num_samples > 1)
    if bool((w.sum(1) <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _generator(generator, input)._rng
    if replacement:  # the category whose cumulative weight first exceeds a uniform point
        cdf = xp.cumsum(w, 1) / w.sum(1, keepdims=True)
        u = xp.asarray(rng.random((w.shape[0], num_samples)))
        out = xp.stack([xp.searchsorted(row, draws, side="right") for row, draws in zip(cdf, u)])
        out = xp.minimum(out, categories - 1)
    else:  # exponential races: each category's arrival time is Exp(1) / weight; the first num_samples to arrive
        with backend.np.errstate(divide="ignore"):
            keys = -xp.log1p(-xp.asarray(rng.random(w.shape))) / w
        out = xp.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return Tensor._make(out.astype("int64").reshape(tuple(input.shape[:-1]) + (num_samples,)))


@checked
def poisson(input, generator=None):
    """Counts drawn from the Poisson distribution whose rate is each element of ``input`` (same dtype)."""
    _floating_only(input, "poisson_cpu")
    if input.numel() and bool((input._data < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative [autograd_lab] rates must be >= 0")
    return PoissonBackward0.apply(input, generator=_generator(generator, input))


def _random_in_place(input, from_=None, to=None, *, generator=None, **kw):
    """``random_()``, ``random_(to)`` or ``random_(from, to)``: integers drawn uniformly into this tensor."""
    gen = _generator(generator, input)
    if "from" in kw:
        from_ = kw.pop("from")
    if to is None and from_ is not None:
        from_, to, cls = 0, from_, RandomBackward1
    elif to is None:
        cls, from_ = RandomBackward2, 0
        info = backend.np.finfo if input.dtype.is_floating_point else backend.np.iinfo
        to = 2 if input.dtype is backend.bool_ else (
            2 ** (info(input._data.dtype).nmant + 1) + 1 if input.dtype.is_floating_point else int(info(input._data.dtype).max))
    else:
        cls = RandomBackward0
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if not input.dtype.is_floating_point and input.dtype is not backend.bool_:
        info = backend.np.iinfo(input._data.dtype)
        if to - 1 > info.max or from_ < info.min:
            raise RuntimeError(f"{'to - 1' if to - 1 > info.max else 'from'} is out of bounds for "
                               f"{_C_NAMES.get(input.dtype.name, input.dtype.name)}")
    return cls.apply(input, low=from_, high=to, generator=gen)


_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long int"}


def _exponential_in_place(input, lambd=1.0, *, generator=None):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _floating_only(input, "", "Exponential")
    return ExponentialBackward0.apply(input, lambd=lambd, generator=_generator(generator, input))


def _geometric_in_place(input, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return GeometricBackward0.apply(input, p=p, generator=_generator(generator, input))


def _log_normal_in_place(input, mean=1.0, std=2.0, *, generator=None):
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    _floating_only(input, "log_normal_cpu")
    return LogNormalBackward0.apply(input, mean=mean, std=std, generator=_generator(generator, input))


def _cauchy_in_place(input, median=0.0, sigma=1.0, *, generator=None):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _floating_only(input, "", "Cauchy")
    return CauchyBackward0.apply(input, median=median, sigma=sigma, generator=_generator(generator, input))


_IN_PLACE = dict(bernoulli_=_bernoulli_in_place, random_=_random_in_place, exponential_=_exponential_in_place,
                 geometric_=_geometric_in_place, log_normal_=_log_normal_in_place, cauchy_=_cauchy_in_place)


def _bind() -> None:
    Tensor.bernoulli, Tensor.multinomial = bernoulli, multinomial
    for name, fn in _IN_PLACE.items():
        setattr(Tensor, name, _method(name, fn))


_bind()
