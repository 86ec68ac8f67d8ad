"""Toy classification data made on the spot: two moons, interleaved spirals, Gaussian blobs.

Each generator returns ``(X, y)``: ``X`` of shape ``(n_samples, features)`` in the default float dtype
and ``y`` the int64 class of each row. Randomness comes from ``generator`` (an ``al.Generator``) or
the global one, so ``al.manual_seed(0)`` makes a run repeatable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import backend, creation
from ..creation import Generator
from ..tensor import Tensor

__all__ = ["make_moons", "make_spirals", "make_blobs"]


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or creation.default_generator)._rng


def _split_evenly(n_samples: int, parts: int) -> list[int]:
    """``n_samples`` in ``parts`` groups whose sizes differ by at most one (larger groups first)."""
    return [n_samples // parts + (1 if i < n_samples % parts else 0) for i in range(parts)]


def _finish(points: np.ndarray, labels: np.ndarray, rng, shuffle: bool, dtype) -> tuple[Tensor, Tensor]:
    if shuffle:
        order = rng.permutation(len(labels))
        points, labels = points[order], labels[order]
    dtype = backend.to_dtype(dtype) if dtype is not None else backend.get_default_dtype()
    return (creation.tensor(points, dtype=dtype), creation.tensor(labels.astype(np.int64)))


def _check_count(name: str, n_samples: int) -> None:
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
        raise ValueError(f"{name}: n_samples must be a non-negative int, got {n_samples!r}")


def make_moons(n_samples: int = 100, noise: float | None = None, generator: Generator | None = None, *,
               shuffle: bool = True, dtype=None) -> tuple[Tensor, Tensor]:
    """Two interleaving half circles in 2-D: class 0 the upper moon, class 1 the lower one.

    The upper moon is ``(cos t, sin t)`` and the lower ``(1 - cos t, 0.5 - sin t)`` for ``t`` evenly
    spaced in ``[0, pi]``; ``noise`` is the standard deviation of Gaussian noise added to every point.
    Not linearly separable: the classic first task for a small network.
    """
    _check_count("make_moons", n_samples)
    rng = _rng(generator)
    n_upper = n_samples // 2
    n_lower = n_samples - n_upper
    t_upper = np.linspace(0, np.pi, n_upper)
    t_lower = np.linspace(0, np.pi, n_lower)
    points = np.concatenate([np.stack([np.cos(t_upper), np.sin(t_upper)], 1),
                             np.stack([1 - np.cos(t_lower), 0.5 - np.sin(t_lower)], 1)]).reshape(n_samples, 2)
    labels = np.concatenate([np.zeros(n_upper), np.ones(n_lower)])
    if noise:
        points = points + rng.normal(0.0, noise, points.shape)
    return _finish(points, labels, rng, shuffle, dtype)


def make_spirals(n_samples: int = 300, classes: int = 3, noise: float = 0.0, generator: Generator | None = None, *,
                 turns: float = 0.64, shuffle: bool = True, dtype=None) -> tuple[Tensor, Tensor]:
    """``classes`` spiral arms winding out of the origin, one class each.

    Arm ``k`` has radius growing linearly from 0 to 1 while its angle sweeps ``turns`` full turns,
    starting ``k / classes`` of a turn after the previous arm; ``noise`` is the standard deviation of
    Gaussian noise added to the angle (in radians). Hard for linear models, easy for a two-layer network.
    """
    _check_count("make_spirals", n_samples)
    if classes < 1:
        raise ValueError(f"make_spirals: classes must be at least 1, got {classes}")
    rng = _rng(generator)
    points, labels = [], []
    for k, count in enumerate(_split_evenly(n_samples, classes)):
        radius = np.linspace(0.0, 1.0, count)
        start = 2 * np.pi * k / classes
        angle = np.linspace(start, start + 2 * np.pi * turns, count)
        if noise:
            angle = angle + rng.normal(0.0, noise, count)
        points.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], 1))
        labels.append(np.full(count, k))
    return _finish(np.concatenate(points).reshape(n_samples, 2), np.concatenate(labels), rng, shuffle, dtype)


def make_blobs(n_samples: int = 100, centers: int | Sequence = 3, cluster_std: float | Sequence[float] = 1.0,
               n_features: int = 2, center_box: tuple[float, float] = (-10.0, 10.0),
               generator: Generator | None = None, *, shuffle: bool = True, dtype=None) -> tuple[Tensor, Tensor]:
    """Gaussian clusters: class ``k`` is drawn around ``centers[k]`` with standard deviation ``cluster_std[k]``.

    ``centers`` is a number of clusters (centres drawn uniformly in ``center_box``) or the centres
    themselves, shape ``(k, n_features)``. Samples are shared out evenly among the clusters.
    """
    _check_count("make_blobs", n_samples)
    rng = _rng(generator)
    if isinstance(centers, (int, np.integer)):
        centres = rng.uniform(center_box[0], center_box[1], (int(centers), n_features))
    else:
        centres = np.asarray(centers, dtype=np.float64)
        if centres.ndim != 2:
            raise ValueError(f"make_blobs: centers must be an int or an array of shape (clusters, features), got "
                             f"shape {centres.shape}")
    stds = np.broadcast_to(np.asarray(cluster_std, dtype=np.float64), (len(centres),))
    points, labels = [], []
    for k, count in enumerate(_split_evenly(n_samples, len(centres))):
        points.append(rng.normal(centres[k], stds[k], (count, centres.shape[1])))
        labels.append(np.full(count, k))
    return _finish(np.concatenate(points), np.concatenate(labels), rng, shuffle, dtype)
