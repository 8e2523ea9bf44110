"""The web page and the replay in a real browser (Debian's chromium driven by Playwright
for Python; docs/service.md, "Web page and replay"): submit a scene through the form (a
bad one first: the validator's error beside the field), follow the job to its end, open
the replay, check that frames advance, that the bodies move and are drawn where the file
puts them, that pause and scrub work and that the report's figures load; then
`simphant view` on a file made by the CLI. Screenshots go to the test's tmp folder.

Skipped (with the reason) only when /usr/bin/chromium or the Playwright package is
missing; scripts/setup.sh installs both.
"""
from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import EXAMPLES, python_env, require, require_executable, run_cli

CHROMIUM = "/usr/bin/chromium"
require_executable(CHROMIUM, "apt-get install chromium")
sync_api = require("playwright.sync_api", "pip install playwright; the browser is Debian's chromium")
h5py = pytest.importorskip("h5py")
require("fastapi")
require("uvicorn")

TOKEN = "tok-web-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(args, ready_url, log_path):
    """A server subprocess (`args`: a command line) on 127.0.0.1, stopped (SIGTERM, then
    SIGKILL) at the end."""
    import httpx

    with open(log_path, "w") as log:
        proc = subprocess.Popen(args, env=python_env(), stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{' '.join(args)} did not start: {open(log_path).read()[-2000:]}")
            time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
        yield b
        b.close()


def new_page(browser, errors):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def check_replay_plays_pauses_and_scrubs(page, shots, states, label):
    """Frames advance while playing and the bodies move; pause holds the frame; scrubbing
    shows the frame asked for with the bodies where the file puts them (`states`: the
    /state poses (F, B, 7) of the replay's frames, or None)."""
    page.wait_for_function("window.replayState && window.replayState.ready", timeout=20000)
    st = page.evaluate("window.replayState")
    assert st["error"] is None and st["webgl"], st
    assert st["frame"] == 0 and st["frames"] > 10
    first = np.array(st["bodyPositions"])
    page.screenshot(path=str(shots / f"{label}_frame0.png"))
    page.click("#replay-play")
    page.wait_for_function("window.replayState.frame >= 5", timeout=10000)
    moved = page.evaluate("window.replayState")
    assert moved["playing"] and moved["time"] > 0
    assert np.abs(np.array(moved["bodyPositions"]) - first).max() > 1e-3  # the bodies move
    page.screenshot(path=str(shots / f"{label}_playing.png"))
    page.click("#replay-play")  # pause
    held = page.evaluate("window.replayState.frame")
    page.wait_for_timeout(400)
    assert page.evaluate("[window.replayState.playing, window.replayState.frame]") == [False, held]
    target = st["frames"] // 2
    page.eval_on_selector("#replay-scrub", "(e, f) => { e.value = String(f); e.dispatchEvent(new Event('input')); }",
                          target)
    at = page.evaluate("window.replayState")
    assert at["frame"] == target and not at["playing"]
    assert page.input_value("#replay-scrub") == str(target)
    if states is not None:  # drawn where the file puts each body (float32 of the file's float64)
        np.testing.assert_allclose(at["bodyPositions"], states[target, :, :3], rtol=0, atol=1e-6)
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.replayState.frame") == target + 1
    page.keyboard.press("ArrowLeft")
    page.screenshot(path=str(shots / f"{label}_scrubbed.png"))
    return at


def test_submit_follow_and_replay_in_the_browser(browser, cli, tmp_path):
    import httpx

    data = tmp_path / "data"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"data_dir": str(data), "tokens": {TOKEN: {"name": "web"}}, "workers": 1,
                                  "threads": 1, "simphant": cli}))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    scene = json.loads((EXAMPLES / "four_bar.json").read_text())
    scene["solver"]["t_end"] = 1.0
    errors = []
    with server([sys.executable, "-m", "simphant.serve", "--config", str(config), "--port", str(port), "--log-level", "warning"],
                base + "/web/", tmp_path / "serve.log"):
        page = new_page(browser, errors)
        page.goto(base + "/web/")
        page.fill("#token", TOKEN)
        page.click("#token-save")
        # a bad visual: the validator's message beside the scene field, with the JSON path
        bad = json.loads(json.dumps(scene))
        bad["bodies"][2]["visual"] = {"type": "sphere", "radius": -0.1}
        page.fill("#scene", json.dumps(bad, indent=1))
        page.fill("#opt-instances", "3")
        page.click("#submit")
        page.wait_for_function("document.getElementById('scene-error').textContent.length > 0", timeout=10000)
        assert page.text_content("#scene-error").startswith("/bodies/2/visual/radius")
        assert "must be > 0" in page.text_content("#scene-error")
        page.screenshot(path=str(tmp_path / "submit_error.png"))
        page.fill("#scene", json.dumps(scene, indent=1))
        page.click("#submit")
        page.wait_for_selector("#submitted-job", timeout=10000)
        job_id = page.get_attribute("#submitted-job", "href").rsplit("/", 1)[1]
        page.wait_for_selector(f"#job-{job_id} .progress", timeout=10000)  # its row in the list, with a bar
        page.screenshot(path=str(tmp_path / "jobs.png"))
        page.click("#submitted-job")
        page.wait_for_url(f"**/web/jobs/{job_id}")
        page.wait_for_function("document.body && ['successful', 'failed', 'dismissed'].includes(document.body.dataset.status)",
                               timeout=60000)
        assert page.evaluate("document.body.dataset.status") == "successful", page.text_content("#job-message")
        assert page.text_content("#job-progress").strip().startswith("100 %")
        replay = httpx.get(f"{base}/jobs/{job_id}/replay", headers={"Authorization": f"Bearer {TOKEN}"}).json()
        with h5py.File(data / "jobs" / job_id / "out.h5", "r") as f:
            states = np.asarray(f["state"][replay["frame_index"], 0, :, :3])
        at = check_replay_plays_pauses_and_scrubs(page, tmp_path, states, "job")
        assert at["instance"] == 0
        assert [b["source"] for b in replay["bodies"]] == ["visual"] * 3  # the four-bar's boxes
        # the joint markers ride on their bodies: the crank pivot stays at the ground pivot
        np.testing.assert_allclose(at["markerPositions"][0], [0, 0, 0], atol=1e-6)
        page.select_option("#replay-speed", "4")
        assert page.evaluate("window.replayState.speed") == 4
        page.uncheck("#replay-joints")
        page.uncheck("#replay-bodies")
        assert page.evaluate("[window.replayState.bodiesVisible, window.replayState.jointsVisible]") == [False, False]
        page.check("#replay-bodies")
        page.fill("#replay-instance", "2")
        page.click("#replay-show-instance")
        page.wait_for_function("window.replayState.ready && window.replayState.instance === 2", timeout=20000)
        with h5py.File(data / "jobs" / job_id / "out.h5", "r") as f:
            np.testing.assert_allclose(page.evaluate("window.replayState.bodyPositions"),
                                       f["state"][replay["frame_index"][0], 2, :, :3], atol=1e-6)
        page.click("#replay-show-peak")
        page.wait_for_function("window.replayState.ready && window.replayState.pick.mode === 'peak'", timeout=20000)
        peak = page.evaluate("window.replayState")
        assert peak["instance"] == replay_peak_instance(base, job_id)
        page.wait_for_function("document.querySelectorAll('#figures img').length > 0", timeout=20000)
        page.wait_for_function("[...document.querySelectorAll('#figures img')].every(i => i.complete && "
                               "i.naturalWidth > 0)", timeout=20000)
        page.screenshot(path=str(tmp_path / "job_page.png"), full_page=True)
    assert not errors, errors


def replay_peak_instance(base, job_id):
    import httpx

    r = httpx.get(f"{base}/jobs/{job_id}/replay?pick=peak", headers={"Authorization": f"Bearer {TOKEN}"})
    return r.json()["instance"]


def test_simphant_view_replays_a_cli_file(browser, cli, tmp_path):
    out = tmp_path / "press.h5"
    r = run_cli(cli, "run", str(EXAMPLES / "crank_press.json"), "--instances", "2", "--t-end", "1.0",
                "--frames", "every", "--threads", "1", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    port = free_port()
    errors = []
    with server([cli, "view", str(out), "--port", str(port), "--no-browser"],  # the CLI runs simphant.serve.view
                f"http://127.0.0.1:{port}/", tmp_path / "view.log"):
        page = new_page(browser, errors)
        page.goto(f"http://127.0.0.1:{port}/?instance=1")
        with h5py.File(out, "r") as f:
            n = f["time"].shape[0]
            states = np.asarray(f["state"][:, 1, :, :3])
        page.wait_for_function("window.replayState && window.replayState.ready", timeout=20000)
        assert page.evaluate("window.replayState.frames") == n  # not decimated: every recorded frame
        at = check_replay_plays_pauses_and_scrubs(page, tmp_path, states, "view")
        assert at["instance"] == 1
        info = page.text_content("#replay-info")
        assert "crank visual" in info and "conrod visual" in info and "ram inertia" in info
        page.click("#replay-show-peak")  # the example records /reductions: the pick reads them
        page.wait_for_function("window.replayState.ready && window.replayState.pick.mode === 'peak'", timeout=20000)
        from simphant.serve.replay import peak_loads
        assert page.evaluate("window.replayState.instance") == peak_loads(str(out))[0]["instance"]
    assert not errors, errors
