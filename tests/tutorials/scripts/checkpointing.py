"""Train with a checkpointed block: the same losses as without, the block's forward run twice per step."""
import numpy as np

import autograd_lab as al
from autograd_lab.utils.checkpoint import checkpoint


class Net(al.nn.Module):
    def __init__(self, use_checkpoint):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.block = al.nn.Sequential(al.nn.Linear(6, 16), al.nn.GELU(), al.nn.Linear(16, 6), al.nn.Tanh())
        self.head = al.nn.Linear(6, 1)
        self.block_runs = 0

    def run_block(self, x):
        self.block_runs += 1
        return self.block(x)

    def forward(self, x):
        h = checkpoint(self.run_block, x, use_reentrant=False) if self.use_checkpoint else self.run_block(x)
        return self.head(h)


def train(use_checkpoint):
    rng = np.random.default_rng(0)
    net = Net(use_checkpoint)
    with al.no_grad():
        for p in net.parameters():
            p.copy_(al.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=al.float32))
    x = al.tensor(rng.standard_normal((32, 6)), dtype=al.float32, requires_grad=True)
    y = al.tensor(rng.standard_normal((32, 1)), dtype=al.float32)
    optimizer = al.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = al.nn.functional.mse_loss(net(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 5))
    return losses, net.block_runs


plain, checkpointed = train(False), train(True)
result = {"losses": plain[0], "same with checkpoint": plain[0] == checkpointed[0],
          "block runs": (plain[1], checkpointed[1])}
print(result)
