"""``Optimizer``: the base of SGD, Adam, AdamW and RMSprop. It holds ``param_groups`` (lists of parameters
with their own hyperparameters) and a per-parameter ``state`` (momentum buffers, running averages).

``step()`` updates the parameters in place under ``no_grad``, exactly as PyTorch does, so optimizing is
not itself recorded in the graph.
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable

from .. import backend, creation
from ..autograd.grad_mode import enable_grad
from ..nn.module import _reset_grad
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _Required:
    """The default of a hyperparameter that every param group must give (SGD's ``lr`` once was)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class of optimizers: ``opt.zero_grad()``, ``loss.backward()``, ``opt.step()``."""

    _scalar_state_keys: tuple[str, ...] = ("step",)  # state kept as one-element tensors of ``_step_dtype()``

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self._step_count = 0  # (a scheduler stepped before the optimizer warns, as in PyTorch)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got al.{params.dtype._legacy_name} [autograd_lab] pass model.parameters() or [tensor]")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyperparameters (unset ones take the defaults). The parameters
        may come with their names, as ``model.named_parameters()`` gives them: the names are kept in the group's
        ``param_names`` (all groups with names, or none)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        if isinstance(param_group["params"], set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        group = dict(param_group, **_split_names(param_group["params"]))
        params = group["params"]
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(param).__name__}")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor [autograd_lab] optimize the leaf tensors (the "
                                 "parameters) the result was computed from")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):  # (each step then updates it as often as it is listed)
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", UserWarning,
                          stacklevel=3)
        if any(("param_names" in group) != ("param_names" in other) for other in self.param_groups):
            raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                             f"{'with' if 'param_names' in group else 'without'} names to the optimizer")
        if {id(p) for g in self.param_groups for p in g["params"]} & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to ``None`` (the default), or to zeros in place."""
        for group in self.param_groups:
            for param in group["params"]:
                _reset_grad(param, set_to_none)

    def step(self, closure: Callable | None = None):
        """Update every parameter that has a gradient; ``closure`` re-evaluates and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._update_group(group)
        self._step_count += 1
        return loss

    def _update_group(self, group: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _update_group(group)")

    # -- saving and restoring -------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{'state': {index: state}, 'param_groups': [...]}`` with parameters numbered in group order."""
        index: dict[int, int] = {}
        groups, start = [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # a parameter listed twice in a group is numbered by its last place there, as in PyTorch
            index.update({id(param): i for i, param in enumerate(group["params"], start) if id(param) not in index})
            packed["params"] = [index[id(param)] for param in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyperparameters and state saved by ``state_dict`` (into an optimizer of the same shape)."""
        state_dict = copy.deepcopy(state_dict)
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        by_index = {i: p for g, s in zip(self.param_groups, saved_groups) for i, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for i, value in state_dict["state"].items():
            param = by_index.get(int(i))
            if param is None:
                continue
            self.state[param] = {k: _cast_like(v, param, k) for k, v in value.items()}
            for key in self._scalar_state_keys:  # (older PyTorch saved them as numbers)
                if key in value and not isinstance(value[key], Tensor):
                    self.state[param][key] = creation.tensor(float(value[key]), dtype=_step_dtype())
        for group, saved in zip(self.param_groups, saved_groups):
            params, names = group["params"], group.get("param_names")
            group.clear()  # the saved group replaces it (keys the optimizer added since, as initial_lr, go)
            group.update(self.defaults, **saved)  # (what an older PyTorch did not save takes the defaults)
            group["params"] = params
            if names is not None:
                group.setdefault("param_names", names)  # (saved names replace the group's)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _cast_like(value, param: Tensor, key: str):
    """State tensors follow their parameter's dtype, except the step counter; inside lists and dicts too
    (LBFGS keeps its history in lists), as PyTorch casts them."""
    if isinstance(value, Tensor) and key != "step" and value.is_floating_point():
        return value.to(param.dtype)
    if isinstance(value, dict):
        return {k: _cast_like(v, param, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(v, param, key) for v in value)
    return value


def _split_names(params) -> dict:
    """``{'params': [tensors]}``, with ``'param_names'`` when they came as ``(name, tensor)`` pairs."""
    params = [params] if isinstance(params, Tensor) else list(params)
    names = [p[0] for p in params if isinstance(p, tuple)]
    tensors = [p[1] if isinstance(p, tuple) else p for p in params]
    if not names:
        return {"params": tensors}
    if len(names) != len(tensors):
        raise ValueError("all optimizer params should be with/without names. Some param names are missing")
    return {"params": tensors, "param_names": names}


def _params_with_grad(group: dict) -> Iterable[Tensor]:
    return (p for p in group["params"] if p.grad is not None)


def _check_lr(lr) -> None:
    """PyTorch's checks of a learning rate: a number or a one-element tensor, not negative."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


def _refuse_tensor_betas(betas) -> None:
    """PyTorch also takes ``betas`` as tensors; its step then mixes their float32 arithmetic with the parameter's
    dtype in ways particular to each optimizer, which this one does not reproduce: refused, not approximated."""
    if any(isinstance(beta, Tensor) for beta in betas):
        raise ValueError("betas given as Tensors are not supported [autograd_lab] pass floats, e.g. betas=(0.9, 0.999)")


def _hyperparameter(value):
    """A hyperparameter as the step computes with it. PyTorch takes ``lr=torch.tensor(0.01)`` (and a tensor
    ``weight_decay``) too: a one-element tensor becomes a NumPy number of its dtype, so the step's scalar
    arithmetic with it rounds in that dtype (float32 unless float64 is the default), as PyTorch's does."""
    if isinstance(value, Tensor):
        return backend.to_host(value._data).reshape(())[()]
    return value


def _step_dtype():
    """The dtype of a step count kept as a tensor: float64 when that is the default dtype, else
    float32 (PyTorch's ``_get_scalar_dtype``)."""
    default = backend.get_default_dtype()
    return default if default is backend.float64 else backend.float32


def _implementation_options(**options) -> dict:
    """PyTorch's implementation switches, checked and kept in the defaults (as PyTorch keeps them).

    ``foreach`` and ``fused`` choose between PyTorch's kernels, which compute the same update: here one loop
    over the raw arrays runs for every choice. ``differentiable`` (a graph through the update) and ``capturable``
    (CUDA graphs) ask for what a step on raw arrays cannot give, so they are refused.
    """
    if options.get("fused") and options.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if options.get("differentiable"):
        raise RuntimeError("differentiable=True is not supported: this optimizer updates the raw arrays in place "
                           "under no_grad [autograd_lab] leave differentiable=False; to differentiate through an update, "
                           "write it with tensor ops (e.g. w - lr * g) outside the optimizer")
    if options.get("capturable"):
        raise RuntimeError("capturable=True is not supported: it is for CUDA graph capture, which autograd_lab does "
                           "not have [autograd_lab] leave capturable=False")
    return options
