"""The run report as a new user meets it, in a real browser (Debian's chromium driven by
Playwright, as tests/python/test_web_browser.py): `simphant run` on the crank press
(examples/crank_press.json, a short sweep over its first forming stroke), `simphant report`,
then report.html at a typical 1280x800 viewport. The first screen must hold the answer: the
peak loads that matter, in engineering units, each with the parameter that drives it; the
page must stay under 5 screens with its detail sections collapsed. A screenshot of the
first screen goes to the test's tmp folder (its path is printed) for a person to compare.

Skipped (with the reason) only when /usr/bin/chromium or the Playwright package is
missing; scripts/setup.sh installs both.
"""
from __future__ import annotations

import json

import pytest

from conftest import require, require_executable, run_cli

CHROMIUM = "/usr/bin/chromium"
require_executable(CHROMIUM, "apt-get install chromium")
sync_api = require("playwright.sync_api", "pip install playwright; the browser is Debian's chromium")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

VIEWPORT = {"width": 1280, "height": 800}
#: The crank press: a short sweep past the first bottom dead centre (t = 0.25 s).
INSTANCES, T_END = 64, 0.4


@pytest.fixture(scope="module")
def press_report(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("press_report")
    p = run_cli(cli, "run", str(examples / "crank_press.json"), "--instances", str(INSTANCES), "--t-end", str(T_END),
                "--backend", "cpu", "--threads", "1", "--out", "press.h5", cwd=d)
    assert p.returncode == 0, p.stderr
    p = run_cli(cli, "report", "press.h5", "-o", "rep", cwd=d)
    assert p.returncode == 0, p.stderr
    return d, json.loads((d / "rep" / "report.json").read_text())


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def test_first_screen_is_the_answer(browser, press_report):
    d, r = press_report
    errors = []
    page = browser.new_page(viewport=VIEWPORT)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((d / "rep" / "report.html").as_uri())
    page.wait_for_function("[...document.images].every(i => i.complete && i.naturalWidth > 0)", timeout=20000)
    shot = d / "report_first_screen.png"
    page.screenshot(path=str(shot))  # the viewport only: the first screen
    print(f"\nfirst screen of the crank press report: {shot}")
    assert shot.stat().st_size > 10000
    assert not errors, errors

    # the answer tables lie wholly on the first screen, each header with its unit
    tables = page.query_selector_all("table.answer")
    assert tables
    for t in tables:
        box = t.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"], box
    headers = [h.inner_text() for h in page.query_selector_all("table.answer th")]
    assert "median [kN]" in headers and "max [kN]" in headers, headers
    assert "median [N·m]" in headers, headers
    assert "driven by" in headers and "R^2 [1]" in headers
    # the few peaks that matter: the pins' and the main bearing's radial forces (~94-98 kN)
    # and the driving torque (~712 N·m), each driven by the conrod length (its wider tolerance)
    rows = {row["key"]: row for row in r["answer"]["rows"]}
    main = rows["bearing_loads/main_bearing/radial_force"]
    assert main["display_units"] == "kN" and 80e3 < main["p50"] < 110e3
    assert main["driver"] == "joints.wrist_pin.frame_i.origin[0]" and main["explained"]
    assert "driver_loads/crank_drive/crank_drive" in rows
    text = page.inner_text("table.answer")
    assert "main_bearing radial_force" in text and "joints.wrist_pin.frame_i.origin[0]" in text
    assert f"{main['p50'] * 1e-3:.4g}" in text  # the page's kN are report.json's N / 1000
    # indeterminate components (the pins' axial forces, ...) are not in the answer, but named below it
    assert r["answer"]["indeterminate"] and not set(r["answer"]["indeterminate"]) & set(rows)
    assert "main_bearing axial_force" not in page.inner_text("table.answer")
    assert page.is_visible("text=Statically indeterminate components (not ranked)")
    # an rk4 run: no tolerances anywhere on the page
    assert r["run"]["integrator"] == "rk4" and "rtol" not in page.content()

    # under 5 screens, the detail sections collapsed below the answer
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"page height at 1280x800: {height} px")
    assert height < 5 * VIEWPORT["height"], height
    assert page.evaluate("document.querySelectorAll('details:not([open])').length") >= 4
    page.close()
