"""Load on a real server: 200 small jobs from 20 concurrent clients. Each job completes
exactly once, its output equals the `simphant run` of the same scene dataset by dataset,
and the server's resident memory stays flat. Prints the throughput and the latency
percentiles (docs/service.md, "Load"); SIMPHANT_SERVE_LOAD_JOBS scales it (default 200)."""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import threading
import time

import numpy as np
import pytest

from conftest import require

require("fastapi")
require("uvicorn")
require("multipart")
require("httpx")
pytest.importorskip("h5py")

from h5_compare import assert_same_file  # noqa: E402
from serve_server import ALICE, BOB, Server, cli_run, pendulum  # noqa: E402

CLIENTS = 20
SCENES = 10
OPTIONS = {"instances": 2, "t_end": 0.05}
#: Growth of the server's resident set allowed between the warm-up (the first 40 jobs) and
#: the end (160 more jobs). Measured on a 2-core machine: 0.3-0.7 MiB in five runs
#: (SQLite's page cache, the allocator's arenas); the bound is about 6 times the largest,
#: so a leak of 26 KiB or more per job (a job's summary, output or subprocess buffers
#: kept) fails.
RSS_GROWTH_KIB = 4 * 1024


def _job(client, scene, latencies, lock):
    t0 = time.monotonic()
    r = client.post("/jobs", json={"scene": scene, "options": OPTIONS})
    assert r.status_code == 201, r.text
    jid = r.json()["jobID"]
    final = None
    with client.stream("GET", f"/jobs/{jid}/events") as s:
        for line in s.iter_lines():
            if line.startswith("data:"):
                final = json.loads(line[5:])
    with lock:
        latencies.append(time.monotonic() - t0)
    return jid, final


def test_200_jobs_from_20_clients(cli, examples, tmp_path):
    n_jobs = int(os.environ.get("SIMPHANT_SERVE_LOAD_JOBS", "200"))
    base = pendulum(examples)
    scenes = []
    for k in range(SCENES):
        s = json.loads(json.dumps(base))
        s["sweep"]["seed"] = 100 + k
        scenes.append(s)
    server = Server(cli, tmp_path, workers=2, limits={"max_jobs_per_token": 1000},
                    tokens={ALICE: {"name": "alice"}, BOB: {"name": "bob"}}).start(via="python")
    latencies, lock = [], threading.Lock()
    try:
        clients = [server.client(ALICE if k % 2 else BOB) for k in range(CLIENTS)]
        warm = max(CLIENTS, n_jobs // 5)
        results = []

        def batch(first, count):
            with cf.ThreadPoolExecutor(CLIENTS) as pool:
                futs = [pool.submit(_job, clients[i % CLIENTS], scenes[i % SCENES], latencies, lock)
                        for i in range(first, first + count)]
                return [(i, f.result()) for i, f in zip(range(first, first + count), futs)]

        results += batch(0, warm)
        rss_warm = server.rss_kib()
        t0 = time.monotonic()
        results += batch(warm, n_jobs - warm)
        wall = time.monotonic() - t0
        rss_end = server.rss_kib()
        # every job completed exactly once: successful, one attempt, one row per id
        ids = [jid for _, (jid, _) in results]
        assert len(set(ids)) == n_jobs
        for _, (jid, final) in results:
            assert final["status"] == "successful" and final["attempts"] == 1, final
        listed = [j["jobID"] for c in clients[:2] for j in c.get("/jobs").json()["jobs"]]
        assert sorted(listed) == sorted(ids)
        # results equal the CLI's run of the same scene (each job's scene.json, as served)
        refs = {}
        for i, (jid, _) in results:
            k = i % SCENES
            folder = server.data / "jobs" / jid
            if k not in refs:
                refs[k] = cli_run(cli, (folder / "scene.json").read_text(), tmp_path / f"ref{k}",
                                  "--instances", "2", "--t-end", "0.05")
            assert assert_same_file(refs[k], folder / "out.h5") > 5
        lat = np.array(latencies)
        p50, p90, p99 = np.percentile(lat, [50, 90, 99])
        print(f"\nload: {n_jobs} jobs, {CLIENTS} clients, 2 workers: {(n_jobs - warm) / wall:.1f} jobs/s after "
              "warm-up; "
              f"latency submit->final p50 {p50:.2f} s, p90 {p90:.2f} s, p99 {p99:.2f} s, max {lat.max():.2f} s; "
              f"server RSS {rss_warm / 1024:.1f} MiB after {warm} jobs, {rss_end / 1024:.1f} MiB after {n_jobs}")
        assert rss_end - rss_warm < RSS_GROWTH_KIB, (rss_warm, rss_end)
    finally:
        for c in clients:
            c.close()
        server.stop()
