"""Lab follow-ups: nodes tagged with the ``nn.Module`` that made them (and grouping a real model by module),
the saved tensors of custom ``Function`` nodes in snapshots, and ``SavedTensor``'s read-only properties."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.autograd.graph import AccumulateGrad, saved_tensors_hooks
from autograd_lab.lab import DotOptions, snapshot, to_dot
from autograd_lab.lab.scene import plan as _plan
from autograd_lab.nn.module import is_module_tagging_enabled, set_module_tagging

pytest.importorskip("graphviz")


@pytest.fixture
def tagging():
    """Module tagging on for one test, restored afterwards."""
    previous = set_module_tagging(True)
    yield
    set_module_tagging(previous)


def _op_nodes(root):
    seen, stack, nodes = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if not isinstance(node, AccumulateGrad):
            nodes.append(node)
        stack.extend(child for child, _ in node.next_functions)
    return nodes


def _module_of(node):
    extras = node._extras
    return None if extras is None else extras.metadata.get("module")


# -- tagging nodes with their module ------------------------------------------------------------------
def test_importing_the_lab_turns_tagging_on_and_the_switch_reports_its_state():
    import autograd_lab.lab  # noqa: F401  (imported at the top too: the lab switches tagging on when imported)
    previous = set_module_tagging(False)
    try:
        assert not is_module_tagging_enabled()
        assert set_module_tagging(True) is False and is_module_tagging_enabled()
    finally:
        set_module_tagging(previous)


def test_without_tagging_a_forward_leaves_nodes_untouched():
    previous = set_module_tagging(False)
    try:
        lin = nn.Linear(3, 2)
        out = lin(al.randn(4, 3))
        assert out.grad_fn is not None and out.grad_fn._extras is None  # no metadata dict was even made
    finally:
        set_module_tagging(previous)


def test_nodes_carry_the_qualified_name_of_the_innermost_module(tagging):
    al.manual_seed(0)
    model = al.models.SmallCNN()
    x = al.randn(2, 1, 8, 8, requires_grad=True)
    before = x * 2  # made outside any module: stays untagged
    loss = nn.CrossEntropyLoss()(model(before), al.tensor([1, 2]))
    ops = _op_nodes(loss.grad_fn)
    by_module = {}
    for node in ops:
        by_module.setdefault(_module_of(node), []).append(node.name())
    qualified = {name for name, _ in model.named_modules() if name}
    tagged = set(by_module) - {None, "SmallCNN", "CrossEntropyLoss"}
    assert tagged <= qualified
    # every layer that does something has its own group; the containers' names never show (innermost wins)
    assert {"features.0", "features.1", "features.2", "features.3", "features.6", "avgpool", "fc"} <= tagged
    assert "features" not in tagged
    assert by_module[None] == ["MulBackward0"]
    assert any("Reshape" in name or "View" in name for name in by_module["SmallCNN"])  # x.flatten(1) in forward
    assert by_module["CrossEntropyLoss"]  # a loss called as a module is a root too, named by its type
    assert all("Convolution" in name for name in by_module["features.0"])


def test_tags_are_set_once_and_reach_every_output(tagging):
    class Split(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Linear(2, 2)

        def forward(self, x):
            h = self.scale(x)
            helper = nn.Tanh()  # called without being registered: named after its type under its caller
            return {"pair": (h.exp(), helper(h))}

    x = al.randn(3, 2, requires_grad=True)
    model = Split()
    outputs = model(x)["pair"]
    assert _module_of(outputs[0].grad_fn) == "Split" and _module_of(outputs[1].grad_fn) == "Tanh"
    assert {_module_of(n) for n in _op_nodes(outputs[0].grad_fn)} == {"Split", "scale"}
    # a tag already set (by the user, or an inner module) is kept
    y = model.scale(x)
    y.grad_fn.metadata["module"] = "mine"
    z = nn.Sequential(model.scale)(x)
    assert _module_of(z.grad_fn) == "0"
    assert y.grad_fn.metadata["module"] == "mine"


def test_no_graph_means_nothing_to_tag(tagging):
    lin = nn.Linear(2, 2)
    with al.no_grad():
        out = lin(al.randn(1, 2))
    assert out.grad_fn is None
    inner = al.randn(1, 2, requires_grad=True) * 3  # a graph made before the call is not the module's
    out = nn.Identity()(inner)
    assert _module_of(inner.grad_fn) is None and out is inner


def test_module_names_are_per_thread(tagging):
    names = {}

    def run(key):
        model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        out = model(al.randn(1, 2))
        names[key] = {_module_of(n) for n in _op_nodes(out.grad_fn)}

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(found == {"0", "1"} for found in names.values()), names


def test_collapse_by_module_on_a_real_model(tagging):
    al.manual_seed(0)
    model = al.models.small_cnn(pretrained=True)
    loss = nn.CrossEntropyLoss()(model(al.randn(2, 1, 8, 8)), al.tensor([3, 4]))
    snap = snapshot(loss)
    ops = [n for n in snap.nodes.values() if n.kind == "op"]
    assert all(n.module is not None for n in ops)
    target, _ = _plan(snap, DotOptions(modules="collapse"))
    groups = {target[n.id] for n in ops}
    modules = {n.module for n in ops}
    assert len(groups) == len(modules) < len(ops)  # one drawn node per module
    folded = to_dot(snap, DotOptions(modules="collapse")).source
    for name in ("features.0", "features.6", "avgpool", "fc"):
        assert f"<B>{name}</B>" in folded
    # each convolution is named only inside its module's node, never drawn as a node of its own
    assert folded.count("ConvolutionBackward0") == folded.count("1 op: ConvolutionBackward0") == 3
    typed = snapshot(loss, model=model)  # with the model, each module's box says its class
    assert "<B>features.0 (Conv2d)</B>" in to_dot(typed, DotOptions(modules="collapse")).source
    clustered = to_dot(snap, DotOptions(modules="cluster")).source
    assert clustered.count("subgraph cluster_module") == len(modules)


# -- saved tensors of custom Function nodes -----------------------------------------------------------
class _ScaledMul(al.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, None, y)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        x, _, y = ctx.saved_tensors
        return grad * y, grad * x


def test_custom_function_saved_tensors_are_listed_by_index():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = al.arange(20, dtype=al.float32)[:2] + 1
    out = _ScaledMul.apply(x, y)
    node = snapshot(out).nodes["n0"]
    assert node.name == "_ScaledMulBackward"
    assert [s.name for s in node.saved] == ["saved_tensors[0]", "saved_tensors[1]", "saved_tensors[2]"]
    first, none, second = node.saved
    assert first.is_tensor and first.shape == (2,) and first.dtype == "float32" and first.value.values == [1.0, 2.0]
    assert not none.is_tensor and none.text == "None"
    assert second.saved_version == second.current_version == 0 and not second.stale
    y.mul_(2)
    stale = snapshot(out).stale()
    assert [(n.name, s.name) for n, s in stale] == [("_ScaledMulBackward", "saved_tensors[2]")]
    assert "saved_tensors[2]" in to_dot(snapshot(out)).source
    y.div_(2)  # back to the values, not to the version: backward still refuses
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_custom_function_saved_tensors_freed_and_packed():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    out = _ScaledMul.apply(x, al.ones(2))
    out.sum().backward()
    node = snapshot(out).nodes["n0"]
    assert node.freed and all(s.released for s in node.saved if s.is_tensor)
    with saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        packed_out = _ScaledMul.apply(x, al.ones(2))
    packed = [s for s in snapshot(packed_out).nodes["n0"].saved if s.is_tensor]
    assert len(packed) == 2 and all(s.packed and s.value is None for s in packed)


# -- SavedTensor's read-only properties ----------------------------------------------------------------
def test_saved_tensor_properties_for_inputs_outputs_hooks_and_freed():
    x = al.tensor([[1.0, 2.0, 3.0]], dtype=al.float64, requires_grad=True)
    y = x.exp()  # ExpBackward0 saves its result (an output)
    raw = y.grad_fn._raw_saved_result
    assert raw.is_output and raw.shape == (1, 3) and raw.dtype is al.float64 and not raw.has_hooks
    np.testing.assert_allclose(raw.data.numpy(), np.exp([[1.0, 2.0, 3.0]]))
    assert raw.data.grad_fn is None and not raw.data.requires_grad
    z = x * 2.0
    w = z * z  # MulBackward0 saves z (an input) twice
    raw_in = w.grad_fn._raw_saved_self
    assert not raw_in.is_output and raw_in.current_version == raw_in.saved_version == 0
    z.add_(1)
    assert raw_in.current_version == 1 and raw_in.saved_version == 0
    np.testing.assert_allclose(raw_in.data.numpy(), [[3.0, 5.0, 7.0]])  # read without the version check
    with pytest.raises(AttributeError):
        raw_in.shape = (3,)
    y.sum().backward()
    assert raw.is_released and raw.shape is None and raw.dtype is None and raw.data is None
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        hooked = (x * 3.0).sin()
    raw_hooked = hooked.grad_fn._raw_saved_self
    assert raw_hooked.has_hooks and raw_hooked.shape is None and raw_hooked.data is None
    assert not raw_hooked.is_released
