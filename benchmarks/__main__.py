"""``python -m benchmarks``: run the suite (see ``run.py``)."""

from .run import main

raise SystemExit(main())
