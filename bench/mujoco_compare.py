#!/usr/bin/env python3
"""SimPhant beside MuJoCo on the same models: speed (one core and all cores) and
trajectory agreement.

Models: the robot scenes written by `simphant bench --export DIR` (chain_1 .. chain_32,
arm7), the closed loops of examples/ (four_bar, slider_crank, bricard; --loops) and the
example-robot-data robots Panda, UR5, xArm7 (bench/robot_scenes.py; --robots).
  * Robots (URDF): SimPhant reads a copy of the scene with robot.urdf_dynamics all off
    (no joint limits, damping, friction or mimic: docs/robots.md), as MuJoCo runs them.
    MuJoCo loads the URDF with <compiler discardvisual fusestatic="false"
    balanceinertia="false"/> (visual and collision geometry removed: contacts are off); the
    script checks that MuJoCo's body masses, CoMs, full inertia tensors, body frames and
    joint axes equal the URDF's (asserted, 1e-9), then sets RK4, dt = the scene's dt, the
    scene's gravity, no damping / armature / friction loss / stiffness, every constraint
    disabled, qpos = q0, qvel = qd0, qfrc_applied = tau (joints mapped by name).
  * four_bar: examples/four_bar.json without its sweep, as MJCF: crank and coupler a chain
    from the ground, rocker on its ground pivot, the coupler-rocker joint a `connect`
    equality (Newton solver), the drive torque as qfrc_applied, the crank damper as joint
    damping. slider_crank (a prismatic joint, an actuator, a point force) and bricard (its
    closing hinge would be a spherical `connect`: another mechanism) are not converted:
    SimPhant's columns only, with the reason.

Speed (compare_report.py holds the arithmetic; --repeats rounds, interleaved, medians):
  * MuJoCo's C loop (the ratio basis): bench/mujoco_step_loop, built against the pip
    wheel by bench/build_mujoco_step_loop.sh, steps the model as configured here (saved
    as MJB) from the same state: one thread (one MjData), and --threads-all threads (one
    MjData each, steps summed).
  * mujoco.rollout.rollout with one MjData (its native loop also copies the state out
    every step): second column.
  * SimPhant: `simphant bench` one thread (cpu1-dense, cpu1-sparse, cpu1-simd at
    --instances-1 instances: 8 fill an AVX-512 vector of the cpu-simd path) and all threads
    (cpu-dense, cpu-sparse, cpu-simd at --instances-all), instance-steps/s; the `cpu`
    column is the better of dense / sparse; cpu-simd is left out with the reason where the
    build lacks it; `aba`: the robot's joint-space form (<model>_aba), one thread.
  * FLOP rate: the cost model's FLOPs per instance-step (src/simphant/bench/cost_model.hpp)
    x the median rate, and its fraction of the core's FMA peak measured by `simphant
    bench` (machine.cpu_peak; x threads for all cores).
Trajectories: `simphant run SCENE -n 1 -j 1 --out X.h5` (dae, aba) and MuJoCo RK4 from the
same state with the same dt; max |q_simphant - q_mujoco| (angles wrapped) up to t = 0.1,
0.5, 1 s; again at dt / 10, and at dt / 10 with Tikhonov eps 1e-14 (the regularisation's
share); four_bar: body CoM positions with MuJoCo's default and a stiff connect.
--no-traj keeps only the first run (which gives SimPhant's joint order).

Usage: mujoco_compare.py --models-dir DIR [--simphant build/simphant] [--step-loop BIN]
                         [--models chain_1,arm7,...] [--loops four_bar,...] [--robots panda,ur5,xarm7]
                         [--repeats 5] [--min-seconds 0.3] [--threads-all N] [--instances-1 8]
                         [--instances-all 32N] [--no-speed] [--no-traj] [--json OUT]
Exit 77 when mujoco (pip install mujoco), h5py or numpy is missing or the C loop cannot
be built; 1 when the report does not match its schema (compare_report.validate_report).
"""
import argparse
import copy
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is missing: python3 -m pip install numpy")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_report as cr  # noqa: E402  (bench/compare_report.py: the speed report's arithmetic)
import robot_scenes  # noqa: E402  (bench/robot_scenes.py: Panda, UR5, xArm7 scenes)
from mujoco_models import (DISABLE_ALL, check_model_against_urdf, configure, fourbar_mjcf,  # noqa: E402
                           fourbar_qfrc, initial_state, is_robot_scene, load_urdf_in_mujoco, mj_rollout, wrap)

HORIZONS = (0.1, 0.5, 1.0)


# ---------------------------------------------------------------------------- SimPhant runs
def simphant_run(simphant, scene_path, out, extra=()):
    cmd = [simphant, "run", scene_path, "-n", "1", "-j", "1", "--backend", "cpu", "-o", out, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def read_h5(path, joint_space):
    import h5py
    with h5py.File(path, "r") as f:
        t = f["time"][:]
        if joint_space:
            return t, f["joint_state/q"][:, 0, :], [str(n.decode() if isinstance(n, bytes) else n)
                                                     for n in f["joint_state"].attrs["joint_names"]]
        return t, f["state"][:, 0, :, :], [str(n.decode() if isinstance(n, bytes) else n)
                                          for n in f.attrs["body_names"]]


def scene_copy(scene, scene_dir, tmp, fname, solver_overrides):
    """A copy of the scene in tmp (no sweep, URDF path made absolute, solver keys replaced)."""
    sc = copy.deepcopy(scene)
    sc.pop("sweep", None)
    sc["solver"].update(solver_overrides)
    if "robot" in sc and not os.path.isabs(sc["robot"]["urdf"]) and ":" not in sc["robot"]["urdf"]:
        sc["robot"]["urdf"] = os.path.join(os.path.abspath(scene_dir), sc["robot"]["urdf"])
    p = os.path.join(tmp, fname)
    with open(p, "w") as f:
        json.dump(sc, f)
    return p


def mj_rollout_timer(m, qpos, qvel, qfrc, min_seconds):
    """(once, nstep): once() times mujoco.rollout.rollout with one MjData over nstep steps
    (sized to last >= min_seconds) and returns its steps/s."""
    import mujoco
    from mujoco import rollout
    d, s0 = initial_state(m, qpos, qvel)
    spec = int(mujoco.mjtState.mjSTATE_QFRC_APPLIED)
    ctrl = np.asarray(qfrc, float).reshape(1, 1, m.nv)
    n = 1000
    while True:  # size the rollout to run at least min_seconds
        t0 = time.perf_counter()
        rollout.rollout(m, d, s0[None, :], ctrl, control_spec=spec, nstep=n)
        t = time.perf_counter() - t0
        if t >= min_seconds or n >= 10_000_000:
            break
        n = int(n * max(2.0, 1.2 * min_seconds / max(t, 1e-6)))
    out = np.empty((1, n, s0.size))
    ctrl_full = np.broadcast_to(ctrl, (1, n, m.nv)).copy()

    def once():
        t0 = time.perf_counter()
        rollout.rollout(m, d, s0[None, :], ctrl_full, control_spec=spec, nstep=n, state=out)
        return n / (time.perf_counter() - t0)

    return once, n


def c_loop_timer(args, m, qpos, qvel, qfrc, tmp, threads):
    """(once, steps): once() runs bench/mujoco_step_loop on the model as configured here
    (saved as MJB, so the C loop steps the very model mujoco.rollout steps) from qpos,
    qvel with qfrc_applied, `threads` threads, one repeat of `steps` steps (sized to last
    >= min_seconds), and returns its steps/s (all threads together)."""
    import mujoco
    mjb = os.path.join(tmp, f"c_loop_{os.getpid()}.mjb")
    mujoco.mj_saveModel(m, mjb, None)
    base = [args.step_loop, mjb, "--threads", str(threads), "--repeats", "1"]
    for flag, v in (("--qpos", qpos), ("--qvel", qvel), ("--qfrc", qfrc)):
        if len(v):
            base += [flag, ",".join(repr(float(x)) for x in v)]

    def run(extra):
        r = subprocess.run(base + extra, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(base + extra)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return json.loads(r.stdout)

    steps = run(["--steps", "0", "--min-seconds", repr(args.min_seconds)])["steps"]
    data = open(mjb, "rb").read()

    def once():
        with open(mjb, "wb") as f:  # the file is shared by the models: rewrite this one's
            f.write(data)
        return run(["--steps", str(steps)])["steps_per_s_median"]

    return once, steps


def bench_call(args, models, configs, size, examples_dir, tmp, peak=False):
    """One `simphant bench` run; returns its JSON document (rows with status "error" are
    kept: a cpu-simd row may fail where the backend does not run a model)."""
    out = os.path.join(tmp, "bench.json")
    cmd = [args.simphant, "bench", "--models", ",".join(models), "--configs", ",".join(configs), "--cpu-sizes",
           str(size), "--min-seconds", repr(args.min_seconds), "--examples", examples_dir, "--json", out]
    if not peak:
        cmd.append("--no-cpu-peak")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 3) or not os.path.exists(out):
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    with open(out) as f:
        doc = json.load(f)
    os.remove(out)
    return doc


def probe(args, tmp):
    """(why cpu-simd does not run or None, the machine's description with its measured
    cpu_peak): one `simphant bench --models chain_1 --configs cpu1-dense,cpu1-simd` run."""
    doc = bench_call(args, ["chain_1"], ["cpu1-dense", "cpu1-simd"], 1, args.examples, tmp, peak=True)
    rows = [r for r in doc["rows"] if r["config"] == "cpu1-simd"]
    why = None if rows and rows[0]["status"] == "ok" else (rows[0].get("error") if rows else "no cpu1-simd row")
    return why, doc["machine"]


def speed(args, name, m, qpos, qvel, qfrc, examples_dir, tmp, with_aba):
    """Rounds of: MuJoCo's C loop (one thread, all threads), mujoco.rollout (one MjData),
    `simphant bench` one thread (cpu1-dense, cpu1-sparse[, cpu1-simd] at --instances-1),
    all threads (cpu-dense, cpu-sparse[, cpu-simd] at --instances-all) and, with_aba, the
    model's joint-space form (<name>_aba, cpu1-dense). The rounds interleave, so that a
    change of the machine's load hits every column; compare_report.summarize takes the
    medians. Returns (raw rounds, FLOPs per instance-step by config, summary)."""
    timers = []
    if m is not None:
        once1, n1 = c_loop_timer(args, m, qpos, qvel, qfrc, tmp, 1)
        onea, na = c_loop_timer(args, m, qpos, qvel, qfrc, tmp, args.threads_all)
        oner, nr = mj_rollout_timer(m, qpos, qvel, qfrc, args.min_seconds)
        timers = [("mujoco_c_loop_1", once1), ("mujoco_c_loop_all", onea), ("mujoco_rollout_1", oner)]
    one = ["cpu1-dense", "cpu1-sparse"] + (["cpu1-simd"] if args.simd else [])
    allc = ["cpu-dense", "cpu-sparse"] + (["cpu-simd"] if args.simd else [])
    raw, flops, errors = {}, {}, {}

    def take(doc, model, key_of):
        for r in doc["rows"]:
            if r["model"] != model:
                continue
            key = key_of(r["config"])
            if key is None:
                continue
            if r["status"] == "ok" and not r.get("not_ok_instances"):  # frozen instances: no throughput
                raw.setdefault("simphant:" + key, []).append(r["instance_steps_per_s"])
                if r.get("flops_per_instance_step") is not None:
                    flops[key] = r["flops_per_instance_step"]
            else:
                errors[key] = r.get("error") or f"{r.get('not_ok_instances')} instances not ok"

    for _ in range(args.repeats):
        for key, once in timers:
            raw.setdefault(key, []).append(once())
        take(bench_call(args, [name], one, args.instances_1, examples_dir, tmp), name, lambda c: c)
        take(bench_call(args, [name], allc, args.instances_all, examples_dir, tmp), name, lambda c: c)
        if with_aba:
            take(bench_call(args, [name + "_aba"], ["cpu1-dense"], args.instances_1, examples_dir, tmp),
                 name + "_aba", lambda c: "aba")
    summary = cr.summarize(raw, flops, args.cpu_peak_per_core, args.threads_all)
    if errors:
        summary["errors"] = errors
    if m is not None:
        summary["steps"] = {"mujoco_c_loop_1": n1, "mujoco_c_loop_all": na, "mujoco_rollout_1": nr}
    return raw, flops, summary


# ---------------------------------------------------------------------------- comparison
def agreement(t_s, q_s, q_m, dt, kinds):
    """max |q_s - q_m| over frames with t <= horizon; revolute differences wrapped."""
    idx = np.rint(t_s / dt).astype(int)  # SimPhant frame k is after idx steps; MuJoCo row idx-1
    res = {}
    for h in HORIZONS + (float(t_s[-1]),):
        sel = (t_s <= h + 0.5 * dt) & (idx >= 1)
        if not np.any(sel):
            continue
        qm = q_m[idx[sel] - 1]
        d = q_s[sel] - qm
        d[:, kinds] = wrap(d[:, kinds])
        res[f"{h:g}"] = float(np.max(np.abs(d)))
    return res


URDF_DYNAMICS_OFF = {"limits": False, "damping": False, "friction": False, "mimic": False}


def compare_robot(args, name, scene_path, tmp):
    import mujoco
    with open(scene_path) as f:
        scene = json.load(f)
    # MuJoCo runs with limits, damping, friction loss and equalities (the mimic) off: so
    # does SimPhant (robot.urdf_dynamics, docs/robots.md). The copy, in its own folder
    # with the URDF's path made absolute, is what every SimPhant run and bench row reads.
    scene_dir = os.path.join(tmp, "scenes")
    os.makedirs(scene_dir, exist_ok=True)
    scene["robot"]["urdf_dynamics"] = dict(URDF_DYNAMICS_OFF)
    scene_path = scene_copy(scene, os.path.dirname(os.path.abspath(scene_path)), scene_dir, name + ".json", {})
    with open(scene_path) as f:
        scene = json.load(f)
    rob = scene["robot"]
    urdf = rob["urdf"] if os.path.isabs(rob["urdf"]) else os.path.join(scene_dir, rob["urdf"])
    solver = scene["solver"]
    dt, t_end = float(solver["dt"]), float(solver["t_end"])
    m = load_urdf_in_mujoco(urdf)
    dev = check_model_against_urdf(m, urdf)
    gravity = rob.get("gravity", [0, 0, -9.81])
    configure(m, dt, gravity)
    n = m.nq
    assert m.nq == m.nv, "only hinge / slide joints"
    # SimPhant's joint order (depth-first from the root) vs MuJoCo's: map by joint name.
    q0 = np.array(rob.get("q0", [0] * n), float)
    qd0 = np.array(rob.get("qd0", [0] * n), float)
    tau = np.array(rob.get("tau", [0] * n), float)
    res = {"model": name, "scene": os.path.basename(scene_path), "urdf": os.path.basename(urdf), "dofs": n, "dt": dt, "t_end": t_end,
           "solver": solver.get("type", "dae"), "urdf_check_max_deviation": dev}

    # trajectories: SimPhant (scene's solver and aba) vs MuJoCo RK4, dt and dt/10
    traj = {}
    # (label, dt, solver, scene): the scene's own settings at dt and dt / 10, the joint-space
    # solver (aba) at both, and dae at dt / 10 with Tikhonov eps 1e-14 instead of the
    # scene's (default 1e-10), to separate the regularisation's share.
    eps_scene = scene_copy(scene, scene_dir, tmp, f"{name}_eps.json", {"tikhonov_epsilon": 1e-14})
    runs = [("dae dt", dt, "dae", scene_path), ("aba dt", dt, "aba", scene_path),
            ("dae dt/10", dt / 10, "dae", scene_path), ("aba dt/10", dt / 10, "aba", scene_path),
            ("dae dt/10 eps1e-14", dt / 10, "dae", eps_scene)]
    if args.no_traj:  # the first run alone: SimPhant's joint order (and one agreement figure)
        runs = runs[:1]
        res["traj_skipped"] = "--no-traj: only the scene's own run at dt"
    for label, dtx, sv, sp in runs:
        out = os.path.join(tmp, f"{name}_{label.replace('/', '_').replace(' ', '_')}.h5")
        simphant_run(args.simphant, sp, out, ["--solver", sv, "--dt", repr(dtx)])
        t_s, q_s, jn = read_h5(out, True)
        if label == "dae dt":
            order = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in jn]
            assert min(order) >= 0, f"SimPhant joints {jn} not all in MuJoCo"
            qadr = np.array([m.jnt_qposadr[j] for j in order])
            kinds = np.array([m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE for j in order])
            # scene q0 is in SimPhant's order; put it in MuJoCo's
            qpos = np.zeros(n); qvel = np.zeros(n); qfrc = np.zeros(n)
            qpos[qadr], qvel[qadr], qfrc[qadr] = q0, qd0, tau
            assert np.max(np.abs(wrap(q_s[0] - q0))) < 1e-9, "SimPhant frame 0 is not q0"
        m.opt.timestep = dtx
        nstep = int(round(t_s[-1] / dtx))
        _, qm, _ = mj_rollout(m, qpos, qvel, qfrc, nstep)
        traj[label] = agreement(t_s, q_s, qm[:, qadr], dtx, kinds)
    m.opt.timestep = dt
    res["max_abs_dq"] = traj

    # speed
    if not args.no_speed:
        res["speed_rounds"], res["flops_per_instance_step"], res["speed_summary"] = speed(
            args, name, m, qpos, qvel, qfrc, scene_dir, tmp, with_aba=True)
    return res


# ---------------------------------------------------------------------------- four-bar
def compare_four_bar(args, path, tmp):
    import mujoco
    with open(path) as f:
        scene = json.load(f)
    scene = copy.deepcopy(scene)
    scene.pop("sweep", None)  # the nominal mechanism, one instance
    dt = float(scene["solver"]["dt"])
    scene["solver"]["t_end"] = max(HORIZONS)
    p = os.path.join(tmp, "four_bar_nominal.json")
    with open(p, "w") as f:
        json.dump(scene, f)
    res = {"model": "four_bar", "dofs": "1 (3 hinges + connect)", "scene": os.path.relpath(path), "dt": dt, "t_end": max(HORIZONS),
           "note": "closed loop: MuJoCo's loop closure is a soft `connect` equality (solref/solimp), "
                   "SimPhant's a hard constraint with Baumgarte stabilisation; compared: body CoM positions [m]"}
    disable = tuple(x for x in DISABLE_ALL if x not in ("mjDSBL_CONSTRAINT", "mjDSBL_EQUALITY", "mjDSBL_DAMPER",
                                                        "mjDSBL_WARMSTART"))
    variants = {"default solref 0.02 1, solimp 0.9 0.95 0.001": ("0.02 1", "0.9 0.95 0.001 0.5 2"),
                "stiff solref 2dt 1, solimp 0.9999 0.9999 0.001": (f"{2 * dt!r} 1", "0.9999 0.9999 0.001 0.5 2")}
    agree = {}
    for label, dtx in (("dt", dt), ("dt/10", dt / 10)):
        out = os.path.join(tmp, f"four_bar_{label.replace('/', '_')}.h5")
        simphant_run(args.simphant, p, out, ["--dt", repr(dtx)])
        t_s, st, bnames = read_h5(out, False)
        for vname, (solref, solimp) in variants.items():
            if label == "dt/10":
                solref = solref.replace(repr(2 * dt), repr(2 * dtx))
            xml, torque, closures = fourbar_mjcf(scene, solref, solimp)
            m = mujoco.MjModel.from_xml_string(xml)
            configure(m, dtx, scene.get("gravity", [0, 0, -9.81]), disable)
            m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
            m.opt.iterations = 100
            m.opt.tolerance = 1e-15
            qfrc = fourbar_qfrc(m, torque)
            nstep = int(round(t_s[-1] / dtx))
            _, qpos, _ = mj_rollout(m, np.zeros(m.nq), np.zeros(m.nv), qfrc, nstep)
            d = mujoco.MjData(m)
            idx = np.rint(t_s / dtx).astype(int)
            err = np.zeros(len(t_s))
            viol = np.zeros(len(t_s))
            for k, i in enumerate(idx):
                d.qpos[:] = qpos[i - 1] if i >= 1 else 0
                mujoco.mj_fwdPosition(m, d)
                e = 0.0
                for bi, bn in enumerate(bnames):
                    e = max(e, np.max(np.abs(d.xipos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, bn)] - st[k, bi, 0:3])))
                err[k] = e
                if m.neq:
                    viol[k] = np.max(np.abs(d.efc_pos[:d.ne])) if d.ne else 0.0
            a = {}
            for h in HORIZONS:
                sel = t_s <= h + 0.5 * dtx
                a[f"{h:g}"] = float(np.max(err[sel]))
            a["mujoco_max_loop_gap_m"] = float(np.max(viol))
            agree[f"{vname} | {label}"] = a
    res["max_abs_dcom_m"] = agree
    if not args.no_speed:
        xml, torque, _ = fourbar_mjcf(scene, *variants["stiff solref 2dt 1, solimp 0.9999 0.9999 0.001"])
        m = mujoco.MjModel.from_xml_string(xml)
        configure(m, dt, scene.get("gravity", [0, 0, -9.81]), disable)
        m.opt.tolerance = 1e-10  # a usual setting for the speed
        qfrc = fourbar_qfrc(m, torque)
        res["speed_rounds"], res["flops_per_instance_step"], res["speed_summary"] = speed(
            args, "four_bar", m, np.zeros(m.nq), np.zeros(m.nv), qfrc, args.examples, tmp, with_aba=False)
        res["speed_note"] = ("MuJoCo: stiff connect, Newton solver, tolerance 1e-10 (the constraint solved in "
                             "every RK4 stage)")
    return res


# ---------------------------------------------------------------------------- output
def fmt_e(x):
    return "-" if x is None else f"{x:.2g}"


def markdown(report):
    L = []
    L.append(f"MuJoCo {report['mujoco_version']}, {report['host']}, {report['date']}")
    L.append("")
    if any(r.get("speed_summary") for r in report["models"]):
        L.append(cr.markdown_speed(report))
        L.append("")
    L.append("Max |q_SimPhant - q_MuJoCo| [rad] over the recorded frames up to t (both RK4, same dt):")
    L.append("")
    L.append("| model | dt | dae t<=0.1 | dae t<=0.5 | dae t<=1 | dae dt/10 t<=0.1 | dae dt/10 t<=0.5 | dae dt/10 t<=1 "
             "| dae dt/10 eps 1e-14 t<=1 | aba t<=1 | aba dt/10 t<=1 |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in report["models"]:
        if "max_abs_dq" not in r:
            continue
        a = r["max_abs_dq"]
        g = lambda k, h: fmt_e(a.get(k, {}).get(h))
        L.append(f"| {r['model']} | {r['dt']:g} | {g('dae dt', '0.1')} | {g('dae dt', '0.5')} | {g('dae dt', '1')} | "
                 f"{g('dae dt/10', '0.1')} | {g('dae dt/10', '0.5')} | {g('dae dt/10', '1')} | "
                 f"{g('dae dt/10 eps1e-14', '1')} | {g('aba dt', '1')} | {g('aba dt/10', '1')} |")
    for r in report["models"]:
        if "max_abs_dcom_m" in r:
            L.append("")
            L.append(f"{r['model']} (closed loop): max |CoM_SimPhant - CoM_MuJoCo| [m]; MuJoCo loop gap = its "
                     f"constraint violation [m]")
            L.append("")
            L.append("| MuJoCo equality | dt | t<=0.1 | t<=0.5 | t<=1 | MuJoCo loop gap |")
            L.append("|---|---|---|---|---|---|")
            for k, a in r["max_abs_dcom_m"].items():
                v, lab = k.split(" | ")
                L.append(f"| {v} | {lab} | {fmt_e(a['0.1'])} | {fmt_e(a['0.5'])} | {fmt_e(a['1'])} | "
                         f"{fmt_e(a['mujoco_max_loop_gap_m'])} |")
        if "skipped" in r:
            L.append("")
            L.append(f"{r['model']}: skipped: {r['skipped']}")
        if "traj_skipped" in r:
            L.append("")
            L.append(f"{r['model']}: trajectories not compared: {r['traj_skipped']}")
    return "\n".join(L)


# ---------------------------------------------------------------------------- robots, loops
LOOPS = ("four_bar", "slider_crank", "bricard")


def speed_without_mujoco(args, name, tmp, reason):
    """A model MuJoCo is not given (no MJCF conversion): SimPhant's columns only."""
    res = {"model": name, "scene": name + ".json", "speed_skipped": reason}
    if not args.no_speed:
        res["speed_rounds"], res["flops_per_instance_step"], res["speed_summary"] = speed(
            args, name, None, None, None, None, args.examples, tmp, with_aba=False)
    return res


def loop_model(args, name, tmp):
    """four_bar with MuJoCo (compare_four_bar); the other loops: SimPhant's columns, and
    the reason MuJoCo's side is missing (fourbar_mjcf converts revolute joints, world
    torques and tree dampers only)."""
    path = os.path.join(args.examples, name + ".json")
    if name == "four_bar":
        return compare_four_bar(args, path, tmp)
    with open(path) as f:
        scene = json.load(f)
    try:
        fourbar_mjcf(scene, "0.02 1", "0.9 0.95 0.001 0.5 2")
        reason = None
    except ValueError as e:
        reason = f"not converted to MJCF: {e}"
    if reason is None and name == "bricard":
        reason = ("not converted to MJCF: its loop-closing hinge would be a `connect` (a spherical joint): a "
                  "different, 3-dof mechanism")
    return speed_without_mujoco(args, name, tmp, reason or "not converted")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-dir", required=True, help="output of `simphant bench --export DIR`")
    ap.add_argument("--simphant", default="build/simphant")
    ap.add_argument("--step-loop", default="", help="bench/mujoco_step_loop binary (default: built next to "
                                                     "--simphant by bench/build_mujoco_step_loop.sh)")
    ap.add_argument("--models", default="", help="comma list of the folder's models (default: every robot scene there)")
    ap.add_argument("--examples", default=os.path.join(here, "..", "examples"), help="folder of the loop scenes")
    ap.add_argument("--loops", default=",".join(LOOPS), help="closed-loop example scenes ('' for none)")
    ap.add_argument("--robots", default=",".join(robot_scenes.ROBOT_URDFS), help="example-robot-data robots ('' for none)")
    ap.add_argument("--json", default="", help="write the full report here")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved rounds (the medians are reported)")
    ap.add_argument("--min-seconds", type=float, default=0.3, help="least seconds per timed C loop, rollout or bench batch")
    ap.add_argument("--threads-all", type=int, default=os.cpu_count() or 1, help="threads of the all-core columns")
    ap.add_argument("--instances-1", type=int, default=8, help="SimPhant instances on one core (8 fill an "
                                                               "AVX-512 vector of the cpu-simd path)")
    ap.add_argument("--instances-all", type=int, default=0, help="SimPhant instances on all cores (default 32 per thread)")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-traj", action="store_true", help="skip the trajectory agreement (speed only)")
    args = ap.parse_args()
    args.examples = os.path.abspath(args.examples)
    args.instances_all = args.instances_all or 32 * args.threads_all
    try:
        import mujoco
        from mujoco import rollout  # noqa: F401
    except ImportError as e:
        print(f"SKIP: MuJoCo is not installed ({e}): python3 -m pip install --user mujoco "
              f"(add --break-system-packages on Debian's system Python)")
        return 77
    try:
        import h5py  # noqa: F401
    except ImportError:
        print("SKIP: h5py is missing: python3 -m pip install h5py")
        return 77
    if not shutil.which(args.simphant) and not os.path.isfile(args.simphant):
        print(f"error: no simphant at {args.simphant}")
        return 2
    args.simphant = os.path.abspath(args.simphant) if os.path.isfile(args.simphant) else args.simphant
    if not args.step_loop:
        args.step_loop = os.path.join(os.path.dirname(args.simphant), "mujoco_step_loop")
        r = subprocess.run(["bash", os.path.join(here, "build_mujoco_step_loop.sh"), args.step_loop],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"SKIP: could not build the MuJoCo C loop:\n{r.stdout}{r.stderr}")
            return 77 if r.returncode == 77 else 2
    names = [n for n in args.models.split(",") if n] or sorted(
        os.path.splitext(f)[0] for f in os.listdir(args.models_dir) if is_robot_scene(args.models_dir, f))
    names.sort(key=lambda s: (re.sub(r"\d+", "", s), int(re.sub(r"\D", "", s) or 0)))
    tmp = tempfile.mkdtemp(prefix="mjcmp_")
    report = {"mujoco_version": mujoco.__version__, "host": f"{platform.node()} {platform.processor() or platform.machine()}"
              f" ({os.cpu_count()} CPUs)", "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "loadavg_start": os.getloadavg(),
              "models": []}
    try:
        try:
            why, machine = probe(args, tmp)
        except RuntimeError as e:
            print(f"error: {args.simphant} bench does not run as this script needs (a build with the cpu1-simd "
                  f"configuration name and --no-cpu-peak): {e}", file=sys.stderr)
            return 2
        args.simd = why is None
        report["cpu_peak"] = machine.get("cpu_peak", {})
        report["simphant_bench_machine"] = machine
        args.cpu_peak_per_core = report["cpu_peak"].get("fp64_GFLOPs_per_core")
        report["method"] = {
            "rounds": args.repeats, "statistic": "median of interleaved rounds",
            "threads_all": args.threads_all, "instances_1": args.instances_1, "instances_all": args.instances_all,
            "mujoco_c_loop": "bench/mujoco_step_loop: mj_step in a C loop on the model configured here (saved as "
                             "MJB), one MjData per thread, --min-seconds per round",
            "mujoco_rollout": "mujoco.rollout.rollout with one MjData (state copied out each step)",
            "simphant": f"simphant bench --configs cpu1-dense,cpu1-sparse[,cpu1-simd] --cpu-sizes {args.instances_1} "
                        f"(one thread) and cpu-dense,cpu-sparse[,cpu-simd] --cpu-sizes {args.instances_all} (all "
                        "threads); the cpu column is the better of dense / sparse; aba: <model>_aba cpu1-dense",
            "flops": "the cost model's FLOPs per instance-step (src/simphant/bench/cost_model.hpp) x the median rate; "
                     "peak: simphant bench's measured one-core FMA peak (x threads for all cores)",
            "cpu_simd_note": None if args.simd else f"column skipped: {why}",
        }
        for n in names:
            print(f"[{n}]", file=sys.stderr, flush=True)
            report["models"].append(compare_robot(args, n, os.path.join(args.models_dir, n + ".json"), tmp))
        for n in [x for x in args.loops.split(",") if x]:
            print(f"[{n}]", file=sys.stderr, flush=True)
            try:
                report["models"].append(loop_model(args, n, tmp))
            except (ValueError, OSError) as e:
                report["models"].append({"model": n, "skipped": str(e)})
        robots = [x for x in args.robots.split(",") if x]
        if robots:
            folder = os.path.join(tmp, "robots")
            got, why = robot_scenes.write_robot_scenes(args.examples, folder)
            if why:
                report["robots_skipped"] = why
                folder = None
            for n in robots if folder else []:
                print(f"[{n}]", file=sys.stderr, flush=True)
                if n not in got:
                    report["models"].append({"model": n, "skipped": "URDF not found in example-robot-data"})
                    continue
                try:
                    report["models"].append(compare_robot(args, n, os.path.join(folder, n + ".json"), tmp))
                except (AssertionError, ValueError, RuntimeError) as e:
                    report["models"].append({"model": n, "skipped": f"{type(e).__name__}: {e}"})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["loadavg_end"] = os.getloadavg()
    problems = cr.validate_report(report)
    print(markdown(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if problems:
        print("error: the report does not match its schema:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
