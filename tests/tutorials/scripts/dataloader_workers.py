"""A Dataset, a DataLoader with 2 worker processes, and a few steps of training."""
import numpy as np

import autograd_lab as al
from autograd_lab.utils.data import DataLoader, Dataset, get_worker_info


class Points(Dataset):
    """y = 3 x0 - 2 x1 + 1, sample by sample (as if each were read from disk)."""

    def __init__(self, n):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((n, 2)).astype(np.float32)
        self.y = (self.x @ np.array([3.0, -2.0], dtype=np.float32) + 1.0)[:, None]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        assert get_worker_info() is not None  # made in a worker process
        return al.from_numpy(self.x[i]), al.from_numpy(self.y[i])


loader = DataLoader(Points(64), batch_size=16, num_workers=2, persistent_workers=True)
model = al.nn.Linear(2, 1)
with al.no_grad():
    model.weight.copy_(al.tensor([[0.5, 0.5]]))
    model.bias.zero_()
optimizer = al.optim.SGD(model.parameters(), lr=0.1)
losses = []
for _ in range(3):  # epochs
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = al.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
result = {"batches": len(losses), "losses": losses, "weight": [round(w, 3) for w in model.weight.flatten().tolist()]}
print(result)
