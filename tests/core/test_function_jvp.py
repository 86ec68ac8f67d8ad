"""What a custom Function's ``jvp`` may return, against PyTorch: the tangent of an input modified in place
(``mark_dirty``) is modified in place and returned as-is, an output viewing an input (or an input returned as-is)
gets a view of that input's tangent, a non-differentiable output gets ``None``, a tangent is a Tensor or ``None``.
Each rule broken raises PyTorch's error (a wrong tangent was kept silently before)."""

from __future__ import annotations

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")
fw = {al: al.autograd.forward_ad, torch: torch.autograd.forward_ad}


def _dirty_forward(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def _mark_output_dirty(ctx, x):
    y = x * 2
    ctx.mark_dirty(y)
    return y


def _non_differentiable(ctx, x):
    y = x * 2
    ctx.mark_non_differentiable(y)
    return y


def _non_differentiable_input(ctx, x):
    ctx.mark_non_differentiable(x)
    return x


CASES = {  # name: (forward, jvp)
    "identity, jvp returns a view of the tangent": (lambda ctx, x: x, lambda ctx, t: t.view_as(t)),
    "identity, jvp returns the tangent itself": (lambda ctx, x: x, lambda ctx, t: t),
    "identity, jvp returns a copy": (lambda ctx, x: x, lambda ctx, t: t.clone()),
    "a view, jvp returns a copy of the view": (lambda ctx, x: x[1:], lambda ctx, t: t[1:].clone()),
    "a view, jvp returns the same view": (lambda ctx, x: x[1:], lambda ctx, t: t[1:]),
    "a view, jvp returns a view of another tensor": (lambda ctx, x: x[1:], lambda ctx, t: (t * 1)[1:]),
    "a new tensor, jvp returns a view": (lambda ctx, x: x.clone(), lambda ctx, t: t.view_as(t)),
    "dirty, jvp modifies the tangent in place": (_dirty_forward, lambda ctx, t: t.mul_(2)),
    "dirty, jvp returns a new tangent": (_dirty_forward, lambda ctx, t: t * 2),
    "dirty, jvp returns the tangent unchanged": (_dirty_forward, lambda ctx, t: t),
    "dirty, jvp returns None": (_dirty_forward, lambda ctx, t: None),
    "dirty, jvp returns a modified view of the tangent": (_dirty_forward, lambda ctx, t: t.view_as(t).mul_(2)),
    "an output that is not an input marked dirty": (_mark_output_dirty, lambda ctx, t: t * 2),
    "non-differentiable output, jvp returns None": (_non_differentiable, lambda ctx, t: None),
    "non-differentiable output, jvp returns a tangent": (_non_differentiable, lambda ctx, t: t * 2),
    "non-differentiable input returned, jvp returns None": (_non_differentiable_input, lambda ctx, t: None),
    "an integer output, jvp returns a tangent": (lambda ctx, x: (x * 2, x.long()), lambda ctx, t: (t * 2, t)),
    "a non-tensor output, jvp returns a tangent": (lambda ctx, x: (x * 2, 3), lambda ctx, t: (t * 2, t)),
    "jvp returns a float": (lambda ctx, x: x * 2, lambda ctx, t: 3.0),
    "jvp returns a list": (lambda ctx, x: x * 2, lambda ctx, t: [t]),
}


def _run(m, forward, jvp, prepare):
    fn = type("Fn", (m.autograd.Function,), {"forward": staticmethod(forward), "jvp": staticmethod(jvp),
                                             "backward": staticmethod(lambda ctx, *grads: grads[0])})
    f = fw[m]
    try:
        with f.dual_level():
            x = prepare(m, f.make_dual(m.tensor([1.0, 2.0, 3.0]), m.tensor([0.0, 1.0, 2.0])))
            out = fn.apply(x)
            outs = out if isinstance(out, tuple) else (out,)
            return [f.unpack_dual(o).tangent.tolist() if isinstance(o, m.Tensor) and f.unpack_dual(o).tangent
                    is not None else None for o in outs]
    except RuntimeError as exc:
        return f"RuntimeError: {str(exc).split(' [autograd_lab]')[0]}"


@pytest.mark.parametrize("name", CASES)
def test_jvp_results_and_errors_match_torch(name):
    forward, jvp = CASES[name]
    prepare = (lambda m, x: x.clone()) if "dirty" in name else (lambda m, x: x)
    ours, theirs = _run(al, forward, jvp, prepare), _run(torch, forward, jvp, prepare)
    assert ours == theirs


def test_a_view_of_a_second_input_must_get_a_view_of_that_inputs_tangent():
    def forward(ctx, x, y):
        return y[:2]

    def jvp(ctx, x_t, y_t):
        return x_t[:2]  # the wrong input's tangent

    results = []
    for m in (al, torch):
        fn = type("Fn", (m.autograd.Function,), {"forward": staticmethod(forward), "jvp": staticmethod(jvp),
                                                 "backward": staticmethod(lambda ctx, g: (g, g))})
        f = fw[m]
        with f.dual_level(), pytest.raises(RuntimeError) as info:
            fn.apply(f.make_dual(m.ones(3), m.ones(3)) * 1, f.make_dual(m.ones(3), m.ones(3)) * 1)
        results.append(str(info.value))
    assert results[0] == results[1] == ("A custom Function is returning a view but the jvp is not returning a view "
                                        "of the given grad input.")


def test_dirty_input_without_a_tangent_takes_the_new_tangent_as_torch():
    def forward(ctx, x, y):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    results = []
    for m in (al, torch):
        fn = type("Fn", (m.autograd.Function,), {"forward": staticmethod(forward),
                                                 "jvp": staticmethod(lambda ctx, x_t, y_t: y_t * 2),
                                                 "backward": staticmethod(lambda ctx, g: (g, g))})
        f = fw[m]
        with f.dual_level():
            out = fn.apply(m.ones(2), f.make_dual(m.ones(2), m.tensor([1.0, 3.0])))
            results.append((out.tolist(), f.unpack_dual(out).tangent.tolist()))
    assert results[0] == results[1] == ([2.0, 2.0], [2.0, 6.0])
