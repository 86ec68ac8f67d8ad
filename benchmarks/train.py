"""Training steps: ``mlp_train`` (784-512-256-10) and ``cnn_train`` (two 3x3 convs, pools, a linear).

Every library starts from the same weights and batches (drawn with NumPy) and takes the same SGD
steps (lr 0.01, momentum 0.9); the losses of the first steps are the check values.
"""

from __future__ import annotations

import numpy as np

from .common import as_tensor, import_lib, init_conv, init_linear, timed, to_numpy

LR, MOMENTUM = 0.01, 0.9
CHECK_STEPS = 4


def _batches(shape, classes: int, count: int = 4):
    rng = np.random.default_rng(123)
    return [(rng.standard_normal(shape).astype(np.float32), rng.integers(0, classes, size=shape[0]))
            for _ in range(count)]


# -- hand-written NumPy pieces (the floor) ---------------------------------------------------------
def _xent(logits: np.ndarray, labels: np.ndarray):
    """Mean softmax cross-entropy and its gradient with respect to the logits."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = (np.log(total[:, 0]) - shifted[rows, labels]).mean()
    grad = exp / total
    grad[rows, labels] -= 1
    grad /= len(labels)
    return loss, grad


def _sgd_numpy(params, grads, buffers):
    for p, g, buf in zip(params, grads, buffers):
        if buf[0] is None:
            buf[0] = g.copy()
        else:
            buf[0] *= MOMENTUM
            buf[0] += g
        p -= LR * buf[0]


def _windows(x: np.ndarray, k: int) -> np.ndarray:
    """im2col as a strided view: (N, C, H, W) -> (N, C, k, k, oH, oW), no copy."""
    n, c, h, w = x.shape
    s = x.strides
    return np.lib.stride_tricks.as_strided(x, (n, c, k, k, h - k + 1, w - k + 1), (s[0], s[1], s[2], s[3], s[2], s[3]),
                                           writeable=False)


def _conv_forward(x, weight, bias):
    o, c, k, _ = weight.shape
    n, _, h, w = x.shape
    cols = _windows(x, k).reshape(n, c * k * k, (h - k + 1) * (w - k + 1))
    out = np.matmul(weight.reshape(o, -1), cols) + bias[:, None]
    return out.reshape(n, o, h - k + 1, w - k + 1), cols


def _conv_backward(grad, x_shape, cols, weight, need_input: bool):
    o, c, k, _ = weight.shape
    n, _, oh, ow = grad.shape
    g = grad.reshape(n, o, oh * ow)
    gw = np.matmul(g, cols.transpose(0, 2, 1)).sum(0).reshape(weight.shape)
    gb = g.sum(axis=(0, 2))
    gx = None
    if need_input:  # col2im: add each kernel offset's slice back (k*k slice additions, no np.add.at)
        gcols = np.matmul(weight.reshape(o, -1).T, g).reshape(n, c, k, k, oh, ow)
        gx = np.zeros(x_shape, dtype=grad.dtype)
        for i in range(k):
            for j in range(k):
                gx[:, :, i:i + oh, j:j + ow] += gcols[:, :, i, j]
    return gx, gw, gb


def _pool_forward(x):
    """2x2 max pool, stride 2 (odd sizes floor); returns the output and the argmax within each window."""
    n, c, h, w = x.shape
    oh, ow = h // 2, w // 2
    win = x[:, :, :oh * 2, :ow * 2].reshape(n, c, oh, 2, ow, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, 4)
    arg = win.argmax(axis=-1)
    return np.take_along_axis(win, arg[..., None], axis=-1)[..., 0], arg


def _pool_backward(grad, arg, x_shape):
    n, c, h, w = x_shape
    oh, ow = grad.shape[2:]
    win = np.zeros((n, c, oh, ow, 4), dtype=grad.dtype)
    np.put_along_axis(win, arg[..., None], grad[..., None], axis=-1)
    gx = np.zeros(x_shape, dtype=grad.dtype)
    gx[:, :, :oh * 2, :ow * 2] = win.reshape(n, c, oh, ow, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh * 2, ow * 2)
    return gx


# -- mlp_train -------------------------------------------------------------------------------------
MLP_SIZES = (784, 512, 256, 10)
MLP_BATCH = 128


def _mlp_numpy(layers, batches):
    params = [a.copy() for pair in layers for a in pair]
    buffers = [[None] for _ in params]
    state = {"step": 0}

    def step():
        x, labels = batches[state["step"] % len(batches)]
        state["step"] += 1
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        logits = h2 @ w3.T + b3
        loss, g3 = _xent(logits, labels)
        gw3, gb3 = g3.T @ h2, g3.sum(0)
        g2 = g3 @ w3
        g2 *= z2 > 0
        gw2, gb2 = g2.T @ h1, g2.sum(0)
        g1 = g2 @ w2
        g1 *= z1 > 0
        gw1, gb1 = g1.T @ x, g1.sum(0)
        _sgd_numpy(params, [gw1, gb1, gw2, gb2, gw3, gb3], buffers)
        return float(loss)
    return step


def _tensor_trainer(T, model, batches):
    opt = T.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    data = [(as_tensor(T, x), as_tensor(T, y)) for x, y in batches]
    state = {"step": 0}

    def step():
        x, labels = data[state["step"] % len(data)]
        state["step"] += 1
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        return float(to_numpy(loss))
    return step


def _load_linear(T, layer, weight, bias):
    with T.no_grad():
        layer.weight.copy_(T.tensor(weight))
        layer.bias.copy_(T.tensor(bias))


def _mlp_tensors(T, layers):
    nn = T.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    for module, (w, b) in zip([model[0], model[2], model[4]], layers):
        _load_linear(T, module, w, b)
    return model


def _train(lib, make_numpy_step, make_model, shape, reps, warmup):
    rng = np.random.default_rng(7)
    T = import_lib(lib)
    batches = _batches(shape, 10)
    step = make_numpy_step(rng, batches) if T is None else _tensor_trainer(T, make_model(T, rng), batches)
    losses = [step() for _ in range(CHECK_STEPS)]  # the first steps, from the shared initial weights
    return timed(step, reps, max(0, warmup - CHECK_STEPS)), losses


def run_mlp_train(lib: str, params: dict, reps: int, warmup: int):
    def layers(rng):
        return [init_linear(rng, a, b, np.float32) for a, b in zip(MLP_SIZES, MLP_SIZES[1:])]
    return _train(lib, lambda rng, batches: _mlp_numpy(layers(rng), batches),
                  lambda T, rng: _mlp_tensors(T, layers(rng)), (MLP_BATCH, 784), reps, warmup)


# -- cnn_train ---------------------------------------------------------------------------------------
CNN_BATCH = 32


def _cnn_weights(rng):
    return [init_conv(rng, 1, 8, 3, np.float32), init_conv(rng, 8, 16, 3, np.float32),
            init_linear(rng, 16 * 5 * 5, 10, np.float32)]


def _cnn_numpy(rng, batches):
    params = [a.copy() for pair in _cnn_weights(rng) for a in pair]
    buffers = [[None] for _ in params]
    state = {"step": 0}

    def step():
        x, labels = batches[state["step"] % len(batches)]
        state["step"] += 1
        cw1, cb1, cw2, cb2, lw, lb = params
        z1, cols1 = _conv_forward(x, cw1, cb1)
        h1 = np.maximum(z1, 0)
        p1, arg1 = _pool_forward(h1)
        z2, cols2 = _conv_forward(p1, cw2, cb2)
        h2 = np.maximum(z2, 0)
        p2, arg2 = _pool_forward(h2)
        flat = p2.reshape(len(x), -1)
        logits = flat @ lw.T + lb
        loss, g = _xent(logits, labels)
        glw, glb = g.T @ flat, g.sum(0)
        g = _pool_backward((g @ lw).reshape(p2.shape), arg2, h2.shape)
        g *= z2 > 0
        gp1, gcw2, gcb2 = _conv_backward(g, p1.shape, cols2, cw2, need_input=True)
        g = _pool_backward(gp1, arg1, h1.shape)
        g *= z1 > 0
        _, gcw1, gcb1 = _conv_backward(g, x.shape, cols1, cw1, need_input=False)
        _sgd_numpy(params, [gcw1, gcb1, gcw2, gcb2, glw, glb], buffers)
        return float(loss)
    return step


def _cnn_tensors(T, rng):
    nn = T.nn
    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 5 * 5, 10))
    for module, (w, b) in zip([model[0], model[3], model[7]], _cnn_weights(rng)):
        _load_linear(T, module, w, b)
    return model


def run_cnn_train(lib: str, params: dict, reps: int, warmup: int):
    return _train(lib, _cnn_numpy, _cnn_tensors, (CNN_BATCH, 1, 28, 28), reps, warmup)
