"""``check.ex_NN_K``: the checker of exercise K of notebook NN, looked up in the module ``exNN``.

A notebook calls ``check.ex_03_2(answer)``; this module imports ``autograd_lab.course.ex03`` on first use
and returns its ``ex_03_2``. The build-your-own track's notebooks (``notebooks/build_it/bN_*.ipynb``) are
numbered ``bN``: ``check.ex_b3_1`` lives in ``exb3``. Adding a notebook's checkers needs no edit here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

_NAME = re.compile(r"ex_(\d\d|b\d)_\d+")


def __getattr__(name: str):
    match = _NAME.fullmatch(name)
    if match is None:
        raise AttributeError(f"module 'autograd_lab.course.check' has no attribute '{name}' "
                             "(checkers are named ex_NN_K, or ex_bN_K for the build track)")
    module_name = f"{__package__}.ex{match.group(1)}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise AttributeError(f"no checkers for notebook {match.group(1)}: module {module_name} does not exist") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"{module_name} has no checker '{name}'") from None


def __dir__() -> list[str]:
    names = []
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if re.fullmatch(r"ex(\d\d|b\d)", info.name):
            module = importlib.import_module(f"{__package__}.{info.name}")
            names += [n for n in vars(module) if _NAME.fullmatch(n)]
    return sorted(names)
