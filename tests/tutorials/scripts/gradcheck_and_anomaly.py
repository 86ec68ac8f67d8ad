"""Checking a hand-written gradient, and finding where a NaN comes from: gradcheck's options and anomaly mode."""
import warnings

import autograd_lab as al


class Square(al.autograd.Function):
    """x ** 2 with its derivative written by hand; ``wrong=True`` forgets the factor 2."""

    @staticmethod
    def forward(ctx, x, wrong):
        ctx.save_for_backward(x)
        ctx.wrong = wrong
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x * (1 if ctx.wrong else 2), None


x = al.tensor([0.5, -1.5, 2.0], dtype=al.float64, requires_grad=True)
right = al.autograd.gradcheck(lambda t: Square.apply(t, False), (x,))
wrong = al.autograd.gradcheck(lambda t: Square.apply(t, True), (x,), raise_exception=False)
try:
    al.autograd.gradcheck(lambda t: Square.apply(t, True), (x,))
    wrong_raises = None
except RuntimeError as exc:
    wrong_raises = str(exc).startswith("Jacobian mismatch for output 0 with respect to input 0")

# options: undefined gradients checked, a nondeterministic tolerance, a hook inside the checked function,
# an integer output (not differentiable: its numerical gradient must be zero, and it is)
options = al.autograd.gradcheck(lambda t: Square.apply(t, False), (x,), check_undefined_grad=True, nondet_tol=1e-12)


hook_calls = []


def with_hook(t):
    y = t.sin()
    y.register_hook(lambda g: hook_calls.append(g is not None))
    return y


hooked = al.autograd.gradcheck(with_hook, (x,))
with_index = al.autograd.gradcheck(lambda t: (t.exp(), t.argmax()), (x,))
second_order = al.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))

# anomaly mode: sqrt has an infinite derivative at 0, and times the 0 of z * 0 that gives NaN in MulBackward0;
# the error names that node, and a warning gives the forward line that made it
z = al.tensor([1.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with al.autograd.detect_anomaly():
            out = al.sqrt(z * 0).sum()
            out.backward()
        anomaly = None
    except RuntimeError as exc:
        anomaly = str(exc).split(".")[0]
forward_traceback = any(str(w.message).startswith("Error detected in MulBackward0") for w in caught)

result = {
    "right": right,
    "wrong": wrong,
    "wrong raises with a Jacobian mismatch": wrong_raises,
    "options": options,
    "hook inside": hooked,
    "the hook ran": any(hook_calls),
    "integer output": with_index,
    "second order": second_order,
    "anomaly": anomaly,
    "forward traceback warned": forward_traceback,
}
print(result)
