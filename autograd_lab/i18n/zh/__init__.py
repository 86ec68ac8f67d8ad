"""中文消息目录 (the Chinese catalogue): the same keys and fields as ``autograd_lab/i18n/en/``, written for Chinese
readers. Terms follow the course's glossary (``notebooks/zh/glossary.md``); code names, numbers and the library's
error messages stay as they are.
"""

import re

# A Chinese character beside a Latin letter, a digit or code punctuation gets a space between them (中文排版的
# “盘古之白”): the templates fill in code names and numbers (“与{reference}一致”), which then read “与 autograd 一致”.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff"
_BEFORE = re.compile(f"([{_CJK}])([A-Za-z0-9_`'\"(\\[<.])")
_AFTER = re.compile(f"([A-Za-z0-9_`'\")\\]>%])([{_CJK}])")


def polish(text: str) -> str:
    """``text`` with a space between each Chinese character and an adjacent Latin letter, digit or code mark."""
    return _AFTER.sub(r"\1 \2", _BEFORE.sub(r"\1 \2", text))
