"""The path of PyTorch's "What is torch.nn really?" and of its "Neural Networks" tutorial, on small synthetic 28x28
images instead of MNIST (sparse pixels, labelled by a hidden linear rule): logistic regression written from scratch
(log-softmax and negative log-likelihood by hand, the update under no_grad), then the same with F.cross_entropy,
nn.Module and nn.Parameter, nn.Linear, optim, TensorDataset and DataLoader with a validation loop, a CNN through
nn.Sequential with a Lambda layer and adaptive pooling, and LeNet with max pooling, flatten and an MSE loss. Both
libraries start from the same NumPy draws."""

import math

import numpy as np

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab import nn, optim
from autograd_lab.utils.data import DataLoader, TensorDataset


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = al.argmax(out, dim=1)
    return (preds == yb).float().mean()


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


class MnistLogistic(nn.Module):
    def __init__(self, weights, bias):
        super().__init__()
        self.weights = nn.Parameter(weights)
        self.bias = nn.Parameter(bias)

    def forward(self, xb):
        return xb @ self.weights + self.bias


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = al.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        return self.fc3(f6)


def seeded(module, rng):
    with al.no_grad():
        for p in module.parameters():
            p.copy_(al.tensor(rng.normal(0.0, 0.1, tuple(p.shape))))
    return module


def fit(model, loss_func, opt, train_dl, valid_dl, epochs):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with al.no_grad():
            losses, nums = zip(*[(loss_func(model(xb), yb).item(), len(xb)) for xb, yb in valid_dl])
        print(epoch, round(np.sum(np.multiply(losses, nums)) / np.sum(nums), 8))
    return loss.item()


def main():
    rng = np.random.default_rng(5)
    pixels = rng.uniform(0, 1, (128, 784)) * (rng.uniform(0, 1, (128, 784)) < 0.15)  # sparse, as MNIST's digits
    labels = (pixels @ rng.standard_normal((784, 10))).argmax(1)  # a rule a linear model can learn
    x_train, x_valid = al.tensor(pixels[:96]), al.tensor(pixels[96:])
    y_train, y_valid = al.tensor(labels[:96]), al.tensor(labels[96:])
    bs, lr = 32, 0.5

    weights = al.tensor(rng.standard_normal((784, 10)) / math.sqrt(784))
    weights.requires_grad_()
    bias = al.zeros(10, dtype=al.float64, requires_grad=True)
    for i in range(len(x_train) // bs):
        xb, yb = x_train[i * bs:(i + 1) * bs], y_train[i * bs:(i + 1) * bs]
        loss = nll(log_softmax(xb @ weights + bias), yb)
        loss.backward()
        with al.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
    results = {"scratch": [loss.item(), accuracy(x_valid @ weights + bias, y_valid).item(),
                           F.cross_entropy(x_valid @ weights + bias, y_valid).item()]}

    model = MnistLogistic(al.tensor(rng.standard_normal((784, 10)) / math.sqrt(784)), al.zeros(10, dtype=al.float64))
    train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=bs)
    valid_dl = DataLoader(TensorDataset(x_valid, y_valid), batch_size=bs * 2)
    results["module"] = [fit(model, F.cross_entropy, optim.SGD(model.parameters(), lr=lr), train_dl, valid_dl, 2)]

    linear = seeded(nn.Linear(784, 10).double(), rng)
    results["linear"] = [fit(linear, F.cross_entropy, optim.SGD(linear.parameters(), lr=lr, momentum=0.9),
                             train_dl, valid_dl, 2)]

    cnn = seeded(nn.Sequential(
        Lambda(lambda x: x.view(-1, 1, 28, 28)),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ).double(), rng)
    results["cnn"] = [fit(cnn, F.cross_entropy, optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9),
                          train_dl, valid_dl, 2)]

    net = seeded(LeNet().double(), rng)
    print(net)
    print(len(list(net.parameters())), net.conv1.weight.size())
    images = x_train[:4].view(4, 1, 28, 28)
    target = al.tensor(rng.standard_normal((4, 10)))
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    optimizer.zero_grad()
    loss = nn.MSELoss()(net(images), target)
    print(loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name())
    loss.backward()
    bias_grad = net.conv1.bias.grad.tolist()
    optimizer.step()
    results["lenet"] = [loss.item(), *bias_grad, net(images).sum().item()]
    return results
