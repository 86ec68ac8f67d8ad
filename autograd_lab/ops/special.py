"""Kernels of the special functions on arrays (NumPy, or CuPy through ``cupyx.scipy.special``): lgamma, erfc,
erfinv, digamma and polygamma, for the ops of :mod:`.pointwise_math`.

NumPy has none of them and SciPy is no dependency, so they are computed here. Each works in float64 and rounds
to the input's dtype at the end (PyTorch computes float32 inputs in float32: results may differ by an ulp there).

* ``erfc`` is C's own (Python's ``math`` module calls it, as PyTorch's kernel does).
* ``lgamma``: Python's ``math.lgamma`` (its own Lanczos sum, hundreds of ulps off near the zeros at 1 and 2)
  except on [0.5, 8): there the Taylor series of lgamma about 1 or 2 (coefficients from zeta(k)), after the
  recurrence down from [2.5, 8). For x > 0 within 4 ulps of the true values (PyTorch's, C's: 1 ulp). Below 0 it
  is ``math.lgamma``'s reflection: a few ulps, but up to about 5e-12 relative near the two zeros in (-3, -2),
  where the result is small (C's is within 300 ulps there).
* ``digamma`` follows PyTorch's algorithm (Cephes'): the reflection ``psi(1 - x) - pi / tan(pi * r)`` below 0
  (``r`` the fractional part), the recurrence ``psi(x) = psi(x + 1) - 1 / x`` up to 10, then the asymptotic
  series with Bernoulli numbers. ``-inf`` at +0, ``+inf`` at -0, NaN at the negative integers, as there.
* ``polygamma(1, x)`` (trigamma) follows PyTorch's short algorithm, which gives about 9 correct digits (at 1,
  ``1.6449340676...`` where pi^2/6 is ``1.6449340668...``): its values are PyTorch's, not the exact ones.
  For ``n >= 2``, ``(-1)^(n+1) n! zeta(n + 1, x)``, the Hurwitz zeta by Euler-Maclaurin summation.
* ``erfinv``: Giles' single-precision approximation, then Newton steps on C's ``erf`` (as PyTorch refines its
  own first guess): correct to float64 rounding.
"""

from __future__ import annotations

import math

from .. import backend

_np = backend.np


def _scalar_ufunc(fn):
    """A NumPy ufunc of a ``math`` function; a pole (``math`` raises) gives +inf, as C's does."""
    def safe(v):
        try:
            return fn(v)
        except ValueError:  # math.lgamma(0), math.lgamma(-2): C's lgamma gives +inf
            return math.inf
        except OverflowError:
            return math.inf
    return _np.frompyfunc(safe, 1, 1)


_UFUNCS = {"lgamma": _scalar_ufunc(math.lgamma), "erfc": _scalar_ufunc(math.erfc), "erf": _scalar_ufunc(math.erf)}
_CUPY_NAMES = {"lgamma": "gammaln", "erfc": "erfc", "erf": "erf"}


def libm(xp, name: str, array):
    """C's ``lgamma``/``erfc``/``erf`` elementwise, in the array's dtype (CuPy: cupyx's kernel)."""
    if xp is _np:
        return _np.asarray(_UFUNCS[name](array.astype(_np.float64)), dtype=_np.float64).astype(array.dtype, copy=False)
    from cupyx.scipy import special
    return getattr(special, _CUPY_NAMES[name])(array)


def xlogy(xp, x, y):
    """x * log(y), 0 where x is 0 unless y is NaN (PyTorch's), in the floating dtype of x and y."""
    out = xp.where((x == 0) & (y == y), 0.0, x * xp.log(y))
    return out.astype(xp.result_type(x, y, 1.0), copy=False)


# -- lgamma --------------------------------------------------------------------------------------------
_EULER = 0.57721566490153286061
_TERMS = 60


def _lgamma_series():
    """The Taylor coefficients of lgamma(1 + z) and lgamma(2 + z), from z^1 up: -gamma, (-1)^k zeta(k) / k... and
    1 - gamma, (-1)^k (zeta(k) - 1) / k... (zeta(k) - 1 is the Hurwitz zeta(k, 2), summed below)."""
    ks = range(2, _TERMS + 1)
    zeta_minus_one = [float(_hurwitz_zeta(_np, k, _np.asarray(2.0))) for k in ks]
    about_one = [-_EULER] + [(-1) ** k * (1 + z) / k for k, z in zip(ks, zeta_minus_one)]
    about_two = [1 - _EULER] + [(-1) ** k * z / k for k, z in zip(ks, zeta_minus_one)]
    return about_one, about_two


def _power_series(xp, coefficients, z):
    """sum of c_k z^k for k >= 1 (Horner's rule)."""
    p = xp.zeros_like(z)
    for c in reversed(coefficients):
        p = (p + c) * z
    return p


def lgamma(xp, array):
    if xp is not _np:
        return libm(xp, "lgamma", array)
    x = array.astype(_np.float64)
    out = libm(xp, "lgamma", x)
    middle = (x >= 0.5) & (x < 8)
    if middle.any():
        about_one, about_two = _LGAMMA_SERIES
        v = x[middle]
        shift = _np.maximum(_np.ceil(v - 2.5), 0)  # down to [1.5, 2.5) from [2.5, 8)
        product = _np.ones_like(v)
        for k in range(1, 7):
            product = _np.where(shift >= k, product * (v - k), product)
        w = v - shift
        low = w < 1.5
        series = _np.where(low, _power_series(_np, about_one, w - 1), _power_series(_np, about_two, w - 2))
        out[middle] = series + _np.log(product)
    return out.astype(array.dtype, copy=False)


# -- digamma ------------------------------------------------------------------------------------------
_PSI_10 = 2.25175258906672110764  # digamma(10) = 1 + 1/2 + ... + 1/9 - Euler's gamma
# B_2k / 2k for k = 1..7 (Bernoulli numbers), the coefficients of the asymptotic series in 1/x^2
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma_positive(xp, x):
    """digamma of x > 0 (float64): the recurrence up to 10, then the asymptotic series."""
    result = xp.zeros_like(x)
    for _ in range(10):
        low = x < 10
        result = result - xp.where(low, 1 / xp.where(low, x, 1.0), 0.0)
        x = xp.where(low, x + 1, x)
    z = 1 / (x * x)
    series = xp.zeros_like(x)
    for c in reversed(_DIGAMMA_SERIES):
        series = series * z + c
    y = xp.where(x < 1e17, z * series, 0.0)
    return xp.where(x == 10, result + _PSI_10, result + xp.log(x) - 0.5 / x - y)


def digamma(xp, array):
    x = array.astype(xp.float64)
    negative = x < 0
    integer = x == xp.trunc(x)
    fraction = x - xp.trunc(x)
    positive = _digamma_positive(xp, xp.where(negative, 1 - x, xp.where(x == 0, 1.0, x)))
    out = xp.where(negative, positive - math.pi / xp.tan(math.pi * fraction), positive)
    out = xp.where(negative & integer, xp.nan, out)
    out = xp.where(x == 0, xp.copysign(xp.inf, -x), out)
    return out.astype(array.dtype, copy=False)


# -- polygamma ------------------------------------------------------------------------------------------
def _trigamma(xp, x):
    """PyTorch's trigamma: the reflection below 1/2, six steps of the recurrence, a short series."""
    small = x < 0.5
    sin_pi_x = xp.sin(math.pi * x)
    result = xp.where(small, -(math.pi * math.pi) / (sin_pi_x * sin_pi_x), 0.0)
    x = xp.where(small, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result = result + (1 + 1 / (2 * x) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / x
    return xp.where(small, -result, result)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B_2, B_4, ..., B_14


def _hurwitz_zeta(xp, s: int, q):
    """zeta(s, q) = sum over k >= 0 of (q + k)^-s, for an integer s >= 2: the first terms up to q + k >= 12, then
    the Euler-Maclaurin tail."""
    total = xp.zeros_like(q)
    a = q
    while True:
        low = a < 12
        if not bool(low.any()):
            break
        total = total + xp.where(low, xp.where(low, a, 1.0) ** -s, 0.0)
        a = xp.where(low, a + 1, a)
    total = total + a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    rising, power = float(s), a ** (-s - 1)  # s (s+1) ... (s+2j-2) and a^(-s-2j+1)
    factorial = 2.0
    for j, b in enumerate(_BERNOULLI, start=1):
        total = total + b / factorial * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        factorial *= (2 * j + 1) * (2 * j + 2)
        power = power / (a * a)
    return total


def polygamma(xp, n: int, array):
    """The n-th derivative of digamma, elementwise (n = 0: digamma)."""
    if n == 0:
        return digamma(xp, array)
    x = array.astype(xp.float64)
    if n == 1:
        return _trigamma(xp, x).astype(array.dtype, copy=False)
    sign = 1.0 if n % 2 else -1.0
    pole = (x <= 0) & (x == xp.floor(x))  # 0, the negative integers and -inf
    finite = xp.where(pole | ~xp.isfinite(x), 1.0, x)
    out = sign * math.factorial(n) * _hurwitz_zeta(xp, n + 1, finite)
    out = xp.where(pole, sign * xp.inf, xp.where(xp.isfinite(x), out, xp.nan))
    return out.astype(array.dtype, copy=False)


# -- erfinv --------------------------------------------------------------------------------------------
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
            -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
         0.00943887047, 1.00167406, 2.83297682)


def _horner(xp, coefficients, w):
    p = xp.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = p * w + c
    return p


def erfinv(xp, array):
    y = array.astype(xp.float64)
    inside = xp.abs(y) < 1
    yi = xp.where(inside, y, 0.0)
    w = -xp.log((1 - yi) * (1 + yi))
    central = _horner(xp, _CENTRAL, w - 2.5)
    tail = _horner(xp, _TAIL, xp.sqrt(w) - 3)
    a = xp.abs(yi)
    r = xp.where(w < 5, central, tail) * a
    slope = 2 / math.sqrt(math.pi)
    for _ in range(4):  # Newton's method, quadratic, from a first guess good to about 1e-7 (beyond |y| = 1 - 1e-7,
        # where the guess is rougher, on log(erfc(r)) = log(1 - a): exact there, where erf(r) would round to 1)
        near_zero = slope * xp.exp(-r * r)
        central_step = (libm(xp, "erf", r) - a) / near_zero
        tail = libm(xp, "erfc", r)
        tail_step = (xp.log(1 - a) - xp.log(tail)) * tail / near_zero
        r = r - xp.where(a == 0, 0.0, xp.where(a <= 0.5, central_step, tail_step))
    x = xp.copysign(r, yi)
    out = xp.where(inside, x, xp.where(xp.abs(y) == 1, xp.copysign(xp.inf, y), xp.nan))
    return out.astype(array.dtype, copy=False)


_LGAMMA_SERIES = _lgamma_series()
