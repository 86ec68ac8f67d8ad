"""``lab``: snapshot + DOT of a 2,000-node graph, and one live redraw after a notebook cell.

The graph is a small recurrent computation (two weights, a state updated ``STEPS`` times): 1,998 op
nodes and 2 ``AccumulateGrad`` nodes. The redraw runs in a real IPython shell: ``%watch h``, then a
cell ``h = h * 1.0`` (the time of ``post_run_cell``'s redraw, as ``Watch.last_refresh_s`` records it).
"""

from __future__ import annotations

import numpy as np

from .common import timed

NODES = 2000


def _graph(al):
    rng = np.random.default_rng(5)
    w = al.tensor(rng.standard_normal((4, 4)) * 0.3, requires_grad=True)
    b = al.tensor(rng.standard_normal(4) * 0.1, requires_grad=True)
    h = al.zeros(4, dtype=al.float64)
    for _ in range((NODES - 2) // 3):  # 3 ops per step: matmul (mv), add, tanh
        h = (w @ h + b).tanh()
    return h


def run_lab(lib: str, params: dict, reps: int, warmup: int):
    import autograd_lab as al
    from autograd_lab.lab import DotOptions, snapshot, to_dot

    if params["part"] == "snapshot_dot":
        h = _graph(al)
        options = DotOptions(max_nodes=NODES + 100)
        result = {}

        def fn():
            snap = snapshot(h)
            result["nodes"] = len(snap.nodes)
            result["dot"] = len(to_dot(snap, options).source)

        times = timed(fn, reps, warmup)
        return times, [result["nodes"]]

    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_cell("import autograd_lab as al\n%load_ext autograd_lab", store_history=False)
    shell.user_ns["h"] = _graph(al)
    shell.run_cell("live = %watch h", store_history=False)
    live = shell.user_ns["live"]
    live.options.max_nodes = NODES + 100
    times = []
    for i in range(warmup + reps):
        shell.run_cell("h = h * 1.0", store_history=False)  # one node more each cell: the redraw shows it
        if i >= warmup:
            times.append(live.last_refresh_s)
    shell.run_cell("%unwatch", store_history=False)
    return times, [len(live.drawing.snapshot.nodes) - (warmup + reps)]
