"""Tensors an op takes without differentiating them (a loss's target, an index, a mask) are saved as
PyTorch saves them: version-checked, so an in-place change before ``backward()`` is an error rather
than a silently different gradient; and ``_saved_<name>`` reads as PyTorch's."""

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _cases(m):
    """(name, build(m) -> (loss, the tensor changed in place afterwards), saved attribute, its expected value)"""
    F = m.nn.functional
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    table = rng.standard_normal((5, 2))

    def leaf(a):
        return m.tensor(a, requires_grad=True)

    def nll_target():
        t = m.tensor([0, 1, 3])
        return F.nll_loss(leaf(x).log_softmax(1), t), t

    def nll_weight():
        w = m.tensor([1.0, 2.0, 0.5, 1.5], dtype=m.float64)
        return F.cross_entropy(leaf(x), m.tensor([0, 1, 3]), weight=w), w

    def gather():
        i = m.tensor([[0, 1], [2, 3], [1, 1]])
        return leaf(x).gather(1, i).sum(), i

    def scatter_add():
        i = m.tensor([[0, 1], [2, 3], [1, 1]])
        return m.zeros(3, 4, dtype=m.float64).scatter_add(1, i, leaf(x[:, :2])).pow(2).sum(), i

    def embedding():
        i = m.tensor([[0, 4], [2, 2]])
        return F.embedding(i, leaf(table)).pow(2).sum(), i

    def masked_fill():
        mask = m.tensor(x > 0)
        return leaf(x).masked_fill(mask, 0.0).pow(2).sum(), mask

    def masked_fill_tensor_value():
        mask = m.tensor(x > 0)
        return leaf(x).masked_fill(mask, leaf(np.array(2.0))).pow(2).sum(), mask

    def index():
        i = m.tensor([0, 2, 2])
        return (leaf(x)[i] ** 2).sum(), i

    def index_two_dims():
        i = m.tensor([1, 3])
        return (leaf(x)[:, i] ** 2).sum(), i

    def index_mask():
        mask = m.tensor(x > 0)
        return (leaf(x)[mask] ** 2).sum(), mask

    def index_put():
        i = m.tensor([0, 2])
        return (leaf(x).index_put((i,), leaf(np.ones(4)), accumulate=True) ** 2).sum(), i

    return {"index": index, "index, second dim": index_two_dims, "index, mask": index_mask, "index_put": index_put,
            "nll_loss target": nll_target, "nll_loss weight": nll_weight, "gather": gather,
            "scatter_add": scatter_add, "embedding": embedding, "masked_fill": masked_fill,
            "masked_fill tensor value": masked_fill_tensor_value}


CHANGE = {"nll_loss weight": lambda t: t.mul_(2), "masked_fill": lambda t: t.zero_(), "index, mask": lambda t: t.zero_(),
          "masked_fill tensor value": lambda t: t.zero_()}


@pytest.mark.parametrize("name", sorted(_cases(al)))
def test_changing_a_saved_tensor_parameter_in_place_is_caught_as_in_torch(name):
    messages = []
    for m in (torch, al):
        loss, param = _cases(m)[name]()
        CHANGE.get(name, lambda t: t.fill_(1))(param)
        with pytest.raises(RuntimeError) as caught:
            loss.backward()
        messages.append(str(caught.value))
    for text in messages:
        assert "modified by an inplace operation" in text and "is at version 1; expected version 0" in text


@pytest.mark.parametrize("name", sorted(_cases(al)))
def test_without_changes_the_gradients_match_torch(name):
    grads = []
    for m in (torch, al):
        loss, _ = _cases(m)[name]()
        node = loss.grad_fn
        leaves = []
        stack = [node]
        while stack:  # the leaves of this small graph, in a fixed order
            n = stack.pop()
            for child, _ in n.next_functions:
                if child is not None and hasattr(child, "variable"):
                    leaves.append(child.variable)
                elif child is not None:
                    stack.append(child)
        loss.backward()
        grads.append([leaf.grad.numpy() if m is torch else leaf.grad._data for leaf in leaves])
    assert len(grads[0]) == len(grads[1])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


def test_saved_parameters_read_as_torch_shows_them():
    for m in (torch, al):
        F = m.nn.functional
        x = m.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True).log_softmax(1)
        t = m.tensor([0, 1, 3])
        node = F.nll_loss(x, t, reduction="sum").grad_fn
        assert node._saved_reduction == 2 and node._saved_weight is None and node._saved_ignore_index % 2**64 == 2**64 - 100
        assert isinstance(node._saved_target, m.Tensor) and node._saved_target.tolist() == [0, 1, 3]
        assert F.mse_loss(x, x.detach(), reduction="none").grad_fn._saved_reduction == 0
        i = m.tensor([[0], [1], [2]])
        assert isinstance(x.gather(1, i).grad_fn._saved_index, m.Tensor)



def test_index_keys_read_and_differentiate_twice_as_in_torch():
    """``_saved_indices`` is a tuple of the index tensors (None for a whole dim), and a double backward
    goes through the saved key (IndexBackward0 -> IndexBackwardBackward0 -> IndexBackward0)."""
    out = []
    for m in (torch, al):
        x = m.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        i = m.tensor([2, 0, 2])
        node = x[:, i[:2]].grad_fn
        assert node.name() == "IndexBackward0" and node._saved_indices[0] is None
        assert node._saved_indices[1].tolist() == [2, 0]
        y = (x[i] ** 3).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        out.append((g.detach().numpy() if m is torch else g._data, x.grad.numpy() if m is torch else x.grad._data))
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            g.sum().backward()
    for a, b in zip(*out):
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("weight_dtype", ["float64", "int64"])
@pytest.mark.parametrize("shape", [(), (2,)])
def test_binary_cross_entropies_compute_in_the_input_dtype_whatever_the_weights(weight_dtype, shape):
    """PyTorch's kernels compute these losses in the input's dtype; NumPy would widen float32 by a float64
    or integer weight."""
    results = []
    for m in (torch, al):
        F = m.nn.functional
        a = m.tensor([0.5, -1.2], requires_grad=True)  # float32
        t = (-a).sigmoid().detach()
        w = m.tensor(np.full(shape, 2, dtype=weight_dtype))
        losses = [F.binary_cross_entropy(a.sigmoid(), t, weight=w, reduction="none"),
                  F.binary_cross_entropy_with_logits(a, t, weight=w, reduction="none"),
                  F.binary_cross_entropy_with_logits(a, t, pos_weight=w, reduction="none")]
        sum(loss.sum() for loss in losses).backward()
        results.append(([str(loss.dtype).split(".")[-1] for loss in losses], str(a.grad.dtype).split(".")[-1],
                        [loss.detach().numpy() if m is torch else loss._data for loss in losses],
                        a.grad.numpy() if m is torch else a.grad._data))
    (dt_t, gdt_t, val_t, g_t), (dt_a, gdt_a, val_a, g_a) = results
    assert dt_a == dt_t == ["float32"] * 3 and gdt_a == gdt_t == "float32"
    for x, y in zip(val_a, val_t):
        np.testing.assert_allclose(x, y, rtol=1e-6)
    np.testing.assert_allclose(g_a, g_t, rtol=1e-5)


def test_a_bce_weight_changed_in_place_is_caught_as_in_torch():
    for m in (torch, al):
        F = m.nn.functional
        a = m.tensor([0.5, -1.2], requires_grad=True)
        w, pw = m.tensor([1.0, 2.0]), m.tensor([3.0, 0.5])
        losses = [F.binary_cross_entropy(a.sigmoid(), a.detach().sigmoid(), weight=w),
                  F.binary_cross_entropy_with_logits(a, a.detach().sigmoid(), pos_weight=pw)]
        w.mul_(2)
        pw.mul_(2)
        for loss in losses:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                loss.backward(retain_graph=True)


def test_batch_norm_running_statistics_in_evaluation_are_saved_version_checked():
    """Evaluation normalises by the running statistics: changing them in place before backward is PyTorch's
    error."""
    for m in (torch, al):
        bn = m.nn.BatchNorm1d(3).eval()
        y = bn(m.randn(4, 3, requires_grad=True))
        assert isinstance(y.grad_fn._saved_running_mean, m.Tensor)
        bn.running_var.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_training_updates_running_statistics_as_pytorchs_kernel_does(momentum):
    """Training writes the running statistics without bumping their versions (PyTorch's kernel does; only
    ``num_batches_tracked.add_(1)`` counts), and saves them version-checked all the same: two training
    forwards before one backward work, an in-place change by the user before backward raises."""
    versions, stats = {}, {}
    for m in (torch, al):
        bn = m.nn.BatchNorm2d(3, momentum=momentum)
        x = m.tensor(np.random.default_rng(0).standard_normal((4, 3, 2, 2)), dtype=m.float32, requires_grad=True)
        y1, y2 = bn(x), bn(x * 2)
        assert isinstance(y1.grad_fn._saved_running_mean, m.Tensor)
        (y1.pow(2).sum() + y2.pow(2).sum()).backward()
        versions[m] = (bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version)
        stats[m] = (bn.running_mean.detach().numpy().copy(), bn.running_var.detach().numpy().copy(),
                    x.grad.numpy().copy())
        y = bn(x)
        bn.running_mean.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
    assert versions[al] == versions[torch]
    for ours, theirs in zip(stats[al], stats[torch]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)  # (x.grad is ~1e-5: float32 cancellation)
