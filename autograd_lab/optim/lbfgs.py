"""L-BFGS: a quasi-Newton method. It keeps the last ``history_size`` pairs of steps ``s`` and gradient changes
``y``, builds from them an approximation of the inverse Hessian times the gradient (the two-loop recursion),
and steps along that direction, by ``lr`` or by a strong-Wolfe line search. Like minFunc, and PyTorch's
``LBFGS``, one ``step(closure)`` runs up to ``max_iter`` iterations, calling the closure as often as it needs.

All parameters are handled as one flat vector; the state (the history, the last direction ``d`` and step
``t``) lives in ``state[first parameter]``, under PyTorch's names.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.inplace import writable_array
from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _hyperparameter

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """``opt.step(closure)``, where ``closure()`` zeroes the gradients, computes the loss, calls ``backward()``
    and returns the loss. One parameter group only."""

    _step_counted = True  # (its step counts itself, so a scheduler stepped before it can warn)

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check_lr(lr)
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError(f"only 'strong_wolfe' is supported, not line_search_fn={line_search_fn!r} [autograd_lab] "
                             "pass line_search_fn='strong_wolfe' or None (a fixed step of lr)")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def add_param_group(self, param_group: dict) -> None:
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    # -- the parameters as one flat vector ------------------------------------------------------
    def _flat_grad(self):
        """All gradients in one vector (zeros for a parameter without one), on the parameters' device."""
        xp = backend.namespace_of(self._params[0]._data)
        return xp.concatenate([xp.zeros(p.numel(), p._data.dtype) if p.grad is None else p.grad._data.reshape(-1)
                               for p in self._params])

    def _move(self, step, direction) -> None:
        """``p.add_(step * direction)``, each parameter its slice of the flat ``direction``."""
        offset = 0
        for param in self._params:
            data = writable_array(param, "add_")
            data += step * direction[offset:offset + data.size].reshape(data.shape)
            param._vc.bump("add_")
            offset += data.size

    def _set(self, arrays: list) -> None:
        for param, values in zip(self._params, arrays):
            writable_array(param, "copy_")[...] = values
            param._vc.bump("copy_")

    def _evaluate(self, closure):
        """The loss (as a float) and the flat gradient at the parameters' current values. The closure runs in grad
        mode; its loss becomes a number under ``step``'s ``no_grad``, as in PyTorch, which does not warn then."""
        with enable_grad():
            loss = closure()
        return float(loss), self._flat_grad()

    # -- one step ---------------------------------------------------------------------------
    def step(self, closure):  # (required, as in PyTorch: every iteration re-evaluates the loss)
        """Run up to ``max_iter`` L-BFGS iterations; returns the closure's first loss."""
        if closure is None:
            raise TypeError("'NoneType' object is not callable [autograd_lab] LBFGS.step needs a closure that "
                            "re-evaluates the loss: def closure(): opt.zero_grad(); loss = loss_fn(...); "
                            "loss.backward(); return loss")
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            first_loss = closure()
        state["func_evals"] += 1
        with no_grad():
            self._iterate(closure, group, state, float(first_loss))
        self._step_count += 1
        return first_loss

    def _iterate(self, closure, group: dict, state: dict, loss: float) -> None:
        flat_grad = self._flat_grad()
        if abs(flat_grad).max() <= group["tolerance_grad"]:
            return  # already optimal
        memory = _History.load(state, group["history_size"])
        evals = 1
        for n_iter in range(1, group["max_iter"] + 1):
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                memory.reset()
                memory.d = -flat_grad
            else:
                memory.remember(flat_grad - memory.prev_flat_grad, memory.d * memory.t)
                memory.d = memory.direction(flat_grad)
            memory.prev_flat_grad = flat_grad.copy()
            memory.prev_loss = loss
            lr = _hyperparameter(group["lr"])
            memory.t = min(1.0, 1.0 / abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            slope = flat_grad.dot(memory.d)  # the directional derivative
            if slope > -group["tolerance_change"]:
                break  # not a descent direction any more
            loss, flat_grad, used = self._advance(closure, group, memory, loss, flat_grad, slope, evals,
                                                  n_iter == group["max_iter"])
            evals += used
            state["func_evals"] += used
            if (n_iter == group["max_iter"] or evals >= group["max_eval"]
                    or (used and abs(flat_grad).max() <= group["tolerance_grad"])
                    or abs(memory.d * memory.t).max() <= group["tolerance_change"]
                    or abs(loss - memory.prev_loss) < group["tolerance_change"]):
                break
        memory.save(state)

    def _advance(self, closure, group: dict, memory, loss, flat_grad, slope, evals: int, last: bool):
        """Move along ``memory.d``: by a strong-Wolfe line search (which sets ``memory.t``), or by ``memory.t``
        and then re-evaluate (unless it is the last iteration). Returns the loss, gradient, evaluations used."""
        if group["line_search_fn"] == "strong_wolfe":
            start = [p._data.copy() for p in self._params]

            def evaluate_at(t):
                self._move(t, memory.d)
                value = self._evaluate(closure)
                self._set(start)
                return value
            loss, flat_grad, memory.t, used = _strong_wolfe(evaluate_at, memory.t, memory.d, loss, flat_grad, slope,
                                                            group["tolerance_change"], group["max_eval"] - evals)
            self._move(memory.t, memory.d)
            return loss, flat_grad, used
        self._move(memory.t, memory.d)
        if last:
            return loss, flat_grad, 0
        loss, flat_grad = self._evaluate(closure)
        return loss, flat_grad, 1


class _History:
    """The curvature pairs and the last iteration's direction, step, gradient and loss (state under PyTorch's
    names: ``old_dirs`` are the ``y``, ``old_stps`` the ``s``, ``ro`` the ``1 / y.s``, ``H_diag`` the scale of
    the initial inverse Hessian, ``al`` the first loop's coefficients)."""

    NAMES = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")

    def __init__(self, size: int) -> None:
        self.size = size
        self.al = None
        for name in self.NAMES:
            setattr(self, name, None)

    @classmethod
    def load(cls, state: dict, size: int) -> _History:
        memory = cls(size)
        for name in cls.NAMES + ("al",):
            setattr(memory, name, _unpack(state.get(name)))
        return memory

    def save(self, state: dict) -> None:
        for name in self.NAMES:
            state[name] = _pack(getattr(self, name))
        if self.al is not None:
            state["al"] = _pack(self.al)

    def reset(self) -> None:
        self.old_dirs, self.old_stps, self.ro, self.H_diag = [], [], [], 1

    def remember(self, y, s) -> None:
        """Keep the pair if it has positive curvature (``y.s > 1e-10``), forgetting the oldest past ``size``."""
        ys = y.dot(s)
        if ys > 1e-10:
            if len(self.old_dirs) == self.size:
                del self.old_dirs[0], self.old_stps[0], self.ro[0]
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.H_diag = ys / y.dot(y)

    def direction(self, flat_grad):
        """The two-loop recursion: ``-H g`` for the inverse Hessian ``H`` the pairs describe."""
        if self.al is None:
            self.al = [None] * self.size
        q = -flat_grad
        for i in range(len(self.old_dirs) - 1, -1, -1):
            self.al[i] = self.old_stps[i].dot(q) * self.ro[i]
            q = q - self.al[i] * self.old_dirs[i]
        r = q * self.H_diag
        for i in range(len(self.old_dirs)):
            beta = self.old_dirs[i].dot(r) * self.ro[i]
            r = r + (self.al[i] - beta) * self.old_stps[i]
        return r


def _pack(value):
    """State as tensors, as PyTorch keeps it: arrays (of any device) and NumPy numbers become tensors, lists
    are kept, Python numbers stay numbers."""
    if isinstance(value, list):
        return [_pack(v) for v in value]
    if isinstance(value, np.generic):
        return Tensor._make(np.array(value))
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return Tensor._make(value.copy())
    return value


def _unpack(value):
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    if isinstance(value, Tensor):
        return value._data.copy() if value._data.ndim else value._data[()]
    return value


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through two points with their values and slopes, kept within ``bounds``
    (by default the interval between the points); the middle of the bounds if the cubic has none."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = d2_square ** 0.5
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


def _strong_wolfe(evaluate_at, t, d, f, g, gtd, tolerance_change, max_ls, c1=1e-4, c2=0.9):
    """A step ``t`` along ``d`` that satisfies the strong Wolfe conditions (enough decrease: ``f(t) <= f + c1 t
    gtd``; a flat enough slope: ``|gtd(t)| <= -c2 gtd``), found in at most ``max_ls`` evaluations: first a
    bracket is searched for, growing ``t`` by cubic extrapolation, then the bracket is narrowed (``_zoom``).
    Returns the loss and gradient at the step, the step and the number of evaluations."""
    g = g.copy()
    f_new, g_new = evaluate_at(t)
    evals, gtd_new = 1, g_new.dot(d)
    previous = [0, f, g, gtd]  # (step, loss, gradient, slope) at the last point tried
    bracket, done, ls_iter = None, False, 0
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= previous[1]):
            bracket = [previous, [t, f_new, g_new.copy(), gtd_new]]  # too high: the step is in between
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = [[t, f_new, g_new, gtd_new]], True
            break
        if gtd_new >= 0:
            bracket = [previous, [t, f_new, g_new.copy(), gtd_new]]  # climbing again: a minimum is in between
            break
        grown = _cubic_minimum(previous[0], previous[1], previous[3], t, f_new, gtd_new,
                               bounds=(t + 0.01 * (t - previous[0]), t * 10))
        previous = [t, f_new, g_new.copy(), gtd_new]
        t = grown
        f_new, g_new = evaluate_at(t)
        evals, gtd_new, ls_iter = evals + 1, g_new.dot(d), ls_iter + 1
    if ls_iter == max_ls:
        bracket = [[0, f, g, None], [t, f_new, g_new, None]]
    if not done:
        evals += _zoom(evaluate_at, bracket, d, f, gtd, tolerance_change, max_ls - ls_iter, c1, c2)
    best = bracket[0] if bracket[0][1] <= bracket[-1][1] else bracket[1]
    return best[1], best[2], best[0], evals


def _zoom(evaluate_at, bracket: list, d, f, gtd, tolerance_change, budget: int, c1: float, c2: float) -> int:
    """Narrow ``bracket`` (two points, changed in place) around a strong-Wolfe step, each new ``t`` the cubic's
    minimum, moved away from the ends when it comes too close to them twice running. Returns the evaluations."""
    d_norm = abs(d).max()
    low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
    insufficient_progress, evals = False, 0
    while evals < budget:
        ends = (min(bracket[0][0], bracket[1][0]), max(bracket[0][0], bracket[1][0]))
        if abs(bracket[1][0] - bracket[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(*(bracket[0][i] for i in (0, 1, 3)), *(bracket[1][i] for i in (0, 1, 3)))
        margin = 0.1 * (ends[1] - ends[0])
        if min(ends[1] - t, t - ends[0]) < margin:
            if insufficient_progress or t >= ends[1] or t <= ends[0]:
                t = ends[1] - margin if abs(t - ends[1]) < abs(t - ends[0]) else ends[0] + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate_at(t)
        evals, gtd_new = evals + 1, g_new.dot(d)
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new.copy(), gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
            continue
        if abs(gtd_new) <= -c2 * gtd:
            bracket[low] = [t, f_new, g_new.copy(), gtd_new]
            break
        if gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
            bracket[high] = bracket[low]
        bracket[low] = [t, f_new, g_new.copy(), gtd_new]
    return evals
