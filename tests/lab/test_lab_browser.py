"""The lab in a real browser: JupyterLab on 127.0.0.1, Debian's chromium driven headless by Playwright.

Runs ``tests/lab/notebooks/lab_browser.ipynb`` through the UI (Run -> Run All Cells), then checks what a
learner sees: the drawings have the expected nodes and edges, read from the output at the top, fit the
cell and the window, and name a module's parameters; each Next in the stepper keeps the current node in
view and every node in place; a node's details open without squeezing the graph; a new cell doing an
in-place op makes the watched graph flag the stale saved tensor in red; and in the dark theme the text
stays readable. A stored course notebook, opened before anything runs, shows its drawings. After
``al.course.set_language("zh")`` the widget's buttons, legend, caption and details speak Chinese. Screenshots
are saved in ``test-artifacts/lab-browser/`` for people to look at.
"""

from __future__ import annotations

import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "tests" / "lab" / "notebooks" / "lab_browser.ipynb"
STORED = ROOT / "notebooks" / "03_how_history_is_encoded.ipynb"  # a course notebook with stored drawings
SCREENSHOTS = ROOT / "test-artifacts" / "lab-browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def jupyter(tmp_path):
    """JupyterLab with its own config/data/runtime/settings dirs, serving a copy of the test notebook."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (CI installs it: apt-get install chromium)")
    pytest.importorskip("jupyterlab")
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    shutil.copy(STORED, root / STORED.name)
    env = dict(os.environ)
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("JUPYTERLAB_SETTINGS_DIR", "settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
                     ("IPYTHONDIR", "ipython")]:
        env[var] = str(tmp_path / sub)
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = _free_port(), secrets.token_hex(16)
    log = open(tmp_path / "jupyter.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.allow_root=True",
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("JupyterLab did not start:\n" + (tmp_path / "jupyter.log").read_text()[-3000:])
            time.sleep(0.3)
        yield lambda name: f"{base}/lab/tree/{name}?token={token}&reset"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# -- what the page shows, measured in the browser ---------------------------------------------------------
CONTRAST = """el => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let back = el, bg = null;
  while (back) { const c = getComputedStyle(back).backgroundColor; const v = rgb(c);
                 if (v.length === 3 || (v.length === 4 && v[3] > 0.5)) { bg = v.slice(0, 3); break; } back = back.parentElement; }
  const fg = rgb(getComputedStyle(el).color).slice(0, 3);
  const [a, b] = [lum(fg), lum(bg || [255, 255, 255])].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""
SVG_TEXT_CONTRAST = """g => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number).slice(0, 3);
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const fg = lum(rgb(getComputedStyle(g.querySelector('text.al-title')).fill));
  const bg = lum(rgb(getComputedStyle(g.querySelector('rect')).fill));
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
}"""


def _rect(locator) -> dict:
    return locator.evaluate("e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, "
                            "right: r.right, bottom: r.bottom, width: r.width, height: r.height}; }")


def _inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (inner["left"] >= outer["left"] - slack and inner["right"] <= outer["right"] + slack
            and inner["top"] >= outer["top"] - slack and inner["bottom"] <= outer["bottom"] + slack)


def _positions(lab) -> dict:
    """Each box's place in the drawing's own coordinates (its rect's x and y)."""
    return lab.locator("svg g.al-box").evaluate_all(
        "gs => Object.fromEntries(gs.map(g => [g.dataset.id, [g.querySelector('rect').getAttribute('x'), "
        "g.querySelector('rect').getAttribute('y')]]))")


def _open(page, url: str, errors: list) -> None:
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible()


def _launch(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def test_stored_notebook_shows_its_drawings_before_it_runs(jupyter):
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=60_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            _open(page, jupyter(STORED.name), errors)
            images = page.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]')
            sync_api.expect(images.first).to_be_visible()
            assert images.count() >= 4, "each al.lab.draw(...) output should show its stored drawing"
            images.first.scroll_into_view_if_needed()
            assert images.first.evaluate("img => img.complete && img.naturalWidth > 100")
            assert page.locator(".jp-OutputArea-output summary", has_text="The same graph as text").count() >= 4
            page.screenshot(path=str(SCREENSHOTS / "0-stored-notebook-before-running.png"))
            sync_api.expect(page.get_by_text("Error displaying widget")).to_have_count(0)
        finally:
            browser.close()
    assert errors == [], f"errors in the page: {errors}"


def _check_drawing(page, drawing) -> None:
    """The small graph: 7 boxes, 6 edges, the output at the top, one reading direction said in words."""
    expect = pytest.importorskip("playwright.sync_api").expect
    expect(drawing.locator("svg g.node")).to_have_count(7)  # loss, y, Sum, Exp, Mul, AccumulateGrad of x and w
    expect(drawing.locator("svg g.edge")).to_have_count(6)
    expect(drawing.locator(".al-direction")).to_contain_text("each arrow is an edge of next_functions")
    loss_box = _rect(drawing.locator("svg g.node", has_text="loss"))
    x_box = _rect(drawing.locator("svg g.node", has=page.locator("text.al-title", has_text="x")).last)
    assert loss_box["bottom"] < x_box["top"], "the output is drawn above the leaves"
    graph = _rect(drawing.locator(".al-graph"))
    assert graph["height"] < 600 and graph["width"] <= _rect(drawing)["width"] + 1
    drawing.locator(".al-legend summary").click()  # the legend is collapsed until asked for
    expect(drawing.locator(".al-legend-items")).to_contain_text("AccumulateGrad: adds into a leaf's .grad")
    drawing.locator(".al-outline summary").click()
    expect(drawing.locator(".al-outline pre")).to_contain_text("└─ SumBackward0")


def _check_mlp(page, mlp) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    for name in ("mlp.fc1.weight", "mlp.fc1.bias", "mlp.fc2.weight", "mlp.fc2.bias", "mlp_loss"):
        expect(mlp.locator("svg text.al-title", has_text=name).first).to_be_visible()
    expect(mlp.locator("svg text", has_text="module: fc1 (Linear)").first).to_be_attached()
    viewport = page.viewport_size
    graph = _rect(mlp.locator(".al-graph"))
    assert graph["height"] <= 0.8 * viewport["height"], f"the MLP's graph is {graph['height']} px tall"
    assert _inside(_rect(mlp.locator("svg g.node", has_text="mlp_loss")), graph), "the output is in view"
    widths = mlp.locator("svg g.al-box > rect").evaluate_all("rs => rs.map(r => Number(r.getAttribute('width')))")
    assert max(widths) < 420, f"a box is {max(widths)} px wide: values inside boxes should be abbreviated"


def _step_through(page, stepper) -> None:
    """Every Next: the current node is inside the graph's box and the window, and no box moves."""
    expect = pytest.importorskip("playwright.sync_api").expect
    total = int(stepper.locator(".al-slider").get_attribute("max"))
    assert total >= 10
    start = _positions(stepper)
    for step in range(1, total + 1):
        stepper.locator("button.al-next").click()
        expect(stepper.locator(".al-caption")).to_contain_text(f"step {step}/{total}:")
        current = stepper.locator("svg g.al-current")
        expect(current).to_have_count(1)
        page.wait_for_timeout(50)
        node = _rect(current)
        assert _inside(node, _rect(stepper.locator(".al-graph")), 2), f"step {step}: current node outside the graph box"
        assert _inside(node, _rect(page.locator(".jp-WindowedPanel-outer")), 2), f"step {step}: node out of view"
        assert _inside(_rect(stepper.locator("button.al-next")), _rect(page.locator(".jp-WindowedPanel-outer")))
        assert _positions(stepper) == start, f"step {step}: boxes moved"
        if current.locator("text.al-kind").count():  # AccumulateGrad: one .grad row, the one being written
            texts = current.locator("text").all_text_contents()
            assert any(t.startswith(".grad ←") for t in texts) and not any(t == ".grad = None" for t in texts), texts
        if step in (1, total // 2, total):
            page.screenshot(path=str(SCREENSHOTS / f"2-stepper-step-{step}.png"))
    expect(stepper.locator(".al-caption")).to_contain_text("AccumulateGrad into fc1.weight")
    expect(stepper.locator(".al-caption")).to_contain_text("backward complete")


def _check_details(page, mlp) -> None:
    """A click opens the node's details beside or below the graph; the graph keeps its size."""
    expect = pytest.importorskip("playwright.sync_api").expect
    mlp.scroll_into_view_if_needed()
    before = _rect(mlp.locator(".al-graph"))
    mlp.locator("svg g.node", has_text="PowBackward0").click()
    details = mlp.locator(".al-details")
    expect(details).to_contain_text("PowBackward0")
    expect(details).to_contain_text("_saved_self")
    expect(details).to_contain_text("version at save")
    after, box = _rect(mlp.locator(".al-graph")), _rect(details)
    assert abs(after["width"] - before["width"]) < 1 and abs(after["height"] - before["height"]) < 1
    assert box["left"] >= after["right"] - 1 or box["top"] >= after["bottom"] - 1, "details cover the graph"
    page.screenshot(path=str(SCREENSHOTS / "3-node-details.png"))
    mlp.locator(".al-details button.al-close").click()
    expect(details).to_be_empty()


def _check_zoom(mlp) -> None:
    scale = float(mlp.get_attribute("data-scale"))
    mlp.locator("button.al-in").click()
    zoomed = float(mlp.get_attribute("data-scale"))
    assert zoomed > scale
    mlp.locator("button.al-fit").click()
    graph = _rect(mlp.locator(".al-graph"))
    svg = _rect(mlp.locator(".al-graph svg"))
    assert svg["width"] <= graph["width"] + 1 and svg["height"] <= graph["height"] + 1, "Fit shows the whole graph"


def _check_stale(page, watched) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    expect(watched.locator(".al-stale")).to_have_count(0)
    page.locator(".jp-Notebook .jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # insert a cell below, in command mode
    page.keyboard.press("Enter")
    page.keyboard.type("y.mul_(2)")
    page.keyboard.press("Shift+Enter")
    stale = watched.locator(".al-messages .al-stale")
    expect(stale).to_have_count(1)
    expect(stale).to_contain_text("the next backward through ExpBackward0 will raise")
    expect(watched.locator("svg text.al-stale", has_text="STALE")).to_have_count(1)
    expect(watched.locator("svg text.al-title", has_text="y").first).to_be_visible()  # %watch y names its tensor
    watched.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "4-stale.png"))


def _check_dark(page, stepper, watched) -> None:
    """JupyterLab's dark theme: the caption and the boxes' text stay readable (WCAG AA contrast)."""
    expect = pytest.importorskip("playwright.sync_api").expect
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    expect(page.locator('body[data-jp-theme-light="false"]')).to_have_count(1)
    page.wait_for_timeout(500)
    stepper.scroll_into_view_if_needed()
    caption = stepper.locator(".al-caption")
    assert caption.evaluate(CONTRAST) >= 4.5, "the stepper's caption is hard to read in the dark theme"
    assert stepper.locator(".al-direction").evaluate(CONTRAST) >= 4.5
    for box in stepper.locator("svg g.al-box:not(.al-stub)").all()[:8]:
        assert box.evaluate(SVG_TEXT_CONTRAST) >= 4.5, "a box's title is hard to read in the dark theme"
    page.screenshot(path=str(SCREENSHOTS / "5-dark-stepper.png"))
    watched.scroll_into_view_if_needed()
    assert watched.locator(".al-messages .al-stale").evaluate(CONTRAST) >= 4.5
    page.screenshot(path=str(SCREENSHOTS / "6-dark-stale.png"))


def test_lab_widgets_in_jupyterlab(jupyter):
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    expect.set_options(timeout=60_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            _open(page, jupyter(NOTEBOOK.name), errors)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_text("Run All Cells", exact=True).click()
            labs = page.locator(".al-lab")
            expect(labs).to_have_count(4)  # draw, the MLP's draw, the stepper, %watch
            drawing, mlp, stepper, watched = labs.nth(0), labs.nth(1), labs.nth(2), labs.nth(3)
            expect(mlp.locator("svg g.node").first).to_be_visible()
            _check_drawing(page, drawing)
            drawing.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "1-run-all.png"))
            _check_mlp(page, mlp)
            mlp.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "1-mlp.png"))
            _step_through(page, stepper)
            _check_details(page, mlp)
            _check_zoom(mlp)
            _check_stale(page, watched)
            _check_dark(page, stepper, watched)
            assert "AttributeError" not in page.locator(".jp-Notebook").inner_text()
            expect(page.get_by_text("Error displaying widget")).to_have_count(0)
        finally:
            page.screenshot(path=str(SCREENSHOTS / "last.png"), full_page=True)
            browser.close()
    assert errors == [], f"errors in the page: {errors}"


def test_the_widget_speaks_chinese_after_set_language(jupyter, tmp_path):
    """A Chinese notebook's first cell switches the language: the buttons, the legend, the caption and the drawing
    speak Chinese (their words come from Python's catalogue), and the Chinese text fits its boxes."""
    nbformat = pytest.importorskip("nbformat")
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    expect.set_options(timeout=60_000)
    cells = ['import autograd_lab as al\nal.course.set_language("zh")',
             "x = al.tensor([1.0, 2.0], requires_grad=True)\nloss = (x.exp() * 3).sum()\nal.lab.draw(loss)",
             "al.lab.step_backward(loss)"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells],
                                        metadata=nbformat.read(NOTEBOOK, as_version=4).metadata)  # its kernel
    nbformat.write(notebook, tmp_path / "root" / "zh_lab.ipynb")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = _launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            _open(page, jupyter("zh_lab.ipynb"), errors)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_text("Run All Cells", exact=True).click()
            labs = page.locator(".al-lab")
            expect(labs).to_have_count(2)
            drawing, stepper = labs.nth(0), labs.nth(1)
            expect(drawing.locator(".al-direction")).to_contain_text("从顶部的输出往下读到叶子节点")
            expect(drawing.locator(".al-legend summary")).to_have_text("图例")
            expect(drawing.locator(".al-outline summary")).to_have_text("同一个图的文字版")
            expect(drawing.locator("button.al-fit")).to_have_text("适应")
            assert drawing.locator("button.al-fit").get_attribute("title") == "显示整个图"
            expect(stepper.locator("button.al-next")).to_have_text("下一步 ▶")
            expect(stepper.locator("button.al-play")).to_have_text("▶ 播放")
            expect(stepper.locator(".al-caption")).to_have_text("反向传播之前：共有 4 个节点要运行。请按“下一步”。")
            stepper.locator("button.al-next").click()
            expect(stepper.locator(".al-caption")).to_contain_text("第 1/4 步：SumBackward0")
            stepper.locator("svg g.node", has_text="SumBackward0").click()
            expect(stepper.locator(".al-details")).to_contain_text("传入梯度")
            assert stepper.locator(".al-details button.al-close").get_attribute("title") == "关闭详情"
            overflowing = stepper.locator("svg g.al-box").evaluate_all(
                "gs => gs.filter(g => { const r = g.querySelector('rect').getBBox();"
                " return [...g.querySelectorAll('text')].some(t => { const b = t.getBBox();"
                " return b.x + b.width > r.x + r.width + 0.5; }); }).map(g => g.textContent)")
            assert overflowing == [], f"text wider than its box: {overflowing}"
            stepper.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "7-chinese-stepper.png"))
            expect(page.get_by_text("Error displaying widget")).to_have_count(0)
        finally:
            browser.close()
    assert errors == [], f"errors in the page: {errors}"
