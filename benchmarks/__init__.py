"""The benchmark suite: ``python -m benchmarks`` (or ``make bench``); see ``benchmarks/NOTES.md``.

Each workload runs in a fresh process per library (``worker.py``), libraries interleaved, and is
compared with hand-written NumPy (the floor) and PyTorch (when installed).
"""
