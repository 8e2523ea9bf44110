"""A pip user's path, against the wheel of scripts/build_wheel.sh installed in a fresh venv
(scripts/wheel_check.sh runs this file with that venv's interpreter, from outside the
source tree): the console command `simphant`, a run, the report's missing extra, the
service started by its console command with nothing but the venv, and the wheel's
bundled libraries and licences. SIMPHANT_SOURCE_DIR names the repository (examples/)."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional

import simphant
from simphant import _extras

SOURCE = Path(os.environ["SIMPHANT_SOURCE_DIR"])
BIN = Path(sys.executable).parent
PACKAGE = Path(simphant.__file__).parent
#: Libraries every manylinux system has (the lib_whitelist of auditwheel's manylinux policy,
#: which leaves them out of the wheel, less the graphics ones), and the dynamic loader.
SYSTEM_LIBS = re.compile(r"^(linux-vdso|ld-linux[-\w]*|libc|libm|libmvec|libdl|librt|libpthread|libresolv|libanl|"
                         r"libnsl|libutil|libatomic|libstdc\+\+|libgcc_s|libz|libexpat)\.so")


def user_env() -> Dict[str, str]:
    """The environment of a user who calls the venv's commands by path: no PYTHONPATH, no
    SIMPHANT_* variables, a PATH without the venv's bin/ and without a build tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMPHANT_") and k != "PYTHONPATH"}
    env["PATH"] = "/usr/bin:/bin"
    return env


def command(name: str, *args: str, **kw: Any) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / name), *args], capture_output=True, text=True, env=user_env(), timeout=300,
                          **kw)


def test_installed_from_site_packages() -> None:
    assert "site-packages" in PACKAGE.parts, PACKAGE


def test_console_command_runs_the_bundled_cli(tmp_path: Path) -> None:
    r = command("simphant", "--version")
    assert r.returncode == 0, r.stderr
    assert simphant.__version__ in r.stdout
    out = tmp_path / "pendulum.h5"
    r = command("simphant", "run", str(SOURCE / "examples" / "pendulum.json"), "--instances", "4", "--t-end", "0.05",
                "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["instances_ok"] == 4
    assert out.is_file()


def test_missing_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    """The report's packages are not in this venv (scripts/wheel_check.sh installs only
    the results and serve extras): `simphant report` says so in one line, exit 3."""
    assert _extras.missing("report"), "this check needs a venv without the report extra"
    out = tmp_path / "pendulum.h5"
    assert command("simphant", "run", str(SOURCE / "examples" / "pendulum.json"), "--instances", "2", "--t-end",
                   "0.01", "--out", str(out)).returncode == 0
    for r in (command("simphant", "report", str(out), "-o", str(tmp_path / "report")),
              command("simphant-report", str(out), "-o", str(tmp_path / "report"))):
        assert r.returncode == 3, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert "pip install 'simphant[report]'" in lines[0]
        assert "Traceback" not in r.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url: str, token: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Authorization": f"Bearer {token}",
                                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def test_service_from_its_console_command_runs_a_job(tmp_path: Path) -> None:
    """`simphant-serve` finds the CLI the wheel carries (no SIMPHANT_EXECUTABLE, no PATH
    entry) and runs a job with it; the job's report runs with the venv's interpreter, which
    lacks the report extra here and says so."""
    token = "wheel-token-0001"
    config = tmp_path / "serve.json"
    config.write_text(json.dumps({"data_dir": str(tmp_path / "data"), "database": str(tmp_path / "jobs.sqlite"),
                                  "tokens": {token: {"name": "user"}}, "workers": 1, "report": True}))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "serve.log", "wb")
    server = subprocess.Popen([str(BIN / "simphant-serve"), "--config", str(config), "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, env=user_env())
    try:
        deadline = time.monotonic() + 60
        while True:  # until the server answers (it imports FastAPI and opens its database first)
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                call(url + "/jobs", token)
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the service did not answer within 60 s"
                time.sleep(0.1)
        scene = json.loads((SOURCE / "examples" / "pendulum.json").read_text())
        job = call(url + "/jobs", token, {"scene": scene, "options": {"instances": 2, "t_end": 0.05}})
        deadline = time.monotonic() + 120
        while job["status"] not in ("successful", "failed", "dismissed"):
            assert time.monotonic() < deadline, f"the job is still {job['status']} after 120 s"
            time.sleep(0.1)
            job = call(f"{url}/jobs/{job['jobID']}", token)
        assert job["status"] == "successful", job
        assert job["summary"]["instances_ok"] == 2
        assert job["message"].startswith("report not written: "), job["message"]
        assert "the report (simphant report) needs " in job["message"], job["message"]
        assert f"which {BIN}/" in job["message"] and "pip install 'simphant[report]'" in job["message"]
    finally:
        server.terminate()
        server.wait(60)
        log.close()


def resolved_libraries(elf: Path) -> Dict[str, str]:
    out = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, check=True).stdout
    libs = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)(?: => (\S+))?", line)
        if m:
            libs[m.group(1)] = m.group(2) or m.group(1)
    return libs


def test_binaries_need_only_the_wheel_and_the_base_system() -> None:
    """Every library the CLI, the core and the module load is in the wheel or one that
    every manylinux system has."""
    binaries = [PACKAGE / "bin" / "simphant", *PACKAGE.glob("libsimphant.so*"), *PACKAGE.glob("_simphant*.so")]
    assert len(binaries) == 3, binaries
    site = str(PACKAGE.parent)
    for elf in binaries:
        for name, path in resolved_libraries(elf).items():
            assert path != "not found", f"{elf.name}: {name} not found"
            assert path.startswith(site) or SYSTEM_LIBS.match(Path(name).name), f"{elf.name}: {name} from {path}"


def test_bundled_libraries_have_their_licences() -> None:
    licences = PACKAGE / "third_party_licenses"
    readme = (licences / "README.md").read_text()
    bundled = sorted((PACKAGE.parent / "simphant.libs").iterdir())
    assert bundled, "auditwheel bundled nothing"
    for lib in bundled:
        row = next((line for line in readme.splitlines() if f"simphant.libs/{lib.name} " in line), None)
        assert row is not None, f"{lib.name} is not listed"
        licence = row.rstrip(" |").rsplit("|", 1)[1].strip()
        assert (licences / licence).stat().st_size > 0, licence
    for name in ("Eigen", "nlohmann-json", "CLI11", "nanobind"):
        assert f"| {name} |" in readme


def test_gym_models_and_their_licence_are_in_the_wheel() -> None:
    """simphant.gym's InvertedPendulum-v5 / InvertedDoublePendulum-v5 read Gymnasium's
    MJCF files from the package (simphant/gym/assets/, MIT), and the importer reads them."""
    from simphant import _simphant

    assets = PACKAGE / "gym" / "assets"
    assert "MIT License" in (assets / "LICENSE-gymnasium.txt").read_text()
    for name, gear in (("inverted_pendulum.xml", 100.0), ("inverted_double_pendulum.xml", 500.0)):
        model = _simphant.mjcf_model(str(assets / name))
        assert [a["gear"] for a in model["actuators"]] == [gear]
