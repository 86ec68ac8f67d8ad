"""The 8x8 handwritten digits: 1,797 small grey images of the digits 0-9, shipped with the package.

Provenance: the test set of "Optical Recognition of Handwritten Digits" (E. Alpaydin and C. Kaynak,
1998, UCI Machine Learning Repository, https://doi.org/10.24432/C50P49), licensed CC BY 4.0. 32x32
bitmaps from NIST forms were divided into 4x4 blocks and the "on" pixels of each block counted, so each
pixel is an integer in 0..16. 43 writers contributed; these 1,797 images come from 13 of them. The
values were taken from the copy that scikit-learn distributes (``sklearn/datasets/data/digits.csv.gz``)
and stored as ``files/digits.npz`` (``images``: uint8 (1797, 8, 8), ``targets``: uint8 (1797,)).
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ..tensor import Tensor

__all__ = ["load_digits"]


def load_digits(*, normalize: bool = True, flatten: bool = False) -> tuple[Tensor, Tensor]:
    """The digits as ``(images, labels)``: float32 images (N, 1, 8, 8), or (N, 64) with ``flatten``, and
    int64 labels. ``normalize`` scales pixels from 0..16 to 0..1. Read from the package, never downloaded."""
    with resources.files(__package__).joinpath("files/digits.npz").open("rb") as f:
        with np.load(f, allow_pickle=False) as npz:
            images, targets = npz["images"], npz["targets"]
    x = images.astype(np.float32)
    if normalize:
        x /= 16.0
    x = x.reshape(len(x), 64) if flatten else x.reshape(len(x), 1, 8, 8)
    return Tensor._make(np.ascontiguousarray(x)), Tensor._make(targets.astype(np.int64))
