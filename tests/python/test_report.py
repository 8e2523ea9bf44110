"""simphant.report on synthetic files of known structure (tests/python/report_data.py):
every number of report.json is checked against numpy computed here from the file, the
SRC against its closed form, the Sobol indices of an Ishigami design against the
analytic ones."""
from __future__ import annotations

import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import report_data as rd
from conftest import python_env, run_cli

report = pytest.importorskip("simphant.report")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

PCT = [1, 5, 50, 95, 99]


def ranks(x):
    """Ranks 1..n (the test data have no ties)."""
    r = np.empty(x.size)
    r[np.argsort(x, kind="stable")] = np.arange(1, x.size + 1)
    return r


def spearman_np(x, y):
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    params, y = rd.write(d / "s.h5", instances=400, frames=21, failed=(3, 7))
    r = report.make_report(str(d / "s.h5"), str(d / "out"))
    return d, r


def test_counts_and_status(synthetic):
    d, r = synthetic
    with h5py.File(d / "s.h5", "r") as f:
        status, reason = f["status"][:], f["status_reason"][:]
    assert r["instances"] == {"total": 400, "ok": 398, "failed": 2}
    assert r["health"]["status_counts"] == {"ok": int((status == 0).sum()), "diverged": int((status == 2).sum())}
    assert r["health"]["reason_counts"] == {"none": 398, "constraint_violation": 2}
    assert any("2 instance(s) failed" in w for w in r["warnings"])


def test_distribution_quantiles(synthetic):
    d, r = synthetic
    with h5py.File(d / "s.h5", "r") as f:
        ok = f["status"][:] == 0
        rmax = f["reductions/bearing_loads/max"][:]
        rms = f["reductions/reactions/rms"][:]
        viol = f["reductions/constraint_violation/max"][:]
    got = r["distributions"]["bearing_loads"]["max"]["main_bearing/radial_force"]
    assert got["units"] == "N"
    np.testing.assert_allclose([got["quantiles"][f"p{p}"] for p in PCT], np.percentile(rmax[ok, 0, 1], PCT),
                               rtol=1e-14)
    assert got["quantiles"]["n"] == 398
    got = r["distributions"]["reactions"]["rms"]["crank_pin/|tau|"]["quantiles"]
    np.testing.assert_allclose([got[f"p{p}"] for p in PCT], np.percentile(rms[ok, 1, 7], PCT), rtol=1e-14)
    got = r["health"]["per_instance"]["max_constraint_violation"]["quantiles"]
    np.testing.assert_allclose([got[f"p{p}"] for p in PCT], np.percentile(viol[ok], PCT), rtol=1e-14)
    # absent quantities are skipped with a line
    assert any("joint_loads" in s for s in r["skipped"]) and any("joint_coordinates" in s for s in r["skipped"])


def test_peak_loads_spearman_src(synthetic):
    d, r = synthetic
    with h5py.File(d / "s.h5", "r") as f:
        ok = f["status"][:] == 0
        X = {p: f[f"params/{p}"][:][ok] for p in (rd.X1, rd.X2, rd.X3)}
        rmax, rmin = f["reductions/bearing_loads/max"][:][ok], f["reductions/bearing_loads/min"][:][ok]
        axial_frames = f["bearing_loads"][:, :, 0, 0][:, ok]
    out = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    y = rmax[:, 0, 1]
    assert out["ranking"] == [rd.X1, rd.X2, rd.X3]
    for p in X:
        assert out["spearman"][p]["rho"] == pytest.approx(spearman_np(X[p], y), abs=1e-12)
    # SRC: least squares on the standardised columns, computed here with numpy's lstsq
    Z = np.column_stack([(X[p] - X[p].mean()) / X[p].std() for p in (rd.X1, rd.X2, rd.X3)])
    zy = (y - y.mean()) / y.std()
    b = np.linalg.lstsq(np.column_stack([np.ones(y.size), Z]), zy, rcond=None)[0][1:]
    np.testing.assert_allclose([out["src"][p] for p in (rd.X1, rd.X2, rd.X3)], b, atol=1e-12)
    assert out["r2"] == pytest.approx(1 - np.sum((zy - Z @ b) ** 2) / np.sum(zy ** 2), abs=1e-12)
    # and against the closed form: the sampling error of an SRC with n = 398 is about 0.01
    src, r2 = rd.expected_src()
    np.testing.assert_allclose(b, src, atol=0.02)
    assert out["r2"] == pytest.approx(r2, abs=0.003)
    # a signed component: the peak is max(|max|, |min|) = max |x(t)| over the frames
    axial = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/axial_force"]
    peak = np.fmax(np.abs(rmax[:, 0, 0]), np.abs(rmin[:, 0, 0]))
    np.testing.assert_allclose(peak, np.abs(axial_frames).max(axis=0), rtol=1e-15)
    np.testing.assert_allclose([axial["quantiles"][f"p{p}"] for p in PCT], np.percentile(peak, PCT), rtol=1e-14)
    assert axial["ranking"][0] == rd.X2
    # a constant output: no correlation, no SRC, no R^2
    bend = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/bending_moment"]
    assert bend["r2"] is None and bend["spearman"][rd.X1]["rho"] is None
    assert r["sobol"] is None  # an LHS design


def test_traces_bands(synthetic):
    d, r = synthetic
    with h5py.File(d / "s.h5", "r") as f:
        ok = f["status"][:] == 0
        t = f["time"][:]
        radial = f["bearing_loads"][:, :, 0, 1][:, ok]
        react = f["reactions"][:][:, ok, 1, :3]
        energy = f["energy"][:][:, ok]
    tr = r["traces"]
    np.testing.assert_array_equal(tr["time"], t)
    b = tr["traces"]["bearing_loads"]["main_bearing/radial_force"]
    for q in (5, 25, 50, 75, 95):
        np.testing.assert_allclose(b[f"p{q}"], np.percentile(radial, q, axis=1), rtol=1e-14)
    np.testing.assert_allclose(tr["traces"]["reactions"]["crank_pin/|f|"]["p50"],
                               np.median(np.linalg.norm(react, axis=-1), axis=1), rtol=1e-14)
    np.testing.assert_allclose(tr["traces"]["energy"]["all/energy"]["p95"], np.percentile(energy, 95, axis=1),
                               rtol=1e-14)
    drift = r["health"]["per_instance"]["energy_drift_abs"]["quantiles"]
    np.testing.assert_allclose(drift["p50"], np.median(np.abs(energy - energy[:1]).max(axis=0)), rtol=1e-14)


def test_health_units_are_the_files(synthetic, tmp_path):
    """The constraint violation's units are the file's `units` attribute, from the reductions
    or (without them) from the per-frame dataset."""
    d, r = synthetic
    assert r["health"]["per_instance"]["max_constraint_violation"]["units"] == rd.VIOLATION_UNITS
    assert r["health"]["per_instance"]["energy_drift_abs"]["units"] == "J"
    rd.write(tmp_path / "f.h5", instances=30, frames=5, failed=(), reductions=False)
    with h5py.File(tmp_path / "f.h5", "r+") as f:
        f["constraint_violation"].attrs["units"] = "m | rad"
    r2 = report.make_report(str(tmp_path / "f.h5"), str(tmp_path / "o"))
    got = r2["health"]["per_instance"]["max_constraint_violation"]
    assert got["units"] == "m | rad" and got["source"].startswith("/constraint_violation frames")


def test_first_last_frames_drift_from_the_reductions(tmp_path):
    """With only the first and last frames, the energy drift is max |E - E0| over every step
    (the reductions' max and min against the first frame), not |E(end) - E(0)|, and no time
    traces are drawn from two points."""
    rd.write(tmp_path / "all.h5", instances=50, frames=21, failed=())
    rd.write(tmp_path / "fl.h5", instances=50, frames=21, failed=(), first_last=True)
    with h5py.File(tmp_path / "all.h5", "r") as f:
        energy = f["energy"][:]
    with h5py.File(tmp_path / "fl.h5", "r") as f:
        assert f["energy"].shape[0] == 2
    r = report.make_report(str(tmp_path / "fl.h5"), str(tmp_path / "o"))
    drift = np.abs(energy - energy[:1]).max(axis=0)
    assert not np.allclose(drift, np.abs(energy[-1] - energy[0]))  # the two frames understate it
    got = r["health"]["per_instance"]["energy_drift_abs"]
    assert got["source"].startswith("/reductions/energy max, min and the first /energy frame")
    np.testing.assert_allclose([got["quantiles"][f"p{p}"] for p in PCT], np.percentile(drift, PCT), rtol=1e-12)
    assert r["traces"] == {} and not any(x["file"].startswith("traces_") for x in r["figures"])
    assert "time traces: only the first and last frames were recorded; see the reductions" in r["skipped"]


def test_files_and_html(synthetic):
    d, r = synthetic
    out = d / "out"
    assert json.loads((out / "report.json").read_text()) == r
    page = (out / "report.html").read_text()
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(embedded) == len(r["figures"]) >= 10
    files = [(out / fig["file"]).read_bytes() for fig in r["figures"]]
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") for png in files)
    assert sorted(base64.b64decode(e) for e in embedded) == sorted(files)
    assert rd.X1 in page and "joint_loads" in page  # the ranking table and the skipped lines


def test_run_section_names_the_integrator_and_its_steps(synthetic, tmp_path):
    # adaptive: every attribute the file has, in report.json's "run" and the HTML's run facts
    adaptive = {"integrator": "dopri5", "rtol": 1e-7, "atol": 1e-10, "accepted_steps": np.int64(12345),
                "rejected_steps": np.int64(67), "min_step_s": 1.5e-5, "max_step_s": 2.5e-3}
    rd.write(tmp_path / "a.h5", instances=50, frames=5, attrs=adaptive)
    r = report.make_report(str(tmp_path / "a.h5"), str(tmp_path / "a"))
    assert {k: r["run"][k] for k in adaptive} == {k: v.item() if isinstance(v, np.generic) else v
                                                  for k, v in adaptive.items()}
    page = (tmp_path / "a" / "report.html").read_text()
    for k, v in adaptive.items():
        shown = re.search(rf'<td class="l">{k}</td><td>([^<]*)</td>', page)
        assert shown and shown.group(1) == (f"{v:.4g}" if isinstance(v, float) else str(v)), (k, v)
    # fixed step: no rtol / atol; a file without them (earlier versions): none of the keys
    rd.write(tmp_path / "f.h5", instances=50, frames=5, attrs={"integrator": "rk4", "accepted_steps": np.int64(200)})
    r = report.make_report(str(tmp_path / "f.h5"), str(tmp_path / "f"))
    assert r["run"]["integrator"] == "rk4" and r["run"]["accepted_steps"] == 200
    assert not {"rtol", "atol", "rejected_steps", "min_step_s", "max_step_s"} & set(r["run"])
    from simphant.report.build import RUN_INTEGRATOR_ATTRS
    assert not set(RUN_INTEGRATOR_ATTRS) & set(synthetic[1]["run"])


def test_quantity_selection_and_no_reductions(tmp_path):
    rd.write(tmp_path / "f.h5", instances=60, frames=9, failed=(), reductions=False)
    r = report.make_report(str(tmp_path / "f.h5"), str(tmp_path / "o"), ["reactions"])
    assert r["quantities"] == ["reactions"]
    assert set(r["peak_loads"]["outputs"]) == {f"reactions/{j}/{c}" for j in rd.JOINTS for c in ("|f|", "|tau|")}
    assert list(r["traces"]["traces"]) == ["reactions"]
    with h5py.File(tmp_path / "f.h5", "r") as f:  # peaks from the frames when there are no reductions
        peak = np.linalg.norm(f["reactions"][:, :, 0, :3], axis=-1).max(axis=0)
    out = r["peak_loads"]["outputs"]["reactions/main_bearing/|f|"]
    assert out["source"].startswith("/reactions frames")
    np.testing.assert_allclose(out["quantiles"]["p50"], np.median(peak), rtol=1e-14)
    assert any("no /reductions group" in s for s in r["skipped"])


def ishigami(P, a=7.0, b=0.1):
    return np.sin(P[:, 0]) + a * np.sin(P[:, 1]) ** 2 + b * P[:, 2] ** 4 * np.sin(P[:, 0])


def ishigami_indices(a=7.0, b=0.1):
    """Analytic S1 and ST of the Ishigami function (Saltelli et al., Global Sensitivity
    Analysis: The Primer, 2008, sec. 4.6)."""
    pi = np.pi
    V1 = 0.5 * (1 + b * pi ** 4 / 5) ** 2
    V2 = a ** 2 / 8
    V13 = 8 * b ** 2 * pi ** 8 / 225
    V = V1 + V2 + V13
    return np.array([V1, V2, 0]) / V, np.array([V1 + V13, V2, V13]) / V


@pytest.fixture(scope="module")
def saltelli(tmp_path_factory):
    sample = pytest.importorskip("SALib.sample.sobol")
    d = tmp_path_factory.mktemp("saltelli")
    N = 1024
    P = sample.sample({"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}, N,
                      calc_second_order=True, seed=5)
    params = {rd.X1: P[:, 0], rd.X2: P[:, 1], rd.X3: P[:, 2], "y": 20 + ishigami(P)}
    attrs = {"sweep_mode": "saltelli", "saltelli_base": N, "saltelli_second_order": 1}
    rd.write(d / "sal.h5", instances=P.shape[0], frames=3, failed=(), params=params, attrs=attrs)
    return d, P, N, attrs


def test_sobol_ishigami(saltelli):
    d, P, N, attrs = saltelli
    r = report.make_report(str(d / "sal.h5"), str(d / "out"), ["bearing_loads"])
    s = r["sobol"]
    assert s["parameters"] == [rd.X1, rd.X2, rd.X3]  # the design's order, found from the rows
    assert s["base_samples"] == N and s["second_order"] is True
    got = s["outputs"]["bearing_loads/main_bearing/radial_force"]
    S1, ST = ishigami_indices()
    # N = 1024: SALib's bootstrap half-widths are 0.03-0.06 here; the estimates lie within
    # 0.05 of the analytic indices (and within their confidence intervals + 0.01)
    np.testing.assert_allclose(got["S1"], S1, atol=0.05)
    np.testing.assert_allclose(got["ST"], ST, atol=0.05)
    assert all(abs(g - e) <= c + 0.01 for g, e, c in zip(got["S1"] + got["ST"], list(S1) + list(ST),
                                                           got["S1_conf"] + got["ST_conf"]))
    assert len(got["S2"]) == 3
    assert any("bending_moment: constant" in x for x in r["skipped"])
    assert any(f.startswith("sobol_") for f in (x["file"] for x in r["figures"]))


def test_sobol_skipped_with_reasons(saltelli, tmp_path):
    d, P, N, attrs = saltelli
    params = {rd.X1: P[:, 0], rd.X2: P[:, 1], rd.X3: P[:, 2], "y": 20 + ishigami(P)}
    rd.write(tmp_path / "failed.h5", instances=P.shape[0], frames=3, failed=(10,), params=dict(params), attrs=attrs)
    r = report.make_report(str(tmp_path / "failed.h5"), str(tmp_path / "o1"), ["bearing_loads"])
    assert r["sobol"] is None and any("1 failed instance" in x for x in r["skipped"])
    short = {k: v[:-8] for k, v in params.items()}
    rd.write(tmp_path / "short.h5", instances=P.shape[0] - 8, frames=3, failed=(), params=short, attrs=attrs)
    r = report.make_report(str(tmp_path / "short.h5"), str(tmp_path / "o2"), ["bearing_loads"])
    assert r["sobol"] is None and any("not a Saltelli design" in x for x in r["skipped"])


def _design(N, list_column):
    """A Saltelli design (SALib's order) over x1, x2, x3 in [-pi, pi] from an unscrambled Sobol'
    sequence (its first A and B rows are equal); list_column: x3 takes the values -1, 1 only,
    as a `list` parameter does (A and B agree in that column in about half the blocks)."""
    sample = pytest.importorskip("SALib.sample.sobol")
    P = sample.sample({"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}, N,
                      calc_second_order=True, scramble=False)
    if list_column:
        P[:, 2] = np.where(P[:, 2] < 0, -1.0, 1.0)
    return P


@pytest.mark.parametrize("list_column", [False, True])
def test_sobol_design_order_from_the_problem(tmp_path, list_column):
    """The design's column order comes from the /params attribute problem (the engine's SALib
    problem) when the rows cannot show it; the indices equal SALib's on the design-ordered
    matrix. Without the problem the report says why it cannot compute them."""
    salib = pytest.importorskip("SALib.analyze.sobol")
    N = 256
    P = _design(N, list_column)
    y = 20 + ishigami(P)
    params = {rd.X1: P[:, 0], rd.X2: P[:, 1], rd.X3: P[:, 2], "y": y}
    attrs = {"sweep_mode": "saltelli", "saltelli_base": N, "saltelli_second_order": 1}
    design = [rd.X1, rd.X2, rd.X3]  # not the file's (alphabetical) order of /params
    assert sorted(design) != design
    problem = {"num_vars": 3, "names": design, "bounds": [[-np.pi, np.pi]] * 3}
    rd.write(tmp_path / "p.h5", instances=P.shape[0], frames=3, failed=(), params=dict(params), attrs=attrs,
             problem=problem)
    r = report.make_report(str(tmp_path / "p.h5"), str(tmp_path / "o1"), ["bearing_loads"])
    assert r["sobol"] is not None and r["sobol"]["parameters"] == design
    got = r["sobol"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    ref = salib.analyze(problem, y, calc_second_order=True, num_resamples=10, seed=0)
    np.testing.assert_allclose(got["S1"], ref["S1"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got["ST"], ref["ST"], rtol=1e-12, atol=1e-15)
    rd.write(tmp_path / "n.h5", instances=P.shape[0], frames=3, failed=(), params=dict(params), attrs=attrs)
    r = report.make_report(str(tmp_path / "n.h5"), str(tmp_path / "o2"), ["bearing_loads"])
    assert r["sobol"] is None
    msg = [x for x in r["skipped"] if x.startswith("Sobol indices")]
    assert len(msg) == 1 and "column order is unknown" in msg[0] and "shard" not in msg[0]


def run_module(*args, cwd):
    return subprocess.run([sys.executable, "-m", "simphant.report", *args], cwd=cwd, env=python_env(),
                          capture_output=True, text=True, timeout=300)


def test_module_exit_codes(tmp_path):
    p = run_module("missing.h5", cwd=tmp_path)
    assert p.returncode == 2 and "missing.h5: no such file" in p.stderr
    (tmp_path / "text.h5").write_text("not hdf5")
    p = run_module("text.h5", cwd=tmp_path)
    assert p.returncode == 2 and "not an HDF5 file" in p.stderr
    rd.write(tmp_path / "f.h5", instances=20, frames=3, failed=())
    p = run_module("f.h5", "--quantity", "reaction", cwd=tmp_path)
    assert p.returncode == 2 and "--quantity: unknown quantity 'reaction'" in p.stderr
    (tmp_path / "afile").write_text("x")
    p = run_module("f.h5", "-o", "afile", cwd=tmp_path)
    assert p.returncode == 2 and "-o afile: exists and is not a folder" in p.stderr
    p = run_module("f.h5", "--quantity", "energy", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "f_report" / "report.html").is_file()


# ---- the CLI: `simphant run` on a shipped example, then `simphant report` -----------------
@pytest.fixture(scope="module")
def slider(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("e2e")
    p = run_cli(cli, "run", str(examples / "slider_crank.json"), "-n", "16", "--t-end", "0.2", "--backend", "cpu",
                "--out", "sc.h5", cwd=d)
    assert p.returncode == 0, p.stderr
    p = run_cli(cli, "report", "sc.h5", "-o", "rep", cwd=d)
    assert p.returncode == 0, p.stderr
    assert "report: rep/report.html" in p.stdout
    return d, json.loads((d / "rep" / "report.json").read_text())


def test_end_to_end_against_numpy(slider):
    d, r = slider
    with h5py.File(d / "sc.h5", "r") as f:
        status = f["status"][:]
        ok = status == 0
        reactions = f["reactions"][:][:, ok]
        t = f["time"][:]
        energy, violation = f["energy"][:][:, ok], f["constraint_violation"][:][:, ok]
        params = {k: f[f"params/{k}"][:][ok] for k in f["params"]}
        joints = list(f.attrs["joint_names"])
    assert r["instances"] == {"total": 16, "ok": int(ok.sum()), "failed": int((~ok).sum())}
    assert r["health"]["status_counts"] == {"ok": int(ok.sum())} and ok.all()
    assert r["health"]["reason_counts"] == {"none": 16}
    assert len(t) == 11 and r["traces"]["time"] == t.tolist()
    peaks = np.linalg.norm(reactions[..., :3], axis=-1).max(axis=0)  # (I_ok, J)
    with h5py.File(d / "sc.h5", "r") as f:
        bearing = f["bearing_loads"][:][:, ok]
        marked = {line.split(":")[0]: line.split(":")[1].split() for line in
                  [str(x) for x in f["bearing_loads"].attrs["statically_indeterminate"]]}
    # The slider-crank is planar but built of 3D joints: the file marks the pins' axial forces
    # (and so the reactions' |f|, which include them) statically indeterminate. Those are
    # reported (quantiles) but never ranked; the determinate radial forces are ranked.
    assert set(marked) == set(joints)
    ranked = 0
    for j, name in enumerate(joints):
        out = r["peak_loads"]["outputs"][f"reactions/{name}/|f|"]
        assert out["source"].startswith("/reactions frames") and out["units"] == "N"
        np.testing.assert_allclose([out["quantiles"][f"p{p}"] for p in PCT], np.percentile(peaks[:, j], PCT),
                                   rtol=1e-12)
        assert out["statically_indeterminate"] is True
        assert not {"spearman", "src", "r2", "ranking", "driver"} & set(out)
        med = np.median(np.linalg.norm(reactions[:, :, j, :3], axis=-1), axis=1)
        np.testing.assert_allclose(r["traces"]["traces"]["reactions"][f"{name}/|f|"]["p50"], med, rtol=1e-12)
        if "radial_force" in marked[name]:
            assert "ranking" not in r["peak_loads"]["outputs"][f"bearing_loads/{name}/radial_force"]
            continue
        out = r["peak_loads"]["outputs"][f"bearing_loads/{name}/radial_force"]
        assert out["statically_indeterminate"] is False
        radial = np.abs(bearing[:, :, j, 1]).max(axis=0)
        for k, x in params.items():
            assert out["spearman"][k]["rho"] == pytest.approx(spearman_np(x, radial), abs=1e-12)
        Z = np.column_stack([np.ones(ok.sum())] + [(x - x.mean()) / x.std() for x in params.values()])
        b = np.linalg.lstsq(Z, (radial - radial.mean()) / radial.std(), rcond=None)[0][1:]
        np.testing.assert_allclose([out["src"][k] for k in params], b, atol=1e-10)
        assert out["ranking"] == [list(params)[k] for k in np.argsort(-np.abs(b))]
        ranked += 1
    assert ranked >= 2
    viol = r["health"]["per_instance"]["max_constraint_violation"]["quantiles"]
    np.testing.assert_allclose(viol["p99"], np.percentile(violation.max(axis=0), 99), rtol=1e-12)
    drift = r["health"]["per_instance"]["energy_drift_abs"]["quantiles"]
    np.testing.assert_allclose(drift["p50"], np.median(np.abs(energy - energy[:1]).max(axis=0)), rtol=1e-12)
    np.testing.assert_allclose(r["traces"]["traces"]["energy"]["all/energy"]["p25"],
                               np.percentile(energy, 25, axis=1), rtol=1e-12)
    # the scene asks for no reductions and has no drivers: each is skipped with a line;
    # the bearing loads' peaks come from their frames
    for line in ("no /reductions group", "peak loads: driver_loads"):
        assert any(line in s for s in r["skipped"]), line
    with h5py.File(d / "sc.h5", "r") as f:
        radial = f["bearing_loads"][:][:, ok, joints.index("wrist_pin"), 1]
    out = r["peak_loads"]["outputs"]["bearing_loads/wrist_pin/radial_force"]
    assert out["source"].startswith("/bearing_loads frames")
    np.testing.assert_allclose(out["quantiles"]["p50"], np.median(np.abs(radial).max(axis=0)), rtol=1e-12)
    assert (d / "rep" / "report.html").stat().st_size > 10000


def test_cli_exit_codes(cli, slider, tmp_path):
    d, _ = slider
    p = run_cli(cli, "report", "missing.h5", cwd=tmp_path)
    assert p.returncode == 2 and "missing.h5: no such file" in p.stderr
    p = run_cli(cli, "report", str(d / "sc.h5"), "--quantity", "torques", cwd=tmp_path)
    assert p.returncode == 2 and "--quantity" in p.stderr
    # A damaged file (bytes flipped through its data) is bad input, an output folder that
    # cannot be made is exit 3: one line each, no traceback.
    flipped = bytearray((d / "sc.h5").read_bytes())
    for i in range(2000, len(flipped), 997):
        flipped[i] ^= 0xFF
    (tmp_path / "flipped.h5").write_bytes(bytes(flipped))
    p = run_cli(cli, "report", "flipped.h5", "-o", "rep_flipped", cwd=tmp_path)
    assert p.returncode == 2 and "flipped.h5" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    p = run_cli(cli, "report", str(d / "sc.h5"), "-o", "/proc/no-such-folder/rep", cwd=tmp_path)
    assert p.returncode == 3 and "cannot write to /proc/no-such-folder/rep" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    env = dict(os.environ, SIMPHANT_PYTHON=str(tmp_path / "no-python"))
    p = subprocess.run([cli, "report", str(d / "sc.h5")], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 3 and "cannot start the Python interpreter" in p.stderr and "SIMPHANT_PYTHON" in p.stderr
    # an interpreter without the package: a copy of the executable, with no build/python beside it
    exe = tmp_path / "bin" / "simphant"
    exe.parent.mkdir()
    shutil.copy(cli, exe)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(SIMPHANT_PYTHON=sys.executable, PYTHONNOUSERSITE="1",
               LD_LIBRARY_PATH=os.pathsep.join([str(pathlib.Path(cli).resolve().parent),
                                                os.environ.get("LD_LIBRARY_PATH", "")]))
    p = subprocess.run([str(exe), "report", str(d / "sc.h5")], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    if p.returncode == 0:
        pytest.skip("simphant is installed in the interpreter's site-packages: the missing-package case cannot be made")
    assert p.returncode == 3 and "cannot import simphant.report" in p.stderr, p.stderr


def test_report_modules_use_nothing_of_the_core(root):
    """The report reads only the HDF5 file: its modules import no other part of the package
    but the table of pip extras (simphant/_extras.py, pure Python), in particular not the
    compiled simphant._simphant (importing the package `simphant` still loads it through
    simphant/__init__.py)."""
    import ast

    for path in (root / "python" / "simphant" / "report").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level == 2 and node.module is None and [a.name for a in node.names] == ["_extras"]:
                    continue
                assert node.level <= 1 and not (node.module or "").startswith("simphant"), (path.name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("simphant") for a in node.names), path.name


def test_report_component_defaults_are_the_cores_table():
    """The report's fallback names and units (for a file without the attributes) are the
    core's table (src/simphant/model/components.hpp, simphant._simphant.components)."""
    from simphant import _simphant
    from simphant.report import load, outputs

    table = _simphant.components
    tables = {"reactions": table["reactions"] + table["reaction_magnitudes"],
              "joint_loads": table["joint_loads"], "bearing_loads": table["bearing_loads"], "contacts": table["contacts"]}
    for quantity, rows in tables.items():
        assert load.DEFAULT_COMPONENTS[quantity] == [name for name, _ in rows], quantity
        assert load.DEFAULT_UNITS[quantity] == [unit for _, unit in rows], quantity
    assert list(outputs.REACTION_MAGNITUDES) == [name for name, _ in table["reaction_magnitudes"]]


def test_every_instance_failed_and_no_frames(tmp_path):
    rd.write(tmp_path / "f.h5", instances=5, frames=4, failed=range(5), per_frame=False)
    r = report.make_report(str(tmp_path / "f.h5"), str(tmp_path / "o"))
    assert r["instances"] == {"total": 5, "ok": 0, "failed": 5}
    assert r["health"]["status_counts"] == {"diverged": 5}
    out = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    assert out["n"] == 0 and out["quantiles"]["p50"] is None and out["r2"] is None
    assert r["traces"] == {} and any("no frames" in s for s in r["skipped"])
    assert (tmp_path / "o" / "report.html").is_file()


def test_bad_layout_is_named(tmp_path):
    rd.write(tmp_path / "f.h5", instances=6, frames=3, failed=())
    with h5py.File(tmp_path / "f.h5", "a") as f:
        del f["reductions/bearing_loads/max"]
        f["reductions/bearing_loads/max"] = np.zeros((6, 4))
    with pytest.raises(report.ReportInputError, match="bearing_loads has shape \\(6, 4\\)"):
        report.make_report(str(tmp_path / "f.h5"), str(tmp_path / "o"))


# ---- answer first: indeterminate components, R^2 threshold, units, settings, file modes ----
def _mark_indeterminate(path, lines):
    """Writes the attribute statically_indeterminate, as the engine does, to /bearing_loads and
    /reductions/bearing_loads."""
    with h5py.File(path, "r+") as f:
        for name in ("bearing_loads", "reductions/bearing_loads"):
            f[name].attrs["statically_indeterminate"] = lines


def test_indeterminate_components_are_never_ranked(tmp_path):
    rd.write(tmp_path / "i.h5", instances=200, frames=5, failed=())
    _mark_indeterminate(tmp_path / "i.h5", ["main_bearing: axial_force bending_moment", "crank_pin: radial_force"])
    r = report.make_report(str(tmp_path / "i.h5"), str(tmp_path / "o"))
    outs = r["peak_loads"]["outputs"]
    marked = {"bearing_loads/main_bearing/axial_force", "bearing_loads/main_bearing/bending_moment",
              "bearing_loads/crank_pin/radial_force",
              # a reaction's magnitude includes the marked force components of its joint
              "reactions/main_bearing/|f|", "reactions/main_bearing/|tau|", "reactions/crank_pin/|f|",
              "reactions/crank_pin/|tau|"}
    assert {k for k, o in outs.items() if o["statically_indeterminate"]} == marked
    for k in marked:
        assert not {"spearman", "src", "r2", "ranking", "driver", "explained"} & set(outs[k]), k
        assert outs[k]["quantiles"]["n"] == 200  # still reported, apart
    # the radial force of the main bearing stays determinate and ranked
    assert outs["bearing_loads/main_bearing/radial_force"]["ranking"][0] == rd.X1
    a = r["answer"]
    assert set(a["indeterminate"]) == marked
    assert not {row["key"] for row in a["rows"]} & marked
    assert a["indeterminate_attribute"]["bearing_loads"] == {"main_bearing": ["axial_force", "bending_moment"],
                                                             "crank_pin": ["radial_force"]}
    page = (tmp_path / "o" / "report.html").read_text()
    answer_tables = re.findall(r'<table class="answer">.*?</table>', page)
    assert answer_tables and not any("main_bearing axial_force" in t or "crank_pin radial_force" in t
                                     for t in answer_tables)
    apart = page[page.index("Statically indeterminate components (not ranked)"):]
    assert "main_bearing axial_force" in apart and "crank_pin radial_force" in apart
    assert any("statically indeterminate" in s and "crank_pin/radial_force" in s for s in r["skipped"])


def test_indeterminate_components_are_left_out_of_sobol(saltelli, tmp_path):
    d, P, N, attrs = saltelli
    shutil.copy(d / "sal.h5", tmp_path / "sal.h5")
    _mark_indeterminate(tmp_path / "sal.h5", ["main_bearing: axial_force"])
    r = report.make_report(str(tmp_path / "sal.h5"), str(tmp_path / "o"), ["bearing_loads"])
    assert "bearing_loads/main_bearing/radial_force" in r["sobol"]["outputs"]
    assert "bearing_loads/main_bearing/axial_force" not in r["sobol"]["outputs"]


def test_low_r2_rows_say_so_instead_of_naming_a_parameter(tmp_path):
    rng = np.random.default_rng(3)
    I = 300
    params = {rd.X1: rng.random(I), rd.X2: rng.random(I), rd.X3: rng.random(I), "y": 5 + rng.random(I)}
    rd.write(tmp_path / "n.h5", instances=I, frames=5, failed=(), params=params)
    r = report.make_report(str(tmp_path / "n.h5"), str(tmp_path / "o"))
    threshold = report_threshold()
    assert r["answer"]["r2_threshold"] == threshold == 0.5
    rows = {row["key"]: row for row in r["answer"]["rows"]}
    low = rows["bearing_loads/main_bearing/radial_force"]  # y is noise: R^2 about 3 / 300
    out = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    assert out["r2"] < 0.1 and out["explained"] is False and out["driver"] is None
    assert low["driver"] is None and low["explained"] is False and "src" not in low
    assert low["driven_by"] == f"no single parameter explains this; R^2 = {out['r2']:.3f}"
    # the axial moment's peak is 2 + x3 exactly: explained, driven by x3
    high = rows["bearing_loads/main_bearing/axial_moment"]
    assert high["explained"] and high["driver"] == rd.X3 and high["driven_by"] == rd.X3 and high["r2"] >= threshold
    page = (tmp_path / "o" / "report.html").read_text()
    row_html = re.search(r"<tr><td class=\"l\">main_bearing radial_force</td>.*?</tr>", page).group(0)
    assert f"no single parameter explains this; R^2 = {out['r2']:.3f}" in row_html
    assert not any(p in row_html for p in (rd.X1, rd.X2, rd.X3))


def report_threshold():
    from simphant.report import stats

    return stats.R2_EXPLAINS


def test_engineering_units_on_the_page_and_json_consistent(tmp_path):
    """Forces above 1 kN are shown in kN, moments in N·m, both named in every header; the
    page's numbers are report.json's SI numbers times the stated factor."""
    rng = np.random.default_rng(4)
    I = 200
    x1, x2, x3 = rng.random(I), rng.random(I), rng.random(I)
    params = {rd.X1: x1, rd.X2: x2, rd.X3: x3, "y": 9e4 + 3e3 * x1 + rng.normal(0, 10, I)}
    rd.write(tmp_path / "k.h5", instances=I, frames=5, failed=(), params=params)
    with h5py.File(tmp_path / "k.h5", "r+") as f:
        f[f"params/{rd.X1}"].attrs["units"] = "m"
    r = report.make_report(str(tmp_path / "k.h5"), str(tmp_path / "o"))
    out = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/radial_force"]
    assert out["units"] == "N" and out["display_units"] == "kN" and out["display_scale"] == 1e-3
    assert out["quantiles"]["p50"] > 9e4  # report.json keeps SI
    moment = r["peak_loads"]["outputs"]["bearing_loads/main_bearing/axial_moment"]
    assert moment["display_units"] == "N·m" and moment["display_scale"] == 1.0
    row = next(x for x in r["answer"]["rows"] if x["key"] == "bearing_loads/main_bearing/radial_force")
    assert row["p50"] == out["quantiles"]["p50"] and row["display_units"] == "kN"
    assert r["peak_loads"]["parameter_display_units"][rd.X1] == ["mm", 1000.0]
    page = (tmp_path / "o" / "report.html").read_text()
    for header in ("median [kN]", "p5 – p95 [kN]", "max [kN]", "median [N·m]"):
        assert f"<th>{header}</th>" in page, header
    shown = re.search(r"<tr><td class=\"l\">main_bearing radial_force</td><td>([^<]*)</td>", page).group(1)
    assert shown == f"{out['quantiles']['p50'] * 1e-3:.4g}"


def test_display_units():
    from simphant.report.units import display_unit

    assert display_unit("N", [94031.5]) == ("kN", 1e-3)
    assert display_unit("N", [712.0]) == ("N", 1.0)
    assert display_unit("N m", [712.5]) == ("N·m", 1.0)
    assert display_unit("N m", [5.0e3]) == ("kN·m", 1e-3)
    assert display_unit("m", [0.2]) == ("mm", 1e3)
    label, f = display_unit("rad", [1.0])
    assert label == "deg" and f == pytest.approx(180 / np.pi)
    assert display_unit("m or 1 (rows)", [1e-9]) == ("m or 1 (rows)", 1.0)
    assert display_unit("", [1.0]) == ("?", 1.0)


def test_fixed_step_run_shows_no_tolerances(tmp_path):
    """A fixed-step run's file carries rtol and atol too (the solver's defaults): they do not
    apply to rk4 and appear neither in report.json nor on the page."""
    attrs = {"integrator": "rk4", "rtol": 1e-6, "atol": 1e-9, "accepted_steps": np.int64(1500),
             "rejected_steps": np.int64(0), "min_step_s": 1e-3, "max_step_s": 1e-3}
    rd.write(tmp_path / "rk4.h5", instances=30, frames=5, failed=(), attrs=attrs)
    r = report.make_report(str(tmp_path / "rk4.h5"), str(tmp_path / "o"))
    assert r["run"]["integrator"] == "rk4" and r["run"]["accepted_steps"] == 1500
    assert not {"rtol", "atol", "rejected_steps", "min_step_s", "max_step_s"} & set(r["run"])
    page = (tmp_path / "o" / "report.html").read_text()
    assert "rtol" not in page and "atol" not in page
    assert "rk4, dt = 1 ms" in page


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_files_are_readable_by_the_group(tmp_path, mask, mode):
    """The files get the mode open() gives (0o666 less the umask), not mkstemp's 0o600."""
    rd.write(tmp_path / "m.h5", instances=20, frames=3, failed=())
    old = os.umask(mask)
    try:
        r = report.make_report(str(tmp_path / "m.h5"), str(tmp_path / "o"))
    finally:
        os.umask(old)
    names = ["report.html", "report.json"] + [x["file"] for x in r["figures"]]
    for name in names:
        assert (tmp_path / "o" / name).stat().st_mode & 0o777 == mode, name
    assert not list((tmp_path / "o").glob(".tmp-*"))


def test_display_unit_comes_from_the_ok_instances_finite_peaks():
    """A failed instance (inf, or a huge value) does not choose the unit of the tables,
    which show the ok instances only."""
    import numpy as np

    from simphant.report import sections
    from simphant.report.load import Output

    ok = np.array([True, True, False, False])
    loads = Output("r/j/f", "reactions", "j", "f", "N", np.array([52e3, 61e3, np.inf, 3e7]), "test")
    assert sections.unit_map([loads], ok)["N"] == ("kN", 1e-3)
    small = Output("r/j/f", "reactions", "j", "f", "N", np.array([480.0, 512.0, 3e7, np.nan]), "test")
    assert sections.unit_map([small], ok)["N"] == ("N", 1.0)


def test_local_sensitivities_of_the_peak_loads(cli, examples, tmp_path):
    """A crank press sweep run with sensitivities of its two swept values: the report's
    local sensitivities are (p / y) dy/dp from the file's derivatives, values and peaks,
    and the sampled regression slope of the peak main-bearing load on the parameters (what
    SRC scales) lies within the range of the instances' derivatives, as a secant slope
    of a response this close to linear does."""
    paths = ["joints.crank_pin.frame_i.origin[0]", "joints.wrist_pin.frame_i.origin[0]"]
    p = run_cli(cli, "run", str(examples / "crank_press.json"), "-n", "48", "--t-end", "0.4", "--backend", "cpu",
                "--frames", "none", "--sensitivities", ",".join(paths), "--out", "cp.h5", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    r = report.make_report(str(tmp_path / "cp.h5"), str(tmp_path / "rep"))
    local = r["local_sensitivities"]
    assert local["parameters"] == paths
    key = "bearing_loads/main_bearing/radial_force"
    with h5py.File(tmp_path / "cp.h5", "r") as f:
        c = list(f["reductions/bearing_loads"].attrs["components"]).index("radial_force")
        y = f["reductions/bearing_loads/max"][:, 0, c]
        d = f["reduction_sensitivities/bearing_loads/max"][:, 0, c, :]
        values = f["sensitivity_values"][:]
        X = np.column_stack([f[f"params/{q}"][:] for q in paths])
    np.testing.assert_array_equal(values, X)  # swept: the derivatives are taken at the samples
    for j, q in enumerate(paths):
        e = values[:, j] * d[:, j] / y
        assert local["outputs"][key][q]["normalised"]["p50"] == pytest.approx(float(np.percentile(e, 50)), rel=1e-12)
        assert local["outputs"][key][q]["units"] == "N / parameter unit"
    slope = np.linalg.lstsq(np.column_stack([np.ones(len(y)), X]), y, rcond=None)[0][1:]
    for j in range(2):
        assert d[:, j].min() <= slope[j] <= d[:, j].max(), (slope, d.min(axis=0), d.max(axis=0))
    # The rounding-level pin moments are left out, and the page shows the table.
    assert any("local sensitivities: peaks below" in s and "crank_pin/axial_moment" in s for s in r["skipped"])
    assert "bearing_loads/crank_pin/axial_moment" not in local["outputs"]
    assert "Local sensitivities (p / y) dy/dp" in (tmp_path / "rep" / "report.html").read_text()
