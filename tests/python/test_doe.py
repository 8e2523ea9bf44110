"""Designs of experiments of the sweep (docs/scene-format.md, "Sweep") run by the command
line, against scipy and SALib: the Sobol' points equal scipy.stats.qmc.Sobol's, the
Saltelli design equals SALib.sample.sobol.sample's rows and SALib.analyze.sobol on it
recovers the Ishigami function's indices, design files written by numpy read back
exactly, and shards of a design file changed in between are refused by merge."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import run_cli

h5py = pytest.importorskip("h5py")
qmc = pytest.importorskip("scipy.stats.qmc")

PATHS = ["bodies.a.position[0]", "bodies.a.position[1]", "bodies.a.position[2]",
         "bodies.b.position[0]", "bodies.b.position[1]", "bodies.b.position[2]"]


# 21 numbers any value of which gives a valid instance: the Sobol' dimensions compared.
MANY = [f"bodies.{b}.{key}[{k}]" for b in "ab" for key in ("position", "velocity", "angular_velocity")
        for k in range(3)] + [f"gravity[{k}]" for k in range(3)]


def scene(sweep: dict) -> dict:
    """Two free bodies (no joint): any position or velocity is a valid instance; one step."""
    body = lambda name, x: {"name": name, "mass": 1, "inertia": [0.1, 0.1, 0.1], "position": [x, 0, 0],
                            "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0]}
    return {"gravity": [0, 0, -9.81], "bodies": [body("a", 0), body("b", 1)], "joints": [],
            "solver": {"dt": 0.001, "t_end": 0.001}, "sweep": sweep}


def run(cli, tmp_path, sweep, name="out.h5", *extra):
    (tmp_path / "scene.json").write_text(json.dumps(scene(sweep)))
    proc = run_cli(cli, "run", "scene.json", "--backend", "cpu", "--threads", "1", "--out", name, *extra, cwd=tmp_path)
    return proc


def params(path, names):
    with h5py.File(path, "r") as f:
        return np.stack([f["params"][n][...] for n in names], axis=1), dict(f.attrs), dict(f["params"].attrs)


def uniform(path, lo, hi):
    return {"path": path, "dist": "uniform", "low": lo, "high": hi}


def test_sobol_points_equal_scipy_unscrambled(cli, tmp_path):
    proc = run(cli, tmp_path, {"mode": "sobol", "instances": 1024, "parameters": [uniform(p, 0, 1) for p in MANY]})
    assert proc.returncode == 0, proc.stderr
    x, attrs, _ = params(tmp_path / "out.h5", MANY)
    ref = qmc.Sobol(d=len(MANY), scramble=False).random(1024)  # from point 0, the origin
    np.testing.assert_array_equal(x, ref)
    assert attrs["sweep_mode"] == "sobol"


@pytest.mark.parametrize("second_order", [True, False])
def test_saltelli_design_equals_salib_and_recovers_the_ishigami_indices(cli, tmp_path, second_order):
    salib_sample = pytest.importorskip("SALib.sample.sobol")
    salib_analyze = pytest.importorskip("SALib.analyze.sobol")
    names = PATHS[:3]
    n = 1024
    proc = run(cli, tmp_path, {"mode": "saltelli", "base": n, "second_order": second_order,
                               "parameters": [uniform(p, -math.pi, math.pi) for p in names]})
    assert proc.returncode == 0, proc.stderr
    x, attrs, pattrs = params(tmp_path / "out.h5", names)
    problem = json.loads(pattrs["problem"])
    assert problem["names"] == names and problem["num_vars"] == 3 and problem["dists"] == ["unif"] * 3
    assert attrs["sweep_mode"] == "saltelli" and attrs["saltelli_base"] == n
    assert attrs["saltelli_second_order"] == int(second_order)
    ref = salib_sample.sample(problem, n, calc_second_order=second_order, scramble=False)
    np.testing.assert_array_equal(x, ref)  # the same rows, bit for bit, in the same order

    # Ishigami (a = 7, b = 0.1) on our design; its indices in closed form (Ishigami and
    # Homma 1990; Sobol' and Levitan 1999).
    a, b = 7.0, 0.1
    y = np.sin(x[:, 0]) + a * np.sin(x[:, 1]) ** 2 + b * x[:, 2] ** 4 * np.sin(x[:, 0])
    v1 = 0.5 * (1 + b * math.pi ** 4 / 5) ** 2
    v2 = a ** 2 / 8
    v13 = b ** 2 * math.pi ** 8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13
    s1 = np.array([v1, v2, 0]) / v
    st = np.array([v1 + v13, v2, v13]) / v
    si = salib_analyze.analyze(problem, y, calc_second_order=second_order, seed=1)
    # Within 3 of SALib's bootstrap 95 % half-widths (about 6 standard errors).
    assert np.all(np.abs(si["S1"] - s1) < 3 * si["S1_conf"]), (si["S1"], si["S1_conf"], s1)
    assert np.all(np.abs(si["ST"] - st) < 3 * si["ST_conf"]), (si["ST"], si["ST_conf"], st)
    assert np.all(np.abs(si["S1"] - s1) < 0.05) and np.all(np.abs(si["ST"] - st) < 0.05)


def test_numpy_design_files_read_back_exactly(cli, tmp_path):
    rng = np.random.default_rng(4)
    design = rng.normal(size=(17, 6)) * 10.0 ** rng.integers(-8, 8, size=(17, 6))
    np.savetxt(tmp_path / "doe.csv", design, delimiter=",", header=",".join(PATHS), comments="", fmt="%.17g")
    proc = run(cli, tmp_path, {"mode": "design", "file": "doe.csv"})
    assert proc.returncode == 0, proc.stderr
    x, attrs, _ = params(tmp_path / "out.h5", PATHS)
    np.testing.assert_array_equal(x, design)
    assert attrs["sweep_mode"] == "design" and len(attrs["sweep_design_crc64"]) == 16
    for order, dtype in (("C", np.float64), ("F", np.float64), ("C", np.float32)):
        arr = np.asarray(design, dtype=dtype, order=order)
        np.save(tmp_path / "doe.npy", arr)
        proc = run(cli, tmp_path, {"mode": "design", "file": "doe.npy", "columns": PATHS}, "npy.h5")
        assert proc.returncode == 0, proc.stderr
        np.testing.assert_array_equal(params(tmp_path / "npy.h5", PATHS)[0], arr.astype(np.float64))
    np.save(tmp_path / "int.npy", np.zeros((3, 6), dtype=np.int64))
    proc = run(cli, tmp_path, {"mode": "design", "file": "int.npy", "columns": PATHS}, "int.h5")
    assert proc.returncode == 2 and "/sweep/file" in proc.stderr and "dtype '<i8'" in proc.stderr


def test_merge_refuses_shards_of_a_design_file_changed_between_them(cli, tmp_path):
    design = np.arange(24, dtype=float).reshape(4, 6)
    np.savetxt(tmp_path / "doe.csv", design, delimiter=",", header=",".join(PATHS), comments="")
    assert run(cli, tmp_path, {"mode": "design", "file": "doe.csv"}, "s0.h5", "--shard", "0/2").returncode == 0
    assert run(cli, tmp_path, {"mode": "design", "file": "doe.csv"}, "s1.h5", "--shard", "1/2").returncode == 0
    proc = run_cli(cli, "merge", "whole.h5", "s0.h5", "s1.h5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(params(tmp_path / "whole.h5", PATHS)[0], design)
    np.savetxt(tmp_path / "doe.csv", design + 1, delimiter=",", header=",".join(PATHS), comments="")
    assert run(cli, tmp_path, {"mode": "design", "file": "doe.csv"}, "s1.h5", "--shard", "1/2").returncode == 0
    proc = run_cli(cli, "merge", "bad.h5", "s0.h5", "s1.h5", cwd=tmp_path)
    assert proc.returncode != 0 and "sweep_design_crc64" in proc.stderr, proc.stderr
