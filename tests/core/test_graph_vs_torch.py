"""The recorded graph is PyTorch's, node by node: the same programs run on autograd_lab and torch give nodes of the
same names, the same ``next_functions`` (``None`` entries and output numbers included), and the same ``_saved_*``
attributes with the same values."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _leaf(m, *shape, seed=0, grad=True):
    data = np.random.default_rng(seed).standard_normal(shape)
    return m.tensor(data, dtype=m.float64, requires_grad=grad)


PROGRAMS = {
    "where": lambda m, x, y: m.where(x > 0, x, y),
    "where, a number": lambda m, x, y: m.where(x > 0, x, 0.0),
    "where, a number first": lambda m, x, y: m.where(x > 0, 1.0, y),
    "where, no grad for other": lambda m, x, y: m.where(x > 0, x, y.detach()),
    "remainder by a number": lambda m, x, y: x % 1.5,
    "remainder_ by a number": lambda m, x, y: (x * 1).remainder_(-2.0),
    "remainder by a tensor": lambda m, x, y: x % y,
    "a slice without an end": lambda m, x, y: x[:, 1:],
    "slices with negative bounds and a step": lambda m, x, y: x[-1:, :-1:2],
    "a slice's gradient": lambda m, x, y: m.autograd.grad((x * x)[:, 1:], x, y[:, 1:], create_graph=True)[0],
    "a list index": lambda m, x, y: x[[1, 0]],
    "an index tensor": lambda m, x, y: x[:, m.tensor([0, 2])],
    "a mask": lambda m, x, y: x[y > 0],
    "setitem, a row (CopySlices)": lambda m, x, y: _setitem(x * 1, 1, y[0]),
    "an in-place op on a view of a view": lambda m, x, y: _view_changed(x * 1, lambda v: v[1][1:].mul_(2)),
    "an in-place op on a view of a tensor without grad": lambda m, x, y: _view_changed(x.detach(), lambda v: v[1].add_(y[0])),
    "setitem, a list index": lambda m, x, y: _setitem(x * 1, [1], 0.5),
    "setitem, an index tensor": lambda m, x, y: _setitem(x * 1, m.tensor([0]), y[0]),
    "setitem, a mask": lambda m, x, y: _setitem(x * 1, y.detach() > 0, y[0, 0]),
    "index_add": lambda m, x, y: x.index_add(0, m.tensor([1]), y[:1], alpha=2),
    "index_add, source without grad": lambda m, x, y: x.index_add(0, m.tensor([1]), y[:1].detach()),
    "index_copy": lambda m, x, y: x.index_copy(1, m.tensor([0, 2]), y[:, :2]),
    "kron": lambda m, x, y: m.kron(x, y[:1]),
    "gather": lambda m, x, y: x.gather(1, m.tensor([[0], [2]])),
    "take": lambda m, x, y: x.take(m.tensor([0, 5])),
    "gather in scatter's gradient": lambda m, x, y: m.autograd.grad(
        x.scatter(1, m.tensor([[0], [2]]), y.sum(1, keepdim=True) * 2), y, x * 1, create_graph=True)[0],
    "index_put": lambda m, x, y: x.index_put((m.tensor([1, 0]),), y[0], accumulate=True),
    "mm": lambda m, x, y: x.mm(y.t()),
    "mm, mat2 without grad": lambda m, x, y: x.mm(y.detach().t()),
    "mm, self without grad": lambda m, x, y: x.detach().mm(y.t()),
    "addmm": lambda m, x, y: m.addmm(y[0, :2], x, y.t(), beta=0.5),
    "addmm, mat1 without grad": lambda m, x, y: m.addmm(y[0, :2], x.detach(), y.t()),
    "linear": lambda m, x, y: m.nn.functional.linear(x, y, y[0, :2]),
    "max(dim)": lambda m, x, y: x.max(1)[0],
    "min(dim, keepdim)": lambda m, x, y: x.min(0, keepdim=True)[0],
    "median(dim)": lambda m, x, y: x.median(1)[0],
    "kthvalue": lambda m, x, y: x.kthvalue(2, 1)[0],
    "max of a 0-dim tensor": lambda m, x, y: x[0, 0].max(0)[0],
    "squeeze(dim)": lambda m, x, y: x[:1].squeeze(0),
    "squeeze(dim) of a dim longer than 1": lambda m, x, y: x.squeeze(1),
    "squeeze(dims)": lambda m, x, y: x[:1].squeeze((0, 1)),
    "squeeze_(dim)": lambda m, x, y: (x[:1] * 1).squeeze_(0),
    "squeeze_(dims)": lambda m, x, y: (x[:1] * 1).squeeze_((0, 1)),
    "a vector times a matrix": lambda m, x, y: x[0] @ y.t(),
    "conv2d": lambda m, x, y: m.nn.functional.conv2d(x[None, None], y[None, None, :, :2], padding=1),
    "conv2d with a bias, stride 2": lambda m, x, y: m.nn.functional.conv2d(
        x[None, None], y[None, None, :, :2], y[0, :1], stride=2, padding=(0, 1)),
    "conv2d 'same', even kernel": lambda m, x, y: m.nn.functional.conv2d(x[None, None], y[None, None], padding="same"),
    "conv1d 'same', even kernel": lambda m, x, y: m.nn.functional.conv1d(x[None], y[None, :, :2], padding="same"),
    "conv_transpose2d": lambda m, x, y: m.nn.functional.conv_transpose2d(x[None, None], y[None, None], padding=1),
    "var()": lambda m, x, y: x.var(),
    "std(keepdim)": lambda m, x, y: x.std(keepdim=True),
    "var(dim)": lambda m, x, y: x.var(1),
    "var(unbiased=False)": lambda m, x, y: x.var(unbiased=False),
    "std(correction=0)": lambda m, x, y: x.std(0, correction=0),
    "std_mean()": lambda m, x, y: m.std_mean(x)[0],
    "var_mean(dim)": lambda m, x, y: m.var_mean(x, 1)[1],
    "nansum()": lambda m, x, y: x.nansum(),
    "sum(dtype)": lambda m, x, y: x.sum(dtype=m.float32),
    "sum(dim, dtype)": lambda m, x, y: x.sum(1, dtype=m.float32),
    "mean(dtype)": lambda m, x, y: x.mean(dtype=m.float32),
    "prod(dim, dtype)": lambda m, x, y: x.prod(1, dtype=m.float32),
    "sum(())": lambda m, x, y: x.sum(()),
    "mean((), keepdim)": lambda m, x, y: x.mean((), keepdim=True),
    "amax()": lambda m, x, y: x.amax(),
    "amin(dim)": lambda m, x, y: x.amin(1, keepdim=True),
    "nll_loss": lambda m, x, y: m.nn.functional.nll_loss(x, m.tensor([0, 2])),
    "nll_loss, weights and an ignored target": lambda m, x, y: m.nn.functional.nll_loss(
        x, m.tensor([1, -100]), weight=y[0].detach().abs()),
    "nll_loss, reduction 'none'": lambda m, x, y: m.nn.functional.nll_loss(x, m.tensor([0, 2]), reduction="none"),
    "cross_entropy": lambda m, x, y: m.nn.functional.cross_entropy(x, m.tensor([0, 2])),
    "max_pool2d": lambda m, x, y: m.nn.functional.max_pool2d(x[None], 2),
    "max_pool2d with a stride": lambda m, x, y: m.nn.functional.max_pool2d(x[None], 2, 1, 1, ceil_mode=True),
    "layer_norm": lambda m, x, y: m.nn.functional.layer_norm(x, (3,), y[0], y[1]),
    "layer_norm without weight": lambda m, x, y: m.nn.functional.layer_norm(x, (2, 3)),
    "batch_norm, training": lambda m, x, y: m.nn.functional.batch_norm(x, None, None, y[0], y[1], training=True),
    "batch_norm, evaluation": lambda m, x, y: m.nn.functional.batch_norm(x, y[0].detach(), y[1].detach().abs(),
                                                                         training=False),
    "group_norm": lambda m, x, y: m.nn.functional.group_norm(x[None], 1, y[0, :2], y[1, :2]),
    "group_norm of an empty batch": lambda m, x, y: m.nn.functional.group_norm(x[:0, None], 1),
    "cross_entropy, label smoothing": lambda m, x, y: m.nn.functional.cross_entropy(x, m.tensor([0, -100]),
                                                                                     label_smoothing=0.2),
    "cross_entropy, probabilities": lambda m, x, y: m.nn.functional.cross_entropy(x, y.detach().softmax(1)),
    "cross_entropy, probabilities summed": lambda m, x, y: m.nn.functional.cross_entropy(x, y.detach().softmax(1),
                                                                                          reduction="sum"),
    "avg_pool2d": lambda m, x, y: m.nn.functional.avg_pool2d(x[None], 2),
    "avg_pool2d with a stride": lambda m, x, y: m.nn.functional.avg_pool2d(x[None], 2, stride=1, padding=1),
    "embedding": lambda m, x, y: m.nn.functional.embedding(m.tensor([0, 1, 1]), x),
    "embedding, padding_idx": lambda m, x, y: m.nn.functional.embedding(m.tensor([1]), x, padding_idx=-1,
                                                                        scale_grad_by_freq=True),
    "embedding's gradient": lambda m, x, y: m.autograd.grad(m.nn.functional.embedding(m.tensor([0, 1]), x * y, 0), x,
                                                            y, create_graph=True)[0],
}


def _view_changed(tensor, change):
    change(tensor)
    return tensor


def _setitem(tensor, key, value):
    tensor[key] = value
    return tensor


def _value(v):
    if isinstance(v, (al.Tensor, torch.Tensor)):
        values = np.asarray(v.detach().tolist())  # (floats to 10 decimals: the kernels' rounding differs)
        return ("tensor", tuple(v.shape), str(v.dtype).split(".")[-1],
                (values.round(10) if values.dtype.kind == "f" else values).tolist())
    if isinstance(v, (tuple, list)):
        return tuple(_value(x) for x in v)
    if isinstance(v, int) and v >= 2 ** 63:  # (PyTorch shows a saved -1 as an unsigned 64-bit number)
        return v - 2 ** 64
    return v


def graph(root) -> list:
    """The nodes reachable from ``root`` in breadth-first order: (name, edges as (name, position), saved values)."""
    order, position, queue = [], {}, [root]
    while queue:
        node = queue.pop(0)
        if node is not None and id(node) not in position:
            position[id(node)] = len(order)
            order.append(node)
            queue.extend(child for child, _ in node.next_functions)
    return [(node.name(),
             tuple(None if child is None else (child.name(), position[id(child)], nr) for child, nr in node.next_functions),
             {n: _value(getattr(node, n)) for n in dir(node) if n.startswith("_saved_")})
            for node in order]


def test_sum_keeps_an_integer_dtype_it_is_given():
    for m in (al, torch):
        assert str(m.tensor([True, True]).sum(dtype=m.int32).dtype).split(".")[-1] == "int32"
        assert str(m.tensor([1, 2], dtype=m.int32).sum(0).dtype).split(".")[-1] == "int64"


def test_var_over_an_empty_dim_list_reduces_every_dim():
    # (torch.var(x, []) reduces all too; its saved dim is () there, and its gradient is nan: a PyTorch bug)
    x = _leaf(al, 2, 3)
    y = x.var([])
    y.backward()
    expected = _leaf(torch, 2, 3)
    np.testing.assert_allclose(y.item(), expected.var().item())
    expected.var().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.grad.numpy())


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_graph_is_pytorchs(name):
    ours, theirs = (PROGRAMS[name](m, _leaf(m, 2, 3), _leaf(m, 2, 3, seed=1)) for m in (al, torch))
    assert (ours.requires_grad, ours.is_leaf, ours._version) == (theirs.requires_grad, theirs.is_leaf, theirs._version)
    assert graph(ours.grad_fn) == graph(theirs.grad_fn)
