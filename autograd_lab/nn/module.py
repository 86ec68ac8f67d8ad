"""``Module``: the base class of layers and models. It registers parameters, buffers and sub-modules
as they are assigned (``self.fc = Linear(...)``), walks them recursively, saves and loads them as a
``state_dict``, switches train/eval mode, and runs hooks around ``forward`` (:mod:`.module_hooks`).

With module tagging on (``set_module_tagging(True)``; importing the lab does it), each call also names
the graph nodes its forward made: ``node.metadata['module']`` is the module's qualified name.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator

from .. import backend
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import tagging
from .module_hooks import ModuleHooks
from .parameter import Buffer, Parameter, UninitializedTensorMixin
from .tagging import is_module_tagging_enabled, set_module_tagging

__all__ = ["Module", "set_module_tagging", "is_module_tagging_enabled"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find, and the keys it did not expect."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


def _indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return lines[0] if len(lines) == 1 else lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(ModuleHooks):
    """Base class of every layer and model: subclass it, assign layers in ``__init__``, write ``forward``.

    Its hooks (forward, backward) and what a call runs are in :mod:`autograd_lab.nn.module_hooks`."""

    training: bool
    _version = 1

    def __init__(self) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", OrderedDict())
        setattr_(self, "_buffers", OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", set())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", set())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)  # True/False once a full/non-full backward hook is registered

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- registration ---------------------------------------------------------------------------
    def _check_name(self, name: str, kind: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, a declared but absent one such as a disabled bias)."""
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(al.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not learnable (BatchNorm's running mean): saved in ``state_dict``
        unless ``persistent=False``, moved by ``.to()``, not returned by ``parameters()``."""
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' (al.Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a sub-module under ``name`` (what ``self.name = module`` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The sub-module at a dotted path, ``model.get_submodule('features.0')``."""
        module = self
        for part in target.split(".") if target else []:
            module = _attribute(module, part)
            if not isinstance(module, Module):
                raise AttributeError(f"`{part}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path, ``model.get_parameter('features.0.weight')``."""
        module_path, _, name = target.rpartition(".")
        param = _attribute(self.get_submodule(module_path), name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path, ``model.get_buffer('bn.running_mean')``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        buffer = _attribute(module, name)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(al.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(al.nn.Module or None expected)")
            self._modules[name] = None
        elif isinstance(value, Buffer):  # (nn.Buffer(t): registered, with its own persistence)
            if params is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self.register_buffer(name, value, value.persistent)
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' (al.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Remove ``name`` wherever it is registered, before it is registered again as something else."""
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        # only called when normal lookup fails: look in the registries
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    # -- walking the tree -----------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, Module]]:
        """This module and every module below it, with dotted names, each once (depth first)."""
        stack = [(prefix, self)]
        memo = set() if memo is None else memo
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            children = [(name + ("." if name else "") + key, child) for key, child in module._modules.items()
                        if child is not None]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct sub-modules, each once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for key, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
                         ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name (``'0.weight'``); a shared parameter appears once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, for an optimizer: ``SGD(model.parameters(), lr=0.1)``."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every sub-module (children first) and then on this module: custom initialisation."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- modes and gradients --------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``. It does not turn off gradients (use ``al.no_grad()`` for that)."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter: ``False`` freezes the module."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to ``None`` (the default), or to zeros in place."""
        for param in self.parameters():
            _reset_grad(param, set_to_none)

    # -- conversion -----------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter (in place, keeping the Parameter objects), gradient and buffer."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                with no_grad():
                    converted = fn(param)
                param._data = converted._data
                if param._grad is not None:
                    param._grad = fn(param._grad)
            for key, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[key] = fn(buffer)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Convert floating parameters and buffers to a dtype (``model.to(al.float64)``) and/or device."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for arg in args:
            if isinstance(arg, Tensor):
                dtype, device = arg.dtype, arg.device
            elif isinstance(arg, backend.dtype) or (isinstance(arg, str) and arg in backend._BY_NAME):
                dtype = arg
            else:
                device = arg
        if dtype is not None and not backend.to_dtype(dtype).is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype!r}")

        def convert(t: Tensor) -> Tensor:
            target = dtype if t.is_floating_point() else None
            return t.to(dtype=target, device=device)
        return self._apply(convert)

    def float(self) -> Module:
        return self.to(backend.float32)

    def double(self) -> Module:
        return self.to(backend.float64)

    def half(self) -> Module:
        return self.to(backend.float16)

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU (in place: the Parameter objects stay)."""
        return self.to("cpu")

    def cuda(self, device=None) -> Module:
        """Move every parameter and buffer to a CUDA device (``cuda`` or ``cuda:<device>``)."""
        return self.to(backend.device("cuda", device) if isinstance(device, int) else device or "cuda")

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.to(dst_type))

    # -- state_dict -----------------------------------------------------------------------------
    def state_dict(self, *, destination: dict | None = None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by dotted name, detached (``keep_vars`` keeps them as they are)."""
        destination = OrderedDict() if destination is None else destination
        for module_prefix, module in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            base = module_prefix + "." if module_prefix else ""
            for key, param in module._parameters.items():
                if param is not None:
                    destination[base + key] = param if keep_vars else param.detach()
            for key, buffer in module._buffers.items():
                if buffer is not None and key not in module._non_persistent_buffers_set:
                    destination[base + key] = buffer if keep_vars else buffer.detach()
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters and buffers in place.

        With ``strict`` (the default), missing or unexpected keys are an error; shape mismatches always are.
        ``assign=True`` makes the module hold the given tensors instead of copying into its own.
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
                continue
            if isinstance(target, UninitializedTensorMixin):  # a lazy module takes the saved shape, as PyTorch's does
                if isinstance(value, UninitializedTensorMixin):
                    continue  # (nothing was saved: nothing to load)
                target.materialize(tuple(value.shape))
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {target.shape}.")
                continue
            if assign:
                self._assign(key, value)
            else:
                with no_grad():
                    target.copy_(value)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                  "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _assign(self, key: str, value: Tensor) -> None:
        module_path, _, name = key.rpartition(".")
        module = self.get_submodule(module_path)
        if name in module._parameters:
            old = module._parameters[name]
            module._parameters[name] = value if isinstance(value, Parameter) else Parameter(value, old.requires_grad)
        else:
            module._buffers[name] = value

    # -- calling (the hooks and _call_impl: nn/module_hooks.py) --------------------------------------
    def __call__(self, *args, **kwargs):
        if tagging.enabled:
            return tagging.call_tagging_nodes(self, args, kwargs)
        return self._call_impl(*args, **kwargs)

    # -- printing -------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (its settings); sub-modules add their own lines."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def _child_lines(self) -> list[str]:
        return [f"({name}): {_indent(repr(module), 2)}" for name, module in self._modules.items()]

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = self._child_lines()
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return f"al.{value.dtype._legacy_name}"
    return type(value).__name__


def _reset_grad(param: Tensor, set_to_none: bool) -> None:
    """What ``zero_grad`` does to one parameter (shared with the optimizers)."""
    if param.grad is None:
        return
    if set_to_none:
        param.grad = None
        return
    grad = param.grad
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


def _attribute(module: Module, name: str):
    """``getattr`` for the ``get_*`` lookups, with PyTorch's message for a name the module does not have."""
    if not hasattr(module, name):
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    return getattr(module, name)
