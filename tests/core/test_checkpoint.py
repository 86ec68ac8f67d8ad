"""``al.utils.checkpoint``: the block really runs twice and its forward keeps only the inputs; gradients equal
the plain run's and PyTorch's; the warnings and errors are PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.utils.checkpoint import CheckpointError, checkpoint

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as torch_checkpoint  # noqa: E402


def _block(lib, counter):
    """A small block with dropout (random: the recomputation must draw the same mask)."""
    def block(x, w):
        counter[0] += 1
        h = lib.tanh(x @ w)
        h = lib.nn.functional.dropout(h, 0.5, training=True)
        return (h * h).exp()
    return block


def _run(lib, use_reentrant, checkpointed: bool = True, preserve: bool = True):
    """Loss and gradients of x and w through the block; how often its forward ran."""
    gen = np.random.default_rng(0)
    x = lib.tensor(gen.standard_normal((4, 3)), requires_grad=True)
    w = lib.tensor(gen.standard_normal((3, 5)), requires_grad=True)
    lib.manual_seed(0)
    counter = [0]
    block = _block(lib, counter)
    if checkpointed:
        module = torch_checkpoint if lib is torch else al.utils.checkpoint
        out = module.checkpoint(block, x, w, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    else:
        out = block(x, w)
    loss = out.sum()
    loss.backward()
    return loss.item(), x.grad.numpy().copy(), w.grad.numpy().copy(), counter[0]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_gradients_equal_the_plain_run_and_torchs_and_the_forward_runs_twice(use_reentrant):
    plain = _run(al, use_reentrant, checkpointed=False)
    ours = _run(al, use_reentrant)
    theirs = _run(torch, use_reentrant)
    assert plain[3] == 1 and ours[3] == 2 and theirs[3] == 2
    assert ours[0] == pytest.approx(plain[0])
    np.testing.assert_allclose(ours[1], plain[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], plain[2], rtol=1e-12)
    # torch draws other random numbers: compare with its plain run the same way instead
    theirs_plain = _run(torch, use_reentrant, checkpointed=False)
    np.testing.assert_allclose(theirs[1], theirs_plain[1], rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_without_the_rng_state_dropout_draws_another_mask_as_in_torch(use_reentrant):
    seen = []
    for lib, module in ((al, al.utils.checkpoint), (torch, torch_checkpoint)):
        x = lib.ones(64, requires_grad=True)
        lib.manual_seed(0)
        out = module.checkpoint(lambda t, lib=lib: lib.nn.functional.dropout(t, 0.5), x, use_reentrant=use_reentrant,
                                preserve_rng_state=False)
        out.sum().backward()
        seen.append(bool(((out != 0) == (x.grad != 0)).all()))
    assert seen == [False, False]


def _saved(lib, fn, *args) -> list:
    """The tensors saved for backward while ``fn`` runs, as an outer pair of saved-tensor hooks sees them."""
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
        fn(*args)
    return packed


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_the_forward_saves_only_the_inputs_as_in_torch(use_reentrant):
    def block(lib):
        return lambda x: (x.sin() * x.cos()).exp().sum()

    counts = {}
    for lib, module in ((al, al.utils.checkpoint), (torch, torch_checkpoint)):
        x = lib.ones(5, requires_grad=True)
        plain = _saved(lib, block(lib), x)
        kept = _saved(lib, lambda t, lib=lib, module=module: module.checkpoint(block(lib), t,
                                                                                use_reentrant=use_reentrant), x)
        counts[lib.__name__] = (len(plain), kept)
    assert counts["autograd_lab"] == counts["torch"]
    assert counts["autograd_lab"][0] > 1 and counts["autograd_lab"][1] == [(5,)]


def test_the_labs_snapshot_shows_no_saved_values_inside_the_block():
    from autograd_lab.lab.snapshot import snapshot
    from autograd_lab.nn.module import set_module_tagging

    def held_bytes(out) -> int:
        records = [s for node in snapshot(out).nodes.values() for s in node.saved if s.is_tensor]
        return sum(int(np.prod(s.shape)) * 8 for s in records if s.shape is not None)

    previous = set_module_tagging(False)
    try:
        x = al.randn(50, 50, dtype=al.float64, requires_grad=True)
        block = lambda t: (t @ t).tanh().exp()  # noqa: E731
        plain, kept = block(x), checkpoint(block, x, use_reentrant=False)
        assert held_bytes(plain) > 2 * 50 * 50 * 8 and held_bytes(kept) == 0
        assert all(s.packed for node in snapshot(kept).nodes.values() for s in node.saved if s.is_tensor)
    finally:
        set_module_tagging(previous)


def test_early_stop_recomputes_only_up_to_the_last_saved_tensor():
    ran = []

    def block(x):
        ran.append("exp")
        y = x.exp()  # saves its result
        ran.append("sum")
        return y.sum()  # saves no tensor: recomputation can stop before it

    x = al.ones(3, requires_grad=True)
    checkpoint(block, x, use_reentrant=False).backward()
    assert ran == ["exp", "sum", "exp"]
    ran.clear()
    checkpoint(block, x, use_reentrant=False, early_stop=False).backward()
    assert ran == ["exp", "sum", "exp", "sum"]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_backward_twice_recomputes_twice(use_reentrant):
    counter = [0]

    def block(x):
        counter[0] += 1
        return x.exp()

    x = al.ones(2, requires_grad=True)
    out = checkpoint(block, x, use_reentrant=use_reentrant).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert counter[0] == 3 and x.grad.tolist() == pytest.approx([2 * np.e] * 2)


def test_non_reentrant_works_with_grad_inputs_keyword_arguments_and_parameters():
    lin = al.nn.Linear(3, 2)
    x = al.randn(4, 3, requires_grad=True)
    out = checkpoint(lambda t, scale: lin(t) * scale, x, scale=3.0, use_reentrant=False).sum()
    gx, gw = al.autograd.grad(out, (x, lin.weight))
    plain = (lin(x) * 3.0).sum()
    ex, ew = al.autograd.grad(plain, (x, lin.weight))
    assert gx.allclose(ex) and gw.allclose(ew)


def _warning_texts(fn) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message).replace("torch.", "al.") for w in caught if w.category is UserWarning]


def test_use_reentrant_not_passed_warns_as_torch_and_runs_reentrant():
    for lib, module in ((al, al.utils.checkpoint), (torch, torch_checkpoint)):
        x = lib.ones(2, requires_grad=True)
        texts = _warning_texts(lambda m=module, x=x: m.checkpoint(lambda t: t.exp(), x))
        assert texts[0].startswith("al.utils.checkpoint: the use_reentrant parameter should be passed explicitly")
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 2))
        texts = _warning_texts(lambda m=module, s=seq, lib=lib: m.checkpoint_sequential(s, 2, lib.ones(1, 2)))
        assert texts[0].startswith("al.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should")
    out = _quiet(lambda: checkpoint(lambda t: t.exp(), al.ones(1, requires_grad=True)))
    assert out.grad_fn.name() == "CheckpointFunctionBackward"


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_errors_as_torch(lib):
    module, L = (al.utils.checkpoint, al) if lib == "al" else (torch_checkpoint, torch)
    x = L.ones(3, requires_grad=True)
    out = module.checkpoint(lambda t: t.exp(), x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match="When use_reentrant=True, .* is incompatible with .grad"):
        L.autograd.grad(out, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: s"):
        module.checkpoint(lambda t, s: t * s, x, s=2, use_reentrant=True)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when use_reentrant=False"):
        module.checkpoint(lambda t: t, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        module.checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="strict")
    assert _warning_texts(lambda: module.checkpoint(lambda t: t * 2, L.ones(2), use_reentrant=True)) == [
        "None of the inputs have requires_grad=True. Gradients will be None"]


def test_a_block_that_saves_something_else_when_recomputed_is_caught():
    calls = [0]

    def changing(x):
        calls[0] += 1
        return (x.repeat(calls[0]) ** 2).sum()

    x = al.ones(3, requires_grad=True)
    with pytest.raises(CheckpointError, match=r"(?s)Recomputed values .* different metadata.*shape': al.Size\(\[6\]\)"):
        checkpoint(changing, x, use_reentrant=False).backward()
    calls[0] = 0
    with pytest.raises(CheckpointError, match=r"(?s)Operations executed during the original forward:\n  aten::repeat"):
        checkpoint(changing, x, use_reentrant=False, debug=True).backward()


def test_context_fn_wraps_forward_and_recomputation():
    import contextlib
    entered = []

    @contextlib.contextmanager
    def note(name):
        entered.append(name)
        yield

    out = checkpoint(lambda t: t.exp(), al.ones(2, requires_grad=True), use_reentrant=False,
                     context_fn=lambda: (note("forward"), note("recompute")))
    out.sum().backward()
    assert entered == ["forward", "recompute"]


def test_under_no_grad_the_block_just_runs():
    x = al.ones(2, requires_grad=True)
    with al.no_grad():
        for reentrant in (False, True):
            assert not checkpoint(lambda t: t.exp(), x, use_reentrant=reentrant).requires_grad


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_sequential_matches_the_plain_model_and_torch(use_reentrant):
    grads = {}
    for lib, module in ((al, al.utils.checkpoint), (torch, torch_checkpoint)):
        lib.manual_seed(0)
        layers = [lib.nn.Linear(4, 4, dtype=lib.float64) for _ in range(4)]
        model = lib.nn.Sequential(*[m for layer in layers for m in (layer, lib.nn.Tanh())])
        with lib.no_grad():
            for i, layer in enumerate(layers):
                layer.weight.copy_(lib.tensor(np.random.default_rng(i).standard_normal((4, 4))))
                layer.bias.fill_(0.1 * i)
        x = lib.tensor(np.random.default_rng(9).standard_normal((3, 4)), requires_grad=True)
        module.checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant).pow(2).sum().backward()
        kept = x.grad.numpy().copy()
        x.grad = None
        model(x).pow(2).sum().backward()
        np.testing.assert_allclose(kept, x.grad.numpy(), rtol=1e-12)
        grads[lib.__name__] = kept
    np.testing.assert_allclose(grads["autograd_lab"], grads["torch"], rtol=1e-10)
