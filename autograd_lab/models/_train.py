"""How the shipped ``small_cnn`` weights are made: Adam with a cosine schedule on the digits, from a seed.

``scripts/train_pretrained.py`` calls :func:`train_small_cnn` and writes the result into the package;
the tests call it too (for a few steps) to check that the same seed gives the same weights.
"""

from __future__ import annotations

from typing import Any

from .. import creation, nn, optim
from ..autograd.grad_mode import no_grad
from ..data import DataLoader, TensorDataset
from ..tensor import Tensor
from .cnn import SPLIT_SEED, TEST_SIZE, SmallCNN, digits_split

__all__ = ["train_small_cnn", "accuracy", "RECIPE"]

# what the shipped weights were trained with (recorded in the weights file's ``meta``)
RECIPE = {"optimizer": "Adam", "lr": 3e-3, "schedule": "CosineAnnealingLR over the epochs", "epochs": 12,
          "batch_size": 32, "loss": "CrossEntropyLoss"}


def accuracy(model: nn.Module, x: Tensor, y: Tensor) -> float:
    """The fraction of rows of ``x`` whose arg-max logit is the label, in eval mode without a graph."""
    was_training = model.training
    model.eval()
    try:
        with no_grad():
            return float((model(x).argmax(1) == y).float().mean().item())
    finally:
        model.train(was_training)


def train_small_cnn(seed: int = 0, epochs: int = RECIPE["epochs"], max_steps: int | None = None,
                    log=None) -> tuple[SmallCNN, dict[str, Any]]:
    """Train a fresh :class:`SmallCNN` on the training part of ``digits_split()``.

    Everything random (initial weights, batch order) comes from ``seed``, and the global RNG is restored
    afterwards, so the same seed gives the same weights on the same machine. ``max_steps`` stops early
    (for tests). ``log(epoch, loss, held_out_accuracy)`` is called after each epoch when given.
    Returns the model (in eval mode) and a ``meta`` dict: the seed, the recipe and the held-out accuracy.
    """
    x_train, y_train, x_test, y_test = digits_split()
    saved_state = creation.get_rng_state()
    try:
        creation.manual_seed(seed)
        model = SmallCNN()
    finally:
        creation.set_rng_state(saved_state)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=RECIPE["batch_size"], shuffle=True,
                        generator=creation.Generator().manual_seed(seed + 1))
    optimizer = optim.Adam(model.parameters(), lr=RECIPE["lr"])
    schedule = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss()
    steps = 0
    model.train()
    for epoch in range(epochs):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
        schedule.step()
        if log is not None:
            log(epoch, float(loss.item()), accuracy(model, x_test, y_test))
        if max_steps is not None and steps >= max_steps:
            break
    model.eval()
    meta = {"seed": seed, "steps": steps, "split_seed": SPLIT_SEED, "test_size": TEST_SIZE,
            "recipe": dict(RECIPE, epochs=epochs), "train_accuracy": accuracy(model, x_train, y_train),
            "test_accuracy": accuracy(model, x_test, y_test)}
    return model, meta
