#!/usr/bin/env python3
"""The cost of driving SimPhant from Python, measured side by side in one run
(docs/performance.md, "Python"):

1. 1,024 slider-cranks stepped one step at a time with a per-step action computed from
   the state (a proportional speed controller, per-instance target): the C++ loop
   (bench/rl_step_loop, the loop of examples/cpp/rl_rollout.cpp) against the same loop
   in Python over simphant.Simulator (states(out=) -> NumPy -> set_inputs -> step(1)).
   The Python overhead is (t_python - t_cpp) / t_cpp per step.
2. simphant.gym.VectorEnv steps per second (1,024 envs, frame_skip 1, the same
   controller as the policy) beside MuJoCo's Python `mujoco.rollout.rollout` on a
   slider-crank in MJCF (crank and conrod hinges, piston slide, the loop closed by a
   `connect` equality, the gas load as a second motor; RK4, the same dt), 1,024
   rollouts of open-loop controls. MuJoCo
   is optional (pip install mujoco; a benchmark-only dependency): without it that row
   is left out.

    PYTHONPATH=build/python python3 bench/python_step_overhead.py [--build build] [--json OUT]

Every loop runs once per round, in --repeats alternating rounds (a change of the
machine's load hits them all), after a warm-up; the figures are each loop's best round
and the median of the rounds' Python / C++ ratios. Every figure on the same machine,
threads as given (default: every core, for SimPhant and MuJoCo alike).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCENE = ROOT / "examples" / "slider_crank.json"


def make_python_loop(n: int, threads: int):
    """The Python side of the comparison: returns loop(k), k closed-loop steps."""
    import simphant

    sim = simphant.Simulator(SCENE, instances=n, backend="cpu", threads=threads)
    obs = np.empty((n, sim.n_bodies, 13))
    target = 5.0 + 0.01 * np.arange(n)
    action = np.empty((n, 1))

    def loop(k: int) -> None:
        for _ in range(k):
            sim.states(out=obs)
            np.multiply(0.05, target - obs[:, 0, 11], out=action[:, 0])
            sim.set_inputs(action)
            sim.step(1)

    return loop


def cpp_loop(build: pathlib.Path, n: int, steps: int, threads: int, repeats: int = 1) -> dict:
    exe = build / "bench" / "rl_step_loop"
    if not exe.exists():
        sys.exit(f"error: {exe} is not built (cmake --build {build} --target rl_step_loop)")
    out = subprocess.run([str(exe), str(SCENE), str(n), str(steps), str(threads), str(repeats)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def side_by_side(build: pathlib.Path, n: int, steps: int, threads: int, rounds: int, dt: float) -> dict:
    """Every loop in alternating rounds (so that a change of the machine's load hits them
    all): per round one C++ run (its own warm-up, then `steps` timed), then the Python
    loop, the gym env and MuJoCo's rollout over the same steps. Returns seconds per step
    of each round, and the Python / C++ ratio of each round."""
    loops = {"python": make_python_loop(n, threads), "gym": make_gym_loop(n, threads)}
    mj = make_mujoco_loop(n, threads, dt)
    if mj:
        loops["mujoco"] = mj[0]
    for loop in loops.values():
        loop(max(1, steps // 10))
    t: dict = {"cpp": []}
    t.update({k: [] for k in loops})
    for _ in range(rounds):
        t["cpp"].append(cpp_loop(build, n, steps, threads)["seconds_per_step"])
        for name, loop in loops.items():
            t[name].append(timed(loop, steps))
    ratios = [p / c for p, c in zip(t["python"], t["cpp"])]
    return {"seconds_per_step": t, "mujoco": mj[1] if mj else None,
            "python_overhead_median_round": float(np.median(ratios)) - 1.0,
            "python_overhead_best": min(t["python"]) / min(t["cpp"]) - 1.0,
            # per loop: the median over the rounds of (its time / the C++ loop's time)
            "median_round_time_over_cpp": {k: float(np.median([a / c for a, c in zip(v, t["cpp"])])) for k, v in t.items()}}


def make_gym_loop(n: int, threads: int):
    """simphant.gym.VectorEnv with the same controller as its policy: returns loop(k)."""
    from simphant.gym import VectorEnv

    env = VectorEnv(SCENE, num_envs=n, observation=["crank.omega"], action_low=-2.0, action_high=2.0,
                    reward=lambda sim, obs, u: -np.abs(obs[:, 1] - 5.0), backend="cpu", threads=threads)
    target = 5.0 + 0.01 * np.arange(n)
    obs, _ = env.reset()

    def loop(k: int) -> None:
        nonlocal obs
        for _ in range(k):
            obs, *_ = env.step((0.05 * (target - obs[:, 1]))[:, None])

    return loop


MJCF = """
<mujoco model="slider-crank">
  <option timestep="{dt}" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="crank" pos="0 0 0">
      <joint name="main_bearing" type="hinge" axis="0 1 0" damping="0.02"/>
      <inertial pos="0.0125 0 0.0216506" quat="0.866025 0 -0.5 0" mass="0.3" diaginertia="2.16e-05 7.33e-05 7.33e-05"/>
      <body name="conrod" pos="0.025 0 0.0433013">
        <joint name="crank_pin" type="hinge" axis="0 1 0"/>
        <inertial pos="0.0976281 0 -0.0216506" quat="0.994053 0 0.108901 0" mass="0.25"
                  diaginertia="8e-06 0.000837333 0.000837333"/>
      </body>
    </body>
    <body name="piston" pos="0.220256 0 0">
      <joint name="cylinder" type="slide" axis="1 0 0"/>
      <inertial pos="0 0 0" mass="0.4" diaginertia="0.00018 0.000143333 0.000143333"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="conrod" body2="piston" anchor="0.195256 0 -0.0433013"/>
  </equality>
  <actuator>
    <motor joint="main_bearing" gear="1"/>
    <motor joint="cylinder" gear="1"/>  <!-- the gas load, -5 N on the piston -->
  </actuator>
</mujoco>
"""


def make_mujoco_loop(n: int, threads: int, dt: float):
    """MuJoCo's rollout of n slider-cranks (open-loop controls): returns (loop(k), info),
    or None without mujoco."""
    try:
        import mujoco
        from mujoco import rollout
    except ImportError:
        return None
    model = mujoco.MjModel.from_xml_string(MJCF.format(dt=dt))
    datas = [mujoco.MjData(model) for _ in range(max(1, threads))]
    state0 = np.empty(mujoco.mj_stateSize(model, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(model, datas[0], state0, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    initial = np.tile(state0, (n, 1))
    runner = rollout.Rollout(nthread=len(datas))
    controls = {}

    def loop(k: int) -> None:
        if k not in controls:
            c = np.empty((n, k, model.nu))
            c[..., 0], c[..., 1] = 0.5, -5.0  # motor torque [N m], gas load [N]
            controls[k] = c
        runner.rollout(model, datas, initial, controls[k])

    return loop, {"mujoco_version": mujoco.__version__, "nthread": len(datas)}


def timed(loop, steps: int) -> float:
    t0 = time.perf_counter()
    loop(steps)
    return (time.perf_counter() - t0) / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--instances", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    n, steps, threads, repeats = args.instances, args.steps, args.threads, args.repeats

    import simphant

    dt = simphant.load_scene(SCENE).dt
    side = side_by_side(pathlib.Path(args.build), n, steps, threads, repeats, dt)
    res = {
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"), "simphant_version": simphant.__version__, "instances": n, "steps": steps,
        "threads": threads, "rounds": repeats, "load_average_after": os.getloadavg(), **side,
    }
    sec = side["seconds_per_step"]
    print(f"{n} slider-cranks, {threads} threads, {repeats} alternating rounds of {steps} steps "
          f"(best round, ms per step and instance-steps/s):")
    rows = [("C++ loop (rl_step_loop)", "cpp"), ("Python loop (Simulator)", "python"), ("gym VectorEnv", "gym"),
            ("MuJoCo rollout", "mujoco")]
    for label, key in rows:
        if key in sec:
            b = min(sec[key])
            print(f"  {label:26s} {b * 1e3:8.3f} ms  {n / b:10.4g}   time / C++ loop, median round: "
                  f"{side['median_round_time_over_cpp'][key]:.3f}")
    print(f"  Python loop over C++ loop: {100 * side['python_overhead_median_round']:+.1f} % (median of the rounds' "
          f"ratios), {100 * side['python_overhead_best']:+.1f} % (best against best)")
    if side["mujoco"]:
        print(f"  (mujoco {side['mujoco']['mujoco_version']}, {side['mujoco']['nthread']} threads, open-loop controls)")
    else:
        print("  MuJoCo rollout left out: mujoco is not installed (pip install mujoco)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
