"""What a script prints: tensors of every kind (the same characters as PyTorch's, "torch." read as "al."), shapes,
and tensors that require grad or come from an op."""

import numpy as np

import autograd_lab as al


def main():
    rng = np.random.default_rng(4)
    x = al.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    print(x)
    print(x.shape, x[0].shape, x.size(1))
    print((x * 1000).sum(dim=0))
    print(al.arange(12).reshape(3, 4) > 5)
    print(al.tensor([1e-6, 1.0, float("nan"), float("inf")]))
    print(al.zeros(2, 0), al.tensor([], dtype=al.int64))
    print(al.linspace(0, 1, 2000).reshape(40, 50))
    print(al.tensor([[1, 2], [3, 4]], dtype=al.int32), al.ones(2, dtype=al.float16))
    print(al.randn(0, 3).shape, al.tensor(2.5), al.tensor(7))
    al.set_printoptions(precision=2, linewidth=60)
    print(al.tensor(rng.standard_normal(20)))
    al.set_printoptions(profile="default")
    return {}
