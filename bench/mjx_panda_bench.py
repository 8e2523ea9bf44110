#!/usr/bin/env python3
"""MuJoCo and MJX on the robot benchmark's Panda: instance-steps per second, batched.

The model is SimPhant's `examples/panda.json` (`simphant bench --models panda_aba,...`):
example-robot-data's `panda_description/urdf/panda.urdf` with its fingers (9 moving
joints), its initial joint state (ready pose, 0.3 rad/s on every arm joint), gravity,
dt and zero joint torques. MuJoCo loads that URDF after every `<visual>` and
`<collision>` element has been removed from the text (no meshes, no geoms), with
`balanceinertia="false"`; the script asserts that MuJoCo's masses, CoMs, inertia
tensors, body frames and joint axes are the URDF's (bench/mujoco_models.py's check, on
the model loaded with `fusestatic="false"`), and times the model loaded with
`fusestatic="true"` (the fixed links merged into their parents, as SimPhant's importer
does) after checking that both give the same motion. Integrator RK4 at the scene's dt;
contacts, joint limits, equality constraints (the fingers' `<mimic>`), friction loss,
joint damping and every other constraint or passive force disabled
(mujoco_models.DISABLE_ALL; MJX with damping on moved 2.8e-7 rad away from mj_step's
RK4 in 2 steps, about the damping's whole effect, so damping is off in both). No
constraint rows, so MJX runs its fastest path (no solver iterations).

Engines (one row per engine, precision and batch size):
  * `mjx`: MJX (mujoco.mjx, the JAX implementation, `impl="jax"`) on JAX's default
    device (the GPU where one is present): `jax.jit` of a `jax.lax.fori_loop` over
    `jax.vmap(mjx.step)` for k steps, timed from the call to `block_until_ready()` (the
    state stays on the device; the one-off compilation is timed apart as
    compile_seconds). fp32 is JAX's default; fp64 sets `jax_enable_x64` (each precision
    runs in its own child process, since JAX fixes it at start).
  * `mujoco-rollout`: MuJoCo's C library through `mujoco.rollout.rollout` (its native
    loop over mj_step, no Python between steps), one MjData per thread, fp64, with
    `--cpu-threads` threads (0 = all cores). Its output trajectory (the state after
    every step) is written into a preallocated array, as rollout always does.
No Python loop over mj_step is timed here (bench/mujoco_compare.py times one).

Each row: a warm-up call of 2 steps, then batches of k steps from k = 1, doubling (or
jumping to the count predicted to last 1.2 x --min-seconds, at most 64x) until one lasts
--min-seconds; that batch is timed --repeats times and the shortest kept (as
`simphant bench`, docs/benchmarks.md). Before timing, for each precision, MJX's
trajectory of 2 instances over --check-steps steps is compared with MuJoCo's C mj_step
(max |qpos difference|, reported as `agreement`).

Usage:
  mjx_panda_bench.py [--scene examples/panda.json] [--engines mjx,mujoco-rollout]
                     [--precisions fp32,fp64] [--batches 1,16,...,1048576]
                     [--cpu-batches 1,64,4096] [--cpu-threads 1,0] [--min-seconds 0.2]
                     [--repeats 1] [--time-limit S] [--json OUT]
Exit 0 when the rows ran (rows may hold errors), 77 when mujoco or the Panda URDF is
missing, 2 for bad arguments.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import mujoco_models as mc  # noqa: E402  (URDF parsing, the inertia check, configure)

BATCHES = (1, 16, 256, 4096, 65536, 262144, 1048576)
CPU_BATCHES = (1, 64, 4096)
MAX_GROWTH = 64
MAX_STEPS = 1 << 20
ROLLOUT_BYTES = 256 << 20  # cap on rollout's output trajectory per call (batch x nstep x state)
DISABLE = mc.DISABLE_ALL


def ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


def robot_data_dir():
    """example-robot-data's robots folder: SIMPHANT_ROBOT_DATA, else the pip package, else ''."""
    env = os.environ.get("SIMPHANT_ROBOT_DATA", "")
    if env:
        return env
    try:
        import importlib.metadata as md
        p = md.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")
        return str(p) if os.path.isdir(str(p)) else ""
    except Exception:  # noqa: BLE001  (not installed)
        return ""


def resolve_urdf(scene_path, urdf):
    prefix = "example-robot-data:"
    if urdf.startswith(prefix):
        base = robot_data_dir()
        if not base:
            raise FileNotFoundError("example-robot-data is not installed (pip install example-robot-data, or set "
                                    "SIMPHANT_ROBOT_DATA to its robots folder)")
        return os.path.join(base, urdf[len(prefix):])
    return urdf if os.path.isabs(urdf) else os.path.join(os.path.dirname(scene_path), urdf)


def stripped_urdf(urdf_path, out_path):
    """Writes the URDF without <visual> and <collision> elements (no meshes, no geoms)."""
    tree = ET.parse(urdf_path)
    for link in tree.getroot().iter("link"):
        for tag in ("visual", "collision"):
            for e in link.findall(tag):
                link.remove(e)
    tree.write(out_path, encoding="unicode")


def load_mujoco(urdf_path, fusestatic):
    import mujoco
    root = mc.read_urdf_root(urdf_path)
    for old in root.findall("mujoco"):
        root.remove(old)
    mj = ET.Element("mujoco")
    ET.SubElement(mj, "compiler", {"discardvisual": "true", "fusestatic": "true" if fusestatic else "false",
                                   "balanceinertia": "false", "strippath": "false"})
    root.insert(0, mj)
    return mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))


def build(scene_path):
    """(timed MjModel, qpos0, qvel0, qfrc, info) for the scene's robot."""
    import mujoco
    with open(scene_path) as f:
        scene = json.load(f)
    rob, dt = scene["robot"], float(scene["solver"]["dt"])
    gravity = rob.get("gravity", [0, 0, -9.81])
    tmp = tempfile.mkdtemp(prefix="mjx_panda_")
    urdf = os.path.join(tmp, "robot.urdf")
    stripped_urdf(resolve_urdf(scene_path, rob["urdf"]), urdf)
    checked = load_mujoco(urdf, fusestatic=False)
    dev = mc.check_model_against_urdf(checked, urdf)
    timed = load_mujoco(urdf, fusestatic=True)
    _, joints = mc.parse_urdf(urdf)
    order = [j["name"] for j in joints if j["type"] != "fixed"]  # SimPhant's joint order (depth-first)
    states = []
    for m in (checked, timed):
        mc.configure(m, dt, gravity, DISABLE)
        qpos, qvel, qfrc = np.zeros(m.nq), np.zeros(m.nv), np.zeros(m.nv)
        for k, name in enumerate(order):
            jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
            qpos[m.jnt_qposadr[jid]] = rob["q0"][k]
            qvel[m.jnt_dofadr[jid]] = rob["qd0"][k]
            qfrc[m.jnt_dofadr[jid]] = rob.get("tau", [0.0] * len(order))[k]
        states.append((qpos, qvel, qfrc))
    # The fused model must move as the checked one (fixed links merged: same dynamics).
    nstep = 200
    traj = []
    for m, (qpos, qvel, qfrc) in zip((checked, timed), states):
        d = mujoco.MjData(m)
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = qpos, qvel, qfrc
        for _ in range(nstep):
            mujoco.mj_step(m, d)
        traj.append(np.array([d.qpos[m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)]]
                              for n in order]))
    fused_diff = float(np.max(np.abs(traj[0] - traj[1])))
    assert fused_diff < 1e-10, f"fusestatic changed the motion by {fused_diff:.3g} rad after {nstep} steps"
    qpos, qvel, qfrc = states[1]
    info = {"scene": os.path.relpath(scene_path, ROOT) if scene_path.startswith(ROOT) else scene_path,
            "urdf": rob["urdf"], "dt": dt, "gravity": gravity, "nq": timed.nq, "nv": timed.nv,
            "nbody": timed.nbody, "nbody_unfused": checked.nbody, "joints": order,
            "urdf_check_max_deviation": dev, "fusestatic_max_qpos_difference_200_steps": fused_diff,
            "disabled": list(DISABLE), "integrator": "RK4"}
    return timed, qpos, qvel, qfrc, info


def sized_timing(run, min_seconds, repeats, deadline):
    """Grows k until run(k) lasts min_seconds; returns (k, best seconds)."""
    run(2)
    k = 1
    while True:
        t = run(k)
        if t >= min_seconds or k >= MAX_STEPS or time.monotonic() > deadline:
            best = t
            for _ in range(1, repeats):
                best = min(best, run(k))
            return k, best
        predicted = k * 1.2 * min_seconds / max(t, 1e-9)
        k = int(min(max(2 * k, np.ceil(predicted)), MAX_GROWTH * k, MAX_STEPS))


# ----------------------------------------------------------------------------- MJX
def mjx_rows(args, precision):
    """Runs in the child process of one precision: MJX rows (and the agreement check)."""
    import jax
    if precision == "fp64":
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import mujoco
    from mujoco import mjx

    m, qpos, qvel, qfrc, _ = build(args.scene)
    mx = mjx.put_model(m, impl="jax")
    dtype = jnp.float64 if precision == "fp64" else jnp.float32
    d1 = mjx.make_data(mx, impl="jax").replace(qpos=jnp.asarray(qpos, dtype), qvel=jnp.asarray(qvel, dtype),
                                               qfrc_applied=jnp.asarray(qfrc, dtype))
    step = jax.vmap(mjx.step, in_axes=(None, 0))

    def advance(d, n):
        return jax.lax.fori_loop(0, n, lambda _, x: step(mx, x), d)

    advance_jit = jax.jit(advance, donate_argnums=0)

    def batch(n):
        d = jax.tree_util.tree_map(lambda x: jnp.array(jnp.broadcast_to(x, (n,) + x.shape)), d1)
        # Committed to the device as advance_jit's outputs are, so that the timed calls
        # (fed with those outputs) reuse the first call's compilation.
        return jax.device_put(d, jax.devices()[0])

    device = str(jax.devices()[0])
    # Agreement with MuJoCo's C mj_step (2 instances, check_steps steps).
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.qfrc_applied[:] = qpos, qvel, qfrc
    for _ in range(args.check_steps):
        mujoco.mj_step(m, d)
    dj = advance_jit(batch(2), args.check_steps)
    agreement = float(np.max(np.abs(np.asarray(dj.qpos, np.float64) - d.qpos[None, :])))
    rows = []
    deadline_all = time.monotonic() + args.time_limit if args.time_limit > 0 else float("inf")
    for n in args.batches:
        row = {"engine": "mjx", "impl": "jax", "precision": precision, "device": device, "threads": None,
               "instances": n, "status": "ok", "error": None}
        if time.monotonic() > deadline_all:
            row.update(status="skipped", error="the time limit (--time-limit) was reached")
            rows.append(row)
            continue
        state = {}
        try:
            state["d"] = batch(n)
            t0 = time.perf_counter()
            state["d"] = advance_jit(state["d"], 1)
            jax.block_until_ready(state["d"])
            row["compile_seconds"] = time.perf_counter() - t0  # the first call: compiles, then 1 step

            def run(k):
                t = time.perf_counter()
                state["d"] = advance_jit(state["d"], k)
                jax.block_until_ready(state["d"])
                return time.perf_counter() - t

            k, secs = sized_timing(run, args.min_seconds, args.repeats, deadline_all)
            q = np.asarray(state["d"].qpos)
            row.update(steps=k, seconds=secs, instance_steps_per_s=n * k / secs,
                       not_finite_instances=int(np.sum(~np.all(np.isfinite(q), axis=1))))
        except Exception as e:  # noqa: BLE001  (out of memory, ...: the row records it, the rest go on)
            row.update(status="error", error=f"{type(e).__name__}: {str(e)[:400]}")
        state.clear()  # frees this batch's device arrays before the next, larger one
        rows.append(row)
        print(f"mjx {precision} n={n}: {row.get('instance_steps_per_s', float('nan')):.4g} instance-steps/s "
              f"({row['status']})", file=sys.stderr, flush=True)
    return {"precision": precision, "device": device, "jax": jax.__version__,
            "agreement": {"steps": args.check_steps, "max_abs_qpos_difference_vs_mj_step": agreement},
            "rows": rows}


# ------------------------------------------------------------------ MuJoCo C rollout
def rollout_rows(args, m, qpos, qvel, qfrc):
    import mujoco
    from mujoco import rollout
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.qfrc_applied[:] = qpos, qvel, qfrc
    mujoco.mj_forward(m, d)
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    s0 = np.empty(mujoco.mj_stateSize(m, full))
    mujoco.mj_getState(m, d, s0, full)
    spec = int(mujoco.mjtState.mjSTATE_QFRC_APPLIED)
    rows = []
    deadline_all = time.monotonic() + args.time_limit if args.time_limit > 0 else float("inf")
    for threads in args.cpu_threads:
        nthread = threads if threads > 0 else (os.cpu_count() or 1)
        for n in args.cpu_batches:
            row = {"engine": "mujoco-rollout", "impl": "C (mujoco.rollout)", "precision": "fp64", "device": "cpu",
                   "threads": min(nthread, n), "instances": n, "status": "ok", "error": None}
            if time.monotonic() > deadline_all:
                row.update(status="skipped", error="the time limit (--time-limit) was reached")
                rows.append(row)
                continue
            datas = [mujoco.MjData(m) for _ in range(min(nthread, n))]
            init = np.repeat(s0[None, :], n, axis=0)
            cap = max(1, ROLLOUT_BYTES // (8 * n * len(s0)))
            ctrl = np.repeat(np.asarray(qfrc)[None, None, :], n, axis=0)

            def run(k):
                # rollout's output holds every step's state: above `cap` steps, run in chunks.
                t = time.perf_counter()
                left, start = k, init
                while left > 0:
                    c = min(left, cap)
                    st, _ = rollout.rollout(m, datas, start, ctrl, control_spec=spec, nstep=c, persistent_pool=True)
                    start, left = st[:, -1, :], left - c
                return time.perf_counter() - t

            k, secs = sized_timing(run, args.min_seconds, args.repeats, deadline_all)
            row.update(steps=k, seconds=secs, instance_steps_per_s=n * k / secs)
            rows.append(row)
            print(f"mujoco-rollout threads={row['threads']} n={n}: {row['instance_steps_per_s']:.4g} instance-steps/s",
                  file=sys.stderr, flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scene", default=os.path.join(ROOT, "examples", "panda.json"))
    ap.add_argument("--engines", default="mjx,mujoco-rollout")
    ap.add_argument("--precisions", default="fp32,fp64", help="MJX precisions (mujoco-rollout is fp64)")
    ap.add_argument("--batches", type=ints, default=list(BATCHES), help="MJX batch sizes")
    ap.add_argument("--cpu-batches", type=ints, default=list(CPU_BATCHES), help="mujoco-rollout batch sizes")
    ap.add_argument("--cpu-threads", type=ints, default=[1, 0], help="mujoco-rollout threads (0 = all cores)")
    ap.add_argument("--min-seconds", type=float, default=0.2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--check-steps", type=int, default=100)
    ap.add_argument("--time-limit", type=float, default=0, help="per engine and precision: rows not started "
                                                                 "within S seconds are skipped (0: none)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--child-mjx", choices=("fp32", "fp64"), help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    for e in engines:
        if e not in ("mjx", "mujoco-rollout"):
            ap.error(f"--engines: unknown engine '{e}' (mjx, mujoco-rollout)")
    precisions = [p for p in args.precisions.split(",") if p]
    for p in precisions:
        if p not in ("fp32", "fp64"):
            ap.error(f"--precisions: unknown precision '{p}' (fp32, fp64)")
    if min(args.batches + args.cpu_batches) < 1 or args.min_seconds <= 0 or args.repeats < 1:
        ap.error("batch sizes must be >= 1, --min-seconds > 0 and --repeats >= 1")

    if args.child_mjx:  # one precision's MJX rows, as JSON into --child-out
        result = mjx_rows(args, args.child_mjx)
        with open(args.child_out, "w") as f:
            json.dump(result, f)
        return 0

    try:
        import mujoco
        m, qpos, qvel, qfrc, info = build(args.scene)
    except ImportError as e:
        print(f"mjx_panda_bench: skipped: {e} (pip install mujoco mujoco-mjx; bench/fetch_mjx_wheels.sh for a "
              "machine without network)", file=sys.stderr)
        return 77
    except FileNotFoundError as e:
        print(f"mjx_panda_bench: skipped: {e}", file=sys.stderr)
        return 77
    report = {"machine": {"cpu": mc_cpu_name(), "cores": os.cpu_count(),
                          "date_utc": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                          "python": platform.python_version(), "mujoco": mujoco.__version__},
              "model": info,
              "options": {k: (info["scene"] if k == "scene" else v) for k, v in vars(args).items()
                          if not k.startswith("child_")},
              "rows": [], "mjx": []}
    if "mujoco-rollout" in engines:
        report["rows"] += rollout_rows(args, m, qpos, qvel, qfrc)
    if "mjx" in engines:
        for p in precisions:
            child_out = os.path.join(tempfile.mkdtemp(prefix="mjx_child_"), "rows.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--child-mjx", p, "--child-out", child_out,
                   "--scene", args.scene,
                   "--batches", ",".join(map(str, args.batches)), "--min-seconds", str(args.min_seconds),
                   "--repeats", str(args.repeats), "--check-steps", str(args.check_steps),
                   "--time-limit", str(args.time_limit)]
            proc = subprocess.run(cmd)
            if proc.returncode != 0 or not os.path.exists(child_out):
                report["mjx"].append({"precision": p, "error": f"the MJX child exited {proc.returncode}"})
                report["rows"].append({"engine": "mjx", "precision": p, "status": "error",
                                       "error": f"the MJX child exited {proc.returncode} (its stderr above)"})
                continue
            with open(child_out) as f:
                child = json.load(f)
            report["rows"] += child.pop("rows")
            report["mjx"].append(child)
    print(f"{'engine':15s} {'prec':5s} {'threads':>7s} {'instances':>9s} {'inst-steps/s':>13s} {'steps':>8s}  note")
    for r in report["rows"]:
        print(f"{r['engine']:15s} {r.get('precision', ''):5s} {str(r.get('threads') or '-'):>7s} "
              f"{r.get('instances', 0):9d} {r.get('instance_steps_per_s', float('nan')):13.4g} "
              f"{r.get('steps', 0):8d}  {'' if r['status'] == 'ok' else r['status'] + ': ' + str(r['error'])}")
    for c in report["mjx"]:
        if "agreement" in c:
            print(f"MJX {c['precision']} on {c['device']} vs mj_step after {c['agreement']['steps']} steps: "
                  f"max |qpos difference| {c['agreement']['max_abs_qpos_difference_vs_mj_step']:.3g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


def mc_cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
