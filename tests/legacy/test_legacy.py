"""The 2017 API (autograd_lab.legacy), checked with the examples of the 2017 docs: the autograd notes
(requires_grad and volatile, freezing a pretrained base), the README/tutorial (creator,
retain_variables), extending autograd with old-style Functions, and reinforce on a small policy.
Gradients are compared with the modern API and with PyTorch where a modern equivalent exists."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.legacy as legacy
from autograd_lab.legacy import autograd
from autograd_lab.legacy.autograd import Function, Variable

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _torch(t, requires_grad=False):
    return torch.tensor(t.detach().numpy().copy(), requires_grad=requires_grad)


# -- Variable --------------------------------------------------------------------------------
def test_variable_wraps_a_tensor_and_its_grad_is_a_variable():
    data = al.ones(2, 2)
    x = Variable(data, requires_grad=True)
    assert x.data is data and isinstance(x, al.Tensor)
    assert x.requires_grad and x.is_leaf and x.creator is None and x.grad is None
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert isinstance(out, Variable) and out.data.item() == 27.0
    out.backward()
    assert isinstance(x.grad, Variable)
    np.testing.assert_allclose(x.grad.data.numpy(), np.full((2, 2), 4.5))
    x.grad.data.zero_()  # the 2017 way of clearing a gradient
    assert x.grad.data.numpy().sum() == 0


def test_variable_refuses_non_tensors_and_variables():
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="but got Variable"):
        Variable(Variable(al.ones(2)))


def test_requires_grad_propagates_as_in_the_notes():
    x = Variable(al.randn(5, 5))
    y = Variable(al.randn(5, 5))
    z = Variable(al.randn(5, 5), requires_grad=True)
    a = x + y
    assert a.requires_grad is False
    b = a + z
    assert b.requires_grad is True


def test_volatile_spreads_from_one_input_and_wins_over_requires_grad():
    x = Variable(al.randn(5, 5), requires_grad=True)
    y = Variable(al.randn(5, 5), volatile=True)
    a = x + y
    assert a.requires_grad is False and a.volatile is True and a.creator is None
    b = (a * x).exp().sum()
    assert b.volatile and not b.requires_grad and b.grad_fn is None
    assert Variable(al.ones(2), requires_grad=True, volatile=True).requires_grad is False
    assert not (x * 2).volatile  # only a volatile input makes a volatile result


def _mlp():
    al.manual_seed(0)
    return al.nn.Sequential(al.nn.Linear(5, 8), al.nn.ReLU(), al.nn.Linear(8, 3))


def test_volatile_inference_example_from_the_notes():
    model = _mlp()
    regular_input = Variable(al.randn(5, 5))
    volatile_input = Variable(al.randn(5, 5), volatile=True)
    assert model(regular_input).requires_grad is True
    out = model(volatile_input)
    assert out.requires_grad is False and out.volatile is True and out.creator is None
    with al.no_grad():  # the modern equivalent gives the same values
        expected = model(volatile_input.data)
    np.testing.assert_array_equal(out.data.numpy(), expected.numpy())


def test_volatile_records_nothing_and_plain_tensors_stay_modern():
    model = _mlp()
    packed = []
    with al.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        model(Variable(al.randn(4, 5), volatile=True))
        assert packed == []
        model(Variable(al.randn(4, 5)))
        assert packed
    plain = model(al.randn(4, 5))
    assert type(plain) is al.Tensor and type(al.randn(3) * 2) is al.Tensor


def test_excluding_subgraphs_freezing_a_pretrained_base():
    model = _mlp()
    for param in model.parameters():
        param.requires_grad = False
    model[2] = al.nn.Linear(8, 3)  # replace the last layer; new parameters require grad
    optimizer = al.optim.SGD(model[2].parameters(), lr=1e-2, momentum=0.9)
    inputs, target = Variable(al.randn(6, 5)), Variable(al.tensor([0, 1, 2, 0, 1, 2]))
    hidden = model[1](model[0](inputs))
    assert not hidden.requires_grad and hidden.grad_fn is None  # the frozen base records nothing
    loss = al.nn.functional.cross_entropy(model(inputs), target)
    optimizer.zero_grad()
    loss.backward()
    assert all(p.grad is None for p in model[0].parameters())
    # the head's gradient is PyTorch's for the same weights
    tw, tb = _torch(model[2].weight, True), _torch(model[2].bias, True)
    th = _torch(hidden)
    torch.nn.functional.cross_entropy(th @ tw.T + tb, torch.tensor([0, 1, 2, 0, 1, 2])).backward()
    np.testing.assert_allclose(model[2].weight.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    before = model[2].weight.detach().clone()
    optimizer.step()
    assert not model[2].weight.equal(before)


def test_creator_is_grad_fn_with_previous_functions():
    x = Variable(al.ones(2, 2), requires_grad=True)
    y = x + 2
    assert y.creator == y.grad_fn and y.creator.name() == "AddBackward0"
    assert y.creator is y.creator
    (node, nr), = [e for e in y.creator.previous_functions if e[0] is not None]
    assert node.variable is x and nr == 0
    z = y * y
    assert z.creator.previous_functions[0][0] == y.grad_fn
    assert z.creator.next_functions == z.creator.previous_functions


def test_retain_variables_keeps_the_graph_for_a_second_backward():
    x = Variable(al.tensor([1.0, 2.0, 3.0]), requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_variables=True)
    y.backward()
    np.testing.assert_allclose(x.grad.data.numpy(), 4 * x.data.numpy())
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        z.backward()


def test_backward_with_a_gradient_as_in_the_tutorial():
    x = Variable(al.tensor([0.5, -1.0, 2.0]), requires_grad=True)
    y = x * 2
    y.backward(al.FloatTensor([0.1, 1.0, 0.0001]))
    np.testing.assert_allclose(x.grad.data.numpy(), [0.2, 2.0, 0.0002], rtol=1e-6)


def test_autograd_backward_of_several_variables_matches_modern_and_torch():
    a_data, b_data = al.randn(3, 4, dtype=al.float64), al.randn(4, dtype=al.float64)
    a, b = Variable(a_data, requires_grad=True), Variable(b_data, requires_grad=True)
    u, v = (a * b).sin(), (a @ b).exp().sum()
    seed = al.randn(3, 4, dtype=al.float64)
    autograd.backward([u, v], [seed, None], retain_variables=True)
    ta, tb = _torch(a_data, True), _torch(b_data, True)
    torch.autograd.backward([(ta * tb).sin(), (ta @ tb).exp().sum()], [_torch(seed), None])
    np.testing.assert_allclose(a.grad.data.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.data.numpy(), tb.grad.numpy(), rtol=1e-12)
    ma, mb = a_data.clone().requires_grad_(), b_data.clone().requires_grad_()
    al.autograd.backward([(ma * mb).sin(), (ma @ mb).exp().sum()], [seed, None])
    np.testing.assert_array_equal(a.grad.data.numpy(), ma.grad.numpy())


def test_detach_cuts_the_graph_and_keeps_volatility():
    x = Variable(al.ones(3), requires_grad=True)
    y = x * 3
    d = y.detach()
    assert isinstance(d, Variable) and not d.requires_grad and d.creator is None
    assert Variable(al.ones(2), volatile=True).detach().volatile
    (y.detach() * x).sum().backward()
    np.testing.assert_allclose(x.grad.data.numpy(), [3.0, 3.0, 3.0])
    w = x * 2
    w.detach_()
    assert w.grad_fn is None and not w.requires_grad


def test_register_hook_sees_a_variable_and_remove_unregisters_it():
    x = Variable(al.tensor([1.0, 2.0]), requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(type(g)) or g * 2)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.data.numpy(), [4.0, 8.0])
    handle.remove()
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.data.numpy(), [2.0, 4.0])
    assert seen == [Variable]
    with pytest.raises(RuntimeError, match="volatile"):
        Variable(al.ones(1), volatile=True).register_hook(lambda g: g)


def test_loss_data_index_zero_gives_the_value_as_in_2017():
    x = Variable(al.tensor([1.0, 2.0]), requires_grad=True)
    loss = (x * x).sum()
    assert loss.data[0] == 5.0
    with pytest.raises(IndexError):
        loss[0]  # a value that requires grad is not silently turned into a number


# -- old-style Functions ---------------------------------------------------------------------
class MyReLU(Function):
    def forward(self, input):
        self.save_for_backward(input)
        return input.clamp(min=0)

    def backward(self, grad_output):
        input, = self.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class Linear(Function):
    """The Linear of the 2017 'extending autograd' notes: optional bias, needs_input_grad."""

    def forward(self, input, weight, bias=None):
        self.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    def backward(self, grad_output):
        input, weight, bias = self.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if self.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and self.needs_input_grad[2]:
            grad_bias = grad_output.sum(0).squeeze(0)
        return grad_input, grad_weight, grad_bias


def test_old_style_functions_match_torch_and_gradcheck():
    al.manual_seed(1)
    x, w, b = al.randn(4, 3, dtype=al.float64), al.randn(2, 3, dtype=al.float64), al.randn(2, dtype=al.float64)
    vx, vw, vb = (Variable(t, requires_grad=True) for t in (x, w, b))
    out = MyReLU()(Linear()(vx, vw, vb))
    assert isinstance(out, Variable) and out.grad_fn.name() == "MyReLUBackward"
    out.sum().backward()
    tx, tw, tb = _torch(x, True), _torch(w, True), _torch(b, True)
    torch.relu(torch.nn.functional.linear(tx, tw, tb)).sum().backward()
    for mine, theirs in ((vx, tx), (vw, tw), (vb, tb)):
        np.testing.assert_allclose(mine.grad.data.numpy(), theirs.grad.numpy(), rtol=1e-12)
    inputs = (x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_())
    assert al.autograd.gradcheck(lambda *a: Linear()(*a), inputs)
    assert al.autograd.gradcheck(lambda *a: Linear()(*a[:2]), inputs[:2])  # without the optional bias


def test_old_style_function_creator_and_needs_input_grad():
    x, w = Variable(al.randn(2, 3)), Variable(al.randn(4, 3), requires_grad=True)
    fn = Linear()
    y = fn(x, w)
    assert fn.needs_input_grad == (False, True)
    assert y.creator is fn  # in 2017 the Function object itself was the node
    assert fn.previous_functions[0] == (None, 0) and fn.previous_functions[1][0].variable is w
    with pytest.raises(RuntimeError, match="already called"):
        fn(x, w)
    volatile = Linear()(Variable(al.randn(2, 3), volatile=True), w)
    assert volatile.volatile and volatile.creator is None


class AddOneInPlace(Function):
    def forward(self, input):
        input.add_(1)
        self.mark_dirty(input)
        return input

    def backward(self, grad_output):
        return grad_output


class SortWithIndices(Function):
    def forward(self, input):
        order = np.argsort(input.numpy(), axis=-1)
        values = al.from_numpy(np.take_along_axis(input.numpy(), order, -1))
        indices = al.from_numpy(order.astype(np.int64))
        self.mark_non_differentiable(indices)
        self.save_for_backward(indices)
        return values, indices

    def backward(self, grad_values, grad_indices):
        indices, = self.saved_tensors
        grad = np.zeros_like(grad_values.numpy())
        np.put_along_axis(grad, indices.numpy(), grad_values.numpy(), -1)
        return al.from_numpy(grad)


class FirstRow(Function):
    def forward(self, input):
        output = al.from_numpy(input.numpy()[0])  # memory shared behind autograd's back
        self.mark_shared_storage((input, output))
        return output

    def backward(self, grad_output):
        grad = al.zeros(3, 2)
        grad[0] = grad_output
        return grad


class ReluAndMask(Function):
    def forward(self, input):
        mask = (input > 0).to(input.dtype)
        self.mark_non_differentiable(mask)
        self.save_for_backward(mask)
        return input * mask, mask

    def backward(self, grad_output, grad_mask):
        self.seen = grad_mask
        mask, = self.saved_tensors
        return grad_output * mask


def test_2017_refused_in_place_ops_on_shared_storage_where_today_records_them():
    a = Variable(al.ones(3), requires_grad=True)
    b = a * 1
    view = b[1:]
    shared = "detected that there are 2 objects sharing it"
    with pytest.raises(RuntimeError, match=shared):
        view.mul_(10)
    with pytest.raises(RuntimeError, match=shared):
        b.add_(1)
    with pytest.raises(RuntimeError, match=shared):
        b[0] = 5.0
    del view
    b.mul_(2)  # alone again: allowed, and recorded as today
    b.sum().backward()
    np.testing.assert_allclose(a.grad.data.numpy(), [2.0, 2.0, 2.0])
    modern = al.ones(3, requires_grad=True)
    c = modern * 1
    c[1:].mul_(10)  # today: allowed, the base's history is rewritten
    c.sum().backward()
    np.testing.assert_allclose(modern.grad.numpy(), [1.0, 10.0, 10.0])


def test_a_non_differentiable_output_gets_none_in_backward_as_in_2017():
    x = Variable(al.tensor([1.0, -2.0, 3.0]), requires_grad=True)
    function = ReluAndMask()
    out, mask = function(x)
    assert out.requires_grad and not mask.requires_grad
    out.sum().backward()
    assert function.seen is None  # 2017 passed None; a modern Function receives zeros (notebook 08)
    np.testing.assert_allclose(x.grad.data.numpy(), [1.0, 0.0, 1.0])


def test_mark_dirty_non_differentiable_and_shared_storage():
    x = Variable(al.tensor([1.0, 2.0]), requires_grad=True)
    y = x * 1
    version = y._version
    z = AddOneInPlace()(y)
    assert z is y and y._version > version and y.grad_fn.name() == "AddOneInPlaceBackward"
    (z * z).sum().backward()
    np.testing.assert_allclose(x.grad.data.numpy(), 2 * np.array([2.0, 3.0]))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInPlace()(Variable(al.ones(2), requires_grad=True))

    s = Variable(al.tensor([[3.0, 1.0, 2.0]]), requires_grad=True)
    values, indices = SortWithIndices()(s)
    assert values.requires_grad and not indices.requires_grad and indices.dtype == al.int64
    (values * al.tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_allclose(s.grad.data.numpy(), [[100.0, 1.0, 10.0]])

    m = Variable(al.randn(3, 2), requires_grad=True)
    source = m * 1
    row = FirstRow()(source)
    square = (row * row).sum()  # saves row
    assert row._vc is source._vc  # marked: the row shares source's memory, and so its version counter
    with pytest.raises(RuntimeError, match="don't share storage with any other variables, but detected that there "
                                           "are 2 objects sharing it"):
        source.add_(1)  # 2017's rule: refused while another Variable (row) references the storage
    del square, row
    source.add_(1)  # nothing else shares it now
    fresh = m * 1
    (FirstRow()(fresh) * 2).sum().backward()
    np.testing.assert_allclose(m.grad.data.numpy(), [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]])


def test_static_method_functions_of_late_2017_run_through_apply():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            result, = ctx.saved_tensors
            return grad * result

    x = Variable(al.tensor([0.0, 1.0]), requires_grad=True)
    y = Exp.apply(x)
    assert isinstance(y, Variable) and y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


def test_old_style_model_trains_like_the_modern_one():
    """A two-layer net written with old-style Functions, trained a few SGD steps, against nn.Linear."""
    features, labels = al.data.make_moons(64, noise=0.1, generator=al.Generator().manual_seed(0))
    al.manual_seed(3)
    modern = al.nn.Sequential(al.nn.Linear(2, 16), al.nn.ReLU(), al.nn.Linear(16, 2))
    w1, b1, w2, b2 = (Variable(p.detach().clone(), requires_grad=True) for p in modern.parameters())
    legacy_opt = al.optim.SGD([w1, b1, w2, b2], lr=0.5)
    modern_opt = al.optim.SGD(modern.parameters(), lr=0.5)
    losses = []
    for _ in range(30):
        out = Linear()(MyReLU()(Linear()(Variable(features), w1, b1)), w2, b2)
        loss = al.nn.functional.cross_entropy(out, Variable(labels))
        legacy_opt.zero_grad()
        loss.backward()
        legacy_opt.step()
        modern_loss = al.nn.functional.cross_entropy(modern(features), labels)
        modern_opt.zero_grad()
        modern_loss.backward()
        modern_opt.step()
        losses.append(loss.data[0])
        assert loss.data[0] == pytest.approx(modern_loss.item(), rel=1e-5)
    assert losses[-1] < 0.5 * losses[0]
    np.testing.assert_allclose(w2.data.numpy(), modern[2].weight.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_old_style_backward_errors_are_the_modern_ones():
    class TooMany(Function):
        def forward(self, input):
            return input * 2

        def backward(self, grad_output):
            return grad_output, grad_output

    x = Variable(al.ones(2), requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        TooMany()(x).sum().backward()


# -- reinforce -------------------------------------------------------------------------------
def _softmax_policy(logits):
    return al.nn.functional.softmax(logits, dim=-1)


def _draw(weights, index, reward, **kwargs):
    """A multinomial sample of ``weights`` whose creator scores ``index``, reinforced with ``reward``."""
    sample = legacy.multinomial(weights, 1, **kwargs)
    sample.creator.sample[...] = index  # score this draw, whatever came out
    sample.reinforce(reward)
    return sample


def test_reinforce_multinomial_gives_2017s_numbers():
    """2017's Multinomial.backward: -reward / (p_k + 1e-6) at the drawn index k, p the normalised weights; 0 elsewhere."""
    probs = Variable(al.tensor([0.2, 0.3, 0.5], dtype=al.float64), requires_grad=True)
    _draw(probs, 2, 2.0).backward()
    np.testing.assert_allclose(probs.grad.data.numpy(), [0.0, 0.0, -2.0 / (0.5 + 1e-6)], rtol=1e-12)
    # unnormalised weights: the same probabilities, the same numbers (2017 did not differentiate the normalisation)
    weights = Variable(al.tensor([1.0, 1.5, 2.5], dtype=al.float64), requires_grad=True)
    _draw(weights, 2, 2.0).backward()
    np.testing.assert_allclose(weights.grad.data.numpy(), probs.grad.data.numpy(), rtol=1e-12)
    # today's score function of the normalised distribution moves every entry: not what 2017 gave
    t_probs = torch.tensor([0.2, 0.3, 0.5], dtype=torch.float64, requires_grad=True)
    (-2.0 * torch.log(t_probs / t_probs.sum())[2]).backward()
    np.testing.assert_allclose(t_probs.grad.numpy(), [2.0, 2.0, -2.0])


def test_reinforce_multinomial_rows_and_repeated_draws_add_up():
    al.manual_seed(3)
    weights = Variable(al.tensor([[1.0, 3.0], [2.0, 2.0]], dtype=al.float64), requires_grad=True)
    sample = weights.multinomial(3, replacement=True)
    sample.creator.sample[...] = [[1, 1, 0], [0, 0, 0]]
    sample.reinforce(al.tensor([[1.0, 2.0, -1.0], [0.5, 0.5, 1.0]], dtype=al.float64))
    autograd.backward([sample], [None])
    expected = [[1.0 / (0.25 + 1e-6), -3.0 / (0.75 + 1e-6)], [-2.0 / (0.5 + 1e-6), 0.0]]
    np.testing.assert_allclose(weights.grad.data.numpy(), expected, rtol=1e-12)


def test_reinforce_multinomial_through_a_softmax_agrees_with_todays_score_function():
    """The normalisation term 2017 left out is the same for every entry, and a softmax's Jacobian removes it."""
    al.manual_seed(4)
    logits = Variable(al.randn(5, 4, dtype=al.float64), requires_grad=True)
    probs = _softmax_policy(logits)
    action = probs.multinomial()
    assert action.shape == (5, 1) and action.dtype == al.int64 and action.creator.name() == "Multinomial"
    assert action.creator.previous_functions[0][0] == probs.grad_fn
    reward = al.tensor([[1.0], [-2.0], [0.5], [3.0], [0.0]], dtype=al.float64)
    action.reinforce(reward)
    autograd.backward([action], [None])
    p, a, r = probs.data.numpy(), action.data.numpy()[:, 0], reward.numpy()
    np.testing.assert_allclose(logits.grad.data.numpy(), -r * (np.eye(4)[a] - p), rtol=1e-5, atol=1e-6)
    t_logits = _torch(logits.data, True)
    t_log_p = torch.log_softmax(t_logits, -1).gather(1, torch.from_numpy(action.data.numpy()))
    t_log_p.backward(-torch.from_numpy(r))  # today's REINFORCE, written out
    np.testing.assert_allclose(logits.grad.data.numpy(), t_logits.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_reinforce_is_an_unbiased_estimate_of_the_expected_reward_gradient():
    al.manual_seed(5)
    logits = Variable(al.tensor([0.3, -0.2, 0.5], dtype=al.float64), requires_grad=True)
    rewards = np.array([1.0, -1.0, 2.0])
    n = 40000
    actions = _softmax_policy(logits).unsqueeze(0).expand(n, 3).multinomial(1)
    actions.reinforce(al.from_numpy(rewards[actions.data.numpy()]))
    actions.backward()
    p = np.exp(logits.data.numpy()) / np.exp(logits.data.numpy()).sum()
    true_gradient = -(p * (rewards - p @ rewards))  # -d E[r] / d logits
    np.testing.assert_allclose(logits.grad.data.numpy() / n, true_gradient, atol=0.03)


def test_reinforce_bernoulli_and_normal_give_2017s_formulas():
    al.manual_seed(6)
    p = Variable(al.tensor([0.2, 0.7, 0.5], dtype=al.float64), requires_grad=True)
    x = legacy.bernoulli(p)
    x.reinforce(2.0)
    x.backward()
    pv, xv = p.data.numpy(), x.data.numpy()
    np.testing.assert_allclose(p.grad.data.numpy(), 2.0 * (pv - xv) / (pv * (1 - pv) + 1e-6), rtol=1e-12)
    np.testing.assert_allclose(p.grad.data.numpy(), -2.0 * (xv - pv) / (pv * (1 - pv)), rtol=1e-5)  # the score

    means = Variable(al.tensor([0.0, 1.0], dtype=al.float64), requires_grad=True)
    std = Variable(al.tensor([1.0, 0.5], dtype=al.float64), requires_grad=True)
    sample = legacy.normal(means, std)
    reward = al.tensor([1.5, -1.0], dtype=al.float64)
    sample.reinforce(reward)
    autograd.backward([sample], [None])
    mu, sigma, s, r = means.data.numpy(), std.data.numpy(), sample.data.numpy(), reward.numpy()
    np.testing.assert_allclose(means.grad.data.numpy(), r * (mu - s) / (sigma ** 2 + 1e-6), rtol=1e-12)
    np.testing.assert_allclose(std.grad.data.numpy(), r * (sigma ** 2 + 1e-6 - (mu - s) ** 2) / (sigma ** 3 + 1e-6),
                               rtol=1e-12)
    t_mu, t_sigma = _torch(means.data, True), _torch(std.data, True)
    t_log_p = torch.distributions.Normal(t_mu, t_sigma).log_prob(torch.from_numpy(s))
    (-(torch.from_numpy(r) * t_log_p).sum()).backward()
    np.testing.assert_allclose(means.grad.data.numpy(), t_mu.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(std.grad.data.numpy(), t_sigma.grad.numpy(), rtol=1e-5, atol=1e-4)  # 1e-6 terms

    fixed = Variable(al.tensor([0.0, 1.0], dtype=al.float64), requires_grad=True)
    sample = legacy.normal(fixed, 0.5)  # a number for the std: Normal(0.5)(means) in 2017
    sample.reinforce(1.0)
    sample.backward()
    np.testing.assert_allclose(fixed.grad.data.numpy(), (fixed.data.numpy() - sample.data.numpy()) / (0.25 + 1e-6))


def test_multinomial_without_replacement_scores_each_draw_alone():
    al.manual_seed(7)
    weights = Variable(al.tensor([1.0, 2.0, 3.0, 4.0], dtype=al.float64), requires_grad=True)
    draws = weights.multinomial(3)
    assert len(set(draws.data.tolist())) == 3
    draws.reinforce(1.0)
    draws.backward()
    expected = np.zeros(4)
    for i in draws.data.tolist():
        expected[i] = -1.0 / (weights.data.numpy()[i] / 10.0 + 1e-6)
    np.testing.assert_allclose(weights.grad.data.numpy(), expected, rtol=1e-12)


def test_the_reward_is_used_by_one_backward():
    weights = Variable(al.tensor([1.0, 1.0], dtype=al.float64), requires_grad=True)
    sample = _draw(weights, 0, 1.0)
    sample.backward(retain_variables=True)
    sample.backward()
    np.testing.assert_allclose(weights.grad.data.numpy(), [-4.0 / (1 + 2e-6), 0.0], rtol=1e-12)
    with pytest.raises(RuntimeError, match="requires providing a reward"):
        sample.backward()
    with pytest.raises(ValueError, match="got reward of size 3, but expected a tensor of size 1"):
        _draw(weights, 0, al.ones(3)).backward()


def test_reinforce_errors():
    x = Variable(al.ones(2), requires_grad=True)
    with pytest.raises(RuntimeError, match="can be only called on outputs of stochastic functions"):
        (x * 2).reinforce(1.0)
    sample = legacy.bernoulli(Variable(al.tensor([0.5]), requires_grad=True))
    with pytest.raises(RuntimeError, match="requires providing a reward"):
        sample.backward()
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        Variable(al.zeros(3), requires_grad=True).multinomial()
    assert legacy.bernoulli(Variable(al.tensor([0.5]), volatile=True)).creator is None


def test_reinforce_trains_a_small_policy():
    """The 2017 REINFORCE example's loop on a three-armed bandit: the best arm wins."""
    al.manual_seed(8)
    policy = al.nn.Linear(1, 3)
    optimizer = al.optim.SGD(policy.parameters(), lr=0.2)
    payout = [0.0, 0.3, 1.0]
    for _ in range(60):
        saved_actions, rewards = [], []
        for _ in range(8):
            probs = al.nn.functional.softmax(policy(Variable(al.ones(1, 1))), dim=1)
            action = probs.multinomial()
            saved_actions.append(action)
            rewards.append(payout[action.data[0, 0].item()])
        baseline = sum(rewards) / len(rewards)
        for action, r in zip(saved_actions, rewards):
            action.reinforce(r - baseline)
        optimizer.zero_grad()
        autograd.backward(saved_actions, [None for _ in saved_actions])
        optimizer.step()
    with al.no_grad():
        final = al.nn.functional.softmax(policy(al.ones(1, 1)), dim=1)
    assert final[0, 2].item() > 0.8


# -- constructors, namespace, warnings ------------------------------------------------------
def test_legacy_constructors():
    assert al.Tensor([0, 0, 0]).dtype == al.float32 and legacy.Tensor([0, 0, 0]).tolist() == [0.0, 0.0, 0.0]
    for name, dtype in (("FloatTensor", al.float32), ("DoubleTensor", al.float64), ("LongTensor", al.int64),
                        ("ByteTensor", al.uint8)):
        t = getattr(al, name)([1, 1, 1])
        assert t.dtype == dtype and t.type() == f"al.{name}" and type(t) is al.Tensor
        assert isinstance(t, getattr(al, name)) and isinstance(t, getattr(legacy, name))
        assert str(getattr(torch, name)([1, 1, 1]).dtype) == f"torch.{dtype.name}"
        assert getattr(legacy, name)(2, 3).shape == (2, 3)
    assert not isinstance(al.FloatTensor([1]), al.LongTensor) and isinstance(al.FloatTensor([1]), legacy.Tensor)


def test_the_legacy_namespace_is_autograd_lab_otherwise():
    assert legacy.randn is al.randn and legacy.nn is al.nn and legacy.autograd.Variable is Variable
    assert legacy.normal(0.0, 1.0, (2,)).shape == (2,)  # numbers: the modern al.normal
    with pytest.raises(AttributeError, match="no attribute"):
        legacy.no_such_name  # noqa: B018


@pytest.mark.filterwarnings("default::DeprecationWarning")
def test_every_entry_point_warns_at_the_callers_line_and_names_the_modern_way():
    def check(expect, action):
        with pytest.warns(DeprecationWarning) as record:
            action()
        line = action.__code__.co_firstlineno  # the user's line: where the lambda calls the entry point
        hits = [w for w in record if expect in str(w.message)]
        assert hits, [str(w.message) for w in record]
        assert hits[0].filename == __file__, (expect, hits[0].filename)
        assert hits[0].lineno == line, (expect, hits[0].lineno, line)

    x = Variable(al.ones(2), requires_grad=True)
    check("al.tensor(..., requires_grad=True)", lambda: Variable(al.ones(2)))
    check("grad_fn", lambda: (x * 2).creator)
    check("al.no_grad()", lambda: x.volatile)
    check("next_functions", lambda: (x * 2).creator.previous_functions)
    check("retain_graph", lambda: (x * 2).sum().backward(retain_variables=True))
    check("retain_graph", lambda: autograd.backward([(x * 2).sum()], retain_variables=True))
    check("MyFn.apply", lambda: MyReLU()(x))
    sample = legacy.bernoulli(Variable(al.tensor([0.5]), requires_grad=True))
    check("log_prob", lambda: sample.reinforce(1.0))
    check("log_prob", lambda: Variable(al.tensor([0.5])).bernoulli())
    check("dtype=al.float32", lambda: legacy.FloatTensor([1, 1, 1]))
    check(".item()", lambda: (x * 2).sum().data[0])
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("error")
        al.FloatTensor([1, 1, 1])  # PyTorch still has it without a warning
        al.Tensor([0, 0, 0])
    assert math.isfinite(x.sum().item())


def test_using_variables_leaves_the_core_as_it_was():
    """The legacy layer wraps the core through PyTorch's ``__torch_function__`` protocol; it replaces nothing."""
    from autograd_lab.autograd.function import Function
    from autograd_lab.ops._op import Op
    before = (Op.__dict__["apply"], Function.__dict__["apply"], al.Tensor.__dict__["__mul__"])
    v = Variable(al.ones(3), requires_grad=True)
    w = Variable(al.ones(3), volatile=True)
    (v * 2).sum().backward()
    assert (w * 2).volatile and v.grad.tolist() == [2.0, 2.0, 2.0]
    assert (Op.__dict__["apply"], Function.__dict__["apply"], al.Tensor.__dict__["__mul__"]) == before
    assert not hasattr(al.Tensor, "__torch_function__")
    plain = al.ones(3, requires_grad=True) * 2
    assert type(plain) is al.Tensor and type(v * 2) is Variable
