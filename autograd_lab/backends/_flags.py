"""Backend modules whose boolean flags are checked when set, as PyTorch's are (``cudnn.benchmark = 1``
is an error there, not a silent truthy value)."""

from __future__ import annotations

import contextlib
import sys
import types


class FlagModule(types.ModuleType):
    """A module with boolean flags (``_bool_flags``) that refuse anything but a ``bool``."""

    _bool_flags: tuple = ()
    _backend_name = ""

    def __setattr__(self, name: str, value) -> None:
        if name in self._bool_flags and not isinstance(value, bool):
            raise RuntimeError(f"set_{name}_{self._backend_name} expects a bool, but got {type(value).__name__} "
                               f"[autograd_lab] write True or False (al.backends.{self._backend_name}.{name})")
        super().__setattr__(name, value)


def make_flag_module(module_name: str, backend_name: str, bool_flags: tuple) -> None:
    """Turn the module ``module_name`` (already imported) into a :class:`FlagModule`."""
    module = sys.modules[module_name]
    module.__class__ = FlagModule
    module._bool_flags = bool_flags
    module._backend_name = backend_name


@contextlib.contextmanager
def set_flags(module, **values):
    """Set flags of ``module`` for the duration of a ``with`` block (what each backend's ``flags()`` does);
    a value of ``None`` leaves that flag as it is."""
    values = {name: value for name, value in values.items() if value is not None}
    previous = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in previous.items():
            setattr(module, name, value)
