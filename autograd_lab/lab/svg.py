"""A scene laid out and written as SVG: the widget's drawing and the static image stored in notebooks.

Both come from :func:`to_svg`, so a notebook viewed without a kernel (JupyterLab before the cells run,
the docs site, GitHub) shows the same picture as the live widget. No ``dot`` executable is involved:
:mod:`~autograd_lab.lab.layout` places the boxes in Python. Text is monospace, so its width is known
without font metrics (a Chinese character takes two cells). Every piece of text is escaped. Elements carry
classes (``al-op``, ``al-current``, ``al-title``...) so that the widget's stylesheet can restyle them for
JupyterLab's light and dark themes; the colours written as attributes here are the light theme, used wherever no
stylesheet applies.
"""

from __future__ import annotations

import html
import math
import unicodedata
from dataclasses import dataclass

from .layout import Layout, layered, text_cells
from .scene import Box, Link, Scene, direction

__all__ = ["to_svg", "layout_scene", "box_size", "FONT"]

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace"
CHAR = 0.6  # advance of a monospace character, in em
PAD_X, PAD_Y = 8.0, 5.0
ARROW = 7.0


@dataclass(frozen=True)
class _Look:
    size: float
    height: float
    color: str
    bold: bool = False


ROW_LOOK = {
    "title": _Look(13.0, 18.0, "#111111", bold=True),
    "kind": _Look(10.5, 14.0, "#2e7d32"),
    "info": _Look(11.5, 15.0, "#333333"),
    "grad": _Look(11.5, 15.0, "#1b5e20"),
    "step": _Look(11.5, 15.0, "#0d47a1", bold=True),
    "hook": _Look(11.5, 15.0, "#6a1b9a"),
    "meta": _Look(11.5, 15.0, "#555555"),
    "stale": _Look(11.5, 15.0, "#c62828", bold=True),
    "freed": _Look(11.5, 15.0, "#888888"),
}

# kind or class -> (fill, stroke, stroke-dasharray or "", stroke width); later classes win
BOX_LOOK = {
    "op": ("#dbe9f6", "#6b8fb8", "", 1.0),
    "leaf": ("#dcefd9", "#6aa464", "", 1.0),
    "tensor": ("#fff2bf", "#c2a23c", "", 1.0),
    "fold": ("#ece6f6", "#9575cd", "", 1.0),
    "const": ("none", "none", "", 0.0),
    "done": ("#e6e6e6", "#9e9e9e", "", 1.0),
    "freed": ("#eeeeee", "#9e9e9e", "4 3", 1.0),
    "off": ("#f4f4f4", "#9e9e9e", "1 3", 1.0),
    "stale": (None, "#c62828", "", 2.0),
    "current": (None, "#e65100", "", 3.5),
}

LINK_LOOK = {  # kind -> (stroke, dasharray, width)
    "next": ("#555555", "", 1.2),
    "grad_fn": ("#8d7a2e", "", 1.2),
    "const": ("#aaaaaa", "2 3", 1.0),
    "view": ("#7b1fa2", "5 3", 1.2),
    "step": ("#0d47a1", "", 2.2),
}


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _text_width(text: str, size: float) -> float:
    """The width of ``text`` at font ``size``: a Chinese character takes two cells (:func:`.layout.text_cells`)."""
    return text_cells(text) * CHAR * size


def box_size(box: Box) -> tuple[float, float]:
    """Width and height of a box, from its rows (and the characters it reserves for the stepper)."""
    widths = [_text_width(row.text, ROW_LOOK[row.style].size) for row in box.rows]
    widths.append(box.reserve * CHAR * ROW_LOOK["info"].size)
    height = sum(ROW_LOOK[row.style].height for row in box.rows) + 2 * PAD_Y
    return max(48.0, max(widths) + 2 * PAD_X), height


def _port(link: Link) -> float:
    """Where an edge leaves its source: spread over the source's bottom in next_functions order."""
    return ((link.port + 0.5) / link.ports - 0.5) * 0.8 if link.ports > 1 else 0.0


def layout_scene(scene: Scene) -> Layout:
    """Lay ``scene`` out (every link but the views ranks its target below its source)."""
    sizes = {bid: box_size(box) for bid, box in scene.boxes.items()}
    edges = [(link.src, link.dst, _port(link)) for link in scene.links if link.kind != "view"]
    groups = {bid: box.cluster for bid, box in scene.boxes.items() if box.cluster is not None}
    return layered(sizes, edges, groups)


def _box_svg(box: Box, x: float, y: float, w: float, h: float) -> str:
    fill, stroke, dash, width = BOX_LOOK[box.kind]
    for cls in box.classes:
        look = BOX_LOOK.get(cls)
        if look is not None:
            fill = look[0] or fill
            stroke, dash, width = look[1], look[2] or dash, look[3]
    w = max(w, box_size(box)[0])  # the stepper may write a little more than the layout reserved
    left, top = x - w / 2, y - h / 2
    classes = " ".join(["node" if box.kind != "const" else "al-stub", "al-box", f"al-{box.kind}"]
                       + [f"al-{c}" for c in box.classes])
    title = next((row.text for row in box.rows if row.style == "title"), box.rows[0].text if box.rows else "")
    rx = 9 if box.kind == "tensor" else 3
    parts = [f'<g class="{classes}" data-id="{_esc(box.id)}"><title>{_esc(title)}</title>',
             f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{fill}" '
             f'stroke="{stroke}" stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"]
    baseline = top + PAD_Y
    for row in box.rows:
        look = ROW_LOOK[row.style]
        baseline += look.height
        weight = ' font-weight="bold"' if look.bold else ""
        parts.append(f'<text class="al-row al-{row.style}" x="{left + PAD_X:.1f}" y="{baseline - 4:.1f}" '
                     f'font-size="{look.size}" fill="{look.color}"{weight}>{_esc(row.text)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _curve(a, b) -> str:
    mid = (a[1] + b[1]) / 2
    return f"C{a[0]:.1f},{mid:.1f} {b[0]:.1f},{mid:.1f} {b[0]:.1f},{b[1]:.1f}"


def _route_path(points: list[tuple[float, float]]) -> str:
    """Curves between ranks, straight through the ranks an edge passes, ending ARROW short of the box."""
    *body, (ex, ey) = points
    end = (ex, ey - ARROW)
    d = [f"M{body[0][0]:.1f},{body[0][1]:.1f}"]
    for i in range(1, len(body), 2):
        d.append(_curve(body[i - 1], body[i]))
        d.append(f"L{body[i + 1][0]:.1f},{body[i + 1][1]:.1f}")
    d.append(_curve(body[-1], end))
    return " ".join(d)


def _arrowhead(tip: tuple[float, float], towards: tuple[float, float], color: str) -> str:
    dx, dy = tip[0] - towards[0], tip[1] - towards[1]
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    bx, by = tip[0] - ux * ARROW, tip[1] - uy * ARROW
    left = (bx - uy * 3.6, by + ux * 3.6)
    right = (bx + uy * 3.6, by - ux * 3.6)
    return (f'<polygon class="al-arrow" points="{tip[0]:.1f},{tip[1]:.1f} {left[0]:.1f},{left[1]:.1f} '
            f'{right[0]:.1f},{right[1]:.1f}" fill="{color}"/>')


def _clip(center, half, towards) -> tuple[float, float]:
    dx, dy = towards[0] - center[0], towards[1] - center[1]
    scale = min(half[0] / abs(dx) if dx else math.inf, half[1] / abs(dy) if dy else math.inf)
    scale = 0.0 if scale == math.inf else scale
    return center[0] + dx * scale, center[1] + dy * scale


def _label(x: float, y: float, text: str, cls: str, color: str) -> str:
    return (f'<text class="al-label {cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="middle" font-size="11" '
            f'fill="{color}" stroke="#ffffff" stroke-width="3" paint-order="stroke">{_esc(text)}</text>')


def _link_svg(link: Link, route, layout: Layout) -> tuple[str, str]:
    """The edge, and its label (drawn last, above every edge)."""
    kind = "step" if link.step else link.kind
    color, dash, width = LINK_LOOK[kind]
    attrs = f'fill="none" stroke="{color}" stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "")
    classes = f"edge al-edge al-{kind}"
    ident = f'data-src="{_esc(link.src)}" data-dst="{_esc(link.dst)}"'
    if route is None:  # a view: straight from box to box
        sx, sy, sw, sh = layout.boxes[link.src]
        dx, dy, dw, dh = layout.boxes[link.dst]
        start, tip = _clip((sx, sy), (sw / 2, sh / 2), (dx, dy)), _clip((dx, dy), (dw / 2, dh / 2), (sx, sy))
        body = (f'<g class="{classes}" {ident}><path d="M{start[0]:.1f},{start[1]:.1f} L{tip[0]:.1f},{tip[1]:.1f}" '
                f'{attrs}/>{_arrowhead(tip, start, color)}</g>')
        mid = ((start[0] + tip[0]) / 2, (start[1] + tip[1]) / 2)
        return body, _label(mid[0], mid[1], link.label, "al-view", color) if link.label else ""
    tip = route[-1]
    body = (f'<g class="{classes}" {ident}><path d="{_route_path(route)}" {attrs}/>'
            f'{_arrowhead(tip, (tip[0], tip[1] - 1), color)}</g>')
    if not link.label:
        return body, ""
    a, b = route[0], route[1]
    x, y = a[0] + (b[0] - a[0]) * 0.3, a[1] + (b[1] - a[1]) * 0.45 + 4
    return body, _label(x, y, link.label, f"al-{kind}-label", color)


def _cluster_svg(name: str, title: str, members: list[str], layout: Layout) -> str:
    """A module's region: one rounded box per rank around its members, bridged to the next rank's box
    where the two overlap, titled where it starts."""
    spans: dict[int, tuple[float, float]] = {}
    for bid in members:
        x, _, w, _ = layout.boxes[bid]
        lo, hi = spans.get(layout.rank[bid], (math.inf, -math.inf))
        spans[layout.rank[bid]] = (min(lo, x - w / 2 - 8), max(hi, x + w / 2 + 8))
    parts, bridged = [], False
    for r in sorted(spans):
        lo, hi = spans[r]
        top, bottom = layout.rank_spans[r][0] - (6 if bridged else 20), layout.rank_spans[r][1] + 6
        parts.append(f'<rect x="{lo:.1f}" y="{top:.1f}" width="{hi - lo:.1f}" height="{bottom - top:.1f}" rx="6" '
                     'fill="#f3effa" stroke="#9575cd"/>')
        if not bridged:
            parts.append(f'<text x="{lo + 6:.1f}" y="{top + 13:.1f}" font-size="11" fill="#5e35b1">{_esc(title)}</text>')
        below = spans.get(r + 1)
        bridged = below is not None and min(hi, below[1]) - max(lo, below[0]) > 24
        if bridged:
            left, right = max(lo, below[0]) + 6, min(hi, below[1]) - 6
            parts.append(f'<rect x="{left:.1f}" y="{bottom - 1:.1f}" width="{right - left:.1f}" '
                         f'height="{layout.rank_spans[r + 1][0] - bottom - 4:.1f}" fill="#f3effa"/>')
    return f'<g class="al-cluster" data-module="{_esc(name)}">{"".join(parts)}</g>'


def _graph_svg(scene: Scene, layout: Layout) -> str:
    parts = []
    for name, title in scene.clusters.items():
        members = [bid for bid, box in scene.boxes.items() if box.cluster == name]
        parts.append(_cluster_svg(name, title, members, layout))
    labels = []
    for link in scene.links:
        if link.src not in layout.boxes or link.dst not in layout.boxes:
            continue
        body, label = _link_svg(link, None if link.kind == "view" else layout.route(link.src, link.dst), layout)
        parts.append(body)
        labels.append(label)
    for bid, box in scene.boxes.items():
        if bid in layout.boxes:
            parts.append(_box_svg(box, *layout.boxes[bid]))
    return "".join(parts + labels)


_NO_BREAK_BEFORE = frozenset("，。、：；？！）」』》…")  # Chinese punctuation that never starts a line
_NO_BREAK_AFTER = frozenset("（「『《")  # nor ends one


def _breakable(char: str) -> bool:
    """A line may break beside a wide character: Chinese writes no spaces between its words."""
    return unicodedata.east_asian_width(char) in ("W", "F")


def _pieces(word: str) -> list[str]:
    """``word`` (no spaces) cut where a line may break: beside each Chinese character, except before closing and
    after opening punctuation. A Latin word stays whole."""
    pieces: list[str] = []
    for char in word:
        if pieces and (_breakable(char) or _breakable(pieces[-1][-1])) \
                and char not in _NO_BREAK_BEFORE and pieces[-1][-1] not in _NO_BREAK_AFTER:
            pieces.append(char)
        elif pieces:
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def _wrap(text: str, width: float, size: float) -> list[str]:
    """Lines of ``text`` at most ``width`` wide: broken at spaces, and beside Chinese characters."""
    per_line = max(20, int(width / (CHAR * size)))
    lines, line = [], ""
    for word in text.split():
        for index, piece in enumerate(_pieces(word)):
            joined = f"{line} {piece}" if line and index == 0 else line + piece
            if line and text_cells(joined) > per_line:
                lines.append(line)
                line = piece
            else:
                line = joined
    return lines + ([line] if line else [])


def _legend_svg(scene: Scene, width: float, top: float) -> tuple[str, float]:
    """The legend as swatches in rows that wrap at ``width``; returns the SVG and its height."""
    parts, x, y = [], 8.0, top + 4
    for key, text in scene.legend:
        item = 26 + _text_width(text, 11)
        if x > 8 and x + item > width:
            x, y = 8.0, y + 18
        look = BOX_LOOK.get(key)
        if key in ("view", "const"):
            color, dash, _ = LINK_LOOK[key]
            parts.append(f'<line x1="{x:.1f}" y1="{y + 7:.1f}" x2="{x + 18:.1f}" y2="{y + 7:.1f}" stroke="{color}" '
                         f'stroke-width="1.5" stroke-dasharray="{dash}"/>')
        elif key == "stale":
            parts.append(f'<text x="{x + 3:.1f}" y="{y + 11:.1f}" font-size="12" fill="#c62828">⚠</text>')
        elif look is not None:
            fill = look[0] or "#ffffff"
            parts.append(f'<rect x="{x:.1f}" y="{y + 1:.1f}" width="18" height="12" rx="2" fill="{fill}" '
                         f'stroke="{look[1]}" stroke-width="{min(look[3], 2.5)}"'
                         + (f' stroke-dasharray="{look[2]}"' if look[2] else "") + "/>")
        parts.append(f'<text x="{x + 24:.1f}" y="{y + 11:.1f}" font-size="11" fill="#333333">{_esc(text)}</text>')
        x += item + 14
    return f'<g class="al-legend">{"".join(parts)}</g>', (y + 20 - top) if scene.legend else 0.0


def to_svg(scene: Scene, layout: Layout | None = None, *, static: bool = True) -> str:
    """SVG text of ``scene``. ``layout`` pins the positions (the stepper lays a graph out once); with
    ``static``, the image also carries the reading direction, the messages and the legend, which the
    widget shows as HTML around the drawing instead."""
    layout = layout or layout_scene(scene)
    grown = max((layout.boxes[b][0] + box_size(box)[0] / 2 + 8 for b, box in scene.boxes.items() if b in layout.boxes),
                default=0.0)  # a box the stepper wrote more into than the layout reserved grows about its center
    width = max(layout.width, grown, 420.0 if static else 0.0)
    header = []
    y = 4.0
    if static:
        for line in _wrap("↓ " + direction(), width - 16, 11):
            y += 15
            header.append(f'<text x="8" y="{y:.1f}" font-size="11" fill="#444444">{_esc(line)}</text>')
        for message in scene.messages:
            for line in _wrap(message, width - 16, 11):
                y += 15
                header.append(f'<text x="8" y="{y:.1f}" font-size="11" fill="#b71c1c">{_esc(line)}</text>')
        y += 8
    else:
        y = 0.0
    shift = (width - layout.width) / 2 if static else 0.0
    body = f'<g class="al-body" transform="translate({shift:.1f},{y:.1f})">{_graph_svg(scene, layout)}</g>'
    height = y + layout.height
    legend = ""
    if static and scene.legend:
        legend, legend_height = _legend_svg(scene, width, height)
        height += legend_height
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="al-drawing" data-al-drawing="autograd_lab" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.1f} {height:.1f}" '
            f'font-family="{_esc(FONT)}" font-size="11.5">')
    background = f'<rect class="al-bg" width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>'
    return head + background + f'<g class="al-header">{"".join(header)}</g>' + body + legend + "</svg>"
