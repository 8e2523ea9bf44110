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

from simphant.serve.options import JobOptions  # noqa: E402
from simphant.serve.runner import TEST_HOLD_ENV  # noqa: E402

TOKEN = "tok-web-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(args, ready_url, log_path, env=None):
    """A server subprocess (`args`: a command line; `env`: variables added to its
    environment) on 127.0.0.1, stopped (SIGTERM, then SIGKILL) at the end."""
    import httpx

    with open(log_path, "w") as log:
        proc = subprocess.Popen(args, env={**python_env(), **(env or {})}, stdout=log, stderr=subprocess.STDOUT)
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
    gates = tmp_path / "gates"
    gates.mkdir()
    # each job is held at the start of its report stage until the test opens its gate
    hold = {TEST_HOLD_ENV: f"report:{gates}/{{name}}"}
    with server([sys.executable, "-m", "simphant.serve", "--config", str(config), "--port", str(port), "--log-level", "warning"],
                base + "/web/", tmp_path / "serve.log", env=hold):
        page = new_page(browser, errors)
        page.goto(base + "/web/")
        page.fill("#token", TOKEN)
        page.click("#token-save")
        # a control for every run option, drawn from the options' schema
        page.wait_for_selector("#options-form[data-ready=true]", timeout=10000)
        for name in JobOptions.model_fields:
            assert page.query_selector(f"#opt-{name}") is not None, name
        page.select_option("#opt-frames", "every")
        page.fill("#opt-seed", str(2**64 - 1))  # beyond a double's integers: sent exactly
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
        options = httpx.get(f"{base}/jobs/{job_id}", headers={"Authorization": f"Bearer {TOKEN}"}).json()["options"]
        assert options["frames"] == "every" and options["seed"] == 2**64 - 1 and options["instances"] == 3
        page.click("#submitted-job")
        page.wait_for_url(f"**/web/jobs/{job_id}")
        # the report stage: its own message, no ETA, the bar not claiming a simulation time
        page.wait_for_function("document.body.dataset.stage === 'report'", timeout=60000)
        assert "writing the report" in page.text_content("#job-progress")
        assert page.text_content("#job-eta") == "" and page.text_content("#job-stage") == "stage: report"
        page.screenshot(path=str(tmp_path / "report_stage.png"))
        (gates / job_id).write_text("")
        page.wait_for_function("document.body && ['successful', 'failed', 'dismissed']"
                               ".includes(document.body.dataset.status)", timeout=120000)
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
        # frames chosen in the form reach the run: first and last only
        page.goto(base + "/web/")
        page.wait_for_selector("#options-form[data-ready=true]", timeout=10000)
        page.fill("#scene", json.dumps(scene, indent=1))
        page.select_option("#opt-frames", "first_last")
        page.click("#submit")
        page.wait_for_selector("#submitted-job", timeout=10000)
        second = page.get_attribute("#submitted-job", "href").rsplit("/", 1)[1]
        headers = {"Authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{base}/jobs/{second}", headers=headers).json()["options"]["frames"] == "first_last"
        deadline = time.monotonic() + 120
        while not (gates / f"{second}.held").exists():
            assert time.monotonic() < deadline, "the second job did not reach its report stage within 120 s"
            time.sleep(0.05)
        (gates / second).write_text("")
        while httpx.get(f"{base}/jobs/{second}", headers=headers).json()["status"] == "running":
            assert time.monotonic() < deadline + 120
            time.sleep(0.1)
        assert httpx.get(f"{base}/jobs/{second}/replay", headers=headers).json()["frames_recorded"] == 2
    assert not errors, errors


def check_reaction_arrows(page, out, shots):
    """The reaction-force toggle: one arrow per joint from its marker along the force the
    file's /reactions gives for the frame shown, |f| x reactionScale long."""
    st = page.evaluate("window.replayState")
    assert st["reactionsAvailable"] and not st["reactionsVisible"]
    page.check("#replay-reactions")
    st = page.evaluate("window.replayState")
    assert st["reactionsVisible"]
    with h5py.File(out, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f.attrs["joint_names"]]
        forces = np.asarray(f["reactions"][st["fileFrame"], st["instance"], :, :3])
        magnitude = np.linalg.norm(f["reactions"][:, st["instance"], :, :3], axis=2)  # (T, J)
    drawn = [a for a in st["reactionArrows"] if a is not None]
    assert drawn, st["reactionArrows"]
    assert len(st["jointNames"]) == len(st["reactionArrows"])
    for k, a in enumerate(st["reactionArrows"]):
        if a is None:
            continue
        np.testing.assert_allclose(a["origin"], st["markerPositions"][k], atol=1e-9)
        want = np.asarray(a["force"]) * st["reactionScale"]
        if a["capped"]:  # a peak beyond twice the arrows' scale: drawn at that length, along the force
            want *= np.linalg.norm(a["vector"]) / np.linalg.norm(want)
        np.testing.assert_allclose(a["vector"], want, rtol=1e-4, atol=1e-9)
        # the force of this joint (by name) at the file's frame shown
        np.testing.assert_allclose(a["force"], forces[names.index(st["jointNames"][k])], rtol=1e-5, atol=1e-3)
    page.screenshot(path=str(shots / "reactions.png"))
    # the shown frame of the largest force: its arrow is at its full length or capped there
    shown = page.evaluate("window.replayState.frames")
    scrub = "(e, f) => { e.value = String(f); e.dispatchEvent(new Event('input')); }"
    best, best_force = 0, -1.0
    for f in range(shown):
        page.eval_on_selector("#replay-scrub", scrub, f)
        at = page.evaluate("window.replayState.fileFrame")
        if np.nanmax(magnitude[at]) > best_force:
            best, best_force = f, float(np.nanmax(magnitude[at]))
    page.eval_on_selector("#replay-scrub", scrub, best)
    st = page.evaluate("window.replayState")
    k = int(np.nanargmax(magnitude[st["fileFrame"]][[names.index(n) for n in st["jointNames"]]]))
    a = st["reactionArrows"][k]
    assert a is not None and np.isclose(np.linalg.norm(a["vector"]),
                                        min(best_force * st["reactionScale"], 2 * st["arrowLength"]), rtol=1e-4)
    page.screenshot(path=str(shots / "reactions_peak.png"))
    page.uncheck("#replay-reactions")
    assert not page.evaluate("window.replayState.reactionsVisible")


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
        check_reaction_arrows(page, out, tmp_path)
        page.click("#replay-show-peak")  # the example records /reductions: the pick reads them
        page.wait_for_function("window.replayState.ready && window.replayState.pick.mode === 'peak'", timeout=20000)
        from simphant.serve.replay import peak_loads
        assert page.evaluate("window.replayState.instance") == peak_loads(str(out))[0]["instance"]
    assert not errors, errors


def test_view_draws_collision_shapes_and_contact_points(browser, cli, tmp_path):
    """`simphant view` of examples/ball_on_block.json: the contacts toggle draws the three
    collision shapes (the ground's plane, the block's box, the ball's sphere) and, at a
    frame in which the ball presses on the block, a dot at each contact point with its
    normal force along the normal, force x contactScale long, as replay_data serves them;
    the block's four corners on the ground carry its weight and the ball's push."""
    import base64

    from simphant.serve.replay import replay_data

    out = tmp_path / "bob.h5"
    r = run_cli(cli, "run", str(EXAMPLES / "ball_on_block.json"), "--instances", "2", "--t-end", "0.3",
                "--frames", "every", "--threads", "1", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = replay_data(str(out), instance=1)
    pts = np.frombuffer(base64.b64decode(d["contacts"]["points"]), "<f4").reshape(len(d["time"]), 3, 4, 7)
    hit = int(np.flatnonzero(np.isfinite(pts[:, 2, 0, 6]))[0])  # the first frame of the ball on the block
    port = free_port()
    errors = []
    with server([cli, "view", str(out), "--port", str(port), "--no-browser"], f"http://127.0.0.1:{port}/",
                tmp_path / "view.log"):
        page = new_page(browser, errors)
        page.goto(f"http://127.0.0.1:{port}/?instance=1")
        page.wait_for_function("window.replayState && window.replayState.ready", timeout=20000)
        st = page.evaluate("window.replayState")
        assert st["contactsAvailable"] and not st["contactsVisible"] and st["collisionShapes"] == 3
        page.check("#replay-contacts")
        page.eval_on_selector("#replay-scrub", "(e, f) => { e.value = String(f); e.dispatchEvent(new Event('input')); }",
                              hit)
        st = page.evaluate("window.replayState")
        assert st["contactsVisible"] and st["frame"] == hit
        want = [(p, k) for p in range(3) for k in range(4) if np.isfinite(pts[hit, p, k, 6])]
        assert len(st["contactPoints"]) == len(want) == 5  # the block's four corners, the ball's one point
        for c, (p, k) in zip(st["contactPoints"], want):
            assert c["pair"] == d["contacts"]["pairs"][p]
            np.testing.assert_allclose(c["point"], pts[hit, p, k, :3], atol=1e-7)
            np.testing.assert_allclose(c["force"], pts[hit, p, k, 6], rtol=1e-7)
            length = min(c["force"] * st["contactScale"], 2 * st["arrowLength"])
            np.testing.assert_allclose(c["vector"], np.asarray(c["normal"]) * length, rtol=1e-5, atol=1e-9)
        assert sum(c["force"] for c in st["contactPoints"][:4]) > 2.0 * 9.81  # the block's corners: its weight and more
        page.screenshot(path=str(tmp_path / "contacts.png"))
        page.uncheck("#replay-contacts")
        assert not page.evaluate("window.replayState.contactsVisible")
    assert not errors, errors
