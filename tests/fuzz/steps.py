"""The steps a program is drawn from, and its endings. Each step picks a tensor of the program and writes one
or a few lines about it (see ``programs.Generator``); a step that finds nothing to work on writes nothing.

The templates are Python with ``{a}`` (the tensor the step works on), ``{b}`` (a second operand, whose shape
broadcasts with ``{a}``'s), ``{d}`` (a dimension) and ``{k}`` (keepdim) filled in.
"""

from __future__ import annotations

from .known import avoids
from .nn_steps import nn_layer
from .programs import Var
from .views import INDEXING, JOINS, _index, view_expr

UNARY = [
    "{a}.exp()", "{a}.log()", "{a}.sqrt()", "{a}.abs()", "-{a}", "{a}.sin()", "{a}.cos()", "{a}.tan()",
    "{a}.tanh()", "{a}.sigmoid()", "{a}.relu()", "{a}.square()", "{a}.reciprocal()", "{a}.rsqrt()",
    "{a}.log1p()", "{a}.sign()", "{a}.floor()", "{a}.ceil()", "{a}.round()", "{a}.trunc()", "{a}.erf()",
    "{a}.clamp(-0.5, 1.0)", "{a}.clamp(min=0.0)", "{a}.clamp(max=0.5)", "{a}.pow(2)", "{a}.pow(0.5)",
    "{a}.pow(-1)", "{a}.pow(3)", "{a}.pow(0)", "{a} ** 1.5", "2.0 ** {a}", "{a} * 2.5", "{a} + 1", "1 - {a}",
    "{a} / 4", "3 / {a}", "{a}.clone()", "{a}.contiguous()", "{a}.softmax({d})", "{a}.log_softmax({d})",
    "M.nn.functional.gelu({a})", "M.nn.functional.relu({a})", "M.sigmoid({a})", "M.exp({a})", "M.abs({a})",
    # (the families added on 2026-11-25: pointwise math, scans, shifts, sorting, nn activations)
    "{a}.expm1()", "{a}.log2()", "M.log10({a})", "{a}.exp2()", "{a}.atan()", "{a}.sinh()", "{a}.asinh()",
    # (nan_to_num's own infinity replacements, +-1.8e308, make any later sum of two of them overflow in an order
    # each library's kernel chooses, inf or nan: fuzzer seed 41001169. 1e300 keeps them huge and their sums finite)
    "{a}.sinc()", "{a}.frac()", "{a}.nan_to_num(posinf=1e300, neginf=-1e300)", "{a}.cumsum({d})", "{a}.cumprod({d})",
    "{a}.roll(1, {d})", "{a}.sort({d}).values", "{a}.sort({d}, descending=True).values", "{a}.cummax({d}).values",
    "{a}.triu(1)", "M.tril({a})", "M.nn.functional.silu({a})", "M.nn.functional.softplus({a})",
    "M.nn.functional.elu({a})", "M.nn.functional.mish({a})",
    "M.nn.functional.logsigmoid({a})",
]

BINARY = [
    "{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{a} ** {b}", "M.maximum({a}, {b})", "M.minimum({a}, {b})",
    "M.where({a} > {b}, {a}, {b})", "M.where({a} > 0, {b}, {a})", "{a} % {b}", "{a} // {b}", "M.add({a}, {b}, alpha=2)",
    "{a}.sub({b}, alpha=0.5)", "M.mul({a}, {b})", "{a}.div({b}, rounding_mode='trunc')",
    "M.clamp({a}, min={b})", "M.clamp({a}, max={b})", "M.fmod({a}, {b})", "{a}.fmod(-1.5)",
    "M.atan2({a}, {b})", "M.hypot({a}, {b})", "M.logaddexp({a}, {b})", "M.xlogy({a}, {b})",
    "M.lerp({a}, {b}, 0.3)", "M.addcmul({a}, {a}, {b}, value=0.5)",
]

REDUCTIONS = [
    "{a}.sum()", "{a}.sum({d})", "{a}.sum({d}, keepdim=True)", "{a}.mean()", "{a}.mean({d}, keepdim={k})",
    "{a}.prod()", "{a}.prod({d})", "{a}.amax()", "{a}.amax({d})", "{a}.amin({d}, keepdim={k})", "{a}.max()",
    "{a}.min()", "{a}.max({d}).values", "{a}.min({d}, keepdim={k}).values", "{a}.max({d}).indices", "{a}.std()",
    "{a}.std({d})", "{a}.var({d}, correction=0)", "{a}.var(unbiased=False)", "{a}.logsumexp({d})", "{a}.norm()",
    "{a}.norm(p=1)", "{a}.norm(dim={d})", "{a}.argmax()", "{a}.argmin({d})", "{a}.sum(({d}, {e}))",
    "M.nn.functional.mse_loss({a}, {a}.detach() * 0.5)", "{a}.all()", "{a}.any({d})",
    "{a}.nansum()", "{a}.median()", "{a}.trace()",
]

INPLACE = [
    "{a}.add_({b})", "{a}.add_({b}, alpha=0.5)", "{a}.sub_({b})", "{a}.mul_({b})", "{a}.mul_(2.0)", "{a}.div_({b})",
    "{a}.div_(4.0)", "{a}.pow_(2)", "{a}.exp_()", "{a}.log_()", "{a}.sqrt_()", "{a}.abs_()", "{a}.neg_()",
    "{a}.clamp_(-1.0, 1.0)", "{a}.clamp_(min=0.0)", "{a}.relu_()", "{a}.sigmoid_()", "{a}.tanh_()", "{a}.sin_()",
    "{a}.zero_()", "{a}.fill_(0.5)", "{a}.copy_({b})", "{a}.masked_fill_({a}.detach() < 0, 0.25)",
    "{a} += {b}", "{a} *= {b}", "{a} -= {b}", "{a} /= {b}", "{a}.reciprocal_()", "{a}.floor_()",
]

INTEGER = [
    "{a} > {b}", "({a} >= 0).sum()", "{a}.argmax({d})", "{a} * ({a} > 0)", "{a} + M.tensor({ints})",
    "M.tensor({ints}) * {a}", "M.tensor({ints}) // M.tensor({ints2})", "M.tensor({ints}) % M.tensor({ints2})",
    "M.fmod(M.tensor({ints}), M.tensor({ints2}))",
    "M.tensor({ints}) + M.tensor({ints2})", "M.where({a} > 0, {a}, M.tensor({ints}))", "{a}.long()",
    "M.tensor({ints}).float() / 2", "{a} == {a}", "{a}.isnan()", "M.tensor({ints}) * 0.5",
]

SCALES = ["2.0", "-1.0", "0.5", "3.0"]


def _fill(gen, template: str, a: str, into: bool = False) -> str:
    """The template about ``a``; ``into``: ``{b}`` must broadcast to ``a``'s shape (an in-place operand)."""
    t = gen.tensor(a)
    fields = {"a": a, "d": gen.dim(t), "e": gen.dim(t), "k": gen.choice([True, False])}
    if "{b}" in template:
        fields["b"] = gen.operand(tuple(t.shape), into=into)
    if "{ints" in template:
        size = t.shape[-1] if t.dim() else 1
        fields["ints"] = gen.rng.integers(-3, 4, size).tolist()
        fields["ints2"] = gen.rng.integers(-3, 4, size).tolist()
    return template.format(**fields)


def _target(gen, predicate=lambda var, t: True, recent: float = 0.0) -> str | None:
    """One of the program's float tensors that ``predicate`` accepts; with probability ``recent``, one of the
    last two made (an in-place write into a tensor no op has saved yet, so that backward can still run)."""
    names = gen.float_vars(predicate)
    if len(names) > 2 and gen.chance(recent):
        names = names[-2:]
    return gen.choice(names) if names else None


def _bind(gen, step: str, a: str, expr: str) -> None:
    """``name = expr``, unless the known-differences table keeps the generator from writing it."""
    if not avoids(gen, step, name=a, text=expr):
        gen.bind(expr)


def pointwise(gen) -> None:
    a = _target(gen)
    if a:
        _bind(gen, "pointwise", a, _fill(gen, gen.choice(UNARY), a))


def binary(gen) -> None:
    a = _target(gen)
    if a:
        _bind(gen, "binary", a, _fill(gen, gen.choice(BINARY), a))


def reduction(gen) -> None:
    a = _target(gen)
    if a:
        _bind(gen, "reduction", a, _fill(gen, gen.choice(REDUCTIONS), a))


def matmul(gen) -> None:
    a = _target(gen, lambda var, t: t.dim() >= 1)
    if not a:
        return
    shape = tuple(gen.tensor(a).shape)
    k = gen.choice([1, 2, 3])
    n = shape[-1]
    right = {1: [(n,), (n, k), (2, n, k)], 2: [(n,), (n, k), (2, n, k)], 3: [(n, k), (shape[0], n, k), (1, n, k)]}
    b = gen.leaf(gen.choice(right.get(len(shape), [(n, k)])), requires_grad=gen.chance(0.6))
    b_shape = tuple(gen.tensor(b).shape)
    forms = ["{a} @ {b}", "M.matmul({a}, {b})"]
    if len(shape) == 2 and len(b_shape) == 2:
        forms += ["{a}.mm({b})", "M.addmm(M.zeros({k}, dtype=M.float64) + 0.5, {a}, {b})"]
    if len(shape) == 2 and len(b_shape) == 1:
        forms += ["{a}.mv({b})"]
    if len(shape) == 1 and len(b_shape) == 1:
        forms += ["M.dot({a}, {b})", "M.outer({a}, {b})"]
    if len(shape) == 3 and len(b_shape) == 3 and shape[0] == b_shape[0]:
        forms += ["M.bmm({a}, {b})"]
    expr = gen.choice(forms).format(a=a, b=b, k=b_shape[-1])
    if not avoids(gen, "matmul", name=a, text=expr):
        gen.bind(expr, zero_sign_by_kernel=True)


# decompositions and solvers of S = a^T a + I, symmetric positive definite (eigenvalues at least 1); only those whose
# results both libraries' LAPACK calls agree on: unique factors (QR by Householder reflections is the same in both),
# not eigenvectors or singular vectors, whose signs (and, for repeated values, bases) each LAPACK picks its own way.
# QR only of a leaf's S: of a computed one that is diagonal up to rounding (Q^T Q + I), the sign QR gives a column
# depends on whether its rounding left exactly 0 below the diagonal, which each library's matmul decides
LINALG = [
    "M.linalg.inv({s})", "M.linalg.det({s})", "M.linalg.slogdet({s}).logabsdet", "M.linalg.cholesky({s})",
    "M.linalg.cholesky({s}, upper=True)", "M.linalg.qr({s}).Q", "M.linalg.qr({s}).R", "M.linalg.solve({s}, {a}.mT)",
    "M.linalg.inv({s}) @ {a}.mT", "M.linalg.qr({s})[1].diagonal(dim1=-2, dim2=-1)",
]


def linalg(gen) -> None:
    # (finite and moderate: a^T a of entries near 1e300, which nan_to_num makes of infinities, overflows, and what
    # LAPACK returns for a matrix of infinities differs between the libraries: seeds 42014342, 42019323)
    a = _target(gen, lambda var, t: t.dim() >= 2 and 0 not in t.shape and bool((t.abs() < 1e100).all()))
    if a:
        n = gen.tensor(a).shape[-1]
        s = f"({a}.mT @ {a} + M.eye({n}, dtype=M.float64))"
        template = gen.choice(LINALG)
        if "qr" in template and not gen.tensor(a).is_leaf:
            template = "M.linalg.inv({s})"
        _bind(gen, "linalg", a, template.format(a=a, s=s))


def view(gen) -> None:
    a = _target(gen)
    if a:
        _bind(gen, "view", a, view_expr(gen, a, gen.tensor(a)))


def indexing(gen) -> None:
    a = _target(gen, lambda var, t: t.dim() >= 1)
    if a:
        _bind(gen, "indexing", a, gen.choice(INDEXING)(gen, a, gen.tensor(a)))


def join(gen) -> None:
    a = _target(gen, lambda var, t: t.dim() >= 1)
    if a:
        _bind(gen, "join", a, gen.choice(JOINS)(gen, a, gen.tensor(a)))


def clone(gen) -> None:
    a = _target(gen, lambda var, t: var.leaf)
    if a:
        gen.bind(f"{a}.clone()")


def inplace(gen) -> None:
    """An in-place op on a tensor that is not a leaf requiring grad (often a view, often of a clone)."""
    a = _target(gen, lambda var, t: not (t.is_leaf and t.requires_grad), recent=0.6)
    if not a:
        return
    t = gen.tensor(a)
    text = _fill(gen, gen.choice(INPLACE), a, into=True)
    if t.dim() and gen.chance(0.2):  # an assignment into part of it
        text = f"{a}[{_index(gen, t.shape[0])}] = {gen.operand(tuple(t.shape[1:]), into=True)}"
    if avoids(gen, "inplace", name=a, text=text):
        return
    if gen.emit(text, (a,), keep_error=0.1):
        if not text.startswith(f"{a}["):  # (a write into a[i] goes through a new view of a's base: a is stale)
            gen.vars[a].history_version = gen.tensor(a)._version
        gen.vars[a].zero_sign_by_kernel |= gen.zero_sign_by_kernel(text)


def inplace_leaf(gen) -> None:
    """An in-place update of a leaf under no_grad, as an optimizer step does."""
    a = _target(gen, lambda var, t: var.leaf)
    if a:
        op = gen.choice(["{a}.mul_(0.5)", "{a}.add_(1.0)", "{a}.sub_({a} * 0.1)", "{a}.zero_()", "{a}.clamp_(-1, 1)"])
        text = f"with M.no_grad(): {op.format(a=a)}"
        if not avoids(gen, "inplace", name=a, text=text):
            gen.emit(text, (a,), keep_error=0.1)


def hook(gen) -> None:
    a = _target(gen, lambda var, t: t.requires_grad)
    if not a or avoids(gen, "hook", name=a):
        return
    text = f"{a}.register_hook(lambda g: g * {gen.choice(SCALES)})"
    if gen.chance(0.2):
        handle = gen.fresh("h")
        if gen.emit(f"{handle} = {text}"):
            gen.emit(f"{handle}.remove()")
    else:
        gen.emit(text)


def _multi_output_factor(gen, name: str) -> bool:
    """Whether ``name`` is bound to an output of ``linalg.qr`` or ``linalg.slogdet`` (ops with several outputs):
    PyTorch 2.13 crashes (a segmentation fault, in its backward) when such an output retains its grad and is then
    written in place, directly or through a view (seeds 28004056, 28007019), so the generator does not retain it."""
    return any(line.text.startswith((f"{name} = M.linalg.qr(", f"{name} = M.linalg.slogdet("))
               for line in gen.program.lines)


def retain(gen) -> None:
    a = _target(gen, lambda var, t: t.requires_grad and not t.is_leaf)
    if a and not avoids(gen, "retain", name=a) and not _multi_output_factor(gen, a):
        gen.emit(f"{a}.retain_grad()")


def no_grad(gen) -> None:
    """An op run under no_grad, a detach, or a constant made to require grad."""
    a = _target(gen)
    if not a:
        return
    roll = gen.rng.random()
    if roll < 0.4:
        name, expr = gen.fresh(), _fill(gen, gen.choice(UNARY), a)
        if not avoids(gen, "pointwise", name=a, text=expr) and gen.emit(f"with M.no_grad(): {name} = {expr}", (name,)):
            gen.vars[name] = Var(name, history_version=gen.tensor(name)._version,
                                 zero_sign_by_kernel=gen.zero_sign_by_kernel(expr))
    elif roll < 0.7:
        gen.bind(f"{a}.detach()")
    else:
        c = _target(gen, lambda var, t: t.is_leaf and not t.requires_grad)
        if c and not avoids(gen, "requires_grad_", name=c) and gen.emit(f"{c}.requires_grad_()", (c,)):
            gen.vars[c].leaf = True


def integer(gen) -> None:
    a = _target(gen)
    if a:
        _bind(gen, "integer", a, _fill(gen, gen.choice(INTEGER), a))


STEPS = [pointwise, binary, reduction, matmul, view, indexing, join, clone, inplace, inplace_leaf, hook, retain,
         no_grad, integer, linalg, nn_layer]
WEIGHTS = [14, 12, 8, 5, 14, 5, 4, 6, 14, 3, 5, 3, 3, 3, 3, 6]


# -- endings: what runs after ``loss`` ---------------------------------------------------------------------
def _leaves(leaves: list[str]) -> str:
    return "[" + ", ".join(leaves) + "]"


def backward_once(gen, leaves) -> None:
    gen.emit("loss.backward()")


def backward_twice(gen, leaves) -> None:
    gen.emit("loss.backward(retain_graph=True)")
    gen.emit("loss.backward()")


def backward_twice_freed(gen, leaves) -> None:
    """The second backward raises where the first freed what it needs, and accumulates where nothing was saved."""
    gen.emit("loss.backward()")
    gen.emit("loss.backward()")


def grad(gen, leaves) -> None:
    gen.emit(f"gs = M.autograd.grad(loss, {_leaves(leaves)}, allow_unused=True)", ("gs",))


def grad_of_grad(gen, leaves) -> None:
    gen.emit(f"gs = M.autograd.grad(loss, {_leaves(leaves)}, create_graph=True, allow_unused=True)", ("gs",))
    gen.emit("gsum = sum(((g * g).sum() for g in gs if g is not None), loss)", ("gsum",))
    gen.emit(f"ggs = M.autograd.grad(gsum, {_leaves(leaves)}, allow_unused=True)", ("ggs",))


def backward_create_graph(gen, leaves) -> None:
    gen.emit("loss.backward(create_graph=True)")
    gen.emit(f"gsum = sum(((x.grad * x.grad).sum() for x in {_leaves(leaves)} if x.grad is not None), loss)",
             ("gsum",))
    gen.emit(f"ggs = M.autograd.grad(gsum, {_leaves(leaves)}, allow_unused=True)", ("ggs",))


def backward_inputs(gen, leaves) -> None:
    gen.emit(f"loss.backward(inputs={_leaves(leaves[:1])})")


ENDINGS = [backward_once, backward_once, backward_twice, backward_twice_freed, grad, grad_of_grad,
           grad_of_grad, backward_create_graph, backward_inputs]
