"""Profile a small model's forward and backward, and read the table."""
import autograd_lab as al
from autograd_lab.profiler import ProfilerActivity, profile, record_function

al.manual_seed(0)
model = al.nn.Sequential(al.nn.Linear(32, 64), al.nn.ReLU(), al.nn.Linear(64, 10))
inputs = al.randn(16, 32)
target = al.randint(0, 10, (16,))

with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("forward"):
        loss = al.nn.functional.cross_entropy(model(inputs), target)
    with record_function("backward"):
        loss.backward()

table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
print(table)
calls = {e.key: e.count for e in prof.key_averages()}
result = {
    "columns": table.splitlines()[1].split(),
    "addmm calls": calls.get("aten::addmm"),
    "relu calls": calls.get("aten::relu"),
    "backward nodes": sorted(k for k in calls if k in ("AddmmBackward0", "ReluBackward0", "NllLossBackward0")),
    "ranges": sorted(k for k in calls if k in ("forward", "backward")),
}
print(result)
