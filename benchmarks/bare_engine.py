"""How fast can an autograd engine written in Python be? A measuring stick for issue 20's per-op lines.

``python -m benchmarks.bare_engine`` times three engines on the ``op_overhead`` chain (200 ops cycling mul,
add, tanh, exp, log on 16 float64 elements, then ``sum().backward()``) and on a 2,000-step ``deep_chain``
(``y = y * 1.0001 + 0.001``), interleaved in one process, best of many rounds:

* PyTorch, whose graph and engine are C++;
* autograd_lab, the library a learner reads;
* the *bare engine* below: the same design (a node per op with its edges and saved values, a dependency
  count, a ready queue by sequence number, buffers that sum gradients), in the fewest Python steps, and with
  nothing else: no type promotion, no version counters, no hooks, no anomaly mode, no shape or dtype checks,
  no freeing of saved values, no stepper, no thread-local grad mode, no views. It is right only for this
  workload.

The bare engine's ratio to PyTorch is the floor for any engine in this Python on this workload; what
autograd_lab adds above it is the price of the features listed. ``benchmarks/NOTES.md`` records the figures.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import time

import numpy as np

_sequence = itertools.count()


class Tensor:
    __slots__ = ("data", "grad_fn", "requires_grad", "grad")

    def __init__(self, data, requires_grad=False, grad_fn=None):
        self.data, self.requires_grad, self.grad_fn, self.grad = data, requires_grad, grad_fn, None

    def __mul__(self, other):
        return Mul.apply(self, other)

    def __add__(self, other):
        return Add.apply(self, other)

    def tanh(self):
        return Tanh.apply(self)

    def exp(self):
        return Exp.apply(self)

    def log(self):
        return Log.apply(self)

    def sum(self):
        return Sum.apply(self)

    def backward(self):
        backward(self.grad_fn, np.ones_like(self.data))


class Node:
    __slots__ = ("next_functions", "saved", "sequence_nr", "shape")

    def __init__(self, next_functions, saved, shape):
        self.next_functions, self.saved, self.shape = next_functions, saved, shape
        self.sequence_nr = next(_sequence)


class AccumulateGrad(Node):
    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__((), (), variable.data.shape)
        self.variable, self.sequence_nr = variable, float("inf")


class Op(Node):
    """An op: ``forward`` on arrays, one derivative per input in ``derivatives``, given what ``saves`` names
    (input positions, or ``"result"``)."""

    __slots__ = ()
    saves: tuple = ()

    @classmethod
    def apply(cls, *inputs):
        data = cls.forward(*[x.data if x.__class__ is Tensor else x for x in inputs])
        out = Tensor(data)
        edges = tuple((x.grad_fn, 0) if x.grad_fn is not None else (AccumulateGrad(x), 0) if x.requires_grad
                      else (None, 0) for x in inputs if x.__class__ is Tensor)
        if any(node is not None for node, _ in edges):
            saved = tuple(data if i == "result" else inputs[i].data if inputs[i].__class__ is Tensor else inputs[i]
                          for i in cls.saves)
            out.grad_fn = cls(edges, saved, data.shape)
        return out


class Mul(Op):  # tensor * number
    saves = (1,)
    forward = staticmethod(np.multiply)
    derivatives = (lambda grad, other: grad * other,)


class Add(Op):  # tensor + number
    forward = staticmethod(np.add)
    derivatives = (lambda grad: grad,)


class Tanh(Op):
    saves = ("result",)
    forward = staticmethod(np.tanh)
    derivatives = (lambda grad, result: grad * (1 - result * result),)


class Exp(Op):
    saves = ("result",)
    forward = staticmethod(np.exp)
    derivatives = (lambda grad, result: grad * result,)


class Log(Op):
    saves = (0,)
    forward = staticmethod(np.log)
    derivatives = (lambda grad, x: grad / x,)


class Sum(Op):
    forward = staticmethod(np.sum)
    derivatives = (lambda grad: grad,)  # (broadcast back by the buffer's first sum: a 0-d gradient)


def backward(root, grad):
    dependencies, stack = {root: 0}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                if child not in dependencies:
                    stack.append(child)
                dependencies[child] = dependencies.get(child, 0) + 1
    buffers, tie = {root: grad}, itertools.count()
    ready = [(-root.sequence_nr, next(tie), root)]
    while ready:
        node = heapq.heappop(ready)[2]
        grad = buffers.pop(node)
        if node.__class__ is AccumulateGrad:
            node.variable.grad = np.broadcast_to(grad, node.shape).copy()
            continue
        for derivative, (child, _) in zip(node.derivatives, node.next_functions):
            if child is None:
                continue
            grad_in = derivative(grad, *node.saved)
            buffers[child] = grad_in if child not in buffers else buffers[child] + grad_in
            dependencies[child] -= 1
            if dependencies[child] == 0:
                heapq.heappush(ready, (-child.sequence_nr, next(tie), child))


# -- the workloads, written once for the three libraries ----------------------------------------------
X0 = np.random.default_rng(0).uniform(-1, 1, size=16)


def op_chain(T):
    x = T.tensor(X0, requires_grad=True)
    y = x
    for i in range(200):
        kind = i % 5
        y = y * 0.9 if kind == 0 else y + 0.1 if kind == 1 else y.tanh() if kind == 2 else y.exp() if kind == 3 \
            else y.log()
    y.sum().backward()
    return x.grad


def deep_chain(T, n: int = 2000):
    x = T.tensor(np.ones(1), requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001 + 0.001
    y.sum().backward()
    return x.grad


class _Bare:
    """The bare engine behind the two calls the workloads make (``tensor``, then ``.grad``)."""

    @staticmethod
    def tensor(data, requires_grad=False):
        return Tensor(np.array(data, dtype=np.float64), requires_grad)


def main(rounds: int = 40) -> None:
    import torch

    import autograd_lab as al

    torch.set_num_threads(1)
    libs = {"bare engine": _Bare, "autograd_lab": al, "torch": torch}
    for name, workload in (("op_overhead_16", op_chain), ("deep_chain_2000", deep_chain)):
        grads = {lib: np.asarray(workload(T).numpy() if lib != "bare engine" else workload(T))
                 for lib, T in libs.items()}
        assert all(np.allclose(g, grads["torch"], rtol=1e-9) for g in grads.values()), f"{name}: gradients differ"
        best = dict.fromkeys(libs, float("inf"))
        for r in range(rounds):
            for lib in list(libs)[r % 3:] + list(libs)[:r % 3]:  # the order rotates from round to round
                start = time.perf_counter()
                for _ in range(5):
                    workload(libs[lib])
                best[lib] = min(best[lib], (time.perf_counter() - start) / 5)
        print(f"{name}: " + ", ".join(f"{lib} {best[lib] * 1e3:.3f} ms ({best[lib] / best['torch']:.2f}x torch)"
                                      for lib in libs))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
