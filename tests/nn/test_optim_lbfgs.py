"""``LBFGS`` against PyTorch's on the Rosenbrock function: every step's loss, the weights, the function
evaluations and iterations counted, with a fixed step and with the strong-Wolfe line search; a state_dict
that resumes across the two libraries; the errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

START = (np.array([-1.2, 1.0]), np.array([[0.8], [1.3]]))  # the first coordinates, then the last two


def make(lib, options, start=START):
    """Rosenbrock in four variables, held in a vector and a column (and a parameter the loss never uses)."""
    head = lib.tensor(start[0], dtype=lib.float64, requires_grad=True)
    tail = lib.tensor(start[1], dtype=lib.float64, requires_grad=True)
    unused = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.LBFGS([head, tail, unused], **options)

    def closure():
        optimizer.zero_grad()
        x = lib.cat([head, tail.reshape(-1)])
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss
    return (head, tail, unused), optimizer, closure


def trajectory(lib, options, steps, start=START):
    params, optimizer, closure = make(lib, options, start)
    losses = [optimizer.step(closure).item() for _ in range(steps)]
    return [p.detach().numpy().copy() for p in params], losses, optimizer


OPTIONS = [dict(), dict(line_search_fn="strong_wolfe"), dict(lr=0.5, history_size=3, max_iter=7),
           dict(line_search_fn="strong_wolfe", history_size=2, max_iter=30, max_eval=40),
           dict(line_search_fn="strong_wolfe", lr=0.1, tolerance_change=1e-5), dict(max_iter=1, lr=0.01)]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_rosenbrock_steps_match_torch(options):
    ours, theirs = trajectory(al, options, steps=20), trajectory(torch, options, steps=20)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    # (the weights to 1e-8: 20 steps of curvature pairs carry the last bits in which the two libraries' dot products
    # differ; on an Intel Xeon they part by 3e-10 after 20 steps of the strong-Wolfe search, on an AMD EPYC they agree
    # to 1e-10; the same counts of evaluations and iterations below say both took the same path)
    for p, q in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(p, q, rtol=1e-8, atol=1e-12)
    assert ours[0][2].tolist() == [2.0, 3.0]  # no gradient: it is not moved
    state_a = ours[2].state[ours[2].param_groups[0]["params"][0]]
    state_b = theirs[2].state[theirs[2].param_groups[0]["params"][0]]
    assert sorted(state_a) == sorted(state_b)
    assert (state_a["func_evals"], state_a["n_iter"]) == (state_b["func_evals"], state_b["n_iter"])
    assert len(state_a["old_dirs"]) == len(state_b["old_dirs"]) <= ours[2].param_groups[0]["history_size"]
    np.testing.assert_allclose(state_a["d"].numpy(), state_b["d"].numpy(), rtol=1e-6, atol=1e-9)
    assert ours[2].param_groups[0] == {**theirs[2].param_groups[0], "params": ours[2].param_groups[0]["params"]}


def test_rosenbrock_minimum_is_found_with_the_line_search():
    """From the origin, the global minimum at (1, 1, 1, 1) (START above ends in the local one near
    (-0.78, 0.61, 0.38, 0.15), where the loss is 3.70, as PyTorch's does)."""
    weights, losses, _ = trajectory(al, dict(line_search_fn="strong_wolfe"), steps=5,
                                    start=(np.zeros(2), np.zeros((2, 1))))
    assert losses[0] == 3.0 and losses[-1] < 1e-10
    np.testing.assert_allclose(np.concatenate([weights[0], weights[1].ravel()]), np.ones(4), atol=1e-5)


def _convert(value, lib):
    if isinstance(value, dict):
        return {k: _convert(v, lib) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v, lib) for v in value]
    if isinstance(value, (al.Tensor, torch.Tensor)):
        return lib.tensor(value.detach().numpy().copy(), dtype=getattr(lib, str(value.dtype).split(".")[-1]))
    return value


@pytest.mark.parametrize("options", OPTIONS[1:3], ids=["strong_wolfe", "fixed"])
def test_state_dict_resumes_across_the_libraries(options):
    """Three steps in torch, its state_dict and weights carried to autograd_lab (and back), three more steps:
    the losses of six steps in torch."""
    whole = trajectory(torch, options, steps=6)[1]
    for first, second in ((torch, al), (al, torch)):
        params, optimizer, closure = make(first, options)
        for _ in range(3):
            optimizer.step(closure)
        saved = _convert(optimizer.state_dict(), second)
        start = tuple(p.detach().numpy().copy() for p in params[:2])
        params, resumed, closure = make(second, options, start)
        resumed.load_state_dict(saved)
        np.testing.assert_allclose([resumed.step(closure).item() for _ in range(3)], whole[3:], rtol=1e-10)


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_lbfgs_errors(lib):
    w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options \\(parameter groups\\)"):
        lib.optim.LBFGS([{"params": [w]}, {"params": [b]}])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        lib.optim.LBFGS([w], lr=-1)
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        optimizer = lib.optim.LBFGS([w], line_search_fn="armijo")
        w.grad = lib.ones(2)
        optimizer.step(lambda: (w * w).sum())


def test_lbfgs_needs_a_closure_and_stops_at_once_when_optimal():
    w = al.zeros(2, requires_grad=True)
    optimizer = al.optim.LBFGS([w])
    for opt in (optimizer, torch.optim.LBFGS([torch.zeros(2, requires_grad=True)])):
        with pytest.raises(TypeError, match=r"LBFGS.step\(\) missing 1 required positional argument: 'closure'"):
            opt.step()
        with pytest.raises(TypeError, match="'NoneType' object is not callable"):
            opt.step(None)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optimizer.add_param_group({"params": [al.zeros(1, requires_grad=True)]})

    def closure():
        optimizer.zero_grad()
        loss = (w * w).sum()  # already at its minimum: a zero gradient
        loss.backward()
        return loss
    assert optimizer.step(closure).item() == 0.0
    assert optimizer.state[w] == {"func_evals": 1, "n_iter": 0} and w.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("order", ["scheduler first", "optimizer first"])
def test_a_scheduler_stepped_before_lbfgs_warns_as_torch(order):
    import warnings

    caught = {}
    for lib in (al, torch):
        _, optimizer, closure = make(lib, dict(max_iter=2))
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for _ in range(3):
                if order == "scheduler first":
                    scheduler.step()
                optimizer.step(closure)
                if order == "optimizer first":
                    scheduler.step()
        caught[lib] = [str(w.message) for w in seen if "before `optimizer.step()`" in str(w.message)]
    assert caught[al] == caught[torch] and len(caught[al]) == (order == "scheduler first")


def test_float32_steps_and_state_types_match_torch():
    """In float32 the scalars of the state (``H_diag``, ``ro``, the step ``t``) keep the parameters' dtype, as
    PyTorch's 0-dim tensors do; the losses agree to float32 rounding."""
    seen = {}
    for lib in (al, torch):
        a = lib.tensor(np.array([-1.2, 1.0, 0.8, 1.3]), dtype=lib.float32, requires_grad=True)
        optimizer = lib.optim.LBFGS([a], history_size=4)

        def closure(a=a, optimizer=optimizer):
            optimizer.zero_grad()
            loss = (100 * (a[1:] - a[:-1] ** 2) ** 2 + (1 - a[:-1]) ** 2).sum()
            loss.backward()
            return loss
        losses = [optimizer.step(closure).item() for _ in range(4)]
        state = optimizer.state[a]
        kinds = {k: (type(v).__name__, str(getattr(v, "dtype", "")).split(".")[-1]) for k, v in state.items()
                 if not isinstance(v, list)}
        seen[lib] = losses, kinds, [str(r.dtype).split(".")[-1] for r in state["ro"]]
    np.testing.assert_allclose(seen[al][0], seen[torch][0], rtol=1e-4)  # (20 iterations a step amplify roundings)
    assert seen[al][1:] == seen[torch][1:] and seen[al][2] == ["float32"] * 4


def test_loading_casts_the_history_to_the_parameters_dtype_as_torch():
    """A float64 run's state loaded into float32 parameters: the tensors in the history lists become float32 too."""
    dtypes = {}
    for lib in (al, torch):
        _, optimizer, closure = make(lib, dict(max_iter=4))
        optimizer.step(closure)
        saved = _convert(optimizer.state_dict(), lib)
        small = lib.zeros(6, dtype=lib.float32, requires_grad=True)
        target = lib.optim.LBFGS([small, lib.zeros(1, dtype=lib.float32, requires_grad=True),
                                  lib.zeros(1, dtype=lib.float32, requires_grad=True)])
        target.load_state_dict(saved)
        state = target.state[small]
        dtypes[lib] = [str(t.dtype).split(".")[-1] for t in state["old_dirs"] + state["ro"] + [state["d"]]]
    assert dtypes[al] == dtypes[torch] and set(dtypes[al]) == {"float32"}
