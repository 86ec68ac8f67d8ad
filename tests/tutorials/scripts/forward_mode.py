"""Derivatives pushed forward: a Jacobian-vector product with dual tensors, a custom Function's jvp, and a whole
Jacobian from one batched backward (is_grads_batched)."""
import autograd_lab as al
import autograd_lab.autograd.forward_ad as fwAD


def f(x):
    return al.tanh(x) * x.exp() + x.sum()


x = al.tensor([0.1, -0.4, 0.7], dtype=al.float64)
v = al.tensor([1.0, 0.0, 2.0], dtype=al.float64)

# one forward pass carries the tangent v: the JvP J(x) @ v, no graph and no backward
with fwAD.dual_level():
    out = f(fwAD.make_dual(x, v))
    primal, tangent = fwAD.unpack_dual(out)

# the same product, by the reverse-mode Jacobian
jacobian = al.autograd.functional.jacobian(f, x)


class Cube(al.autograd.Function):
    """x ** 3 with both derivatives written by hand."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return x_tangent * 3 * x ** 2


with fwAD.dual_level():
    cube_tangent = fwAD.unpack_dual(Cube.apply(fwAD.make_dual(x, v))).tangent

# a row of the Jacobian per vector of grad_outputs, in one call
w = x.clone().requires_grad_()
(rows,) = al.autograd.grad(f(w), w, grad_outputs=al.eye(3, dtype=al.float64), is_grads_batched=True)

result = {
    "primal": [round(p, 12) for p in primal.tolist()],
    "JvP": [round(t, 12) for t in tangent.tolist()],
    "JvP from the Jacobian": [round(t, 12) for t in (jacobian @ v).tolist()],
    "Cube's tangent": [round(t, 12) for t in cube_tangent.tolist()],
    "Jacobian by batched backward": [[round(e, 12) for e in row] for row in rows.tolist()],
}
print(result)
