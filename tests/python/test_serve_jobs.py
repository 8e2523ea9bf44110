"""The service's queue through a real server: a dismissed running job keeps a resumable
output, a job survives the service being killed (SIGKILL) and its run being killed, and
ends with the results of an uninterrupted `simphant run`."""
from __future__ import annotations

import os
import signal
import subprocess

import numpy as np
import pytest

from conftest import require

require("fastapi")
require("uvicorn")
require("multipart")
require("httpx")
h5py = pytest.importorskip("h5py")

from h5_compare import assert_same_file  # noqa: E402
from serve_server import Server, cli_run, hold_env, pendulum, wait_final, wait_held  # noqa: E402

#: A job of 2000 steps whose run the server holds at step HOLD (SIMPHANT_TEST_HOLD,
#: serve_server.hold_env), so that the test finds it running there whatever the machine's
#: speed; a resumed run starts at or past that step and is not held again.
LONG = {"instances": 32, "t_end": 2.0}
LONG_FLAGS = ("--instances", "32", "--t-end", "2.0")
HOLD = 500
#: A checkpoint after every slice of steps: the held run has one at the held step.
EVERY_SLICE = 1e-9


def reference(cli, server, client, jid, tmp_path):
    """The uninterrupted CLI run of the job's scene (the server's scene.json)."""
    text = client.get(f"/jobs/{jid}/results/scene.json").text
    return cli_run(cli, text, tmp_path / "reference", *LONG_FLAGS)


def test_a_dismissed_running_job_keeps_its_frames_and_resumes_to_the_full_run(cli, examples, tmp_path):
    server = Server(cli, tmp_path, env=hold_env(HOLD)).start(via="cli")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": LONG}).json()["jobID"]
            assert wait_held(server.data / "jobs" / jid)["steps_done"] == HOLD
            info = c.delete(f"/jobs/{jid}").json()
            assert info["status"] == "dismissed" and "resumable" in info["message"]
            summary = info["summary"]
            assert summary["steps"] == HOLD and summary["steps_planned"] == 2000 and summary["interrupted"]
            names = [link["title"] for link in c.get(f"/jobs/{jid}/results").json()["links"]]
            assert "out.h5" in names
            partial = tmp_path / "partial" / "out.h5"
            partial.parent.mkdir()
            partial.write_bytes(c.get(f"/jobs/{jid}/results/out.h5").content)
            ref = reference(cli, server, c, jid, tmp_path)
        with h5py.File(partial, "r") as f:
            assert f.attrs["interrupted"] == 1
            frames = f["time"].shape[0]
        with h5py.File(ref, "r") as f:
            assert 0 < frames < f["time"].shape[0]
        r = subprocess.run([cli, "run", "--resume", "out.h5", "--threads", "1"], cwd=partial.parent,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        assert assert_same_file(ref, partial) > 5
    finally:
        server.stop()


def test_a_killed_service_resumes_its_running_job_and_keeps_the_queue(cli, examples, tmp_path):
    server = Server(cli, tmp_path, env=hold_env(HOLD), checkpoint_every=EVERY_SLICE).start(via="python")
    with server.client() as c:
        first = c.post("/jobs", json={"scene": pendulum(examples), "options": LONG}).json()["jobID"]
        second = c.post("/jobs", json={"scene": pendulum(examples), "options": {"instances": 2, "t_end": 0.1}}).json()
        folder = server.data / "jobs" / first
        wait_held(folder)
        assert (folder / ".out.h5.checkpoint.h5").exists()
    server.kill()  # the held run is stopped (SIGTERM) with the service, or by the next one
    server.start(via="python")
    try:
        with server.client() as c:
            info = wait_final(c, first)
            assert info["status"] == "successful", info["message"]
            assert info["attempts"] == 2
            assert info["summary"]["resumed_from_step"] == HOLD
            assert wait_final(c, second["jobID"])["status"] == "successful"
            log = (folder / "run.log").read_text()
            assert "nothing to resume" not in log and "no checkpoint" not in log, log
            ref = reference(cli, server, c, first, tmp_path)
        assert assert_same_file(ref, folder / "out.h5") > 5
    finally:
        server.stop()


def test_a_stopped_service_leaves_its_job_running_and_resumes_it(cli, examples, tmp_path):
    server = Server(cli, tmp_path, env=hold_env(HOLD)).start(via="cli")
    with server.client() as c:
        jid = c.post("/jobs", json={"scene": pendulum(examples), "options": LONG}).json()["jobID"]
        wait_held(server.data / "jobs" / jid)
    assert server.stop() == 143
    server.start(via="cli")
    try:
        with server.client() as c:
            info = wait_final(c, jid)
            assert info["status"] == "successful" and info["attempts"] == 2, info
            assert info["summary"]["resumed_from_step"] == HOLD
            ref = reference(cli, server, c, jid, tmp_path)
        assert assert_same_file(ref, server.data / "jobs" / jid / "out.h5") > 5
    finally:
        server.stop()


def test_a_killed_run_is_resumed_from_its_checkpoint(cli, examples, tmp_path):
    server = Server(cli, tmp_path, env=hold_env(HOLD), checkpoint_every=EVERY_SLICE, max_attempts=2).start(via="cli")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": LONG}).json()["jobID"]
            folder = server.data / "jobs" / jid
            held = wait_held(folder)
            assert (folder / ".out.h5.checkpoint.h5").exists()
            os.kill(held["pid"], signal.SIGKILL)
            info = wait_final(c, jid)
            assert info["status"] == "successful" and info["attempts"] == 2, info
            assert info["summary"]["resumed_from_step"] == HOLD
            ref = reference(cli, server, c, jid, tmp_path)
            assert assert_same_file(ref, folder / "out.h5") > 5
    finally:
        server.stop()


def test_a_run_killed_in_every_attempt_fails_with_the_reason(cli, examples, tmp_path):
    # No checkpoints: each attempt finds nothing to resume, starts over and is held again.
    server = Server(cli, tmp_path, env=hold_env(HOLD), checkpoint_every=0, max_attempts=2).start(via="cli")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": LONG}).json()["jobID"]
            folder = server.data / "jobs" / jid
            pid = None
            for attempt in (1, 2):
                pid = wait_held(folder, other_than=pid)["pid"]
                assert c.get(f"/jobs/{jid}").json()["attempts"] == attempt
                os.kill(pid, signal.SIGKILL)
            info = wait_final(c, jid)
            assert info["status"] == "failed" and "SIGKILL" in info["message"], info
    finally:
        server.stop()


def test_with_a_ray_address_a_job_runs_as_a_sharded_sweep(cli, examples, tmp_path):
    pytest.importorskip("ray")
    server = Server(cli, tmp_path, ray_address="local").start(via="cli")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": {"instances": 8, "t_end": 0.2}}).json()
            info = wait_final(c, jid["jobID"], timeout=300)
            assert info["status"] == "successful", (info["message"], (server.data / "jobs" / jid["jobID"] /
                                                                       "run.log").read_text()[-2000:])
            assert len(info["summary"]["shard_files"]) >= 1
            text = c.get(f"/jobs/{jid['jobID']}/results/scene.json").text
            r = c.post("/jobs", json={"scene": pendulum(examples), "options": {"frames": "none"}})
            assert r.status_code == 422 and r.json()["path"] == "/options/frames"
            served = tmp_path / "served.h5"
            served.write_bytes(c.get(f"/jobs/{jid['jobID']}/results/out.h5").content)
        ref = cli_run(cli, text, tmp_path / "reference", "--instances", "8", "--t-end", "0.2")
        # the merged file's datasets equal the one-shot run's (docs/scaling-out.md)
        compared = []
        with h5py.File(ref, "r") as a, h5py.File(served, "r") as b:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    x, y = obj[()], b[name][()]
                    same = x.tobytes() == y.tobytes() if x.dtype.kind in "fc" else np.array_equal(x, y)
                    assert same and x.shape == y.shape, name
                    compared.append(name)
            a.visititems(visit)
        assert "time" in compared and len(compared) > 5
    finally:
        server.stop()


def test_a_successful_job_serves_its_report(cli, examples, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("scipy")
    pytest.importorskip("SALib")
    server = Server(cli, tmp_path, report=True).start(via="cli")
    try:
        with server.client() as c:
            jid = c.post("/jobs", json={"scene": pendulum(examples), "options": {"instances": 8, "t_end": 0.5}})
            info = wait_final(c, jid.json()["jobID"], timeout=300)
            assert info["status"] == "successful" and info["message"] == "", info
            links = {link["title"]: link for link in c.get(f"/jobs/{info['jobID']}/results").json()["links"]}
            assert "report/report.html" in links and "report/report.json" in links
            r = c.get(links["report/report.html"]["href"])
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html") and b"<html" in r.content
            report = c.get(links["report/report.json"]["href"]).json()
            assert report  # the report's numbers, as `simphant report` writes them
            # "%2e%2e" reaches the server as ".." (a client would fold "report/../out.h5" itself)
            assert c.get(f"/jobs/{info['jobID']}/results/report/%2e%2e/out.h5").status_code == 404
            assert c.get(f"/jobs/{info['jobID']}/results/run.json").status_code == 404
    finally:
        server.stop()
