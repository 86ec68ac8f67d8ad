"""Engine edge cases a training script can meet: hooks when backward stops at a non-leaf, a multi-output node whose
outputs are not all used, a hook that must not return a value, graphs freed after backward, and pickling."""
import pickle

import autograd_lab as al


def raises(fn):
    """The name of the exception ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (what is compared is the exception's type)
        return type(exc).__name__
    return None


# backward(inputs=...) at a non-leaf: the hooks of the node that produced it still run
x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
calls = []
h.grad_fn.register_prehook(lambda grad_outputs: calls.append("pre-hook"))
h.register_hook(lambda grad: calls.append("tensor hook"))
(h ** 2).sum().backward(inputs=(h,))
stopped_at_h = {"h.grad": h.grad.tolist(), "x.grad is None": x.grad is None, "hooks": sorted(calls)}

# a node with two outputs, one of them unused: its hook sees None for the unused one
w = al.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
first, second = w.unbind(0)
seen = []
first.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append([g is None for g in grad_outputs]))
(first * 3).sum().backward()

# a post-accumulate-grad hook returns nothing: one that returns a value is refused
p = al.tensor([1.0, 2.0], requires_grad=True)
p.register_post_accumulate_grad_hook(lambda param: param * 2)
returned_a_value = raises(lambda: (p * p).sum().backward())

# the saved tensors of an indexing graph are freed by backward
z = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (z[[0, 2]] ** 2).sum()
loss.backward()
second_backward = raises(loss.backward)

# detach_() on a tensor a node saved is found in backward
a = al.tensor([0.5, 1.0], requires_grad=True)
t = a * 1
y = t.sin()
t.detach_()
detached_saved = raises(lambda: y.sum().backward())

# a tensor survives pickling with every protocol
ok = [pickle.loads(pickle.dumps(al.tensor([1.5, -2.0]), protocol=k)).tolist() == [1.5, -2.0]
      for k in range(pickle.HIGHEST_PROTOCOL + 1)]

result = {
    "stopped at h": stopped_at_h,
    "unused output seen as None": seen,
    "w.grad": w.grad.tolist(),
    "post-accumulate hook returning a value": returned_a_value,
    "second backward without retain_graph": second_backward,
    "detach_ on a saved tensor": detached_saved,
    "pickled with every protocol": all(ok),
}
print(result)
