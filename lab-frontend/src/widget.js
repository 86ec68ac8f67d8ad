// The lab's widget front end (an anywidget ES module). Python lays the graph out and sends it as SVG;
// this module puts it in the page, fits it to the cell (zoom, pan, Fit and 1:1), restyles it with
// JupyterLab's theme variables, keeps the stepper's current node in view, and sends node clicks and
// stepper buttons back to Python. Text from Python goes in with textContent; the SVG is parsed as XML
// (no scripts run from it) and cleaned of anything active before it is shown. The module has no words of its
// own: every label and title comes from Python's `texts` (autograd_lab.i18n's widget.* messages, in the
// learner's language), and is relabelled when `texts` changes.

const MIN_READABLE = 0.55; // the first view never shrinks text below this scale; Fit may
const MAX_SCALE = 4;

const STYLE = `
.al-lab { --al-bg: var(--jp-layout-color0, #fff); --al-fg: var(--jp-ui-font-color0, #111);
  --al-fg1: var(--jp-ui-font-color1, #222); --al-fg2: var(--jp-ui-font-color2, #555);
  --al-line: var(--jp-border-color1, #bdbdbd); --al-accent: var(--jp-brand-color1, #1976d2);
  --al-error: var(--jp-error-color1, #c62828);
  font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px; color: var(--al-fg1);
  display: flex; flex-direction: column; gap: 6px; max-width: 100%; }
.al-lab button { font: inherit; font-size: 12px; color: var(--al-fg1); background: var(--jp-layout-color2, #eee);
  border: 1px solid var(--al-line); border-radius: 3px; padding: 1px 8px; cursor: pointer; }
.al-lab button:disabled { opacity: 0.45; cursor: default; }
.al-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.al-direction { color: var(--al-fg2); font-size: 12px; flex: 1 1 320px; }
.al-zoom { display: flex; gap: 4px; align-items: center; }
.al-zoom .al-scale { color: var(--al-fg2); font-size: 12px; min-width: 3.2em; text-align: right; }
.al-row { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.al-graph { flex: 0 1 auto; max-width: 100%; overflow: auto; border: 1px solid var(--al-line); border-radius: 4px;
  background: var(--al-bg); box-sizing: border-box; cursor: grab; }
.al-graph.al-panning { cursor: grabbing; user-select: none; }
.al-graph svg { display: block; }
.al-graph g.node { cursor: pointer; }
.al-graph g.node.al-selected > rect { stroke: var(--al-accent); stroke-width: 3px; }
.al-details { flex: 1 1 230px; min-width: 220px; max-width: 460px; border-left: 3px solid var(--al-accent);
  padding: 2px 8px; color: var(--al-fg1); }
.al-details:empty { display: none; }
.al-details .al-close { float: right; padding: 0 6px; }
.al-details h4 { margin: 2px 0 4px 0; font-size: 13px; color: var(--al-fg); }
.al-details table { border-collapse: collapse; font-size: 12px; }
.al-details td:first-child { white-space: nowrap; color: var(--al-fg2); }
.al-details td { padding: 1px 6px 1px 0; vertical-align: top; font-family: var(--jp-code-font-family, ui-monospace, monospace);
  overflow-wrap: anywhere; }
.al-stale { color: var(--al-error); font-weight: 600; }
.al-message { color: var(--al-error); }
.al-controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.al-controls input[type=range] { flex: 1 1 160px; max-width: 320px; }
.al-caption { font-family: var(--jp-code-font-family, ui-monospace, monospace); font-size: 12px; color: var(--al-fg1);
  overflow-wrap: anywhere; }
.al-more { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 12px; color: var(--al-fg2); }
.al-more summary { cursor: pointer; }
.al-more pre { margin: 4px 0; font-size: 12px; color: var(--al-fg1); max-height: 320px; overflow: auto; }
.al-legend-items { display: flex; flex-wrap: wrap; gap: 2px 14px; margin-top: 4px; color: var(--al-fg1); }
.al-swatch { display: inline-block; width: 16px; height: 10px; margin-right: 5px; vertical-align: -1px;
  border: 1px solid var(--al-line); border-radius: 2px; }
.al-error-box { color: var(--al-error); font-family: ui-monospace, monospace; white-space: pre-wrap; }
@supports (color: color-mix(in srgb, red 50%, blue)) {
  .al-lab { --al-op: color-mix(in srgb, #4f8fd1 24%, var(--al-bg)); --al-op-line: color-mix(in srgb, #4f8fd1 75%, var(--al-fg));
    --al-leaf: color-mix(in srgb, #5cae55 24%, var(--al-bg)); --al-leaf-line: color-mix(in srgb, #5cae55 75%, var(--al-fg));
    --al-tensor: color-mix(in srgb, #f2c12e 30%, var(--al-bg)); --al-tensor-line: color-mix(in srgb, #c2a23c 80%, var(--al-fg));
    --al-fold: color-mix(in srgb, #9575cd 22%, var(--al-bg)); --al-fold-line: color-mix(in srgb, #9575cd 80%, var(--al-fg));
    --al-done: color-mix(in srgb, var(--al-fg) 9%, var(--al-bg)); --al-muted: color-mix(in srgb, var(--al-fg) 45%, var(--al-bg));
    --al-green: color-mix(in srgb, #2e7d32 60%, var(--al-fg)); --al-blue: color-mix(in srgb, #1e6ad6 70%, var(--al-fg));
    --al-purple: color-mix(in srgb, #8e24aa 65%, var(--al-fg)); --al-red: color-mix(in srgb, #e53935 80%, var(--al-fg));
    --al-orange: color-mix(in srgb, #f57c00 85%, var(--al-fg)); --al-olive: color-mix(in srgb, #a08a2e 75%, var(--al-fg)); }
  .al-graph svg .al-bg { fill: var(--al-bg); }
  .al-graph svg .al-op > rect, .al-sw-op { fill: var(--al-op); background: var(--al-op); stroke: var(--al-op-line); border-color: var(--al-op-line); }
  .al-graph svg .al-leaf > rect, .al-sw-leaf { fill: var(--al-leaf); background: var(--al-leaf); stroke: var(--al-leaf-line); border-color: var(--al-leaf-line); }
  .al-graph svg .al-tensor > rect, .al-sw-tensor { fill: var(--al-tensor); background: var(--al-tensor); stroke: var(--al-tensor-line); border-color: var(--al-tensor-line); border-radius: 5px; }
  .al-graph svg .al-fold > rect, .al-sw-fold { fill: var(--al-fold); background: var(--al-fold); stroke: var(--al-fold-line); border-color: var(--al-fold-line); }
  .al-graph svg .al-done > rect, .al-graph svg .al-freed > rect, .al-graph svg .al-off > rect, .al-sw-done, .al-sw-freed, .al-sw-off {
    fill: var(--al-done); background: var(--al-done); stroke: var(--al-muted); border-color: var(--al-muted); }
  .al-sw-freed { border-style: dashed; } .al-sw-off { border-style: dotted; }
  .al-graph svg .al-stale > rect { stroke: var(--al-red); }
  .al-graph svg .al-current > rect, .al-sw-current { stroke: var(--al-orange); border: 3px solid var(--al-orange); }
  .al-graph svg text { fill: var(--al-fg1); }
  .al-graph svg text.al-title { fill: var(--al-fg); }
  .al-graph svg text.al-kind, .al-graph svg text.al-grad { fill: var(--al-green); }
  .al-graph svg text.al-step { fill: var(--al-blue); }
  .al-graph svg text.al-hook { fill: var(--al-purple); }
  .al-graph svg text.al-meta { fill: var(--al-fg2); }
  .al-graph svg text.al-freed { fill: var(--al-muted); }
  .al-graph svg text.al-stale, .al-sw-stale { fill: var(--al-red); color: var(--al-red); }
  .al-graph svg .al-edge path { stroke: var(--al-fg2); } .al-graph svg .al-edge polygon { fill: var(--al-fg2); }
  .al-graph svg .al-grad_fn path { stroke: var(--al-olive); } .al-graph svg .al-grad_fn polygon { fill: var(--al-olive); }
  .al-graph svg .al-const path { stroke: var(--al-muted); } .al-graph svg .al-const polygon { fill: var(--al-muted); }
  .al-graph svg .al-view path { stroke: var(--al-purple); } .al-graph svg .al-view polygon { fill: var(--al-purple); }
  .al-graph svg .al-step path { stroke: var(--al-blue); } .al-graph svg .al-step polygon { fill: var(--al-blue); }
  .al-graph svg text.al-label { fill: var(--al-fg1); stroke: var(--al-bg); }
  .al-graph svg text.al-step-label { fill: var(--al-blue); font-weight: bold; }
  .al-graph svg text.al-view { fill: var(--al-purple); }
  .al-graph svg .al-cluster rect { fill: color-mix(in srgb, #9575cd 10%, var(--al-bg)); stroke: var(--al-fold-line); }
  .al-graph svg .al-cluster text { fill: var(--al-purple); }
  .al-sw-view { border: none; border-top: 2px dashed var(--al-purple); height: 0; }
  .al-sw-const { border: none; border-top: 2px dotted var(--al-muted); height: 0; }
}
`;

const THEMED = typeof CSS !== "undefined" && CSS.supports("color", "color-mix(in srgb, red 50%, blue)");
const LEGEND_FALLBACK = { op: "#dbe9f6", leaf: "#dcefd9", tensor: "#fff2bf", fold: "#ece6f6", done: "#e6e6e6",
  freed: "#eeeeee", off: "#f4f4f4" };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The SVG from Python, parsed as XML and stripped of anything that could run.
function parseSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName !== "svg" || doc.querySelector("parsererror")) throw new Error("not an SVG drawing");
  for (const bad of svg.querySelectorAll("script, foreignObject, iframe, a")) bad.remove();
  for (const node of [svg, ...svg.querySelectorAll("*")]) {
    for (const attr of [...node.attributes]) {
      if (/^on/i.test(attr.name) || /href$/i.test(attr.name)) node.removeAttribute(attr.name);
    }
  }
  return document.importNode(svg, true);
}

// The widget's words: text(key) reads Python's `texts`; label() remembers an element and what it says, so
// that relabel() can say it again in another language.
function makeTexts(model) {
  const labelled = [];
  const text = (key) => String((model.get("texts") || {})[key] ?? "");
  function label(node, key, attribute = "textContent") {
    labelled.push([node, key, attribute]);
    if (attribute === "textContent") node.textContent = text(key);
    else node.setAttribute(attribute, text(key));
    return node;
  }
  function relabel() {
    for (const [node, key, attribute] of labelled) {
      if (attribute === "textContent") node.textContent = text(key);
      else node.setAttribute(attribute, text(key));
    }
  }
  return { text, label, relabel };
}

function renderDetails(box, details, onClose, texts) {
  box.replaceChildren();
  if (!details || !details.title) return;
  const close = element("button", "al-close", "×");
  close.title = texts.text("close");
  close.addEventListener("click", onClose);
  box.append(close, element("h4", "", details.title));
  for (const section of details.sections || []) {
    if (section.title) box.appendChild(element("div", section.stale ? "al-stale" : "", section.title));
    const table = element("table");
    for (const [key, value] of section.rows || []) {
      const tr = element("tr");
      tr.appendChild(element("td", "", String(key)));
      tr.appendChild(element("td", section.stale ? "al-stale" : "", String(value)));
      table.appendChild(tr);
    }
    box.appendChild(table);
  }
}

function renderLegend(box, legend) {
  box.replaceChildren();
  for (const [key, text] of legend || []) {
    const item = element("span", "al-legend-item");
    const swatch = element("span", `al-swatch al-sw-${key}`, key === "stale" ? "⚠" : "");
    if (key === "stale") Object.assign(swatch.style, { border: "none", width: "auto", height: "auto" });
    else if (LEGEND_FALLBACK[key] && !THEMED) swatch.style.background = LEGEND_FALLBACK[key];
    item.append(swatch, document.createTextNode(text));
    box.appendChild(item);
  }
}

function makeStepper(model, controls, texts) {
  const buttons = {};
  let timer = null;
  for (const action of ["reset", "back", "play", "next"]) {
    const button = element("button", `al-${action}`);
    if (action !== "play") texts.label(button, action); // Play's label follows the timer: playLabel()
    button.addEventListener("click", () => onButton(action));
    buttons[action] = button;
    controls.appendChild(button);
  }
  const slider = element("input", "al-slider");
  slider.type = "range";
  slider.min = "0";
  texts.label(slider, "slider", "aria-label");
  controls.appendChild(slider);
  playLabel();

  function playLabel() {
    buttons.play.textContent = texts.text(timer === null ? "play" : "pause");
  }
  slider.addEventListener("change", () => model.send({ action: "seek", index: Number(slider.value) }));

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playLabel();
  }
  function onButton(action) {
    if (action === "play") {
      if (timer !== null) return stop();
      timer = setInterval(() => {
        const state = model.get("stepper") || {};
        if (state.index >= state.total) return stop();
        model.send({ action: "next" });
      }, Number((model.get("stepper") || {}).interval_ms || 700));
      playLabel();
      return;
    }
    if (action === "reset") stop();
    model.send({ action });
  }
  function update(state) {
    slider.max = String(state.total || 0);
    slider.value = String(state.index || 0);
    buttons.next.disabled = !state.enabled || state.index >= state.total;
    buttons.back.disabled = !state.enabled || state.index <= 0;
    if (state.index >= state.total) stop();
  }
  return { update, stop, playLabel };
}

// Zoom and pan of the drawing inside its box.
function makeViewport(graph, root) {
  const view = { svg: null, width: 0, height: 0, scale: 1, userScaled: false };

  function heightCap() {
    return Math.max(260, Math.min(window.innerHeight * 0.75, 900));
  }
  function fitScale() {
    const available = Math.max(120, root.clientWidth - 4);
    return Math.min(1, available / view.width, heightCap() / view.height);
  }
  function apply() {
    if (!view.svg) return;
    view.svg.setAttribute("width", String(Math.round(view.width * view.scale)));
    view.svg.setAttribute("height", String(Math.round(view.height * view.scale)));
    graph.style.maxHeight = `${Math.round(heightCap())}px`;
    root.dataset.scale = view.scale.toFixed(3);
    if (view.onScale) view.onScale(view.scale);
  }
  function setScale(scale, user) {
    const old = view.scale;
    view.scale = Math.min(MAX_SCALE, Math.max(0.05, scale));
    view.userScaled = user;
    const cx = graph.scrollLeft + graph.clientWidth / 2;
    const cy = graph.scrollTop + graph.clientHeight / 2;
    apply();
    graph.scrollLeft = (cx * view.scale) / old - graph.clientWidth / 2;
    graph.scrollTop = (cy * view.scale) / old - graph.clientHeight / 2;
  }
  function show(svg) {
    const box = svg.viewBox.baseVal;
    // the same graph again (a step of the stepper, a redraw): keep the scale and the scroll position
    const sameSize = view.svg && Math.abs(box.width - view.width) < 40 && Math.abs(box.height - view.height) < 0.5;
    view.width = box.width;
    view.height = box.height;
    const left = graph.scrollLeft;
    const top = graph.scrollTop;
    graph.replaceChildren(svg);
    view.svg = svg;
    if (!(sameSize || view.userScaled)) view.scale = Math.max(fitScale(), Math.min(1, MIN_READABLE));
    apply();
    if (sameSize) { graph.scrollLeft = left; graph.scrollTop = top; }
  }
  function refit() {
    if (view.svg && !view.userScaled) { view.scale = Math.max(fitScale(), Math.min(1, MIN_READABLE)); apply(); }
  }

  let drag = null;
  graph.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.target.closest("g.node")) return;
    drag = { x: event.clientX, y: event.clientY, left: graph.scrollLeft, top: graph.scrollTop };
    graph.classList.add("al-panning");
    graph.setPointerCapture(event.pointerId);
  });
  graph.addEventListener("pointermove", (event) => {
    if (drag === null) return;
    graph.scrollLeft = drag.left - (event.clientX - drag.x);
    graph.scrollTop = drag.top - (event.clientY - drag.y);
  });
  const endDrag = () => { drag = null; graph.classList.remove("al-panning"); };
  graph.addEventListener("pointerup", endDrag);
  graph.addEventListener("pointercancel", endDrag);
  graph.addEventListener("wheel", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return; // a plain wheel scrolls the notebook
    event.preventDefault();
    setScale(view.scale * (event.deltaY < 0 ? 1.15 : 1 / 1.15), true);
  }, { passive: false });

  return { view, show, refit, setScale, fitScale };
}

function contains(outer, inner) {
  return inner.left >= outer.left && inner.right <= outer.right && inner.top >= outer.top && inner.bottom <= outer.bottom;
}

// The part of the window the notebook shows (inside its scrolling panel, below its toolbar).
function visibleArea(el) {
  let area = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
  for (let node = el.parentElement; node; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (/(auto|scroll)/.test(style.overflowY + style.overflowX)) {
      const r = node.getBoundingClientRect();
      area = { left: Math.max(area.left, r.left), top: Math.max(area.top, r.top),
               right: Math.min(area.right, r.right), bottom: Math.min(area.bottom, r.bottom) };
    }
  }
  return area;
}

// Scroll the drawing's box (only it) so that the node is in it, centered if it was not.
function scrollBoxTo(graph, node) {
  const box = graph.getBoundingClientRect();
  const rect = node.getBoundingClientRect();
  if (contains(box, rect)) return;
  graph.scrollLeft += rect.left + rect.width / 2 - (box.left + box.width / 2);
  graph.scrollTop += rect.top + rect.height / 2 - (box.top + box.height / 2);
}

// Scroll the drawing's box, then the notebook, so that the node is in sight: the whole widget where it
// fits (the stepper's buttons stay in view), the node itself otherwise.
function keepInView(graph, node, root) {
  scrollBoxTo(graph, node);
  const area = visibleArea(root);
  if (contains(area, node.getBoundingClientRect())) return;
  const whole = root.getBoundingClientRect();
  if (whole.height <= area.bottom - area.top) root.scrollIntoView({ block: "nearest" });
  else node.scrollIntoView({ block: "center", inline: "nearest" });
}

function render({ model, el }) {
  const root = element("div", "al-lab");
  const style = element("style");
  style.textContent = STYLE;
  const messages = element("div", "al-messages");
  const controls = element("div", "al-controls");
  const caption = element("div", "al-caption");
  const bar = element("div", "al-bar");
  const direction = element("div", "al-direction");
  const zoom = element("div", "al-zoom");
  const row = element("div", "al-row");
  const graph = element("div", "al-graph");
  const details = element("div", "al-details");
  const more = element("div", "al-more");
  const legendBox = element("details", "al-legend");
  const legendItems = element("div", "al-legend-items");
  const outlineBox = element("details", "al-outline");
  const outlineText = element("pre");
  const texts = makeTexts(model);
  legendBox.append(texts.label(element("summary"), "legend"), legendItems);
  outlineBox.append(texts.label(element("summary"), "outline"), outlineText);
  more.append(legendBox, outlineBox);
  bar.append(direction, zoom);
  row.append(graph, details);
  root.append(style, messages, controls, caption, bar, row, more);
  el.appendChild(root);

  const viewport = makeViewport(graph, root);
  const scaleText = element("span", "al-scale");
  const SIGNS = ["−", "+"]; // the same in every language
  for (const [cls, label, title, act] of [
    ["al-fit", "fit", "fit_title", () => viewport.setScale(viewport.fitScale(), true)],
    ["al-actual", "actual", "actual_title", () => viewport.setScale(1, true)],
    ["al-out", "−", "zoom_out_title", () => viewport.setScale(viewport.view.scale / 1.25, true)],
    ["al-in", "+", "zoom_in_title", () => viewport.setScale(viewport.view.scale * 1.25, true)],
  ]) {
    const button = element("button", cls);
    if (SIGNS.includes(label)) button.textContent = label;
    else texts.label(button, label);
    texts.label(button, title, "title");
    button.addEventListener("click", act);
    zoom.appendChild(button);
  }
  zoom.appendChild(scaleText);
  viewport.view.onScale = (scale) => { scaleText.textContent = `${Math.round(scale * 100)}%`; };
  const stepper = makeStepper(model, controls, texts);
  let renderId = 0;

  function closeDetails() {
    model.set("selected", "");
    model.save_changes();
    details.replaceChildren();
    markSelected();
  }
  function markSelected() {
    const selected = model.get("selected");
    for (const g of graph.querySelectorAll("g.node")) g.classList.toggle("al-selected", g.dataset.id === selected);
  }
  function followCurrent() {
    const current = graph.querySelector("g.al-current");
    if (current && (model.get("stepper") || {}).enabled) keepInView(graph, current, root);
  }
  function updateGraph() {
    const mine = ++renderId;
    let svg;
    try {
      svg = parseSvg(model.get("svg") || '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
    } catch (error) {
      graph.replaceChildren(element("div", "al-error-box", texts.text("cannot_show") + error));
      return;
    }
    if (mine !== renderId) return;
    for (const g of svg.querySelectorAll("g.node")) {
      g.addEventListener("click", () => {
        model.set("selected", g.dataset.id);
        model.save_changes();
        markSelected();
      });
    }
    const first = !graph.querySelector("svg");
    viewport.show(svg);
    if (first) { // a big drawing opens on its output (the top box), wherever it sits across the width
      const output = svg.querySelector("g.al-tensor") || svg.querySelector("g.node");
      if (output) scrollBoxTo(graph, output);
    }
    root.dataset.renders = String(Number(root.dataset.renders || 0) + 1);
    markSelected();
    followCurrent();
  }
  function updateStepper() {
    const state = model.get("stepper") || {};
    controls.style.display = state.enabled ? "flex" : "none";
    caption.style.display = state.enabled ? "block" : "none";
    caption.textContent = state.enabled ? state.caption || "" : "";
    stepper.update(state);
  }
  function updateMessages() {
    messages.replaceChildren();
    for (const text of model.get("warnings") || []) messages.appendChild(element("div", "al-stale", "⚠ " + text));
    for (const text of model.get("messages") || []) messages.appendChild(element("div", "al-message", text));
  }
  function updateText() {
    direction.textContent = "↓ " + (model.get("direction") || "");
    renderLegend(legendItems, model.get("legend"));
    outlineText.textContent = model.get("outline") || "";
    outlineBox.style.display = model.get("outline") ? "" : "none";
  }

  model.on("change:svg", updateGraph);
  model.on("change:details", () => {
    renderDetails(details, model.get("details"), closeDetails, texts);
    requestAnimationFrame(() => { // below a wide graph, bring the details into sight
      if (details.firstChild && !contains(visibleArea(root), details.getBoundingClientRect())) {
        details.scrollIntoView({ block: "nearest" });
      }
    });
  });
  model.on("change:stepper", updateStepper);
  model.on("change:warnings", updateMessages);
  model.on("change:messages", updateMessages);
  model.on("change:selected", markSelected);
  model.on("change:legend", updateText);
  model.on("change:outline", updateText);
  model.on("change:direction", updateText);
  model.on("change:texts", () => { texts.relabel(); stepper.playLabel(); });
  updateStepper();
  updateMessages();
  updateText();
  renderDetails(details, model.get("details"), closeDetails, texts);
  const resize = new ResizeObserver(() => viewport.refit());
  resize.observe(root);
  requestAnimationFrame(updateGraph); // after the first layout, so that the cell's width is known
  return () => { stepper.stop(); resize.disconnect(); };
}

export default { render };
