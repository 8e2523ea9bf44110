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
import os
import sys
import tempfile

from pinocchio_support import (gravity_matches, load_model, rel_err, report, run, run_dump, set_joint_positions,
                               tolerance)


def main(args, np, pin, rdir):
    tol = tolerance(args)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dump.json")
        dump = run_dump([args[0], rdir, out], out)
        if dump is None:
            return 2
    print(f"pinocchio {pin.__version__}, tolerance {tol:g} (relative)")
    ok = True
    names = [r["name"] for r in dump["robots"]]
    if len(names) != 3 or any(len(r["cases"]) == 0 for r in dump["robots"]):
        print(f"FAIL: the dump should hold 3 robots with cases each, got {names}")
        return 1
    for r in dump["robots"]:
        model = load_model(pin, r["urdf"])
        data = model.createData()
        ok = gravity_matches(model, r) and ok
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
            set_joint_positions(q, jm, c["q"])
            for k, j in enumerate(jm):
                v[j.idx_v], a[j.idx_v], tau[j.idx_v] = c["qd"][k], c["qdd"][k], c["tau"][k]
            ref_tau = pin.rnea(model, data, q, v, a).copy()
            ref_qdd = pin.aba(model, data, q, v, tau).copy()
            idx = [j.idx_v for j in jm]
            for key, ref in (("rnea", ref_tau), ("aba", ref_qdd), ("cga_rnea", ref_tau), ("cga_aba", ref_qdd)):
                # ref[idx]: every joint (nv = n), in our order
                worst[key] = max(worst[key], rel_err(c[key], ref[idx]))
        ok = report(f"{r['name']} ({n} dof, {len(r['cases'])} states)", worst, tol) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run(main, __doc__))
