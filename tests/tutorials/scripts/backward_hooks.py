"""Watch the gradients that reach each layer with full backward hooks, and clip one layer's."""
import numpy as np

import autograd_lab as al

rng = np.random.default_rng(1)
model = al.nn.Sequential(al.nn.Linear(4, 8), al.nn.Tanh(), al.nn.Linear(8, 1))
with al.no_grad():
    for p in model.parameters():
        p.copy_(al.tensor(rng.standard_normal(tuple(p.shape)), dtype=al.float32))
norms = {}


def log_grad_norm(module, grad_input, grad_output):
    norms[type(module).__name__ + str(len(norms))] = round(grad_output[0].norm().item(), 4)


def halve_input_grads(module, grad_input, grad_output):
    return tuple(None if g is None else g / 2 for g in grad_input)


for layer in model:
    layer.register_full_backward_hook(log_grad_norm)
model[1].register_full_backward_hook(halve_input_grads)
x = al.tensor(rng.standard_normal((5, 4)), dtype=al.float32, requires_grad=True)
model(x).pow(2).mean().backward()
result = {"norms": norms, "first weight grad norm": round(model[0].weight.grad.norm().item(), 4)}
print(result)
