#!/usr/bin/env python3
"""Cross-check of SimPhant's URDF import against Pinocchio's URDF parser.

Usage: pinocchio_urdf_check.py URDF_DUMP_BINARY

Runs URDF_DUMP_BINARY (tests/urdf_dump.cpp) on solo12, ANYmal (B), Panda and UR5 from
example-robot-data, each with its base made floating, and compares with
pinocchio.buildModelFromUrdf(path, JointModelFreeFlyer(), mimic=True):
  - the floating base: Pinocchio's body of the root joint (the root link with its fixed
    children merged): mass, CoM and inertia about the CoM, in the root link's frame;
  - every moving link: the body inertia of its joint (joint frame = link frame at q = 0),
    matched by joint name;
  - limits (effort, velocity, lower/upper for non-continuous joints), <dynamics> damping
    and friction, and <mimic> (Pinocchio 4's JointModelMimic: the leader is the joint
    whose q it shares; scaling = multiplier, offset).
Mass properties agree to round-off: tolerance 1e-12 relative to the largest value of the
compared quantity (both sides add the same few terms in double precision); the
scalars read from the file must be equal.

Exit codes: 0 all agree, 1 a mismatch, 77 skipped (pinocchio or example-robot-data not
importable: pip install pin example-robot-data), 2 the dump tool failed.
"""
import json
import os
import subprocess
import sys

from pinocchio_support import load_model, run

ROBOTS = ["solo_description/robots/solo12.urdf", "anymal_b_simple_description/robots/anymal.urdf",
          "panda_description/urdf/panda.urdf", "ur_description/urdf/ur5_robot.urdf"]
TOL = 1e-12


def main(args, np, pin, rdir):
    paths = [os.path.join(rdir, r) for r in ROBOTS]
    proc = subprocess.run([args[0]] + paths, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: {args[0]} exited with {proc.returncode}: {proc.stderr}")
        return 2
    dump = json.loads(proc.stdout)
    print(f"pinocchio {pin.__version__}, mass properties to {TOL:g} (relative)")
    ok = True

    def close(what, ours, ref):
        nonlocal ok
        ours, ref = np.asarray(ours, float), np.asarray(ref, float)
        # relative to the largest reference value (floor 1e-9: an exact zero allows 1e-21 absolute)
        err = float(np.max(np.abs(ours - ref))) / max(1e-9, float(np.max(np.abs(ref))))
        if not np.isfinite(err) or err > TOL:
            print(f"FAIL {what}: ours {ours.ravel()} pinocchio {ref.ravel()} (error {err:.2e})")
            ok = False
        return err

    def equal(what, ours, ref):
        nonlocal ok
        if ours != ref:
            print(f"FAIL {what}: ours {ours} pinocchio {ref}")
            ok = False

    for r in dump["robots"]:
        name = os.path.basename(r["urdf"])
        model = load_model(pin, r["urdf"], free_flyer=True, mimic=True)
        worst = 0.0
        base = model.inertias[1]  # joint 1: the free-flyer root
        worst = max(worst, close(f"{name} base mass", r["base"]["mass"], base.mass))
        worst = max(worst, close(f"{name} base com", r["base"]["com"], base.lever))
        worst = max(worst, close(f"{name} base inertia", np.reshape(r["base"]["inertia"], (3, 3)), base.inertia))
        equal(f"{name} moving joints", len(r["links"]), model.njoints - 2)
        for l in r["links"]:
            jid = model.getJointId(l["joint"])
            if jid >= model.njoints:
                print(f"FAIL {name}: pinocchio has no joint {l['joint']}")
                ok = False
                continue
            j = model.joints[jid]
            I = model.inertias[jid]
            w = f"{name} {l['joint']}"
            worst = max(worst, close(w + " mass", l["mass"], I.mass))
            if l["mass"] > 0:
                worst = max(worst, close(w + " com", l["com"], I.lever))
            worst = max(worst, close(w + " inertia", np.reshape(l["inertia"], (3, 3)), I.inertia))
            iv, iq = j.idx_v, j.idx_q
            equal(w + " effort", l["effort"], model.effortLimit[iv])
            equal(w + " velocity", l["velocity"], model.velocityLimit[iv])
            equal(w + " damping", l["damping"], model.damping[iv])
            equal(w + " friction", l["friction"], model.friction[iv])
            if not l["continuous"] and j.shortname() != "JointModelMimic":
                equal(w + " lower", l["lower"], model.lowerPositionLimit[iq])
                equal(w + " upper", l["upper"], model.upperPositionLimit[iq])
            if j.shortname() == "JointModelMimic":
                m = j.extract()
                leaders = [model.names[k] for k in range(2, model.njoints)
                           if k != jid and model.joints[k].idx_q == m.idx_q and model.joints[k].shortname() != "JointModelMimic"]
                equal(w + " mimic leader", [l["mimic"]], leaders)
                equal(w + " mimic multiplier", l["multiplier"], m.scaling)
                equal(w + " mimic offset", l["offset"], m.offset)
            else:
                equal(w + " mimic", l["mimic"], None)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: base '{r['base']['link']}' {r['base']['mass']:.6g} kg, "
              f"{len(r['links'])} moving joints, worst mass-property error {worst:.2e}, "
              f"{len(r['warnings'])} warning lines")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run(main, __doc__, max_args=1))
