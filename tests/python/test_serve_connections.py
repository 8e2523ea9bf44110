"""The service's connections under bounds (docs/service.md, "Connections and timeouts";
docs/reliability.md): a real server on 127.0.0.1 (127.0.0.2 as a second client address,
which Linux routes to the loopback too) with short timeouts; a connection that never
finishes its headers or its body is closed, one address cannot hold more than its share
and the total is bounded, while another client is served. A job that cannot start for want
of file descriptors is queued again, not failed (a real EMFILE, in a process whose
open-file limit is lowered)."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from conftest import python_env  # noqa: E402
from serve_server import ALICE, Server, hold_env, pendulum, wait_final, wait_for, wait_held  # noqa: E402


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def _closed_at(s: socket.socket, limit: float = 30.0) -> float:
    """time.monotonic() when the server closed s (reads and discards what it sends); fails
    after limit seconds."""
    s.settimeout(limit)
    start = time.monotonic()
    while True:
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            return time.monotonic()
        assert time.monotonic() - start < limit


def _response(s: socket.socket, limit: float = 30.0) -> bytes:
    """Everything the server sends until it closes s."""
    s.settimeout(limit)
    chunks = []
    while True:
        try:
            data = s.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _get_jobs(port: int, source: str) -> int:
    s = _connect(port, source)
    s.sendall(f"GET /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\nConnection: close\r\n\r\n".encode())
    head = _response(s)
    s.close()
    return int(head.split(b" ", 2)[1])


def test_a_stalled_header_or_body_is_closed(cli, tmp_path):
    srv = Server(cli, tmp_path, connections={"header_timeout": 0.5, "body_timeout": 0.5}).start()
    try:
        opened = time.monotonic()
        half_header = _connect(srv.port)
        half_header.sendall(b"GET /jobs HTTP/1.1\r\nHost: x\r\n")  # never finished
        silent = _connect(srv.port)  # sends nothing at all
        half_body = _connect(srv.port)
        half_body.sendall(f"POST /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\n"
                          "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"scene\": ".encode())
        for s in (half_header, silent, half_body):
            waited = _closed_at(s) - opened
            assert waited >= 0.45, waited  # closed by its deadline, not at once
            s.close()
        # A request that completes in time is answered, and its connection is then held
        # to the header deadline for the next request.
        assert _get_jobs(srv.port, "127.0.0.1") == 200
    finally:
        srv.stop()


def test_one_address_cannot_take_every_connection(cli, tmp_path):
    srv = Server(cli, tmp_path, connections={"max_per_client": 8, "max_total": 20, "header_timeout": 120}).start()
    held = []
    try:
        for _ in range(8):
            s = _connect(srv.port)
            s.sendall(b"GET /jobs HTTP/1.1\r\n")
            held.append(s)
        # The 9th from the same address is refused with a 503 that names the bound ...
        refused = _response(_connect(srv.port))
        assert refused.startswith(b"HTTP/1.1 503"), refused[:200]
        assert json.loads(refused.split(b"\r\n\r\n", 1)[1])["detail"].find("connections.max_per_client 8") >= 0
        # ... while another address is served.
        assert _get_jobs(srv.port, "127.0.0.2") == 200
        # The total bound: 8 more from a second address and 4 from a third reach 20.
        for source in ["127.0.0.2"] * 8 + ["127.0.0.3"] * 4:
            s = _connect(srv.port, source)
            s.sendall(b"GET /jobs HTTP/1.1\r\n")
            held.append(s)
        deadline = time.monotonic() + 30
        while True:  # the server counts a connection once its event loop accepted it
            r = _response(_connect(srv.port, "127.0.0.4"), limit=2.0)
            if r.startswith(b"HTTP/1.1 503"):
                break
            assert time.monotonic() < deadline, r[:200]
        assert b"connections.max_total 20" in r
        # Closing the held connections frees their places.
        for s in held:
            s.close()
        held.clear()
        deadline = time.monotonic() + 30
        while _get_jobs(srv.port, "127.0.0.1") != 200:
            assert time.monotonic() < deadline
    finally:
        for s in held:
            s.close()
        srv.stop()


def _low_open_file_limit() -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (320, 320))


def test_the_connection_bound_keeps_a_reserve_under_the_open_file_limit(cli, examples, tmp_path):
    # A hard limit of 320 descriptors: the service lowers connections.max_total to 64
    # (320 - FD_RESERVE) and says so. A job held at step 5 is released while 70
    # connections are held open (the bound refuses those past 64): it runs to the end.
    srv = Server(cli, tmp_path, env=hold_env(5), connections={"max_per_client": 0, "header_timeout": 300})
    srv.preexec = _low_open_file_limit
    srv.start(via="python")
    held = []
    try:
        assert "connections.max_total 1000 lowered to 64" in srv.read_log()
        scene = pendulum(examples)
        scene["solver"]["t_end"] = 0.05
        with srv.client(ALICE) as c:
            r = c.post("/jobs", json={"scene": scene, "options": {"instances": 2}})
            assert r.status_code == 201, r.text
            jid = r.json()["jobID"]
        folder = srv.data / "jobs" / jid
        wait_held(folder)
        for _ in range(70):
            s = _connect(srv.port)
            s.sendall(b"GET /jobs HTTP/1.1\r\n")
            held.append(s)
        deadline = time.monotonic() + 30
        while not (r := _response(_connect(srv.port))).startswith(b"HTTP/1.1 503"):
            assert time.monotonic() < deadline, r[:200]
        assert b"connections.max_total 64" in r
        (folder / "hold").touch()
        wait_for(lambda: (folder / "run.json").stat().st_size > 0, 120, "the run's summary")
        for s in held:
            s.close()
        held.clear()
        with srv.client(ALICE) as c:
            wait_for(lambda: c.get(f"/jobs/{jid}").status_code == 200, 30, "the service answering")
            assert wait_final(c, jid)["status"] == "successful"
    finally:
        for s in held:
            s.close()
        srv.stop()


_EMFILE_SCRIPT = textwrap.dedent("""
    import errno, json, os, resource, sys, time
    from simphant.serve.config import ServeConfig
    from simphant.serve.runner import WorkerPool
    from simphant.serve.store import JobStore

    data, scene = sys.argv[1], sys.argv[2]
    config = ServeConfig(data_dir=data, workers=1, report=False, threads=1, checkpoint_every=0)
    store = JobStore(config.database_path)
    folder = os.path.join(config.jobs_dir, "job1")
    os.makedirs(folder)
    with open(os.path.join(folder, "scene.json"), "w") as f:
        f.write(scene)
    store.insert_if_below("job1", "alice", {"instances": 2}, 10)
    runner = WorkerPool(config, store)
    # Every descriptor taken (the database's are open already): the job cannot start.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    hog = []
    try:
        while True:
            hog.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as e:
        assert e.errno == errno.EMFILE, e
    runner.start()
    seen = []
    end = time.monotonic() + 60
    while not any("out of file descriptors" in m for m in seen):
        job = store.get("job1")
        seen.append(job["message"])
        assert job["state"] in ("queued", "running"), job
        assert time.monotonic() < end, seen[-5:]
        time.sleep(0.02)
    for fd in hog:
        os.close(fd)
    end = time.monotonic() + 120
    while store.get("job1")["state"] in ("queued", "running"):
        assert time.monotonic() < end
        time.sleep(0.05)
    job = store.get("job1")
    runner.stop()
    print(json.dumps({"state": job["state"], "attempts": job["attempts"], "retried": [m for m in seen if m][0]}))
""")


def test_a_job_that_meets_emfile_is_queued_again_not_failed(cli, examples, tmp_path):
    scene = pendulum(examples)
    scene["solver"]["t_end"] = 0.05
    env = python_env()
    env["SIMPHANT_EXECUTABLE"] = cli
    r = subprocess.run([sys.executable, "-c", _EMFILE_SCRIPT, str(tmp_path / "data"), json.dumps(scene)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["state"] == "successful", out
    assert out["attempts"] == 1, out  # the starts that did not happen are not counted
    assert "out of file descriptors" in out["retried"] and "Too many open files" in out["retried"], out
