"""Custom autograd Functions: write a forward and its backward yourself, as with ``torch.autograd.Function``.

::

    class Square(al.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)          # version-checked, goes through saved-tensor hooks
            return x * x
        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad               # one gradient (or None) per argument of forward

    y = Square.apply(x)                       # y.grad_fn is a SquareBackward node

``forward`` runs under ``no_grad``: it computes values, and ``apply`` records one node for the whole
call. That node is also the ``ctx`` that ``forward`` filled in, as in PyTorch, so
``y.grad_fn.saved_tensors`` and any attribute set on ``ctx`` can be read from the graph. With a
``setup_context(ctx, inputs, output)`` staticmethod, ``forward`` takes no ``ctx``.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from .. import backend
from ..overrides import handle_torch_function, has_torch_function
from . import anomaly as _anomaly
from . import forward_ad
from . import grad_mode as _gm
from .graph import Node, gradient_edge
from .saved import SavedTensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

_dual = forward_ad._state
_ONCE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _is_tensor(value) -> bool:
    from ..tensor import Tensor
    return isinstance(value, Tensor)


def _forward_name(node_name: str) -> str:
    return node_name[: -len("Backward")] if node_name.endswith("Backward") else node_name


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) tells ``backward`` through ``ctx``.

    Besides these methods, any attribute may be set on ``ctx`` (``ctx.k = k``) for non-tensor
    values; tensors needed by backward go through ``save_for_backward`` so that in-place changes
    are caught and saved-tensor hooks apply.
    """

    to_save = None
    dirty_tensors = None
    non_differentiable = None
    _materialize_grads = True
    _forward_saved = None  # what save_for_forward kept; ``saved_tensors`` reads it while ``jvp`` runs

    def save_for_backward(self, *tensors) -> None:
        """Keep ``tensors`` (or ``None``) for backward; read them back as ``ctx.saved_tensors``.

        Each is recorded with its version: if it is modified in place before backward reads it,
        reading raises instead of computing with changed values. Call it at most once per forward
        (a second call replaces the first).
        """
        for i, t in enumerate(tensors):
            if t is not None and not _is_tensor(t):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type {type(t).__name__}"
                    " [autograd_lab] keep non-tensor values as attributes of ctx instead (ctx.name = value)"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Keep ``tensors`` (or ``None``) for ``jvp``, the forward-mode derivative; inside ``jvp`` they are
        ``ctx.saved_tensors``. Kept only until ``jvp`` has run."""
        for i, t in enumerate(tensors):
            if t is not None and not _is_tensor(t):
                raise TypeError(f"save_for_forward expects all arguments to be tensors; but got {type(t).__name__} at "
                                f"position {i} [autograd_lab] keep non-tensor values as attributes of ctx instead")
        self._forward_saved = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare the inputs that ``forward`` modified in place; they must be returned as outputs.

        Their version counter is bumped and their history is rewritten to go through this node
        (through ``CopySlices`` on the base for a view), as a built-in in-place op does.
        """
        for i, t in enumerate(tensors):
            if not _is_tensor(t):
                raise RuntimeError(f"mark_dirty can only accept variables, but argument {i} is of type "
                                   f"{type(t).__name__}")
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that have no gradient (indices, masks): they will not require grad, and
        backward still receives a gradient slot for each (zeros, or None without materialization)."""
        for t in tensors:
            if not _is_tensor(t):
                raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got "
                                   f"{type(t).__name__}")
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (default) or ``None`` for outputs that received no gradient."""
        self._materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node recorded by ``MyFn.apply`` (a subclass named ``MyFnBackward``); it is also the ctx.

    Its backward calls ``MyFn.backward(ctx, *grad_outputs)`` and checks what comes back: one
    gradient or ``None`` per argument of ``forward``, each a tensor shaped like its input.
    """

    _forward_cls: type = None  # the Function subclass (set on each generated subclass)
    _output_devices: tuple = ()  # per output: its device, None for a non-tensor output
    _arg_is_tensor: tuple = ()  # per forward argument
    runs_without_grads = True  # the engine calls backward even when no output received a gradient

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, each checked against in-place changes (in ``jvp``: those
        given to ``save_for_forward``)."""
        if self._forward_saved is not None:
            return self._forward_saved
        return tuple(None if record is None else record.unpack(self) for record in self._saved)

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The ``SavedTensor`` records behind ``saved_tensors`` (version at save, hooks, freed state)."""
        return self._saved

    def _release_saved(self) -> list[str]:
        freed = []
        for i, record in enumerate(self._saved):
            if record is not None and not record._released:
                record.release()
                freed.append(f"saved_tensors[{i}]")
        self._released = True
        return freed

    def _backward(self, grad_outputs: tuple) -> tuple:
        grads = list(grad_outputs)
        if self._materialize_grads:
            for i, grad in enumerate(grads):
                device = self._output_devices[i]
                if grad is None and device is not None:
                    shape, dtype = self._output_meta[i]
                    grads[i] = _zeros(shape, dtype, device)
        result = self._check_result(_user_backward(self._forward_cls)(self, *grads))
        return tuple(g for g, is_tensor in zip(result, self._arg_is_tensor) if is_tensor)  # one per edge

    def _check_result(self, result) -> tuple:
        """One gradient (or None) per forward argument, each a Tensor shaped for its input (whose edge is the next
        of ``next_functions``: as in PyTorch, only the tensor arguments have one)."""
        name = self.name()
        result = result if isinstance(result, tuple) else (result,)
        expected = len(self._arg_is_tensor)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]  # extra trailing Nones are allowed, as in PyTorch
        if len(result) != expected:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected {expected}, got {len(result)}) "
                f"[autograd_lab] {self._forward_cls.__name__}.backward must return one gradient per argument of "
                "forward (after ctx), in order: None for arguments that are not tensors or need no gradient"
            )
        edges = iter(self.next_functions)
        for i, grad in enumerate(result):
            child, nr = next(edges) if self._arg_is_tensor[i] else (None, 0)
            if grad is None:
                continue
            if not self._arg_is_tensor[i]:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position {i + 1}, but the "
                    "corresponding forward input was not a Variable [autograd_lab] argument "
                    f"{i} of forward is not a tensor: return None in its place"
                )
            if not _is_tensor(grad):
                raise RuntimeError(
                    f"expected Variable or None (got {type(grad).__name__}) [autograd_lab] {name} returned a "
                    f"{type(grad).__name__} as gradient {i}; return a Tensor (e.g. built with al.tensor) or None"
                )
            if child is None:
                continue  # the input needs no gradient: whatever came back is dropped
            shape = tuple(child._output_meta[nr][0])
            got = tuple(grad._data.shape)
            if got != shape and not _expandable(shape, got):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got {list(got)} but expected shape "
                    f"compatible with {list(shape)} [autograd_lab] the gradient for input {i} must have that input's "
                    "shape (a shape it was broadcast to is summed back down; a smaller one is an error)"
                )
        return result


def _expandable(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (a gradient of shape ``target`` then sums down to it)."""
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(shape, target[len(target) - len(shape):]))


def _zeros(shape, dtype, device):
    from ..tensor import Tensor
    return Tensor._make(backend.namespace_for(device).zeros(shape, dtype=dtype))


def _user_backward(cls):
    backward = inspect.getattr_static(cls, "backward")
    vjp = inspect.getattr_static(cls, "vjp")
    own_backward = backward is not inspect.getattr_static(Function, "backward")
    own_vjp = vjp is not inspect.getattr_static(Function, "vjp")
    if own_backward and own_vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return cls.vjp if own_vjp else cls.backward


class FunctionMeta(type):
    """Gives each ``Function`` subclass its node class, ``<ClassName>Backward``."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom differentiable operations (see the module docstring).

    Subclasses define static ``forward`` and ``backward`` (and optionally ``setup_context``) and
    are used through ``apply``; they are never instantiated.
    """

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you should "
            "invoke them on the class itself. Instantiating an autograd function will raise an error in a future "
            "version of PyTorch.", DeprecationWarning, stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch."
            f"autograd.Function) [autograd_lab] call {type(self).__name__}.apply(...) on the class instead"
        )

    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs (under no_grad). ``forward(ctx, *args)``, or ``forward(*args)`` with setup_context."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output):
        """Optional: fill ``ctx`` from the inputs and output, when ``forward`` takes no ``ctx``."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Given one gradient per output, return one gradient (or None) per argument of forward."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode derivative: given one tangent per argument of forward (zeros for a tensor without one,
        None for a non-tensor), return one tangent (or None) per output. Tensors kept with
        ``ctx.save_for_forward`` are ``ctx.saved_tensors`` here."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` on the arguments and, if any tensor argument requires grad, record the node."""
        if has_torch_function(args):  # a Tensor subclass that takes calls over (the legacy Variable)
            return handle_torch_function(cls.apply, args, kwargs)
        setup_style = inspect.getattr_static(cls, "setup_context") is not inspect.getattr_static(Function,
                                                                                                   "setup_context")
        if setup_style:
            try:
                bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{exc} [autograd_lab] {cls.__name__} defines setup_context, so its forward takes the "
                                "inputs only (no ctx): forward(x, ...), setup_context(ctx, inputs, output)") from exc
            bound.apply_defaults()
            if bound.kwargs:  # keyword-only parameters: setup_context's ``inputs`` could not hold them
                raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(bound.kwargs))}' "
                                f"[autograd_lab] {cls.__name__} defines setup_context, whose inputs are forward's "
                                "positional arguments: make the keyword-only parameters of forward positional")
            args, kwargs = tuple(bound.args), {}
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        Node.__init__(ctx)
        ctx._arg_is_tensor = tuple(_is_tensor(a) for a in args)
        ctx.needs_input_grad = tuple(is_t and a.requires_grad for is_t, a in zip(ctx._arg_is_tensor, args))
        executable = _gm._state.grad_enabled and not _gm._state.inference and any(ctx.needs_input_grad)
        if executable:
            ctx.next_functions = tuple(gradient_edge(a) for is_t, a in zip(ctx._arg_is_tensor, args) if is_t)
        with _gm.no_grad(), forward_ad.without_tangents():  # (forward's own ops carry no tangents: jvp gives them)
            if setup_style:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        returned = output if is_tuple else (output,)
        outputs, aliased = _wrap_outputs(cls, ctx, args, returned, executable)
        if _dual.level is not None:  # forward-mode AD: the outputs' tangents, from cls.jvp
            forward_ad.function_jvp(cls, ctx, args, returned, outputs)
        if executable:
            _save_tensors(ctx, aliased if setup_style else set())
            for out in outputs:  # a modified view's base got a CopySlices around ctx: it keeps (and frees) ctx's saves
                base = out._base if _is_tensor(out) else None
                if base is not None and getattr(base._grad_fn, "fn", None) is ctx:
                    base._grad_fn._saved = ctx._saved
            if _anomaly._state.enabled:
                _anomaly.record_forward_trace(ctx)
        ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = None  # no references to outputs: no cycles
        return outputs if is_tuple else outputs[0]


def _alias(tensor):
    """A new tensor object viewing ``tensor`` (what an input returned as-is becomes)."""
    from ..ops.shape import AliasBackward0
    with _gm.no_grad():
        return AliasBackward0.apply(tensor)


def _mark_dirty(cls, dirty: tuple, executable: bool) -> None:
    """Bump the version of each tensor ``forward`` modified, then refuse what an in-place op refuses:
    leaves that require grad, inference tensors outside inference mode, restricted views."""
    from ..ops.inplace import check_inplace
    for t in dirty:
        t._vc.bump(f"{cls.__name__} (ctx.mark_dirty)")
    for t in dirty:
        if executable and t._base is None and t._grad_fn is None and t._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation. [autograd_lab] "
                f"{cls.__name__} marked a leaf that requires grad dirty; call it under al.no_grad() or on a clone()"
            )
        check_inplace(t, f"{cls.__name__}.apply")


def _wrap_outputs(cls, ctx, args, outputs: tuple, executable: bool) -> tuple[tuple, set]:
    """Give the outputs their history, as PyTorch's custom-function machinery does (see each branch).

    Returns the outputs and the ids of the inputs that were returned as-is (each output is a view of it).
    """
    from ..ops.inplace import rebase_history
    input_ids = {id(a) for a in args if _is_tensor(a)}
    dirty = ctx.dirty_tensors or ()
    dirty_ids = {id(t) for t in dirty}
    non_diff_ids = {id(t) for t in ctx.non_differentiable or ()}
    _mark_dirty(cls, dirty, executable)
    output_ids = {id(o) for o in outputs}
    if any(id(t) not in output_ids for t in dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. The "
                           "inputs that are modified inplace must all be outputs of the Function.")
    if any(id(t) not in input_ids for t in dirty):
        warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                      "mutated should be passed to ctx.mark_dirty().", UserWarning, stacklevel=3)

    name = ctx.name()
    results, meta, devices, differentiable_views, aliased = [], [], [], [], set()
    n_differentiable = 0
    for i, out in enumerate(outputs):
        if not _is_tensor(out):
            results.append(out)
            meta.append(((), None))
            devices.append(None)
            continue
        meta.append((out._data.shape, out._data.dtype))
        devices.append(out.device)
        is_input, is_dirty = id(out) in input_ids, id(out) in dirty_ids
        differentiable = executable and id(out) not in non_diff_ids and out._data.dtype.kind == "f"
        if not differentiable:
            if not out.requires_grad:
                if is_input and not is_dirty:
                    out = _alias(out)  # a distinct tensor object, so that marking it cannot touch the input
            elif is_input:
                out = out.detach()  # an alias without history: the caller's tensor keeps its requires_grad
            elif out._base is None:
                out.detach_()  # made with grad inside forward (under enable_grad) but declared non-differentiable
        elif is_dirty:
            if out._base is not None and len(outputs) > 1:
                raise RuntimeError(_DIRTY_VIEW_MULTI_OUTPUT)
            if out._base is not None and _tensor_index(args, out) != 0:
                raise RuntimeError(
                    f"[autograd_lab] {cls.__name__} modifies in place its tensor argument {_tensor_index(args, out)}, "
                    "a view of another tensor: the history of the view's base can only be rewritten for a Function's "
                    "first tensor argument (PyTorch builds a wrong graph here). Make the modified view the first "
                    "tensor argument of forward, or pass a .clone() of it."
                )
            rebase_history(out, ctx, i)
        else:
            if is_input:
                aliased.add(id(out))
                out = _alias(out)
            out._grad_fn = ctx
            out._output_nr = i
        n_differentiable += differentiable
        if out._base is not None and not (is_input and is_dirty):
            out._creation_meta = ("custom_function", i, name)
            if differentiable:
                differentiable_views.append(out)
        results.append(out)
    if n_differentiable > 1:
        for view in differentiable_views:  # several differentiable outputs: their views may not be modified in place
            view._creation_meta = ("multi", view._output_nr, name)
    ctx._output_meta = tuple(meta)
    ctx._output_devices = tuple(devices)
    return tuple(results), aliased


_DIRTY_VIEW_MULTI_OUTPUT = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is "
    "not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change."
)


def _tensor_index(args, tensor) -> int:
    """The position of ``tensor`` among the tensor arguments (its edge in ``next_functions``)."""
    return [a for a in args if _is_tensor(a)].index(tensor)


def _save_tensors(ctx, refused_ids: set) -> None:
    """Turn what ``save_for_backward`` received into version-checked records (hooks apply here).

    ``refused_ids``: inputs returned as-is, which cannot be saved when ``setup_context`` is used.
    """
    records = []
    for i, t in enumerate(ctx.to_save or ()):
        if t is None:
            records.append(None)
            continue
        if id(t) in refused_ids:
            raise RuntimeError(
                "An input that has been returned as-is as output is being saved for backward. This is not supported "
                "if you override setup_context. You should return and save a view of the input instead, e.g. with "
                "x.view_as(x) or setup ctx inside the forward function itself."
            )
        records.append(SavedTensor(t, t._grad_fn is ctx, f"saved_tensors[{i}]"))
    ctx._saved = tuple(records)


# -- once_differentiable ---------------------------------------------------------------------------
class Error(Node):
    """Stands in the graph of a gradient computed by a ``@once_differentiable`` backward: using it in
    another backward raises, instead of silently giving a wrong (missing) second derivative."""

    __slots__ = ("message",)

    def __init__(self, message: str, output_meta) -> None:
        super().__init__((), output_meta)
        self.message = message

    def _backward(self, grad_outputs: tuple) -> tuple:
        raise RuntimeError(self.message)


def once_differentiable(backward):
    """Decorate a ``backward`` that is not itself differentiable (say, written with NumPy).

    It then runs under ``no_grad``; when a higher-order derivative is requested, its results are
    attached to an ``Error`` node, so a second backward through them raises PyTorch's error.
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with _gm.no_grad():
            result = backward(ctx, *grad_outputs)
        if not _gm.is_grad_enabled() or not any(_is_tensor(g) and g.requires_grad for g in grad_outputs):
            return result
        grads = result if isinstance(result, tuple) else (result,)
        from ..tensor import Tensor
        node = Error(_ONCE_MESSAGE, [(g._data.shape, g._data.dtype) if _is_tensor(g) else ((), None) for g in grads])
        return tuple(Tensor._make(g._data, grad_fn=node, output_nr=i, version_counter=g._vc) if _is_tensor(g) else g
                     for i, g in enumerate(grads))
    return wrapper

