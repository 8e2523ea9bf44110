"""A job's stages as its progress reports them (docs/service.md, "Queue"): while its
`simphant run` steps, stage "simulation" with the run's ETA; then, while `simphant report`
writes the report, stage "report" with its own message, no ETA and a percentage below
100; successful at 100 %. The run is held at a known step (SIMPHANT_TEST_HOLD) and the
job at the start of its report stage (SIMPHANT_SERVE_TEST_HOLD) until the test has seen
each, whatever the speed of the machine."""
from __future__ import annotations

import json
import sqlite3

from conftest import require

require("fastapi")
require("uvicorn")
require("multipart")
require("httpx")

from serve_server import Server, pendulum, release, wait_final, wait_for, wait_held  # noqa: E402

from simphant.serve.runner import TEST_HOLD_ENV  # noqa: E402
from simphant.serve.store import JobStore  # noqa: E402

HOLD = 20


def events_of(client, jid):
    """The statusInfo objects of the job's event stream, to its final state."""
    out = []
    with client.stream("GET", f"/jobs/{jid}/events") as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
    return out


def test_progress_reports_the_report_stage(cli, examples, tmp_path):
    env = {"SIMPHANT_TEST_HOLD": f"step={HOLD}:hold", TEST_HOLD_ENV: "report:report-gate"}
    server = Server(cli, tmp_path, env=env, report=True).start(via="python")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": {"t_end": 0.1}}).json()["jobID"]
            folder = server.data / "jobs" / jid
            assert wait_held(folder)["steps_done"] == HOLD
            wait_for(lambda: c.get(f"/jobs/{jid}").json()["stage"] == "simulation", what="the simulation stage")
            sim = c.get(f"/jobs/{jid}").json()  # the progress of the records so far (one every 0.25 s)
            assert sim["status"] == "running" and 0 <= sim["progress"] < 100 and sim["steps_done"] <= HOLD
            row = next(j for j in c.get("/jobs").json()["jobs"] if j["jobID"] == jid)
            assert row["stage"] == "simulation"
            release(folder)
            wait_for(lambda: (folder / "report-gate.held").exists(), timeout=120, what="the report stage")
            held = json.loads((folder / "report-gate.held").read_text())
            assert held["point"] == "report" and held["job"] == jid
            rep = c.get(f"/jobs/{jid}").json()
            assert rep["status"] == "running" and rep["stage"] == "report"
            assert rep["eta_s"] is None  # no ETA claimed for the report
            assert rep["progress"] == 99 and rep["steps_done"] == rep["steps_total"] == 100
            assert "writing the report" in rep["message"]
            assert not (folder / "report").exists()  # held before simphant report started
            (folder / "report-gate").write_text("")
            final = wait_final(c, jid, timeout=300)
            assert final["status"] == "successful", final["message"]
            assert final["stage"] is None and final["progress"] == 100 and final["message"] == ""
            assert (folder / "report" / "report.json").exists()
            # the event stream of the finished job ends with its final state
            assert events_of(c, jid)[-1]["status"] == "successful"
    finally:
        server.stop()


def test_a_database_of_an_earlier_service_gains_the_stage_column(tmp_path):
    path = tmp_path / "jobs.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
      owner TEXT NOT NULL, state TEXT NOT NULL, options TEXT NOT NULL, created REAL NOT NULL, started REAL,
      finished REAL, updated REAL NOT NULL, progress REAL NOT NULL DEFAULT 0, steps_done INTEGER NOT NULL DEFAULT 0,
      steps_total INTEGER NOT NULL DEFAULT 0, eta_s REAL, message TEXT NOT NULL DEFAULT '', summary TEXT,
      attempts INTEGER NOT NULL DEFAULT 0, resume INTEGER NOT NULL DEFAULT 0, pid INTEGER, exit_code INTEGER);
      INSERT INTO jobs (id, owner, state, options, created, updated) VALUES ('j1', 'a', 'running', '{}', 0, 0);""")
    db.close()
    store = JobStore(str(path))
    try:
        assert store.get("j1")["stage"] == ""
        store.update("j1", stage="report")
        assert store.get("j1")["stage"] == "report"
        store.requeue("j1", resume=True, message="x")  # leaving the running state clears the stage
        assert store.get("j1")["stage"] == ""
    finally:
        store.close()


def test_a_job_dismissed_in_its_report_stage_ends_dismissed(cli, examples, tmp_path):
    """DELETE while the report is being written dismisses the job (its out.h5 complete)."""
    server = Server(cli, tmp_path, env={TEST_HOLD_ENV: "report:report-gate"}, report=True).start(via="python")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": {"t_end": 0.05}}).json()["jobID"]
            folder = server.data / "jobs" / jid
            wait_for(lambda: (folder / "report-gate.held").exists(), timeout=120, what="the report stage")
            r = c.delete(f"/jobs/{jid}")
            assert r.status_code == 200 and r.json()["status"] == "dismissed", r.text
            final = wait_final(c, jid)
            assert final["status"] == "dismissed" and "report" in final["message"], final
            assert final["summary"]["instances_ok"] == final["summary"]["instances"]
            assert not (folder / "report").exists()
    finally:
        server.stop()


def test_a_restart_in_the_report_stage_writes_the_report_without_running_again(cli, examples, tmp_path):
    """The service stops while a job is held in its report stage: at the next start the
    job writes its report from the completed out.h5; the simulation does not run again."""
    server = Server(cli, tmp_path, env={TEST_HOLD_ENV: "report:report-gate"}, report=True).start(via="python")
    with server.client() as c:
        jid = c.post("/jobs", json={"scene": pendulum(examples), "options": {"t_end": 0.05}}).json()["jobID"]
    folder = server.data / "jobs" / jid
    wait_for(lambda: (folder / "report-gate.held").exists(), timeout=120, what="the report stage")
    server.stop()
    store = JobStore(server.config["database"])
    try:  # left running, in its report stage, for the next start
        job = store.get(jid)
        assert job["state"] == "running" and "report is written when it starts again" in job["message"], job
    finally:
        store.close()
    out = folder / "out.h5"
    written = out.stat().st_mtime_ns
    log_size = (folder / "run.log").stat().st_size
    again = Server(cli, tmp_path, report=True).start(via="python")
    try:
        with again.client() as c:
            final = wait_final(c, jid, timeout=300)
            assert final["status"] == "successful" and final["message"] == "", final
            assert final["summary"]["instances_ok"] == final["summary"]["instances"]
        assert (folder / "report" / "report.json").exists()
        assert out.stat().st_mtime_ns == written  # not run again
        assert (folder / "run.log").stat().st_size == log_size
    finally:
        again.stop()
