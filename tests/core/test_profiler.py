"""The profiler (``al.profiler`` and ``al.autograd.profiler``): every op and backward node is timed once, ranges
nest, the table has PyTorch's columns, traces load, the schedule steps as PyTorch's, and nothing is recorded
when no profiler is open in the thread."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest

import autograd_lab as al
from autograd_lab.autograd import profiler as autograd_profiler
from autograd_lab.profiler import ProfilerAction, profile, record_function, schedule, tensorboard_trace_handler

torch = pytest.importorskip("torch")


def _model_step(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 2))
    x = lib.randn(4, 8)

    def step():
        with lib.profiler.record_function("model_inference"):
            loss = model(x).pow(2).mean()
        loss.backward()
    return step


def _profiled(lib, **kwargs):
    step = _model_step(lib)
    with lib.profiler.profile(**kwargs) as prof:
        step()
    return prof


def _counts(prof, names) -> dict:
    counts = Counter(e.name.removeprefix("autograd::engine::evaluate_function: ") for e in prof.events())
    return {name: counts[name] for name in names}


def test_each_op_and_each_backward_node_is_timed_once_per_call_as_in_torch():
    # (not aten::pow: torch's PowBackward0 calls pow again, ours computes on the arrays)
    names = ["model_inference", "aten::addmm", "aten::relu", "aten::mean", "AddmmBackward0",
             "ReluBackward0", "PowBackward0", "MeanBackward0"]
    ours = _counts(_profiled(al), names)
    theirs = Counter(e.name for e in _profiled(torch).events())
    assert ours == {name: theirs[name] for name in names}
    assert ours["aten::addmm"] == 2 and ours["AddmmBackward0"] == 2


def test_table_has_torchs_columns_and_footer():
    def header(text: str) -> list:
        return [w for w in text.splitlines()[1].split("  ") if w.strip()]

    for kwargs in ({}, {"profile_memory": True}, {"record_shapes": True}):
        ours = _profiled(al, **kwargs).key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
        theirs = _profiled(torch, **kwargs).key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
        assert [w.strip() for w in header(ours)] == [w.strip() for w in header(theirs)]
        assert ours.splitlines()[-1].startswith("Self CPU time total: ") and theirs.endswith("\n") == ours.endswith("\n")
        assert len(ours.splitlines()) == 3 + 10 + 2  # rule, header, rule, 10 rows, rule, footer


def test_self_and_total_times_nest_and_sorting_follows_the_column():
    with profile() as prof:
        with record_function("outer"):
            time.sleep(0.005)
            al.ones(3, requires_grad=True).exp().sum().backward()
    events = prof.events()
    outer = next(e for e in events if e.name == "outer")
    assert outer.cpu_time_total >= 5000  # the sleep is inside it (microseconds)
    assert {c.name for c in outer.cpu_children} >= {"aten::exp", "aten::sum", "ExpBackward0", "SumBackward0"}
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - sum(c.cpu_time_total
                                                                                 for c in outer.cpu_children))
    for child in outer.cpu_children:
        assert outer.start_us <= child.start_us <= child.end_us <= outer.end_us
    rows = prof.key_averages().table(sort_by="cpu_time_total").splitlines()[3:-3]
    assert rows[0].split()[0] == "outer"


def test_ops_recorded_under_create_graph_nest_inside_their_backward_node():
    x = al.ones(3, requires_grad=True)
    y = (x * x).sum()
    with profile() as prof:
        al.autograd.grad(y, x, create_graph=True)
    node = next(e for e in prof.events() if e.name == "MulBackward0")
    assert "aten::mul" in {c.name for c in node.cpu_children}


def test_shapes_and_memory_as_torch_records_them():
    prof = _profiled(al, record_shapes=True, profile_memory=True)
    addmm = [e for e in prof.events() if e.name == "aten::addmm"]
    theirs = [e for e in _profiled(torch, record_shapes=True).events() if e.name == "aten::addmm"]
    assert [e.input_shapes for e in addmm] == [e.input_shapes[:3] for e in theirs]
    relu = next(e for e in prof.events() if e.name == "aten::relu")
    assert relu.cpu_memory_usage == 4 * 16 * 4  # its float32 output; torch's table shows 256 B too
    t = next(e for e in prof.events() if e.name == "aten::t")
    assert t.cpu_memory_usage == 0  # a view creates no array
    grouped = prof.key_averages(group_by_input_shape=True)
    assert len([e for e in grouped if e.key == "aten::addmm"]) == 2  # two layers, two shapes


def test_nothing_is_recorded_without_a_profiler_nor_in_other_threads():
    assert autograd_profiler._state.active is None
    seen = []
    with profile() as prof:
        worker = threading.Thread(target=lambda: seen.append(al.ones(2, requires_grad=True).exp()))
        worker.start()
        worker.join()
        al.ones(2).sin()
    assert [e.name for e in prof.events()] == ["aten::sin"] and seen
    assert autograd_profiler._state.active is None
    with pytest.raises(ValueError):
        with profile():
            raise ValueError("the profiler closes anyway")
    assert autograd_profiler._state.active is None


def test_one_profiler_per_thread_and_record_function_without_one():
    with profile():
        with pytest.raises(RuntimeError, match="Profiler is already enabled on this thread"):
            with profile():
                pass

    @record_function("decorated")
    def f():
        return al.ones(1).exp()

    assert f().item() == pytest.approx(2.718281828)  # no profiler: a no-op
    with profile() as prof:
        f()
    assert [e.name for e in prof.events()] == ["decorated", "aten::exp"]


def test_the_legacy_autograd_profiler_records_the_same():
    with al.autograd.profiler.profile(record_shapes=True) as prof:
        with al.autograd.profiler.record_function("range"):
            al.ones(2, 3).t()
    assert [(e.name, e.input_shapes) for e in prof.function_events] == [("range", []), ("aten::t", [[2, 3]])]
    assert "aten::t" in str(prof)
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        al.autograd.profiler.profile().key_averages()


def test_chrome_trace_loads(tmp_path):
    prof = _profiled(al)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    assert {"name", "ts", "dur", "pid", "tid"} <= set(complete[0]) and complete[0]["name"] == "model_inference"


def test_schedule_matches_torchs_and_hands_each_cycle_to_on_trace_ready(tmp_path):
    ours = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    theirs = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [ours(i).name for i in range(12)] == [theirs(i).name for i in range(12)]
    cycles = []
    step_fn = _model_step(al)
    with profile(schedule=schedule(wait=1, warmup=0, active=2), on_trace_ready=cycles.append) as prof:
        for _ in range(6):
            step_fn()
            prof.step()
    assert len(cycles) == 2 and prof.current_action == ProfilerAction.NONE
    assert Counter(e.name for e in prof.events())["model_inference"] == 2  # the two active steps of the last cycle
    with profile(schedule=schedule(wait=0, warmup=0, active=1, repeat=1), on_trace_ready=tensorboard_trace_handler(
            str(tmp_path / "tb"), worker_name="w")) as prof:
        step_fn()
        prof.step()
    files = list((tmp_path / "tb").iterdir())
    assert len(files) == 1 and files[0].name.startswith("w.") and files[0].name.endswith(".pt.trace.json")


def test_op_names_are_pytorchs():
    from autograd_lab.ops.nn import AddmmBackward0
    names = {cls.__name__: autograd_profiler.op_name(cls) for cls in (AddmmBackward0,)}
    assert names == {"AddmmBackward0": "aten::addmm"}
    fake = [type(n, (), {}) for n in ("LogSoftmaxBackward0", "MaxPool2DWithIndicesBackward0", "CopyBackwards",
                                      "PowBackward1", "NllLossBackward0")]
    assert [autograd_profiler.op_name(c) for c in fake] == ["aten::log_softmax", "aten::max_pool2d_with_indices",
                                                             "aten::copy", "aten::pow", "aten::nll_loss"]
