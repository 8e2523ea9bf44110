"""simphant.run: the CLI's job from Python, bit-identical output, progress, Ctrl-C."""
from __future__ import annotations

import json
import os
import signal

import h5py
import numpy as np
import pytest

import simphant
from conftest import run_cli

# The run's wall time and the provenance of its start (the CLI records its command line).
TIMING_ATTRS = {"wall_time_s", "start_time", "command_line"}


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
        attrs = {k: v for k, v in f.attrs.items() if k not in TIMING_ATTRS}
    return out, attrs


def test_run_returns_the_summary(examples, tmp_path):
    r = simphant.run(examples / "pendulum.json", out=tmp_path / "p.h5", instances=3, t_end=0.05, backend="cpu")
    assert r.exit_code == 0 and r.out_file == str(tmp_path / "p.h5") and os.path.exists(r.out_file)
    s = r.summary
    assert s["instances"] == 3 and s["instances_ok"] == 3 and s["interrupted"] is False
    assert s["steps"] == round(0.05 / simphant.load_scene(examples / "pendulum.json").dt)


def test_run_output_is_bit_identical_to_the_cli(examples, cli, tmp_path):
    scene = examples / "four_bar.json"
    args = ["--instances", "5", "--t-end", "0.2", "--seed", "4", "--backend", "cpu"]
    proc = run_cli(cli, "run", str(scene), *args, "--out", str(tmp_path / "cli.h5"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    r = simphant.run(scene, out=tmp_path / "py.h5", instances=5, t_end=0.2, seed=4, backend="cpu")
    cli_data, cli_attrs = datasets(tmp_path / "cli.h5")
    py_data, py_attrs = datasets(r.out_file)
    assert cli_data.keys() == py_data.keys()
    for name in cli_data:
        assert np.array_equal(cli_data[name], py_data[name]), name
    assert cli_attrs.keys() == py_attrs.keys()
    for name in cli_attrs:
        assert np.array_equal(cli_attrs[name], py_attrs[name]), name


def test_run_from_a_dict_needs_out(examples, tmp_path):
    doc = json.loads((examples / "pendulum.json").read_text())
    with pytest.raises(ValueError, match="out"):
        simphant.run(doc)
    r = simphant.run(doc, out=tmp_path / "d.h5", instances=2, t_end=0.01, backend="cpu")
    assert r.exit_code == 0


def test_progress_callback(examples, tmp_path):
    calls = []
    simphant.run(examples / "pendulum.json", out=tmp_path / "p.h5", instances=2, t_end=0.2, backend="cpu",
                 progress=lambda done, total, t, n: calls.append((done, total, t, n)))
    assert calls and calls[-1][0] == calls[-1][1] and all(c[3] == 2 for c in calls)


def test_an_error_in_the_progress_callback_stops_the_run(examples, tmp_path):
    def fail(*_):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        simphant.run(examples / "pendulum.json", out=tmp_path / "p.h5", instances=2, t_end=1.0, backend="cpu",
                     progress=fail)
    with h5py.File(tmp_path / "p.h5", "r") as f:
        assert f.attrs["interrupted"] == 1


def test_ctrl_c_stops_the_run_cleanly(examples, tmp_path):
    """SIGINT during a run: the file is closed with what was computed, then KeyboardInterrupt."""
    def interrupt(done, total, t, n):
        if done > 0:
            os.kill(os.getpid(), signal.SIGINT)

    # Python's own handler, also where the tests were started with SIGINT ignored (a
    # background job of a shell without job control), which Python then leaves ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            simphant.run(examples / "four_bar.json", out=tmp_path / "i.h5", instances=4, t_end=30.0, backend="cpu",
                         progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    with h5py.File(tmp_path / "i.h5", "r") as f:
        assert f.attrs["interrupted"] == 1
        frames = f["time"].shape[0]
        assert 1 <= frames < 30.0 / f.attrs["dt"] / f.attrs["record_every"]
        assert f["state"].shape[0] == frames


def test_integrator_keyword_arguments(examples, cli, tmp_path):
    # integrator= runs the method of --integrator, bit for bit as the CLI; bad settings
    # raise ValueError naming the option.
    scene = examples / "pendulum.json"
    proc = run_cli(cli, "run", str(scene), "--instances", "2", "--t-end", "0.05", "--backend", "cpu",
                   "--integrator", "symplectic_euler", "--out", str(tmp_path / "cli.h5"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    r = simphant.run(scene, out=tmp_path / "py.h5", instances=2, t_end=0.05, backend="cpu",
                     integrator="symplectic_euler")
    rk4 = simphant.run(scene, out=tmp_path / "rk4.h5", instances=2, t_end=0.05, backend="cpu")
    with h5py.File(tmp_path / "cli.h5", "r") as a, h5py.File(r.out_file, "r") as b, h5py.File(rk4.out_file, "r") as c:
        assert np.array_equal(a["state"][:], b["state"][:])
        assert not np.array_equal(b["state"][:], c["state"][:])
    with pytest.raises(ValueError, match="--rtol"):
        simphant.run(scene, out=tmp_path / "x.h5", rtol=0.0)
    with pytest.raises(ValueError, match="--atol"):
        simphant.run(scene, out=tmp_path / "x.h5", atol=-1.0)
    with pytest.raises(ValueError, match="--integrator"):
        simphant.run(scene, out=tmp_path / "x.h5", integrator="leapfrog")
    with pytest.raises(ValueError, match="--error-estimate"):
        simphant.run(scene, out=tmp_path / "x.h5", integrator="dopri5", error_estimate=True)


def test_bad_options(examples, tmp_path):
    with pytest.raises(ValueError, match="instances"):
        simphant.run(examples / "pendulum.json", out=tmp_path / "p.h5", instances=0)
    with pytest.raises((OSError, RuntimeError), match="does not exist"):
        simphant.run(examples / "pendulum.json", out=tmp_path / "no" / "p.h5", backend="cpu")
    with pytest.raises(FileNotFoundError):
        simphant.run(tmp_path / "missing.json")
