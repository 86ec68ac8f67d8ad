"""A word-level language model in the shape of PyTorch's "Language Modeling with nn.Transformer" tutorial, written
with ``import autograd_lab as torch``: an ``nn.Embedding`` scaled by sqrt(d_model), a sinusoidal positional encoding
(a registered buffer), an ``nn.TransformerEncoder`` of two ``nn.TransformerEncoderLayer`` under the causal mask of
``nn.Transformer.generate_square_subsequent_mask``, a linear decoder; trained on batchified token streams (bptt
chunks) with ``CrossEntropyLoss``, SGD with ``StepLR`` then Adam, ``clip_grad_norm_``; evaluated under
``model.eval()`` and ``torch.no_grad()``. All in float64 (``torch.set_default_dtype``); dropout is 0 and the
weights are drawn from one NumPy generator, so that every library starts from the same model and takes the same
steps."""

import math

import numpy as np

import autograd_lab as torch
from autograd_lab import nn
from autograd_lab.nn import TransformerEncoder, TransformerEncoderLayer


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.5):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


def batchify(data, bsz):
    seq_len = data.size(0) // bsz
    data = data[: seq_len * bsz]
    return data.view(bsz, seq_len).t().contiguous()


bptt = 6


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].reshape(-1)
    return data, target


def train_epoch(model, data, criterion, optimizer, ntokens):
    model.train()
    losses, norms = [], []
    for i in range(0, data.size(0) - 1, bptt):
        inputs, targets = get_batch(data, i)
        output = model(inputs)
        loss = criterion(output.view(-1, ntokens), targets)
        optimizer.zero_grad()
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5).item())
        optimizer.step()
        losses.append(loss.item())
    return losses, norms


def evaluate(model, data, criterion, ntokens):
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, data.size(0) - 1, bptt):
            inputs, targets = get_batch(data, i)
            output = model(inputs)
            total_loss += inputs.size(0) * criterion(output.view(-1, ntokens), targets).item()
    return total_loss / (len(data) - 1)


def main():
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # (float64 throughout, the positional encoding included)
    try:
        return run()
    finally:
        torch.set_default_dtype(default_dtype)


def run():
    rng = np.random.default_rng(4)
    ntokens = 12
    stream = np.tile(np.arange(ntokens), 8)[:90] + rng.integers(0, 2, 90)  # (a nearly periodic token stream)
    train_data = batchify(torch.tensor(stream % ntokens), 3)
    val_data = batchify(torch.tensor(rng.integers(0, ntokens, 40)), 2)

    model = TransformerModel(ntokens, d_model=8, nhead=2, d_hid=16, nlayers=2, dropout=0.0)
    with torch.no_grad():
        for name, p in model.named_parameters():  # the same starting point in every library (norms stay 1 and 0)
            if "norm" not in name:
                p.copy_(torch.tensor(rng.normal(0.0, 0.2, tuple(p.shape))))
    print(model)

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
    sgd_losses, sgd_norms = train_epoch(model, train_data, criterion, optimizer, ntokens)
    scheduler.step()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    adam_losses, adam_norms = train_epoch(model, train_data, criterion, optimizer, ntokens)
    val_loss = evaluate(model, val_data, criterion, ntokens)
    print(f"val loss {val_loss:5.2f} | ppl {math.exp(val_loss):8.2f}")
    return {"sgd_losses": sgd_losses, "adam_losses": adam_losses, "norms": sgd_norms + adam_norms,
            "val_loss": [val_loss], "lr": [scheduler.get_last_lr()[0]]}
