"""Tensor subclasses that take ops over: PyTorch's ``__torch_function__`` protocol, as autograd_lab uses it.

A subclass of :class:`~autograd_lab.Tensor` may define a classmethod
``__torch_function__(cls, func, types, args=(), kwargs=None)``. When an argument of a differentiable op
(``Op.apply``) or of a custom Function (``Function.apply``) is an instance of such a class, the call is
handed to it instead: it may change the arguments, run ``func`` itself and change what comes out. While it
runs ``func`` inside ``DisableTorchFunctionSubclass()``, the call is not handed back to it again.

This is how the 2017 legacy layer wraps the core without patching it: ``Variable.__torch_function__``
makes the results of ops on Variables Variables, and runs ops on volatile inputs without recording.
Plain tensors (and ``nn.Parameter``) define no ``__torch_function__``: for them the check is one attribute
lookup per argument.
"""

from __future__ import annotations

import threading

__all__ = ["has_torch_function", "handle_torch_function", "DisableTorchFunctionSubclass",
           "is_torch_function_enabled"]


class _State(threading.local):
    disabled = False  # inside DisableTorchFunctionSubclass, in this thread


_state = _State()
PLAIN_TYPES = {int, float, bool, type(None)}  # never take ops over (autograd_lab.Tensor joins them on import)


def has_torch_function(args) -> bool:
    """Whether an argument's class defines ``__torch_function__`` (and the protocol is not disabled here)."""
    for arg in args:
        cls = arg.__class__
        if cls not in PLAIN_TYPES and getattr(cls, "__torch_function__", None) is not None:
            return not _state.disabled
    return False


def handle_torch_function(func, args: tuple, kwargs: dict):
    """Hand ``func(*args, **kwargs)`` to the ``__torch_function__`` of the first argument class that has one.

    As in PyTorch, subclasses come before their parents; a handler that returns ``NotImplemented`` lets the
    next one try.
    """
    types = []
    for arg in args:
        cls = arg.__class__
        if getattr(cls, "__torch_function__", None) is not None and cls not in types:
            types.append(cls)
    types.sort(key=lambda c: -len(c.__mro__))  # subclasses first
    for cls in types:
        result = cls.__torch_function__(func, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{getattr(func, '__qualname__', func)}' on types that implement "
                    f"__torch_function__: {[t.__name__ for t in types]}")


class DisableTorchFunctionSubclass:
    """Within this context (in this thread), ops run as if no argument defined ``__torch_function__``."""

    def __enter__(self) -> None:
        self._previous = _state.disabled
        _state.disabled = True

    def __exit__(self, *exc) -> None:
        _state.disabled = self._previous


def is_torch_function_enabled() -> bool:
    return not _state.disabled
