"""RAdam: Adam whose adaptive step is switched on, and rectified, only once the variance of its running
average of squared gradients is tractable (Liu et al., 2020)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _addcmul_into, _bump_step, _decayed_gradient, _lerp_into
from .adamax import _check_adam_like
from .optimizer import Optimizer, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam's averages ``m`` and ``v``; ``rho_inf = 2 / (1 - b2) - 1``, ``rho_t = rho_inf - 2 t b2^t / (1 - b2^t)``.

    While ``rho_t <= 5`` the step is momentum SGD, ``p -= lr * m_hat``; after it,
    ``p -= lr * m_hat * sqrt(1 - b2^t) / (sqrt(v) + eps) * r_t`` with the rectification
    ``r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.
    ``decoupled_weight_decay`` shrinks the weights directly, as AdamW does.
    """

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_adam_like(lr, betas, eps, weight_decay)
        options = _implementation_options(foreach=foreach, maximize=maximize, capturable=capturable,
                                          differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor RAdam: ``exp_avg.lerp_``,
        ``exp_avg_sq.mul_().addcmul_()``, ``param.add_`` (after ``param.mul_`` for decoupled decay)."""
        lr, decay = _hyperparameter(group["lr"]), _hyperparameter(group["weight_decay"])
        (beta1, beta2), eps = group["betas"], group["eps"]
        decoupled = group["decoupled_weight_decay"] and decay != 0
        rho_inf = 2 / (1 - beta2) - 1
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "add_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["exp_avg"] = creation.zeros_like(param)
                    state["exp_avg_sq"] = creation.zeros_like(param)
                step = _bump_step(state["step"])
                if decoupled:
                    data *= 1 - lr * decay
                    param._vc.bump("mul_")
                grad, _ = _decayed_gradient(xp, param.grad._data, data, 0 if decoupled else decay, group["maximize"])
                average = writable_array(state["exp_avg"], "lerp_")
                _lerp_into(xp, average, grad, 1 - beta1)
                state["exp_avg"]._vc.bump("lerp_")
                square = writable_array(state["exp_avg_sq"], "mul_")
                square *= beta2
                state["exp_avg_sq"]._vc.bump("mul_")
                _addcmul_into(xp, square, grad, 1 - beta2, None)
                state["exp_avg_sq"]._vc.bump("addcmul_")
                correction2 = 1 - beta2 ** step
                update = average / (1 - beta1 ** step)
                update *= lr
                rho_t = rho_inf - 2 * step * beta2 ** step / correction2
                if rho_t > 5.0:
                    root = xp.sqrt(square)
                    root += eps
                    update *= correction2 ** 0.5 / root  # the adaptive rate
                    update *= ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                data -= update
                param._vc.bump("add_")
