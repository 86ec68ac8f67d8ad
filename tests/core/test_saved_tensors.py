"""Saved-tensor hooks, ``save_on_cpu`` and ``_raw_saved_*`` introspection, against PyTorch (issue 3).

Programs are written once for a module ``m`` (``al`` or ``torch``); what the hooks see and the
gradients they lead to must be PyTorch's.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import graph, saved
from autograd_lab.autograd.saved import SavedTensor

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def leaf(m, values):
    return m.tensor(values, dtype=m.float64, requires_grad=True)


def logging_hooks(m, log, tag=""):
    """Hooks that record each call (and the values packed) and pass the tensor through unchanged."""
    def pack(t):
        log.append((tag + "pack", t.detach().tolist()))
        return t

    def unpack(t):
        log.append((tag + "unpack", t.detach().tolist()))
        return t

    return m.autograd.graph.saved_tensors_hooks(pack, unpack)


def grads_close(ours, theirs):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a.tolist()), b.detach().numpy(), rtol=1e-12, atol=1e-12)


# -- saved_tensors_hooks ---------------------------------------------------------------------------
def test_pack_and_unpack_for_built_in_ops():
    def program(m):
        x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
        log = []
        with logging_hooks(m, log):
            y = (x * w).sum()
        packed = list(log)
        y.backward()
        return packed, log[len(packed):], x.grad, w.grad

    ours, theirs = program(al), program(torch)  # (the order of one op's saved tensors is the op's business)
    assert sorted(ours[0]) == sorted(theirs[0]) == [("pack", [1.0, 2.0]), ("pack", [3.0, 4.0])]
    assert sorted(ours[1]) == sorted(theirs[1]) == [("unpack", [1.0, 2.0]), ("unpack", [3.0, 4.0])]
    grads_close(ours[2:], theirs[2:])


def test_an_output_saved_by_its_own_op_goes_through_the_hooks():
    def program(m):
        x = leaf(m, [0.0, 1.0])
        log = []
        with logging_hooks(m, log):
            y = x.exp()
        y.sum().backward()
        return [name for name, _ in log], x.grad

    ours, theirs = program(al), program(torch)
    assert ours[0] == theirs[0] == ["pack", "unpack"]
    grads_close(ours[1:], theirs[1:])


def test_hooks_apply_to_custom_functions():
    def program(m):
        class Scaled(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, x * 10)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                x, ten_x = ctx.saved_tensors
                return grad * ten_x / x

        x, log = leaf(m, [1.0, 2.0]), []
        with logging_hooks(m, log):
            y = Scaled.apply(x)
        packed = list(log)
        y.sum().backward()
        return packed, log[len(packed):], x.grad

    ours, theirs = program(al), program(torch)
    assert ours[0] == theirs[0] == [("pack", [1.0, 2.0]), ("pack", [10.0, 20.0])]
    assert ours[1] == theirs[1] == [("unpack", [1.0, 2.0]), ("unpack", [10.0, 20.0])]
    grads_close(ours[2:], theirs[2:])


def test_hooks_belong_to_the_moment_of_saving():
    def program(m):
        x, w, log = leaf(m, [1.0]), leaf(m, [2.0]), []
        with logging_hooks(m, log):
            inside = x * w
        outside = x * w
        with logging_hooks(m, log, "late "):
            outside.sum().backward()  # saved without hooks: nothing to unpack through them
        inside.sum().backward()  # saved with hooks: unpacked through them, long after the context closed
        return [name for name, _ in log]

    assert program(al) == program(torch) == ["pack", "pack", "unpack", "unpack"]


def test_nested_hooks_the_innermost_wins():
    def program(m):
        x, w, log = leaf(m, [1.0]), leaf(m, [2.0]), []
        with logging_hooks(m, log, "outer "):
            with logging_hooks(m, log, "inner "):
                a = x * w
            b = x * w
        (a + b).sum().backward()
        return sorted(name for name, _ in log)

    expected = sorted(["inner pack"] * 2 + ["outer pack"] * 2 + ["inner unpack"] * 2 + ["outer unpack"] * 2)
    assert program(al) == program(torch) == expected


def test_hooks_are_per_thread():
    def program(m):
        x, w, log = leaf(m, [1.0]), leaf(m, [2.0]), []
        entered, computed = threading.Event(), threading.Event()

        def worker():
            with logging_hooks(m, log, "worker "):
                entered.set()
                computed.wait(10)  # the main thread computes while this thread's hooks are active
                x * w

        thread = threading.Thread(target=worker)
        thread.start()
        entered.wait(10)
        x * w  # not packed: the worker's hooks are the worker's
        computed.set()
        thread.join()
        return [name for name, _ in log]

    assert program(al) == program(torch) == ["worker pack", "worker pack"]


def test_pack_hook_results_may_be_anything():
    def program(m):
        x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
        store = {}

        def pack(t):
            store[len(store)] = t.detach().tolist()
            return len(store) - 1  # a key, not a tensor

        with m.autograd.graph.saved_tensors_hooks(pack, lambda key: m.tensor(store[key], dtype=m.float64)):
            y = (x * w * w).sum()
        y.backward()
        return x.grad, w.grad

    grads_close(program(al), program(torch))


# -- disable_saved_tensors_hooks -------------------------------------------------------------------
def test_disable_saved_tensors_hooks():
    for m in (al, torch):
        g = m.autograd.graph
        with g.disable_saved_tensors_hooks("no hooks in this block"):
            with pytest.raises(RuntimeError, match="^no hooks in this block$"):
                with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            (leaf(m, [1.0]) * leaf(m, [2.0])).sum().backward()  # saving without hooks is fine
            with g.disable_saved_tensors_hooks("inner"):
                pass
            with pytest.raises(RuntimeError, match="^no hooks in this block$"):  # the outer message is back
                with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with g.saved_tensors_hooks(lambda t: t, lambda t: t):  # usable again afterwards
            leaf(m, [1.0]) * leaf(m, [2.0])


def test_disabling_while_hooks_are_active_refuses_them():
    for m in (al, torch):
        g = m.autograd.graph
        with pytest.raises(RuntimeError, match="^hooks are off$"):
            with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                with g.disable_saved_tensors_hooks("hooks are off"):
                    leaf(m, [1.0]) * leaf(m, [2.0])


# -- save_on_cpu -----------------------------------------------------------------------------------
def _mlp(m, hooks=None):
    """A two-layer perceptron's loss and its parameters' gradients, optionally under ``hooks``."""
    rng = np.random.default_rng(7)
    data, target = m.tensor(rng.standard_normal((5, 3))), m.tensor(rng.standard_normal((5, 2)))
    params = [m.tensor(rng.standard_normal(s), requires_grad=True) for s in [(3, 4), (4,), (4, 2), (2,)]]
    w1, b1, w2, b2 = params

    def forward():
        hidden = (data @ w1 + b1).relu()
        out = (hidden @ w2 + b2).tanh()
        return ((out - target) ** 2).mean() + (w1 * w1).sum() * 0.01

    if hooks is None:
        loss = forward()
    else:
        with hooks:
            loss = forward()
    loss.backward()
    return [loss] + [p.grad for p in params]


def test_save_on_cpu_is_a_no_op_move_on_the_cpu():
    assert graph.save_on_cpu is saved.save_on_cpu
    for m in (al, torch):
        hooks = m.autograd.graph.save_on_cpu()
        x = m.ones(2, dtype=m.float64)
        device, packed = hooks.pack_hook(x)
        assert str(device) == "cpu" and packed is x  # nothing is copied on the CPU
        assert hooks.unpack_hook((device, packed)) is x


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_gives_the_same_gradients(pin_memory):
    plain = _mlp(al)
    hooks = al.autograd.graph.save_on_cpu(pin_memory=pin_memory)
    with_hooks = _mlp(al, hooks)
    for a, b in zip(plain, with_hooks):
        assert np.array_equal(a._data, b._data)
    grads_close(with_hooks, _mlp(torch, torch.autograd.graph.save_on_cpu(pin_memory=pin_memory)))
    assert not saved._hooks.stack  # the context was left cleanly
    grads_close(_mlp(al, hooks), with_hooks)  # and the object can be used again


class _CountingHooks:
    """A pair of hooks packaged as a subclass, the way PyTorch's tutorial on saved-tensor hooks writes them."""

    @staticmethod
    def make(m):
        class Counting(m.autograd.graph.saved_tensors_hooks):
            def __init__(self):
                self.packed = 0

                def pack(t):
                    self.packed += 1
                    return t.detach().clone()

                super().__init__(pack, lambda t: t)

        return Counting()


def test_saved_tensors_hooks_is_a_class_to_subclass_as_in_torch():
    counts, grads = [], []
    for m in (al, torch):
        hooks = _CountingHooks.make(m)
        assert isinstance(hooks, m.autograd.graph.saved_tensors_hooks)
        assert isinstance(m.autograd.graph.save_on_cpu(), m.autograd.graph.saved_tensors_hooks)
        x = m.tensor([0.5, 1.5], requires_grad=True)
        with hooks as entered:
            assert entered is None  # as PyTorch's __enter__
            with hooks:  # the same object, nested
                y = (x.exp() * x).sum()
        y.backward()
        counts.append(hooks.packed)
        grads.append(x.grad.detach().numpy())
        with m.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with hooks:
                    pytest.fail("saved-tensor hooks were entered inside disable_saved_tensors_hooks")
    assert counts[0] == counts[1] and counts[0] > 0
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_saving_to_disk_gives_identical_gradients(tmp_path):
    def disk_hooks(m, folder, written, loaded):
        def pack(t):
            path = folder / f"saved_{len(written)}.npy"
            np.save(path, t.detach().numpy())
            written.append(path)
            return path

        def unpack(path):
            loaded.append(path)
            return m.tensor(np.load(path))

        return m.autograd.graph.saved_tensors_hooks(pack, unpack)

    for m in (al, torch):
        folder = tmp_path / m.__name__
        folder.mkdir()
        written, loaded = [], []
        from_disk = _mlp(m, disk_hooks(m, folder, written, loaded))
        plain = _mlp(m)
        assert written and sorted(written) == sorted(loaded) == sorted(folder.iterdir())
        for a, b in zip(from_disk, plain):
            assert np.array_equal(np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy()))
    grads_close(_mlp(al, disk_hooks(al, tmp_path, [], [])), _mlp(torch))


# -- versions: what is checked when hooks are used -------------------------------------------------
def test_an_in_place_change_seen_through_the_hooks_raises():
    """The unpacked tensor is the one modified in place since saving: the gradient would use changed
    values. PyTorch does not check versions when hooks are set (it computes with the new values);
    autograd_lab raises its usual error, so that no error still means right gradients."""
    a = leaf(al, [1.0, 2.0]) * 1
    w = leaf(al, [3.0, 4.0])
    with al.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (a * w).sum()
    a.mul_(10)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.backward()

    ta = leaf(torch, [1.0, 2.0]) * 1
    tw = leaf(torch, [3.0, 4.0])
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        ty = (ta * tw).sum()
    ta.mul_(10)
    ty.backward()
    assert tw.grad.tolist() == [10.0, 20.0]  # what PyTorch silently computes: the modified values


def test_a_copy_made_by_the_pack_hook_is_not_affected_by_in_place_changes():
    def program(m):
        a = leaf(m, [1.0, 2.0]) * 1
        w = leaf(m, [3.0, 4.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = (a * w).sum()
        a.mul_(10)  # after saving: the packed copy still holds [1, 2]
        y.backward()
        return (w.grad,)

    theirs = program(torch)
    assert theirs[0].tolist() == [1.0, 2.0]
    grads_close(program(al), theirs)


def test_double_backward_through_hooks():
    def program(m):
        x = leaf(m, [1.0, 2.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = (x * x * x).sum()
        (gx,) = m.autograd.grad(y, x, create_graph=True)
        return m.autograd.grad(gx.sum(), x)

    grads_close(program(al), program(torch))


def test_unpack_hook_must_return_a_tensor():
    messages = []
    for m in (torch, al):
        x, w = leaf(m, [1.0]), leaf(m, [2.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = x * w
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        messages.append(str(info.value).split(" [autograd_lab]")[0])
    assert messages[0] == messages[1] == "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"


# -- _raw_saved_* introspection --------------------------------------------------------------------
PROGRAMS = {
    "mul": lambda m, x, w: x * w,
    "div": lambda m, x, w: x / w,
    "mm": lambda m, x, w: x @ w,
    "exp": lambda m, x, w: x.exp(),
    "relu": lambda m, x, w: x.relu(),
    "tanh": lambda m, x, w: x.tanh(),
    "sigmoid": lambda m, x, w: x.sigmoid(),
    "pow": lambda m, x, w: x.pow(2),
    "sum_dim": lambda m, x, w: x.sum(0),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_raw_saved_attributes_are_torchs(name):
    def make(m):
        values = [[1.0, -2.0], [3.0, 4.0]]
        return PROGRAMS[name](m, leaf(m, values), leaf(m, values)).grad_fn

    ours, theirs = make(al), make(torch)
    saved_names = {a[len("_saved_"):] for a in dir(theirs) if a.startswith("_saved_")}
    raw_names = {a[len("_raw_saved_"):] for a in dir(theirs) if a.startswith("_raw_saved_")}
    assert {attr for attr in saved_names if hasattr(ours, "_raw_saved_" + attr)} == raw_names
    for attr in raw_names:
        record = getattr(ours, "_raw_saved_" + attr)
        assert isinstance(record, SavedTensor)
        assert record.is_output == (attr == "result") and record.saved_version == 0
        np.testing.assert_allclose(np.asarray(getattr(ours, "_saved_" + attr).tolist()),
                                   getattr(theirs, "_saved_" + attr).detach().numpy())
    assert not hasattr(ours, "_raw_saved_nothing") and not hasattr(theirs, "_raw_saved_nothing")


def test_raw_saved_tensors_of_a_custom_function():
    def make(m):
        class Keep(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.save_for_backward(x, y, None)
                return y

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        return Keep.apply(leaf(m, [1.0])).grad_fn._raw_saved_tensors

    ours, theirs = make(al), make(torch)
    assert len(ours) == len(theirs) == 3
    assert [type(r).__name__ for r in theirs] == ["SavedTensor"] * 3 and theirs[2].data is None
    assert isinstance(ours[0], SavedTensor) and isinstance(ours[1], SavedTensor) and ours[2] is None  # None is kept as is
    assert [r.is_output for r in ours[:2]] == [False, True]


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "relu"])
def test_double_backward_through_a_hooked_saved_output(op):
    """A node's own output saved through hooks is unpacked attached to the node again, so a second
    derivative flows through it (it used to be recorded as not requiring grad: the output is saved
    before its grad_fn is set, and the second backward lost it)."""
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (al, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = getattr(x, op)()
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        g.sum().backward()
        grads.append(x.grad.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_no_class_attribute_takes_the_saved_prefix():
    """``dir(node)`` lists ``_saved_<name>`` for what a node saves (notebook 04 prints it): no method or
    class attribute of any node class may start with ``_saved_`` or ``_raw_saved_`` (one did: a helper),
    except the attributes ``Node`` defines for the names in the class's own ``saves``."""
    from autograd_lab.autograd.graph import Node, _SavedAttribute

    def classes(cls):
        yield cls
        for sub in cls.__subclasses__():
            yield from classes(sub)
    offending, checked = set(), 0
    for cls in classes(Node):
        for name, value in vars(cls).items():
            if not name.startswith(("_saved_", "_raw_saved_")):
                continue
            if isinstance(value, _SavedAttribute):
                checked += 1
                prefix = "_raw_saved_" if value.raw else "_saved_"
                assert name == prefix + cls.saves[value.index] == prefix + value.name, (cls, name)
            else:
                offending.add(f"{cls.__name__}.{name}")
    assert offending == {"BackwardCFunction._raw_saved_tensors"}  # that one is PyTorch's own ctx API
    assert checked > 200


def test_saved_attributes_and_dir_read_as_pytorchs():
    """Each name in ``saves`` reads as ``_saved_<name>``; ``_raw_saved_<name>`` exists for saved tensors
    only; ``dir`` lists exactly those (checked against PyTorch where it is installed)."""
    x = al.randn(3, requires_grad=True)
    node = (x * 2).grad_fn  # MulBackward0: saves other (the 2, a number) and self (not needed: None)
    listed = [n for n in dir(node) if n.startswith(("_saved_", "_raw_saved_"))]
    assert listed == ["_saved_other", "_saved_self"]
    with pytest.raises(AttributeError, match="'other' of MulBackward0 is not a saved tensor"):
        node._raw_saved_other  # noqa: B018
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute '_saved_nope'"):
        node._saved_nope  # noqa: B018
    y = x.exp()
    assert [n for n in dir(y.grad_fn) if n.startswith(("_saved_", "_raw_saved_"))] == ["_raw_saved_result", "_saved_result"]
    assert y.grad_fn._raw_saved_result.saved_version == 0
    torch = pytest.importorskip("torch")
    tx = torch.randn(3, requires_grad=True)
    for build in (lambda t: (t * t).grad_fn, lambda t: t.exp().grad_fn, lambda t: (t + 2).grad_fn):
        ours, theirs = build(x), build(tx)
        assert ([n for n in dir(ours) if n.startswith(("_saved_", "_raw_saved_"))]
                == [n for n in dir(theirs) if n.startswith(("_saved_", "_raw_saved_"))])


def test_a_subclass_that_saves_less_does_not_inherit_saved_attributes():
    from autograd_lab.ops.arithmetic import MulBackward0

    # (MulBackward0 saves self and other; this one only other. The leading underscore keeps this test's
    # class out of the op inventories that test_fast_paths checks.)
    class _OneBackward0(MulBackward0):
        saves = ("other",)

        def d_self(grad, other):
            return grad * other

        def d_other(grad, other):
            return grad

    a, b = al.randn(2, requires_grad=True), al.randn(2, requires_grad=True)
    node = _OneBackward0.apply(a, b).grad_fn
    assert node._saved_other.equal(b)
    with pytest.raises(AttributeError, match="'_OneBackward0' object has no attribute '_saved_self'"):
        node._saved_self  # noqa: B018
    assert "_saved_self" not in dir(node)


@pytest.mark.parametrize("op", ["tanh", "exp", "log", "sigmoid", "sqrt"])
def test_nodes_free_what_they_saved_unless_retained(op):
    x = al.tensor([0.5, 1.5], dtype=al.float64, requires_grad=True)
    y = getattr(x, op)()
    y.sum().backward(retain_graph=True)
    first = x.grad.clone()
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * first.numpy())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        getattr(y.grad_fn, "_saved_result" if hasattr(y.grad_fn, "_saved_result") else "_saved_self")


def test_saved_tensor_hooks_are_unpacked_once_per_backward_and_change_no_gradient():
    """Each unpack hook runs once per backward (the formulas then run on what it returned), and a backward
    through hooks computes exactly what one without them does."""
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)]

    def run(hooked):
        unpacked = []
        x, w = (al.tensor(v, requires_grad=True) for v in values)
        if hooked:
            with al.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: unpacked.append(t) or t):
                y = (x @ w.t()).tanh().pow(2).mean()
        else:
            y = (x @ w.t()).tanh().pow(2).mean()
        y.backward()
        return x.grad.numpy(), w.grad.numpy(), len(unpacked)

    plain, hooked = run(False), run(True)
    assert hooked[2] == 4  # mm: self and mat2; tanh: result; pow: self; each unpacked once
    for a, b in zip(plain[:2], hooked[:2]):
        assert np.array_equal(a, b)


def test_an_unpack_hook_changing_the_dtype_keeps_the_gradient_dtype():
    """A saved value unpacked in another dtype: the formulas run on tensors (PyTorch's promotion), once."""
    unpacked = []
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with al.autograd.graph.saved_tensors_hooks(lambda t: t.detach().double(), lambda t: unpacked.append(t) or t):
        y = x.exp()
    y.sum().backward()
    assert len(unpacked) == 1 and x.grad.dtype is al.float32
    assert np.allclose(x.grad.numpy(), np.exp([1.0, 2.0]))
    w = al.randn(2, 1, 3, 3, requires_grad=True)
    img = al.randn(1, 1, 5, 5, requires_grad=True)
    with al.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t.double()):
        al.nn.functional.conv2d(img, w).sum().backward()  # (both gradients: grad_input_mask, not requires_grad)
    gx, gw = img.grad, w.grad
    img.grad = w.grad = None
    al.nn.functional.conv2d(img, w).sum().backward()
    assert gx.dtype is al.float32 and np.allclose(gx.numpy(), img.grad.numpy(), rtol=1e-5)
    assert np.allclose(gw.numpy(), w.grad.numpy(), rtol=1e-5)


def test_mixed_dtypes_give_pytorchs_gradient_dtypes():
    """float32 times a float64 0-d tensor: NumPy would promote to float64 where PyTorch keeps float32."""
    a = al.ones(3, dtype=al.float32, requires_grad=True)
    b = al.tensor(2.0, dtype=al.float64, requires_grad=True)
    out = a * b
    assert out.dtype is al.float32
    out.sum().backward()
    assert a.grad.dtype is al.float32 and b.grad.dtype is al.float64
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.item() == 3.0
