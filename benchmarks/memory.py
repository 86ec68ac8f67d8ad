"""``memory``: peak extra memory of a 20-layer 1024-wide MLP (batch 256, float32), one phase per process.

Two meters, both relative to a baseline taken after the model exists and one warm-up step ran
(its ``.grad`` buffers dropped):

* RSS (every library): ``VmHWM`` from ``/proc/self/status`` after resetting the peak through
  ``/proc/self/clear_refs``; glibc is told to ``mmap`` every block over 64 KiB
  (``MALLOC_MMAP_THRESHOLD_``, set by the driver) so freed arrays leave the RSS at once.
* tracemalloc (NumPy and autograd_lab only): NumPy reports every array buffer to tracemalloc, so
  this counts exactly the bytes of live arrays, nothing else. PyTorch's buffers are invisible to it.

Phases: ``forward`` (with grad, the graph kept), ``backward`` (peak while it runs, the graph of the
forward included), ``after`` (left after backward and the graph dropped, beyond the ``.grad``
buffers), ``no_grad`` (forward under ``no_grad``).
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from .common import as_tensor, import_lib, init_linear, to_numpy

LAYERS, WIDTH, BATCH = 20, 1024, 256
MB = 1e6


def _rss_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    tracemalloc.reset_peak()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS (Linux)
        return True
    except OSError:
        return False


class Meter:
    """Baseline, peak and current memory, in MB above the baseline."""

    def __init__(self) -> None:
        tracemalloc.start()
        self.rss0 = _rss_kb("VmRSS")
        self.peak_ok = _reset_peak()

    def restart_peak(self) -> None:
        self.peak_ok = _reset_peak()

    def peak(self) -> dict:
        hwm = _rss_kb("VmHWM")
        return {"rss": (hwm - self.rss0) * 1024 / MB if (hwm is not None and self.peak_ok) else None,
                "traced": tracemalloc.get_traced_memory()[1] / MB}

    def current(self) -> dict:
        rss = _rss_kb("VmRSS")
        return {"rss": (rss - self.rss0) * 1024 / MB if rss is not None else None,
                "traced": tracemalloc.get_traced_memory()[0] / MB}


def _weights():
    rng = np.random.default_rng(3)
    layers = [init_linear(rng, WIDTH, WIDTH, np.float32) for _ in range(LAYERS)]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    return layers, x


class _NumpyMLP:
    """The floor: a forward that keeps each layer's ReLU output (the next layer's input and the mask)."""

    def __init__(self, layers, x) -> None:
        self.layers, self.x = layers, x
        self.grads = None

    def forward(self, keep: bool):
        h, saved = self.x, []
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T + b
            if i < LAYERS - 1:
                np.maximum(h, 0, out=h)
            if keep:
                saved.append(h)
        return h.sum(dtype=np.float64), saved

    def backward(self, saved) -> None:
        g = np.ones((BATCH, WIDTH), dtype=np.float32)
        grads = []
        for i in reversed(range(LAYERS)):
            w, _ = self.layers[i]
            if i < LAYERS - 1:
                g *= saved[i] > 0
            h_in = saved[i - 1] if i > 0 else self.x
            grads.append((g.T @ h_in, g.sum(0)))
            if i > 0:
                g = g @ w
            saved[i] = None  # backward frees what it saved, as autograd does
        self.grads = grads[::-1]

    def grad_bytes(self) -> int:
        return sum(gw.nbytes + gb.nbytes for gw, gb in self.grads)

    def first_grad(self) -> np.ndarray:
        return self.grads[0][0]

    def drop_grads(self) -> None:
        self.grads = None


class _TensorMLP:
    def __init__(self, T, layers, x) -> None:
        self.T = T
        mods = []
        for w, b in layers:
            lin = T.nn.Linear(WIDTH, WIDTH)
            with T.no_grad():
                lin.weight.copy_(T.tensor(w))
                lin.bias.copy_(T.tensor(b))
            mods += [lin, T.nn.ReLU()]
        self.model = T.nn.Sequential(*mods[:-1])
        self.x = as_tensor(T, x)

    def forward(self, keep: bool):
        if keep:
            return self.model(self.x).sum(), None
        with self.T.no_grad():
            return self.model(self.x).sum(), None

    def backward(self, loss) -> None:
        loss.backward()

    def grad_bytes(self) -> int:
        return sum(p.grad.numel() * p.grad.element_size() for p in self.model.parameters())

    def first_grad(self) -> np.ndarray:
        return to_numpy(self.model[0].weight.grad)

    def drop_grads(self) -> None:
        for p in self.model.parameters():
            p.grad = None


def run_memory(lib: str, params: dict, reps: int, warmup: int):
    phase = params["phase"]
    T = import_lib(lib)
    layers, x = _weights()
    net = _NumpyMLP(layers, x) if T is None else _TensorMLP(T, layers, x)
    del layers

    def forward_backward():
        loss, saved = net.forward(keep=True)
        net.backward(saved if T is None else loss)
        return loss

    forward_backward()  # warm-up: BLAS buffers, lazy initialisation, allocator pools
    net.drop_grads()
    meter = Meter()
    if phase == "no_grad":
        loss, _ = net.forward(keep=False)
        value = meter.peak()
    elif phase == "forward":
        loss, saved = net.forward(keep=True)
        value = meter.peak()
    elif phase == "backward":
        loss, saved = net.forward(keep=True)
        meter.restart_peak()
        net.backward(saved if T is None else loss)
        value = meter.peak()
    elif phase == "after":
        loss = forward_backward()
        loss = float(loss if T is None else to_numpy(loss))  # drops the graph (no gc.collect: refcounts only)
        now = meter.current()
        extra = net.grad_bytes() / MB
        value = {k: (v - extra if v is not None else None) for k, v in now.items()}
    else:
        raise ValueError(f"memory: unknown phase {phase!r} (forward, backward, after, no_grad)")
    loss = float(loss if (T is None or isinstance(loss, float)) else to_numpy(loss))
    check = [loss]
    if phase in ("backward", "after"):
        check.append(float(np.abs(net.first_grad()).sum()))
    if T is not None and lib != "autograd_lab":
        value["traced"] = None  # tracemalloc sees NumPy's buffers only
    return [value["rss"]], check, value
