"""Conv1d with InstanceNorm1d and Dropout1d over signals; a tiny image decoder with Upsample, InstanceNorm2d and
F.interpolate; GRU and RNNCell on the side. One optimisation step each; einsum, out= and new_* along the way."""

import numpy as np

import autograd_lab as al
import autograd_lab.nn as nn
import autograd_lab.nn.functional as F


def seeded(module, rng):
    with al.no_grad():
        for p in module.parameters():
            p.copy_(al.tensor(rng.normal(0.0, 0.4, tuple(p.shape))))
    return module


def main():
    rng = np.random.default_rng(3)
    signals = al.tensor(rng.standard_normal((4, 2, 20)))
    encoder = seeded(nn.Sequential(nn.Conv1d(2, 4, 5, padding="same", padding_mode="reflect"),
                                   nn.InstanceNorm1d(4, affine=True), nn.LeakyReLU(), nn.Dropout1d(0.0),
                                   nn.Conv1d(4, 3, 3, stride=2)).double(), rng)
    features = encoder(signals)

    decoder = seeded(nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                   nn.Conv2d(3, 2, 3, padding=1), nn.InstanceNorm2d(2),
                                   nn.Threshold(0.1, 0.0)).double(), rng)
    image = decoder(features.reshape(4, 3, 3, 3))
    resized = F.interpolate(image, size=(5, 7), mode="nearest")

    gru = seeded(nn.GRU(3, 5, batch_first=True, bidirectional=True).double(), rng)
    sequence, h_n = gru(features.transpose(1, 2))
    cell = seeded(nn.RNNCell(10, 4, nonlinearity="relu").double(), rng)
    h = cell(sequence[:, -1])

    loss = resized.pow(2).mean() + h.sum() + al.einsum("bld,bld->", sequence, sequence) / 100
    params = [*encoder.parameters(), *decoder.parameters(), *gru.parameters(), *cell.parameters()]
    optimizer = al.optim.Adam(params, lr=0.01)
    optimizer.zero_grad()
    loss.backward()
    total_norm = nn.utils.clip_grad_norm_(params, 1.0, norm_type="inf")
    optimizer.step()
    with al.no_grad():
        flat = nn.utils.parameters_to_vector(params)
        summary = flat.new_zeros(3)
        al.stack([flat.sum(), flat.abs().max(), flat.pow(2).mean()], out=summary)
    print(encoder[1], decoder[0])
    return {"loss": loss.item(), "norm": total_norm.item(), "summary": summary.tolist(),
            "h_n": h_n.detach().numpy().ravel().tolist()}
