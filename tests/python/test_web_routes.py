"""The web routes over HTTP (no browser): the service's pages, static files and three.js,
GET /jobs/{id}/replay and its meshes (token, owner isolation, bad input), the scene
validator's error path for a bad `visual`, and the app of `simphant view`."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from conftest import require

require("fastapi")
require("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from simphant.serve import web  # noqa: E402
from simphant.serve.config import ServeConfig, TokenInfo  # noqa: E402
from simphant.serve.view import create_view_app, main as view_main  # noqa: E402

from test_web_replay import SCENE, stl_triangle, write_run  # noqa: E402

ALICE, BOB = {"Authorization": "Bearer tok-alice"}, {"Authorization": "Bearer tok-bob"}


@pytest.fixture()
def service(tmp_path, cli):
    """The service's app (workers not started: jobs are rows and folders made here)."""
    from simphant.serve.app import create_app

    config = ServeConfig(data_dir=str(tmp_path / "data"), simphant=cli, workers=1,
                         tokens={"tok-alice": TokenInfo("alice"), "tok-bob": TokenInfo("bob")})
    app = create_app(config)
    yield app, TestClient(app)
    app.state.store.close()


def add_job(app, tmp_path, owner="alice", job_id="0123abcd"):
    app.state.store.insert_if_below(job_id, owner, {"scene_name": "t"}, 100)
    folder = os.path.join(app.state.config.jobs_dir, job_id)
    os.makedirs(folder, exist_ok=True)
    scene = json.loads(json.dumps(SCENE))
    scene["bodies"][0]["visual"] = {"type": "mesh", "file": "a.stl"}
    stl_triangle(os.path.join(folder, "a.stl"))
    write_run(tmp_path / "tmp.h5", scene=scene)
    shutil.move(str(tmp_path / "tmp.h5"), os.path.join(folder, "out.h5"))
    return job_id, folder


def test_pages_static_files_and_three(service):
    app, c = service
    r = c.get("/", follow_redirects=False)
    assert r.status_code in (302, 307) and r.headers["location"] == "/web/"
    for path, marker in (("/web/", "submit-form"), ("/web/jobs/abc", "replay-section"),
                         ("/web/static/replay.js", "SimphantReplay"), ("/web/static/app.css", ".progress")):
        r = c.get(path)
        assert r.status_code == 200 and marker in r.text, path
    if os.path.isfile(os.path.join(web.THREE_DIR, web.THREE_FILES["three.min.js"])):
        assert "REVISION" in c.get("/web/three/three.min.js").text
        assert "OrbitControls" in c.get("/web/three/OrbitControls.js").text
    for bad in ("/web/static/..%2Fweb.py", "/web/static/web.py", "/web/three/three.js", "/web/static/nope.js"):
        assert c.get(bad).status_code == 404, bad


def test_job_replay_needs_the_owner_token(service, tmp_path):
    app, c = service
    job_id, folder = add_job(app, tmp_path)
    r = c.get(f"/jobs/{job_id}/replay", headers=ALICE)
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["instances"] == 3 and d["n_bodies"] == 2 and len(d["time"]) == 40
    assert d["bodies"][0]["shapes"][0] == {**d["bodies"][0]["shapes"][0], "type": "mesh", "mesh": 0}
    assert c.get(f"/jobs/{job_id}/replay/mesh/0", headers=ALICE).content[80:84] == b"\x01\0\0\0"
    assert c.get(f"/jobs/{job_id}/replay?pick=peak&load=reactions/hinge/|f|", headers=ALICE).json()["instance"] == 1
    # the cookie of the browser pages works like the header
    c.cookies.set("simphant_token", "tok-alice")
    assert c.get(f"/jobs/{job_id}/replay").status_code == 200
    c.cookies.clear()
    assert c.get(f"/jobs/{job_id}/replay").status_code == 401
    assert c.get(f"/jobs/{job_id}/replay", headers=BOB).status_code == 404  # another owner's job
    assert c.get(f"/jobs/{job_id}/replay/mesh/0", headers=BOB).status_code == 404
    assert c.get("/jobs/feedbeef/replay", headers=ALICE).status_code == 404
    r = c.get(f"/jobs/{job_id}/replay?instance=7", headers=ALICE)
    assert r.status_code == 400 and "instance 7: out of range" in r.json()["detail"]
    assert c.get(f"/jobs/{job_id}/replay?pick=largest", headers=ALICE).status_code == 422
    assert c.get(f"/jobs/{job_id}/replay/mesh/1", headers=ALICE).status_code == 404


def test_replay_errors_name_the_job_file_not_the_server_path(service, tmp_path):
    app, c = service
    job_id, folder = add_job(app, tmp_path)
    r = c.get(f"/jobs/{job_id}/replay?pick=peak&load=no/such/load", headers=ALICE)
    assert r.status_code == 400 and "not a peak load of out.h5" in r.json()["detail"], r.text
    with open(os.path.join(folder, "out.h5"), "wb") as f:  # a file the replay cannot read
        f.write(b"not hdf5")
    r = c.get(f"/jobs/{job_id}/replay", headers=ALICE)
    assert r.status_code == 422 and r.json()["detail"].startswith("out.h5: "), r.text
    for answer in (r.text, c.get(f"/jobs/{job_id}/replay?pick=peak&load=x", headers=ALICE).text):
        assert folder not in answer and str(tmp_path) not in answer


def test_job_replay_refuses_mesh_files_outside_the_job_folder(service, tmp_path):
    app, c = service
    job_id, folder = add_job(app, tmp_path)
    outside = tmp_path / "secret.stl"
    stl_triangle(outside)
    scene = json.loads(json.dumps(SCENE))
    scene["bodies"][0]["visual"] = {"type": "mesh", "file": str(outside)}
    write_run(tmp_path / "tmp.h5", scene=scene)
    shutil.move(str(tmp_path / "tmp.h5"), os.path.join(folder, "out.h5"))
    assert c.get(f"/jobs/{job_id}/replay", headers=ALICE).status_code == 200
    r = c.get(f"/jobs/{job_id}/replay/mesh/0", headers=ALICE)
    assert r.status_code == 404 and "outside the job folder" in r.json()["detail"]


def test_job_without_results_yet(service, tmp_path):
    app, c = service
    app.state.store.insert_if_below("cafe0001", "alice", {}, 100)
    r = c.get("/jobs/cafe0001/replay", headers=ALICE)
    assert r.status_code == 404 and "no results file yet" in r.json()["detail"]


@pytest.mark.parametrize("visual,path", [
    ({"type": "sphere", "radius": -1}, "/bodies/1/visual/radius"),
    ([{"type": "box", "size": [1, 1, 1]}, {"type": "capsule", "radius": 1}], "/bodies/1/visual/1/length"),
    ({"type": "box", "size": [1, 1, 1], "radius": 1}, "/bodies/1/visual/radius"),
])
def test_submit_with_a_bad_visual_names_its_json_path(service, visual, path):
    app, c = service
    scene = json.loads(json.dumps(SCENE))
    scene.pop("sweep")
    scene["bodies"][1]["visual"] = visual
    r = c.post("/jobs", json={"scene": scene, "options": {"instances": 1}}, headers=ALICE)
    assert r.status_code == 422 and r.json()["path"] == path, r.text


def test_load_scene_accepts_visuals_and_names_bad_ones(tmp_path):
    import simphant

    scene = json.loads(json.dumps(SCENE))
    scene.pop("sweep")
    (tmp_path / "ok.json").write_text(json.dumps(scene))
    assert simphant.load_scene(str(tmp_path / "ok.json")).body_names == ["a", "b"]
    scene["bodies"][0]["visual"] = {"type": "cylinder", "radius": 0.1, "length": 0}
    (tmp_path / "bad.json").write_text(json.dumps(scene))
    with pytest.raises(ValueError, match=r"/bodies/0/visual/length: must be > 0 \(got 0\)"):
        simphant.load_scene(str(tmp_path / "bad.json"))


def test_view_app_serves_one_file(tmp_path):
    write_run(tmp_path / "run.h5")
    c = TestClient(create_view_app(str(tmp_path / "run.h5")))
    assert "SimphantReplay" in c.get("/").text
    d = c.get("/replay?instance=2").json()
    assert d["instance"] == 2 and d["file"] == "run.h5"
    assert c.get("/replay?pick=peak").json()["instance"] == 1
    assert c.get("/replay?instance=9").status_code == 400
    assert c.get("/replay/mesh/0").status_code == 404


def test_view_refuses_missing_and_foreign_files(tmp_path, capsys):
    assert view_main([str(tmp_path / "missing.h5"), "--no-browser"]) == 2
    assert "missing.h5: no such file" in capsys.readouterr().err
    (tmp_path / "x.h5").write_text("text")
    assert view_main([str(tmp_path / "x.h5"), "--no-browser"]) == 2
    assert "not an HDF5 file" in capsys.readouterr().err
    write_run(tmp_path / "nostate.h5", state=False)
    assert view_main([str(tmp_path / "nostate.h5"), "--no-browser"]) == 2
    assert "no recorded /state frames" in capsys.readouterr().err
    assert view_main(["--port", "70000", str(tmp_path / "x.h5")]) == 2
    assert view_main(["--bogus"]) == 2


def test_view_exits_3_when_the_port_is_taken(tmp_path, capsys):
    import socket

    write_run(tmp_path / "run.h5")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert view_main([str(tmp_path / "run.h5"), "--port", str(port), "--no-browser"]) == 3
    assert f"could not listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_uploaded_mesh_of_a_visual_is_drawn_from_the_job_folder(tmp_path, cli, examples):
    """A scene whose body has a mesh visual, submitted with the STL file (multipart), run by
    the service's worker: the replay draws that mesh and serves the uploaded bytes."""
    import time

    from simphant.serve.app import create_app

    scene = json.loads((examples / "pendulum.json").read_text())
    scene["solver"]["t_end"] = 0.05
    scene["bodies"][0]["visual"] = {"type": "mesh", "file": "meshes/rod.stl", "scale": 0.001}
    stl_triangle(tmp_path / "rod.stl")
    config = ServeConfig(data_dir=str(tmp_path / "data"), simphant=cli, workers=1, threads=1, report=False,
                         tokens={"tok-alice": TokenInfo("alice")})
    with TestClient(create_app(config)) as c:
        r = c.post("/jobs", headers=ALICE, data={"options": json.dumps({"instances": 1})},
                   files=[("scene", ("scene.json", json.dumps(scene), "application/json")),
                          ("files", ("meshes/rod.stl", (tmp_path / "rod.stl").read_bytes(), "model/stl"))])
        assert r.status_code == 201, r.text
        job = r.json()["jobID"]
        deadline = time.monotonic() + 60
        while c.get(f"/jobs/{job}", headers=ALICE).json()["status"] not in ("successful", "failed", "dismissed"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        d = c.get(f"/jobs/{job}/replay", headers=ALICE).json()
        assert d["bodies"][0]["source"] == "visual" and d["meshes"] == ["rod.stl"]
        assert d["bodies"][0]["shapes"][0]["mesh"] == 0 and d["bodies"][0]["shapes"][0]["scale"] == [0.001] * 3
        assert c.get(f"/jobs/{job}/replay/mesh/0", headers=ALICE).content == (tmp_path / "rod.stl").read_bytes()
