"""The steps of PyTorch's "Learning PyTorch with Examples", as a user types them: fit a cubic to sin(x) with tensors
and a hand-written backward, then with autograd, then with a custom autograd Function (a Legendre polynomial), then
with nn.Sequential and an MSE loss (manual update, then an optimizer), then with a custom Module, and last a Module
whose graph changes from call to call (weight sharing). Fewer steps than the tutorial, the same code paths; the
random draws come from NumPy so that both libraries start from the same numbers."""

import math

import numpy as np

import autograd_lab as al


class LegendrePolynomial3(al.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class Polynomial3(al.nn.Module):
    def __init__(self, start):
        super().__init__()
        self.a, self.b, self.c, self.d = (al.nn.Parameter(al.tensor(v, dtype=al.float64)) for v in start)

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f"y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + {self.d.item():.4f} x^3"


class DynamicNet(al.nn.Module):
    """A polynomial of degree 3 to 5 at each call, the 4th and 5th coefficients sharing one parameter."""

    def __init__(self, start, degrees):
        super().__init__()
        self.a, self.b, self.c, self.d, self.e = (al.nn.Parameter(al.tensor(v, dtype=al.float64)) for v in start)
        self.degrees = iter(degrees)

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, next(self.degrees)):
            y = y + self.e * x ** exp
        return y


def by_hand(x, y, start, steps, learning_rate):
    a, b, c, d = (al.tensor(v, dtype=al.float64) for v in start)
    for _ in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        grad_y_pred = 2.0 * (y_pred - y)
        a = a - learning_rate * grad_y_pred.sum()
        b = b - learning_rate * (grad_y_pred * x).sum()
        c = c - learning_rate * (grad_y_pred * x ** 2).sum()
        d = d - learning_rate * (grad_y_pred * x ** 3).sum()
    return [a.item(), b.item(), c.item(), d.item()]


def with_autograd(x, y, start, steps, learning_rate, polynomial=None):
    a, b, c, d = (al.tensor(v, dtype=al.float64, requires_grad=True) for v in start)
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3 if polynomial is None else a + b * polynomial(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t == steps - 1:
            print(t, round(loss.item(), 6), y_pred.grad_fn.name())
        loss.backward()
        with al.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    return [a.item(), b.item(), c.item(), d.item()]


def with_nn(x, y, rng, steps, learning_rate, use_optimizer):
    xx = x.unsqueeze(-1).pow(al.tensor([1, 2, 3]))
    model = al.nn.Sequential(al.nn.Linear(3, 1), al.nn.Flatten(0, 1)).double()
    with al.no_grad():
        model[0].weight.copy_(al.tensor(rng.normal(0, 0.1, (1, 3))))
        model[0].bias.zero_()
    loss_fn = al.nn.MSELoss(reduction="sum")
    optimizer = al.optim.RMSprop(model.parameters(), lr=1e-3) if use_optimizer else None
    for _ in range(steps):
        loss = loss_fn(model(xx), y)
        if optimizer is None:
            model.zero_grad()
            loss.backward()
            with al.no_grad():
                for param in model.parameters():
                    param -= learning_rate * param.grad
        else:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    layer = model[0]
    print(model, f"y = {layer.bias.item():.4f} + {layer.weight[:, 0].item():.4f} x + ...")
    return [layer.bias.item(), *layer.weight.flatten().tolist(), loss.item()]


def main():
    rng = np.random.default_rng(11)
    x = al.linspace(-math.pi, math.pi, 200, dtype=al.float64)
    y = al.sin(x)
    start = rng.standard_normal(4).tolist()
    results = {"by_hand": by_hand(x, y, start, 300, 1e-6),
               "autograd": with_autograd(x, y, start, 300, 1e-6)}
    legendre_start = [0.0, -1.0, 0.0, 0.3]
    results["legendre"] = with_autograd(x, y, legendre_start, 300, 5e-6, LegendrePolynomial3.apply)
    results["nn_manual"] = with_nn(x, y, rng, 300, 1e-6, use_optimizer=False)
    results["nn_optimizer"] = with_nn(x, y, rng, 300, 1e-3, use_optimizer=True)

    model = Polynomial3(rng.standard_normal(4).tolist())
    optimizer = al.optim.SGD(model.parameters(), lr=1e-6)
    criterion = al.nn.MSELoss(reduction="sum")
    for _ in range(300):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(model.string())
    results["module"] = [p.item() for p in model.parameters()]

    degrees = rng.integers(4, 7, size=200).tolist()
    dynamic = DynamicNet(rng.standard_normal(5).tolist(), degrees)
    optimizer = al.optim.SGD(dynamic.parameters(), lr=1e-8, momentum=0.9)
    for _ in range(len(degrees)):
        loss = criterion(dynamic(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    results["dynamic"] = [p.item() for p in dynamic.parameters()] + [loss.item()]
    return results
