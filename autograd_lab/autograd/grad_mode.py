"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is a context manager and a decorator, and the state is per thread, as in PyTorch: turning
gradients off in one thread never changes what another thread records.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _ModeState(threading.local):
    grad_enabled = True
    inference = False


_state = _ModeState()


def is_grad_enabled() -> bool:
    """True when new operations are recorded for backward."""
    return _state.grad_enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return _state.inference


_CLASS_WARNING = ("Decorating classes is deprecated and will be disabled in future versions. You should only decorate "
                  "functions or methods. To preserve the current behavior of class decoration, you can directly "
                  "decorate the `__init__` method and nothing else.")


class _Mode:
    """Base of the grad-mode context managers; subclasses set ``_enter``.

    An instance decorates a function (it runs in the mode), a generator function (its body runs in the
    mode, the caller between two items in its own) or, as PyTorch still allows with a ``FutureWarning``, a
    class: the result is then a function that constructs the class in the mode.
    """

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(_CLASS_WARNING, FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731  (PyTorch's wrapper, as it writes it)
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                # The generator's body runs in the mode; the caller, between items, in its own.
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:  # thrown in by the caller: pass it on
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:  # the generator finished: finish with its return value
                    return stop.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()

    def __enter__(self):
        self._saved = (_state.grad_enabled, _state.inference)
        self._enter()
        return None

    def __exit__(self, *exc) -> None:
        _state.grad_enabled, _state.inference = self._saved


class _BareDecoratorMode(_Mode):
    """A mode that also decorates without parentheses: ``@al.no_grad`` as well as ``@al.no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecoratorMode):
    """Context manager and decorator: operations inside are not recorded and save nothing.

    Tensors computed inside have ``requires_grad=False``. Optimizers update parameters in place
    under ``no_grad``, which is why that is allowed on leaves there. As a decorator it is written
    ``@al.no_grad`` or ``@al.no_grad()``.
    """

    def _enter(self):
        _state.grad_enabled = False


class enable_grad(_BareDecoratorMode):
    """Context manager and decorator (``@al.enable_grad`` or ``@al.enable_grad()``) that turns recording back
    on inside ``no_grad``."""

    def _enter(self):
        _state.grad_enabled = True


class set_grad_enabled(_Mode):
    """Turn recording on or off: as a function call, a context manager or a decorator.

    Called as a plain function (``al.set_grad_enabled(False)``) it switches the mode at once, as
    PyTorch's does; used in ``with`` it restores the previous mode on exit.
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}"
                            " [autograd_lab] pass True or False (e.g. bool(flag))")
        self.mode = mode
        self._previous = (_state.grad_enabled, _state.inference)
        _state.grad_enabled = self.mode

    def __call__(self, func):
        # Creating the decorator switched the mode (as a function call does): switch it back.
        _state.grad_enabled = self._previous[0]
        return super().__call__(func)

    def clone(self):
        current = _state.grad_enabled
        clone = set_grad_enabled(self.mode)
        _state.grad_enabled = current
        return clone

    def __enter__(self):
        self._saved = self._previous
        _state.grad_enabled = self.mode

    def _enter(self):  # pragma: no cover - __enter__ is overridden
        _state.grad_enabled = self.mode


class inference_mode(_Mode):
    """Like ``no_grad``, and stricter: tensors made inside are *inference tensors*.

    They have no version counter and can never be saved for backward later, which lets the library
    skip that bookkeeping. ``inference_mode(False)`` turns inference mode off (and gradients on)
    inside an enclosing ``inference_mode()``, as PyTorch's does. As a decorator it is written
    ``@al.inference_mode``, ``@al.inference_mode()`` or ``al.inference_mode(func)``.
    """

    def __new__(cls, mode_or_orig_func=True):
        if mode_or_orig_func is None or isinstance(mode_or_orig_func, bool):
            return super().__new__(cls)
        return cls()(mode_or_orig_func)

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def clone(self):
        return inference_mode(self.mode)

    def _enter(self):
        _state.grad_enabled = not self.mode
        _state.inference = self.mode
