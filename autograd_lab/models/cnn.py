"""``SmallCNN``: a small convolutional network for the 8x8 digits, and ``small_cnn(pretrained=True)``.

It is laid out like torchvision's image models so that the autograd notes' fine-tuning example reads
the same: a convolutional body (``features``, then ``avgpool``) and a linear head named ``fc``::

    model = al.models.small_cnn(pretrained=True)
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, 2)          # a new head requires grad by default
    optimizer = al.optim.SGD(model.fc.parameters(), lr=1e-2, momentum=0.9)

The pretrained weights ship with the package (``weights/small_cnn_digits.npz``, written by ``al.save``,
read without pickle). They were trained by ``scripts/train_pretrained.py`` with autograd_lab itself on the
training part of :func:`digits_split`; the file also records the seed, the recipe and the held-out accuracy.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from .. import nn
from ..data import load_digits, train_test_split
from ..tensor import Tensor

__all__ = ["SmallCNN", "small_cnn", "digits_split", "load_pretrained_record", "WEIGHTS_FILE"]

WEIGHTS_FILE = "weights/small_cnn_digits.npz"
SPLIT_SEED = 0  # the seed of the train/held-out split of the digits that the shipped weights were trained on
TEST_SIZE = 0.2


class SmallCNN(nn.Module):
    """Three 3x3 convolutions with ReLU (max-pooling after the first two), a 2x2 average pool, and ``fc``.

    Input (N, 1, 8, 8) images, output (N, num_classes) logits; ``fc`` sees 32 channels x 2 x 2 = 128 features.
    """

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
            nn.Conv2d(32, 32, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.avgpool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(32 * 2 * 2, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.fc(x.flatten(1))


def digits_split(*, flatten: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The split the pretrained weights use: ``(x_train, y_train, x_test, y_test)``, 20% held out,
    stratified by digit, from a fixed seed (so the held-out images were never trained on)."""
    images, labels = load_digits(flatten=flatten)
    x_train, x_test, y_train, y_test = train_test_split(images, labels, test_size=TEST_SIZE, stratify=labels,
                                                        generator=_generator(SPLIT_SEED))
    return x_train, y_train, x_test, y_test


def load_pretrained_record() -> dict[str, Any]:
    """What the shipped weights file holds: ``state_dict`` and ``meta`` (seed, recipe, held-out accuracy)."""
    from ..serialization import load
    with resources.files(__package__).joinpath(WEIGHTS_FILE).open("rb") as f:
        return load(f)


def small_cnn(pretrained: bool = False, num_classes: int = 10) -> SmallCNN:
    """A :class:`SmallCNN`, with the shipped weights trained on the 8x8 digits when ``pretrained=True``
    (as torchvision's ``resnet18(pretrained=True)``). The pretrained head has 10 classes; to get a
    different number, replace ``model.fc`` after loading."""
    if pretrained and num_classes != 10:
        raise ValueError(f"small_cnn(pretrained=True) has a 10-class head (the digits), got num_classes={num_classes}; "
                         "load it with num_classes=10 and replace model.fc with nn.Linear(model.fc.in_features, "
                         f"{num_classes})")
    model = SmallCNN(num_classes=num_classes)
    if pretrained:
        model.load_state_dict(load_pretrained_record()["state_dict"])
    return model


def _generator(seed: int):
    from ..creation import Generator
    return Generator().manual_seed(seed)
