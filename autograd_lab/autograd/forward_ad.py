"""Forward-mode AD, as ``torch.autograd.forward_ad``: a tangent travels forward beside each value.

::

    import autograd_lab.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)      # a dual tensor: primal + tangent * epsilon
        y = f(x)                                  # every op computes y's tangent as it computes y
        jvp = fwAD.unpack_dual(y).tangent         # J_f(primal) @ tangent

Reverse mode (``backward``) gives one row of the Jacobian per pass (a vector-Jacobian product, vJP); forward
mode gives one column per pass (a Jacobian-vector product, JvP), and needs no graph: each op turns its inputs'
tangents into its output's tangent as it runs, with its own forward derivative (its ``f_<input>`` rules, beside
its ``d_<input>`` ones; see ``ops/_op_forward.py``). A custom ``Function`` gives one with ``jvp``.

A tangent is kept on its tensor (``_fw_grad``) while its dual level is open; leaving the level drops every
tangent it made. One level at a time (PyTorch does not nest them either), per thread: when none is open, the
only cost an op pays is one attribute check.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections import namedtuple

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What ``unpack_dual`` returns: the ``primal`` (a view of the tensor) and its ``tangent``."


def missing_rule(message: str) -> NotImplementedError:
    """The error for a tangent that meets an op (or custom Function) without a forward derivative: PyTorch's type,
    marked (``forward_rule_missing``) so that ``functional.jvp`` can fall back to reverse mode."""
    error = NotImplementedError(message)
    error.forward_rule_missing = True
    return error


class _Level:
    """An open dual level: its number and the tensors it gave a tangent (weakly: it keeps none alive)."""

    __slots__ = ("index", "duals")

    def __init__(self, index: int) -> None:
        self.index = index
        self.duals = weakref.WeakSet()


class _DualState(threading.local):
    level = None  # the open ``_Level`` of this thread, or None (then ops skip forward mode: one check)


_state = _DualState()


def enter_dual_level() -> int:
    """Open a dual level and return its number (0); tangents can be set until ``exit_dual_level``."""
    if _state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = _Level(0)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the open dual level: every tangent set or computed in it is dropped."""
    current = _state.level
    if current is None:
        raise RuntimeError("Dual level must be a positive number. [autograd_lab] no dual level is open: "
                           "exit_dual_level() closes what enter_dual_level() opened")
    if level is not None and level != current.index:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _state.level = None
    for tensor in list(current.duals):
        tensor.__dict__.pop("_fw_grad", None)


class dual_level:
    """Context manager for a dual level: ``with dual_level(): ...`` (see the module docstring)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def _check_level(level, op: str) -> _Level | None:
    current = _state.level
    if level is not None and (current is None or level != current.index):
        raise RuntimeError(f"Invalid level given to {op} [autograd_lab] dual level {level} is not the one open: pass "
                           "level=None (the open level)")
    return current


def make_dual(tensor, tangent, *, level: int | None = None):
    """A view of ``tensor`` that carries ``tangent`` (same shape) as its forward gradient, in the open level.

    Values computed from it carry tangents too; ``unpack_dual`` reads them. ``tangent`` itself is kept (not
    copied), as in PyTorch.
    """
    from ..tensor import Tensor
    current = _check_level(level, "_make_dual")
    if current is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (isinstance(tensor, Tensor) and isinstance(tangent, Tensor)):
        raise TypeError(f"make_dual expects two Tensors, got {type(tensor).__name__} and {type(tangent).__name__}")
    if tensor._data.dtype.kind != "f":
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype!r}")
    if tangent._data.dtype.kind != "f":
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype!r}")
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tensor._fw_grad is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {current.index} is not supported.")
    dual = tensor.view_as(tensor)
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor``: a view of it without tangent, and its tangent (``None`` if it has none);
    outside a dual level, ``(tensor, None)``."""
    from ..tensor import Tensor
    current = _check_level(level, "_fw_primal")
    if not isinstance(tensor, Tensor) or current is None:
        return UnpackedDualTensor(tensor, None)
    with without_tangents():
        primal = tensor.view_as(tensor)
    primal._fw_grad = None  # (a view that never takes its base's tangent: see tangent_of)
    return UnpackedDualTensor(primal, tangent_of(tensor))


# -- what ops and Functions use ----------------------------------------------------------------------
def tangent_of(tensor):
    """``tensor``'s tangent in the open level. A view made before its base had a tangent (an in-place op wrote a
    dual value into the base later) has none of its own: it gets the same view of the base's tangent, as PyTorch
    derives a view's tangent from its base's. (``unpack_dual``'s primal is a view that opts out.)"""
    tangent = tensor._fw_grad
    base = tensor._base
    if tangent is None and base is not None and base._fw_grad is not None and "_fw_grad" not in tensor.__dict__ \
            and _state.level is not None:
        from ..ops.view_history import replay_view
        with without_tangents():
            tangent = replay_view(base._fw_grad, tensor._view_chain)
        set_tangent(tensor, tangent)
    return tangent


def set_tangent(tensor, tangent) -> None:
    """Give ``tensor`` its tangent in the open level (the level drops it when it closes)."""
    tensor._fw_grad = tangent
    _state.level.duals.add(tensor)


def write_tangent(tensor, tangent) -> None:
    """``tensor`` was overwritten in place by a value whose tangent is ``tangent``: its own tangent is overwritten
    in place too where it can be (so views of it, such as a base's tangent, see the change), else replaced."""
    old = tensor._fw_grad
    if old is not None and old._data.flags.writeable and old.shape == tangent.shape and old.dtype == tangent.dtype:
        old._data[...] = tangent._data
        return
    set_tangent(tensor, tangent)


def function_jvp(cls, ctx, args: tuple, returned: tuple, outputs: tuple) -> None:
    """A custom Function's outputs get their tangents from ``cls.jvp(ctx, *tangents)``: one tangent per argument
    of forward (zeros for a floating-point tensor without one, None for the others), one back per output.

    ``returned``: what forward returned; ``outputs``: what ``apply`` returns (an input returned as-is is a view).
    """
    from ..tensor import Tensor
    given = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in given):
        ctx._forward_saved = None
        return
    from .function import Function
    if inspect.getattr_static(cls, "jvp") is inspect.getattr_static(Function, "jvp"):  # not overridden
        raise missing_rule("You must implement the jvp function for custom autograd.Function to use it with forward "
                           "mode AD.")
    input_ids = {id(a) for a in args}
    if any(id(t) not in input_ids for t in ctx.dirty_tensors or ()):
        raise RuntimeError("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, there "
                           "is no need to pass it to mark_dirty().")
    versions = [None if t is None else t._version for t in given]  # a dirty input's tangent must be bumped by jvp
    tangents = [t if t is not None or not isinstance(a, Tensor) or a._data.dtype.kind != "f"
                else Tensor._make(_zeros(a._data)) for t, a in zip(given, args)]
    if ctx._forward_saved is None:
        ctx._forward_saved = ()
    try:
        with without_tangents():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._forward_saved = None
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outputs)} "
                           f"but got {len(result)})")
    non_differentiable = {id(t) for t in ctx.non_differentiable or ()}
    dirty = {id(t) for t in ctx.dirty_tensors or ()}
    for i, (raw, out, tangent) in enumerate(zip(returned, outputs, result)):
        if tangent is not None and not isinstance(tangent, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(tangent).__name__}) for grad output {i}.")
        if not isinstance(out, Tensor):
            continue
        if out._data.dtype.kind != "f" or id(raw) in non_differentiable:
            if tangent is not None:
                raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                                   "forward output is not a differentiable Tensor.You should return None at that "
                                   "position instead.")
            continue
        _check_alias_rules(args, given, versions, out, tangent, id(out) in dirty)
        if tangent is None:
            continue
        if tangent.shape != out.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(out.shape)} while the given "
                               f"forward gradient is of size {list(tangent.shape)}. [autograd_lab] {cls.__name__}.jvp "
                               "returns one tangent per output, shaped like it")
        write_tangent(out, tangent)


def _root(tensor):
    return tensor if tensor._base is None else tensor._base


def _check_alias_rules(args: tuple, given: list, versions: list, out, tangent, is_dirty: bool) -> None:
    """A tangent follows its value: an input ``forward`` modified in place (``mark_dirty``) must have its tangent
    modified in place by ``jvp`` and returned as-is; an output viewing an input (or the input returned as-is) must
    get a view of that input's tangent. Checked, as in PyTorch, where the input came with a tangent."""
    if is_dirty:
        k = next(k for k, a in enumerate(args) if a is out)
        if given[k] is None:
            return
        if tangent is None or tangent._version == versions[k]:
            raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients inplace. If the "
                               "forward is modifying an input inplace, then the jvp function must modify the "
                               "corresponding gradient inplace.")
        if tangent is not given[k]:
            raise RuntimeError("An inplace custom Function is not returning the forward mode gradients as-is. If the "
                               "forward is modifying an input inplace, then the jvp function must modify the gradient "
                               "inplace and return it as-is.")
        return
    if out._base is None:
        return
    k = next((k for k, a in enumerate(args) if getattr(a, "_base", None) is not None and _root(a) is out._base
              or a is out._base), None)
    if k is None or given[k] is None:
        return
    if tangent is None or tangent._base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                           "returning a view.")
    if tangent._base is not _root(given[k]):
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the given "
                           "grad input.")


def _zeros(data):
    from ..backend import namespace_of
    return namespace_of(data).zeros(data.shape, dtype=data.dtype)


def remember_output_tangents(node, tangents: tuple) -> None:
    """Keep the tangents of a node's outputs with the node: a backward under ``create_graph`` rebuilds a saved
    output from its values (``SavedTensor``), and gives it its tangent back from here (forward over reverse)."""
    node._get_extras().output_tangents = (_state.level, tangents)


def restore_output_tangent(output, node, output_nr: int) -> None:
    extras = node._extras
    saved = None if extras is None else extras.output_tangents
    if saved is not None and saved[0] is _state.level and saved[1][output_nr] is not None:
        set_tangent(output, saved[1][output_nr])


class without_tangents:
    """No dual level while forward rules run: the ops they make carry no tangents (forward mode does not nest)."""

    def __enter__(self) -> None:
        self.level, _state.level = _state.level, None

    def __exit__(self, *exc) -> None:
        _state.level = self.level
