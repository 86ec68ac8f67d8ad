"""History after an in-place change: a tensor takes the node of the op that changed it, and a view and its
base get the two nodes PyTorch gives them.

* A tensor that is not a view: its ``grad_fn`` becomes the in-place op's node, whose first edge is the
  tensor's old history.
* A view of ``base``: the base's ``grad_fn`` becomes ``CopySlices``, which sends the gradient of the
  view's region through the in-place op's node and the rest straight to the base's old history; the
  view's becomes ``AsStridedBackward0`` (the region of the base it covers). Other views of the base
  rebuild their ``grad_fn`` the same way the next time it is read (``refresh_view``).
"""

from __future__ import annotations

from .. import backend
from ..autograd.engine import _checked
from ..autograd.graph import Node, gradient_edge
from ..autograd.saved import FREED_MESSAGE, SavedTensor
from ..layout import overlaps_itself
from ..tensor import Tensor

__all__ = ["rebase_history", "refresh_view", "replay_view", "CopySlices", "AsStridedBackward0"]


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
    from .inplace import view_error
    base = view._base
    if view._grad_fn is None and not base.requires_grad:  # nothing to rebuild: the change stays unseen, so that the
        return  # view gets its history if the base comes to require grad later (``requires_grad_()``), as in PyTorch
    if base.requires_grad:
        if view._creation_meta is not None:
            raise view_error(view, indirect=True)
        node = AsStridedBackward0(view, base)
        _move_retain_grad(view, view._grad_fn, node)
        view._grad_fn = node
        view._output_nr = 0
    view._view_version = view._vc.value


def _move_retain_grad(tensor: Tensor, old, new) -> None:
    """``retain_grad()`` follows the tensor to its new history (its .grad is the newest value's)."""
    if not tensor._retains_grad or old is None or old._extras is None:
        return
    hook = old._extras.retain_grad_hooks.pop(tensor._output_nr, None)
    if hook is not None:
        new._get_extras().retain_grad_hooks[0] = hook


def replay_view(tensor, chain):
    """Take, of ``tensor`` (a tensor or an array shaped like a base), the view that ``chain`` describes."""
    from .formulas import call
    for cls, params, index in chain:
        out = call(cls, tensor, **params)
        tensor = out if index is None else out[index]
    return tensor


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
        self._positions = replay_view(flat, view._view_chain)  # where each view element sits in the base
        self._base_shape = tuple(base._data.shape)
        strides = tuple(s // data.itemsize for s in data.strides)
        self._saved = (tuple(data.shape), _element_offset(data, base._data), strides)

    def _backward(self, grad_outputs: tuple) -> tuple:
        from .indexing import IndexBackwardBackward0
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

    __slots__ = ("fn", "_view_chain", "_fn_output", "_base_overlaps")
    written_in_cpp = True  # (its name is torch::autograd::CopySlices, as PyTorch's)

    def __init__(self, base: Tensor, view: Tensor, fn: Node, output_nr: int = 0) -> None:
        super().__init__([gradient_edge(base)] + list(fn.next_functions[1:]),
                         [(base._data.shape, base._data.dtype)])
        self.fn = fn
        self._view_chain = view._view_chain
        self._fn_output = output_nr
        self._base_overlaps = overlaps_itself(base._data)  # (its elements share memory: backward refuses, as PyTorch's)
        self._saved = fn._saved  # what fn keeps is what this node keeps (and frees)

    def _release_saved(self) -> list[str]:
        # As PyTorch's CopySlices: drop the reference to fn instead of freeing what fn saved, which is
        # freed with fn (fn can also run as a node of its own in double backward, as the grad_fn of the
        # saved result it unpacked).
        self._released = True
        names = [n for n, v in zip(self.fn.saves, self._saved) if isinstance(v, SavedTensor)] if self.fn else []
        self.fn, self._saved = None, ()
        return names

    def _backward(self, grad_outputs: tuple) -> tuple:
        from .pointwise import clone
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        if self._base_overlaps:  # PyTorch lays the gradient out as the base and copies into it, which it refuses
            from .inplace import OVERLAP_MESSAGE
            raise RuntimeError(OVERLAP_MESSAGE + " [autograd_lab] an in-place write went into a view of expanded "
                               "memory, where one element stands for several: the gradient through the write "
                               "is ambiguous. Write into a .clone() of the expanded tensor instead")
        result = clone(grad_outputs[0])
        grad_slice = replay_view(result, self._view_chain)
        fn_grads = [None] * len(self.fn._output_meta)
        fn_grads[self._fn_output] = clone(grad_slice)
        res = _checked(self.fn, self.fn._backward(tuple(fn_grads)))
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return (result, *res[1:])
