#!/usr/bin/env python3
"""Cross-check of SimPhant's RNEA / ABA (spatial and CGA) against Pinocchio.

Usage: pinocchio_check.py ROBOT_DUMP_BINARY [--tol 1e-10]

Runs ROBOT_DUMP_BINARY (tests/robot_dump.cpp) to write our results at random states of
Panda, UR5 and xArm7 (example-robot-data; KUKA iiwa is not in its 6.0.0), loads the same
URDFs with pinocchio.buildModelFromUrdf and compares pinocchio.rnea / pinocchio.aba.

Conventions: Pinocchio's gravity defaults to (0, 0, -9.81) m/s^2 as ours (checked);
joints are matched by name (Pinocchio orders them depth-first, so does our importer,
but by name is safe); a continuous joint is Pinocchio's JointModelRUBZ/RUBX.. with
nq = 2 (cos q, sin q), nv = 1. Error measure per case: max |ours - pin| / max(1, max |pin|).

Exit codes: 0 all agree, 1 a mismatch, 77 skipped (pinocchio or example-robot-data
not importable: pip install pin example-robot-data), 2 the dump tool failed.
"""
import json
import os
import subprocess
import sys
import tempfile


def robots_dir():
    if os.environ.get("SIMPHANT_ROBOT_DATA"):
        return os.environ["SIMPHANT_ROBOT_DATA"]
    try:
        import importlib.metadata as m
        d = str(m.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))
    except Exception:
        return ""
    return d if os.path.isdir(d) else ""


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    tol = float(args[args.index("--tol") + 1]) if "--tol" in args else 1e-10
    try:
        import numpy as np
        import pinocchio as pin
    except ImportError as e:
        print(f"SKIP: pinocchio is not importable ({e}); pip install pin")
        return 77
    rdir = robots_dir()
    if not rdir:
        print("SKIP: example-robot-data is not installed; pip install example-robot-data")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dump.json")
        rc = subprocess.call([args[0], rdir, out])
        if rc != 0:
            print(f"FAIL: {args[0]} exited with {rc}")
            return 2
        with open(out) as f:
            dump = json.load(f)
    print(f"pinocchio {pin.__version__}, tolerance {tol:g} (relative)")
    ok = True
    names = [r["name"] for r in dump["robots"]]
    if len(names) != 3 or any(len(r["cases"]) == 0 for r in dump["robots"]):
        print(f"FAIL: the dump should hold 3 robots with cases each, got {names}")
        return 1
    for r in dump["robots"]:
        model = pin.buildModelFromUrdf(r["urdf"])
        data = model.createData()
        if not np.allclose(model.gravity.linear, r["gravity"], rtol=0, atol=1e-15):
            print(f"FAIL {r['name']}: gravity {model.gravity.linear} vs ours {r['gravity']}")
            ok = False
        n = len(r["joints"])
        if model.nv != n:
            print(f"FAIL {r['name']}: pinocchio nv {model.nv}, ours {n}")
            ok = False
            continue
        jm = [model.joints[model.getJointId(name)] for name in r["joints"]]
        worst = {"rnea": 0.0, "aba": 0.0, "cga_rnea": 0.0, "cga_aba": 0.0}
        for c in r["cases"]:
            q = np.zeros(model.nq)
            v = np.zeros(model.nv)
            a = np.zeros(model.nv)
            tau = np.zeros(model.nv)
            for k, j in enumerate(jm):
                if j.nq == 2:  # continuous: (cos, sin)
                    q[j.idx_q], q[j.idx_q + 1] = np.cos(c["q"][k]), np.sin(c["q"][k])
                else:
                    q[j.idx_q] = c["q"][k]
                v[j.idx_v], a[j.idx_v], tau[j.idx_v] = c["qd"][k], c["qdd"][k], c["tau"][k]
            ref_tau = pin.rnea(model, data, q, v, a).copy()
            ref_qdd = pin.aba(model, data, q, v, tau).copy()
            idx = [j.idx_v for j in jm]
            for key, ref in (("rnea", ref_tau), ("aba", ref_qdd), ("cga_rnea", ref_tau), ("cga_aba", ref_qdd)):
                ours = np.array(c[key])
                if not (np.isfinite(ours).all() and np.isfinite(ref).all()):
                    err = float("inf")  # a NaN must fail, not vanish in max()
                else:
                    err = np.max(np.abs(ours - ref[idx])) / max(1.0, np.max(np.abs(ref)))
                worst[key] = max(worst[key], err)
        line = ", ".join(f"{k} {e:.2e}" for k, e in worst.items())
        bad = any(e > tol for e in worst.values())
        print(f"{'FAIL' if bad else 'ok  '} {r['name']} ({n} dof, {len(r['cases'])} states): {line}")
        ok = ok and not bad
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
