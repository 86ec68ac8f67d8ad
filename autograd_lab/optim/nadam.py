"""NAdam: Adam with Nesterov momentum, its momentum warmed up by ``momentum_decay`` (Dozat, 2016)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _addcmul_into, _bump_step, _decayed_gradient, _lerp_into
from .adamax import _check_adam_like
from .optimizer import Optimizer, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``mu_t = b1 * (1 - 0.96^(t * momentum_decay) / 2)``; Adam's averages ``m`` and ``v``; then
    ``p -= lr * ((1 - mu_t) / (1 - prod mu) * g + mu_{t+1} / (1 - prod mu * mu_{t+1}) * m) / (sqrt(v_hat) + eps)``.

    ``state['mu_product']`` is the product of the ``mu`` so far; ``decoupled_weight_decay`` shrinks the weights
    directly, as AdamW does, instead of adding ``weight_decay * p`` to the gradient.
    """

    _scalar_state_keys = ("step", "mu_product")

    def __init__(self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_adam_like(lr, betas, eps, weight_decay)
        if momentum_decay < 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        options = _implementation_options(foreach=foreach, maximize=maximize, capturable=capturable,
                                          differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor NAdam: ``mu_product *= mu``, ``exp_avg.lerp_``,
        ``exp_avg_sq.mul_().addcmul_()``, two ``param.addcdiv_`` (after ``param.mul_`` for decoupled decay)."""
        lr, decay = _hyperparameter(group["lr"]), _hyperparameter(group["weight_decay"])
        (beta1, beta2), eps = group["betas"], group["eps"]
        momentum_decay, decoupled = group["momentum_decay"], group["decoupled_weight_decay"] and decay != 0
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "addcdiv_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["mu_product"] = creation.tensor(1.0, dtype=_step_dtype())
                    state["exp_avg"] = creation.zeros_like(param)
                    state["exp_avg_sq"] = creation.zeros_like(param)
                step = _bump_step(state["step"])
                if decoupled:
                    data *= 1 - lr * decay
                    param._vc.bump("mul_")
                grad, _ = _decayed_gradient(xp, param.grad._data, data, 0 if decoupled else decay, group["maximize"])
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                product = writable_array(state["mu_product"], "mul_")
                product *= mu  # (kept in the step's dtype, float32 unless float64 is the default, as PyTorch)
                state["mu_product"]._vc.bump("mul_")
                mu_product = float(product)
                average = writable_array(state["exp_avg"], "lerp_")
                _lerp_into(xp, average, grad, 1 - beta1)
                state["exp_avg"]._vc.bump("lerp_")
                square = writable_array(state["exp_avg_sq"], "mul_")
                square *= beta2
                state["exp_avg_sq"]._vc.bump("mul_")
                _addcmul_into(xp, square, grad, 1 - beta2, None)
                state["exp_avg_sq"]._vc.bump("addcmul_")
                denom = xp.sqrt(square / (1 - beta2 ** step))
                denom += eps
                for values, weight in ((grad, -lr * (1.0 - mu) / (1.0 - mu_product)),
                                       (average, -lr * mu_next / (1.0 - mu_product * mu_next))):
                    update = xp.multiply(values, weight)
                    update /= denom
                    data += update
                    param._vc.bump("addcdiv_")
