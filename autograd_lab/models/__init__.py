"""Ready-made models, as ``torchvision.models``: ``small_cnn(pretrained=True)`` ships weights trained on
the 8x8 digits, for the autograd notes' fine-tuning example (freeze the body, replace ``model.fc``)."""

from __future__ import annotations

from .cnn import SmallCNN, digits_split, small_cnn

__all__ = ["SmallCNN", "small_cnn", "digits_split"]
