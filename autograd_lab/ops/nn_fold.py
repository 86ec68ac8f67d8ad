"""Sliding blocks: ``unfold`` (im2col: every ``kernel_size`` block of an image as a column) and ``fold`` (col2im:
columns summed back into an image, where blocks overlap).

``unfold`` turns an (N, C, H, W) image into (N, C * kH * kW, L) columns, one per block position (L of them), so a
convolution is a matrix product with them: ``conv2d(x, w) == (w.view(O, -1) @ unfold(x, k)).view(N, O, oH, oW)``.
``fold`` is its adjoint: each column is added back at its block's place. So each is the other's derivative, and
PyTorch's nodes say so: the gradient of ``Im2ColBackward0`` is recorded as ``Col2ImBackward0`` and the other way
round. The kernels are those of :mod:`.nn_conv`: the strided view of every window (``_windows``) and the loop over
kernel offsets that adds the windows back (``_col2im``).
"""

from __future__ import annotations

from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op
from .nn_conv import _col2im, _out_size, _pad, _pair, _windows

__all__ = ["unfold", "fold"]


def _blocks(size, kernel, dilation, padding, stride) -> tuple:
    """How many block positions fit along each spatial dim."""
    return tuple(_out_size(size[i], kernel[i], stride[i], padding[i], padding[i], dilation[i]) for i in range(2))


def _im2col(xp, x, kernel, dilation, padding, stride):
    """(N, C, H, W) -> (N, C * kH * kW, L): each block as a column (rows run over channels, then the kernel)."""
    n, c, h, w = x.shape
    blocks = _blocks((h, w), kernel, dilation, padding, stride)
    padded = _pad(xp, x, (padding[0], padding[0], padding[1], padding[1]))
    win = _windows(xp, padded, kernel, stride, dilation, blocks)  # (N, C, kH, kW, bH, bW), a view
    return win.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])


def _col2im_of(xp, cols, output_size, kernel, dilation, padding, stride):
    """(N, C * kH * kW, L) -> (N, C, H, W): each column added back at its block's place."""
    n, rows, _ = cols.shape
    blocks = _blocks(output_size, kernel, dilation, padding, stride)
    windows = cols.reshape(n, rows // (kernel[0] * kernel[1]), kernel[0], kernel[1], blocks[0], blocks[1])
    pads = (padding[0], padding[0], padding[1], padding[1])
    return _col2im(xp, windows, output_size, kernel, stride, dilation, pads)


def _unbatched(kernel_fn, x, batched_ndim):
    """Run ``kernel_fn`` on ``x``, adding a batch dim of 1 (and taking it off again) when ``x`` has none."""
    return kernel_fn(x) if x.ndim == batched_ndim else kernel_fn(x[None])[0]


class Im2ColBackward0(Op):
    """out = every block of the (padded) input as a column: (N, C * kH * kW, L)"""
    saves = ("dilation", "kernel_size", "padding", "self_sym_argsize_minus_1", "self_sym_argsize_minus_2", "stride")

    def forward(xp, self, *, kernel_size, dilation, padding, stride, self_sym_argsize_minus_1,
                self_sym_argsize_minus_2):
        return _unbatched(lambda x: _im2col(xp, x, kernel_size, dilation, padding, stride), self, 4)

    def d_self(grad, dilation, kernel_size, padding, self_sym_argsize_minus_1, self_sym_argsize_minus_2, stride):
        return formulas.call(Col2ImBackward0, grad, output_size=(self_sym_argsize_minus_2, self_sym_argsize_minus_1),
                             kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)

    jvp = LINEAR


class Col2ImBackward0(Op):
    """out = the columns (N, C * kH * kW, L) added back into an ``(N, C, *output_size)`` image, block by block"""
    saves = ("dilation", "kernel_size", "padding", "stride")

    def forward(xp, self, *, output_size, kernel_size, dilation, padding, stride):
        return _unbatched(lambda cols: _col2im_of(xp, cols, output_size, kernel_size, dilation, padding, stride),
                          self, 3)

    def d_self(grad, dilation, kernel_size, padding, stride):
        return formulas.call(Im2ColBackward0, grad, kernel_size=kernel_size, dilation=dilation, padding=padding,
                             stride=stride, self_sym_argsize_minus_1=grad.shape[-1],
                             self_sym_argsize_minus_2=grad.shape[-2])

    jvp = LINEAR


def _geometry(op: str, kernel_size, dilation, padding, stride) -> tuple:
    """The four settings as pairs, checked as PyTorch checks them (in its words)."""
    values = []
    for name, value in (("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding),
                        ("stride", stride)):
        if not isinstance(value, int) and len(tuple(value)) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(tuple(value))}")
        values.append(_pair(value, name, op))
    kernel, dilation, padding, stride = values
    for (what, short), (a, b) in ((("kernel size", "kernel"), kernel), (("stride", "stride"), stride),
                                  (("dilation", "dilation"), dilation)):
        if a <= 0 or b <= 0:
            raise RuntimeError(f"{what} should be greater than zero, but got {short}_height: {a} {short}_width: {b}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}")
    return kernel, dilation, padding, stride


def _floating(op: str, kernel: str, x: Tensor) -> None:
    if x._data.dtype.kind in "iu":
        raise no_kernel(kernel, x.dtype, f"{op} is for floating-point tensors: convert first, e.g. x.float()")


@checked
def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Every ``kernel_size`` block of (N, C, H, W) images (or one (C, H, W) image) as a column, as ``F.unfold``:
    (N, C * kH * kW, L), L the number of block positions. ``fold`` with the same settings adds them back."""
    kernel, dilation, padding, stride = _geometry("unfold", kernel_size, dilation, padding, stride)
    shape = tuple(input.shape)
    if input.ndim not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    _floating("unfold", "im2col_out_cpu", input)
    blocks = _blocks(shape[-2:], kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {shape[-2:]}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, calculated shape of the array of sliding blocks as {blocks}, but its "
                           "components must be at least one. [autograd_lab] unfold: the (dilated) kernel is larger "
                           "than the padded input")
    return Im2ColBackward0.apply(input, kernel_size=kernel, dilation=dilation, padding=padding, stride=stride,
                                 self_sym_argsize_minus_1=shape[-1], self_sym_argsize_minus_2=shape[-2])


@checked
def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Columns (N, C * kH * kW, L) (or (C * kH * kW, L)) added back into ``(N, C, *output_size)`` images, block by
    block, as ``F.fold``; where blocks overlap their values add up. The adjoint of ``unfold``."""
    if not isinstance(output_size, int) and len(tuple(output_size)) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(tuple(output_size))}")
    size = _pair(output_size, "output_size", "fold")
    kernel, dilation, padding, stride = _geometry("fold", kernel_size, dilation, padding, stride)
    shape = tuple(input.shape)
    if input.ndim not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    _floating("fold", "col2im_out_cpu", input)
    if shape[-2] % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={shape[-2]} and kernel_size={kernel}. [autograd_lab] fold: its input "
                           "is (N, C * kH * kW, L)")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != shape[-1] or min(blocks) < 1:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"stride={stride}, expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {max(blocks[0], 0)} * {max(blocks[1], 0)} = "
                           f"{max(blocks[0], 0) * max(blocks[1], 0)}, but got input.size(2)={shape[-1]}. "
                           "[autograd_lab] fold: L must be the number of block positions in output_size")
    return Col2ImBackward0.apply(input, output_size=size, kernel_size=kernel, dilation=dilation, padding=padding,
                                 stride=stride)
