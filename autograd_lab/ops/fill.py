"""Ops that overwrite values: fill, zero, copy, masked fill, index put and random fills.

They are the out-of-place forms behind ``zero_``, ``fill_``, ``copy_``, ``masked_fill_``,
``index_put_``, ``uniform_``, ``normal_`` and ``tensor[key] = value``: each computes the new values
as a fresh array, and the in-place machinery (:mod:`autograd_lab.ops.inplace`) writes them into the
tensor and rewrites its history. What was overwritten gets a zero gradient; what was written gets
the gradient of the places it landed in.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .indexing import IndexBackward0


class ZeroBackward0(Op):
    """out = zeros shaped like self"""

    def forward(xp, self):
        return xp.zeros_like(self)

    def d_self(grad):
        return formulas.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class FillBackward2(Op):
    """out = self's shape filled with a number"""

    def forward(xp, self, *, value):
        return xp.full_like(self, value)

    def d_self(grad):
        return formulas.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class FillBackward3(Op):
    """out = self's shape filled with the value of a 0-dim tensor"""

    def forward(xp, self, value):
        return xp.full_like(self, value.reshape(()))

    def d_self(grad):
        return formulas.zeros_like(grad)

    def d_value(grad):
        return formulas.sum(grad)

    f_self = d_self

    def f_value(tangent):  # the value's tangent everywhere
        return tangent


class CopyBackwards(Op):
    """out = src broadcast to self's shape and converted to self's dtype (``copy_``)"""

    written_in_cpp = True  # (its name is torch::autograd::CopyBackwards, as PyTorch's)

    def forward(xp, self, src):
        # PyTorch's phrases (fix: these used to be expand's, which copy_ does not give): sizes that
        # cannot broadcast, or a broadcast result bigger than the destination.
        ndim = max(self.ndim, src.ndim)
        dst_shape, src_shape = (1,) * (ndim - self.ndim) + self.shape, (1,) * (ndim - src.ndim) + src.shape
        for dim, (a, b) in enumerate(zip(dst_shape, src_shape)):
            if a != b and 1 not in (a, b):
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim} "
                    f"[autograd_lab] copy_ cannot write a tensor of shape {tuple(src.shape)} into one of shape "
                    f"{tuple(self.shape)}: the source must broadcast to the destination's shape"
                )
        wide = tuple(a if b == 1 else b for a, b in zip(dst_shape, src_shape))  # (a size 1 broadcasts to 0 too)
        if wide != self.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(wide)} [autograd_lab] "
                f"copy_ writes a tensor of shape {tuple(src.shape)} into one of shape {tuple(self.shape)}: the source "
                "must broadcast to the destination's shape without growing it"
            )
        return xp.broadcast_to(src, self.shape).astype(self.dtype, copy=True)

    def d_self(grad):
        return formulas.zeros_like(grad)

    def d_src(grad):
        return grad  # the engine sums it to src's shape and casts it to src's dtype

    f_self, f_src = d_self, d_src  # the tangent of src, broadcast and converted as the values are


def _mask_array(mask, op: str):
    if not isinstance(mask, Tensor) or mask.dtype is not backend.bool_:
        got = mask.dtype.name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(
            f"{op} only supports boolean masks, but got mask with dtype {_c_name(got)} "
            f"[autograd_lab] build the mask with a comparison (x > 0) or convert it with .bool()"
        )
    return mask._data


def _c_name(name: str) -> str:
    """PyTorch names dtypes in this message the C way (``long int``)."""
    return {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "float32": "float", "float64": "double", "float16": "c10::Half"}.get(name, name)


class MaskedFillBackward0(Op):
    """out = self with ``value`` (a number) where ``mask`` is True"""
    saves = ("mask",)
    tensor_params = ("mask",)  # saved version-checked, as PyTorch does

    def forward(xp, self, *, mask, value):
        return xp.asarray(xp.where(mask, xp.asarray(value).astype(self.dtype), self), order="C")  # (contiguous, as PyTorch's)

    def d_self(grad, mask):
        return formulas.where(mask, 0.0, grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class MaskedFillBackward1(Op):
    """out = self with the value of a 0-dim tensor where ``mask`` is True"""
    saves = ("mask",)
    tensor_params = ("mask",)

    def forward(xp, self, value, *, mask):
        return xp.asarray(xp.where(mask, value.reshape(()).astype(self.dtype), self), order="C")  # (as above)

    def d_self(grad, mask):
        return formulas.where(mask, 0.0, grad)

    def d_value(grad, mask):
        return formulas.sum(formulas.where(mask, grad, 0.0))

    f_self = d_self

    def f_value(tangent, mask):  # the value's tangent where it was written
        return formulas.where(mask, tangent, 0.0)


@checked
def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` written where ``mask`` is True (``value``: a number or a 0-dim tensor)."""
    _mask_array(mask, "masked_fill_")  # (checks the mask; the op takes the tensor, to save it version-checked)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                "dimension(s)."
            )
        return MaskedFillBackward1.apply(input, value, mask=mask)
    return MaskedFillBackward0.apply(input, mask=mask, value=backend.check_scalar(value, input.dtype, "masked_fill_"))


class IndexPutBackward0(Op):
    """out = self with ``values`` written (or added, with ``accumulate``) at ``indices``"""
    saves = ("accumulate", "indices")
    tensor_params = ("indices",)  # the index tensors are saved version-checked, as PyTorch does

    def forward(xp, self, values, *, indices, accumulate):
        out = self.copy()
        try:
            if accumulate:
                xp.add.at(out, indices, values.astype(self.dtype, copy=False))
            else:
                out[indices] = values
        except ValueError:  # (NumPy's broadcast error: PyTorch's words, with both shapes)
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(self[indices].shape)}") from None
        return out

    def d_self(grad, accumulate, indices):
        if accumulate:
            return grad
        return formulas.call(IndexPutBackward0, grad, formulas.zeros((), grad), indices=indices, accumulate=False)

    def d_values(grad, indices):
        return formulas.call(IndexBackward0, grad, indices=indices)  # the engine sums it to the values' shape

    jvp = LINEAR  # the tangents of self and values, put the same way


@checked
def index_put(input: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` put at ``indices`` (a tuple of index tensors), out of place."""
    from .indexing import _index_item
    xp = backend.namespace_of(input._data)
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): indices must be a tuple of tensors, got {type(indices).__name__}")
    key = tuple(_index_item(i, xp) for i in indices)
    if not isinstance(values, Tensor):
        values = Tensor._make(xp.asarray(values, dtype=input._data.dtype))
    if values.dtype != input.dtype and not _fills_mask(key, values, accumulate):
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{backend.kernel_type_name(input.dtype)} for the destination and "
                           f"{backend.kernel_type_name(values.dtype)} for the source. [autograd_lab] convert the "
                           "values first, e.g. values.to(input.dtype)")
    if values.dtype != input.dtype:  # (PyTorch fills the mask with the one value, converted)
        values = values.to(input.dtype)
    return IndexPutBackward0.apply(input, values, indices=key, accumulate=accumulate)


def _fills_mask(key, values, accumulate) -> bool:
    """Whether PyTorch's index_put_ writes these values with ``masked_fill_`` (its canDispatchToMaskedFill): one
    value, put (not added) through one boolean mask, the key's other items whole slices."""
    masks = [k for k in key if not (k is Ellipsis or isinstance(k, slice))]
    if accumulate or len(masks) != 1 or values.numel() != 1:
        return False
    mask = masks[0]._data if isinstance(masks[0], Tensor) else masks[0]
    return getattr(getattr(mask, "dtype", None), "kind", "") == "b"


class UniformBackward0(Op):
    """out = samples from U(from, to) shaped like self (the gradient to self is zero)"""

    def forward(xp, self, *, low, high, generator):
        return xp.asarray(generator._rng.uniform(low, high, self.shape)).astype(self.dtype)

    def d_self(grad):
        return formulas.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class NormalBackward0(Op):
    """out = samples from N(mean, std^2) shaped like self (the gradient to self is zero)"""

    def forward(xp, self, *, mean, std, generator):
        return xp.asarray(generator._rng.normal(mean, std, self.shape)).astype(self.dtype)

    def d_self(grad):
        return formulas.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one
