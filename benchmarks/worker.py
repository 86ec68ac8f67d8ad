"""One measurement in a fresh process: ``python -m benchmarks.worker CASE LIB REPS WARMUP PARAMS_JSON``.

Prints one JSON line: ``{"times": [...], "check": [...], "extra": ...}``. The thread variables are
set from ``--threads`` before NumPy is imported (the driver also sets them in the environment).
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> None:
    workload, lib, reps, warmup, params, threads = argv[0], argv[1], int(argv[2]), int(argv[3]), json.loads(argv[4]), \
        int(argv[5])
    from .common import limit_threads
    limit_threads(threads)  # before NumPy is imported (importing .common above does not import it)

    from . import lab, memory, micro, train
    runners = {"op_overhead": micro.run_op_overhead, "deep_chain": micro.run_deep_chain,
               "scalar_mlp": micro.run_scalar_mlp, "mlp_train": train.run_mlp_train, "cnn_train": train.run_cnn_train,
               "memory": memory.run_memory, "lab": lab.run_lab}
    out = runners[workload](lib, params, reps, warmup)
    times, check = out[0], out[1]
    extra = out[2] if len(out) > 2 else None
    print(json.dumps({"times": times, "check": [float(c) for c in check], "extra": extra}))


if __name__ == "__main__":
    main(sys.argv[1:])
