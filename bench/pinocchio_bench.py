#!/usr/bin/env python3
"""Pinocchio's aba / rnea per call on Panda, UR5 and xArm7, three ways:

  python   : pinocchio.aba(model, data, q, v, tau) called from a Python loop (timeit)
             over 256 random states; includes the Python -> C++ call overhead.
  minus 1dof: the same minus the time of the same loop on a 1-joint model (an estimate
             of that overhead: the 1-dof ABA itself costs a few tens of ns).
  batch    : pinocchio.abaInParallel(1, ModelPool, Q, V, TAU, A) -- Pinocchio's own C++
             loop over the 256 states on one thread, time / 256 (no Python per call).

Usage: pinocchio_bench.py [ROBOTS_DIR] [--json]   (best of 7 repeats; one thread)
Exit 77 when pinocchio or example-robot-data is missing.
"""
import json
import os
import sys
import timeit


def main():
    try:
        import numpy as np
        import pinocchio as pin
    except ImportError as e:
        print(f"SKIP: pinocchio not importable ({e}): pip install pin")
        return 77
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rdir = args[0] if args else os.environ.get("SIMPHANT_ROBOT_DATA", "")
    if not rdir:
        try:
            import importlib.metadata as m
            rdir = str(m.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))
        except Exception:
            print("SKIP: example-robot-data not installed: pip install example-robot-data")
            return 77
    robots = {"panda": "panda_description/urdf/panda.urdf", "ur5": "ur_description/urdf/ur5_robot.urdf",
              "xarm7": "xarm_description/urdf/xarm7.urdf"}
    S, rng = 256, np.random.default_rng(1)

    def per_call(model, alg):
        data = model.createData()
        lo, hi = -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq)
        states = [(pin.randomConfiguration(model, lo, hi), 2 * rng.uniform(-1, 1, model.nv),
                   5 * rng.uniform(-1, 1, model.nv)) for _ in range(S)]
        f = pin.aba if alg == "aba" else pin.rnea

        def loop():
            for q, v, t in states:
                f(model, data, q, v, t)
        n = max(1, int(0.2 / (timeit.timeit(loop, number=1) + 1e-9)))
        return 1e9 * min(timeit.repeat(loop, number=n, repeat=7)) / (n * S), states

    one = pin.Model()
    jid = one.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "j")
    one.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
    overhead = {a: per_call(one, a)[0] for a in ("aba", "rnea")}
    out = {"pinocchio": pin.__version__, "overhead_1dof_ns": overhead, "robots": {}}
    for name, rel in robots.items():
        model = pin.buildModelFromUrdf(os.path.join(rdir, rel))
        res = {}
        for alg in ("aba", "rnea"):
            t, states = per_call(model, alg)
            res[alg + "_python_ns"] = t
            res[alg + "_minus_1dof_ns"] = t - overhead[alg]
        Q = np.array([s[0] for s in states]).T.copy()
        V = np.array([s[1] for s in states]).T.copy()
        T = np.array([s[2] for s in states]).T.copy()
        A = np.zeros_like(V)
        pool = pin.ModelPool(model, 1)
        n = 200
        res["aba_batch_ns"] = 1e9 * min(timeit.repeat(lambda: pin.abaInParallel(1, pool, Q, V, T, A), number=n,
                                                      repeat=7)) / (n * S)
        res["rnea_batch_ns"] = 1e9 * min(timeit.repeat(lambda: pin.rneaInParallel(1, pool, Q, V, T, A), number=n,
                                                       repeat=7)) / (n * S)
        out["robots"][name] = res
    if "--json" in sys.argv:
        print(json.dumps(out))
    else:
        print(f"pinocchio {out['pinocchio']}: Python call overhead (1-dof aba) {overhead['aba']:.0f} ns")
        for name, r in out["robots"].items():
            print(f"  {name:6s} aba: python {r['aba_python_ns']:7.0f} ns, minus 1dof {r['aba_minus_1dof_ns']:7.0f} ns,"
                  f" batch {r['aba_batch_ns']:7.0f} ns | rnea: python {r['rnea_python_ns']:7.0f},"
                  f" batch {r['rnea_batch_ns']:7.0f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
