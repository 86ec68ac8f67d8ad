"""In-place operations: how autograd stays correct when a tensor is changed where it lives.

``x.mul_(y)`` runs the ordinary op out of place (``mul(x, y)``, a ``MulBackward0`` node), then
:func:`commit` writes the result into ``x``'s memory, bumps the version counter that ``x`` shares with
its views, and rewrites history (:mod:`.view_history`):

* ``x`` not a view: ``x.grad_fn`` becomes the new node, whose first edge is ``x``'s old history.
  When the formula needs the old ``x`` (``mul_``, ``pow_``, ``log_``...), a copy of it is saved, as
  PyTorch saves ``original_self``; a formula that needs the result saves ``x`` itself, so a later
  in-place change of ``x`` makes that backward raise instead of computing with wrong values.
* ``x`` a view of ``base``: ``base.grad_fn`` becomes ``CopySlices``, which sends the gradient of the
  view's region through the in-place node and the rest straight to the base's old history; the view
  gets ``AsStridedBackward0`` (the region of the base it covers). Other views of the base rebuild
  their ``grad_fn`` the same way the next time it is read.

The rules PyTorch enforces are enforced here, with its messages: no in-place change of a leaf that
requires grad (or a view of one) while grad mode is on; no in-place change of an inference tensor
outside ``inference_mode``; no writes into memory that several elements share (``expand``), nor, where
PyTorch checks it, from an operand sharing memory with the tensor written (``check_sources``); no
in-place change, with grad mode on, of views that were made under ``no_grad``/``inference_mode`` or
that come from an op returning several views (``unbind``, ``split``, ``chunk``).
"""

from __future__ import annotations

import re

from .. import backend
from ..autograd import grad_mode as _gm
from ..autograd.saved import SavedTensor
from ..autograd.saved import _hooks as _saved_hooks
from ..layout import is_expanded, overlaps_itself
from ..tensor import Tensor
from ..tensor import _wrap_dim as _wrap
from . import _op_forward, arithmetic, clamp_bounds, fill, pointwise, shape
from ._args import checked
from ._errors import mixed_devices_message
from .indexing import _basic, _check_bounds, _is_advanced, _to_array_index, checked_key
from .view_history import rebase_history

__all__ = ["check_inplace", "check_sources", "commit", "overlap_status", "tensors_in", "writable_array"]

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
INFERENCE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)
OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
INPUT_OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
_MODE_ADVICE = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
    "both the view and the inplace either both inside the {block} block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked)."
)
_MULTI_ADVICE = (
    " This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)

_CUSTOM_ADVICE = (
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, leading "
    "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
    "Function."
)


def read_only_message(name: str, shape, reason: str = "") -> str:
    """Why an in-place write into read-only memory failed, and what to do."""
    why = f" ({reason})" if reason else ""
    return (f"{name}: cannot write into this tensor of shape {tuple(shape)}{why}. It shares read-only memory "
            "(for example a read-only NumPy array given to al.from_numpy); clone() it first.")


def forward_name(node) -> str:
    """The op a node records, as PyTorch's messages name it (``MulBackward0`` -> ``Mul``, ``PowBackward1`` ->
    ``Pow1``, a custom ``MyFnBackward`` -> ``MyFn``)."""
    return _strip_backward(node.name())


def _strip_backward(name: str) -> str:
    return re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) in ("", "0") else m.group(1), name)


def view_error(view: Tensor, indirect: bool) -> RuntimeError:
    """The error for an in-place change involving a view whose creation forbids it."""
    meta = view._creation_meta
    what = "its base or another view of its base has been modified inplace" if indirect else \
        "is being modified inplace"
    if meta == "no_grad":
        start = "A view was created in no_grad mode and " + what
        return RuntimeError(start + " with grad mode enabled." + _MODE_ADVICE.format(block="no_grad"))
    if meta == "inference":
        start = "A view was created in inference mode and " + what
        return RuntimeError(start + " in normal mode." + _MODE_ADVICE.format(block="inference_mode"))
    kind, index, op = meta
    name = _strip_backward(op)
    return RuntimeError(f"Output {index} of {name} is a view and {what}."
                        + (_CUSTOM_ADVICE if kind == "custom_function" else _MULTI_ADVICE))


def _requires(x) -> bool:
    return isinstance(x, Tensor) and x.requires_grad


def check_inplace(tensor: Tensor, op_name: str, others=()) -> None:
    """Raise PyTorch's error if ``op_name`` may not modify ``tensor`` in place right now.

    ``others`` are the op's other operands (whether one requires grad decides if history is recorded).
    Inside ``allow_mutation_on_saved_tensors``, tensors saved with this memory are copied first.
    """
    if _saved_hooks.write_watch is not None:
        _saved_hooks.write_watch.before_write(tensor)
    if tensor._is_inference and not _gm._state.inference:
        raise RuntimeError(INFERENCE_MESSAGE)
    data = tensor._data
    if overlaps_itself(data):
        _check_overlap_allowed(op_name, others, data)
    if not _gm._state.grad_enabled:
        return
    base = tensor._base
    if base is not None:
        records = data.dtype.kind == "f" and (base.requires_grad or any(_requires(o) for o in others))
        if records and tensor._creation_meta is not None:
            raise view_error(tensor, indirect=False)
        if base._grad_fn is None and tensor.requires_grad:  # (PyTorch's test: the base is a leaf and the view requires
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE + _leaf_advice(op_name))  # grad, its own (requires_grad_()) or the base's)
    elif tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + _leaf_advice(op_name))


def _check_overlap_allowed(op_name: str, others, data) -> None:
    """Writing into a tensor where several elements share memory: PyTorch refuses it for an expanded tensor,
    except in ``zero_`` and ``fill_`` with a number, which write one value everywhere. (``masked_fill_`` and
    ``index_put_`` are deprecated there in PyTorch, which warns and writes.) Overlapping windows (``unfold``,
    ``as_strided``) PyTorch writes element by element, so a shared place changes once per window, in its loop's
    order. Both are refused here: ours compute the new values out of place and copy them back, and the copies
    of one memory location would disagree."""
    if op_name == "zero_" or (op_name == "fill_" and others and not isinstance(others[0], Tensor)):
        return
    if is_expanded(data):
        what = "it is an expanded view, where several elements share memory" + (
            " (PyTorch deprecates it there: it warns and writes)" if op_name in ("masked_fill_", "index_put_") else "")
    else:
        what = ("its elements overlap in memory (windows of unfold or as_strided that share places; PyTorch would "
                "change a shared place once per window)")
    raise RuntimeError(OVERLAP_MESSAGE + f" [autograd_lab] {op_name} cannot write into this tensor of shape "
                       f"{tuple(data.shape)}: {what}")


# -- the op's other tensors sharing memory with the written one ----------------------------------------
# PyTorch compares the written tensor with each tensor the op reads before it writes. Most in-place ops
# (TensorIterator's: add_, mul_, copy_, lerp_, masked_fill_'s mask, bernoulli_'s p...) refuse a partial overlap
# only (``assert_no_partial_overlap``): the very same memory laid out alike is read and written element by
# element, which gives what a clone would. The scatter and index ops refuse any overlap (``assert_no_overlap``) of
# their sources and indices: they write other places than they read. PyTorch does not check ``ldexp_`` (it reads
# a fresh ``2 ** other``), ``masked_scatter_``, the matrix products (``addmm_``...: BLAS writes through a copy
# when it must), nor the tensors it reads as numbers (a 0-dim ``value`` of the fill ops, ``uniform_``'s bounds...).
# ``bernoulli_`` expands ``p`` to the tensor's shape first (a broadcast ``p`` is then not checked), and a bool
# index of ``index_put_`` becomes a fresh long one.
_ANY_OVERLAP = frozenset({"scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_",
                          "index_reduce_", "index_fill_", "index_put_"})
_UNCHECKED = frozenset({"ldexp_", "masked_scatter_", "uniform_", "normal_", "random_", "logit_", "nan_to_num_",
                        "polygamma_", "addmm_", "addmv_", "baddbmm_", "addbmm_"})
_EXPANDED_FIRST = frozenset({"bernoulli_"})
_VALUE_ARGUMENT = {"fill_": (0, "value"), "index_fill_": (2, "value"), "masked_fill_": (1, "value")}


def check_sources(tensor: Tensor, op_name: str, args, kwargs) -> None:
    """Raise PyTorch's overlap error if a tensor among ``args``/``kwargs`` of ``tensor.<op_name>(...)`` shares
    memory with ``tensor`` where PyTorch refuses it. Ours would give a value (they compute out of place, as if
    the source were cloned first); PyTorch refuses since it writes while it reads."""
    if op_name in _UNCHECKED:
        return
    position, keyword = _VALUE_ARGUMENT.get(op_name, _NO_VALUE)
    for i, arg in enumerate(args):
        if i != position and isinstance(arg, _SOURCE_TYPES):
            _check_source(tensor, op_name, arg, indices=i == 0 and op_name == "index_put_")
    for key, arg in kwargs.items():
        if key != keyword and isinstance(arg, _SOURCE_TYPES):
            _check_source(tensor, op_name, arg, indices=key == "indices" and op_name == "index_put_")


_NO_VALUE = (None, None)
_SOURCE_TYPES = (Tensor, tuple, list)


def _check_source(tensor: Tensor, op_name: str, arg, indices: bool) -> None:
    for source in tensors_in(arg):
        if (indices and source.dtype is backend.bool_) or (op_name in _EXPANDED_FIRST and source.shape != tensor.shape):
            continue
        status = overlap_status(tensor, source)
        if status == "partial" or (status == "full" and op_name in _ANY_OVERLAP):
            raise RuntimeError(INPUT_OVERLAP_MESSAGE + _source_hint(op_name, tensor, source, status))


def tensors_in(arg):
    """The tensors in an argument: itself, or those inside a (nested) tuple or list."""
    if isinstance(arg, Tensor):
        yield arg
    elif isinstance(arg, (tuple, list)):
        for item in arg:
            yield from tensors_in(item)


def _source_hint(op_name: str, tensor: Tensor, source: Tensor, status: str) -> str:
    if status == "full":
        what = (f"{op_name} reads the very memory it writes (an argument of shape {tuple(source.shape)} is this tensor "
                "or a view of the same elements); it writes other places than it reads, so PyTorch refuses even that")
    else:
        what = (f"{op_name} writes into this tensor of shape {tuple(tensor.shape)} while reading an argument of shape "
                f"{tuple(source.shape)} that shares part of its memory (views of one base that overlap), so PyTorch's "
                "result would depend on the order it writes in")
    return f" [autograd_lab] {what}. Pass that argument as .clone(), or write into a clone of this tensor."


def overlap_status(tensor: Tensor, other: Tensor) -> str | None:
    """PyTorch's ``get_overlap_status``: ``'full'`` for the same tensor, or the same bytes laid out alike;
    ``'partial'`` where they share other bytes; ``None`` where they share none, or where either is not laid out
    densely without gaps (a strided slice, a broadcast, a negative step): PyTorch calls that "too hard" and does
    not check it."""
    if other is tensor:
        return "full"
    a, b = tensor._data, other._data
    if a.__class__ is not b.__class__ or not backend.namespace_of(a).may_share_memory(a, b):  # (bounds only: fast)
        return None
    if not _dense(a) or not _dense(b):
        return None
    a_begin, b_begin = tensor.data_ptr(), other.data_ptr()
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if a_begin == b_begin and a_end == b_end:
        return "full" if tensor.stride() == other.stride() else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else None


def _dense(array) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill a block of memory, each once (in some order
    of the dims)."""
    if array.flags.c_contiguous:
        return True
    expected = array.itemsize
    for stride, n in sorted((stride, n) for stride, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


_NDARRAY = backend.np.ndarray


def writable_array(tensor: Tensor, name: str):
    """``tensor``'s array, for an update written straight into it (``out=``, ``+=``) under ``no_grad``.

    It is what ``tensor.<name>(...)`` would do there, without the temporary result and copy of the
    tensor method: the same checks first (``check_inplace``: inference tensors, expanded memory;
    read-only memory), and the caller bumps the version counter with ``tensor._vc.bump(name)`` after
    writing, as the method would. Nothing is recorded under ``no_grad``, so there is no history to
    rewrite.
    """
    data = tensor._data
    if (data.__class__ is _NDARRAY and _saved_hooks.write_watch is None and not tensor._is_inference
            and not _gm._state.grad_enabled and data.size
            and data.flags.c_contiguous and data.flags.writeable):
        return data  # what the checks let through, decided at once: a non-empty contiguous array has no expanded dims
    check_inplace(tensor, name)
    if not getattr(data.flags, "writeable", True):
        raise RuntimeError(read_only_message(name, data.shape))
    return data


def _leaf_advice(op_name: str) -> str:
    return (f" [autograd_lab] {op_name} would overwrite the very values that gradients are taken with respect to. "
            "To update parameters, do it under `with al.no_grad():` (as optimizers do); otherwise work on a "
            ".clone().")


# -- running an in-place method ------------------------------------------------------------------------
def _run_inplace(self: Tensor, name: str, fn, args, kwargs) -> Tensor:
    """``self.<name>(*args)``: the out-of-place op ``fn`` computes the new values from ``self``, and
    :func:`commit` writes them into ``self``'s memory and gives ``self`` their node as its history."""
    check_inplace(self, name, tuple(args) + tuple(kwargs.values()))
    if self._base is not None and self._view_version != self._vc.value:
        self.grad_fn  # noqa: B018  (refresh a stale view's history before it becomes an edge)
    result = fn(self, *args, **kwargs)
    check_sources(self, name, args, kwargs)  # (after the op checked its arguments: PyTorch refuses wrong ones first)
    commit(self, name, result)
    return self


def commit(tensor: Tensor, name: str, result: Tensor) -> None:
    """Write ``result``, computed out of place from ``tensor``, into ``tensor``; bump its version; make
    ``result``'s node (if one was recorded) the history of ``tensor``.

    The node saved what its formulas need as they saw it, so two of its records are moved first, as
    PyTorch's in-place kernels save them: the values being overwritten (``tensor`` as the op's first
    input) become a recorded clone of them (PyTorch's ``original_self``), and the result becomes
    ``tensor`` at its new version, so that a later in-place change of ``tensor`` makes this backward raise
    instead of computing with other values.
    """
    own, data = tensor._data, result._data
    if data.shape != own.shape:
        raise RuntimeError(
            f"output with shape {list(own.shape)} doesn't match the broadcast shape {list(data.shape)} "
            f"[autograd_lab] {name} writes into its tensor, so the broadcast result must keep that tensor's shape; "
            f"use the out-of-place {name.rstrip('_')}() instead")
    if name != "copy_" and backend.from_np(data.dtype)._category > backend.from_np(own.dtype)._category:
        raise RuntimeError(
            f"result type {_short_name(data.dtype)} can't be cast to the desired output type {_short_name(own.dtype)} "
            f"[autograd_lab] {name} on a {backend.from_np(own.dtype)!r} tensor would compute "
            f"{backend.from_np(data.dtype)!r} values; convert the tensor first (e.g. x = x.float()) or use the "
            "out-of-place op")
    if result.device != tensor.device:
        raise RuntimeError(mixed_devices_message(name, (tensor, result)))
    node = result._grad_fn
    if node is not None:
        first_input = {i for i, (_, kind, key, _) in enumerate(type(node)._save_plan) if kind == "input" and key == 0}
        node._saved = tuple(_original_self(record, tensor) if i in first_input else record
                            for i, record in enumerate(node._saved))
        node._output_meta = ((own.shape, own.dtype),)
    try:
        backend.namespace_of(own).copyto(own, data, casting="unsafe")
    except ValueError as exc:
        raise RuntimeError(read_only_message(name, own.shape, str(exc))) from exc
    tensor._vc.bump(name)
    if node is not None:
        rebase_history(tensor, node, result._output_nr)
        for record in node._saved:
            if record.__class__ is SavedTensor and record.is_output and record._data is data:
                record.rebind(tensor)
    if result._fw_grad is not None:  # forward-mode AD: the tangent follows the values
        _op_forward.after_inplace(tensor, result)


def _original_self(record, tensor: Tensor):
    """The record of the op's first input, ``tensor``, replaced by one of a recorded clone of its values
    (taken before they are overwritten)."""
    if record.__class__ is not SavedTensor or record._version_counter is not tensor._vc:
        return record
    original = pointwise.clone(tensor)  # (its grad_fn is CloneBackward0 of tensor's old history, as in PyTorch)
    return SavedTensor(original, False, record._name)


def _short_name(np_dtype) -> str:
    return backend.from_np(np_dtype)._legacy_name[: -len("Tensor")]


def _method(name: str, fn):
    def inplace(self, *args, **kwargs):
        return _run_inplace(self, name, fn, args, kwargs)
    inplace.__name__ = name
    inplace.__doc__ = f"In-place version of ``{fn.__name__}``: writes into this tensor, bumps ``_version``."
    return checked(inplace)


# -- the methods -----------------------------------------------------------------------------------
def _div(input, other, *, rounding_mode=None):
    return arithmetic.div(input, other, rounding_mode=rounding_mode)


def _fill(input, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        return fill.FillBackward3.apply(input, value)
    if not isinstance(value, (bool, int, float, backend.np.number)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got ({type(value).__name__}) "
                        "[autograd_lab] fill_ takes a number or a 0-dim tensor")
    return fill.FillBackward2.apply(input, value=backend.check_scalar(value, input.dtype, "fill_"))


def _copy(input, src, non_blocking: bool = False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    return fill.CopyBackwards.apply(input, src)


def _index_put(input, indices, values, accumulate: bool = False):
    return fill.index_put(input, indices, values, accumulate)


def _uniform(input, a: float = 0.0, b: float = 1.0, *, generator=None):
    from ..creation import check_floating_sample, default_generator_for
    check_floating_sample(input.dtype, "check_uniform_bounds", input.device)
    return fill.UniformBackward0.apply(input, low=a, high=b, generator=generator or default_generator_for(input.device))


def _normal(input, mean: float = 0.0, std: float = 1.0, *, generator=None):
    from ..creation import check_floating_sample, default_generator_for
    check_floating_sample(input.dtype, "normal_kernel", input.device)
    return fill.NormalBackward0.apply(input, mean=mean, std=std, generator=generator or default_generator_for(input.device))


_METHODS = dict(
    add_=arithmetic.add, sub_=arithmetic.sub, mul_=arithmetic.mul, div_=_div, pow_=arithmetic.pow,
    remainder_=arithmetic.remainder, fmod_=arithmetic.fmod, exp_=pointwise.exp, log_=pointwise.log, log1p_=pointwise.log1p,
    sqrt_=pointwise.sqrt, rsqrt_=pointwise.rsqrt, neg_=arithmetic.neg, abs_=pointwise.abs,
    reciprocal_=arithmetic.reciprocal, sin_=pointwise.sin, cos_=pointwise.cos, tan_=pointwise.tan,
    tanh_=pointwise.tanh, sigmoid_=pointwise.sigmoid, relu_=pointwise.relu, sign_=pointwise.sign,
    floor_=pointwise.floor, ceil_=pointwise.ceil, round_=pointwise.round, trunc_=pointwise.trunc,
    clamp_=pointwise.clamp, clip_=pointwise.clamp, clamp_min_=clamp_bounds.clamp_min, clamp_max_=clamp_bounds.clamp_max,
    zero_=fill.ZeroBackward0.apply, fill_=_fill, copy_=_copy, masked_fill_=fill.masked_fill,
    index_put_=_index_put, uniform_=_uniform, normal_=_normal,
)
_METHODS["subtract_"] = _METHODS["sub_"]
_METHODS["multiply_"] = _METHODS["mul_"]
_METHODS["divide_"] = _METHODS["div_"]
_METHODS["true_divide_"] = _METHODS["div_"]
_METHODS["negative_"] = _METHODS["neg_"]


def _floor_divide(input, other):
    return _div(input, other, rounding_mode="floor")


_OPERATORS = dict(__iadd__="add_", __isub__="sub_", __imul__="mul_", __itruediv__="div_", __ipow__="pow_",
                  __imod__="remainder_")


# -- tensor[key] = value -------------------------------------------------------------------------
def setitem(tensor: Tensor, key, value) -> None:
    """``tensor[key] = value``: basic keys copy into a view (``CopySlices``); keys with index
    tensors, lists or masks put values in place (``IndexPutBackward0``)."""
    key = checked_key(key)
    xp = backend.namespace_of(tensor._data)
    number = not isinstance(value, Tensor)
    if number:
        value = Tensor._make(xp.asarray(value, dtype=tensor._data.dtype))
    if not any(_is_advanced(k) for k in key):
        _check_bounds(tensor, key)
        full = all(k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in key)
        _copy_to(tensor if full else _basic(tensor, key), value)  # x[:] = v writes into x itself
        return
    # As PyTorch does: ints and slices are applied as a view first, then the index tensors put
    # values into that view (a CopySlices around IndexPutBackward0); without them, into the tensor.
    basic = tuple(slice(None) if _is_advanced(k) else k for k in key)
    trivial = all(k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in basic)
    target = tensor if trivial else _basic(tensor, basic)
    check_sources(target, "index_put_", (tuple(k for k in key if isinstance(k, Tensor)),), {})  # (rest holds arrays)
    rest = tuple(_to_array_index(k, xp) if _is_advanced(k) else (Ellipsis if k is Ellipsis else slice(None))
                 for k in key if not isinstance(k, int) or isinstance(k, bool))
    target.index_put_(rest, value)


def _copy_to(dst: Tensor, value) -> None:
    """Write ``value`` into the view ``dst`` the way PyTorch's setitem does, so the graph has its nodes:
    a 0-dim tensor (a number becomes one) fills; a tensor of another shape is viewed without its leading
    1s and expanded (``ViewBackward0``, ``ExpandBackward0``) before ``copy_``.
    (Fix: it used to ``copy_`` every value directly, leaving those nodes out of the recorded graph.)"""
    if value.ndim == 0 and dst.shape != value.shape:
        dst.fill_(value)
        return
    if value.shape != dst.shape:
        shape = tuple(value.shape)
        while shape and shape[0] == 1:
            shape = shape[1:]
        value = value.view(shape)
        if value.shape != dst.shape:
            value = value.expand(dst.shape)
    dst.copy_(value)


def index_put_(self, indices, values, accumulate: bool = False):
    """Put ``values`` at ``indices`` (a tuple of index tensors) in place; ``accumulate`` adds them."""
    return _run_inplace(self, "index_put_", _index_put, (indices, values), {"accumulate": accumulate})


# -- transpose_ and t_: the tensor itself becomes its transpose ----------------------------------------------
class TBackward1(shape.TBackward0):
    """``t_()``: the tensor's dims swapped in place (its history: this node, then its old one)"""


class TransposeBackward1(shape.TransposeBackward0):
    """``transpose_(dim0, dim1)``: the tensor's dims swapped in place"""


def _swap_in_place(self: Tensor, name: str, op, params: dict) -> Tensor:
    """The tensor takes over the transposed view ``op`` makes of it: its layout, and (recording) the node, whose
    edge leads to the tensor's old history. The version is bumped, as PyTorch bumps it: a node that saved the
    tensor before now refuses to use it."""
    check_inplace(self, name)
    if self._base is not None and self._view_version != self._vc.value:
        self.grad_fn  # noqa: B018  (refresh a stale view's history before it becomes an edge)
    swapped = op.apply(self, **params)
    self._data = swapped._data
    self._vc.bump(name)
    if self._base is not None:
        # (the op replayed on the base gives this view again; ``squeeze_(dim)``'s op is not itself a view op)
        self._view_chain, self._view_version = self._view_chain + ((op, params, None),), self._vc.value
    if swapped._grad_fn is not None:
        self._grad_fn, self._output_nr = swapped._grad_fn, 0
    if swapped._fw_grad is not None:  # forward-mode AD: the tangent is swapped with the values
        self._fw_grad = swapped._fw_grad
    return self


def t_(self: Tensor) -> Tensor:
    """Transpose this tensor (at most 2-D) in place: ``x.t_()`` is ``x = x.t()`` without a new tensor."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _swap_in_place(self, "t_", TBackward1, {})


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dims ``dim0`` and ``dim1`` of this tensor in place."""
    n = self.ndim
    dims = dict(dim0=_wrap(dim0, n, "transpose_"), dim1=_wrap(dim1, n, "transpose_"))
    return _swap_in_place(self, "transpose_", TransposeBackward1, dims)


def _bind() -> None:
    Tensor.t_, Tensor.transpose_, Tensor.swapaxes_ = t_, transpose_, transpose_
    for name, fn in _METHODS.items():
        setattr(Tensor, name, _method(name, fn))
    Tensor.floor_divide_ = _method("floor_divide_", _floor_divide)
    Tensor.index_put_ = index_put_
    for dunder, name in _OPERATORS.items():
        setattr(Tensor, dunder, getattr(Tensor, name))
    Tensor.__ifloordiv__ = Tensor.floor_divide_
    Tensor.__setitem__ = setitem
    Tensor.masked_fill = fill.masked_fill
    Tensor.index_put = fill.index_put


_bind()
