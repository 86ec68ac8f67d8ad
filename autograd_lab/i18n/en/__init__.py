"""The English catalogue (the default): one ``MESSAGES`` dict per part (see :data:`autograd_lab.i18n.PARTS`).

The text a learner reads, word for word. A ``{field}`` is filled in by the code (a name, a number, a value); a
translation keeps every field and its format spec (``{value:.6g}``) exactly.
"""
