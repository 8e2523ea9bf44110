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

Best of --repeats timed runs after a warm-up; every figure on the same machine, threads
as given (default: every core for both SimPhant and MuJoCo).
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


def best_of(repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def python_loop(n: int, steps: int, threads: int, repeats: int) -> dict:
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

    loop(max(1, steps // 10))
    t = best_of(repeats, lambda: loop(steps))
    return {"seconds_per_step": t / steps, "instance_steps_per_s": n * steps / t,
            "mean_speed": float(sim.states()[:, 0, 11].mean())}


def cpp_loop(build: pathlib.Path, n: int, steps: int, threads: int, repeats: int) -> dict:
    exe = build / "bench" / "rl_step_loop"
    if not exe.exists():
        sys.exit(f"error: {exe} is not built (cmake --build {build} --target rl_step_loop)")
    out = subprocess.run([str(exe), str(SCENE), str(n), str(steps), str(threads), str(repeats)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def gym_env(n: int, steps: int, threads: int, repeats: int) -> dict:
    from simphant.gym import VectorEnv

    env = VectorEnv(SCENE, num_envs=n, observation=["crank.omega"], action_low=-2.0, action_high=2.0,
                    reward=lambda sim, obs, u: -np.abs(obs[:, 1] - 5.0), backend="cpu", threads=threads)
    target = 5.0 + 0.01 * np.arange(n)
    obs, _ = env.reset(seed=0)

    def loop(k: int) -> None:
        nonlocal obs
        for _ in range(k):
            obs, *_ = env.step((0.05 * (target - obs[:, 1]))[:, None])

    loop(max(1, steps // 10))
    t = best_of(repeats, lambda: loop(steps))
    return {"env_steps_per_s": steps / t, "instance_steps_per_s": n * steps / t}


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


def mujoco_rollout(n: int, steps: int, threads: int, repeats: int, dt: float) -> dict | None:
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
    control = np.empty((n, steps, model.nu))
    control[..., 0], control[..., 1] = 0.5, -5.0  # motor torque [N m], gas load [N]
    with rollout.Rollout(nthread=len(datas)) as r:
        r.rollout(model, datas, initial, control[:, : max(1, steps // 10)])
        t = best_of(repeats, lambda: r.rollout(model, datas, initial, control))
    return {"mujoco_version": mujoco.__version__, "instance_steps_per_s": n * steps / t,
            "nthread": len(datas)}


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
    cpp = cpp_loop(pathlib.Path(args.build), n, steps, threads, repeats)
    py = python_loop(n, steps, threads, repeats)
    # the C++ loop again after the Python one: the machine's drift between the two
    cpp2 = cpp_loop(pathlib.Path(args.build), n, steps, threads, repeats)
    cpp_best = min(cpp["seconds_per_step"], cpp2["seconds_per_step"])
    env = gym_env(n, steps, threads, repeats)
    mj = mujoco_rollout(n, steps, threads, repeats, dt)
    res = {
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"), "simphant_version": simphant.__version__, "instances": n, "steps": steps,
        "threads": threads, "repeats": repeats,
        "cpp_loop": cpp, "cpp_loop_again": cpp2, "python_loop": py,
        "python_overhead": py["seconds_per_step"] / cpp_best - 1.0,
        "gym_vector_env": env, "mujoco_rollout": mj,
    }
    print(f"{n} slider-cranks, one step at a time with a per-step action, {threads} threads, best of {repeats}:")
    print(f"  C++ loop        {cpp_best * 1e3:8.3f} ms/step  {n / cpp_best:10.4g} instance-steps/s "
          f"(runs {cpp['seconds_per_step'] * 1e3:.3f}, {cpp2['seconds_per_step'] * 1e3:.3f} ms)")
    print(f"  Python loop     {py['seconds_per_step'] * 1e3:8.3f} ms/step  {py['instance_steps_per_s']:10.4g} "
          f"instance-steps/s  overhead {100 * res['python_overhead']:+.1f} %")
    print(f"  gym VectorEnv   {1e3 / env['env_steps_per_s']:8.3f} ms/step  {env['instance_steps_per_s']:10.4g} "
          f"instance-steps/s")
    if mj:
        print(f"  MuJoCo rollout                     {mj['instance_steps_per_s']:10.4g} instance-steps/s "
              f"(mujoco {mj['mujoco_version']}, {mj['nthread']} threads, open-loop controls)")
    else:
        print("  MuJoCo rollout  (mujoco not installed: pip install mujoco)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
