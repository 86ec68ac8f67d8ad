"""A transformer-ish block: LayerNorm, single-head self-attention written with einsum, a GELU feed-forward with
LeakyReLU gate, residual connections; a few SGD steps on a toy copy task."""

import math

import numpy as np

import autograd_lab as al
import autograd_lab.nn as nn
import autograd_lab.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.LeakyReLU(0.1), nn.Linear(2 * dim, dim))

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        scores = al.einsum("bqd,bkd->bqk", q, k) / math.sqrt(q.shape[-1])
        attention = F.softmax(scores, dim=-1)
        x = x + al.einsum("bqk,bkd->bqd", attention, v)
        return x + self.ff(self.norm2(x))


def main():
    rng = np.random.default_rng(1)
    x = al.tensor(rng.standard_normal((4, 5, 6)))
    target = x.flip(1)
    block = Block(6).double()
    with al.no_grad():
        for p in block.parameters():
            p.copy_(al.tensor(rng.normal(0.0, 0.3, tuple(p.shape))))
    optimizer = al.optim.SGD(block.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(6):
        optimizer.zero_grad()
        loss = F.mse_loss(block(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    var, mean = al.var_mean(block(x), dim=-1)
    print(block.norm1)
    return {"losses": losses, "var": var.detach().numpy().ravel().tolist(),
            "mean": mean.detach().numpy().ravel().tolist()}
