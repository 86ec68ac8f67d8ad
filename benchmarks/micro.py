"""Small-tensor workloads, where Python overhead dominates: ``op_overhead``, ``deep_chain``, ``scalar_mlp``.

Each ``run_<workload>(lib, params, reps, warmup)`` returns ``(seconds per rep, check values)``; the
check values must agree across libraries before any time is reported.
"""

from __future__ import annotations

import numpy as np

from .common import as_tensor, import_lib, timed, to_numpy

# -- op_overhead: 200 chained elementwise ops (mul, add, tanh, exp, log), forward + backward ----------
CHAIN_OPS = 200
MUL, ADD = 0.9, 0.1  # the chain stays in (-1, 1): tanh keeps exp in (1/e, e), so log is always defined


def _op_chain_numpy(x0: np.ndarray):
    """Forward saving what the backward reads, then the backward written out by hand."""
    saved = []
    y = x0
    for i in range(CHAIN_OPS):
        kind = i % 5
        if kind == 0:
            y = y * MUL
        elif kind == 1:
            y = y + ADD
        elif kind == 2:
            y = np.tanh(y)
            saved.append(y)
        elif kind == 3:
            y = np.exp(y)
            saved.append(y)
        else:
            saved.append(y)
            y = np.log(y)
    out = y.sum()
    g = np.ones_like(y)
    for i in reversed(range(CHAIN_OPS)):
        kind = i % 5
        if kind == 0:
            g = g * MUL
        elif kind == 2:
            t = saved.pop()
            g = g * (1.0 - t * t)
        elif kind == 3:
            g = g * saved.pop()
        elif kind == 4:
            g = g / saved.pop()
    return out, g


def _op_chain_tensors(T, x0: np.ndarray):
    x = as_tensor(T, x0, requires_grad=True)
    y = x
    for i in range(CHAIN_OPS):
        kind = i % 5
        if kind == 0:
            y = y * MUL
        elif kind == 1:
            y = y + ADD
        elif kind == 2:
            y = y.tanh()
        elif kind == 3:
            y = y.exp()
        else:
            y = y.log()
    out = y.sum()
    out.backward()
    return out, x.grad


def run_op_overhead(lib: str, params: dict, reps: int, warmup: int):
    x0 = np.random.default_rng(0).uniform(-1, 1, size=params["n"])
    T = import_lib(lib)
    fn = (lambda: _op_chain_numpy(x0)) if T is None else (lambda: _op_chain_tensors(T, x0))
    times = timed(fn, reps, warmup)
    out, grad = fn()
    if T is not None:
        out, grad = to_numpy(out), to_numpy(grad)
    return [t / CHAIN_OPS for t in times], [float(out)] + np.asarray(grad).ravel()[:16].tolist()


# -- deep_chain: y = y * 1.0001 + 0.001, n times, then backward ---------------------------------------
def _deep_chain_fn(T, n: int, result: dict):
    if T is None:
        def fn():
            # the floor keeps what a tape would: one record per op (nothing to save for these two ops)
            tape = []
            y = np.ones(1)  # a 1-element array (0-d arrays decay to NumPy scalars after one op)
            for _ in range(n):
                y = y * 1.0001
                tape.append(0)
                y = y + 0.001
                tape.append(1)
            g = np.ones(1)
            for kind in reversed(tape):
                if kind == 0:
                    g = g * 1.0001
            result["check"] = [float(y[0]), float(g[0])]
    else:
        def fn():
            x = T.tensor(np.ones(1), requires_grad=True)
            y = x
            for _ in range(n):
                y = y * 1.0001 + 0.001
            y.sum().backward()
            result["check"] = [float(to_numpy(y)[0]), float(to_numpy(x.grad)[0])]
    return fn


def run_deep_chain(lib: str, params: dict, reps: int, warmup: int):
    """With ``reference_n`` (the million-op case): the shorter chain first, in the same process (one warm-up
    run, one timed), so that ``linear_ratio`` = time(n) / time(reference_n) compares two lengths under the same
    interpreter and heap, not two processes' start-ups; linear time reads n / reference_n."""
    T = import_lib(lib)
    result = {}
    extra = None
    if "reference_n" in params:
        reference = _deep_chain_fn(T, params["reference_n"], {})
        reference_time = timed(reference, 1, 1)[0]
    times = timed(_deep_chain_fn(T, params["n"], result), reps, warmup)
    if "reference_n" in params:
        extra = {"linear_ratio": min(times) / reference_time}
    return times, result["check"], extra


# -- scalar_mlp: 2-16-16-1 on 100 two-moons points, hinge loss, one forward + backward ---------------
def _moons_and_weights():
    import autograd_lab as al  # the data generator only (it returns tensors; we hand plain arrays around)
    X, y = al.data.make_moons(100, noise=0.1, generator=al.Generator().manual_seed(0), dtype=al.float64)
    rng = np.random.default_rng(1)
    from .common import init_linear
    layers = [init_linear(rng, a, b, np.float64) for a, b in ((2, 16), (16, 16), (16, 1))]
    return X.numpy(), y.numpy().astype(np.float64) * 2 - 1, layers


def _scalar_mlp_numpy(X, y, layers):
    (w1, b1), (w2, b2), (w3, b3) = layers
    z1 = X @ w1.T + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2.T + b2
    h2 = np.maximum(z2, 0)
    score = (h2 @ w3.T + b3)[:, 0]
    margin = 1 - y * score
    loss = np.maximum(margin, 0).mean()
    g_score = np.where(margin > 0, -y / len(y), 0.0)[:, None]
    gw3, gb3 = g_score.T @ h2, g_score.sum(0)
    g2 = (g_score @ w3) * (z2 > 0)
    gw2, gb2 = g2.T @ h1, g2.sum(0)
    g1 = (g2 @ w2) * (z1 > 0)
    gw1, gb1 = g1.T @ X, g1.sum(0)
    return loss, [gw1, gb1, gw2, gb2, gw3, gb3]


def _scalar_mlp_tensors(T, X, y, params):
    w1, b1, w2, b2, w3, b3 = params
    for p in params:
        p.grad = None
    h1 = (X @ w1.T + b1).relu()
    h2 = (h1 @ w2.T + b2).relu()
    score = (h2 @ w3.T + b3)[:, 0]
    loss = (1 - y * score).relu().mean()
    loss.backward()
    return loss, [p.grad for p in params]


def run_scalar_mlp(lib: str, params: dict, reps: int, warmup: int):
    X, y, layers = _moons_and_weights()
    T = import_lib(lib)
    if T is None:
        fn = lambda: _scalar_mlp_numpy(X, y, layers)
    else:
        Xt, yt = as_tensor(T, X), as_tensor(T, y)
        ps = [as_tensor(T, a, requires_grad=True) for pair in layers for a in pair]
        fn = lambda: _scalar_mlp_tensors(T, Xt, yt, ps)
    times = timed(fn, reps, warmup)
    loss, grads = fn()
    if T is not None:
        loss, grads = to_numpy(loss), [to_numpy(g) for g in grads]
    return times, [float(loss)] + [float(np.abs(g).sum()) for g in grads]
