"""pytest setup for the nbval run of the course notebooks (``make test`` collects ``tests`` and ``notebooks``).

The lab's drawings are stored as SVG and as HTML (the SVG as an image) beside their text outline; they are made
in Python on every machine, with or without Graphviz. ``notebooks/nbval_sanitize.cfg`` replaces the image by a
placeholder, so nbval compares the outline (the drawing's geometry is tested in ``tests/lab``).
"""

from __future__ import annotations


def pytest_configure(config) -> None:
    """autograd_lab ignores the IEEE warnings (log(0), 0/0) of its own NumPy calls, as PyTorch is silent
    (``autograd_lab._quiet_ieee_warnings``). The filter it sets at import is lost when the import happens
    inside pytest's ``catch_warnings`` (collection), so it is set again here, where it lasts the session."""
    import autograd_lab
    autograd_lab._quiet_ieee_warnings()
