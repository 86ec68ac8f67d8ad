"""Live drawings: ``watch(...)`` redraws after every executed notebook cell (an IPython extension).

``%load_ext autograd_lab`` adds ``%watch y loss`` (watch these names: after each cell they are looked
up again, so rebinding ``y = y * 2`` shows the new graph) and ``%unwatch``. ``watch()`` takes tensors
(watched as objects) or strings (names or expressions, evaluated in the notebook's namespace after
each cell). A saved tensor changed in place since it was saved is flagged in red with the sentence
saying that the next backward through its node will raise, and why.
"""

from __future__ import annotations

import inspect
import time

from ..i18n import msg
from ..tensor import Tensor
from .draw import Drawing, static_bundle
from .names import namespace_names, type_modules
from .scene import DotOptions
from .snapshot import snapshot

__all__ = ["Watch", "watch", "unwatch", "load_ipython_extension"]

_active: list = []  # the watches to refresh after each cell (held until stopped)
_registered_shells: set[int] = set()


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


class Watch:
    """A drawing that follows some tensors (or names) and redraws when they change."""

    def __init__(self, targets: tuple, namespace: dict, options: DotOptions | None = None, model=None) -> None:
        self.targets = targets
        self.model = model  # an nn.Module whose parameters are named as named_parameters() names them
        self.namespace = namespace  # where names are looked up and tensors get their labels (live dict)
        self.options = options or DotOptions()
        self.drawing: Drawing | None = None
        self.last_refresh_s = 0.0
        self.stopped = False
        self.refresh()

    def _resolve(self) -> tuple[list[Tensor], list[str], dict[str, Tensor]]:
        """The watched tensors, what went wrong finding them, and each expression's tensor by its text."""
        tensors, problems, named = [], [], {}
        for target in self.targets:
            if isinstance(target, Tensor):
                tensors.append(target)
                continue
            try:
                value = eval(target, self.namespace)  # noqa: S307 - the learner's own expression, in their namespace
            except Exception as exc:  # a name not defined yet: say so, never break the learner's cell
                problems.append(f"{target}: {type(exc).__name__}: {exc}")
                continue
            if isinstance(value, Tensor):
                tensors.append(value)
                named[target] = value
            else:
                problems.append(msg("lab.watch.not_a_tensor", target=target, type=type(value).__name__))
        return tensors, problems, named

    def refresh(self) -> None:
        """Snapshot the watched tensors again and update the drawing (and the widget, if shown)."""
        start = time.perf_counter()
        tensors, problems, named = self._resolve()
        names, modules = namespace_names(self.namespace, modules=self.model is None)
        snap = snapshot(*tensors, names={**names, **named}, model=self.model)  # a watched name (or expression) labels its tensor
        type_modules(snap, modules)
        drawing = Drawing("autograd")._setup(snap, self.options)
        drawing.messages = problems + drawing.messages
        self.drawing = drawing
        if self._widget is not None:
            self._update_widget()
        self.last_refresh_s = time.perf_counter() - start

    _widget = None

    def _update_widget(self) -> None:
        self._widget.show(self.drawing)

    @property
    def widget(self):
        if self._widget is None:
            from .widget import GraphWidget
            self._widget = GraphWidget()
            self._update_widget()
        return self._widget

    def stop(self) -> None:
        """Stop redrawing after each cell."""
        self.stopped = True
        if self in _active:
            _active.remove(self)

    def __repr__(self) -> str:
        return f"<autograd_lab watch of {', '.join(t if isinstance(t, str) else 'a tensor' for t in self.targets)}>"

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        return {**bundle, **static_bundle(self.drawing.static_svg(), self.drawing.outline(), self.drawing.describe())}


def _after_cell(*args) -> None:
    for live in list(_active):
        if live.stopped:
            _active.remove(live)
            continue
        try:
            live.refresh()
        except Exception as exc:  # never break the learner's notebook: say what went wrong in the drawing
            if live.drawing is not None:
                live.drawing.messages = [msg("lab.watch.redraw_failed", type=type(exc).__name__, error=exc)]
                if live._widget is not None:
                    live._widget.messages = list(live.drawing.messages)


def _register(live: Watch) -> None:
    _active.append(live)
    shell = _shell()
    if shell is not None and id(shell) not in _registered_shells:
        shell.events.register("post_run_cell", _after_cell)
        _registered_shells.add(id(shell))


def watch(*targets, max_depth: int | None = None, max_nodes: int = 400, hide_constants: bool = False,
          modules: str | None = None, model=None) -> Watch:
    """Draw ``targets`` (tensors, or names/expressions as strings) and redraw after every notebook cell.

    Each watched name labels its tensor; other tensors and modules' parameters are named from the
    notebook's variables, or, with ``model``, by ``model.named_parameters()``.
    """
    if not targets:
        raise TypeError("watch() needs at least one tensor, or the name of one as a string (e.g. watch('loss'))")
    for target in targets:
        if not isinstance(target, (Tensor, str)):
            raise TypeError(f"watch() takes Tensors or names (str), got {type(target).__name__}")
    shell = _shell()
    namespace = shell.user_ns if shell is not None else _caller_globals()
    options = DotOptions(max_depth=max_depth, max_nodes=max_nodes, hide_constants=hide_constants, modules=modules)
    live = Watch(tuple(targets), namespace, options, model=model)
    _register(live)
    return live


def _caller_globals() -> dict:
    """The globals of watch()'s caller: the dict itself, so that later bindings are seen."""
    frame = inspect.currentframe().f_back.f_back
    try:
        return frame.f_globals
    finally:
        del frame


def unwatch() -> None:
    """Stop every watch."""
    for live in _active:
        live.stop()
    _active.clear()


def load_ipython_extension(ipython) -> None:
    """``%load_ext autograd_lab``: the ``%watch NAME...`` and ``%unwatch`` line magics."""

    def watch_magic(line: str):
        names = line.split()
        if not names:
            print(msg("lab.watch.usage"))
            return None
        return watch(*names)

    def unwatch_magic(line: str) -> None:
        unwatch()

    ipython.register_magic_function(watch_magic, "line", "watch")
    ipython.register_magic_function(unwatch_magic, "line", "unwatch")
