"""Adadelta: steps in the units of the parameter, from running averages of squared gradients and of squared
steps (Zeiler, 2012); ``lr`` only scales the result."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _addcmul_into, _bump_step, _decayed_gradient
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``v = rho*v + (1-rho)*g^2``, ``delta = sqrt(u + eps) / sqrt(v + eps) * g``, ``u = rho*u + (1-rho)*delta^2``,
    ``p -= lr * delta`` (``v`` is ``square_avg``, ``u`` is ``acc_delta`` in the state)."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        options = _implementation_options(maximize=maximize, capturable=capturable, foreach=foreach,
                                          differentiable=differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor Adadelta: ``square_avg.mul_().addcmul_()``,
        ``acc_delta.mul_().addcmul_()``, ``param.add_``."""
        lr, rho, eps, decay, maximize = (group[k] for k in ("lr", "rho", "eps", "weight_decay", "maximize"))
        lr, decay = _hyperparameter(lr), _hyperparameter(decay)
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "add_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["square_avg"] = creation.zeros_like(param)
                    state["acc_delta"] = creation.zeros_like(param)
                _bump_step(state["step"])
                grad, _ = _decayed_gradient(xp, param.grad._data, data, decay, maximize)
                square = _decay_then_addcmul(xp, state["square_avg"], rho, grad)
                std = xp.sqrt(square + eps)
                delta = xp.sqrt(state["acc_delta"]._data + eps)
                delta /= std
                delta *= grad
                _decay_then_addcmul(xp, state["acc_delta"], rho, delta)
                delta *= -lr
                data += delta
                param._vc.bump("add_")


def _decay_then_addcmul(xp, average, rho: float, values):
    """``average.mul_(rho).addcmul_(values, values, value=1 - rho)`` on the average's array; that array."""
    array = writable_array(average, "mul_")
    array *= rho
    average._vc.bump("mul_")
    _addcmul_into(xp, array, values, 1 - rho, None)
    average._vc.bump("addcmul_")
    return array
