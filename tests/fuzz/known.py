"""The table of known differences between autograd_lab and PyTorch that the fuzzer meets.

Each entry names a case and says why it differs. An entry is one of two things:

- an *outcome* the comparison accepts (``explains``): a line only one library refuses, on purpose;
- a *pattern* the generator does not write (``avoid``): a deliberate difference that a program could not get
  past, or a case PyTorch itself cannot run (status ``PyTorch crashes``).

A one-side error, or a silent difference, that no entry explains fails the fuzz test. This table is the only
place where the fuzzer is told to look away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class KnownDifference:
    name: str
    difference: str  # what differs: "autograd_lab raises", "PyTorch raises", or "not generated"
    reason: str
    status: str  # "deliberate", or "PyTorch crashes"
    avoid: Callable | None = None  # (gen, step, facts) -> True: the generator does not write this
    explains: Callable | None = None  # (earlier lines, line text, al's error, torch's error) -> True: accepted


def _stale_view(gen, name: str) -> bool:
    """A view whose base was written in place (not through this view) after the view's history was made."""
    t = gen.tensor(name)
    return t._is_view() and t._version != gen.vars[name].history_version


def _tensors(gen, facts) -> list:
    """The program's tensors that a step names (its target, and those its text mentions)."""
    names = set(re.findall(r"\b[xtc]\d+\b", facts.get("text", ""))) | {facts.get("name")}
    return [gen.shadow[n] for n in names if isinstance(gen.shadow.get(n), gen.torch.Tensor)]


NAN_LOOP_DEPENDENT = r"\b(hardtanh|relu6|elu|selu|celu|hardswish|softshrink|hardshrink)\("
POLE = r"reciprocal|log|sqrt|rsqrt|pow\(-|pow\(0\.5|\*\* 1\.5|/|\.div|\*\* [xtc]\d|\*\* \{|2\.0 \*\*|atan2|copysign"


def _views_will_require_grad(gen, facts) -> bool:
    """An in-place write of a tensor that requires grad into a tensor that does not, while other views of its
    memory exist: PyTorch makes those views leaves requiring grad."""
    t = gen.tensor(facts["name"])
    if t.requires_grad or not any(o.requires_grad for o in _tensors(gen, facts) if o is not t):
        return False
    base = t._base if t._is_view() else t
    return any(isinstance(v, gen.torch.Tensor) and v is not t and v._is_view() and v._base is base
               for v in gen.shadow.values())


def _leaf_view_with_views(gen, name: str) -> bool:
    """Whether ``name`` is a view made a leaf that requires grad (requires_grad_ on a view of a base that does not)
    while other views of its base exist."""
    t = gen.tensor(name)
    if not (t._is_view() and t.is_leaf and t.requires_grad):
        return False
    return any(isinstance(v, gen.torch.Tensor) and v is not t and v._is_view() and v._base is t._base
               for v in gen.shadow.values())


def _operand_shares_memory(gen, facts) -> bool:
    """An operand sharing the written memory (the target itself only for copy_: PyTorch skips t.copy_(t))."""
    target = gen.tensor(facts["name"])
    memory = target.untyped_storage().data_ptr()
    itself = "copy_(" in facts.get("text", "")
    return target.numel() > 0 and any((itself or o is not target) and o.numel()
                                      and o.untyped_storage().data_ptr() == memory for o in _tensors(gen, facts))


INF_ORDER_SENSITIVE = r"\b(layer_norm|group_norm|instance_norm|batch_norm|rms_norm|normalize|bilinear)\("


def _normalises_one_element(t, text: str) -> bool:
    """Whether the rms_norm (over the last dim) or normalize (over dim=d) in ``text`` normalises a dim of size 1."""
    found = re.search(r"dim=(-?\d+)", text)
    return t.dim() > 0 and t.shape[int(found.group(1)) if found else -1] == 1


def _holds_an_infinity(gen) -> bool:
    """Whether a tensor of the program so far holds an infinity."""
    return any(isinstance(t, gen.torch.Tensor) and t.is_floating_point() and bool(t.isinf().any())
               for t in gen.shadow.values())


def _has_ties(t) -> bool:
    """Whether a tensor holds two equal values (NaNs count as equal: sort puts them together)."""
    values = t.detach().flatten().nan_to_num(nan=float("inf"))
    return values.unique().numel() < values.numel()

def _one_raises(side: str, message: str, earlier: str = "") -> Callable:
    """Accepts an error of ``side`` ("al" or "torch") alone whose message matches ``message``, in a program
    where an earlier line matches ``earlier`` (regular expressions)."""
    def explains(lines, text: str, al_error, torch_error) -> bool:
        error, other = (al_error, torch_error) if side == "al" else (torch_error, al_error)
        return (other is None and error is not None and re.search(message, str(error), re.S) is not None
                and (not earlier or any(re.search(earlier, previous.text) for previous in lines)))
    return explains


KNOWN: list[KnownDifference] = [
    # -- where PyTorch itself cannot run ------------------------------------------------------------------
    KnownDifference(
        "hook on a stale view", "not generated",
        "register_hook on a view after its base was changed in place (not through the view, under no_grad too): "
        "PyTorch 2.13 segfaults there (it rebuilds the view's grad_fn first; autograd_lab does the same, and "
        "retain_grad on such a view, which PyTorch runs, is generated and agrees)",
        "PyTorch crashes",
        avoid=lambda gen, step, facts: step == "hook" and _stale_view(gen, facts["name"])),
    # -- on purpose ----------------------------------------------------------------------------------------
    KnownDifference(
        "floor_divide is differentiable", "PyTorch raises",
        "a // b (floor_divide) of a tensor that requires grad: autograd_lab records it as div(rounding_mode="
        "'floor'), the same function, with its zero gradient; PyTorch 2.13 records a NotImplemented node whose "
        "backward raises", "deliberate",
        explains=_one_raises("torch", "derivative for aten::floor_divide is not implemented")),
    KnownDifference(
        "masked_fill_ and index_put_ into expanded memory", "autograd_lab raises",
        "t.expand(2, 3).masked_fill_(mask, 0.25): PyTorch deprecates these writes (it warns and writes); "
        "autograd_lab computes the new values out of place and copies them back, where the copies of one memory "
        "location would disagree, so it refuses them (ops/inplace.py)", "deliberate",
        explains=_one_raises("al", "PyTorch deprecates it there: it warns and writes")),
    KnownDifference(
        "an in-place op reading memory it writes", "not generated",
        "t = M.arange(6.0).reshape(2, 3); t.add_(t[:, :1]): PyTorch refuses an operand that partly overlaps the "
        "written memory (a[1:].add_(a[:3]); both libraries refuse it, ops/inplace.check_sources), but checks only "
        "dense layouts: the broadcast column t[:, :1] is read as it is being written, so the result depends on the "
        "order of its loop. autograd_lab computes the result out of place, then writes it: it allows it too, with "
        "the out-of-place result", "deliberate",
        avoid=lambda gen, step, facts: step == "inplace" and _operand_shares_memory(gen, facts)),
    KnownDifference(
        "views made before an in-place write makes their base require grad", "not generated",
        "c = M.ones(2, 1); v = c.squeeze(); c[0] = x (x requiring grad): PyTorch turns v into a leaf that "
        "requires grad (a backward through v reaches nothing, and v.add_(1) raises 'a leaf Variable that requires "
        "grad...'); autograd_lab keeps v a view of c's new history. (After c.requires_grad_() both make v a leaf.)",
        "deliberate",
        avoid=lambda gen, step, facts: step == "inplace" and _views_will_require_grad(gen, facts)),
    KnownDifference(
        "in-place writes into a view that was made a leaf", "not generated",
        "c = M.ones(1, 2); v = c[:, :1]; v.requires_grad_(); w = v.view(1); with no_grad: v.add_(1): PyTorch then "
        "rebuilds w's history from c's, which does not require grad, so w's gradient no longer reaches v (v.grad "
        "stays None, silently), or raises if v came from a function returning several views (split); autograd_lab "
        "keeps w's history, and the gradient reaches v. In-place writes into such a view, while other views of its "
        "base exist, are not generated (seed 51001285)", "deliberate",
        avoid=lambda gen, step, facts: step == "inplace" and _leaf_view_with_views(gen, facts["name"])),
    KnownDifference(
        "the layout of an op's result whose operands have different layouts", "not generated",
        "M.mul(x.transpose(0, 1), y).contiguous(): PyTorch lays out an elementwise result as its first operand "
        "is laid out, NumPy's where, comparisons and fmod write row-major results, so contiguous(), view() and "
        "reshape() may return the tensor itself in one library and a copy (or an error) in the other, and matmul, "
        "which folds a batch into rows by reshape, saves a copy in one and a view in the other (an in-place change "
        "after it is then a version error in one library only). Results compare equal; only aliasing differs, so "
        "these calls, and matmul, on a non-contiguous op result are not generated",
        "deliberate", avoid=lambda gen, step, facts: step in ("view", "pointwise") and re.search(
            r"\.(contiguous|view|reshape|flatten|view_as)\(", facts.get("text", "")) is not None
        and not gen.tensor(facts["name"]).is_contiguous() and not gen.tensor(facts["name"])._is_view()
        or step == "matmul" and any(not t.is_contiguous() and not t._is_view() for t in _tensors(gen, facts))),
    KnownDifference(
        "which of tied values sort puts first", "not generated",
        "sort(stable=False) of a slice with equal values: PyTorch's CPU sort is not stable from 16 elements on, and "
        "PyTorch documents no order for ties; autograd_lab's is stable. The sorted values agree, but the gradient "
        "of each position goes back to a different one of the tied elements, so sort of a tensor with ties is not "
        "generated",
        "deliberate", avoid=lambda gen, step, facts: ".sort(" in facts.get("text", "")
        and _has_ties(gen.tensor(facts["name"]))),
    KnownDifference(
        "second derivatives PyTorch does not implement", "PyTorch raises",
        "a gradient of the gradient of hardsigmoid or multi_margin_loss: PyTorch 2.13 raises 'derivative for "
        "aten::hardsigmoid_backward is not implemented' (multi_margin_loss_backward likewise); autograd_lab "
        "differentiates the first derivative, which is piecewise constant in the input (gradgradcheck in "
        "tests/ops/formula_cases*.py)", "deliberate",
        explains=_one_raises("torch", r"derivative for aten::(hardsigmoid|multi_margin_loss)_backward is not "
                                      r"implemented")),
    KnownDifference(
        "hardsigmoid's slope 1/6 in float64", "not generated",
        "F.hardsigmoid's derivative is 1/6 between -3 and 3; PyTorch's kernel multiplies by the float32 constant "
        "1/6 (0.1666666716...) in every dtype, so its float64 gradients are 3e-8 off; autograd_lab's are 1/6",
        "deliberate", avoid=lambda gen, step, facts: "hardsigmoid" in facts.get("text", "")),
    KnownDifference(
        "piecewise activations' gradients at NaN", "not generated",
        "the gradient at a NaN input of hardtanh, relu6, elu, selu, celu, hardswish, softshrink and hardshrink: "
        "PyTorch's depends on which loop of its kernel handles the element (0 or NaN in the vectorized loop, the "
        "gradient or scale in the scalar one that handles a tensor's last few elements); autograd_lab's is the "
        "scalar loop's (tests/nn/test_layers_torch_parity.py), so these functions of a tensor holding a NaN are not "
        "generated", "deliberate",
        avoid=lambda gen, step, facts: re.search(NAN_LOOP_DEPENDENT, facts.get("text", "")) is not None
        and bool(gen.tensor(facts["name"]).isnan().any())),
    KnownDifference(
        "prelu's second derivative at exactly 0", "not generated",
        "F.prelu(x, w) at x == 0: both libraries' first derivatives take the negative side there (weight * grad), "
        "but PyTorch's second derivative (of _prelu_kernel_backward) takes the positive side at 0, so a gradient "
        "of x.grad with respect to w leaves out the zeros of x in PyTorch; autograd_lab differentiates its own "
        "first derivative, so prelu of a tensor holding an exact 0 is not generated", "deliberate",
        avoid=lambda gen, step, facts: step == "nn_layer" and "prelu" in facts.get("text", "")
        and bool((gen.tensor(facts["name"]) == 0).any())),
    KnownDifference(
        "soft_margin_loss past exp's range", "not generated",
        "F.soft_margin_loss computes log(1 + exp(-y x)) as a softplus that cannot overflow, and its gradient as "
        "-y sigmoid(-y x); PyTorch's kernel computes the log of 1 + exp(-y x) itself, so for -y x above 709 (or an "
        "infinite x) its loss is inf and its gradient NaN (inf / inf) where autograd_lab's are -y x and -y: soft "
        "margin losses of tensors holding an infinity or values above 700 are not generated", "deliberate",
        avoid=lambda gen, step, facts: step == "nn_layer" and "soft_margin_loss" in facts.get("text", "")
        and not bool((gen.tensor(facts["name"]).detach().abs() < 700).all())),
    KnownDifference(
        "infinities through a normalisation or a bilinear form", "not generated",
        "layer_norm (group_norm, instance_norm, batch_norm, rms_norm, normalize) and bilinear where an infinity is "
        "in play: their gradients combine sums of products, and which inf - inf or 0 * inf among them becomes NaN "
        "depends on how the formula is arranged (autograd_lab's normalisations use the textbook one, rstd * (g - "
        "mean(g) - x_hat * mean(g * x_hat)); PyTorch's kernels sum in another order), so where PyTorch gives NaN "
        "autograd_lab may give an infinity or the reverse (seeds 52018960, 52021708, 52023709, 54003529). These "
        "functions in a program holding an infinity are not generated", "deliberate",
        avoid=lambda gen, step, facts: step == "nn_layer" and re.search(INF_ORDER_SENSITIVE, facts.get("text", ""))
        is not None and _holds_an_infinity(gen)),
    KnownDifference(
        "a normalisation over one element", "not generated",
        "rms_norm or normalize over a dim of size 1: the result is x / sqrt(x^2 + eps), +-1 up to eps, and its "
        "derivative eps / (x^2 + eps)^1.5 is the difference of two nearly equal terms, rounding noise that each "
        "library's arrangement of the formula leaves differently (0 in one, a few ulps in the other, which a later "
        "pole turns into O(1); seed 54001836); not generated", "deliberate",
        avoid=lambda gen, step, facts: step == "nn_layer" and re.search(r"\b(rms_norm|normalize)\(",
                                                                        facts.get("text", "")) is not None
        and _normalises_one_element(gen.tensor(facts["name"]), facts.get("text", ""))),
    KnownDifference(
        "the sign of an exact zero a kernel chooses", "not generated",
        "M.tensor([[-1.95], [-1.0]]).mm(M.zeros(1, 2)) is -0.0 in PyTorch (its mm with an inner size of 1), +0.0 in its "
        "bmm, addmm and mv, and NumPy's kernels choose otherwise; M.maximum, M.minimum and M.clamp against a tensor "
        "return either zero on a tie of +0 and -0 (PyTorch's vectorized loop the bound, its scalar loop, which runs "
        "a tensor's last few elements, the input), and so do the reductions amin, amax, min and max; softshrink's "
        "zeros for negative inputs are -0.0 in its scalar loop, +0.0 in its vectorized one. After a "
        "function with a pole at 0 (1/x, log, sqrt's gradient) the sign decides between +inf and -inf. autograd_lab "
        "does not copy each kernel's choice, so such functions of these values are not generated",
        "deliberate", avoid=lambda gen, step, facts: step != "matmul" and re.search(POLE, facts.get("text", ""))
        is not None and gen.zero_sign_by_kernel(facts.get("text", "") + " " + str(facts.get("name", "")))),
]


F64 = "dtype=M.float64"
# A program showing each difference (tests/fuzz/test_known_differences.py checks that it still differs, so an
# entry whose difference is gone, fixed or changed, is noticed and removed). None: PyTorch crashes on it.
EXAMPLES: dict[str, str | None] = {
    "hook on a stale view": None,
    "floor_divide is differentiable": f"x = M.tensor([1.5], {F64}, requires_grad=True)\n(x // 2).sum().backward()",
    "masked_fill_ and index_put_ into expanded memory": f"""
e = M.tensor([1.0, -2.0], {F64}).expand(3, 2)
e.masked_fill_(e < 0, 0.25)""",
    "an in-place op reading memory it writes": f"t = M.arange(6.0, {F64}).reshape(2, 3)\nt.add_(t[:, :1])",
    "views made before an in-place write makes their base require grad": f"""
c = M.ones((2, 1), {F64})
v = c.squeeze()
c[0] = M.tensor([2.0], {F64}, requires_grad=True)
v.add_(1.0)""",
    "in-place writes into a view that was made a leaf": f"""
c = M.ones((1, 2), {F64})
v = c[:, :1]
v.requires_grad_()
w = v.view(1)
with M.no_grad(): v.add_(1.0)
w.sum().backward()
g = v.grad""",
    "the layout of an op's result whose operands have different layouts": f"""
x = M.ones((2, 3), {F64}).t()
y = (x * M.ones((3, 2), {F64})).view(-1)""",
    "which of tied values sort puts first": f"""
x = M.tensor([2.0] * 9 + [1.0] * 9, {F64}, requires_grad=True)
(x.sort(descending=True).values * M.arange(18.0, {F64})).sum().backward()
g = x.grad""",
    "second derivatives PyTorch does not implement": f"""
x = M.tensor([[2.0, -0.25, 1.43], [-0.5, 0.0, 3.0]], {F64}, requires_grad=True)
loss = M.nn.functional.multi_margin_loss(x, M.tensor([1, 0]))
(g,) = M.autograd.grad(loss, [x], create_graph=True)
(gg,) = M.autograd.grad(loss + (g * g).sum(), [x])""",
    "hardsigmoid's slope 1/6 in float64": f"""
x = M.tensor([0.5], {F64}, requires_grad=True)
M.nn.functional.hardsigmoid(x).sum().backward()
g = x.grad""",
    "piecewise activations' gradients at NaN": f"""
x = M.full((12,), float("nan"), {F64}, requires_grad=True)
M.nn.functional.hardtanh(x).sum().backward()
g = x.grad""",
    "prelu's second derivative at exactly 0": f"""
x = M.tensor([0.0, -1.0], {F64}, requires_grad=True)
w = M.tensor([1.5], {F64}, requires_grad=True)
(g,) = M.autograd.grad(M.nn.functional.prelu(x, w).sum(), [x], create_graph=True)
(gw,) = M.autograd.grad((g * g).sum(), [w])""",
    "soft_margin_loss past exp's range": f"""
x = M.tensor([800.0, -1.0], {F64}, requires_grad=True)
loss = M.nn.functional.soft_margin_loss(x, M.tensor([-1.0, 1.0], {F64}))
loss.backward()
g = x.grad""",
    "infinities through a normalisation or a bilinear form": f"""
x = M.tensor([[0.0, -inf, 0.0], [-0.59, 1.5, 1.5]], {F64}, requires_grad=True)
w, b = M.tensor([-1.0, 0.0, inf], {F64}), M.tensor([inf, 0.0, -inf], {F64})
y = M.nn.functional.layer_norm(x, [3], w, b, eps=1e-3)
(g,) = M.autograd.grad((y * M.tensor([[-0.22, 0.94, 0.34], [-0.85, -0.45, 0.52]], {F64})).sum(), [x])""",
    "a normalisation over one element": f"""
x = M.tensor([[-0.25], [-1.5], [2.0]], {F64}, requires_grad=True)
t = M.nn.functional.rms_norm(x, [1])
u = t.sinc()
v = u.log()
loss = (v * M.tensor([[-0.7], [0.32], [0.62]], {F64})).sum()
loss.backward()""",
    "the sign of an exact zero a kernel chooses": f"""
y = M.tensor([[-1.95], [-1.0]], {F64}).mm(M.tensor([[0.0, 0.0]], {F64}))
z = y.reciprocal()""",
}


def avoids(gen, step: str, **facts) -> bool:
    """Whether a table entry keeps the generator from writing this step about ``facts``."""
    return any(entry.avoid is not None and entry.avoid(gen, step, facts) for entry in KNOWN)


def explained(lines, text: str, al_error, torch_error) -> KnownDifference | None:
    """The table entry that accepts this one-side error on the line ``text`` after ``lines``, if any."""
    for entry in KNOWN:
        if entry.explains is not None and entry.explains(lines, text, al_error, torch_error):
            return entry
    return None
