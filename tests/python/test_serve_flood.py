"""One owner floods the service with large scenes (docs/service.md, "Validation"): bob
(max_jobs 2) submits 45 closed loops of 200 bodies at once while alice lists her jobs and
submits a small scene. The validations run as `simphant check` processes, bob's one at a
time (validation.per_owner 1 of validation.workers 2). Bob's checks are held at their
start (SIMPHANT_TEST_HOLD=check) until alice is done, so that his flood is pending for the
whole measurement whatever the speed of the machine: alice's `GET /jobs` stays fast (95th
percentile under 200 ms) and her submission is validated at once in the free slot. Then
bob's checks are released: his first two jobs are accepted (their runs held at step 1,
so they stay unfinished) and the other 43 are answered 429 when their turn comes,
without a validation. A real server on 127.0.0.1."""
from __future__ import annotations

import concurrent.futures as cf
import statistics
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from serve_server import ALICE, BOB, Server, pendulum, wait_for  # noqa: E402


def loop_scene(n: int, length: float = 0.1) -> dict:
    """A planar chain of n bars on revolutes about y, from the ground and back to it: a
    closed loop (redundant rows in its closing joint)."""
    bodies, joints = [], []
    for k in range(n):
        bodies.append({"name": f"b{k}", "mass": 0.1, "inertia": [1e-5, 1e-4, 1e-4],
                       "position": [length * (k + 0.5), 0.0, 0.0]})
        joints.append({"name": f"j{k}", "type": "revolute", "body_i": "ground" if k == 0 else f"b{k - 1}",
                       "body_j": f"b{k}", "frame": {"origin": [0.0 if k == 0 else length / 2, 0.0, 0.0],
                                                    "z": [0.0, 1.0, 0.0], "x": [1.0, 0.0, 0.0]}})
    joints.append({"name": "close", "type": "revolute", "body_i": f"b{n - 1}", "body_j": "ground",
                   "frame": {"origin": [length / 2, 0.0, 0.0], "z": [0.0, 1.0, 0.0], "x": [1.0, 0.0, 0.0]}})
    return {"name": f"loop of {n}", "gravity": [0.0, 0.0, -9.81], "bodies": bodies, "joints": joints,
            "solver": {"dt": 1e-3, "t_end": 0.005}}


def test_one_owner_flooding_does_not_delay_another(cli, examples, tmp_path):
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "alice").write_text("")  # her check is not held
    hold = {"SIMPHANT_TEST_HOLD": f"step=1:hold;check:{gates}/{{name}}"}
    srv = Server(cli, tmp_path, env=hold, workers=2,
                 tokens={ALICE: {"name": "alice"}, BOB: {"name": "bob", "max_jobs": 2}}).start()
    loop = loop_scene(200)
    flood_done = []
    try:
        def bob_submits(_: int) -> int:
            with srv.client(BOB) as c:
                r = c.post("/jobs", json={"scene": loop, "options": {"instances": 1}}, timeout=300)
                flood_done.append(time.monotonic())
                return r.status_code

        with cf.ThreadPoolExecutor(45) as ex:
            flood = [ex.submit(bob_submits, k) for k in range(45)]
            # The flood is under way once bob's first validation runs: its check, held.
            wait_for((gates / f"{loop['name']}.held").exists, 120, "bob's first check")
            with srv.client(ALICE) as c:
                gets = []  # (start, seconds)
                for _ in range(100):
                    t0 = time.monotonic()
                    r = c.get("/jobs")
                    gets.append((t0, time.monotonic() - t0))
                    assert r.status_code == 200
                    time.sleep(0.05)
                t0 = time.monotonic()
                small = pendulum(examples)
                small["name"] = "alice"
                small["solver"]["t_end"] = 0.05
                r = c.post("/jobs", json={"scene": small, "options": {"instances": 2}})
                submit_s = time.monotonic() - t0
                assert r.status_code == 201, r.text
            still_flooding = sum(1 for f in flood if not f.done())
            (gates / loop["name"]).write_text("")  # bob's checks go on
            codes = [f.result() for f in flood]
        latencies = sorted(d for _, d in gets)
        p50 = statistics.median(latencies)
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(f"\n  alice's GET /jobs during bob's flood: {len(latencies)} requests, p50 {p50 * 1e3:.1f} ms, "
              f"p95 {p95 * 1e3:.1f} ms, max {latencies[-1] * 1e3:.1f} ms; her submission {submit_s:.2f} s "
              f"with {still_flooding} of bob's 45 still waiting; bob's answers {sorted(codes)}")
        assert still_flooding == 45  # all of alice's requests ran inside the flood
        assert p95 < 0.2
        assert submit_s < 5.0  # validated in the slot bob cannot take (a pendulum checks in ~0.05 s)
        # Bob's flood: 2 jobs accepted (max_jobs); the rest 429, each once its turn came
        # (the unfinished jobs are counted again before a validation starts).
        assert sorted(codes) == [201] * 2 + [429] * 43, codes
    finally:
        srv.stop()


def _checks_under(folder) -> list:
    """The pids of processes whose working directory lies under folder (a job's check)."""
    import os
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(folder)):
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def test_a_validation_past_its_time_is_stopped(cli, tmp_path):
    # The check is held at its start for good (its gate never made): it runs past
    # validation.timeout_s whatever the speed of the machine.
    gates = tmp_path / "gates"
    gates.mkdir()
    srv = Server(cli, tmp_path, env={"SIMPHANT_TEST_HOLD": f"check:{gates}/{{name}}"},
                 validation={"timeout_s": 1}).start()
    try:
        with srv.client(ALICE) as c:
            r = c.post("/jobs", json={"scene": loop_scene(300)})
        assert r.status_code == 403, r.text
        assert "validation.timeout_s" in r.json()["detail"]
        assert (gates / "loop of 300.held").exists()  # it was the held check that ran past
        # Its check process was killed before the answer: gone at once.
        deadline = time.monotonic() + 0.5
        while _checks_under(srv.data):
            assert time.monotonic() < deadline, _checks_under(srv.data)
            time.sleep(0.05)
        with srv.client(ALICE) as c:
            assert c.get("/jobs").json()["jobs"] == []  # nothing was queued
    finally:
        srv.stop()
