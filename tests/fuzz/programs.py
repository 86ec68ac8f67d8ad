"""Random op programs, drawn from a seed, written as Python source that runs against either library.

A program is a list of lines of Python in which ``M`` is the library (``import torch as M`` or
``import autograd_lab as M``): leaves and constants, out-of-place ops with broadcasting, views, in-place
ops (on views, and on leaves under ``no_grad``), hooks that scale, ``retain_grad``, and an ending that runs
one or two backward passes (``retain_graph``, ``create_graph`` then a gradient of the gradient,
``inputs=``). The text *is* the description: both libraries run the same lines, and a failure prints them
as a runnable repro.

While drawing, each candidate line runs at once in a shadow namespace in PyTorch, so that the next step
knows the shapes it works on; a line PyTorch refuses is dropped, or (sometimes) kept as a deliberate error,
so the error paths are compared too. Nothing here knows autograd_lab: it only writes programs.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

PREAMBLE = "nan, inf = float('nan'), float('inf')"
NICE = np.array([-2.0, -1.5, -1.0, -0.5, -0.25, 0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0])
LEAF_SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 2), (1, 3), (3, 1), (2, 1, 3), (2, 3, 2), (0,), (2, 0), (3, 3)]
LEAF_SHAPE_WEIGHTS = np.array([6, 3, 8, 4, 10, 6, 3, 3, 4, 4, 2, 2, 4], dtype=float)


@dataclass
class Line:
    """One line of a program, and the names whose values are compared right after it runs."""

    text: str
    observe: tuple[str, ...] = ()


@dataclass
class Program:
    seed: int
    lines: list[Line] = field(default_factory=list)

    def source(self, library: str = "autograd_lab") -> str:
        """The program as a script for one library: ``import <library> as M`` and the lines."""
        head = [f"# differential fuzz program, seed {self.seed}", f"import {library} as M", PREAMBLE]
        return "\n".join(head + [line.text for line in self.lines]) + "\n"

    def without(self, index: int) -> Program:
        return Program(self.seed, self.lines[:index] + self.lines[index + 1:])


# maximum, minimum and clamp against a tensor: on a tie of +0 and -0 PyTorch's vectorized loop returns the bound and
# its scalar loop (a tensor's tail) the input, so the sign of such a zero depends on the tensor's length; the
# reductions amin, amax, min and max pick either zero of such a tie too (NumPy's the last, PyTorch's the first)
# (and softshrink, whose zeros inside the band are -0.0 for negative inputs in PyTorch's scalar loop, +0.0 in its
# vectorized one: fuzzer seeds 52014873, 52023273)
TIES = re.compile(r"M\.(maximum|minimum)\(|M\.clamp\([^)]*\b(min|max)=[xtc]\d|\.(amin|amax|min|max)\(|softshrink\(")

@dataclass
class Var:
    """What the generator knows of a name the program has bound to a tensor."""

    name: str
    leaf: bool = False  # a leaf made by the program with requires_grad=True
    history_version: int = 0  # the memory's version when this tensor's history was last current
    zero_sign_by_kernel: bool = False  # its zeros' sign is a kernel's choice (a matrix product, a tie of +0 and -0)


class Generator:
    """Draws one program. ``self.shadow`` holds the tensors of the lines drawn so far, as PyTorch made them."""

    def __init__(self, seed: int, torch) -> None:
        self.seed = seed
        self.torch = torch
        self.rng = np.random.default_rng(seed)
        self.program = Program(seed)
        self.shadow: dict = {"M": torch, "nan": math.nan, "inf": math.inf}
        self.vars: dict[str, Var] = {}
        self.counter = 0
        self.edge_values = self.rng.random() < 0.15  # programs whose values include NaN and infinities
        self.stopped = False  # a deliberate error line was kept: nothing but the ending follows
        self.ending = False  # in the ending, every line is kept, refused or not

    # -- names, values, lines ----------------------------------------------------------------------------
    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, options):
        return options[int(self.rng.integers(len(options)))]

    def tensor(self, name: str):
        return self.shadow[name]

    def float_vars(self, predicate=lambda var, t: True) -> list[str]:
        """The float64 tensors of the program that ``predicate(var, shadow tensor)`` accepts."""
        torch = self.torch
        names = []
        for name, var in self.vars.items():
            t = self.shadow.get(name)
            if not isinstance(t, torch.Tensor) or t.dtype != torch.float64:
                continue
            try:
                if predicate(var, t):
                    names.append(name)
            except RuntimeError:  # PyTorch refuses to read grad_fn of a split's output whose base was written
                continue
        return names

    def values(self, shape: tuple, positive: bool = False) -> np.ndarray:
        n = math.prod(shape)
        nice = self.rng.choice(NICE, n)
        drawn = np.round(self.rng.uniform(-2.5, 2.5, n), 2)
        out = np.where(self.rng.random(n) < 0.6, nice, drawn)
        if positive:
            out = np.abs(out) + 0.25
        if self.edge_values:
            specials = self.rng.choice(np.array([math.nan, math.inf, -math.inf, 0.0]), n)
            out = np.where(self.rng.random(n) < 0.12, specials, out)
        return out.reshape(shape)

    def literal(self, shape: tuple, requires_grad: bool = False, positive: bool = False) -> str:
        grad = ", requires_grad=True" if requires_grad else ""
        if 0 in shape:
            return f"M.zeros({shape!r}, dtype=M.float64{grad})"
        return f"M.tensor({self.values(shape, positive).tolist()!r}, dtype=M.float64{grad})"

    def run_shadow(self, text: str) -> BaseException | None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(text, self.shadow)
            except Exception as exc:  # noqa: BLE001 - a refused line is information, not a failure
                return exc
        return None

    def emit(self, text: str, observe: tuple[str, ...] = (), keep_error: float = 0.0) -> bool:
        """Run ``text`` in the shadow; keep it if PyTorch accepts it (or, with ``keep_error``, as a last line)."""
        if self.stopped:
            return False
        error = self.run_shadow(text)
        if error is not None and not (self.ending or self.chance(keep_error)):
            return False
        self.program.lines.append(Line(text, observe))
        if error is not None:
            self.stopped = True
            return False
        return True

    def bind(self, expr: str, prefix: str = "t", keep_error: float = 0.08, **var) -> str | None:
        """``name = expr`` as a new line; returns the name, or None if the line was dropped or is an error."""
        name = self.fresh(prefix)
        if not self.emit(f"{name} = {expr}", (name,), keep_error):
            return None
        value = self.shadow[name]
        if isinstance(value, self.torch.Tensor):
            var.setdefault("zero_sign_by_kernel", self.zero_sign_by_kernel(expr) or TIES.search(expr) is not None)
            self.vars[name] = Var(name, history_version=value._version, **var)
        return name

    def names_in(self, text: str) -> list[str]:
        return [n for n in re.findall(r"\b[xtc]\d+\b", text) if n in self.vars]

    def zero_sign_by_kernel(self, text: str) -> bool:
        """Whether a tensor ``text`` names has zeros whose sign a kernel chose (see ``TIES`` and known.py)."""
        return any(self.vars[n].zero_sign_by_kernel for n in self.names_in(text))

    # -- leaves and operands ---------------------------------------------------------------------------
    def leaf(self, shape: tuple | None = None, requires_grad: bool = True, positive: bool = False) -> str:
        if shape is None:
            shape = LEAF_SHAPES[int(self.rng.choice(len(LEAF_SHAPES), p=LEAF_SHAPE_WEIGHTS / LEAF_SHAPE_WEIGHTS.sum()))]
        prefix = "x" if requires_grad else "c"
        name = self.bind(self.literal(tuple(shape), requires_grad, positive), prefix, keep_error=0.0,
                         leaf=requires_grad)
        assert name is not None, "a literal tensor is always accepted"
        return name

    def broadcast_partner(self, shape: tuple, into: bool = False) -> tuple:
        """A shape that broadcasts with ``shape`` (``into``: to exactly ``shape``, for in-place operands)."""
        if self.chance(0.4):
            return tuple(shape)
        dims = list(shape)[int(self.rng.integers(0, len(shape) + 1)):]
        dims = [1 if self.chance(0.3) else d for d in dims]
        if not into and self.chance(0.15):
            dims = [self.choice([1, 2])] + dims
        return tuple(dims)

    def operand(self, shape: tuple, into: bool = False) -> str:
        """A name for a second operand: an existing tensor of a fitting shape, or a new leaf or constant."""
        target = self.broadcast_partner(shape, into)
        fitting = self.float_vars(lambda var, t: tuple(t.shape) == target)
        if fitting and self.chance(0.35):
            return self.choice(fitting)
        return self.leaf(target, requires_grad=self.chance(0.5))

    def dim(self, t, extra: int = 0) -> int:
        """A dimension of ``t`` (negative half the time); ``extra`` widens the range (unsqueeze's)."""
        n = max(t.dim() + extra, 1)
        d = int(self.rng.integers(n))
        return d - n if self.chance(0.4) else d

    # -- the ending -------------------------------------------------------------------------------------
    def finish(self) -> None:
        """A weighted sum of the tensors that require grad, then one of the backward patterns."""
        self.stopped, self.ending = False, True
        grads = self.float_vars(lambda var, t: t.requires_grad)[-4:]
        if not grads:
            return
        terms = []
        for name in grads:
            t = self.tensor(name)
            weight = f"M.tensor({np.round(self.rng.uniform(-1.5, 1.5, tuple(t.shape)), 2).tolist()!r}, " \
                     "dtype=M.float64)" if t.numel() else "1.0"
            terms.append(f"({name} * {weight}).sum()")
        self.emit("loss = " + " + ".join(terms), ("loss",))
        leaves = [name for name, var in self.vars.items() if var.leaf]
        from .known import avoids
        from .steps import ENDINGS  # the ending patterns live beside the other steps
        ending = self.choice([e for e in ENDINGS if not avoids(self, "ending", ending=e.__name__)])
        ending(self, leaves)


def generate(seed: int, torch=None, steps: tuple[int, int] = (3, 14)) -> Program:
    """The program of ``seed``: the same seed gives the same text, on any machine."""
    if torch is None:
        import torch
    from .steps import STEPS, WEIGHTS
    gen = Generator(seed, torch)
    gen.leaf()
    if gen.chance(0.5):
        gen.leaf()
    probabilities = np.array(WEIGHTS, dtype=float) / sum(WEIGHTS)
    for _ in range(int(gen.rng.integers(*steps))):
        if gen.stopped:
            break
        STEPS[int(gen.rng.choice(len(STEPS), p=probabilities))](gen)
    gen.finish()
    return gen.program
