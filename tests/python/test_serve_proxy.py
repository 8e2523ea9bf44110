"""The shipped reverse-proxy configuration (docker/proxy/simphant.conf; docs/service.md,
"Deployment behind a reverse proxy") in a real nginx (Debian's nginx-light) on 127.0.0.1
in front of a real `simphant serve`: requests pass through; a client that never finishes
its headers or its body is dropped by nginx within its timeouts (shortened here to 1 s)
and never reaches the service; an address past its connection bound (lowered here to 4)
is answered 503 while another address is served."""
from __future__ import annotations

import pathlib
import re
import shutil
import socket
import subprocess
import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from serve_server import ALICE, Server, free_port, pendulum, wait_final  # noqa: E402

SHIPPED = pathlib.Path(__file__).resolve().parents[2] / "docker" / "proxy" / "simphant.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if pathlib.Path("/usr/sbin/nginx").exists() else None)


class Proxy:
    """nginx with the shipped server block, its upstream the given service port, one
    process (master_process off) as the invoking user, everything under `tmp`."""

    def __init__(self, tmp: pathlib.Path, service_port: int, per_client: int, timeout_s: int) -> None:
        self.tmp, self.port = tmp, free_port()
        conf = SHIPPED.read_text()
        edits = [(r"server simphant:8080;", f"server 127.0.0.1:{service_port};"),
                 (r"listen 8080;", f"listen 127.0.0.1:{self.port};"),
                 (r"client_header_timeout \d+s;", f"client_header_timeout {timeout_s}s;"),
                 (r"client_body_timeout \d+s;", f"client_body_timeout {timeout_s}s;"),
                 (r"limit_conn simphant_per_client \d+;", f"limit_conn simphant_per_client {per_client};")]
        for pattern, value in edits:
            conf, n = re.subn(pattern, value, conf)
            assert n == 1, f"{pattern} not in {SHIPPED}"
        (tmp / "simphant.conf").write_text(conf)
        temps = "".join(f"{k}_temp_path {tmp / k};\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (tmp / "nginx.conf").write_text(
            f"daemon off;\nmaster_process off;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'} info;\n"
            f"events {{ worker_connections 256; }}\n"
            f"http {{\naccess_log {tmp / 'access.log'};\n{temps}include {tmp / 'simphant.conf'};\n}}\n")
        subprocess.run([NGINX, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")], check=True, capture_output=True)
        self.proc = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        end = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert self.proc.poll() is None, (tmp / "error.log").read_text()
                assert time.monotonic() < end, "nginx did not listen"
                time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def _request(port: int, raw: bytes, source: str = "127.0.0.1", limit: float = 30.0) -> bytes:
    """Sends raw and returns everything until the peer closes (b"" when it closes unanswered)."""
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(raw)
    s.settimeout(limit)
    chunks = []
    try:
        while data := s.recv(65536):
            chunks.append(data)
    except ConnectionResetError:
        pass
    s.close()
    return b"".join(chunks)


def _get(path: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\nConnection: close\r\n\r\n").encode()


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (scripts/setup_tests.sh installs nginx-light)")
def test_nginx_in_front_of_the_service(cli, examples, tmp_path):
    (tmp_path / "srv").mkdir()
    (tmp_path / "proxy").mkdir()
    srv = Server(cli, tmp_path / "srv", connections={"max_per_client": 0}).start()
    proxy = Proxy(tmp_path / "proxy", srv.port, per_client=4, timeout_s=1)
    held = []
    try:
        # Through the proxy: a job submitted and its status read.
        with httpx.Client(base_url=f"http://127.0.0.1:{proxy.port}", headers={"Authorization": f"Bearer {ALICE}"},
                          timeout=60) as c:
            scene = pendulum(examples)
            scene["solver"]["t_end"] = 0.05
            r = c.post("/jobs", json={"scene": scene, "options": {"instances": 2}})
            assert r.status_code == 201, r.text
            assert wait_final(c, r.json()["jobID"])["status"] == "successful"
        # Half a header and half a body: nginx drops both after its 1 s timeouts.
        for raw in (b"GET /jobs HTTP/1.1\r\nHost: x\r\n",
                    (f"POST /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{").encode()):
            start = time.monotonic()
            answer = _request(proxy.port, raw)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert time.monotonic() - start >= 0.9
        # Four uploads in progress from one address: the fifth is answered 503 at once,
        # another address is served.
        for _ in range(4):
            s = socket.create_connection(("127.0.0.1", proxy.port))
            s.sendall((f"POST /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\n"
                       "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{").encode())
            held.append(s)
        deadline = time.monotonic() + 10
        while not (r5 := _request(proxy.port, _get("/jobs"), limit=5)).startswith(b"HTTP/1.1 503"):
            assert time.monotonic() < deadline, r5[:200]
        assert _request(proxy.port, _get("/jobs"), source="127.0.0.2").startswith(b"HTTP/1.1 200")
    finally:
        for s in held:
            s.close()
        proxy.stop()
        srv.stop()
