"""The service's job API through a real server (tests/python/serve_server.py): every
route, token isolation and every class of bad input answered with a clear 4xx."""
from __future__ import annotations

import io
import json
import socket
import sys
import zipfile

import pytest

from conftest import require, run_cli

require("fastapi")
require("uvicorn")
require("multipart")
httpx = require("httpx")

from h5_compare import assert_same_file  # noqa: E402
from serve_server import ALICE, BOB, Server, cli_run, hold_env, pendulum, wait_final, wait_held  # noqa: E402

SMALL = {"instances": 4, "t_end": 0.2}


@pytest.fixture(scope="module")
def server(cli, tmp_path_factory):
    s = Server(cli, tmp_path_factory.mktemp("serve_api"), limits={"max_upload_bytes": 200_000,
                                                                  "max_instances": 1000, "max_steps": 2_000_000})
    s.start(via="cli")
    yield s
    assert s.stop() == 143, s.read_log()  # stopped by SIGTERM: 128 + 15 (README "Exit codes")


def test_a_job_runs_and_its_results_equal_the_cli_run(server, examples, cli, tmp_path):
    with server.client() as c:
        r = c.post("/jobs", json={"scene": pendulum(examples), "options": SMALL})
        assert r.status_code == 201, r.text
        job = r.json()
        assert job["status"] == "queued" and r.headers["location"] == f"/jobs/{job['jobID']}"
        # the events stream ends at the final state, progress never decreasing
        states, progress = [], []
        with c.stream("GET", f"/jobs/{job['jobID']}/events") as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            for line in s.iter_lines():
                if line.startswith("data:"):
                    d = json.loads(line[5:])
                    states.append(d["status"])
                    progress.append(d["progress"])
        assert states[-1] == "successful" and progress == sorted(progress) and progress[-1] == 100
        info = c.get(f"/jobs/{job['jobID']}").json()
        assert info["summary"]["instances"] == 4 and info["summary"]["instances_ok"] == 4
        assert info["steps_total"] == info["steps_done"] == 200 and info["finished"] is not None
        links = {link["title"]: link for link in c.get(f"/jobs/{job['jobID']}/results").json()["links"]}
        assert {"out.h5", "summary.json", "scene.json"} <= set(links)
        out = tmp_path / "served.h5"
        out.write_bytes(c.get(links["out.h5"]["href"]).content)
        assert out.stat().st_size == links["out.h5"]["length"]
        assert c.get(links["summary.json"]["href"]).json()["instances"] == 4
        scene_text = c.get(links["scene.json"]["href"]).text
        listed = [j["jobID"] for j in c.get("/jobs").json()["jobs"]]
        assert job["jobID"] in listed
        assert job["jobID"] in [j["jobID"] for j in c.get("/jobs", params={"status": "successful"}).json()["jobs"]]
        others = c.get("/jobs", params={"status": ["queued", "failed"]}).json()["jobs"]
        assert job["jobID"] not in [j["jobID"] for j in others]
        assert len(c.get("/jobs", params={"limit": 1}).json()["jobs"]) == 1
        assert c.get("/jobs", params={"status": "done"}).status_code == 422
        assert c.get("/jobs", params={"limit": 0}).json()["path"] == "/query/limit"
    ref = cli_run(cli, scene_text, tmp_path / "cli", "--instances", "4", "--t-end", "0.2")
    assert assert_same_file(ref, out) > 5


def test_multipart_upload_with_a_urdf_bundle(server, examples):
    scene = json.loads((examples / "arm7.json").read_text())
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as z:
        z.write(examples / "arm7.urdf", "arm7.urdf")
    with server.client() as c:
        r = c.post("/jobs", files={"scene": ("arm7.json", json.dumps(scene)), "bundle": ("b.zip", bundle.getvalue())},
                   data={"options": json.dumps({"instances": 2, "t_end": 0.01})})
        assert r.status_code == 201, r.text
        info = wait_final(c, r.json()["jobID"])
        assert info["status"] == "successful", info["message"]
        # the same with the URDF as a plain file part
        r = c.post("/jobs", files=[("scene", ("arm7.json", json.dumps(scene))),
                                   ("files", ("arm7.urdf", (examples / "arm7.urdf").read_bytes()))],
                   data={"options": json.dumps({"instances": 2, "t_end": 0.01})})
        assert r.status_code == 201, r.text
        assert wait_final(c, r.json()["jobID"])["status"] == "successful"


def test_tokens_see_only_their_own_jobs(server, examples):
    with server.client(ALICE) as alice, server.client(BOB) as bob:
        jid = alice.post("/jobs", json={"scene": pendulum(examples), "options": SMALL}).json()["jobID"]
        for method, path in (("GET", f"/jobs/{jid}"), ("GET", f"/jobs/{jid}/results"),
                             ("GET", f"/jobs/{jid}/results/scene.json"), ("GET", f"/jobs/{jid}/events"),
                             ("DELETE", f"/jobs/{jid}")):
            r = bob.request(method, path)
            assert r.status_code == 404, (method, path, r.text)
        assert jid not in [j["jobID"] for j in bob.get("/jobs").json()["jobs"]]
        assert alice.get(f"/jobs/{jid}").status_code == 200
        wait_final(alice, jid)
    for token in (None, "wrong-token-000", ""):
        with server.client(token) as anon:
            r = anon.get("/jobs")
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    with httpx.Client(base_url=server.url) as anon:
        assert anon.get("/jobs", headers={"Authorization": f"Basic {ALICE}"}).status_code == 401
        assert anon.get("/openapi.json").status_code == 200


def test_ogc_process_description_and_execution(server, examples):
    with server.client() as c:
        conforms = c.get("/conformance").json()["conformsTo"]
        assert "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core" in conforms
        assert [p["id"] for p in c.get("/processes").json()["processes"]] == ["simphant-run"]
        d = c.get("/processes/simphant-run").json()
        assert {"scene", "options"} <= set(d["inputs"]) and "out.h5" in d["outputs"]
        assert "instances" in d["inputs"]["options"]["schema"]["properties"]
        assert c.get("/processes/other").status_code == 404
        r = c.post("/processes/simphant-run/execution", json={"scene": pendulum(examples), "options": SMALL})
        assert r.status_code == 201 and r.headers["location"] == f"/jobs/{r.json()['jobID']}"
        assert wait_final(c, r.json()["jobID"])["status"] == "successful"
        assert c.post("/processes/other/execution", json={"scene": {}}).status_code == 404
    with server.client(None) as anon:
        assert anon.get("/processes").status_code == 401


def test_openapi_lists_every_route(server):
    doc = httpx.get(server.url + "/openapi.json").json()
    paths = doc["paths"]
    assert {"post", "get"} <= set(paths["/jobs"])
    assert {"get", "delete"} <= set(paths["/jobs/{job_id}"])
    for p in ("/jobs/{job_id}/events", "/jobs/{job_id}/results", "/jobs/{job_id}/results/{name}"):
        assert "get" in paths[p]
    assert "JobOptions" in doc["components"]["schemas"]


def _bad(c, expect, **kw):
    r = c.post("/jobs", **kw)
    assert r.status_code == expect, r.text
    body = r.json()
    assert body["status"] == expect and body["detail"]
    return body


def test_bad_input_is_a_clear_4xx(server, examples):
    scene = pendulum(examples)
    with server.client() as c:
        json_type = {"content-type": "application/json"}
        assert "not JSON" in _bad(c, 400, content=b"{\"scene\": ", headers=json_type)["detail"]
        _bad(c, 415, content=b"scene", headers={"content-type": "text/plain"})
        assert _bad(c, 422, json={"options": {}})["path"] == "/scene"
        assert _bad(c, 422, json={"scene": scene, "bogus": 1})["path"] == "/bogus"
        assert _bad(c, 422, json={"scene": scene, "options": {"instances": 0}})["path"] == "/options/instances"
        assert _bad(c, 422, json={"scene": scene, "options": {"backend": "tpu"}})["path"] == "/options/backend"
        assert _bad(c, 422, json={"scene": scene, "options": {"dt": "fast"}})["path"] == "/options/dt"
        assert _bad(c, 422, json={"scene": scene, "options": {"frobnicate": 1}})["path"] == "/options/frobnicate"
        for not_an_object in ([], 0, "", False, "{}"):  # never taken as "no options"
            assert _bad(c, 422, json={"scene": scene, "options": not_an_object})["path"] == "/options", not_an_object
        assert _bad(c, 422, json={"scene": "{not json"})["path"] == "/scene"
        bad = json.loads(json.dumps(scene))
        bad["bodies"][0]["mass"] = -1.0
        body = _bad(c, 422, json={"scene": bad})
        assert body["path"] == "/bodies/0/mass" and "mass" in body["detail"]
        bad = json.loads(json.dumps(scene))
        bad["joints"][0]["body_j"] = "nobody"
        assert _bad(c, 422, json={"scene": bad})["path"].startswith("/joints/0")
        deep = "[" * 50000 + "]" * 50000  # deeper than json.loads recurses
        assert "deeply" in _bad(c, 400, content=b'{"scene": ' + deep.encode() + b"}",
                                headers={"content-type": "application/json"})["detail"]
        assert _bad(c, 422, json={"scene": "{\"a\": " + deep + "}"})["path"] == "/scene"
        bad = json.loads(json.dumps(scene))  # a sweep that samples an invalid instance
        bad["sweep"]["parameters"] = [{"path": "bodies.rod.mass", "dist": "uniform", "low": -2.0, "high": -1.0}]
        body = _bad(c, 422, json={"scene": bad})
        assert "mass" in body["detail"], body
        # multipart: options not JSON, no scene, an unknown field
        assert _bad(c, 400, files={"scene": ("s.json", json.dumps(scene))}, data={"options": "{"})["path"] == "/options"
        assert _bad(c, 422, files={"bundle": ("b.zip", b"")})["path"] == "/scene"
        assert _bad(c, 422, files={"scene": ("s.json", json.dumps(scene)), "extra": ("x", b"")})["path"] == "/extra"
        assert _bad(c, 422, files={"scene": ("s.json", "[1, 2]")})["path"] == "/scene"
        # limits: instances, instance-steps
        assert "max_instances" in _bad(c, 403, json={"scene": scene, "options": {"instances": 1001}})["detail"]
        assert "max_steps" in _bad(c, 403, json={"scene": scene, "options": {"instances": 1000, "t_end": 10}})["detail"]
        # ... checked from the request before the scene is compiled: a sweep of a million
        # instances whose body is also invalid is refused for its size (403), not after
        # sampling and validating it (which would answer 422 for the mass).
        big = json.loads(json.dumps(scene))
        big["bodies"][0]["mass"] = -1.0
        big["sweep"] = {"mode": "random", "instances": 1_000_000,
                        "parameters": [{"path": "gravity[2]", "dist": "uniform", "low": -10, "high": -9}]}
        assert _bad(c, 403, json={"scene": big})["path"] == "/options/instances"
        big["sweep"] = {"mode": "grid", "parameters": [{"path": "gravity[2]", "dist": "list",
                                                        "values": [-9.0 - k / 2000 for k in range(2000)]}]}
        assert "2000 instances" in _bad(c, 403, json={"scene": big})["detail"]
        big["sweep"] = {"instances": 1000}
        big["solver"] = {"dt": 1e-4, "t_end": 1.0}
        assert "max_steps" in _bad(c, 403, json={"scene": big})["detail"]
        # unknown routes and methods, unknown jobs
        r = c.get("/no/such/route")
        assert r.status_code == 404 and "no route" in r.json()["detail"]
        assert c.put("/jobs").status_code == 405
        assert c.get("/jobs/0123456789abcdef").status_code == 404
        assert c.get("/jobs/../../etc/passwd").status_code == 404
        assert c.delete("/jobs/nope").status_code == 404
    assert not list((server.data / "jobs").glob("*/scene.json")) or all(
        p.parent.name in _job_ids(server) for p in (server.data / "jobs").glob("*/scene.json"))


def _job_ids(server):
    with server.client(ALICE) as a, server.client(BOB) as b:
        return {j["jobID"] for c in (a, b) for j in c.get("/jobs").json()["jobs"]}


def _zip(entries, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            z.writestr(info, data, compress_type=compression)
    return buf.getvalue()


@pytest.mark.parametrize("entry, mode, says", [
    ("/etc/evil.urdf", 0o100644, "absolute"),
    ("../evil.urdf", 0o100644, "'..'"),
    ("meshes/../../evil.stl", 0o100644, "'..'"),
    ("link.urdf", 0o120777, "symbolic link"),
    ("../evil.txt", 0o600, "'..'"),  # permission bits only (zipfile.writestr): the path rule first
    ("fifo.urdf", 0o010644, "not a regular file"),
    ("out.h5", 0o100644, "reserved"),
])
def test_bundle_entries_outside_the_job_folder_are_refused(server, examples, entry, mode, says):
    with server.client() as c:
        body = _bad(c, 400, files={"scene": ("s.json", json.dumps(pendulum(examples))),
                                   "bundle": ("b.zip", _zip([(entry, b"x", mode)]))})
        assert entry in body["detail"] and says in body["detail"]
        body = _bad(c, 400, files={"scene": ("s.json", "{}"), "bundle": ("b.zip", b"not a zip")})
        assert "not a zip" in body["detail"]


@pytest.mark.parametrize("entries, says", [
    (["a", "a/b.txt"], "a folder of its path is a file of another entry"),
    (["a/b.txt", "a"], "a folder of another entry's path"),
    (["x" * 5000], "a name longer than 255 bytes"),
    (["/".join(["d"] * 100) + "/f"], "more than 64 folders deep"),
])
def test_bundle_entries_that_cannot_be_files_are_400(server, examples, entries, says):
    """Client errors, not the service's (formerly 507): entries whose names clash as file
    and folder, or that no file system takes."""
    with server.client() as c:
        body = _bad(c, 400, files={"scene": ("s.json", json.dumps(pendulum(examples))),
                                   "bundle": ("b.zip", _zip([(e, b"x", 0o100644) for e in entries]))})
        assert says in body["detail"] and len(body["detail"]) < 400, body["detail"]


def test_bundle_entries_without_file_type_bits_are_regular_files(server, examples):
    # zipfile.writestr with a bare name writes 0o600 << 16: permission bits, no S_IFMT type
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("notes/readme.txt", b"a regular file")
    assert zipfile.ZipFile(buf).infolist()[0].external_attr >> 16 == 0o600
    with server.client() as c:
        r = c.post("/jobs", files={"scene": ("s.json", json.dumps(pendulum(examples))),
                                   "bundle": ("b.zip", buf.getvalue())}, data={"options": json.dumps(SMALL)})
        assert r.status_code == 201, r.text
        jid = r.json()["jobID"]
        assert (server.data / "jobs" / jid / "notes" / "readme.txt").read_bytes() == b"a regular file"
        assert wait_final(c, jid)["status"] == "successful"


def test_a_bundle_unpacking_past_the_limit_is_413_naming_its_unpacked_size(server, examples):
    big = _zip([("zeros.bin", bytes(300_000), 0o100644)], zipfile.ZIP_DEFLATED)  # 300 kB in < 1 kB
    assert len(big) < 2_000
    with server.client() as c:
        body = _bad(c, 413, files={"scene": ("s.json", json.dumps(pendulum(examples))), "bundle": ("b.zip", big)})
        assert "the unpacked contents of the bundle (300000 bytes) exceed the upload limit of 200000 bytes" \
            in body["detail"], body
        assert "request body" not in body["detail"]


@pytest.mark.parametrize("options, path, says", [
    ({"integrator": "bdf", "backend": "cuda"}, "/options/backend", "runs on the cpu backend only"),
    ({"integrator": "bdf", "backend": "cuda-fused"}, "/options/backend", "runs on the cpu backend only"),
    ({"integrator": "dopri5", "backend": "cpu-simd"}, "/options/backend", "runs on the cpu backend"),
    ({"integrator": "dopri5", "error_estimate": True}, "/options/error_estimate", "fixed-step integrators"),
    ({"integrator": "bdf", "error_estimate": True}, "/options/error_estimate", "fixed-step integrators"),
    ({"integrator": "bdf", "atol": 0}, "/options/atol", "must be > 0 with integrator bdf"),
    ({"rtol": 0}, "/options/rtol", "must be a finite number > 0 (got 0)"),
    ({"rtol": -1e-6}, "/options/rtol", "must be a finite number > 0"),
    ({"atol": -1}, "/options/atol", "must be a finite number >= 0 (got -1)"),
])
def test_options_simphant_run_refuses_are_refused_at_submission(server, examples, options, path, says):
    with server.client() as c:
        body = _bad(c, 422, json={"scene": pendulum(examples), "options": {**SMALL, **options}})
        assert body["path"] == path and body["detail"].startswith(path + ": ") and says in body["detail"], body
        # the scene's integrator with the options' backend / error estimate
        scene = pendulum(examples)
        scene.setdefault("solver", {})["integrator"] = options.get("integrator", "rk4")
        rest = {k: v for k, v in options.items() if k != "integrator"}
        body = _bad(c, 422, json={"scene": scene, "options": {**SMALL, **rest}})
        assert body["path"] == path and says in body["detail"], body
    nan = b'{"scene": %s, "options": {"rtol": NaN}}' % json.dumps(pendulum(examples)).encode()
    with server.client() as c:
        body = _bad(c, 422, content=nan, headers={"content-type": "application/json"})
        assert body["path"] == "/options/rtol" and "finite" in body["detail"]


def _backend_grid():
    from simphant import _simphant
    return [(b, p, i, _simphant.refuse_backend_settings(b, p, i))
            for b in ("auto", "cpu", "cpu-simd", "cuda", "cuda-fused") for p in ("fp64", "fp32")
            for i in ("rk4", "dopri5", "bdf")]


@pytest.mark.parametrize("kind", ["integrator option", "scene's integrator", "robot"])
def test_backend_rules_answer_alike_in_the_cli_python_and_the_service(server, examples, cli, tmp_path, kind):
    """One owner of the backend rules (src/simphant/sim/backend_rules.hpp): for every backend,
    precision and integrator, given as options or as the scene's solver.integrator, on a DAE
    scene and a robot in joint coordinates, the CLI, the Python package and the service
    refuse the same settings as bad input, in the same words; the settings they do not
    refuse are not refused as bad input by the CLI either."""
    import simphant

    doc = json.loads((examples / "arm7.json").read_text()) if kind == "robot" else pendulum(examples)
    grid = _backend_grid()
    assert sum(r is not None for *_, r in grid) >= 10
    for backend, precision, integrator, refused in grid:
        case = f"{kind}: {backend} {precision} {integrator}"
        scene_doc = json.loads(json.dumps(doc))
        options = {"backend": backend, "precision": precision}
        if kind == "scene's integrator":
            scene_doc.setdefault("solver", {})["integrator"] = integrator
        else:
            options["integrator"] = integrator
        if kind == "robot":  # the example's URDF, named from the scene's new folder
            scene_doc["robot"]["urdf"] = str((examples / doc["robot"]["urdf"]).resolve())
        scene = tmp_path / "scene.json"
        scene.write_text(json.dumps(scene_doc))
        flags = [f"--{k}={v}" for k, v in options.items()]
        proc = run_cli(cli, "run", str(scene), *flags, "--t-end", "0.002", "--threads", "1", "--out",
                       str(tmp_path / "o.h5"), cwd=tmp_path)
        if refused is None:
            assert proc.returncode != 2, (case, proc.stderr)
            continue
        setting, reason = refused
        assert proc.returncode == 2 and f"error: --{setting}: {reason}" in proc.stderr, (case, proc.stderr)
        with pytest.raises(ValueError) as e:
            simphant.run(scene, out=tmp_path / "p.h5", t_end=0.002, threads=1, **options)
        assert f"--{setting}: {reason}" in str(e.value), case
        if kind == "robot":
            continue  # the service resolves the scene's files from an upload (test_web_urdf.py); the rules are the same
        with server.client() as c:
            body = _bad(c, 422, json={"scene": scene_doc, "options": {**SMALL, **options}})
        assert body["path"] == f"/options/{setting}" and body["detail"] == f"/options/{setting}: {reason}", (case, body)


@pytest.mark.parametrize("ref", ["/etc/passwd", "../../secret.urdf", "a/../../b.urdf"])
def test_scene_file_references_outside_the_job_folder_are_refused(server, examples, ref):
    scene = json.loads((examples / "arm7.json").read_text())
    scene["robot"]["urdf"] = ref
    with server.client() as c:
        body = _bad(c, 400, json={"scene": scene})
        assert body["path"] == "/robot/urdf" and ref in body["detail"]


def test_messages_do_not_show_the_servers_folders(server, examples):
    """A scene naming a robot that example-robot-data does not have: the scene compiler's
    message names the folder it searched, which the service answers as <server>."""
    scene = {"robot": {"urdf": "example-robot-data:nope_description/urdf/nope.urdf"},
             "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}
    with server.client() as c:
        r = c.post("/jobs", json={"scene": scene})
        assert 400 <= r.status_code < 500, r.text
        detail = r.json()["detail"]
        assert "nope_description" in detail and "site-packages" not in detail and sys.prefix not in detail, detail


def test_urdf_mesh_outside_the_bundle_is_refused(server, examples):
    scene = json.loads((examples / "arm7.json").read_text())
    urdf = (examples / "arm7.urdf").read_text().replace(
        "</link>", "<visual><geometry><mesh filename=\"package://arm/../../../../etc/passwd\"/></geometry>"
                   "</visual></link>", 1)
    with server.client() as c:
        body = _bad(c, 400, files=[("scene", ("arm7.json", json.dumps(scene))), ("files", ("arm7.urdf", urdf))])
        assert "arm7.urdf" in body["detail"] and "outside" in body["detail"]


def test_urdf_package_mesh_must_be_found_inside_the_bundle(server, examples):
    """The core finds package://PKG/REST in the URDF's folder or any folder above it: a name
    it finds nowhere in the bundle could reach another job's files, and is refused."""
    scene = json.loads((examples / "arm7.json").read_text())
    urdf = (examples / "arm7.urdf").read_text().replace(
        "</link>", "<visual><geometry><mesh filename=\"package://other/jobs/x/leg.stl\"/></geometry>"
                   "</visual></link>", 1)
    with server.client() as c:
        body = _bad(c, 400, files=[("scene", ("arm7.json", json.dumps(scene))), ("files", ("arm7.urdf", urdf))])
        assert "arm7.urdf" in body["detail"] and "names no file in the bundle" in body["detail"], body


def _raw_post(server, head: bytes, chunks) -> bytes:
    """Sends a request by hand (a body the client would not finish) and reads the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(head)
        try:
            for chunk in chunks:
                s.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed: read the answer below
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                got = s.recv(65536)
                if not got:
                    break
                data += got
        except ConnectionResetError:
            pass
    return data


def test_oversize_uploads_are_refused_without_reading_them(server):
    auth = f"Authorization: Bearer {ALICE}\r\n".encode()
    # a declared 1 GB body: refused from its Content-Length, before a byte of it is sent
    answer = _raw_post(server, b"POST /jobs HTTP/1.1\r\nHost: x\r\n" + auth +
                       b"Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n", [])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    # a chunked body with no length: refused once it passes the limit (200 kB here)
    chunk = b"x" * 65536
    part = (b"--zz\r\nContent-Disposition: form-data; name=\"bundle\"; filename=\"b.zip\"\r\n"
            b"Content-Type: application/zip\r\n\r\n")

    def frames():  # one file part of up to 1 GiB, never all sent
        yield b"%x\r\n%s\r\n" % (len(part), part)
        for _ in range(16384):
            yield b"%x\r\n%s\r\n" % (len(chunk), chunk)
    answer = _raw_post(server, b"POST /jobs HTTP/1.1\r\nHost: x\r\n" + auth +
                       b"Content-Type: multipart/form-data; boundary=zz\r\nTransfer-Encoding: chunked\r\n\r\n",
                       frames())
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    with server.client() as c:  # the server is still there
        assert c.get("/jobs").status_code == 200


def test_jobs_per_token_limit(cli, examples, tmp_path):
    # A server of its own whose runs are held at step 500 (serve_server.hold_env): bob's
    # first job is still running, whatever the machine's speed, when the third is posted.
    server = Server(cli, tmp_path, env=hold_env(500)).start(via="python")
    scene = pendulum(examples)
    try:
        with server.client(BOB) as bob:  # max_jobs 2 for bob
            ids = []
            for _ in range(2):  # 2000 steps each: held at step 500
                r = bob.post("/jobs", json={"scene": scene, "options": {"instances": 2, "t_end": 2.0}})
                assert r.status_code == 201, r.text
                ids.append(r.json()["jobID"])
            wait_held(server.data / "jobs" / ids[0])
            r = bob.post("/jobs", json={"scene": scene, "options": SMALL})
            assert r.status_code == 429 and "max_jobs" in r.json()["detail"]
            for jid in ids:
                assert bob.delete(f"/jobs/{jid}").json()["status"] == "dismissed"
            r = bob.post("/jobs", json={"scene": scene, "options": SMALL})  # 200 steps: not held
            assert r.status_code == 201
            assert wait_final(bob, r.json()["jobID"])["status"] == "successful"
            # a finished job deleted: gone with its files
            jid = r.json()["jobID"]
            assert bob.delete(f"/jobs/{jid}").status_code == 200
            assert bob.get(f"/jobs/{jid}").status_code == 404
            assert not (server.data / "jobs" / jid).exists()
    finally:
        server.stop()


def test_a_bundle_of_too_many_entries_is_refused(cli, examples, tmp_path):
    from simphant.serve.bundle import MAX_ENTRIES
    server = Server(cli, tmp_path).start(via="python")  # the default upload limit: the zip is about 1 MB
    with server.client() as c:
        many = _zip([(f"f{k}", b"", 0o100644) for k in range(MAX_ENTRIES + 1)])
        body = _bad(c, 400, files={"scene": ("s.json", json.dumps(pendulum(examples))), "bundle": ("b.zip", many)})
        assert f"more than {MAX_ENTRIES}" in body["detail"]
    server.stop()
    assert list((server.data / "jobs").iterdir()) == []  # nothing left of the refused job
