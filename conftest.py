"""pytest setup for the nbval run of the course notebooks (``make test`` collects ``tests`` and ``notebooks``).

``al.lab.draw`` adds a static SVG to its output only where Graphviz's ``dot`` executable is installed (the
interactive widget needs no ``dot``). The stored notebooks were executed with ``dot`` present, so on a
machine without it the SVG output would be missing and nbval would fail on a key that carries no lesson:
the SVG's layout already varies between Graphviz versions and is never compared (it used to be sanitized
to a placeholder). The drawing's content is compared through its ``text/plain`` outline, which every
machine produces, so comparing the SVG is switched off here.
"""

from __future__ import annotations

try:  # nbval is a test dependency; without it there is nothing to configure
    from nbval.plugin import IPyNbFile
except ImportError:  # pragma: no cover
    IPyNbFile = None

SKIPPED_MIME_TYPES = ("image/svg+xml",)


def pytest_collectstart(collector) -> None:
    if IPyNbFile is not None and isinstance(collector, IPyNbFile):
        collector.skip_compare = tuple(collector.skip_compare) + SKIPPED_MIME_TYPES


def pytest_configure(config) -> None:
    """autograd_lab ignores the IEEE warnings (log(0), 0/0) of its own NumPy calls, as PyTorch is silent
    (``autograd_lab._quiet_ieee_warnings``). The filter it sets at import is lost when the import happens
    inside pytest's ``catch_warnings`` (collection), so it is set again here, where it lasts the session."""
    import autograd_lab
    autograd_lab._quiet_ieee_warnings()
