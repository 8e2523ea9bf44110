"""A real `simphant serve` for the service's tests: a subprocess (uvicorn on 127.0.0.1 at a
free port) with its config, data folder and SQLite file under a test's tmp_path."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
from typing import Any, Dict, Optional

import httpx

from conftest import python_env

ALICE, BOB = "alice-token-0001", "bob-token-00002"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """start(): `simphant serve --config ...` (via="cli": the C++ CLI's launcher) or
    `python -m simphant.serve` (via="python": the server is the process itself, so a
    SIGKILL reaches it); client(token) -> httpx.Client; stop() / kill(). `env`: variables
    added to the server's environment, which its job runs inherit (e.g. hold_env());
    `preexec`: a function run in the server's process before it starts (e.g. to lower a
    resource limit)."""

    def __init__(self, cli: str, tmp: pathlib.Path, env: Optional[Dict[str, str]] = None, **config: Any) -> None:
        self.cli, self.tmp = cli, tmp
        self.env = dict(env or {})
        self.data = tmp / "data"
        self.config: Dict[str, Any] = {
            "data_dir": str(self.data), "database": str(tmp / "queue" / "jobs.sqlite"),
            "tokens": {ALICE: {"name": "alice"}, BOB: {"name": "bob", "max_jobs": 2}},
            "workers": 1, "report": False, "checkpoint_every": 0.2, "threads": 1,
        }
        self.config.update(config)
        self.config_path = tmp / "serve.json"
        self.config_path.write_text(json.dumps(self.config))
        self.proc: Optional[subprocess.Popen] = None
        self.port = 0
        self.preexec = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, via: str = "cli", timeout: float = 60.0) -> "Server":
        self.port = free_port()
        self.via = via
        env = python_env()
        env["SIMPHANT_EXECUTABLE"] = self.cli
        env.update(self.env)
        args = ["--config", str(self.config_path), "--port", str(self.port), "--log-level", "warning"]
        cmd = [self.cli, "serve", *args] if via == "cli" else [sys.executable, "-m", "simphant.serve", *args]
        self.log = open(self.tmp / f"server-{self.port}.log", "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=self.preexec)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.read_log()}")
            try:
                if httpx.get(self.url + "/openapi.json", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not answer: " + self.read_log())

    def read_log(self) -> str:
        return (self.tmp / f"server-{self.port}.log").read_text(errors="replace")

    def client(self, token: Optional[str] = ALICE, **kw: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, **kw)

    def stop(self) -> int:
        """SIGTERM and wait: the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(60)
        finally:
            self.log.close()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)
        self.log.close()

    def rss_kib(self) -> int:
        """The server process's resident set [KiB] (the Python process under `simphant serve`)."""
        pid = self.proc.pid
        if self.via == "cli":  # the Python process is the launcher's one child
            pid = int(pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")


def wait_final(client: httpx.Client, job_id: str, timeout: float = 120.0) -> Dict[str, Any]:
    """Polls GET /jobs/{id} until the job reaches a final state; its statusInfo."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        info = client.get(f"/jobs/{job_id}").json()
        if info["status"] in ("successful", "failed", "dismissed"):
            return info
        time.sleep(0.1)
    raise TimeoutError(f"job {job_id} still {info['status']} after {timeout} s")


def wait_for(predicate, timeout: float = 60.0, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError(what)


def hold_env(step: int) -> Dict[str, str]:
    """The environment that holds every job run of a server at `step` (SIMPHANT_TEST_HOLD,
    docs/reliability.md "Test hooks"), each in its own folder: the run writes "hold.held"
    there and waits until "hold" exists (release()) or it is stopped. A run that ends
    before that step, or resumes at or past it, does not hold."""
    return {"SIMPHANT_TEST_HOLD": f"step={step}:hold"}


def wait_held(folder: pathlib.Path, timeout: float = 120.0, other_than: Optional[int] = None) -> Dict[str, Any]:
    """Waits until the run in a job's folder is held (hold_env) and returns its report
    (point, pid, steps_done, steps_total, wall_s, loop_wall_s); other_than: a pid whose
    earlier report does not count (a later attempt's run)."""
    held = folder / "hold.held"

    def ready() -> bool:
        try:
            return held.exists() and json.loads(held.read_text())["pid"] != other_than
        except (OSError, ValueError):
            return False

    wait_for(ready, timeout, what=f"a run held in {folder}")
    return json.loads(held.read_text())


def release(folder: pathlib.Path) -> None:
    """Lets the held run of a job's folder (hold_env) go on, and any later one pass."""
    (folder / "hold").write_text("")


def pendulum(examples: pathlib.Path) -> Dict[str, Any]:
    return json.loads((examples / "pendulum.json").read_text())


def cli_run(cli: str, scene_text: str, folder: pathlib.Path, *flags: str) -> pathlib.Path:
    """The same job through `simphant run` itself: the scene text as scene.json in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scene.json").write_text(scene_text)
    r = subprocess.run([cli, "run", "scene.json", "--out", "out.h5", "--threads", "1", *flags], cwd=folder,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return folder / "out.h5"


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
