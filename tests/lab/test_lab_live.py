"""Live drawings: watch() and the %watch magic redraw after every executed cell."""

from __future__ import annotations

import pytest

import autograd_lab as al
from autograd_lab.lab import live, watch


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    yield ip
    al.lab.unwatch()
    ip.events.unregister("post_run_cell", live._after_cell)
    live._registered_shells.discard(id(ip))
    InteractiveShell.clear_instance()


def test_extension_magic_redraws_after_each_cell(shell):
    shell.run_cell("%load_ext autograd_lab")
    shell.run_cell("import autograd_lab as al\nx = al.tensor([1.0, 2.0], requires_grad=True)\ny = x.exp()")
    shell.run_cell("w = %watch y")
    w = shell.user_ns["w"]
    assert isinstance(w, live.Watch)
    assert "ExpBackward0" in w.widget.svg and "SinBackward0" not in w.widget.svg
    shell.run_cell("y = y.sin()")  # rebinding the watched name: the new graph appears
    assert "SinBackward0" in w.widget.svg and "ExpBackward0" in w.widget.svg
    assert w.widget.warnings == []
    shell.run_cell("(y * 1).sum().backward(retain_graph=True)")
    assert ".grad = [" in w.widget.svg and ">y</text>" in w.widget.svg  # %watch y names its tensor
    assert hasattr(al.Tensor, "mul_"), "Tensor.mul_ does not exist yet: in-place ops are being added by the lead"
    shell.run_cell("z = x * 1\ny = z.exp()\nv = y.sum()")
    shell.run_cell("y.mul_(2)")
    assert len(w.widget.warnings) == 1
    assert w.widget.warnings[0].startswith("ExpBackward0 saved 'result' at version 0, but it is now at version 1: the next "
                                           "backward through ExpBackward0 will raise, because an in-place operation")
    assert "STALE" in w.widget.svg
    w.widget.selected = next(n.id for n in w.drawing.snapshot.nodes.values() if n.name == "ExpBackward0")
    assert w.widget.details["sections"][-1]["stale"] is True
    shell.run_cell("%unwatch")
    shell.run_cell("y = x.cos()")
    assert "CosBackward0" not in w.widget.svg


def test_watch_names_not_yet_defined_say_so(shell):
    shell.run_cell("import autograd_lab as al\nw = al.lab.watch('later')")
    w = shell.user_ns["w"]
    assert w.widget.messages == ["later: NameError: name 'later' is not defined"]
    shell.run_cell("later = al.tensor([1.0], requires_grad=True) * 2")
    assert w.widget.messages == [] and "MulBackward0" in w.widget.svg
    assert w.last_refresh_s < 5


def test_watch_outside_ipython_uses_callers_globals():
    x = al.tensor([1.0], requires_grad=True)
    w = watch(x * 3)
    try:
        assert "MulBackward0" in w.drawing.source
        with pytest.raises(TypeError, match="watch\\(\\) takes Tensors or names"):
            watch(3)
    finally:
        w.stop()
    assert w not in live._active
