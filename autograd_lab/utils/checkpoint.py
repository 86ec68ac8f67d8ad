"""``al.utils.checkpoint``: trade compute for memory, as ``torch.utils.checkpoint`` does.

``checkpoint(block, x, use_reentrant=False)`` runs ``block(x)`` keeping none of the tensors its ops save for
backward, only its inputs; when backward needs them, ``block`` runs again (*recomputation*) and the tensors
it saves this time are used. Gradients are the same as without the checkpoint; peak memory is lower, and
the forward of the block runs twice. There are two ways to do it, as in PyTorch:

* ``use_reentrant=False`` (recommended): the block runs with recording on, inside saved-tensor hooks
  (:class:`~autograd_lab.autograd.graph.saved_tensors_hooks`) whose pack hook keeps an empty *holder*
  instead of each tensor. The first unpack during a backward pass reruns the block under a second pair of
  hooks that fills the holders, in the order the tensors were saved (and stops as soon as all are filled);
  the shape, dtype and device of each recomputed tensor are checked against the original's
  (``determinism_check``). The graph is the block's own graph, so ``autograd.grad``, ``inputs=``,
  keyword arguments and parameters used inside all work.
* ``use_reentrant=True``: the block is one custom :class:`~autograd_lab.autograd.Function`
  (``CheckpointFunctionBackward``) whose forward runs it under ``no_grad`` and whose backward reruns it
  with recording on and calls ``backward`` on the result: a backward inside the backward. That inner
  backward writes into ``.grad``, so it refuses ``autograd.grad`` and ``backward(inputs=...)``, and at
  least one input must require grad for any gradient to flow.

``preserve_rng_state=True`` (the default) saves the CPU generator's state before the forward and restores it
for the recomputation, so that ``dropout`` drops the same elements twice.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
import weakref

from .. import creation
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad
from ..autograd.saved import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "noop_context_fn"]

_USE_REENTRANT_WARNING = (
    "al.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
_SEQUENTIAL_WARNING = (
    "al.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
_REENTRANT_WITH_GRAD = (
    "When use_reentrant=True, al.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to "
    ".backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without "
    "passing the `inputs` argument.")


class CheckpointError(RuntimeError):
    """The recomputation of a non-reentrant checkpoint did not save what the forward saved."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward, none around the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True,
               preserve_rng_state: bool = True, **kwargs):
    """``function(*args, **kwargs)``, keeping only its inputs for backward and recomputing the rest there.

    ``use_reentrant`` should be given (without it: PyTorch's warning, and ``True``); see the module docstring
    for the two variants. ``context_fn`` returns two context managers, entered around the forward and
    around the recomputation (non-reentrant only). ``determinism_check='none'`` skips the comparison of
    recomputed tensors with the originals. ``debug=True`` adds the ops run by the forward and by the
    recomputation to a determinism error. ``early_stop=False`` runs the whole block when recomputing.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state=preserve_rng_state,
                                         context_fn=context_fn, determinism_check=determinism_check, debug=debug,
                                         early_stop=early_stop)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list of callables) one after the other on ``input``,
    in ``segments`` parts: every part but the last is checkpointed, the last runs as usual."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn.container import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_run_part(functions, start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return _run_part(functions, end + 1, len(functions) - 1)(input)


def _run_part(functions, start: int, end: int):
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input
    return forward


# -- the random state ------------------------------------------------------------------------------
def _rng_state(args):
    """The CPU generator's state, to replay the forward's random draws when recomputing."""
    devices = {a.device for a in args if isinstance(a, Tensor) and a.device.type != "cpu"}
    if devices:
        warnings.warn(f"al.utils.checkpoint: preserve_rng_state saves the CPU generator's state only; the generators "
                      f"of {sorted(map(str, devices))} cannot be read, so random ops there draw new numbers when the "
                      "block is recomputed", UserWarning, stacklevel=4)
    return creation.get_rng_state()


@contextlib.contextmanager
def _replayed_rng(state):
    """Within this context the CPU generator starts from ``state`` (nothing changes for ``None``); the state it
    had before comes back after."""
    if state is None:
        yield
        return
    current = creation.get_rng_state()
    creation.set_rng_state(state)
    try:
        yield
    finally:
        creation.set_rng_state(current)


# -- use_reentrant=True ----------------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint: one node, ``CheckpointFunctionBackward``, whose backward reruns the block and
    backpropagates through it with a backward of its own."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                          stacklevel=4)
        ctx.run_function = run_function
        ctx.rng_state = _rng_state(args) if preserve_rng_state else None
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        return run_function(*args)  # (a Function's forward runs under no_grad: nothing in the block is saved)

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not engine.is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_WITH_GRAD)
        inputs = list(ctx.inputs)
        for index, saved in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = saved.detach().requires_grad_(saved.requires_grad)
        with _replayed_rng(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        from ..autograd import backward
        backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


# -- use_reentrant=False ---------------------------------------------------------------------------
class _NoopSaveInputs(Function):
    """Saves the block's tensor inputs (version-checked, freed with the graph) and computes nothing."""

    @staticmethod
    def forward(ctx, dummy, *args):
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        return creation.empty(0)

    @staticmethod
    def backward(ctx, *grads):
        raise AssertionError("the checkpoint's input saver is not on any path from the outputs: it never runs")


def _saved_inputs(saver) -> list:
    """The block's arguments again, from the ``_NoopSaveInputs`` node: its tensors unpacked (version-checked)."""
    tensors = iter(saver.saved_tensors)
    return [next(tensors) if a is None else a for a in saver.args]


class _Holder:
    """What the forward's pack hook keeps instead of a tensor: filled by a recomputation, per backward pass."""

    __slots__ = ("values", "__weakref__")

    def __init__(self) -> None:
        self.values: dict = {}  # graph task id -> the recomputed tensor


class _StopRecomputation(Exception):
    """Raised inside the recomputation once every holder is filled (``early_stop``)."""


_unpack_ids = itertools.count(-2, -1)  # ids for unpacks outside a backward pass (``_saved_<name>``)


class _Frame:
    """One call of a non-reentrant checkpoint: its holders, the metadata of what they stand for, and how to
    recompute (``recompute(gid)`` fills the holders for the backward pass ``gid``)."""

    def __init__(self, rerun, determinism_check: str, early_stop: bool, debug: bool) -> None:
        self.rerun = rerun
        self.check = determinism_check == "default"
        self.early_stop = early_stop
        self.holders: list = []  # weak references: a holder dies with the node that saved it
        self.metadata: list = []
        self.forward_ops = [] if debug else None
        self.recomputed: set = set()

    def pack(self, tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        self.metadata.append(_metadata(tensor))
        return holder

    def unpack(self, holder: _Holder):
        gid = engine.current_graph_task_id()
        if gid == -1:
            gid = next(_unpack_ids)
        if gid not in self.recomputed:
            self.recompute(gid)
        if gid not in holder.values:
            raise CheckpointError("al.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                                  "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                                  "so only once. Otherwise please open an issue with details on your use case.")
        return holder.values.pop(gid)

    def recompute(self, gid) -> None:
        counter = itertools.count()
        recomputed_ops = [] if self.forward_ops is not None else None

        def fill(tensor):
            index = next(counter)
            if index >= len(self.holders):
                raise CheckpointError("al.utils.checkpoint: trying to save more tensors during recomputation than "
                                      "during the original forward pass.")
            holder = self.holders[index]()
            value = tensor.detach() if tensor.requires_grad else tensor
            if holder is not None:
                holder.values[gid] = value
            if self.early_stop and index + 1 == len(self.holders):
                raise _StopRecomputation
            return value

        try:
            with saved_tensors_hooks(fill, lambda value: value), enable_grad(), _ops_recorded(recomputed_ops):
                self.rerun()
        except _StopRecomputation:
            pass
        self.recomputed.add(gid)
        if self.check:
            self._check_match(gid, next(counter), recomputed_ops)

    def _check_match(self, gid, count: int, recomputed_ops) -> None:
        if count != len(self.holders) and not self.early_stop:
            raise CheckpointError(
                "al.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\nNumber of tensors "
                f"saved during recomputation: {count}.\n" + _ops_text(self.forward_ops, recomputed_ops))
        mismatches = []
        for index, ref in enumerate(self.holders):
            holder = ref()
            if holder is None or gid not in holder.values:
                continue
            now = _metadata(holder.values[gid])
            if now != self.metadata[index]:
                mismatches.append(f"tensor at position {index}:\nsaved metadata: {self.metadata[index]}\n"
                                  f"recomputed metadata: {now}\n")
        if mismatches:
            raise CheckpointError("al.utils.checkpoint: Recomputed values for the following tensors have different "
                                  "metadata than during the forward pass.\n" + "".join(mismatches)
                                  + _ops_text(self.forward_ops, recomputed_ops))


def _metadata(tensor) -> dict:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


def _ops_text(forward_ops, recomputed_ops) -> str:
    if forward_ops is None:
        return ("\nTip: To see a more detailed error message, pass `debug=True` to "
                "`al.utils.checkpoint.checkpoint(...)`.")
    return ("\nOperations executed during the original forward:\n  " + "\n  ".join(forward_ops)
            + "\nOperations executed during recomputation:\n  " + "\n  ".join(recomputed_ops or []))


@contextlib.contextmanager
def _ops_recorded(names):
    """Within this context the names of the ops run are appended to ``names`` (``debug=True``); nothing for ``None``."""
    if names is None:
        yield
        return
    from ..autograd.profiler import record_op_names
    with record_op_names(names):
        yield


def _checkpoint_without_reentrant(function, args, kwargs, *, preserve_rng_state, context_fn, determinism_check,
                                  debug, early_stop):
    forward_context, recompute_context = context_fn()
    rng = _rng_state(args) if preserve_rng_state else None
    dummy = creation.empty(0, requires_grad=True)  # (so that the saver records even when no input requires grad)
    saver = _NoopSaveInputs.apply(dummy, *args).grad_fn
    if saver is None:  # grad mode is off: nothing would be saved anyway
        return function(*args, **kwargs)

    def rerun():
        with _replayed_rng(rng), recompute_context:
            function(*_saved_inputs(saver), **kwargs)

    frame = _Frame(rerun, determinism_check, early_stop, debug)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context, _ops_recorded(frame.forward_ops):
        return function(*args, **kwargs)

