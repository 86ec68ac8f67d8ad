"""View, indexing and joining expressions for the fuzzer's steps, each fitted to the shape of the tensor ``t``
named ``a``. Most are valid for that shape; a few are drawn out of range on purpose (an index past the end,
a dimension too many), so that both libraries' errors are compared too."""

from __future__ import annotations

import math


def _index(gen, size: int) -> int:
    """An index into a dimension of ``size``: in range, negative ones included, and now and then just past it."""
    if size == 0 or gen.chance(0.04):
        return size
    return int(gen.rng.integers(-size, size))


def _slice(gen, size: int) -> str:
    start = int(gen.rng.integers(-size - 1, size + 1)) if size else 0
    stop = int(gen.rng.integers(0, size + 2))
    step = gen.choice(["", "", ":2", ":3"])
    return gen.choice([f"{start}:{stop}{step}", f"{start}:", f":{stop}", f"::{gen.choice([1, 2])}", f"{stop}:{stop}"])


def _subscript(gen, a: str, t) -> str:
    shape = tuple(t.shape)
    if not shape:
        return f"{a}[{gen.choice(['None', '...', '..., None'])}]"
    first = gen.choice([str(_index(gen, shape[0])), _slice(gen, shape[0]), "None", "..."])
    rest = []
    if len(shape) >= 2 and gen.chance(0.5):
        rest.append(gen.choice([str(_index(gen, shape[1])), _slice(gen, shape[1]), ":"]))
    return f"{a}[{', '.join([first] + rest)}]"


def _reshape_target(gen, t) -> str:
    n = t.numel()
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
    d = gen.choice(divisors)
    shapes = [f"({n},)", "-1", f"({d}, -1)", f"(-1, {d})", f"(1, {n})", f"({d}, {n // d if d else 0}, 1)"]
    if n == 0:
        shapes += [f"{tuple(t.shape)[::-1]!r}", "(0, -1)"]
    return gen.choice(shapes)


def _expand_sizes(gen, t) -> str:
    sizes = [2 if s == 1 and gen.chance(0.6) else (-1 if gen.chance(0.5) else s) for s in t.shape]
    if gen.chance(0.5) or not sizes:
        sizes = [gen.choice([1, 2, 3])] + sizes
    return ", ".join(str(s) for s in sizes)


def view_expr(gen, a: str, t) -> str:
    """A view of ``t`` (or a call that makes one: reshape of a non-contiguous tensor copies, as in PyTorch)."""
    nd = t.dim()
    options = [
        lambda: _subscript(gen, a, t),
        lambda: f"{a}.unsqueeze({gen.dim(t, extra=1)})",
        lambda: f"{a}.squeeze()",
        lambda: f"{a}.squeeze({gen.dim(t)})",
        lambda: f"{a}.expand({_expand_sizes(gen, t)})",
        lambda: f"{a}.view({_reshape_target(gen, t)})",
        lambda: f"{a}.reshape({_reshape_target(gen, t)})",
        lambda: f"{a}.flatten()",
        lambda: f"{a}.detach()",
        lambda: f"{a}.view_as({a})",
        lambda: f"{a}.transpose({gen.dim(t)}, {gen.dim(t)})",
    ]
    if nd <= 2:
        options.append(lambda: f"{a}.t()")
    if nd >= 1:
        d = gen.dim(t)
        size = t.shape[d]
        start = int(gen.rng.integers(0, size + 1))
        options += [
            lambda: f"{a}.select({d}, {_index(gen, size)})",
            lambda: f"{a}.narrow({d}, {start}, {int(gen.rng.integers(0, size - start + 1))})",
            lambda: f"{a}.unbind({d})[{_index(gen, size)}]",
            lambda: f"{a}.split({gen.choice([1, 2])}, {d})[{gen.choice([0, -1])}]",
            lambda: f"{a}.chunk({gen.choice([1, 2, 3])}, {d})[{gen.choice([0, -1])}]",
            lambda: f"{a}.unflatten({d}, (1, {size}))",
            lambda: f"{a}.movedim({d}, {gen.dim(t)})",
            lambda: f"{a}.permute({', '.join(str(i) for i in gen.rng.permutation(nd))})",
        ]
    if nd >= 2:
        options += [
            lambda: f"{a}.mT",
            lambda: f"{a}.diagonal()",
            lambda: f"{a}.diagonal(offset={gen.choice([-1, 1])}, dim1={gen.dim(t)}, dim2={gen.dim(t)})",
        ]
    return gen.choice(options)()


# -- copies by index, and joins: (gen, a, t) -> expression; t has at least one dimension -------------------
def _int_index(gen, t) -> str:
    size = t.shape[0]
    picks = gen.rng.integers(0, size, int(gen.rng.integers(1, 4))).tolist() if size else []
    return f"M.tensor({picks!r}, dtype=M.int64)"


def _gather_index(gen, t, d: int) -> str:
    shape = list(t.shape)
    shape[d] = int(gen.rng.integers(1, 3))
    size = t.shape[d]
    if size == 0 or math.prod(shape) == 0:
        return f"M.zeros({tuple(shape)!r}, dtype=M.int64)"
    return f"M.tensor({gen.rng.integers(0, size, shape).tolist()!r})"


INDEXING = [
    lambda gen, a, t: f"{a}[{_int_index(gen, t)}]",
    lambda gen, a, t: f"{a}[{a}.detach() > 0]",
    lambda gen, a, t: f"{a}.index_select(0, {_int_index(gen, t)})",
    lambda gen, a, t: (lambda d: f"{a}.gather({d}, {_gather_index(gen, t, d)})")(int(gen.rng.integers(t.dim()))),
    lambda gen, a, t: f"{a}.masked_fill({a}.detach() < 0, 0.0)",
]

JOINS = [
    lambda gen, a, t: f"M.cat([{a}, {gen.operand(tuple(t.shape))}], {gen.dim(t)})",
    lambda gen, a, t: f"M.cat([{a}, {a} * 2], {gen.dim(t)})",
    lambda gen, a, t: f"M.stack([{a}, {gen.operand(tuple(t.shape))}], {gen.dim(t, extra=1)})",
    lambda gen, a, t: f"{a}.flip({gen.dim(t)})",
    lambda gen, a, t: f"{a}.repeat({', '.join(str(gen.choice([1, 2])) for _ in range(t.dim()))})",
]
