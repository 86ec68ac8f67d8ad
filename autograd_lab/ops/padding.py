"""Padding (``F.pad``): grow (or, with negative amounts, crop) the last dimensions of a tensor.

``pad`` is a flat tuple read from the last dimension backwards: ``(left, right)`` pads the last dim,
``(left, right, top, bottom)`` the last two, and so on. Four modes, as PyTorch records them:

* ``constant``: ``ConstantPadNdBackward0``, new cells hold ``value``. Its derivative crops the gradient,
  which is the same op with the pads negated, so every order of derivative is this one op.
* ``reflect`` / ``replicate``: every output cell reads one input cell, through an index map per padded
  dim (mirror at the edge without repeating it, or repeat the edge). The forward gathers along that map;
  the derivative adds each output gradient back where its value was read (``...BackwardBackward0``), a
  linear map whose own derivative is the gather again. One pair of ops per number of padded dims (1-3),
  named as PyTorch's nodes (``ReflectionPad2DBackward0``...).
* ``circular``: composed as PyTorch composes it, of copies into slices of a new tensor (the interior, then
  each wrapped border), so its history is ``CopySlices`` and its derivative that of the copies.

Where this differs from PyTorch 2.13, on purpose: the ``...BackwardBackward0`` nodes have one edge (to
the incoming gradient), where PyTorch's also have one to ``self`` that always receives zeros; a circular
pad that would read a wrapped border from a region cropped away always raises PyTorch's "refer to a
single memory location" error, which PyTorch misses for some layouts (returning wrong values); cropping
a reflect pad below zero size raises the replicate message, where PyTorch reports an integer overflow;
``_saved_pad`` shows negative pads as negative ints, where PyTorch shows them wrapped as unsigned.
"""

from __future__ import annotations

from numbers import Integral, Real

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._op import LINEAR, Op

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")
_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _padded_dims(pad: tuple, ndim: int) -> list[tuple[int, int, int]]:
    """``(dim, before, after)`` for each padded dim, last dim first (the order of ``pad``)."""
    return [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


# -- constant ----------------------------------------------------------------------------------
class ConstantPadNdBackward0(Op):
    """out = x surrounded by ``value`` (negative pads crop x instead)"""
    saves = ("pad",)

    def forward(xp, self, *, pad, value):
        shape = list(self.shape)
        source, target = [slice(None)] * self.ndim, [slice(None)] * self.ndim
        for dim, before, after in _padded_dims(pad, self.ndim):
            size = self.shape[dim]
            shape[dim] = size + before + after
            source[dim] = slice(max(-before, 0), size - max(-after, 0))
            target[dim] = slice(max(before, 0), shape[dim] - max(after, 0))
        out = xp.full(shape, value, dtype=self.dtype)
        out[tuple(target)] = self[tuple(source)]
        return out

    def d_self(grad, pad):
        return formulas.call(ConstantPadNdBackward0, grad, pad=tuple(-p for p in pad), value=0)

    def f_self(tangent, pad):  # the tangent padded with zeros (the fill value is a constant)
        return formulas.call(ConstantPadNdBackward0, tangent, pad=pad, value=0)


# -- reflect and replicate: an index map per padded dim ---------------------------------------
def _reflect_source(size: int, before: int, after: int) -> list[int]:
    """Which input position each output position reads: mirrored at the edges, edge not repeated."""
    last = size - 1
    return [last - abs(last - abs(j)) for j in range(-before, size + after)]


def _replicate_source(size: int, before: int, after: int) -> list[int]:
    """Which input position each output position reads: the edge value repeated."""
    return [min(max(j, 0), size - 1) for j in range(-before, size + after)]


def _gather(xp, x, padding, source_of):
    """Pad ``x`` by reading, along each padded dim, the input position ``source_of`` names."""
    for dim, before, after in _padded_dims(padding, x.ndim):
        x = xp.take(x, xp.asarray(source_of(x.shape[dim], before, after), dtype=xp.int64), axis=dim)
    return x


def _scatter(xp, grad, padding, input_size, source_of):
    """The adjoint of ``_gather``: each output gradient is added to the input position it was read from.

    Along each dim the interior is one block copy; only the border positions (as many as the padding)
    are added one by one.
    """
    for dim, before, after in _padded_dims(padding, len(input_size)):
        size = input_size[dim]
        source = source_of(size, before, after)
        g = xp.moveaxis(grad, dim, -1)
        out = xp.zeros(g.shape[:-1] + (size,), dtype=grad.dtype)
        start, stop = max(before, 0), len(source) - max(after, 0)  # output positions read straight through
        if stop > start:
            out[..., source[start]:source[start] + stop - start] = g[..., start:stop]
        for position, read in enumerate(source):
            if not start <= position < stop:
                out[..., read] += g[..., position]
        grad = xp.moveaxis(out, -1, dim)
    return grad


class ReflectionPad1DBackward0(Op):
    """out = x with its last dim extended by mirror images of its ends (the end itself not repeated)"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _reflect_source)

    def d_self(grad, padding, self):
        return formulas.call(ReflectionPad1DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReflectionPad1DBackwardBackward0(Op):
    """out = the gradient of a 1-D reflection pad: each output gradient added where it was read"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _reflect_source)

    def d_grad(grad, padding):
        return formulas.call(ReflectionPad1DBackward0, grad, padding=padding)

    jvp = LINEAR


class ReflectionPad2DBackward0(Op):
    """out = x with its last two dims extended by mirror images of their ends"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _reflect_source)

    def d_self(grad, padding, self):
        return formulas.call(ReflectionPad2DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReflectionPad2DBackwardBackward0(Op):
    """out = the gradient of a 2-D reflection pad: each output gradient added where it was read"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _reflect_source)

    def d_grad(grad, padding):
        return formulas.call(ReflectionPad2DBackward0, grad, padding=padding)

    jvp = LINEAR


class ReflectionPad3DBackward0(Op):
    """out = x with its last three dims extended by mirror images of their ends"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _reflect_source)

    def d_self(grad, padding, self):
        return formulas.call(ReflectionPad3DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReflectionPad3DBackwardBackward0(Op):
    """out = the gradient of a 3-D reflection pad: each output gradient added where it was read"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _reflect_source)

    def d_grad(grad, padding):
        return formulas.call(ReflectionPad3DBackward0, grad, padding=padding)

    jvp = LINEAR


class ReplicationPad1DBackward0(Op):
    """out = x with its last dim extended by copies of its end values"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _replicate_source)

    def d_self(grad, padding, self):
        return formulas.call(ReplicationPad1DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReplicationPad1DBackwardBackward0(Op):
    """out = the gradient of a 1-D replication pad: the border gradients summed into the end values"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _replicate_source)

    def d_grad(grad, padding):
        return formulas.call(ReplicationPad1DBackward0, grad, padding=padding)

    jvp = LINEAR


class ReplicationPad2DBackward0(Op):
    """out = x with its last two dims extended by copies of their end values"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _replicate_source)

    def d_self(grad, padding, self):
        return formulas.call(ReplicationPad2DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReplicationPad2DBackwardBackward0(Op):
    """out = the gradient of a 2-D replication pad: the border gradients summed into the edge values"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _replicate_source)

    def d_grad(grad, padding):
        return formulas.call(ReplicationPad2DBackward0, grad, padding=padding)

    jvp = LINEAR


class ReplicationPad3DBackward0(Op):
    """out = x with its last three dims extended by copies of their end values"""
    saves = ("padding", "self")

    def forward(xp, self, *, padding):
        return _gather(xp, self, padding, _replicate_source)

    def d_self(grad, padding, self):
        return formulas.call(ReplicationPad3DBackwardBackward0, grad, padding=padding, self_sym_sizes=tuple(self.shape))

    jvp = LINEAR


class ReplicationPad3DBackwardBackward0(Op):
    """out = the gradient of a 3-D replication pad: the border gradients summed into the face values"""
    saves = ("padding",)

    def forward(xp, grad, *, padding, self_sym_sizes):
        return _scatter(xp, grad, padding, self_sym_sizes, _replicate_source)

    def d_grad(grad, padding):
        return formulas.call(ReplicationPad3DBackward0, grad, padding=padding)

    jvp = LINEAR


_INDEX_PADS = {
    "reflect": (ReflectionPad1DBackward0, ReflectionPad2DBackward0, ReflectionPad3DBackward0),
    "replicate": (ReplicationPad1DBackward0, ReplicationPad2DBackward0, ReplicationPad3DBackward0),
}


# -- circular: copies into slices, as PyTorch composes it -------------------------------------
def _circular(input: Tensor, pad: tuple) -> Tensor:
    """Wrap around: the left border repeats the right end and the right border the left end.

    The interior is copied into a new tensor first; then, dim after dim, each border is copied from the
    (already filled) opposite end of that new tensor, corners included.
    """
    dims = _padded_dims(pad, input.ndim)
    shape = list(input.shape)
    for dim, before, after in dims:
        shape[dim] += before + after
    out = Tensor._make(backend.namespace_of(input._data).zeros(shape, dtype=input._data.dtype))
    interior, source = out, input
    for dim, before, after in dims:
        interior = interior.narrow(dim, max(before, 0), shape[dim] - max(before, 0) - max(after, 0))
        source = source.narrow(dim, max(-before, 0), input.shape[dim] - max(-before, 0) - max(-after, 0))
    interior.copy_(source)
    for dim, before, after in dims:
        end = shape[dim] - max(after, 0)  # where the interior stops
        if before > 0:
            out.narrow(dim, 0, before).copy_(out.narrow(dim, end - before, before))
        if after > 0:
            out.narrow(dim, end, after).copy_(out.narrow(dim, max(before, 0), after))
    return out


# -- checks and the public function -----------------------------------------------------------
def _hint(input: Tensor, pad: tuple, mode: str, advice: str) -> str:
    return f" [autograd_lab] pad (mode={mode!r}) of an input of shape {tuple(input.shape)} by {pad}: {advice}"


def _check_arguments(input: Tensor, pad, mode, value) -> tuple:
    """PyTorch's argument checks: ``pad`` a sequence of ints, ``value`` a number, a known ``mode``."""
    if not isinstance(pad, (tuple, list)):
        kind = type(pad)
        name = kind.__name__ if kind.__module__ in ("builtins", "autograd_lab.tensor") else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {name}")
    for position, amount in enumerate(pad):
        if isinstance(amount, bool) or not isinstance(amount, Integral):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(amount).__name__} at pos {position}")
    if value is not None and not isinstance(value, Real):
        raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {type(value).__name__}")
    pad = tuple(int(p) for p in pad)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}" + _hint(
            input, pad, mode, f"mode must be one of {', '.join(map(repr, _MODES))}"))
    return pad


def _check_constant(input: Tensor, pad: tuple) -> None:
    for dim, before, after in _padded_dims(pad, input.ndim):
        if input.shape[dim] + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative." + _hint(
                input, pad, "constant", f"the negative pads ({before}, {after}) crop more than the {input.shape[dim]} "
                f"elements of dim {dim}; crop at most the size of each dim"))


def _check_index_pad(input: Tensor, pad: tuple, mode: str) -> None:
    """The checks of PyTorch's reflection / replication pads, with their messages."""
    n = len(pad) // 2
    op = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{n}d"
    if input.dtype is backend.bool_:
        raise NotImplementedError(f'"{op}" not implemented for \'Bool\'' + _hint(
            input, pad, mode, "convert the input to a number type first, e.g. input.float()"))
    batched = input.ndim == n + 2
    if 0 in input.shape[1 if batched else 0:]:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}" + _hint(
                               input, pad, mode, "only the batch dim may be empty"))
    dims = _padded_dims(pad, input.ndim)
    if mode == "reflect":
        for i, (dim, before, after) in enumerate(dims):
            if before >= input.shape[dim] or after >= input.shape[dim]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input dimension, but "
                    f"got: padding ({before}, {after}) at dimension {dim} of input {list(input.shape)}" + _hint(
                        input, pad, mode, "a reflection never repeats the edge, so each pad must be smaller than its "
                        "dim; use mode='replicate' or 'constant' for wider borders"))
    out = [input.shape[dim] + before + after for dim, before, after in dims]
    if max(out) < 1:
        names = "WHD"[:n]
        sizes = ", ".join(f"{names[i]}: {input.shape[dim]}" for i, (dim, _, _) in reversed(list(enumerate(dims))))
        if n == 3:
            sizes = sizes.replace(", ", " ", 1)  # (PyTorch's spacing, kept so its message matches)
        elif n == 2 and mode == "replicate":
            sizes += " "
        outs = " ".join(f"{names[i]}: {o}" for i, o in reversed(list(enumerate(out))))
        raise RuntimeError(f"input ({sizes}) is too small. Calculated output {outs}" + _hint(
            input, pad, mode, "the negative pads remove every element; crop less"))
    if min(out) < 0:
        shape = list(input.shape)
        for (dim, _, _), size in zip(dims, out):
            shape[dim] = size
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {shape}" + _hint(
            input, pad, mode, "the negative pads crop more than a dim holds; crop less"))


def _check_circular(input: Tensor, pad: tuple) -> None:
    for dim, before, after in reversed(_padded_dims(pad, input.ndim)):  # PyTorch checks the first padded dim first
        size = input.shape[dim]
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once." + _hint(
                input, pad, "circular", f"dim {dim} has {size} elements and is padded by ({before}, {after}); a "
                "circular pad may be at most the size of its dim"))
        if size + before + after < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension" + _hint(
                input, pad, "circular", f"the pads ({before}, {after}) crop more than the {size} elements of dim {dim}"))
    for dim, before, after in _padded_dims(pad, input.ndim):
        kept = input.shape[dim] + min(before, 0) + min(after, 0)
        if max(before, after) > kept:  # a border would be copied from cells that border itself overwrites
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
                "memory location. Please clone() the tensor before performing the operation." + _hint(
                    input, pad, "circular", f"dim {dim} keeps {kept} elements after cropping, fewer than its border "
                    f"({before}, {after}) wraps over; crop and pad in two calls"))


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims of ``input`` (``pad`` = (left, right, top, bottom, ...), last dim
    first), as ``F.pad``: ``mode`` is ``'constant'`` (with ``value``, default 0), ``'reflect'``,
    ``'replicate'`` or ``'circular'``. Negative amounts crop instead.

    Constant padding takes any number of dims; the other modes pad the last 1, 2 or 3 dims of an input
    with one or two more dims (an optional batch dim, then channels).
    """
    pad = _check_arguments(input, pad, mode, value)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2" + _hint(
            input, pad, mode, "give a (before, after) pair for each padded dim, last dim first"))
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}" + _hint(
                               input, pad, mode, "give at most one (before, after) pair per dim"))
    if mode == "constant":
        _check_constant(input, pad)
        return ConstantPadNdBackward0.apply(input, pad=pad, value=0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument' + _hint(
            input, pad, mode, "drop value=, or use mode='constant'"))
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  f"{_SUPPORTED}" + _hint(input, pad, mode, "pad the spatial dims of a (C, ...) "
                                                          "or (N, C, ...) input, or use mode='constant'"))
    if mode == "circular":
        _check_circular(input, pad)
        return _circular(input, pad)
    _check_index_pad(input, pad, mode)
    return _INDEX_PADS[mode][n - 1].apply(input, padding=pad)
