"""Views and ``inference_mode``, as a table checked against PyTorch: what ``is_inference()``, ``_is_view()``,
``is_leaf``, ``requires_grad``, ``_base`` and ``grad_fn`` report for views of normal tensors taken inside the mode
and of inference tensors inside and outside it, what in-place changes of them do, and the errors PyTorch gives
("Inplace update to inference tensor outside InferenceMode is not allowed", "A view was created in inference
mode and is being modified inplace in normal mode", "Inference tensors cannot be saved for backward"...)."""

from __future__ import annotations

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _report(t) -> tuple:
    """What a learner inspects on a tensor."""
    return (t.is_inference(), t._is_view(), t.is_leaf, t.requires_grad, t._base is not None,
            None if t.grad_fn is None else t.grad_fn.name())


def _outcome(fn):
    """The report of what ``fn`` returns, or its error: type and PyTorch's phrase (our advice cut off)."""
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001  (the error is the row's value)
        message = str(exc).split(" [autograd_lab]")[0].replace("torch.", "al.")
        return (type(exc).__name__, message)
    return _report(result) if hasattr(result, "is_inference") else result


def _table(lib) -> dict:
    rows = {}
    leaf = lib.randn(3, 4, requires_grad=True)
    normal = lib.randn(3, 4)
    computed = lib.randn(3, 4, requires_grad=True).clone()
    with lib.inference_mode():
        view_of_leaf, view_of_normal, view_of_computed = leaf[0], normal[0], computed[0:2]
        inference = lib.ones(3, 4)
        view_of_inference, transposed = inference[1], inference.t()
        rows["detach of a normal tensor, inside"] = _report(leaf.detach())
        rows["op on a leaf, inside"] = _report(leaf * 2)
        rows["in-place on a view of a normal tensor, inside"] = _outcome(lambda: view_of_normal.add_(1))
        rows["in-place on a view of an inference tensor, inside"] = _outcome(lambda: view_of_inference.mul_(2))
        rows["the write reached the inference tensor"] = inference[1].tolist()
    for name, t in [("view of a leaf", view_of_leaf), ("view of a normal tensor", view_of_normal),
                    ("view of a computed tensor", view_of_computed), ("inference tensor", inference),
                    ("view of an inference tensor", view_of_inference), ("transpose of an inference tensor",
                                                                         transposed)]:
        rows[name] = _report(t)
    rows["view of a view of a leaf, outside"] = _report(view_of_leaf[1:])
    rows["op on a view of a leaf, outside"] = _report(view_of_leaf * 2)
    rows["backward through it reaches nothing"] = _outcome(lambda: ((view_of_leaf * 2).sum().backward(), leaf.grad))
    rows["view of an inference tensor, outside"] = _report(inference[2])
    rows["detach, data of an inference tensor"] = (_report(inference.detach()), _report(inference.data))
    rows["clone of an inference tensor"] = _report(inference.clone())
    rows["in-place on an inference tensor, outside"] = _outcome(lambda: inference.add_(1))
    rows["in-place on a view of one, outside"] = _outcome(lambda: view_of_inference.add_(1))
    rows["assignment into one, outside"] = _outcome(lambda: inference.__setitem__(0, 1.0))
    with lib.no_grad():
        rows["in-place on one under no_grad"] = _outcome(lambda: inference.zero_())
    rows["in-place on a view of a leaf made inside, outside"] = _outcome(lambda: view_of_leaf.mul_(2))
    rows["in-place on a view of a normal tensor made inside, outside"] = _outcome(lambda: view_of_normal.mul_(2))
    rows["an inference tensor saved for backward"] = _outcome(lambda: leaf * inference)
    rows["requires_grad on one, outside"] = _outcome(lambda: inference.requires_grad_())
    rows["its version counter"] = _outcome(lambda: inference._version)
    computed.mul_(2)  # the base of a view made inside changes outside
    rows["grad_fn of that view afterwards"] = _outcome(lambda: view_of_computed.grad_fn)
    with lib.inference_mode():
        with lib.enable_grad():
            rows["enable_grad inside inference_mode records nothing"] = (lib.is_grad_enabled(), _report(leaf * 2))
    return rows


def test_inference_mode_and_views_match_torch_row_by_row():
    ours, theirs = _table(al), _table(torch)
    assert list(ours) == list(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name


def test_no_grad_views_require_grad_through_their_base_as_in_torch():
    rows = []
    for lib in (al, torch):
        leaf = lib.randn(3, requires_grad=True)
        with lib.no_grad():
            view = leaf[:2]
        out = view * 2
        rows.append((_report(view), out.requires_grad, [e[0] is None for e in out.grad_fn.next_functions]))
    assert rows[0] == rows[1]
