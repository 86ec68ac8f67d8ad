"""Saved tensors: what a node keeps for its backward, recorded with the version it had when saved.

A ``SavedTensor`` is a record, not a bare reference. It holds:

* the value (or whatever a pack hook returned for it),
* ``saved_version``: the tensor's version counter when it was saved,
* ``is_output``: whether it is the node's own output. An output is kept as its data and version
  counter only, never as the tensor object, because the tensor points to the node (``grad_fn``):
  keeping it would make a reference cycle. Unpacking an output rebuilds an equal tensor whose
  ``grad_fn`` is the node again (so ``y.grad_fn._saved_result`` equals ``y`` but is not ``y``).

Unpacking checks the version and raises PyTorch's error when an in-place operation changed the
tensor after it was saved, naming the op that saved it and the in-place op that changed it.
"""

from __future__ import annotations

import re
import threading
import weakref
from contextlib import contextmanager

from . import forward_ad
from .grad_mode import no_grad

__all__ = ["VersionCounter", "SavedTensor", "saved_tensors_hooks", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors"]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not supported, "
    "please use out-of-place `.detach()` instead [autograd_lab] a tensor this node saved for backward lost its "
    "history when .detach_() was called on it; detach a copy (t.detach()) instead"
)

_Tensor = None  # set by autograd_lab.tensor once Tensor exists (it imports this module)
_dual = forward_ad._state


class VersionCounter:
    """Counts in-place modifications of a tensor's storage; views share their base's counter.

    ``last_op`` names the in-place operation that bumped it last, for error messages.
    """

    __slots__ = ("value", "last_op")

    def __init__(self) -> None:
        self.value = 0
        self.last_op = None

    def bump(self, op_name: str) -> None:
        self.value += 1
        self.last_op = op_name

    def __repr__(self) -> str:
        return f"VersionCounter({self.value})"


class _HookState(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple] = []
        self.disabled_message: str | None = None
        self.write_watch = None  # the open allow_mutation_on_saved_tensors context: in-place writes call its before_write


_hooks = _HookState()


def _run_pack_hook(pack_hook, tensor):
    """``pack_hook(tensor)``, run under ``no_grad`` as PyTorch runs it (what the hook computes records no graph), and
    refused, as PyTorch refuses it, when the hook changed ``tensor`` in place."""
    version = tensor._vc.value
    with no_grad():
        packed = pack_hook(tensor)
    if tensor._vc.value != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot "
            "be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if "
            "you need to perform in-place operations on the input to a pack hook. [autograd_lab] the pack hook must "
            "return what to keep (e.g. t.clone() to change that) and leave the tensor it is given as it is"
        )
    return packed


class SavedTensor:
    """One tensor saved for backward by a node (PyTorch's ``SavedVariable``); see the module doc."""

    __slots__ = ("_tensor", "_data", "_version_counter", "saved_version", "is_output", "output_nr",
                 "_requires_grad", "_packed", "_unpack_hook", "_released", "_name", "_edge", "_view_history",
                 "_was_non_leaf", "_shape")

    def __init__(self, tensor, is_output: bool, name: str):
        if tensor._is_inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                "normal tensor and use it in autograd, or use `al.no_grad()` instead of `al.inference_mode()`. "
                f"[autograd_lab] the op saving it as '{name}' was given a tensor created under al.inference_mode()"
            )
        counter = tensor._version_counter
        if counter is None:  # (made on first use: ``Tensor._vc``)
            counter = tensor._version_counter = VersionCounter()
        self._name = name
        self.is_output = is_output
        self._version_counter = counter
        self.saved_version = counter.value
        self.output_nr = tensor._output_nr
        # (a node's own output has the node as grad_fn when it is saved, unless the op does not differentiate it)
        self._requires_grad = requires_grad = tensor._grad_fn is not None or tensor._requires_grad
        self._released = False
        self._view_history = None  # (an output written into a view by an in-place op: ``rebind``)
        self._unpack_hook = None  # (``_packed``, ``_edge`` and ``_shape`` are set only with hooks, and read only then)
        if _hooks.stack:  # inside saved_tensors_hooks (in this thread)
            if _hooks.disabled_message is not None:
                raise RuntimeError(_hooks.disabled_message)
            pack, self._unpack_hook = _hooks.stack[-1]
            self._tensor = self._data = None
            self._shape = tuple(tensor.shape)
            if not is_output and requires_grad:
                from .graph import gradient_edge
                self._edge = gradient_edge(tensor)
            self._packed = _run_pack_hook(pack, tensor if not is_output else tensor.detach())
        elif is_output:
            self._tensor = None
            self._data = tensor._data
        else:
            self._tensor = tensor
            self._data = None
            self._was_non_leaf = tensor._grad_fn is not None  # (``.detach_()`` on it later is an error in backward)

    def unpack(self, node, for_backward: bool = False):
        """The saved tensor, after checking that no in-place op changed it since it was saved.

        With saved-tensor hooks, what the unpack hook returns is checked only when it is the saved
        memory itself (same version counter): a copy (to disk, to the CPU) cannot have been changed.
        """
        if self._released:
            raise RuntimeError(FREED_MESSAGE)
        if self._unpack_hook is not None:
            value = self._unpack_hook(self._packed)
            if not hasattr(value, "_data"):
                raise TypeError(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                    f"{type(value).__name__} [autograd_lab] while unpacking '{self._name}' of {node.name()}"
                )
            if tuple(value.shape) != self._shape:  # (the formula would broadcast it: an error, or a wrong gradient)
                raise RuntimeError(
                    f"saved tensor unpack_hook returned a tensor of shape {list(value.shape)} for '{self._name}' of "
                    f"{node.name()}, which saved a tensor of shape {list(self._shape)} [autograd_lab] the unpack "
                    "hook must give back the tensor that was packed (same shape and values)"
                )
            if value._vc is self._version_counter and value._vc.value != self.saved_version:
                raise RuntimeError(self._version_error(node, value._vc.value))
            if value.grad_fn is None and not value.requires_grad and self._requires_grad:
                # reattach to the history the saved tensor had, so double backward flows through it
                grad_fn, nr = (self._output_history(node), self.output_nr) if self.is_output else self._edge
                value = _Tensor._make(value._data, grad_fn=grad_fn, output_nr=nr, version_counter=value._vc)
            return value
        current = self._version_counter.value
        if current != self.saved_version:
            raise RuntimeError(self._version_error(node, current))
        if self.is_output:
            output = _Tensor._make(self._data, grad_fn=self._output_history(node) if self._requires_grad else None,
                                   output_nr=self.output_nr, version_counter=self._version_counter)
            if _dual.level is not None:  # forward-mode AD through a backward (create_graph): the output's tangent too
                forward_ad.restore_output_tangent(output, node, self.output_nr)
            return output
        if for_backward and self._tensor._grad_fn is None and self._was_non_leaf:
            raise RuntimeError(DETACHED_MESSAGE)
        return self._tensor

    def unpack_data(self, node):
        """The saved array, checked as ``unpack`` checks it in backward (what a derivative running on arrays reads). Without
        hooks no tensor is built; with hooks, the unpack hook runs as for ``unpack`` and its tensor's array is
        used, so a backward through hooks computes exactly what one without hooks does."""
        if self._unpack_hook is not None:
            return self.unpack(node)._data
        if self._released:
            raise RuntimeError(FREED_MESSAGE)
        current = self._version_counter.value
        if current != self.saved_version:
            raise RuntimeError(self._version_error(node, current))
        if self.is_output:
            return self._data
        tensor = self._tensor
        if tensor._grad_fn is None and self._was_non_leaf:
            raise RuntimeError(DETACHED_MESSAGE)
        return tensor._data

    # -- read-only facts for tools such as the lab: no unpacking, no version check, no hook runs ----
    @property
    def shape(self) -> tuple[int, ...] | None:
        """The saved value's shape; ``None`` once freed or while a pack hook holds the value."""
        data = self._source()
        return None if data is None else tuple(int(s) for s in data.shape)

    @property
    def dtype(self):
        """The saved value's dtype (an ``al.dtype``); ``None`` once freed or while a pack hook holds the value."""
        data = self._source()
        if data is None:
            return None
        from ..backend import from_np
        return from_np(data.dtype)

    @property
    def has_hooks(self) -> bool:
        """Whether it was saved through ``saved_tensors_hooks`` (reading it runs the unpack hook)."""
        return self._unpack_hook is not None

    @property
    def current_version(self) -> int:
        """The tensor's version counter now: unlike ``saved_version``, an in-place change bumps it."""
        return self._version_counter.value

    @property
    def is_released(self) -> bool:
        """Whether backward freed it (reading it then raises; ``retain_graph=True`` keeps it)."""
        return self._released

    @property
    def data(self):
        """The saved value as a tensor sharing its memory, read without the version check (so a stale
        value can be shown); ``None`` once freed or while a pack hook holds the value."""
        if self._tensor is not None:
            return self._tensor.detach()
        return None if self._data is None else _Tensor._make(self._data)

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Put this one saved tensor behind a pair of hooks, as ``saved_tensors_hooks`` does for all.

        ``pack_hook(tensor)`` runs at once and its result is kept instead of the tensor;
        ``unpack_hook(packed)`` runs each time backward (or ``_saved_<name>``) reads it and must return
        a tensor. One pair per saved tensor, and not once it was freed (PyTorch's rules and errors).
        """
        if self._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
                "of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True "
                "if you need to backward through the graph a second time or if you need to access saved "
                f"variables after calling backward. [autograd_lab] the saved tensor is '{self._name}'"
            )
        if self._unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair "
                f"of hooks is allowed at a time. [autograd_lab] '{self._name}' was saved through hooks already"
            )
        for role, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"register_hooks(): {role} must be callable, got {type(hook).__name__} "
                                f"[autograd_lab] while registering hooks on saved tensor '{self._name}'")
        if self.is_output:  # the hook sees the output's values, never the tensor that points to this node
            value = _Tensor._make(self._data, version_counter=self._version_counter)
        else:
            value = self._tensor
            if self._requires_grad:
                from .graph import gradient_edge
                self._edge = gradient_edge(value)
        self._shape = tuple(value.shape)
        self._packed = _run_pack_hook(pack_hook, value)
        self._unpack_hook = unpack_hook
        self._tensor = self._data = None

    def rebind(self, tensor) -> None:
        """Point a saved output at ``tensor``, whose memory now holds its values (an in-place op's result,
        written into its tensor, whose history is already rewritten): from now on its version is checked
        against ``tensor``'s. When ``tensor`` is a view, the output unpacks with the view's new history
        (``AsStridedBackward0`` of the base's ``CopySlices``), not the in-place node that ``CopySlices``
        wraps: a double backward through it then flows through the base's history and meets its hooks and
        ``retain_grad``, as PyTorch's ``SavedVariable`` does it (``is_inplace_on_view``). The history is
        held weakly (the node holds this record: a strong reference would make a cycle); once gone, the
        node stands in, as in PyTorch."""
        self._data = tensor._data
        self._version_counter = tensor._vc
        self.saved_version = tensor._vc.value
        self.output_nr = tensor._output_nr
        if tensor._base is not None and tensor._grad_fn is not None:
            self._view_history = weakref.ref(tensor._grad_fn)

    def _output_history(self, node):
        """The ``grad_fn`` of the unpacked output: ``node``, or the view's history after an in-place op."""
        history = self._view_history() if self._view_history is not None else None
        return node if history is None else history

    def release(self) -> None:
        """Drop the saved value (after a backward without ``retain_graph``)."""
        self._tensor = self._data = self._packed = self._edge = None
        self._released = True

    def _version_error(self, node, current: int) -> str:
        shape = list(self._shape_for_message())
        kind = f"[al.{self._legacy_type_name()} {shape}]"
        owner = node if self.is_output else self._current_grad_fn()
        nr = self.output_nr if self.is_output else (self._tensor._output_nr if self._tensor is not None else 0)
        where = f", which is output {nr} of {_forward_name(owner)}," if owner is not None else ""
        culprit = self._version_counter.last_op
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: {kind}{where} is at version {current}; expected version {self.saved_version} "
            "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with al.autograd.set_detect_anomaly(True, check_nan=False).\n"
            f"[autograd_lab] It was saved as '{self._name}' by {node.name()} at version {self.saved_version}"
            + (f"; the last in-place op on it was {culprit} (version {current})" if culprit else "")
            + ". Use an out-of-place op (e.g. x = x * 2 instead of x *= 2) or .clone() the tensor "
            "before modifying it."
        )

    def _current_grad_fn(self):
        """The saved input's history now (a view modified in place has a rebuilt one), for messages."""
        if self._tensor is None:
            return None
        try:
            return self._tensor.grad_fn
        except RuntimeError:  # a view whose history cannot be rebuilt
            return self._tensor._grad_fn

    def _source(self):
        if self._tensor is not None:
            return self._tensor._data
        return self._data

    def _shape_for_message(self):
        data = self._source()
        return () if data is None else data.shape

    def _legacy_type_name(self) -> str:
        from ..backend import from_np
        data = self._source()
        return "Tensor" if data is None else from_np(data.dtype)._legacy_name

    def __repr__(self) -> str:
        state = "freed" if self._released else f"saved at version {self.saved_version}"
        return f"<SavedTensor '{self._name}' ({'output' if self.is_output else 'input'}, {state})>"


def _forward_name(node) -> str:
    """How PyTorch's in-place error names the op that made a tensor: ``MulBackward0`` -> ``Mul``,
    ``PowBackward1`` -> ``Pow1``; other nodes by their name."""
    name = node.name()
    match = re.fullmatch(r"(.+)Backward(\d*)", name)
    if match is None:
        return name
    return match.group(1) + ("" if match.group(2) == "0" else match.group(2))


class saved_tensors_hooks:
    """Within this context, every tensor saved for backward goes through ``pack_hook`` and is
    restored by ``unpack_hook`` when backward needs it (nestable, per thread).

    A class, as in PyTorch, so that a pair of hooks can be packaged as a subclass that calls
    ``super().__init__(pack_hook, unpack_hook)`` (``save_on_cpu`` is one); an object may be entered
    again, and nested in itself.
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _hooks.disabled_message is not None:
            raise RuntimeError(_hooks.disabled_message)
        _hooks.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc) -> None:
        _hooks.stack.pop()


@contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Within this context, using saved-tensor hooks raises ``RuntimeError(error_message)``."""
    previous = _hooks.disabled_message
    _hooks.disabled_message = error_message
    try:
        yield
    finally:
        _hooks.disabled_message = previous


# -- save_on_cpu (custom Functions and saved-tensor hooks work) ------------------------------------
class save_on_cpu(saved_tensors_hooks):
    """Within this context, tensors saved for backward are kept in CPU memory and moved back to
    their device when backward unpacks them: GPU memory is traded for transfer time.

    It is ``saved_tensors_hooks`` with a pack hook ``tensor -> (device, tensor.cpu())`` and an unpack
    hook ``(device, cpu_tensor) -> cpu_tensor.to(device)``. A CPU tensor is kept as it is (nothing is
    copied); a CUDA tensor is copied to host memory when saved and back to its device when unpacked.
    ``pin_memory`` asks for non-blocking copies back to the device (it changes nothing on the CPU).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        self.pin_memory = pin_memory
        self.device_type = device_type

        def pack_to_cpu(tensor):
            if tensor.device.type == "cpu":
                return (tensor.device, tensor)
            return (tensor.device, tensor.detach().cpu())  # a host copy, out of the graph (unpack reattaches it)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


# -- allow_mutation_on_saved_tensors --------------------------------------------------------------------

OUTSIDE_MUTATION_CONTEXT = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context in which "
                            "the graph was originally recorded.")


class _Handle:
    """What the pack hook keeps in a saved record under ``allow_mutation_on_saved_tensors``."""

    __slots__ = ("version", "__weakref__")


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` context (what the ``with`` gives, for looking
    into): ``original`` maps each saved record's handle to the tensor saved, ``cloned`` to the copy taken
    just before an in-place op first wrote into that tensor's memory; ``handles`` groups the handles by
    version counter, i.e. by memory (views share their base's counter). Cleared when the context exits.
    """

    def __init__(self) -> None:
        self.original: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.cloned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.handles: dict = {}  # id(counter) -> (counter, WeakSet of handles saved with that counter)

    def pack(self, tensor) -> _Handle:
        counter = tensor._vc
        handle = _Handle()
        handle.version = counter.value
        self.original[handle] = tensor
        entry = self.handles.get(id(counter))
        if entry is None:
            entry = self.handles[id(counter)] = (counter, weakref.WeakSet())
        entry[1].add(handle)
        return handle

    def unpack(self, handle: _Handle):
        if _hooks.write_watch is not self:
            raise AssertionError(OUTSIDE_MUTATION_CONTEXT)
        value = self.cloned.get(handle)
        if value is None:
            value = self.original.get(handle)
            if value is None:
                raise AssertionError(OUTSIDE_MUTATION_CONTEXT)
        return value

    def before_write(self, tensor) -> None:
        """Called by every in-place write before it writes into ``tensor``: copy each tensor saved with
        that memory, at its current version, so that backward reads the values it had when saved."""
        counter = tensor._version_counter
        entry = self.handles.get(id(counter)) if counter is not None else None
        if entry is None:
            return
        copies: dict = {}  # one copy per tensor, however many records saved it
        for handle in list(entry[1]):
            if handle.version != counter.value or handle in self.cloned:
                continue  # (an older version was changed outside this context: the version check will say so)
            original = self.original.pop(handle, None)
            if original is None:
                continue
            copy = copies.get(id(original))
            if copy is None:
                copy = copies[id(original)] = _Tensor._make(original._data.copy())
            self.cloned[handle] = copy

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()
        self.handles.clear()


@contextmanager
def allow_mutation_on_saved_tensors():
    """Within this context, tensors saved for backward may be modified in place: just before an in-place
    op first writes into the memory of a saved tensor, the saved values are copied, and backward uses
    the copy. Run both the forward and the backward inside the same context (backward outside it raises).

    Built from a pair of saved-tensor hooks (a handle per saved tensor) and a check that every in-place
    write makes first (``before_write``). Yields the context's state, cleared on exit. Not nestable.
    """
    if _hooks.write_watch is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    state = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(state.pack, state.unpack):
        _hooks.write_watch = state
        try:
            yield state
        finally:
            state.clear()
            _hooks.write_watch = None
