"""Products of three tensors and distances within one batch: ``bilinear`` (``y = x1^T A x2 + b``, one matrix ``A`` per
output feature) and ``pdist`` (the distance between every two rows of a matrix).

``bilinear`` is built as PyTorch builds it: both inputs flattened to (rows, features), one ``_trilinear`` product
(``TrilinearBackward0``) of input1, the weight and input2, reshaped to the inputs' batch dims, plus the bias.
``_trilinear`` is a product of three tensors, each unsqueezed at its ``expand`` dims to a common number of dims,
summed over ``sumdim``. Each input's gradient is again such a product: of the gradient and the two other inputs,
summed over the dims the input lacks. So its derivatives, and theirs, are this op.

``pdist`` records ``PdistBackward0``; as in PyTorch its gradient (``PdistBackwardBackward0``) has no derivative.
"""

from __future__ import annotations

from .. import backend
from ..autograd import forward_ad, grad_mode
from ..autograd.graph import Node, gradient_edge
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import Op

__all__ = ["bilinear", "pdist"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_C_TYPES = {backend.float32: "float", backend.float64: "double", backend.float16: "c10::Half"}  # (PyTorch's words)


# -- _trilinear ----------------------------------------------------------------------------------------------------
def _subscripts(ndim: int, expand: tuple) -> str:
    """The einsum letters of an input that, unsqueezed at ``expand``, spans ``ndim`` dims: one per dim it has."""
    return "".join(_LETTERS[d] for d in range(ndim) if d not in expand)


class TrilinearBackward0(Op):
    """out = the product of ``i1``, ``i2``, ``i3``, each unsqueezed at its ``expand`` dims, summed over ``sumdim``
    (``unroll_dim`` is PyTorch's choice of loop, with no effect on the result)"""
    saves = ("expand1", "expand2", "expand3", "i1", "i2", "i3", "sumdim")

    def forward(xp, i1, i2, i3, *, expand1, expand2, expand3, sumdim, unroll_dim=1):
        ndim = i1.ndim + len(expand1)
        kept = "".join(_LETTERS[d] for d in range(ndim) if d not in sumdim)
        equation = f"{_subscripts(ndim, expand1)},{_subscripts(ndim, expand2)},{_subscripts(ndim, expand3)}->{kept}"
        return xp.einsum(equation, i1, i2, i3)

    def backward(grad, expand1, expand2, expand3, i1, i2, i3, sumdim, grad_input_mask):
        # each input's gradient: the product of the gradient (which lacks the summed dims) and the two other
        # inputs, summed over the dims that input lacks, which leaves exactly its own dims, in its order
        settings = {"expand1": expand1, "expand2": expand2, "expand3": expand3}
        grads = []
        for k, (name, input) in enumerate((("expand1", i1), ("expand2", i2), ("expand3", i3))):
            if not grad_input_mask[k]:
                grads.append(None)
                continue
            inputs = [i1, i2, i3]
            inputs[k] = grad
            own = dict(settings, **{name: tuple(sumdim)})
            grads.append(_full(formulas.call(TrilinearBackward0, *inputs, sumdim=tuple(settings[name]), **own), input))
        return tuple(grads)

    def jvp(tangents, i1, i2, i3, expand1, expand2, expand3, sumdim):  # trilinear: the product rule
        settings = {"expand1": expand1, "expand2": expand2, "expand3": expand3, "sumdim": sumdim}
        t1, t2, t3 = tangents
        return (formulas.call(TrilinearBackward0, t1, i2, i3, **settings)
                + formulas.call(TrilinearBackward0, i1, t2, i3, **settings)
                + formulas.call(TrilinearBackward0, i1, i2, t3, **settings))


def _full(grad, input):
    """A gradient summed over a dim only its input had comes out with size 1 there: broadcast to the input's shape."""
    return grad if tuple(grad.shape) == tuple(input.shape) else formulas.expand(grad, tuple(input.shape))


@checked
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``: inputs (..., in1) and
    (..., in2) with the same batch dims, weight (out, in1, in2), bias (out,)."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for dim in range(input1.ndim - 1):
        if input1.shape[dim] != input2.shape[dim]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: got "
                               f"{input1.shape[dim]} and {input2.shape[dim]}")
    if input1.shape[-1] != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.ndim and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    tensors = {"input1": input1, "input2": input2, "weight": weight, **({"bias": bias} if bias is not None else {})}
    if len({t.dtype for t in tensors.values()}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {_C_TYPES.get(t.dtype, t.dtype)}" for name, t in tensors.items()))
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match [autograd_lab] bilinear's weight is (out_features, "
                           f"in1_features, in2_features), got {weight.ndim} dims")
    output_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    rows1 = input1.reshape(-1, input1.shape[-1])
    rows2 = input2.reshape(-1, input2.shape[-1])
    out = TrilinearBackward0.apply(rows1, weight, rows2, expand1=(1, 3), expand2=(0,), expand3=(1, 2), sumdim=(2, 3))
    out = out.reshape(output_size)
    return out if bias is None else out + bias


# -- pdist ---------------------------------------------------------------------------------------------------------
def _pairs(xp, x):
    """Row indices (i, j) of every pair i < j, in PyTorch's order ((0, 1), (0, 2), ..., (1, 2), ...), and
    ``x[i] - x[j]`` (pairs, features)."""
    first, second = xp.triu_indices(x.shape[0], 1)
    return first, second, x[first] - x[second]


def _pair_derivative(xp, diff, p: float, result):
    """d distance / d diff, per pair and feature, as PyTorch's kernel gives it (0 where a distance is 0)."""
    dist = result[:, None]
    sign = xp.sign(diff)
    if p == 0:
        return xp.zeros_like(diff)
    if p == 1:
        return sign
    if p == float("inf"):
        return sign * (xp.abs(diff) == dist)
    safe = xp.where(dist == 0, 1, dist)
    with backend.np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            out = diff / safe
        elif p < 2:
            out = sign * xp.abs(diff) ** (p - 1) / safe ** (p - 1)
            out = xp.where((diff == 0) & (p < 1), 0, out)
        else:
            out = diff * xp.abs(diff) ** (p - 2) / safe ** (p - 1)
    return xp.where(dist == 0, 0, out).astype(diff.dtype, copy=False)


class PdistBackwardBackward0(Node):
    """The gradient of ``pdist``: PyTorch records it, and has no derivative for it."""

    def _backward(self, grad_outputs: tuple) -> tuple:
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented. [autograd_lab] pdist "
                                  "has first derivatives only, as in PyTorch; for a second, write the distances "
                                  "with (x[:, None] - x[None]).norm(dim=-1) and take the pairs above the diagonal")


class PdistBackward0(Op):
    """out[k] = || self[i] - self[j] ||_p for every pair of rows i < j (k counts the pairs in order)"""
    saves = ("p", "result", "self")

    def forward(xp, self, *, p):
        _, _, diff = _pairs(xp, self)
        size = diff.shape[1]
        if p == 0:
            return (diff != 0).sum(axis=1).astype(self.dtype)
        if p == float("inf"):
            return xp.abs(diff).max(axis=1) if size else xp.zeros(diff.shape[0], dtype=self.dtype)
        if p == 1:
            return xp.abs(diff).sum(axis=1)
        if p == 2:
            return xp.sqrt((diff * diff).sum(axis=1))
        return ((xp.abs(diff) ** p).sum(axis=1) ** (1 / p)).astype(self.dtype, copy=False)

    def d_self(grad, p, result, self):
        if not isinstance(grad, Tensor) and not isinstance(self, Tensor):
            return _pdist_grad(grad, self, p, result)
        tensors = [v for v in (grad, self, result) if isinstance(v, Tensor)]
        if forward_ad._state.level is not None and any(forward_ad.tangent_of(t) is not None for t in tensors):
            raise forward_ad.missing_rule("the derivative for '_pdist_backward' is not implemented. [autograd_lab] "
                                          "no forward derivative either: pdist has first derivatives only")
        data = _pdist_grad(*(formulas.array_of(v) for v in (grad, self)), p, formulas.array_of(result))
        out = Tensor._make(data)
        if grad_mode.is_grad_enabled() and any(isinstance(v, Tensor) and v.requires_grad for v in (grad, self, result)):
            out._grad_fn = PdistBackwardBackward0([gradient_edge(v) if isinstance(v, Tensor) else (None, 0)
                                                   for v in (grad, self, result)], [(data.shape, data.dtype)])
        return out

    def f_self(tangent, p, result, self):
        xp = backend.namespace_of(formulas.array_of(self))
        _, _, diff = _pairs(xp, formulas.array_of(self))
        _, _, change = _pairs(xp, formulas.array_of(tangent))
        return Tensor._make((_pair_derivative(xp, diff, p, formulas.array_of(result)) * change).sum(axis=1))


def _pdist_grad(grad, x, p, result):
    """Each pair's gradient times d distance / d diff, added to its first row and taken from its second."""
    xp = backend.namespace_of(x)
    first, second, diff = _pairs(xp, x)
    part = grad[:, None] * _pair_derivative(xp, diff, p, result)
    if p == 0:  # PyTorch's kernel writes 0 there whatever the gradient (a NaN one too), as it does where a distance
        part = xp.zeros_like(part)  # is 0 for the p of its power formulas (and, for p < 1, where a difference is 0)
    elif p not in (1.0, float("inf")):
        part = xp.where((result[:, None] == 0) | ((diff == 0) & (p < 1)), 0, part).astype(part.dtype, copy=False)
    out = xp.zeros_like(x)
    xp.add.at(out, first, part)
    xp.add.at(out, second, -part)
    return out


@checked
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm distance between every two rows of ``input`` (N, M): ``N * (N - 1) / 2`` values, the pairs
    (0, 1), (0, 2), ..., (N - 2, N - 1) in order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes [autograd_lab] got {input.dtype}: pass "
                           "input.float()")
    return PdistBackward0.apply(input, p=float(p))
