"""``autograd_lab.utils.data``: the contents of :mod:`autograd_lab.data`, under PyTorch's path.

``from autograd_lab.utils.data import DataLoader, TensorDataset`` reads like the PyTorch import.
"""

from __future__ import annotations

from ..data import (
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
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
           "random_split", "train_test_split", "DataLoader",
           "default_collate", "default_convert", "make_moons", "make_spirals", "make_blobs"]
