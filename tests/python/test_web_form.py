"""The submit form's run options (docs/service.md, "Web page and replay"): one control for
every JobOptions field, derived from the model's schema (options.form_controls), served
to the page as /web/job-options.json and drawn by static/jobs.js for each kind. The
browser test (test_web_browser.py) submits a job with one of them set."""
from __future__ import annotations

import re

import pytest

from conftest import require

require("fastapi")
require("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from simphant.serve import web  # noqa: E402
from simphant.serve.options import FORM_KINDS, JobOptions, form_controls  # noqa: E402


def test_every_job_option_has_a_form_control():
    controls = form_controls()
    assert [c["name"] for c in controls] == list(JobOptions.model_fields)
    assert {c["kind"] for c in controls} <= set(FORM_KINDS)
    by = {c["name"]: c for c in controls}
    # the options users asked for, with the values the model takes
    assert by["frames"]["kind"] == "choice" and by["frames"]["choices"] == ["every", "first_last", "none"]
    assert by["frames"]["nullable"]  # empty: the scene's output.frames
    assert by["backend"]["choices"] == ["auto", "cpu", "cpu-simd", "cuda", "cuda-fused"]
    assert not by["backend"]["nullable"] and by["backend"]["default"] == "auto"
    assert by["datasets"]["kind"] == "multi" and "reactions" in by["datasets"]["choices"]
    assert by["reductions"]["kind"] == "names" and by["reductions"]["choices"] == ["all", "none"]
    assert by["compression"] == {**by["compression"], "kind": "integer", "minimum": 0, "maximum": 9}
    assert by["seed"]["maximum"] == 2**64 - 1
    assert by["dt"]["kind"] == "number" and by["dt"]["exclusiveMinimum"] == 0 and by["dt"]["label"] == "dt [s]"
    assert by["error_estimate"]["kind"] == "boolean"
    assert all(c["help"] for c in controls)


def test_the_page_draws_every_kind_of_control():
    js = (web.STATIC_DIR + "/jobs.js")
    text = open(js).read()
    drawn = set(re.findall(r'case "(\w+)":', text))
    assert set(FORM_KINDS) <= drawn, set(FORM_KINDS) - drawn
    # the values each kind sends
    for kind in FORM_KINDS:
        assert f'c.kind === "{kind}"' in text, kind
    html = open(web.STATIC_DIR + "/index.html").read()
    assert 'id="options-form"' in html and 'id="opt-' not in html  # no hand-written option controls


def test_a_new_kind_of_option_is_refused_until_the_form_draws_it(monkeypatch):
    from simphant.serve import options

    schema = JobOptions.model_json_schema()
    schema["properties"]["weights"] = {"anyOf": [{"type": "object"}, {"type": "null"}]}
    monkeypatch.setattr(options.JobOptions, "model_json_schema", classmethod(lambda cls, *a, **k: schema))
    with pytest.raises(ValueError, match="JobOptions.weights: no form control"):
        form_controls()


def test_the_controls_route_needs_no_token(tmp_path, cli):
    """The service's own app (its authentication and middleware) answers the form's controls
    without a token, as it serves the page itself."""
    from simphant.serve.app import create_app
    from simphant.serve.config import ServeConfig, TokenInfo

    config = ServeConfig(data_dir=str(tmp_path / "data"), simphant=cli, workers=1, tokens={"tok": TokenInfo("a")})
    app = create_app(config)
    try:
        r = TestClient(app).get("/web/job-options.json")
        assert r.status_code == 200 and r.json()["controls"] == form_controls()
        assert TestClient(app).get("/jobs").status_code == 401  # the job API still needs one
    finally:
        app.state.store.close()
