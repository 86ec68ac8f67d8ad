"""ASGD: stochastic gradient descent with a decaying step and a running (Polyak-Ruppert) average of the
iterates, kept in ``state['ax']`` (Polyak & Juditsky, 1992)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _bump_step, _decayed_gradient
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``p *= 1 - lambd * eta``, ``p -= eta * g``; then ``ax`` averages the iterates from step ``t0`` on
    (before it, ``ax`` is ``p``), and ``eta = lr / (1 + lambd * lr * t)^alpha``, ``mu = 1 / max(1, t - t0)``.

    The averaged weights ``ax`` are what ASGD offers at the end: copy them into the model to evaluate it.
    ``eta`` and ``mu`` are kept as one-element tensors of the step's dtype, as PyTorch keeps them.
    """

    _scalar_state_keys = ("step", "eta", "mu")

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        options = _implementation_options(foreach=foreach, maximize=maximize, differentiable=differentiable,
                                          capturable=capturable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor ASGD: ``param.mul_``, ``param.add_``,
        ``ax.add_`` (or ``ax.copy_`` while ``mu`` is 1), ``eta.copy_``, ``mu.copy_``."""
        lr, lambd, alpha, t0 = _hyperparameter(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        decay = _hyperparameter(group["weight_decay"])
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "mul_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.zeros((), dtype=_step_dtype())
                    state["eta"] = creation.tensor(lr, dtype=_step_dtype())
                    state["mu"] = creation.ones((), dtype=_step_dtype())
                    state["ax"] = creation.zeros_like(param)
                step = _bump_step(state["step"])
                grad, _ = _decayed_gradient(xp, param.grad._data, data, decay, group["maximize"])
                eta, mu = float(state["eta"]._data), float(state["mu"]._data)
                data *= 1 - lambd * eta
                param._vc.bump("mul_")
                data += xp.multiply(grad, -eta)
                param._vc.bump("add_")
                average = writable_array(state["ax"], "add_")
                if mu != 1:
                    change = data - average
                    change *= mu
                    average += change
                    state["ax"]._vc.bump("add_")
                else:
                    average[...] = data
                    state["ax"]._vc.bump("copy_")
                _write_number(state["eta"], lr / ((1 + lambd * lr * step) ** alpha))
                _write_number(state["mu"], 1 / max(1, step - t0))


def _write_number(tensor, value: float) -> None:
    """``tensor.copy_(torch.as_tensor(value))`` for a one-element state tensor: the number is rounded to the
    default dtype first (``as_tensor`` of a float), then to the tensor's, as PyTorch's ASGD writes it."""
    writable_array(tensor, "copy_")[...] = backend.get_default_dtype().np_dtype.type(value)
    tensor._vc.bump("copy_")
