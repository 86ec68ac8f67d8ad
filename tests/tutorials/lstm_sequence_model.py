"""A small LSTM sequence model: predict the next value of noisy sine waves, trained for a few steps with Adam
and gradient clipping; the final hidden state feeds a linear head."""

import numpy as np

import autograd_lab as al
import autograd_lab.nn as nn


class SequenceModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=8, num_layers=2, batch_first=True, dropout=0.0)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        output, (h_n, c_n) = self.lstm(x)
        return self.head(output[:, -1])


def main():
    rng = np.random.default_rng(0)
    t = np.linspace(0, 4 * np.pi, 13)
    waves = np.sin(t[None, :] + rng.uniform(0, 2 * np.pi, (16, 1))) + 0.05 * rng.standard_normal((16, 13))
    x = al.tensor(waves[:, :12, None])
    y = al.tensor(waves[:, 12:])

    model = SequenceModel().double()
    with al.no_grad():
        for p in model.parameters():  # the same starting point in every library
            p.copy_(al.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape))))
    optimizer = al.optim.Adam(model.parameters(), lr=0.02)
    losses, norms = [], []
    for _ in range(8):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5).item())
        optimizer.step()
        losses.append(loss.item())
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    with al.no_grad():
        prediction = model(x[:2])
    return {"losses": losses, "norms": norms, "prediction": prediction.numpy().ravel().tolist()}
