"""A layered layout of a directed acyclic graph, in pure Python (no ``dot`` executable needed).

The classic method of Sugiyama et al., kept short:

1. **Ranks.** Each box goes one rank below its lowest parent (longest path from the top); a box with
   no parent (a tensor) is then pulled down to sit just above its highest child.
2. **Dummies.** An edge spanning several ranks is cut into one-rank pieces by dummy points, so that it
   can be routed between the boxes of the ranks it crosses. An edge spanning more than ``LONG_SPAN``
   ranks (a leaf used all along a long chain) is drawn in one curve instead: routing hundreds of
   them through every rank would cost more than it shows.
3. **Order.** Within each rank, boxes are ordered by a depth-first walk (inputs left to right, in
   ``next_functions`` order), then improved by barycenter sweeps (each box moves towards the mean
   position of its neighbours in the rank above, then below); the order with the fewest crossings is kept.
   Boxes of one group (a module's box) are kept side by side.
4. **Coordinates.** Alternating sweeps move each box towards the mean position of its neighbours,
   each time solving exactly for the closest positions that keep boxes apart (isotonic regression,
   pool-adjacent-violators).

Everything is deterministic: the same graph and sizes give the same positions, which is what lets the
stepper keep every node in place from one step to the next.

The boxes' sizes come from their text (:func:`text_cells`): the drawing is set in a monospace font, where a Latin
letter takes one cell and a Chinese character (or any East Asian wide character) two, so a caption in Chinese gets a
box wide enough for it.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass, field

__all__ = ["Layout", "layered", "char_cells", "text_cells", "clip_cells"]

RANK_GAP = 44.0  # vertical space between ranks (the stepper writes gradients on the edges there)
NODE_GAP = 26.0  # horizontal space between boxes
DUMMY_GAP = 12.0  # horizontal space next to an edge passing through a rank
MARGIN = 8.0
LONG_SPAN = 16  # edges spanning more ranks than this get no dummy points
ORDER_SWEEPS = 12
PLACE_SWEEPS = 8
WIDE_SYMBOLS = "⚠"  # narrow in Unicode's tables, but drawn wide (as an emoji) by most fonts


def char_cells(char: str) -> int:
    """How many cells of a monospace font ``char`` takes: two for an East Asian wide or fullwidth character (Chinese,
    Japanese, Korean, fullwidth punctuation such as ``，``) and for :data:`WIDE_SYMBOLS`, none for a combining mark,
    one otherwise."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") or char in WIDE_SYMBOLS else 1


def text_cells(text: str) -> int:
    """The width of ``text`` in monospace cells (``len`` for plain ASCII; a Chinese character counts two)."""
    return sum(char_cells(char) for char in text)


def clip_cells(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` cells, else as much of it as fits in ``limit - 1`` followed by ``…``."""
    if text_cells(text) <= limit:
        return text
    kept, used = [], 0
    for char in text:
        used += char_cells(char)
        if used > limit - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


@dataclass
class Layout:
    """Box centers and sizes, each edge's route, and the ranks (for drawing module regions)."""

    boxes: dict[str, tuple[float, float, float, float]]  # id -> (x center, y center, width, height)
    routes: list[list[tuple[float, float]]]  # per edge: start, the dummy points (top, bottom), end
    width: float
    height: float
    rank: dict[str, int] = field(default_factory=dict)
    rank_spans: list[tuple[float, float]] = field(default_factory=list)  # (top, bottom) of each rank
    edges: list[tuple[str, str]] = field(default_factory=list)  # (src, dst) of each route

    def __post_init__(self) -> None:
        self._by_edge = dict(zip(self.edges, self.routes))

    def route(self, src: str, dst: str) -> list[tuple[float, float]] | None:
        """The route of the edge from ``src`` to ``dst`` (None if the layout has no such edge)."""
        return self._by_edge.get((src, dst))


@dataclass
class _Graph:
    """The graph with dummy points, as the steps below share it."""

    sizes: dict[str, tuple[float, float]]
    up: dict[str, list[tuple[str, float]]]  # v -> (neighbour above, its port offset as a fraction of its width)
    down: dict[str, list[tuple[str, float]]]  # v -> (neighbour below, v's port offset)
    layers: list[list[str]]
    chains: list[list[str]]  # per edge: src, dummies..., dst
    dummies: set[str]


def _ranks(ids: list[str], edges: list[tuple[str, str, float]]) -> dict[str, int]:
    succ: dict[str, list[str]] = {v: [] for v in ids}
    pred: dict[str, list[str]] = {v: [] for v in ids}
    for src, dst, _ in edges:
        succ[src].append(dst)
        pred[dst].append(src)
    indegree = {v: len(pred[v]) for v in ids}
    ready = [v for v in ids if indegree[v] == 0]
    topo: list[str] = []
    while ready:
        v = ready.pop(0)
        topo.append(v)
        for w in succ[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    placed = set(topo)
    topo += [v for v in ids if v not in placed]  # only on a cycle, which a backward graph never has
    rank: dict[str, int] = {}
    for v in topo:
        rank[v] = max((rank[u] + 1 for u in pred[v] if u in rank), default=0)
    for v in reversed(topo):
        if not pred[v] and succ[v]:
            rank[v] = max(0, min(rank[w] for w in succ[v]) - 1)
    return rank


def _expand(ids, sizes, edges, rank) -> _Graph:
    up = {v: [] for v in ids}
    down = {v: [] for v in ids}
    dummies: set[str] = set()
    chains = []
    sizes = dict(sizes)
    for index, (src, dst, port) in enumerate(edges):
        chain = [src]
        for r in range(rank[src] + 1, rank[dst] if rank[dst] - rank[src] <= LONG_SPAN else rank[src] + 1):
            dummy = f"~{index}_{r}"
            rank[dummy] = r
            sizes[dummy] = (2.0, 0.0)
            dummies.add(dummy)
            up[dummy], down[dummy] = [], []
            chain.append(dummy)
        chain.append(dst)
        for a, b in zip(chain, chain[1:]):
            offset = port if a == src else 0.0
            down[a].append((b, offset))
            up[b].append((a, offset))
        chains.append(chain)
    layers: list[list[str]] = [[] for _ in range(max(rank.values(), default=-1) + 1)]
    for v in _walk_order(ids, up, down):
        layers[rank[v]].append(v)
    return _Graph(sizes, up, down, layers, chains, dummies)


def _walk_order(ids, up, down) -> list[str]:
    """Depth-first from the boxes without parents, children in input order: a natural first order."""
    order, seen = [], set()
    for start in [v for v in ids if not up[v]] + list(ids):
        stack = [start]
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            order.append(v)
            stack.extend(w for w, _ in reversed(down[v]) if w not in seen)
    return order


def _crossings(upper: list[str], lower_pos: dict[str, int], down, upper_pos: dict[str, int]) -> int:
    pairs = sorted((upper_pos[a] + offset, lower_pos[b]) for a in upper for b, offset in down[a])
    count, seen = 0, []
    for _, b in pairs:
        count += len(seen) - bisect.bisect_right(seen, b)
        bisect.insort(seen, b)
    return count


def _total_crossings(graph: _Graph) -> int:
    pos = {v: i for layer in graph.layers for i, v in enumerate(layer)}
    return sum(_crossings(a, pos, graph.down, pos) for a in graph.layers[:-1])


def _sort_layer(layer, neighbours, pos, groups) -> list[str]:
    def key(v):
        near = neighbours[v]
        return sum(pos[u] + 0.4 * offset for u, offset in near) / len(near) if near else pos[v]

    keys = {v: key(v) for v in layer}
    ordered = sorted(layer, key=lambda v: keys[v])
    if not groups:
        return ordered
    members: dict[str, list[str]] = {}
    for v in ordered:
        members.setdefault(groups.get(v, v), []).append(v)
    group_key = {g: sum(keys[v] for v in vs) / len(vs) for g, vs in members.items()}
    return sorted(ordered, key=lambda v: (group_key[groups.get(v, v)], keys[v]))


def _order(graph: _Graph, groups: dict[str, str]) -> None:
    best, best_count = [list(layer) for layer in graph.layers], _total_crossings(graph)
    for sweep in range(ORDER_SWEEPS):
        if best_count == 0:
            break
        downward = sweep % 2 == 0
        indices = range(1, len(graph.layers)) if downward else range(len(graph.layers) - 2, -1, -1)
        for r in indices:
            pos = {v: i for layer in graph.layers for i, v in enumerate(layer)}
            graph.layers[r] = _sort_layer(graph.layers[r], graph.up if downward else graph.down, pos, groups)
        count = _total_crossings(graph)
        if count < best_count:
            best, best_count = [list(layer) for layer in graph.layers], count
    graph.layers = best


def _project(desired: list[float], weights: list[float], seps: list[float]) -> list[float]:
    """The positions closest to ``desired`` (weighted least squares) with ``x[i+1] - x[i] >= seps[i]``."""
    offsets = [0.0]
    for s in seps:
        offsets.append(offsets[-1] + s)
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for target, weight in zip((d - o for d, o in zip(desired, offsets)), weights):
        blocks.append([target * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight_sum, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight_sum
            blocks[-1][2] += count
    values: list[float] = []
    for total, weight_sum, count in blocks:
        values.extend([total / weight_sum] * int(count))
    return [v + o for v, o in zip(values, offsets)]


def _place(graph: _Graph) -> dict[str, float]:
    width = {v: graph.sizes[v][0] for v in graph.sizes}
    x: dict[str, float] = {}
    for layer in graph.layers:
        cursor = 0.0
        for v in layer:
            x[v] = cursor + width[v] / 2
            cursor += width[v] + NODE_GAP

    def sep(a: str, b: str) -> float:
        gap = DUMMY_GAP if a in graph.dummies or b in graph.dummies else NODE_GAP
        return (width[a] + width[b]) / 2 + gap

    def wanted(v: str, sides) -> float:
        """The mean position of ``v``'s neighbours on ``sides`` (centers: aiming at the ports would make a
        chain drift sideways port by port); a real box listens less to the edges passing by (dummy
        points), so that a leaf shared by many nodes does not drag them all sideways."""
        total = weight_sum = 0.0
        for side in sides:
            for u, _ in side[v]:
                weight = 0.25 if u in graph.dummies and v not in graph.dummies else 1.0
                total += weight * x[u]
                weight_sum += weight
        return total / weight_sum if weight_sum else x[v]

    # Who gives way when two boxes want the same place: a box hanging from one parent and leading nowhere (a
    # None, most leaves) moves aside before a box on a path, so that chains stay straight; edges passing
    # through keep straight too.
    weight = {v: 2.0 if v in graph.dummies else 0.2 if not graph.down[v] and len(graph.up[v]) == 1 else 1.0
              for v in x}
    for sweep in range(PLACE_SWEEPS + 1):
        if sweep == PLACE_SWEEPS:
            sides, layers = (graph.up, graph.down), graph.layers
        elif sweep % 2 == 0:
            sides, layers = (graph.up,), graph.layers
        else:
            sides, layers = (graph.down,), graph.layers[::-1]
        for layer in layers:
            if not layer:
                continue
            desired = [wanted(v, sides) for v in layer]
            weights = [weight[v] for v in layer]
            placed = _project(desired, weights, [sep(a, b) for a, b in zip(layer, layer[1:])])
            x.update(zip(layer, placed))
    return x


def _spread_inputs(graph: _Graph, x, boxes) -> dict[tuple[int, int], float]:
    """Where each edge arrives on its target's top: spread in the order of where the edges come from."""
    arriving: dict[str, list[tuple[float, int]]] = {}
    for index, chain in enumerate(graph.chains):
        arriving.setdefault(chain[-1], []).append((x[chain[-2]], index))
    offsets = {}
    for dst, items in arriving.items():
        items.sort()
        step = min(14.0, 0.6 * boxes[dst][2] / max(1, len(items)))
        for k, (_, index) in enumerate(items):
            offsets[(index, 0)] = (k - (len(items) - 1) / 2) * step
    return offsets


def layered(sizes: dict[str, tuple[float, float]], edges: list[tuple[str, str, float]],
            groups: dict[str, str] | None = None) -> Layout:
    """Lay out boxes of ``sizes`` (id -> (width, height), in a stable order) joined by ``edges``
    ``(src, dst, port)``: ``src`` is drawn above ``dst`` and the edge leaves ``src`` at ``port`` (an
    offset from its center, as a fraction of its width). ``groups`` (id -> group) keeps each group's
    boxes side by side in their ranks."""
    ids = list(sizes)
    rank = _ranks(ids, edges)
    graph = _expand(ids, sizes, edges, rank)
    _order(graph, groups or {})
    x = _place(graph)
    spans, top = [], MARGIN
    for layer in graph.layers:
        height = max((graph.sizes[v][1] for v in layer), default=0.0)
        spans.append((top, top + height))
        top += height + RANK_GAP
    left = min((x[v] - graph.sizes[v][0] / 2 for v in x), default=0.0) - MARGIN
    boxes = {v: (x[v] - left, (spans[rank[v]][0] + spans[rank[v]][1]) / 2, *sizes[v]) for v in ids}
    arrive = _spread_inputs(graph, {v: x[v] - left for v in x}, boxes)
    routes = []
    for index, ((src, dst, port), chain) in enumerate(zip(edges, graph.chains)):
        sx, sy, sw, sh = boxes[src]
        dx, dy, dw, dh = boxes[dst]
        points = [(sx + port * sw, sy + sh / 2)]
        for dummy in chain[1:-1]:
            r = rank[dummy]
            points += [(x[dummy] - left, spans[r][0]), (x[dummy] - left, spans[r][1])]
        points.append((dx + arrive.get((index, 0), 0.0), dy - dh / 2))
        routes.append(points)
    width = max((b[0] + b[2] / 2 for b in boxes.values()), default=0.0) + MARGIN
    height = (spans[-1][1] if spans else 0.0) + MARGIN
    return Layout(boxes, routes, width, height, {v: rank[v] for v in ids}, spans, [(s, d) for s, d, _ in edges])
