"""Adam and AdamW: steps scaled by running averages of the gradient and of its square (Kingma & Ba, 2015);
AdamW decays the weights directly instead of through the gradient (Loshchilov & Hutter, 2019)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.pointwise import maximum
from .optimizer import Optimizer, _params_with_grad

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """``m = b1*m + (1-b1)*g``, ``v = b2*v + (1-b2)*g^2``, ``p -= lr * m_hat / (sqrt(v_hat) + eps)``.

    ``m_hat`` and ``v_hat`` are the bias-corrected averages; ``amsgrad`` uses the largest ``v`` seen so far.
    """

    _decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, maximize: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def _update_group(self, group: dict) -> None:
        lr, (beta1, beta2), eps, decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        with no_grad():
            for param in _params_with_grad(group):
                grad = -param.grad if group["maximize"] else param.grad
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=backend.float32)
                    state["exp_avg"] = creation.zeros_like(param)
                    state["exp_avg_sq"] = creation.zeros_like(param)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = creation.zeros_like(param)
                state["step"].add_(1)
                step = state["step"].item()
                if decay != 0:
                    if self._decoupled:
                        param.mul_(1 - lr * decay)
                    else:
                        grad = grad.add(param, alpha=decay)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.add_(grad - exp_avg, alpha=1 - beta1)  # lerp towards the gradient
                exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                if group["amsgrad"]:
                    state["max_exp_avg_sq"].copy_(maximum(state["max_exp_avg_sq"], exp_avg_sq))
                    second = state["max_exp_avg_sq"]
                else:
                    second = exp_avg_sq
                denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
                param.add_(exp_avg / denom, alpha=-lr / (1 - beta1 ** step))


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * weight_decay`` before each Adam step."""

    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
