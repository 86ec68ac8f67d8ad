"""The custom Functions of the Function tests, each written once for a module ``m`` that is ``al`` or ``torch``
(``_fns(m)``), and the helpers that run a program in both libraries and compare what comes out."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd.function import once_differentiable

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def phrase(message: str) -> str:
    """PyTorch's part of one of our messages, spelled as PyTorch spells it."""
    return re.split(r"\s\[autograd_lab\]", message)[0].replace("al.", "torch.")


def same_error(program, *args):
    """``program(m, *args)`` raises the same type and text in both libraries; returns our message."""
    with pytest.raises(Exception) as theirs:
        program(torch, *args)
    with pytest.raises(type(theirs.value)) as ours:
        program(al, *args)
    assert phrase(str(ours.value)) == str(theirs.value)
    return str(ours.value)


def leaf(m, values, dtype="float64"):
    return m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)


def as_list(t):
    return None if t is None else t.detach().tolist()


@functools.cache
def _fns(m):
    """The custom Functions of these tests, defined for ``m`` (al or torch); received gradients are logged."""
    F = m.autograd.Function
    log = []

    class MulConst(F):  # a non-tensor argument, a saved input, an attribute on ctx
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            log.append(("needs", ctx.needs_input_grad, m.is_grad_enabled()))
            return x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            log.append(("backward grad mode", m.is_grad_enabled()))
            return grad * ctx.k, None

    class Cube(F):  # differentiable backward: second derivatives work
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    class ExpOut(F):  # saves its own output
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    class SinCos(F):  # two outputs
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            log.append(("sincos", as_list(g_sin), as_list(g_cos)))
            return g_sin * x.cos() - g_cos * x.sin()

    class SinCosNoMaterialize(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            log.append(("nomat", as_list(g_sin), as_list(g_cos)))
            grad = None
            if g_sin is not None:
                grad = g_sin * x.cos()
            if g_cos is not None:
                grad = -g_cos * x.sin() if grad is None else grad - g_cos * x.sin()
            return grad

    class WithIndex(F):  # a float output, an integer index output marked non-differentiable, a non-tensor
        @staticmethod
        def forward(ctx, x):
            index = m.tensor(np.argsort(x.detach().numpy()))
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(index)
            return x * 2, index, "label"

        @staticmethod
        def backward(ctx, grad, g_index, g_label):
            log.append(("index", as_list(g_index), g_index.dtype if g_index is not None else None, g_label))
            return grad * 2

    class Identity(F):  # returns its input as-is
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class MulInplace(F):  # modifies its input and says so
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Square(F):
        @staticmethod
        @once_differentiable_for(m)
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            log.append(("once grad mode", m.is_grad_enabled()))
            return 2 * x * grad

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

    class Scale(F):  # setup_context style, keyword argument with a default
        @staticmethod
        def forward(x, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            log.append(("setup", len(inputs), inputs[1], m.is_grad_enabled()))
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.scale, None

    return dict(MulConst=MulConst, Cube=Cube, ExpOut=ExpOut, SinCos=SinCos, SinCosNoMaterialize=SinCosNoMaterialize,
                WithIndex=WithIndex, Identity=Identity, MulInplace=MulInplace, Square=Square, Scale=Scale, log=log)


def once_differentiable_for(m):
    return once_differentiable if m is al else torch.autograd.function.once_differentiable


def run_log(m, program):
    log = _fns(m)["log"]
    log.clear()
    result = program(m, _fns(m))
    return result, list(log)


def both(program):
    """Run ``program(m, fns)`` in both libraries; return (ours, theirs) with what each Function logged."""
    return run_log(al, program), run_log(torch, program)


def assert_same(ours, theirs):
    if hasattr(theirs, "detach"):
        np.testing.assert_allclose(np.asarray(ours.detach().tolist()), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
        assert ours.requires_grad == theirs.requires_grad
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-12)
    else:
        assert ours == theirs
