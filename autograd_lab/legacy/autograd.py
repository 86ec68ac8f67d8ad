"""``autograd_lab.legacy.autograd``: what ``torch.autograd`` held in 2017 (``Variable``, ``Function``,
``backward`` with ``grad_variables`` and ``retain_variables``), on the modern engine."""

from __future__ import annotations

from .. import autograd as _modern
from ..autograd import grad, no_grad  # noqa: F401  (as in the 2017 namespace, and the modern ones)
from ..tensor import Tensor
from ._dispatch import deprecated
from .function import Function
from .stochastic import StochasticFunction
from .variable import Variable

__all__ = ["Variable", "Function", "StochasticFunction", "backward", "grad"]


def backward(variables, grad_variables=None, retain_variables=None, create_graph: bool = False, *,
             retain_graph=None, grad_tensors=None, inputs=None) -> None:
    """Sum the gradients of ``variables`` into the leaves' ``.grad`` (2017's ``autograd.backward``).

    ``grad_variables`` (one per variable, ``None`` for scalars and for reinforced samples) is the
    modern ``grad_tensors``; ``retain_variables`` the modern ``retain_graph``.
    """
    if retain_variables is not None:
        deprecated("retain_variables is deprecated: use retain_graph")
        retain_graph = retain_variables if retain_graph is None else retain_graph
    grads = grad_tensors if grad_variables is None else grad_variables
    variables = (variables,) if isinstance(variables, Tensor) else tuple(variables)
    if grads is None:
        grads = (None,) * len(variables)
    elif isinstance(grads, Tensor):
        grads = (grads,)
    run_backward(variables, tuple(grads), retain_graph, create_graph, inputs)


def run_backward(variables: tuple, grads: tuple, retain_graph, create_graph: bool, inputs) -> None:
    """One engine run from ``variables``. A reinforced sample is not differentiated itself: as in 2017, its
    stochastic function's formula gives its parameters their gradients, which seed the run from them."""
    if len(grads) != len(variables):
        raise RuntimeError(f"got {len(grads)} gradients for {len(variables)} variables [autograd_lab] give one "
                           "gradient (or None) per variable")
    roots, seeds, reinforced = [], [], []
    for i, (variable, gradient) in enumerate(zip(variables, grads)):
        stochastic = variable.__dict__.get("_stochastic") if isinstance(variable, Tensor) else None
        if stochastic is None:
            roots.append(variable)
            seeds.append(gradient)
            continue
        if gradient is not None:
            raise RuntimeError(f"variable {i} is the output of a stochastic function: give None as its gradient and "
                               "call .reinforce(reward) on it before backward")
        for param, param_grad in stochastic.gradients():  # parameters that need no gradient get none
            roots.append(param)
            seeds.append(param_grad)
        reinforced.append(stochastic)
    if roots:
        _modern.backward(roots, seeds, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)
    if not retain_graph:
        for stochastic in reinforced:  # 2017 let the reward go with the buffers: the next backward needs a new one
            stochastic.reward = None
