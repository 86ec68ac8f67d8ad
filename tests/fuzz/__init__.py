"""The differential fuzzer: random op programs run in autograd_lab and in PyTorch, compared value by value.

``programs`` draws a program from a seed (its steps are in ``steps``), ``runner`` runs it in both libraries
in lockstep and classifies the outcome, ``known`` is the table of differences that are meant (or being
fixed), ``test_differential_fuzz`` runs a bounded number in the suite, and ``python -m fuzz`` (with
``tests`` on the path) runs thousands and prints the figures. See docs/testing.md.
"""
