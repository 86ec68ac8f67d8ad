"""The lab in a real browser: JupyterLab on 127.0.0.1, Debian's chromium driven headless by Playwright.

Runs ``tests/lab/notebooks/lab_browser.ipynb`` through the UI (Run -> Run All Cells), then checks what a
learner sees: the WebAssembly Graphviz drew the expected nodes and edges, Next in the stepper moves
the highlight, a click on a node brings its details back from Python, and a new cell doing an
in-place op makes the watched graph flag the stale saved tensor in red. Screenshots are saved in
``test-artifacts/lab-browser/``.
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
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
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
        yield f"{base}/lab/tree/{NOTEBOOK.name}?token={token}&reset"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_lab_widgets_in_jupyterlab(jupyter):
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    expect.set_options(timeout=60_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            page.goto(jupyter)
            expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible()
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_text("Run All Cells", exact=True).click()

            labs = page.locator(".al-lab")
            expect(labs).to_have_count(3)  # draw, stepper, %watch
            drawing, stepper, watched = labs.nth(0), labs.nth(1), labs.nth(2)

            # 1. the drawing: Sum, Exp, Mul, two AccumulateGrad, the tensors y and loss, the legend; 6 edges
            expect(drawing.locator("svg g.node")).to_have_count(8)
            expect(drawing.locator("svg g.edge")).to_have_count(6)
            expect(drawing.locator("svg g.node", has_text="MulBackward0")).to_have_count(1)
            page.screenshot(path=str(SCREENSHOTS / "1-run-all.png"), full_page=True)

            # 2. the stepper: Next highlights the node being run, and the highlight moves
            expect(stepper.locator("svg g.node.current")).to_have_count(0)
            stepper.locator("button.al-next").click()
            expect(stepper.locator("svg g.node.current")).to_contain_text("SumBackward0")
            stepper.locator("button.al-next").click()
            expect(stepper.locator("svg g.node.current")).to_contain_text("ExpBackward0")
            expect(stepper.locator(".al-caption")).to_contain_text("step 2/5: ExpBackward0")
            stepper.locator("button.al-back").click()
            expect(stepper.locator("svg g.node.current")).to_contain_text("SumBackward0")
            stepper.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "2-stepper.png"), full_page=True)

            # 3. a click on a node: Python answers with its saved tensors and versions
            drawing.scroll_into_view_if_needed()
            drawing.locator("svg g.node", has_text="MulBackward0").click()
            details = drawing.locator(".al-details")
            expect(details).to_contain_text("MulBackward0")
            expect(details).to_contain_text("_saved_self")
            expect(details).to_contain_text("version at save")
            expect(details).to_contain_text("[1, 2, 3]")
            page.screenshot(path=str(SCREENSHOTS / "3-node-details.png"), full_page=True)

            # 4. a new cell modifies y in place: the watched graph flags ExpBackward0's saved result in red
            expect(watched.locator(".al-stale")).to_have_count(0)
            page.locator(".jp-Notebook .jp-Cell").last.click()
            page.keyboard.press("Escape")
            page.keyboard.press("b")  # insert a cell below, in command mode
            page.keyboard.press("Enter")
            page.keyboard.type("y.mul_(2)")
            page.keyboard.press("Shift+Enter")
            stale = watched.locator(".al-stale")
            expect(stale).to_have_count(1)
            expect(stale).to_contain_text("the next backward through ExpBackward0 will raise")
            expect(stale).to_have_css("color", "rgb(198, 40, 40)")
            expect(watched.locator("svg text", has_text="STALE")).to_have_count(1)
            watched.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "4-stale.png"), full_page=True)
            assert "AttributeError" not in page.locator(".jp-Notebook").inner_text(), "Tensor.mul_ is missing"
            expect(page.get_by_text("Error displaying widget")).to_have_count(0)
        finally:
            page.screenshot(path=str(SCREENSHOTS / "last.png"), full_page=True)
            browser.close()
    assert errors == [], f"errors in the page: {errors}"
