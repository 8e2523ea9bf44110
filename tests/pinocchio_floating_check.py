#!/usr/bin/env python3
"""Cross-check of SimPhant's floating-base ABA (spatial and CGA) and floating forward
kinematics against Pinocchio with a JointModelFreeFlyer root.

Usage: pinocchio_floating_check.py FLOATING_DUMP_BINARY [--tol 1e-10]

Runs FLOATING_DUMP_BINARY (tests/floating_dump.cpp) to write our results at random states
of Panda, UR5, Solo-12 and ANYmal C (example-robot-data) made floating, loads the same URDFs
with pinocchio.buildModelFromUrdf(path, JointModelFreeFlyer()) and compares pinocchio.aba
and the link frames' placements and velocities. A fifth robot, Solo-12 with a `floating`
joint from a `world` link written into its URDF (a copy in a temporary folder), checks
the import of a URDF floating joint the same way (Pinocchio reads that joint as its free
flyer: buildModelFromUrdf(path) without a root joint).

Conventions converted here (ours: docs/robots.md "Floating base"):
  ours      p_B (W), quat_B = (w, x, y, z) B -> W, v_B = velocity of B's origin in W,
            omega_B in B; outputs vdot_B = dv_B/dt (W), omegadot_B = domega_B/dt (B).
  Pinocchio q[0:7] = (p_B, x, y, z, w); v[0:6] = (R_B^T v_B, omega_B) (LOCAL); the free
            flyer's ddq[0:6] = d/dt of those B coordinates, so
            vdot_B = R_B (ddq[0:3] + omega_B x R_B^T v_B), omegadot_B = ddq[3:6].
  Link frames: data.oMf[frame].rotation / .translation = our R_W / o_W;
            getFrameVelocity(..., LOCAL) = (R_W^T vo_W, omega_L).
Gravity: Pinocchio's default (0, 0, -9.81) m/s^2 as ours (checked). Joints matched by name;
a continuous joint has nq = 2 (cos q, sin q) in Pinocchio. Error measure per quantity:
max |ours - pin| / max(1, max |pin|).

Exit codes: 0 all agree, 1 a mismatch, 77 skipped (pinocchio or example-robot-data not
importable), 2 the dump tool failed.
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
        with open(os.path.join(rdir, "solo_description/robots/solo12.urdf")) as f:
            solo = f.read()
        # A floating joint from `world` to the root link, inserted after <robot ...>.
        head = solo.index(">", solo.index("<robot")) + 1
        solo = (solo[:head] + '<link name="world"/><joint name="world_base" type="floating">'
                '<parent link="world"/><child link="base_link"/></joint>' + solo[head:])
        solo_path = os.path.join(tmp, "solo12_floating_joint.urdf")
        with open(solo_path, "w") as f:
            f.write(solo)
        dump = run_dump([args[0], rdir, out, f"solo12_floating_joint={solo_path}"], out)
        if dump is None:
            return 2
        return compare(np, pin, dump, tol)  # inside the with: the modified URDF must still exist


def compare(np, pin, dump, tol):
    print(f"pinocchio {pin.__version__}, tolerance {tol:g} (relative)")
    names = [r["name"] for r in dump["robots"]]
    if len(names) != 5 or any(len(r["cases"]) == 0 for r in dump["robots"]):
        print(f"FAIL: the dump should hold 5 robots with cases each, got {names}")
        return 1
    if [r["urdf_floating"] for r in dump["robots"]] != [False] * 4 + [True]:
        print("FAIL: only the last robot's URDF should carry a floating joint")
        return 1
    ok = True
    for r in dump["robots"]:
        # a URDF floating joint is Pinocchio's free flyer already
        model = load_model(pin, r["urdf"], free_flyer=not r["urdf_floating"])
        if model.joints[1].shortname() != "JointModelFreeFlyer":
            print(f"FAIL {r['name']}: pinocchio's first joint is {model.joints[1].shortname()}, not a free flyer")
            ok = False
            continue
        data = model.createData()
        ok = gravity_matches(model, r) and ok
        n = len(r["joints"])
        if model.nv != n + 6:
            print(f"FAIL {r['name']}: pinocchio nv {model.nv}, ours 6 + {n}")
            ok = False
            continue
        jm = [model.joints[model.getJointId(name)] for name in r["joints"]]
        idx = [j.idx_v for j in jm]
        fids = [model.getFrameId(name, pin.FrameType.BODY) for name in r["links"]]
        worst = {k: 0.0 for k in ("aba", "cga_aba", "pose", "link_velocity")}
        for c in r["cases"]:
            qw, qx, qy, qz = c["quat_B"]
            R_B = pin.Quaternion(qw, qx, qy, qz).toRotationMatrix()
            omega_B = np.array(c["omega_B"])
            v_loc = R_B.T @ np.array(c["v_B"])
            q = np.zeros(model.nq)
            v = np.zeros(model.nv)
            tau = np.zeros(model.nv)
            q[0:3], q[3:7] = c["p_B"], [qx, qy, qz, qw]
            v[0:3], v[3:6] = v_loc, omega_B
            set_joint_positions(q, jm, c["q"])
            for k, j in enumerate(jm):
                v[j.idx_v], tau[j.idx_v] = c["qd"][k], c["tau"][k]
            ddq = pin.aba(model, data, q, v, tau).copy()
            ref = np.concatenate([R_B @ (ddq[0:3] + np.cross(omega_B, v_loc)), ddq[3:6], ddq[idx]])
            for key in ("aba", "cga_aba"):
                o = c[key]
                ours = np.concatenate([o["vdot_B"], o["omegadot_B"], o["qdd"]])
                worst[key] = max(worst[key], rel_err(ours, ref))
            pin.forwardKinematics(model, data, q, v)
            pin.updateFramePlacements(model, data)
            for k, f in enumerate(fids):
                M = data.oMf[f]
                worst["pose"] = max(worst["pose"], rel_err(np.array(c["R_W"][k]).reshape(3, 3), M.rotation),
                                    rel_err(c["o_W"][k], M.translation))
                vel = pin.getFrameVelocity(model, data, f, pin.ReferenceFrame.LOCAL)
                lin = M.rotation.T @ np.array(c["vo_W"][k])
                worst["link_velocity"] = max(worst["link_velocity"], rel_err(np.concatenate([lin, c["omega_L"][k]]),
                                                                           np.concatenate([vel.linear, vel.angular])))
        ok = report(f"{r['name']} (6 + {n} dof, {len(r['cases'])} states)", worst, tol) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run(main, __doc__))
