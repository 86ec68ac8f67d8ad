"""In-place operations: how autograd stays correct when a tensor is changed where it lives.

``x.mul_(y)`` runs the ordinary op (``MulBackward0``), writes the result into ``x``'s memory, bumps
the version counter that ``x`` shares with its views, and rewrites history:

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
outside ``inference_mode``; no writes into memory that several elements share (``expand``); no
in-place change, with grad mode on, of views that were made under ``no_grad``/``inference_mode`` or
that come from an op returning several views (``unbind``, ``split``, ``chunk``).
"""

from __future__ import annotations

import re

from .. import backend
from ..autograd import anomaly as _anomaly
from ..autograd import grad_mode as _gm
from ..autograd.engine import _is_expanded, _validate
from ..autograd.graph import Node, gradient_edge
from ..autograd.saved import FREED_MESSAGE, SavedTensor, _write_watch
from ..tensor import Tensor
from . import fill, pointwise
from ._op import _inplace_target, _save_needed
from .indexing import IndexBackwardBackward0, _basic, _check_bounds, _is_advanced, _to_array_index

__all__ = ["check_inplace", "rebase_history", "refresh_view", "CopySlices", "AsStridedBackward0"]

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


def _view_error(view: Tensor, indirect: bool) -> RuntimeError:
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
    if _write_watch[0] is not None:
        _write_watch[0].before_write(tensor)
    if tensor._is_inference and not _gm._state.inference:
        raise RuntimeError(INFERENCE_MESSAGE)
    data = tensor._data
    if _is_expanded(data):
        _check_overlap_allowed(op_name, others, data.shape)
    if not _gm._state.grad_enabled:
        return
    base = tensor._base
    if base is not None:
        records = data.dtype.kind == "f" and (base.requires_grad or any(_requires(o) for o in others))
        if records and tensor._creation_meta is not None:
            raise _view_error(tensor, indirect=False)
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE + _leaf_advice(op_name))
    elif tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + _leaf_advice(op_name))


def _check_overlap_allowed(op_name: str, others, shape) -> None:
    """Writing into an expanded tensor, where several elements share memory: PyTorch refuses it, except in
    ``zero_`` and ``fill_`` with a number, which write one value everywhere. (``masked_fill_`` and
    ``index_put_`` are deprecated there in PyTorch, which warns and writes; they are refused here: ours
    compute the new values out of place and copy them back, and the copies of one memory location would
    disagree.)"""
    if op_name == "zero_" or (op_name == "fill_" and others and not isinstance(others[0], Tensor)):
        return
    deprecated = (" (PyTorch deprecates it there: it warns and writes)"
                  if op_name in ("masked_fill_", "index_put_") else "")
    raise RuntimeError(OVERLAP_MESSAGE + f" [autograd_lab] {op_name} cannot write into this tensor of shape "
                       f"{tuple(shape)}: it is an expanded view, where several elements share memory{deprecated}")


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
    if (data.__class__ is _NDARRAY and _write_watch[0] is None and not tensor._is_inference
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


# -- history -------------------------------------------------------------------------------------
def _move_retain_grad(tensor: Tensor, old, new) -> None:
    """``retain_grad()`` follows the tensor to its new history (its .grad is the newest value's)."""
    if not tensor._retains_grad or old is None or old._extras is None:
        return
    hook = old._extras.retain_grad_hooks.pop(tensor._output_nr, None)
    if hook is not None:
        new._get_extras().retain_grad_hooks[0] = hook


def rebase_history(tensor: Tensor, node: Node, output_nr: int = 0) -> None:
    """Make ``node`` (output ``output_nr``) the history of ``tensor``, just modified in place.

    The caller has written the new values and bumped the version counter. For a view, the base's
    history becomes a ``CopySlices`` around ``node`` and the view's an ``AsStridedBackward0`` of it.
    """
    base = tensor._base
    if base is None:
        _move_retain_grad(tensor, tensor._grad_fn, node)
        tensor._grad_fn = node
        tensor._output_nr = output_nr
        return
    copy = CopySlices(base, tensor, node, output_nr)
    _move_retain_grad(base, base._grad_fn, copy)
    base._grad_fn = copy
    base._output_nr = 0
    view_node = AsStridedBackward0(tensor, base)
    _move_retain_grad(tensor, tensor._grad_fn, view_node)
    tensor._grad_fn = view_node
    tensor._output_nr = 0
    tensor._view_version = tensor._vc.value


def refresh_view(view: Tensor) -> None:
    """Rebuild the ``grad_fn`` of a view whose base (or another view of it) was modified in place."""
    base = view._base
    if base.requires_grad:
        if view._creation_meta is not None:
            raise _view_error(view, indirect=True)
        node = AsStridedBackward0(view, base)
        _move_retain_grad(view, view._grad_fn, node)
        view._grad_fn = node
        view._output_nr = 0
    view._view_version = view._vc.value


def replay_view(tensor: Tensor, chain) -> Tensor:
    """Take, of ``tensor`` (shaped like a base), the view that ``chain`` describes (recorded ops)."""
    for cls, params, index in chain:
        out = cls.apply(tensor, **params)
        tensor = out if index is None else out[index]
    return tensor


def _replay_array(array, chain):
    xp = backend.namespace_of(array)
    for cls, params, index in chain:
        out = cls.forward(xp, array, **params)
        array = out if index is None else out[index]
    return array


def _element_offset(view, base) -> int:
    if type(view).__module__ == "numpy":
        return (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // view.itemsize
    return (view.data.ptr - base.data.ptr) // view.itemsize


class AsStridedBackward0(Node):
    """The history of a view after an in-place change of its base: it is the region of the base's
    memory given by ``size``, ``stride`` and ``storage_offset``; its gradient lands in that region."""

    __slots__ = ("_positions", "_base_shape")
    saves = ("size", "storage_offset", "stride")

    def __init__(self, view: Tensor, base: Tensor) -> None:
        data = view._data
        super().__init__([gradient_edge(base)], [(data.shape, data.dtype)])
        xp = backend.namespace_of(data)
        flat = xp.arange(base._data.size).reshape(base._data.shape)
        self._positions = _replay_array(flat, view._view_chain)  # where each view element sits in the base
        self._base_shape = tuple(base._data.shape)
        strides = tuple(s // data.itemsize for s in data.strides)
        self._saved = (tuple(data.shape), _element_offset(data, base._data), strides)

    def _backward(self, grad_outputs: tuple) -> tuple:
        size = 1
        for n in self._base_shape:
            size *= n
        flat = IndexBackwardBackward0.apply(grad_outputs[0], sizes=(size,), indices=self._positions)
        return (flat.reshape(self._base_shape),)


class CopySlices(Node):
    """The history of a base after an in-place op on one of its views.

    Backward: the incoming gradient is copied; the view's region of the copy goes through ``fn`` (the
    in-place op's node) and is replaced by the gradient ``fn`` gives its first input; the other
    gradients ``fn`` produces go to its other inputs. ``next_functions``: the base's old history,
    then ``fn``'s other inputs.
    """

    __slots__ = ("fn", "_view_chain", "_fn_output")

    def __init__(self, base: Tensor, view: Tensor, fn: Node, output_nr: int = 0) -> None:
        super().__init__([gradient_edge(base)] + list(fn.next_functions[1:]),
                         [(base._data.shape, base._data.dtype)])
        self.fn = fn
        self._view_chain = view._view_chain
        self._fn_output = output_nr
        self._saved = fn._saved  # what fn keeps is what this node keeps (and frees)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def __repr__(self) -> str:
        return f"<CopySlices object at {id(self):#x}>"

    def _release_saved(self) -> list[str]:
        # As PyTorch's CopySlices: drop the reference to fn instead of freeing what fn saved, which is
        # freed with fn. (Fix: freeing it here broke double backward, where fn can also run as a node of
        # its own, as the grad_fn of the saved result it unpacked.)
        self._released = True
        names = [n for n, v in zip(self.fn.saves, self._saved) if isinstance(v, SavedTensor)] if self.fn else []
        self.fn, self._saved = None, ()
        return names

    def _backward(self, grad_outputs: tuple) -> tuple:
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        result = pointwise.clone(grad_outputs[0])
        grad_slice = replay_view(result, self._view_chain)
        fn_grads = [None] * len(self.fn._output_meta)
        fn_grads[self._fn_output] = pointwise.clone(grad_slice)
        res = _validate(self.fn, self.fn._backward(tuple(fn_grads)))
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return (result, *res[1:])


# -- writing -------------------------------------------------------------------------------------
def _short_name(np_dtype) -> str:
    return backend.from_np(np_dtype)._legacy_name[: -len("Tensor")]


def _write(cls, inputs, data, params):
    """Called by ``Op.apply`` for the op an in-place method runs: write, bump, rewrite history."""
    target = inputs[0]
    name = _inplace_target.name
    _inplace_target.tensor = None  # only the first op with the target as input is the in-place one
    own = target._data
    if data.shape != own.shape:
        raise RuntimeError(
            f"output with shape {list(own.shape)} doesn't match the broadcast shape {list(data.shape)} "
            f"[autograd_lab] {name} writes into its tensor, so the broadcast result must keep that tensor's shape; "
            f"use the out-of-place {name.rstrip('_')}() instead"
        )
    if cls is not fill.CopyBackwards and backend.from_np(data.dtype)._category > backend.from_np(own.dtype)._category:
        raise RuntimeError(
            f"result type {_short_name(data.dtype)} can't be cast to the desired output type {_short_name(own.dtype)} "
            f"[autograd_lab] {name} on a {backend.from_np(own.dtype)!r} tensor would compute "
            f"{backend.from_np(data.dtype)!r} values; convert the tensor first (e.g. x = x.float()) or use the "
            "out-of-place op"
        )
    record = _gm._state.grad_enabled and own.dtype.kind == "f" and any(_requires(x) for x in inputs)
    if record:
        edges = [gradient_edge(x) if isinstance(x, Tensor) else (None, 0) for x in inputs]
        saving = inputs
        users = cls._save_users
        if any(kind == "input" and key == 0 and (users is None or users[i] is None
                                                  or any(edges[j][0] is not None for j in users[i]))
               for i, (_, kind, key) in enumerate(cls._save_plan)):
            # the formula needs the values being overwritten: keep a copy with the old history. As in
            # PyTorch, the copy is a recorded clone (its grad_fn is CloneBackward0 of the old history).
            # (Fix: it was a bare copy whose grad_fn was the old node itself, unlike torch's _saved_self.)
            original = pointwise.clone(target)
            saving = (original,) + tuple(inputs[1:])
        saved = list(_save_needed(cls, edges, saving, None, params))  # results are saved after the write
    xp = backend.namespace_of(own)
    try:
        xp.copyto(own, data, casting="unsafe")
    except ValueError as exc:
        raise RuntimeError(read_only_message(name, own.shape, str(exc))) from exc
    target._vc.bump(name)
    if record:
        node = cls.__new__(cls)
        Node.__init__(node, edges, [(own.shape, own.dtype)])
        for i, (n, kind, _) in enumerate(cls._save_plan):
            if kind == "result":
                saved[i] = SavedTensor(target, True, n)
                saved[i].output_nr = 0
        node._saved = tuple(saved)
        if _anomaly._state.enabled:
            _anomaly.record_forward_trace(node)
        rebase_history(target, node)
    return target


_inplace_target.write = _write


def _run_inplace(self: Tensor, name: str, fn, args, kwargs) -> Tensor:
    check_inplace(self, name, tuple(args) + tuple(kwargs.values()))
    if self._base is not None and self._view_version != self._vc.value:
        self.grad_fn  # noqa: B018  (refresh a stale view's history before it becomes an edge)
    previous = (_inplace_target.tensor, _inplace_target.name)
    _inplace_target.tensor, _inplace_target.name = self, name
    try:
        result = fn(self, *args, **kwargs)
    finally:
        _inplace_target.tensor, _inplace_target.name = previous
    if result is not self:  # a composite op: computed out of place, from a copy of the old values
        _assign(self, name, result)
    return self


def _assign(self: Tensor, name: str, value: Tensor) -> None:
    """Write ``value`` (computed from ``self``) into ``self`` and take its history over.

    For ops built from several ops (``div_`` with ``rounding_mode``): the result was computed from
    ``self`` out of place, so it saved ``self`` as it was; here ``self`` takes its values and node.
    """
    if value.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(value.shape)}")
    if value._data.dtype != self._data.dtype and \
            backend.from_np(value._data.dtype)._category > backend.from_np(self._data.dtype)._category:
        raise RuntimeError(f"result type {_short_name(value._data.dtype)} can't be cast to the desired output type "
                           f"{_short_name(self._data.dtype)}")
    node = value._grad_fn if _gm._state.grad_enabled else None
    if node is not None:
        # Detach what the node saved of ``self`` from ``self``'s storage before it is overwritten.
        node._saved = tuple(_snapshot_if_self(v, self) for v in node._saved)
    backend.namespace_of(self._data).copyto(self._data, value._data, casting="unsafe")
    self._vc.bump(name)
    if node is not None:
        rebase_history(self, node, value._output_nr)


def _snapshot_if_self(value, tensor):
    if isinstance(value, SavedTensor) and not value.is_output and value._tensor is not None \
            and value._version_counter is tensor._vc:
        kept = value._tensor
        copy = Tensor._make(kept._data.copy(), grad_fn=kept._grad_fn, output_nr=kept._output_nr,
                            requires_grad=kept._requires_grad)
        return SavedTensor(copy, False, value._name)
    return value


def _method(name: str, fn):
    def inplace(self, *args, **kwargs):
        return _run_inplace(self, name, fn, args, kwargs)
    inplace.__name__ = name
    inplace.__doc__ = f"In-place version of ``{fn.__name__}``: writes into this tensor, bumps ``_version``."
    return inplace


# -- the methods -----------------------------------------------------------------------------------
def _div(input, other, *, rounding_mode=None):
    return pointwise.div(input, other, rounding_mode=rounding_mode)


def _fill(input, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        return fill.FillBackward3.apply(input, value)
    return fill.FillBackward2.apply(input, value=value)


def _copy(input, src, non_blocking: bool = False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    return fill.CopyBackwards.apply(input, src)


def _index_put(input, indices, values, accumulate: bool = False):
    return fill.index_put(input, indices, values, accumulate)


def _uniform(input, a: float = 0.0, b: float = 1.0, *, generator=None):
    from ..creation import default_generator_for
    return fill.UniformBackward0.apply(input, low=a, high=b, generator=generator or default_generator_for(input.device))


def _normal(input, mean: float = 0.0, std: float = 1.0, *, generator=None):
    from ..creation import default_generator_for
    return fill.NormalBackward0.apply(input, mean=mean, std=std, generator=generator or default_generator_for(input.device))


_METHODS = dict(
    add_=pointwise.add, sub_=pointwise.sub, mul_=pointwise.mul, div_=_div, pow_=pointwise.pow,
    remainder_=pointwise.remainder, exp_=pointwise.exp, log_=pointwise.log, log1p_=pointwise.log1p,
    sqrt_=pointwise.sqrt, rsqrt_=pointwise.rsqrt, neg_=pointwise.neg, abs_=pointwise.abs,
    reciprocal_=pointwise.reciprocal, sin_=pointwise.sin, cos_=pointwise.cos, tan_=pointwise.tan,
    tanh_=pointwise.tanh, sigmoid_=pointwise.sigmoid, relu_=pointwise.relu, sign_=pointwise.sign,
    floor_=pointwise.floor, ceil_=pointwise.ceil, round_=pointwise.round, trunc_=pointwise.trunc,
    clamp_=pointwise.clamp, clip_=pointwise.clamp, clamp_min_=pointwise.clamp_min, clamp_max_=pointwise.clamp_max,
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
    key = key if isinstance(key, tuple) else (key,)
    key = tuple(int(k) if isinstance(k, Tensor) and k.ndim == 0 and k._data.dtype.kind in "iu" else k for k in key)
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


def _bind() -> None:
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
