"""Adamax: Adam with the infinity norm, a running maximum of gradient sizes in place of the root mean square
(Kingma & Ba, 2015, section 7)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _bump_step, _decayed_gradient, _lerp_into
from .optimizer import (
    Optimizer,
    _check_lr,
    _hyperparameter,
    _implementation_options,
    _params_with_grad,
    _refuse_tensor_betas,
    _step_dtype,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``m = b1*m + (1-b1)*g``, ``u = max(b2*u, |g| + eps)``, ``p -= lr / (1 - b1^step) * m / u``
    (``m`` is ``exp_avg``, ``u`` is ``exp_inf`` in the state)."""

    def __init__(self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_adam_like(lr, betas, eps, weight_decay)
        options = _implementation_options(foreach=foreach, maximize=maximize, differentiable=differentiable,
                                          capturable=capturable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor Adamax: ``exp_avg.lerp_``,
        ``maximum(exp_inf.mul_(beta2), |g| + eps, out=exp_inf)``, ``param.addcdiv_``."""
        lr, decay = _hyperparameter(group["lr"]), _hyperparameter(group["weight_decay"])
        (beta1, beta2), eps = group["betas"], group["eps"]
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "addcdiv_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["exp_avg"] = creation.zeros_like(param)
                    state["exp_inf"] = creation.zeros_like(param)
                step = _bump_step(state["step"])
                grad, _ = _decayed_gradient(xp, param.grad._data, data, decay, group["maximize"])
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                average = writable_array(exp_avg, "lerp_")
                _lerp_into(xp, average, grad, 1 - beta1)
                exp_avg._vc.bump("lerp_")
                largest = writable_array(exp_inf, "mul_")
                largest *= beta2
                exp_inf._vc.bump("mul_")
                size = xp.abs(grad)
                size += eps
                xp.maximum(largest, size, out=largest)
                exp_inf._vc.bump("maximum")
                update = xp.multiply(average, -lr / (1 - beta1 ** step))
                update /= largest
                data += update
                param._vc.bump("addcdiv_")


def _check_adam_like(lr: float, betas, eps: float, weight_decay: float) -> None:
    """PyTorch's checks of the hyperparameters Adam's relatives share."""
    _check_lr(lr)
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    _refuse_tensor_betas(betas)
