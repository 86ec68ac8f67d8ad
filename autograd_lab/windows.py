"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, as PyTorch defines them.

Each returns ``window_length`` samples of a floating dtype (the default one unless ``dtype`` is given).
``periodic=True`` (the default) gives the window for spectral analysis: the symmetric window of
``window_length + 1`` samples without its last one. A window of length 1 is ``[1.]``, of length 0 empty.
The samples are computed in the window's dtype, step by step as PyTorch's are, so
that rounding matches (the Blackman window's ends are -2.98e-08 in float32, not 0).
"""

from __future__ import annotations

import math

import numpy as np

from . import backend
from .creation import _finish, _on, _resolve
from .ops.fill import _c_name
from .tensor import Tensor

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(name: str, window_length, periodic, dtype, device, requires_grad, samples) -> Tensor:
    """Check the arguments as PyTorch does, then build ``samples(n, work_dtype)`` of the symmetric window of
    ``n`` samples (``n`` one more when ``periodic``, the last sample dropped)."""
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={_c_name(dt.name)}, "
                           f"device={dev}) [autograd_lab] pass dtype=al.float32 or al.float64")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    work = dt.np_dtype.type  # (a scalar type: work(0.5) is a number of it)
    if window_length <= 1:
        values = np.ones(window_length, dtype=work)
    else:
        n = window_length + 1 if periodic else window_length
        values = samples(n, work)[:window_length]
    return _finish(_on(np.ascontiguousarray(values.astype(dt.np_dtype)), dev, xp), requires_grad)


def _scaled_positions(n: int, scale: float, work) -> np.ndarray:
    """``0, 1, ..., n - 1`` times ``scale``, in the working dtype."""
    return np.arange(n, dtype=work) * work(scale)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``alpha - beta cos(2 pi k / (N - 1))``, k = 0 ... N - 1."""
    def samples(n, work):
        return np.cos(_scaled_positions(n, 2 * math.pi / (n - 1), work)) * work(-beta) + work(alpha)
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, samples)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """``0.5 - 0.5 cos(2 pi k / (N - 1))`` (the Hamming window with alpha = beta = 0.5)."""
    def samples(n, work):
        return np.cos(_scaled_positions(n, 2 * math.pi / (n - 1), work)) * work(-0.5) + work(0.5)
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, samples)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``."""
    def samples(n, work):
        angle = _scaled_positions(n, math.pi / (n - 1), work)
        return np.cos(angle * work(4)) * work(0.08) - np.cos(angle * work(2)) * work(0.5) + work(0.42)
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, samples)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The triangle ``1 - |2k / (N - 1) - 1|``: rising from 0 to 1, then falling back."""
    def samples(n, work):
        values = _scaled_positions(n, 2 / (n - 1), work)
        half = ((n - 1) >> 1) + 1
        values[half:] = work(2) - values[half:]
        return values
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, samples)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, device=None,
                  requires_grad: bool = False) -> Tensor:
    """``I0(beta sqrt(1 - ((k - c) / c)^2)) / I0(beta)``, c = (N - 1) / 2, I0 the modified Bessel function."""
    def samples(n, work):
        centre = (n - 1) / 2.0
        ratio = (np.arange(n, dtype=np.float64) - centre) / centre
        return (np.i0(beta * np.sqrt(np.abs(1 - ratio * ratio))) / np.i0(beta)).astype(work)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, samples)
