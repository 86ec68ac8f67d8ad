"""Adagrad: each coordinate's step shrinks with the sum of its squared gradients so far (Duchi et al., 2011)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _addcmul_into, _bump_step, _decayed_gradient
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``sum += g^2``, ``p -= clr * g / (sqrt(sum) + eps)`` with ``clr = lr / (1 + (step - 1) * lr_decay)``.

    ``sum`` starts at ``initial_accumulator_value``; its state is made when the optimizer is, for every
    parameter, as in PyTorch (so ``state_dict()`` lists the parameters that never had a gradient too).
    """

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        for name, value in (("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        options = _implementation_options(foreach=foreach, maximize=maximize, differentiable=differentiable,
                                          fused=fused)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, **options))
        self._initial_sum = initial_accumulator_value
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(param)

    def _init_state(self, param) -> dict:
        """``step`` and ``sum``; ``sum`` starts at the constructor's ``initial_accumulator_value`` in every group
        (a group's own value is kept in the group but not used, as in PyTorch)."""
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0, dtype=_step_dtype())
            state["sum"] = creation.full_like(param, self._initial_sum)
        return state

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor Adagrad: ``sum.addcmul_``, ``param.addcdiv_``."""
        lr, lr_decay, eps, decay, maximize = (group[k] for k in ("lr", "lr_decay", "eps", "weight_decay", "maximize"))
        lr, decay = _hyperparameter(lr), _hyperparameter(decay)
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "addcdiv_")
                xp = backend.namespace_of(data)
                state = self._init_state(param)
                step = _bump_step(state["step"])
                grad, _ = _decayed_gradient(xp, param.grad._data, data, decay, maximize)
                clr = lr / (1 + (step - 1) * lr_decay)
                total = writable_array(state["sum"], "addcmul_")
                _addcmul_into(xp, total, grad, 1, None)
                state["sum"]._vc.bump("addcmul_")
                std = xp.sqrt(total)
                std += eps
                update = xp.multiply(grad, -clr)
                update /= std
                data += update
                param._vc.bump("addcdiv_")
