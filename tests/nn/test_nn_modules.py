"""``autograd_lab.nn``: every layer and loss against PyTorch with the same weights copied in (outputs, input and
parameter gradients), PyTorch's default initialisations, the ``Module`` API (registration, traversal,
state_dict, train/eval, hooks, conversion, repr) and a small end-to-end training run.
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn as nn
import autograd_lab.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn


def twins(ours: nn.Module, theirs):
    """Both modules in float64 with the same parameters and buffers (ours copied into theirs)."""
    ours.double()
    theirs.double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


def run_both(ours, theirs, x, seed=0, integer_input=False):
    """Forward the same input through both, backward the same random gradient; compare everything."""
    if integer_input:
        xa, xt = al.tensor(x), torch.tensor(x)
    else:
        xa = al.tensor(x, dtype=al.float64, requires_grad=True)
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    out_a, out_t = ours(xa), theirs(xt)
    np.testing.assert_allclose(out_a.detach().numpy(), out_t.detach().numpy(), rtol=1e-9, atol=1e-11)
    if not out_t.requires_grad:
        return out_a, out_t
    g = np.random.default_rng(seed).standard_normal(tuple(out_t.shape))
    out_a.backward(al.tensor(g))
    out_t.backward(torch.tensor(g))
    if not integer_input:
        np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)
    their_params = dict(theirs.named_parameters())
    assert [name for name, _ in ours.named_parameters()] == list(their_params)
    for name, param in ours.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), their_params[name].grad.numpy(), rtol=1e-9, atol=1e-11,
                                   err_msg=name)
    for name, buffer in ours.named_buffers():
        np.testing.assert_allclose(buffer.numpy(), dict(theirs.named_buffers())[name].numpy(), rtol=1e-12,
                                   err_msg=name)
    return out_a, out_t


def distinct(shape, seed=0):
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.1 - n * 0.05).reshape(shape)


LAYERS = [
    ("Linear", lambda m: m.Linear(5, 3), (4, 5)),
    ("Linear-3d-nobias", lambda m: m.Linear(5, 3, bias=False), (2, 4, 5)),
    ("Conv2d", lambda m: m.Conv2d(4, 6, 3, stride=2, padding=1), (2, 4, 7, 7)),
    ("Conv2d-groups", lambda m: m.Conv2d(4, 6, (3, 2), dilation=2, groups=2, bias=False), (2, 4, 7, 6)),
    ("Conv2d-same-depthwise", lambda m: m.Conv2d(4, 4, 3, padding="same", groups=4), (2, 4, 5, 6)),
    ("MaxPool2d", lambda m: m.MaxPool2d(2), (2, 3, 7, 6)),
    ("MaxPool2d-ceil", lambda m: m.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 7, 6)),
    ("AvgPool2d", lambda m: m.AvgPool2d(3, 2, 1, count_include_pad=False), (2, 3, 7, 6)),
    ("AdaptiveAvgPool2d", lambda m: m.AdaptiveAvgPool2d((2, 3)), (2, 3, 7, 6)),
    ("AdaptiveAvgPool2d-global", lambda m: m.AdaptiveAvgPool2d(1), (2, 3, 7, 6)),
    ("BatchNorm1d", lambda m: m.BatchNorm1d(3), (4, 3)),
    ("BatchNorm1d-3d-cumulative", lambda m: m.BatchNorm1d(3, momentum=None), (4, 3, 5)),
    ("BatchNorm2d", lambda m: m.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
    ("BatchNorm2d-nobias", lambda m: m.BatchNorm2d(3, bias=False, eps=1e-3), (4, 3, 2, 2)),
    ("BatchNorm1d-untracked", lambda m: m.BatchNorm1d(3, track_running_stats=False), (4, 3)),
    ("Flatten", lambda m: m.Flatten(), (2, 3, 2, 2)),
    ("Unflatten", lambda m: m.Unflatten(1, (2, 3)), (4, 6)),
    ("ReLU", lambda m: m.ReLU(), (3, 4)),
    ("Tanh", lambda m: m.Tanh(), (3, 4)),
    ("Sigmoid", lambda m: m.Sigmoid(), (3, 4)),
    ("GELU", lambda m: m.GELU(), (3, 4)),
    ("GELU-tanh", lambda m: m.GELU("tanh"), (3, 4)),
    ("Softmax", lambda m: m.Softmax(dim=1), (3, 4)),
    ("LogSoftmax", lambda m: m.LogSoftmax(dim=0), (3, 4)),
    ("Identity", lambda m: m.Identity(), (3, 4)),
    ("Dropout-eval", lambda m: m.Dropout(0.5).eval(), (3, 4)),
    ("Sequential", lambda m: m.Sequential(m.Conv2d(3, 4, 3, padding=1), m.BatchNorm2d(4), m.ReLU(), m.MaxPool2d(2),
                                          m.Flatten(), m.Linear(24, 5), m.GELU(), m.Linear(5, 2)), (2, 3, 4, 6)),
]


@pytest.mark.parametrize("name,make,shape", LAYERS, ids=[case[0] for case in LAYERS])
def test_layer_matches_torch_with_the_same_weights(name, make, shape):
    al.manual_seed(0)
    ours, theirs = twins(make(nn), make(tnn))
    run_both(ours, theirs, distinct(shape))
    run_both(ours, theirs, distinct(shape, seed=1), seed=1)  # a second step: running statistics move again
    ours.eval()
    theirs.eval()
    run_both(ours, theirs, distinct(shape, seed=2), seed=2)


def test_embedding_layer_matches_torch():
    for kw in (dict(), dict(padding_idx=2), dict(scale_grad_by_freq=True)):
        al.manual_seed(0)
        ours, theirs = twins(nn.Embedding(10, 3, **kw), tnn.Embedding(10, 3, **kw))
        run_both(ours, theirs, np.array([[1, 2, 2], [9, 0, 2]]), integer_input=True)
    weights = al.randn(4, 2)
    frozen = nn.Embedding.from_pretrained(weights)
    assert not frozen.weight.requires_grad and frozen(al.tensor([3])).equal(weights[3:4])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    rng = np.random.default_rng(0)
    logits, labels = rng.standard_normal((5, 4)), rng.integers(0, 4, 5)
    probs, soft = rng.uniform(0.05, 0.95, (5, 4)), rng.uniform(0, 1, (5, 4))
    weight = rng.uniform(0.5, 2, 4)
    cases = [
        (nn.MSELoss, tnn.MSELoss, {}, logits, soft),
        (nn.L1Loss, tnn.L1Loss, {}, logits, soft),
        (nn.CrossEntropyLoss, tnn.CrossEntropyLoss, dict(label_smoothing=0.1, ignore_index=1), logits, labels),
        (nn.CrossEntropyLoss, tnn.CrossEntropyLoss, dict(weight=weight), logits, labels),
        (nn.NLLLoss, tnn.NLLLoss, dict(weight=weight), logits, labels),
        (nn.BCELoss, tnn.BCELoss, dict(weight=weight), probs, soft),
        (nn.BCEWithLogitsLoss, tnn.BCEWithLogitsLoss, dict(pos_weight=weight), logits, soft),
    ]
    for ours_cls, theirs_cls, kw, x, y in cases:
        ours = ours_cls(reduction=reduction, **{k: al.tensor(v) if isinstance(v, np.ndarray) else v
                                                for k, v in kw.items()})
        theirs = theirs_cls(reduction=reduction, **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                                                    for k, v in kw.items()})
        xa, xt = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yt = al.tensor(y), torch.tensor(y)
        out_a, out_t = ours(xa, ya), theirs(xt, yt)
        np.testing.assert_allclose(out_a.detach().numpy(), out_t.detach().numpy(), rtol=1e-10, err_msg=ours_cls.__name__)
        out_a.sum().backward()
        out_t.sum().backward()
        np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=ours_cls.__name__)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())  # class weights are buffers, as in PyTorch


def test_legacy_loss_flags_translate_to_reduction():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"


# -- initialisation ----------------------------------------------------------------------------
def test_default_initialisation_matches_pytorch_bounds_and_is_seeded():
    al.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for param in (layer.weight, layer.bias):
        values = param.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
    # U(-b, b) has standard deviation b / sqrt(3): kaiming_uniform_ with a=sqrt(5) gives exactly this bound
    assert abs(layer.weight.detach().numpy().std() - bound / math.sqrt(3)) < 0.02 * bound
    al.manual_seed(0)
    assert nn.Linear(400, 300).weight.equal(layer.weight)
    assert not nn.Linear(400, 300).weight.equal(layer.weight)
    conv = nn.Conv2d(6, 8, 3, groups=2)
    conv_bound = 1 / math.sqrt(3 * 3 * 3)
    assert float(conv.weight.abs().max()) <= conv_bound and float(conv.bias.abs().max()) <= conv_bound
    emb = nn.Embedding(2000, 8, padding_idx=0)
    assert float(emb.weight[0].abs().sum()) == 0.0
    assert abs(emb.weight.detach().numpy()[1:].std() - 1) < 0.05
    bn = nn.BatchNorm1d(3)
    assert bn.weight.equal(al.ones(3)) and bn.bias.equal(al.zeros(3)) and int(bn.num_batches_tracked) == 0


def test_init_functions_fill_in_place_without_history():
    w = nn.Parameter(al.empty(200, 100))
    for fn, expected_std in ((nn.init.xavier_uniform_, math.sqrt(2 / 300)), (nn.init.xavier_normal_, math.sqrt(2 / 300)),
                             (lambda t: nn.init.kaiming_normal_(t, nonlinearity="relu"), math.sqrt(2 / 100)),
                             (lambda t: nn.init.kaiming_uniform_(t, mode="fan_out"), math.sqrt(2 / 200)),
                             (lambda t: nn.init.normal_(t, 1.0, 0.5), 0.5)):
        version = w._version
        assert fn(w) is w
        assert w.grad_fn is None and w.is_leaf and w._version > version
        assert abs(w.detach().numpy().std() - expected_std) < 0.05 * expected_std
    assert nn.init.constant_(w, 0.25).equal(al.full((200, 100), 0.25))
    assert nn.init.zeros_(w).equal(al.zeros(200, 100)) and nn.init.ones_(w).equal(al.ones(200, 100))
    assert nn.init.eye_(al.empty(2, 3)).equal(al.eye(2, 3))
    lo, hi = nn.init.uniform_(w, -2, -1).detach().numpy().min(), w.detach().numpy().max()
    assert -2 <= lo and hi <= -1
    for name, param in (("linear", None), ("tanh", None), ("relu", None), ("leaky_relu", 0.2), ("selu", None)):
        assert nn.init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(al.empty(3))


# -- the Module API ----------------------------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(2, 4), nn.ReLU())
        self.head = nn.Linear(4, 3)
        self.scale = nn.Parameter(al.ones(1))
        self.register_buffer("calls", al.zeros(1))
        self.register_buffer("cache", al.zeros(2), persistent=False)

    def forward(self, x):
        return self.head(self.features(x)) * self.scale


def test_registration_and_traversal():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "features.0.weight", "features.0.bias", "head.weight",
                                                      "head.bias"]
    assert [n for n, _ in net.named_children()] == ["features", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "features", "features.0", "features.1", "head"]
    assert [n for n, _ in net.named_buffers()] == ["calls", "cache"]
    assert len(list(net.parameters(recurse=False))) == 1
    assert net.get_submodule("features.0") is net.features[0]
    assert net.get_parameter("head.bias") is net.head.bias
    shared = nn.Sequential(net.head, net.head)  # a shared module is listed once, its parameters too
    assert len(list(shared.parameters())) == 2 and len(list(shared.modules())) == 2
    assert list(shared.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'missing'"):
        _ = net.missing
    with pytest.raises(TypeError, match=r"cannot assign 'al.FloatTensor' as parameter 'scale' \(al.nn.Parameter or "
                                        r"None expected\)"):
        net.scale = al.ones(1)
    net.head = nn.Identity()  # replacing a child keeps its slot
    assert [n for n, _ in net.named_children()] == ["features", "head"]
    del net.features
    assert [n for n, _ in net.named_children()] == ["head"]

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(al.ones(1))
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


def test_state_dict_round_trip_and_strict_loading():
    al.manual_seed(0)
    source, target = Net(), Net()
    state = source.state_dict()
    assert list(state) == ["scale", "calls", "features.0.weight", "features.0.bias", "head.weight", "head.bias"]
    assert all(not t.requires_grad for t in state.values())
    assert state["head.weight"].data_ptr() == source.head.weight.data_ptr()  # detached, not copied
    weight_before = target.head.weight
    result = target.load_state_dict(state)
    assert repr(result) == "<All keys matched successfully>"
    assert target.head.weight is weight_before  # loaded in place
    x = al.randn(5, 2)
    assert target(x).equal(source(x))
    state = OrderedDict(state)
    del state["head.bias"]
    state["extra"] = al.zeros(1)
    state["head.weight"] = al.zeros(4, 4)
    with pytest.raises(RuntimeError) as info:
        target.load_state_dict(state)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "head.bias". \n\t'
        'Unexpected key(s) in state_dict: "extra". \n\tsize mismatch for head.weight: copying a param with shape '
        "al.Size([4, 4]) from checkpoint, the shape in current model is al.Size([3, 4]).")
    del state["head.weight"]
    result = target.load_state_dict(state, strict=False)
    assert result.missing_keys == ["head.weight", "head.bias"] and result.unexpected_keys == ["extra"]


def test_state_dict_loads_into_torch_and_back():
    al.manual_seed(1)
    ours = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    theirs = tnn.Sequential(tnn.Linear(3, 4), tnn.BatchNorm1d(4), tnn.Linear(4, 2))
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    back = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    back.load_state_dict({k: al.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    for (k, a), (_, b) in zip(ours.state_dict().items(), back.state_dict().items()):
        assert a.equal(b), k
    assert back[1].num_batches_tracked.dtype is al.int64


def test_train_eval_switch_dropout_and_batchnorm():
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    assert all(m.training for m in model.modules())
    x = al.randn(8, 4)
    al.manual_seed(3)
    first = model(x)
    assert int(model[1].num_batches_tracked) == 1
    assert bool((first == 0).any())
    running = model[1].running_mean.clone()
    assert model.eval() is model and not any(m.training for m in model.modules())
    out1, out2 = model(x), model(x)
    assert out1.equal(out2) and not bool((out1 == 0).any())  # no dropout, fixed statistics
    assert model[1].running_mean.equal(running) and int(model[1].num_batches_tracked) == 1
    expected = ((model[0](x) - model[1].running_mean) / (model[1].running_var + 1e-5).sqrt()) * model[1].weight \
        + model[1].bias
    np.testing.assert_allclose(out1.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    model.train()
    assert model[2].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("no")


def test_requires_grad_freezes_and_zero_grad():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    model[0].requires_grad_(False)
    model(al.randn(4, 2)).sum().backward()
    assert model[0].weight.grad is None and model[1].weight.grad is not None
    grad = model[1].weight.grad
    model.zero_grad(set_to_none=False)
    assert model[1].weight.grad is grad and float(grad.abs().sum()) == 0.0
    model.zero_grad()
    assert model[1].weight.grad is None


def test_apply_and_dtype_conversion_keep_parameter_objects():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    weight = model[0].weight
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "BatchNorm1d", "Sequential"]  # children first, as in PyTorch
    model(al.randn(4, 2)).sum().backward()
    assert model.double() is model and model[0].weight is weight
    assert weight.dtype is al.float64 and weight.grad.dtype is al.float64
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    assert model[1].running_var.dtype is al.float64 and model[1].num_batches_tracked.dtype is al.int64
    assert model(al.randn(4, 2, dtype=al.float64)).dtype is al.float64
    model.float()
    assert weight.dtype is al.float32
    model.to(al.float64)
    assert weight.dtype is al.float64
    with pytest.raises(TypeError, match="only accepts floating point dtypes"):
        model.to(al.int64)


def test_forward_hooks_pre_hooks_kwargs_prepend_and_removal():
    layer = nn.Linear(2, 2)
    calls = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = layer.register_forward_hook(lambda m, args, out: calls.append(("post", out.shape)) or out + 1)
    layer.register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
    out = layer(al.randn(3, 2))
    np.testing.assert_allclose(out.detach().numpy(), (layer.bias + 1).expand(3, 2).detach().numpy())
    assert calls == ["first", ("post", al.Size([3, 2]))]
    pre.remove()
    post.remove()
    x = al.randn(3, 2)
    assert layer(x).equal(layer.forward(x))

    class Scaled(nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale
    module = Scaled()
    module.register_forward_pre_hook(lambda m, args, kwargs: (args, {"scale": 3.0}), with_kwargs=True)
    module.register_forward_hook(lambda m, args, kwargs, out: out + kwargs["scale"], with_kwargs=True)
    assert module(al.ones(1)).item() == 6.0
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(al.ones(1))


def test_repr_matches_pytorch():
    def build(m):
        return m.Sequential(m.Conv2d(1, 8, 3, padding=1), m.BatchNorm2d(8), m.ReLU(inplace=True), m.MaxPool2d(2),
                            m.Conv2d(8, 8, (3, 2), stride=2, dilation=2, groups=2, bias=False), m.AvgPool2d(3, 2, 1),
                            m.AdaptiveAvgPool2d((1, 1)), m.Flatten(), m.Dropout(0.25), m.Linear(8, 10), m.GELU("tanh"),
                            m.ModuleList([m.Linear(2, 2) for _ in range(3)] + [m.Tanh()]), m.Embedding(10, 3, padding_idx=0),
                            m.Softmax(dim=1), m.LogSoftmax(dim=1), m.Sigmoid(), m.Identity(), m.BatchNorm1d(4, bias=False),
                            m.CrossEntropyLoss(), m.Conv2d(2, 2, 3, padding="same"))
    assert repr(build(nn)) == repr(build(tnn))
    assert repr(nn.Parameter(al.ones(2))) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert repr(nn.Parameter(al.ones(2), requires_grad=False)) == "Parameter containing:\ntensor([1., 1.])"


def test_parameter_is_a_leaf_tensor_sharing_memory():
    data = al.zeros(3)
    param = nn.Parameter(data)
    assert isinstance(param, al.Tensor) and param.is_leaf and param.requires_grad
    assert param.data_ptr() == data.data_ptr()
    assert type(param * 2) is al.Tensor and type(param.detach()) is al.Tensor
    clone = copy.deepcopy(param)
    assert isinstance(clone, nn.Parameter) and clone.data_ptr() != param.data_ptr()
    with pytest.raises(TypeError, match="Parameter expects a Tensor"):
        nn.Parameter([1.0])


def test_containers():
    layers = [nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and seq[-1] is layers[2] and list(seq) == layers
    assert isinstance(seq[:2], nn.Sequential) and list(seq[:2]) == layers[:2]
    seq.append(nn.Sigmoid())
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    named = nn.Sequential(OrderedDict(fc=nn.Linear(2, 2), act=nn.Tanh()))
    assert named.fc is named[0]
    blocks = nn.ModuleList([nn.Linear(2, 2)])
    blocks += [nn.Linear(2, 2)]
    blocks.insert(0, nn.Tanh())
    assert len(blocks) == 3 and isinstance(blocks[0], nn.Tanh) and len(list(blocks.parameters())) == 4
    assert isinstance(blocks[1:], nn.ModuleList)
    with pytest.raises(IndexError, match="out of range"):
        blocks[5]
    table = nn.ModuleDict({"a": nn.Linear(1, 1)})
    table["b"] = nn.ReLU()
    assert list(table) == ["a", "b"] and "a" in table and len(list(table.parameters())) == 2

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.plain = [nn.Linear(1, 1)]  # a plain list is not registered
            self.blocks = nn.ModuleList([nn.Linear(1, 1)])
    assert len(list(Holder().parameters())) == 2


def test_copy_deepcopy_gives_independent_weights():
    model = nn.Sequential(nn.Linear(2, 2))
    twin = copy.deepcopy(model)
    with al.no_grad():
        twin[0].weight.fill_(0)
    assert not model[0].weight.equal(twin[0].weight)


# -- an end-to-end training run ----------------------------------------------------------------
def two_moons(n: int, noise: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles: a classic dataset no linear classifier separates."""
    t = rng.uniform(0, np.pi, n)
    labels = rng.integers(0, 2, n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    points = np.where(labels[:, None] == 0, upper, lower) + rng.normal(0, noise, (n, 2))
    return points.astype(np.float32), labels


def test_mlp_learns_two_moons():
    """An MLP trained with Adam on 400 points reaches 95% accuracy on 400 held-out points within 200 steps."""
    rng = np.random.default_rng(0)
    (x_train, y_train), (x_test, y_test) = two_moons(400, 0.15, rng), two_moons(400, 0.15, rng)
    al.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = al.optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.CrossEntropyLoss()
    x, y = al.tensor(x_train), al.tensor(y_train)
    losses = []
    for _ in range(200):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with al.no_grad():
        predictions = model(al.tensor(x_test)).argmax(1).numpy()
    assert losses[-1] < losses[0] / 5
    assert (predictions == y_test).mean() >= 0.95


def test_small_cnn_training_step_matches_torch():
    """Three SGD steps of a conv net give the same weights as PyTorch."""
    def build(m):
        return m.Sequential(m.Conv2d(1, 4, 3, padding=1), m.BatchNorm2d(4), m.ReLU(), m.MaxPool2d(2), m.Flatten(),
                            m.Linear(16, 3))
    al.manual_seed(0)
    ours, theirs = twins(build(nn), build(tnn))
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((6, 1, 4, 4)), rng.integers(0, 3, 6)
    opt_a = al.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        for model, opt, lib in ((ours, opt_a, al), (theirs, opt_t, torch)):
            opt.zero_grad()
            F_ = F if lib is al else torch.nn.functional
            F_.cross_entropy(model(lib.tensor(x)), lib.tensor(y)).backward()
            opt.step()
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


def test_inplace_relu_and_dropout_write_into_their_input():
    x = al.randn(4, 3, requires_grad=True)
    hidden = x * 2
    out = nn.ReLU(inplace=True)(hidden)
    assert out is hidden and out.grad_fn.name() == "ReluBackward0" and hidden._version == 1
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (x.detach().numpy() > 0))
    hidden = x * 1
    al.manual_seed(0)
    dropped = nn.Dropout(0.5, inplace=True)(hidden)
    assert dropped is hidden and bool((hidden == 0).any())
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        nn.ReLU(inplace=True)(x)
