"""The worked example examples/crank_press.json end to end (docs/mechanism-studies.md):
`simphant run` on a few instances over the first forming stroke, then `simphant report`.

Checks, each against the file's own data: the driver holds the crank on its motion law
(orientation and angular velocity of the recorded frames); the driver's work, from the
mean of /reductions/driver_loads, equals the change of the mechanism's energy; the
/reductions layout of the output contract; every reduction bounds the recorded first and
last frames; the report's sensitivity ranking of the main bearing's peak radial force
equals an independent least-squares fit on the file's numbers."""
from __future__ import annotations

import json
import math

import h5py
import numpy as np
import pytest

from conftest import run_cli

INSTANCES = 24
T_END = 0.4  # [s]: past the first bottom dead centre (t = 0.25 s at 60 strokes/min)
OMEGA = 2 * math.pi  # [rad/s], the scene's constant_speed law

#: quantity -> trailing shape of one frame (contract: docs/mechanism-studies.md, README "Output")
def reduction_shapes(J, D):
    return {"reactions": (J, 8), "joint_loads": (J, 6), "bearing_loads": (J, 4), "driver_loads": (D,),
            "constraint_violation": (), "energy": (), "joint_coordinates": (J,), "power": ()}


STATS = ("max", "min", "mean", "rms", "time_of_max")


@pytest.fixture(scope="module")
def press(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("press")
    p = run_cli(cli, "run", str(examples / "crank_press.json"), "--instances", str(INSTANCES), "--t-end", str(T_END),
                "--backend", "cpu", "--threads", "1", "--out", "press.h5", "--json", cwd=d)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    p = run_cli(cli, "report", "press.h5", "-o", "rep", "--quantity", "bearing_loads", cwd=d)
    assert p.returncode == 0, p.stderr
    with h5py.File(d / "press.h5", "r") as f:
        data = {
            "status": f["status"][:], "time": f["time"][:], "state": f["state"][:], "energy": f["energy"][:],
            "reactions": f["reactions"][:], "violation": f["constraint_violation"][:],
            "joint_loads": f["joint_loads"][:], "bearing_loads": f["bearing_loads"][:],
            "driver_loads": f["driver_loads"][:],
            "joints": [str(s) for s in f.attrs["joint_names"]], "drivers": [str(s) for s in f.attrs["driver_names"]],
            "bodies": [str(s) for s in f.attrs["body_names"]],
            "params": {k: f[f"params/{k}"][:] for k in f["params"]},
            "red": {q: {s: f[f"reductions/{q}/{s}"][:] for s in STATS} for q in f["reductions"]},
            "red_attrs": {q: {k: f[f"reductions/{q}"].attrs[k] for k in f[f"reductions/{q}"].attrs} for q in
                          f["reductions"]},
            "dt": float(f.attrs["dt"]),
        }
    return d, summary, data, json.loads((d / "rep" / "report.json").read_text())


def test_runs_and_records_first_and_last_frames(press):
    _, summary, data, _ = press
    assert (data["status"] == 0).all()
    np.testing.assert_allclose(data["time"], [0.0, T_END], atol=1e-12)
    assert data["state"].shape == (2, INSTANCES, 3, 13)


def test_driver_holds_the_crank_on_its_law(press):
    _, _, data, _ = press
    crank = data["bodies"].index("crank")
    for k, t in enumerate(data["time"]):
        x = data["state"][k, :, crank]
        # the crank turns about the world y axis through the origin: p = (cos th/2, 0, sin th/2, 0)
        theta = OMEGA * t
        q = x[:, 3:7] * np.sign(x[:, 3:4] * math.cos(theta / 2) + x[:, 5:6] * math.sin(theta / 2))
        # Baumgarte holds the driver row to the constraint tolerance of the run (violation < 1e-6 rad here)
        np.testing.assert_allclose(q, np.tile([math.cos(theta / 2), 0, math.sin(theta / 2), 0], (INSTANCES, 1)),
                                   atol=1e-6)
        np.testing.assert_allclose(x[:, 10:13], np.tile([0, OMEGA, 0], (INSTANCES, 1)), atol=1e-6)
        np.testing.assert_allclose(x[:, 0:3], 0, atol=1e-6)


def test_driver_work_equals_the_change_of_energy(press):
    """Ideal joints do no work, so the energy (kinetic + gravity + the forming
    characteristic's potential) changes by the driver's work, the integral of the power
    P = torque * omega. The reductions give mean(P) over the N + 1 sampled states (every
    step's start and the final state), so mean * T is the trapezoid rule minus
    dt (mean(P) - (P(0) + P(T)) / 2), which the first and last frames give; what remains is
    the trapezoid rule's O(dt^2) error, 2.0e-4 J measured against a change of 53 J."""
    _, _, data, _ = press
    p_mean = data["red"]["driver_loads"]["mean"][:, 0] * OMEGA
    p0, p1 = data["driver_loads"][0, :, 0] * OMEGA, data["driver_loads"][-1, :, 0] * OMEGA
    trapezoid = p_mean * T_END + data["dt"] * (p_mean - (p0 + p1) / 2)
    de = data["energy"][-1] - data["energy"][0]
    np.testing.assert_allclose(trapezoid, de, rtol=0, atol=2e-3)
    # the driver works hard in the stroke: it must hold the crank against the forming load
    assert (data["red"]["driver_loads"]["max"][:, 0] > 500).all() and (np.abs(de) > 10).all()


def test_reductions_layout(press):
    _, _, data, _ = press
    J, D = len(data["joints"]), len(data["drivers"])
    shapes = reduction_shapes(J, D)
    assert set(data["red"]) == set(shapes)
    for q, shape in shapes.items():
        for s in STATS:
            assert data["red"][q][s].shape == (INSTANCES,) + shape, (q, s)
        attrs = data["red_attrs"][q]
        assert "units" in attrs and "components" in attrs
        sampled = attrs["sampled"]
        assert (sampled.decode() if isinstance(sampled, bytes) else str(sampled)) == "every step"
    assert data["drivers"] == ["crank_drive"]


def test_reductions_bound_the_recorded_frames(press):
    """max >= the value at every recorded frame >= min, min <= mean <= max, rms >= |mean|,
    0 <= time_of_max <= t_end: the first and last frames are states the reductions sample
    (the step loop's start state and the final state)."""
    _, _, data, _ = press
    r = data["reactions"]  # (T, I, J, 6)
    frames = {
        "reactions": np.concatenate([r, np.linalg.norm(r[..., 0:3], axis=-1, keepdims=True),
                                     np.linalg.norm(r[..., 3:6], axis=-1, keepdims=True)], axis=-1),
        "joint_loads": data["joint_loads"], "bearing_loads": data["bearing_loads"],
        "driver_loads": data["driver_loads"], "constraint_violation": data["violation"], "energy": data["energy"],
    }
    for q, fr in frames.items():
        red = data["red"][q]
        scale = np.abs(fr).max() + 1e-300
        tol = 1e-9 * scale  # the frame and the sample are the same state evaluated twice: round-off only
        assert (red["max"][None] >= fr - tol).all(), q
        assert (red["min"][None] <= fr + tol).all(), q
        assert (red["min"] <= red["mean"] + tol).all() and (red["mean"] <= red["max"] + tol).all(), q
        assert (red["rms"] >= np.abs(red["mean"]) - tol).all(), q
        assert ((red["time_of_max"] >= 0) & (red["time_of_max"] <= T_END + 1e-12)).all(), q


def test_report_ranking_matches_numpy(press):
    _, _, data, report = press
    jm = data["joints"].index("main_bearing")
    y = data["red"]["bearing_loads"]["max"][:, jm, 1]  # peak radial force [N] (a magnitude: max = peak)
    names = sorted(data["params"])
    X = np.column_stack([data["params"][k] for k in names])
    Z = np.column_stack([np.ones(len(y))] + [(x - x.mean()) / x.std() for x in X.T])
    b = np.linalg.lstsq(Z, (y - y.mean()) / y.std(), rcond=None)[0][1:]
    out = report["peak_loads"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    assert out["source"].startswith("/reductions/bearing_loads/max") and out["units"] == "N"
    np.testing.assert_allclose([out["src"][k] for k in names], b, atol=1e-8)
    assert out["ranking"] == [names[j] for j in np.argsort(-np.abs(b))]
    # the conrod length (tolerance 15 um) moves the bottom dead centre as far per metre as
    # the throw (6.5 um) does: its wider tolerance makes it the leading parameter
    assert out["ranking"][0] == "joints.wrist_pin.frame_i.origin[0]", out
