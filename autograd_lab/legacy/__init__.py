"""``autograd_lab.legacy``: the 2017 autograd API, on the modern core.

Code written for the 2017 docs runs with its imports changed::

    import autograd_lab.legacy as torch              # was: import torch
    from autograd_lab.legacy.autograd import Variable  # was: from torch.autograd import Variable

    x = Variable(torch.ones(2, 2), requires_grad=True)
    y = (x + 2).mean()
    y.creator                                        # y.grad_fn, with 2017's names
    y.backward(retain_variables=True)

What is here: ``Variable`` (``volatile``, ``creator``, ``.grad`` as a Variable, ``reinforce``),
``backward(variables, grad_variables, retain_variables)``, old-style ``Function`` subclasses (one
instance per call, ``mark_shared_storage``, ``None`` gradients for non-differentiable outputs),
the stochastic functions ``multinomial``/``bernoulli``/``normal`` with 2017's gradient formulas, and
the typed constructors (``Tensor([0, 0, 0])``, ``FloatTensor``...). Each warns
(``DeprecationWarning``) with its modern equivalent. 2017's rule that an in-place op raises while
another Variable shares the storage is kept too. Every other name is ``autograd_lab``'s own
(``torch.randn`` is ``al.randn``).
"""

from __future__ import annotations

from . import autograd
from .autograd import Function, StochasticFunction, Variable, backward
from .constructors import make_types as _make_types
from .stochastic import bernoulli, multinomial, normal

__all__ = ["Variable", "Function", "StochasticFunction", "backward", "autograd", "multinomial", "bernoulli", "normal",
           "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor", "BoolTensor"]

_types = _make_types(warns=True)
Tensor = _types["Tensor"]
FloatTensor, DoubleTensor, HalfTensor = _types["FloatTensor"], _types["DoubleTensor"], _types["HalfTensor"]
LongTensor, IntTensor, ShortTensor = _types["LongTensor"], _types["IntTensor"], _types["ShortTensor"]
CharTensor, ByteTensor, BoolTensor = _types["CharTensor"], _types["ByteTensor"], _types["BoolTensor"]


def __getattr__(name: str):
    # Everything 2017 code uses that did not change (randn, nn, optim, manual_seed...) is autograd_lab's own.
    import autograd_lab
    if name.startswith("__"):
        raise AttributeError(f"module 'autograd_lab.legacy' has no attribute '{name}'")
    try:
        return getattr(autograd_lab, name)
    except AttributeError:
        raise AttributeError(f"module 'autograd_lab.legacy' has no attribute '{name}' (nor has autograd_lab)") from None
