"""Containers: ``Sequential`` (modules applied in order), ``ModuleList`` and ``ModuleDict`` (registered
collections that a parent's ``parameters()`` sees, unlike a plain list or dict)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping

from .module import Module, _indent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(index: int, length: int, kind: str) -> int:
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range [autograd_lab] the {kind} holds {length} "
                         f"module{'' if length == 1 else 's'}")
    return index % length


class Sequential(Module):
    """Modules called in order, each on the previous one's output: ``Sequential(Linear(2, 8), ReLU(), ...)``.

    Also ``Sequential(OrderedDict(name=module, ...))`` to name the steps.
    """

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[_index(index, len(self), "Sequential")]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[_index(index, len(self), "Sequential")]
        self.add_module(key, module)

    def __delitem__(self, index) -> None:
        keys = list(self._modules)
        for key in (keys[index] if isinstance(index, slice) else [keys[_index(index, len(self), "Sequential")]]):
            del self._modules[key]
        if all(k.isdigit() for k in self._modules):  # keep numbering consecutive, as PyTorch does
            modules = list(self._modules.values())
            self._modules.clear()
            for i, module in enumerate(modules):
                self._modules[str(i)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self

    def pop(self, index: int = -1) -> Module:
        module = self[index]
        del self[index]
        return module

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential: this one's modules, then ``other``'s."""
        _check_sequential("add", other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other: Sequential) -> Sequential:
        _check_sequential("add", other)
        return self.extend(list(other))

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential with this one's modules ``times`` over (the same modules, so their parameters are shared)."""
        _check_repeats(self, times)
        return Sequential().extend(list(self) * times)

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        _check_repeats(self, times)
        return self.extend(list(self) * (times - 1))


def _check_sequential(operation: str, other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError(f"{operation} operator supports only objects of Sequential class, but {type(other)} is given.")


def _check_repeats(sequential: Sequential, times) -> None:
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")


class ModuleList(Module):
    """A list of modules, registered as children (indexed ``'0'``, ``'1'``...); it has no ``forward``."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_index(index, len(self), "ModuleList"))]

    def __setitem__(self, index: int, module: Module) -> None:
        self.add_module(str(_index(index, len(self), "ModuleList")), module)

    def __delitem__(self, index) -> None:
        modules = list(self._modules.values())
        del modules[index]
        self._modules.clear()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList(list(self) + list(other))

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def pop(self, index: int = -1) -> Module:
        module = self[index]
        del self[index]
        return module

    def _child_lines(self) -> list[str]:
        """Runs of identical modules print once, as ``(0-2): 3 x Linear(...)`` (PyTorch's ModuleList repr)."""
        texts = [repr(module) for module in self._modules.values()]
        lines, start = [], 0
        while start < len(texts):
            end = start
            while end + 1 < len(texts) and texts[end + 1] == texts[start]:
                end += 1
            text = _indent(texts[start], 2)
            if end == start:
                lines.append(f"({start}): {text}")
            else:
                lines.append(f"({start}-{end}): {end - start + 1} x {text}")
            start = end + 1
        return lines


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules) -> None:
        items = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in items:
            self[key] = module

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module
