"""Code written against torch.autograd.Variable (2018-2020 tutorials) runs as it is."""
import autograd_lab as al
from autograd_lab.autograd import Variable

x = Variable(al.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
w = Variable(al.tensor([[0.5], [-1.0]]), requires_grad=True)
loss = (x.mm(w) ** 2).sum()
loss.backward()
result = {
    "x is a tensor": type(x).__name__ == "Tensor",
    "isinstance": isinstance(al.ones(1), Variable),
    "loss": loss.item(),
    "w.grad": w.grad.flatten().tolist(),
    "x.grad": x.grad.flatten().tolist(),
}
print(result)
