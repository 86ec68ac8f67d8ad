"""``autograd_lab.utils.data``: the contents of :mod:`autograd_lab.data`, under PyTorch's path.

``from autograd_lab.utils.data import DataLoader, TensorDataset`` reads like the PyTorch import.
"""

from __future__ import annotations

from ..data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    WorkerInfo,
    default_collate,
    default_convert,
    get_worker_info,
    make_blobs,
    make_moons,
    make_spirals,
    random_split,
    train_test_split,
)

__all__ = ["Dataset", "IterableDataset", "get_worker_info", "WorkerInfo", "TensorDataset", "Subset", "ConcatDataset",
           "StackDataset", "ChainDataset",
           "random_split", "train_test_split", "DataLoader",
           "default_collate", "default_convert", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "make_moons", "make_spirals", "make_blobs"]
