"""Learning-rate schedules in a training loop: ReduceLROnPlateau on a validation loss (with clip_grad_value_), then
OneCycleLR stepped every batch with SGD momentum cycling."""

import numpy as np

import autograd_lab as al
import autograd_lab.nn as nn


def make_model(rng):
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 1)).double()
    with al.no_grad():
        for p in model.parameters():
            p.copy_(al.tensor(rng.normal(0.0, 0.5, tuple(p.shape))))
    return model


def main():
    rng = np.random.default_rng(2)
    x, x_val = al.tensor(rng.standard_normal((64, 3))), al.tensor(rng.standard_normal((32, 3)))
    w = al.tensor([[1.0], [-2.0], [0.5]], dtype=al.float64)
    y, y_val = x @ w + 0.3, x_val @ w + 0.3 + al.tensor(rng.normal(0, 0.5, (32, 1)))

    model = make_model(rng)
    optimizer = al.optim.SGD(model.parameters(), lr=0.2)
    plateau = al.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1, cooldown=1,
                                                      min_lr=0.01)
    val_losses, rates = [], []
    for _ in range(12):
        model.train()
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0)
        optimizer.step()
        model.eval()
        with al.no_grad():
            val_loss = nn.functional.mse_loss(model(x_val), y_val)
        plateau.step(val_loss)
        val_losses.append(val_loss.item())
        rates.append(optimizer.param_groups[0]["lr"])

    model = make_model(rng)
    optimizer = al.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    cycle = al.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=2, steps_per_epoch=4)
    momenta, losses = [], []
    for _ in range(2):
        for batch in range(4):
            rows = slice(16 * batch, 16 * batch + 16)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            cycle.step()
            losses.append(loss.item())
            momenta.append(optimizer.param_groups[0]["momentum"])
    print("lr after the plateau:", rates[-1])
    return {"val_losses": val_losses, "rates": rates, "losses": losses, "momenta": momenta,
            "one_cycle_rates": cycle.get_last_lr()}
