"""`simphant serve`'s config file and command line: bad values exit 2 naming the key; a
database held by another service, or a port in use, exit 3 (README "Exit codes")."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess

import pytest

from conftest import require

require("fastapi")
require("uvicorn")
require("httpx")

from simphant.serve import config_from_dict  # noqa: E402
from simphant.serve.store import DatabaseBusy, JobStore  # noqa: E402
from serve_server import Server, pid_alive, wait_for  # noqa: E402


@pytest.mark.parametrize("doc, says", [
    ({"bogus": 1}, "bogus: unknown key"),
    ({"limits": {"max_instances": 0}}, "limits.max_instances: expected an integer >= 1"),
    ({"limits": {"max_files": 3}}, "limits.max_files: unknown key"),
    ({"tokens": {"short": {"name": "a"}}}, "at least 8 characters"),
    ({"tokens": {"long-enough-token": {}}}, "expected {\"name\""),
    ({"tokens": {"long-enough-token": {"name": "a", "max_jobs": 0}}}, "max_jobs: expected an integer >= 1"),
    ({"port": 70000}, "port: expected 0 .. 65535"),
    ({"workers": -1}, "workers: expected an integer >= 0"),
    ({"checkpoint_every": "often"}, "checkpoint_every: expected seconds"),
    ({"report": 1}, "report: expected true or false"),
    ({"connections": []}, "connections: expected an object"),
    ({"connections": {"max_open": 5}}, "connections.max_open: unknown key"),
    ({"connections": {"max_total": 0}}, "connections.max_total: expected an integer >= 1"),
    ({"connections": {"max_per_client": -1}}, "connections.max_per_client: expected an integer >= 0"),
    ({"connections": {"header_timeout": 0}}, "connections.header_timeout: expected seconds > 0"),
    ({"connections": {"body_timeout": "1m"}}, "connections.body_timeout: expected seconds > 0"),
    ({"connections": {"keep_alive_timeout": float("inf")}}, "connections.keep_alive_timeout: expected seconds > 0"),
    ({"validation": 2}, "validation: expected an object"),
    ({"validation": {"threads": 2}}, "validation.threads: unknown key"),
    ({"validation": {"workers": 0}}, "validation.workers: expected an integer >= 1"),
    ({"validation": {"per_owner": 0}}, "validation.per_owner: expected an integer >= 1"),
    ({"validation": {"timeout_s": -1}}, "validation.timeout_s: expected seconds > 0"),
])
def test_bad_config_values_name_the_key(doc, says):
    with pytest.raises(ValueError, match=None) as e:
        config_from_dict(doc)
    assert says in str(e.value)


def test_relative_paths_are_relative_to_the_config_file(tmp_path):
    c = config_from_dict({"data_dir": "d", "database": "q/jobs.sqlite"}, str(tmp_path))
    assert c.data_dir == str(tmp_path / "d") and c.database_path == str(tmp_path / "q" / "jobs.sqlite")
    assert config_from_dict({"data_dir": "d"}, str(tmp_path)).database_path == str(tmp_path / "d" / "jobs.sqlite")


def test_one_service_per_database(tmp_path):
    """The lock is the database file's own: the same path, a symbolic link and a hard
    link to it are all refused while one service holds it."""
    db = tmp_path / "jobs.sqlite"
    store = JobStore(str(db))
    (tmp_path / "sym.sqlite").symlink_to(db)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "hard.sqlite").hardlink_to(db)
    try:
        for name in (db, tmp_path / "sym.sqlite", tmp_path / "other" / "hard.sqlite"):
            with pytest.raises(DatabaseBusy, match="used by another simphant serve"):
                JobStore(str(name))
        store.insert_if_below("a", "alice", {}, 5)  # the holder still works
    finally:
        store.close()
    again = JobStore(str(tmp_path / "other" / "hard.sqlite"))  # free again, and the same queue
    try:
        assert again.get("a")["owner"] == "alice"
    finally:
        again.close()


def test_the_service_stops_with_its_launcher(cli, tmp_path):
    """SIGKILL of `simphant serve` (the launcher) stops the Python service under it too
    (SIGTERM through PR_SET_PDEATHSIG), which frees the database for the next service."""
    server = Server(cli, tmp_path).start(via="cli")
    launcher = server.proc.pid
    child = int(pathlib.Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()[0])
    server.kill()
    try:
        wait_for(lambda: not pid_alive(child) or _zombie(child), timeout=60, what="the service to stop after its launcher")
    finally:
        if pid_alive(child) and not _zombie(child):
            os.kill(child, signal.SIGKILL)  # an orphan left by a failure of this test
    Server(cli, tmp_path).start(via="cli").stop()  # the database is free again


def _zombie(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except FileNotFoundError:
        return True


def _serve(cli, *args, timeout=60):
    return subprocess.run([cli, "serve", *args], capture_output=True, text=True, timeout=timeout)


def test_exit_codes_of_serve_main(tmp_path, capsys):
    from simphant.serve.__main__ import main
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"limits": {"max_steps": -5}}))
    assert main(["--config", str(bad)]) == 2 and "limits.max_steps" in capsys.readouterr().err
    (tmp_path / "notjson.json").write_text("{")
    assert main(["--config", str(tmp_path / "notjson.json")]) == 2 and "not JSON" in capsys.readouterr().err
    assert main(["--config", str(tmp_path / "missing.json")]) == 2 and "missing.json" in capsys.readouterr().err
    assert main(["--no-such-flag"]) == 2
    assert main(["--port", "70000"]) == 2 and "--port" in capsys.readouterr().err
    assert main(["--workers", "-1"]) == 2 and "--workers" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "--config" in capsys.readouterr().out
    store = JobStore(str(tmp_path / "data" / "jobs.sqlite"))  # the database held by another service
    try:
        assert main(["--data", str(tmp_path / "data"), "--port", "0"]) == 3
        assert "used by another simphant serve" in capsys.readouterr().err
    finally:
        store.close()


def test_exit_codes_of_simphant_serve(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"limits": {"max_steps": -5}}))
    r = _serve(cli, "--config", str(bad))
    assert r.returncode == 2 and "limits.max_steps" in r.stderr
    r = _serve(cli, "--help")
    assert r.returncode == 0 and "--config" in r.stdout
    # a port in use
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = _serve(cli, "--data", str(tmp_path / "data2"), "--port", str(port), "--log-level", "critical")
        assert r.returncode == 3 and f"127.0.0.1:{port}" in r.stderr, r.stderr


def test_one_worker_per_gpu_each_seeing_its_own(tmp_path, monkeypatch):
    from simphant.serve import ServeConfig
    from simphant.serve.runner import worker_devices
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-a)'\necho 'GPU 1: NVIDIA H200 (UUID: GPU-b)'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{__import__('os').environ['PATH']}")
    assert worker_devices(ServeConfig()) == ["0", "1"]
    assert worker_devices(ServeConfig(workers=3)) == ["0", "1", "0"]
    assert worker_devices(ServeConfig(ray_address="auto", workers=2)) == [None, None]
    smi.write_text("#!/bin/sh\nexit 9\n")
    assert worker_devices(ServeConfig(workers=2)) == [None, None]


def test_failure_messages_leave_out_the_job_folder(tmp_path):
    from simphant.serve.runner import _relative
    folder = tmp_path / "jobs" / "0123abcd"
    folder.mkdir(parents=True)
    msg = f"error: {folder}/scene.json: /bodies/0/mass: must be > 0; output {folder}/out.h5 kept in {folder}"
    assert _relative(msg, str(folder)) == "error: scene.json: /bodies/0/mass: must be > 0; output out.h5 kept in ."
