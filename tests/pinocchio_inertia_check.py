#!/usr/bin/env python3
"""Cross-check of the effective joint inertias from which robot scenes derive their limit
gains (src/simphant/scene/robot_joint_params.hpp, joint_effective_inertia; docs/robots.md
"Actuators, limits, damping and friction") against Pinocchio.

Usage: pinocchio_inertia_check.py JOINT_INERTIA_DUMP_BINARY [--tol 1e-10]

At 20 random configurations (revolute q in [-pi, pi]) of Panda and UR5 (fixed base) and
of Panda and Solo-12 made floating (pinocchio.JointModelFreeFlyer root, base at rest at
the identity pose), compares our 1 / (M^-1)_kk with 1 / (pinocchio.crba(q)^-1)_kk, the
joints matched by name (a floating base: the joint block after the free flyer's 6 rows).
Error measure: max over joints and states of |ours - pin| / pin.

Exit codes: 0 all agree, 1 a mismatch, 77 skipped (pinocchio or example-robot-data not
importable), 2 the dump tool failed.
"""
import json
import os
import subprocess
import sys

from pinocchio_support import load_model, run, tolerance


def main(args, np, pin, rdir):
    tol = tolerance(args)
    robots = [("Panda", "panda_description/urdf/panda.urdf", False),
              ("UR5", "ur_description/urdf/ur5_robot.urdf", False),
              ("Panda floating", "panda_description/urdf/panda.urdf", True),
              ("Solo-12 floating", "solo_description/robots/solo12.urdf", True)]
    rng = np.random.default_rng(7)
    failures = 0
    for label, rel, floating in robots:
        path = os.path.join(rdir, rel)
        model = load_model(pin, path, free_flyer=floating)
        if model.nq != model.nv + (1 if floating else 0):
            print(f"FAIL: {label}: joints with nq != nv (continuous) are not handled here")
            return 1
        data = model.createData()
        worst = 0.0
        for _ in range(20):
            qj = rng.uniform(-np.pi, np.pi, model.nv - (6 if floating else 0))
            q = np.concatenate([[0, 0, 0, 0, 0, 0, 1], qj]) if floating else qj
            out = subprocess.run([args[0], path, "1" if floating else "0"] + [repr(float(x)) for x in qj],
                                 capture_output=True, text=True, env=dict(os.environ, SIMPHANT_LOG_LEVEL="off"))
            if out.returncode != 0:
                print(f"FAIL: {label}: dump tool exited {out.returncode}: {out.stderr.strip()}")
                return 2
            ours = json.loads(out.stdout)
            M = pin.crba(model, data, q)
            M = np.triu(M) + np.triu(M, 1).T  # crba fills the upper triangle
            diag = np.diag(np.linalg.inv(M))
            for name, value in zip(ours["names"], ours["inertia"]):
                jid = model.getJointId(name)
                ref = 1.0 / diag[model.joints[jid].idx_v]
                worst = max(worst, abs(value - ref) / ref if np.isfinite(value) else float("inf"))
        ok = worst <= tol
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {label}: effective inertia max relative error {worst:.2g} (tol {tol:g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run(main, __doc__))
