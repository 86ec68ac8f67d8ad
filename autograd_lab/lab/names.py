"""How the lab names what it draws: a tensor by the variable it is bound to, a parameter by its path.

A drawing labels each tensor with the name you would type to get it: ``x`` for a tensor bound to
``x``, ``net.fc1.weight`` for a parameter of a module bound to ``net``. With ``model=net`` given, the
parameters take their ``named_parameters()`` names (``fc1.weight``), as torchviz users know them.
Names are looked up where ``draw``/``step_backward`` is called, or in the notebook's namespace for
``watch``; names starting with ``_`` are skipped.
"""

from __future__ import annotations

import inspect

from ..nn.module import Module
from ..tensor import Tensor
from .snapshot import Snapshot, model_names

__all__ = ["caller_names", "caller_scope", "namespace_names", "guess_model", "type_modules"]


def namespace_names(scope: dict, *, modules: bool = True) -> tuple[dict[str, Tensor], dict[str, Module]]:
    """Tensors of ``scope`` by name, and (with ``modules``) the parameters of its modules as
    ``<variable>.<parameter path>``; a tensor with several names keeps the shortest, and a variable
    name always wins over a parameter path. Also returns the modules found."""
    found: dict[str, Module] = {}
    params: list[tuple[str, Tensor]] = []
    tensors: dict[str, Tensor] = {}
    for name, value in scope.items():
        if name.startswith("_"):
            continue
        if isinstance(value, Tensor):
            tensors[name] = value
        elif modules and isinstance(value, Module):
            found[name] = value
            params.extend((f"{name}.{path}", p) for path, p in value.named_parameters())
    params.sort(key=lambda item: -len(item[0]))  # the snapshot keeps the last name given to a tensor
    return {**dict(params), **tensors}, found


def caller_names(frames_up: int = 1, *, modules: bool = True) -> dict[str, Tensor]:
    """Tensors (and modules' parameters) bound to names in the calling frame: its globals, then its locals."""
    names, _ = caller_scope(frames_up + 1, modules=modules)
    return names


def caller_scope(frames_up: int = 1, *, modules: bool = True) -> tuple[dict[str, Tensor], dict[str, Module]]:
    """:func:`namespace_names` of the frame ``frames_up`` above the caller (globals, then locals)."""
    frame = inspect.currentframe()
    try:
        for _ in range(frames_up + 1):
            frame = frame.f_back
        return namespace_names({**frame.f_globals, **frame.f_locals}, modules=modules)
    finally:
        del frame


def guess_model(snap: Snapshot, modules: dict[str, Module]) -> Module | None:
    """The module (of ``modules``, by variable name) that made this graph: the one with the most leaves
    named after it (``net.fc1.weight``) that also has a module of a name tagged on the graph's nodes. (A
    loss module called on its own tags its nodes with its class name; that tag is simply not typed.)"""
    leaves = [t.name for t in snap.tensors.values() if t.is_leaf and t.name]
    tags = {n.module for n in snap.nodes.values() if n.module is not None}
    best, best_count = None, 0
    for variable, module in modules.items():
        count = sum(1 for name in leaves if name.startswith(variable + "."))
        if count > best_count and tags & set(model_names(module)[1]):
            best, best_count = module, count
    return best


def type_modules(snap: Snapshot, modules: dict[str, Module]) -> None:
    """Give ``snap`` the classes of its modules (``fc1`` -> ``Linear``) from the module of ``modules``
    that made it, unless it has them already (from ``model=``)."""
    if snap.module_types or not modules:
        return
    guessed = guess_model(snap, modules)
    if guessed is not None:
        snap.module_types = model_names(guessed)[1]
