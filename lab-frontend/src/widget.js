// The lab's widget front end (an anywidget ES module). Python sends DOT text; this module renders it
// with a WebAssembly build of Graphviz (@viz-js/viz, bundled, so no `dot` executable, no network) and
// sends node clicks and stepper buttons back to Python. Every piece of text from Python is put in the
// page with textContent, never as HTML: user names are shown as text whatever they contain.
import { instance } from "@viz-js/viz";

let vizPromise = null;
function getViz() {
  if (vizPromise === null) vizPromise = instance();
  return vizPromise;
}

const STYLE = `
.al-lab { font-family: system-ui, sans-serif; font-size: 13px; display: flex; flex-direction: column; gap: 6px; }
.al-row { display: flex; gap: 10px; align-items: flex-start; }
.al-graph { overflow: auto; max-height: 640px; max-width: 100%; border: 1px solid #ddd; border-radius: 4px; padding: 4px; background: #fff; }
.al-graph g.node { cursor: pointer; }
.al-graph svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; }
.al-graph g.node.al-selected polygon, .al-graph g.node.al-selected path { stroke: #1565c0; stroke-width: 3px; }
.al-details { min-width: 220px; max-width: 380px; border-left: 3px solid #1565c0; padding: 2px 8px; white-space: pre-wrap; }
.al-details:empty { display: none; }
.al-details h4 { margin: 2px 0 4px 0; font-size: 13px; }
.al-details table { border-collapse: collapse; font-size: 12px; }
.al-details td { padding: 1px 6px 1px 0; vertical-align: top; font-family: ui-monospace, monospace; }
.al-stale { color: #c62828; font-weight: 600; }
.al-message { color: #b71c1c; }
.al-controls { display: flex; gap: 6px; align-items: center; }
.al-controls input[type=range] { flex: 1; max-width: 320px; }
.al-caption { font-family: ui-monospace, monospace; font-size: 12px; color: #333; }
.al-error { color: #b71c1c; font-family: ui-monospace, monospace; white-space: pre-wrap; }
`;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderDetails(box, details) {
  box.replaceChildren();
  if (!details || !details.title) return;
  box.appendChild(element("h4", "", details.title));
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

function render({ model, el }) {
  const root = element("div", "al-lab");
  const style = element("style");
  style.textContent = STYLE;
  const messages = element("div", "al-messages");
  const controls = element("div", "al-controls");
  const row = element("div", "al-row");
  const graph = element("div", "al-graph");
  const details = element("div", "al-details");
  const caption = element("div", "al-caption");
  row.append(graph, details);
  root.append(style, messages, controls, caption, row);
  el.appendChild(root);

  let timer = null;
  let renderId = 0;
  const buttons = {};
  for (const [action, label] of [["reset", "Reset"], ["back", "◀ Back"], ["play", "▶ Play"], ["next", "Next ▶"]]) {
    const button = element("button", `al-${action}`, label);
    button.addEventListener("click", () => onButton(action));
    buttons[action] = button;
    controls.appendChild(button);
  }
  const slider = element("input", "al-slider");
  slider.type = "range";
  slider.min = "0";
  slider.addEventListener("change", () => model.send({ action: "seek", index: Number(slider.value) }));
  controls.appendChild(slider);

  function stopPlaying() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    buttons.play.textContent = "▶ Play";
  }

  function onButton(action) {
    if (action === "play") {
      if (timer !== null) return stopPlaying();
      buttons.play.textContent = "⏸ Pause";
      timer = setInterval(() => {
        const state = model.get("stepper") || {};
        if (state.index >= state.total) return stopPlaying();
        model.send({ action: "next" });
      }, Number((model.get("stepper") || {}).interval_ms || 700));
      return;
    }
    if (action === "reset") stopPlaying();
    model.send({ action });
  }

  function updateStepper() {
    const state = model.get("stepper") || {};
    controls.style.display = state.enabled ? "flex" : "none";
    caption.textContent = state.enabled ? state.caption || "" : "";
    slider.max = String(state.total || 0);
    slider.value = String(state.index || 0);
    buttons.next.disabled = !state.enabled || state.index >= state.total;
    buttons.back.disabled = !state.enabled || state.index <= 0;
    if (state.index >= state.total) stopPlaying();
  }

  function updateMessages() {
    messages.replaceChildren();
    for (const text of model.get("warnings") || []) messages.appendChild(element("div", "al-stale", "⚠ " + text));
    for (const text of model.get("messages") || []) messages.appendChild(element("div", "al-message", text));
  }

  function markSelected() {
    const selected = model.get("selected");
    for (const g of graph.querySelectorAll("g.node")) g.classList.toggle("al-selected", g.id === selected);
  }

  async function updateGraph() {
    const mine = ++renderId;
    const dot = model.get("dot");
    let svg;
    try {
      svg = (await getViz()).renderSVGElement(dot);
    } catch (error) {
      if (mine === renderId) graph.replaceChildren(element("div", "al-error", "Graphviz could not draw this graph: " + error));
      return;
    }
    if (mine !== renderId) return; // a newer graph arrived while this one was being laid out
    for (const g of svg.querySelectorAll("g.node")) {
      g.addEventListener("click", () => {
        model.set("selected", g.id);
        model.save_changes();
        markSelected();
      });
    }
    graph.replaceChildren(svg);
    root.dataset.renders = String(Number(root.dataset.renders || 0) + 1);
    markSelected();
  }

  model.on("change:dot", updateGraph);
  model.on("change:details", () => renderDetails(details, model.get("details")));
  model.on("change:stepper", updateStepper);
  model.on("change:warnings", updateMessages);
  model.on("change:messages", updateMessages);
  model.on("change:selected", markSelected);
  updateStepper();
  updateMessages();
  renderDetails(details, model.get("details"));
  updateGraph();
  return () => stopPlaying();
}

export default { render };
