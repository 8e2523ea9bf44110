#!/usr/bin/env python3
"""MuJoCo Warp (mujoco-warp + warp-lang) on the benchmark models, batched.

For each model exported by `simphant bench --export DIR` (chain_N, arm7; loaded from the
URDF exactly as bench/mujoco_models.py does, the same inertia checks, RK4 at the scene's
dt, every constraint / contact / limit disabled, q0 / qd0 / tau of the scene in every
world) and optionally examples/four_bar.json (MJCF with a `connect` equality, Newton
solver), steps nworld = 1, 16, 256, 4096, 65536, 262144, 1048576 worlds at once and
reports instance-steps per second (nworld * steps / seconds).

Timing follows mujoco_warp's own benchmark (mujoco_warp/testspeed.py + _src/cli.py
unroll): one mjw.step captured as a CUDA graph (wp.ScopedCapture), then the graph
launched `nstep` times, wp.synchronize() after each launch, the launch-to-sync latency
summed. Also reported: the same launches with a single synchronize at the end
(throughput without the per-step host round trip). JIT / capture time is excluded.
MuJoCo Warp computes in float32 (SimPhant's cuda backend: fp64 or fp32). Integrator: RK4
(mujoco_warp supports mjINT_RK4). On a CPU device (for testing) there is no graph capture:
mjw.step is called in a Python loop, and the numbers mean nothing for speed.

Usage: mujoco_warp_bench.py --models-dir DIR [--models chain_1,arm7] [--batches 1,16,...]
                            [--four-bar examples/four_bar.json] [--device cuda:0|cpu]
                            [--seconds 0.5] [--json OUT]
Exit 77 when mujoco / mujoco_warp / warp are missing.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mujoco_models as mc  # noqa: E402  (bench/mujoco_models.py: model loading, shared)

BATCHES = (1, 16, 256, 4096, 65536, 262144, 1048576)


def build_model(args, name):
    import mujoco
    if name == "four_bar":
        import copy
        with open(args.four_bar) as f:
            scene = json.load(f)
        scene = copy.deepcopy(scene)
        scene.pop("sweep", None)
        dt = float(scene["solver"]["dt"])
        xml, torque, _ = mc.fourbar_mjcf(scene, f"{2 * dt!r} 1", "0.9999 0.9999 0.001 0.5 2")
        m = mujoco.MjModel.from_xml_string(xml)
        disable = tuple(x for x in mc.DISABLE_ALL if x not in ("mjDSBL_CONSTRAINT", "mjDSBL_EQUALITY",
                                                               "mjDSBL_DAMPER", "mjDSBL_WARMSTART"))
        mc.configure(m, dt, scene.get("gravity", [0, 0, -9.81]), disable)
        m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        qfrc = np.zeros(m.nv)
        for bname, tq in torque.items():
            jr = np.zeros((3, m.nv))
            mujoco.mj_jacBody(m, d, None, jr, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, bname))
            qfrc += jr.T @ tq
        return m, np.zeros(m.nq), np.zeros(m.nv), qfrc, "Newton, solref 2dt, solimp 0.9999"
    scene_path = os.path.join(args.models_dir, name + ".json")
    with open(scene_path) as f:
        scene = json.load(f)
    rob = scene["robot"]
    urdf = rob["urdf"] if os.path.isabs(rob["urdf"]) else os.path.join(os.path.dirname(scene_path), rob["urdf"])
    m = mc.load_urdf_in_mujoco(urdf)
    mc.check_model_against_urdf(m, urdf)
    mc.configure(m, float(scene["solver"]["dt"]), rob.get("gravity", [0, 0, -9.81]))
    # scene vectors are in SimPhant's joint order (depth-first from the root); map by name
    from mujoco_models import parse_urdf
    _, joints = parse_urdf(urdf)
    order = [j["name"] for j in joints if j["type"] != "fixed"]
    n = m.nq
    qpos, qvel, qfrc = np.zeros(n), np.zeros(n), np.zeros(n)
    if order:
        # SimPhant's importer order is depth-first; for the chains and arms of the suite it is
        # also the URDF's order. MuJoCo's qpos order is its body tree order.
        adr = [m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j)] for j in order]
        for key, arr in (("q0", qpos), ("qd0", qvel), ("tau", qfrc)):
            arr[adr] = np.array(rob.get(key, [0] * n), float)
    return m, qpos, qvel, qfrc, "constraints disabled"


def bench_one(mjw, wp, mjm, qpos, qvel, qfrc, nworld, device, seconds):
    import mujoco
    mjd = mujoco.MjData(mjm)
    mjd.qpos[:] = qpos
    mjd.qvel[:] = qvel
    mjd.qfrc_applied[:] = qfrc
    mujoco.mj_forward(mjm, mjd)
    with wp.ScopedDevice(device):
        m = mjw.put_model(mjm)
        njmax = 0 if mjm.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) else max(1, 3 * mjm.neq)
        d = mjw.put_data(mjm, mjd, nworld=nworld, nconmax=0, njmax=njmax)
        t0 = time.perf_counter()
        use_graph = wp.get_device(device).is_cuda
        if use_graph:
            with wp.ScopedCapture() as capture:
                mjw.step(m, d)
            graph = capture.graph
            step = lambda: wp.capture_launch(graph)
        else:
            mjw.step(m, d)
            step = lambda: mjw.step(m, d)
        wp.synchronize()
        jit_s = time.perf_counter() - t0
        # size nstep so that the timed loop runs about `seconds`
        t0 = time.perf_counter()
        for _ in range(3):
            step()
        wp.synchronize()
        per = max((time.perf_counter() - t0) / 3, 1e-7)
        nstep = int(min(100000, max(10, seconds / per)))
        lat = 0.0
        for _ in range(nstep):  # testspeed's way: sync after every launch, sum the latencies
            a = time.perf_counter()
            step()
            wp.synchronize()
            lat += time.perf_counter() - a
        a = time.perf_counter()
        for _ in range(nstep):  # one sync at the end
            step()
        wp.synchronize()
        thr = time.perf_counter() - a
        q = d.qpos.numpy()
        finite = int(np.sum(np.all(np.isfinite(q), axis=1)))
    return {"nworld": nworld, "nstep": nstep, "jit_capture_s": jit_s,
            "instance_steps_per_s_synced": nworld * nstep / lat,
            "instance_steps_per_s_async": nworld * nstep / thr,
            "us_per_step_synced": 1e6 * lat / nstep, "finite_worlds": finite, "graph": use_graph}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--models", default="")
    ap.add_argument("--batches", default=",".join(map(str, BATCHES)))
    ap.add_argument("--four-bar", default=os.path.join(HERE, "..", "examples", "four_bar.json"))
    ap.add_argument("--no-four-bar", action="store_true")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--seconds", type=float, default=0.5, help="approximate timed seconds per (model, batch)")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    try:
        import mujoco
        import mujoco_warp as mjw
        import warp as wp
    except ImportError as e:
        print(f"SKIP: {e}: python3 -m pip install --user mujoco mujoco-warp warp-lang")
        return 77
    wp.config.quiet = True
    if hasattr(wp, "LOG_WARNING"):
        wp.config.log_level = wp.LOG_WARNING  # as testspeed.py: no per-module load lines
    wp.init()
    device = args.device
    if device.startswith("cuda") and not wp.is_cuda_available():
        print("SKIP: no CUDA device visible to warp (use --device cpu to test with a tiny batch)")
        return 77
    names = [n for n in args.models.split(",") if n] or sorted(
        os.path.splitext(f)[0] for f in os.listdir(args.models_dir) if mc.is_robot_scene(args.models_dir, f))
    if not args.no_four_bar and "four_bar" not in names and os.path.isfile(args.four_bar):
        names.append("four_bar")
    batches = [int(b) for b in args.batches.split(",") if b]
    report = {"mujoco": mujoco.__version__, "mujoco_warp": getattr(mjw, "__version__", "?"), "warp": wp.config.version,
              "device": str(wp.get_device(device).name), "precision": "float32", "integrator": "RK4",
              "timing": "one mjw.step captured as a CUDA graph, launched nstep times; synced = "
                        "wp.synchronize after each launch (testspeed's way), async = one sync at the end",
              "models": []}
    print(f"MuJoCo {report['mujoco']}, MuJoCo Warp {report['mujoco_warp']}, Warp {report['warp']}, "
          f"device {report['device']}, float32, RK4")
    print("| model | nworld | instance-steps/s (synced) | instance-steps/s (async) | us per step | finite worlds |")
    print("|---|---|---|---|---|---|")
    for name in names:
        mjm, qpos, qvel, qfrc, note = build_model(args, name)
        assert mjm.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
        rows = []
        for nw in batches:
            try:
                r = bench_one(mjw, wp, mjm, qpos, qvel, qfrc, nw, device, args.seconds)
            except Exception as e:  # out of memory, unsupported feature: report and go on
                r = {"nworld": nw, "error": f"{type(e).__name__}: {e}"[:300]}
                print(f"| {name} | {nw} | error: {r['error'][:120]} | | | |", flush=True)
                rows.append(r)
                break
            rows.append(r)
            print(f"| {name} | {nw} | {r['instance_steps_per_s_synced']:.3g} | {r['instance_steps_per_s_async']:.3g} | "
                  f"{r['us_per_step_synced']:.1f} | {r['finite_worlds']}/{nw} |", flush=True)
        report["models"].append({"model": name, "nq": mjm.nq, "dt": mjm.opt.timestep, "note": note, "rows": rows})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
