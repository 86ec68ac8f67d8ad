"""Data for the course: datasets, a ``DataLoader``, and toy data generated on the spot.

Mirrors ``torch.utils.data`` (also importable as ``autograd_lab.utils.data``)::

    X, y = al.data.make_moons(200, noise=0.1, generator=al.Generator().manual_seed(0))
    loader = al.data.DataLoader(al.data.TensorDataset(X, y), batch_size=32, shuffle=True)
    for xb, yb in loader:
        ...

Nothing is downloaded: the 8x8 handwritten digits ship with the package (``load_digits``, see
:mod:`autograd_lab.data.digits` for their provenance and licence); the rest is generated from a seed.
"""

from __future__ import annotations

from .dataloader import DataLoader, default_collate, default_convert
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
    train_test_split,
)
from .digits import load_digits
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .synthetic import make_blobs, make_moons, make_spirals
from .worker import WorkerInfo, get_worker_info

__all__ = ["Dataset", "IterableDataset", "get_worker_info", "WorkerInfo", "TensorDataset", "Subset", "ConcatDataset",
           "StackDataset", "ChainDataset",
           "random_split", "train_test_split", "DataLoader",
           "default_collate", "default_convert", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "make_moons", "make_spirals", "make_blobs", "load_digits"]
