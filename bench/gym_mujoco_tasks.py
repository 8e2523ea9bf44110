#!/usr/bin/env python3
"""Env steps per second of a Gymnasium MuJoCo task (InvertedDoublePendulum-v5 by default;
--task Reacher-v5, Hopper-v5, Walker2d-v5, HalfCheetah-v5, Ant-v5, Pusher-v5 or Humanoid-v5) through simphant.gym (backends cpu and cpu-simd, solver aba;
a backend that refuses the task, as cpu-simd refuses the hopper's contact, is printed as
not supported) against Gymnasium's own MuJoCo env vectorised by
gymnasium.make_vec (vectorization_mode "sync" and "async"), side by side in one run
(docs/performance.md, "Gymnasium's MuJoCo tasks").

    PYTHONPATH=build/python python3 bench/gym_mujoco_tasks.py [--task T] [--envs 1 64 4096] [--async-max 64]
        [--json OUT]

An env step is one sub-environment advanced by one env step (the task's frame_skip steps
of its timestep, RK4), so a vector step of N envs counts N. Every env takes uniform random
actions in [-1, 1] (drawn before the timing), episodes end as they do (the double
pendulum's pole falls within tens of steps; Reacher truncates after 50 steps; the hopper
and the walker fall within tens of steps under random actions; the cheetah truncates after
1000; random actions make the ant jump, and its episodes end when the torso rises above
1 m, after about 325 steps here, 94 in Gymnasium; the pusher truncates after 100; the
humanoid falls within about 20 steps) and both
sides autoreset (NEXT_STEP): resets are part of the cost. Each
configuration is built and warmed up (5 vector steps), then timed in --rounds rounds of
at least --seconds each; the figure is the best round. SimPhant runs on every core
(threads 0); Gymnasium's sync env steps its MuJoCo envs one after the other in this
process, the async one runs one worker process per env, so it is capped at --async-max
envs (4096 processes on a 2-core machine are impractical: rows above the cap are
printed as skipped).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np

TASKS = ("InvertedDoublePendulum-v5", "Reacher-v5", "Hopper-v5", "Walker2d-v5", "HalfCheetah-v5", "Ant-v5",
         "Pusher-v5", "Humanoid-v5")


def timed(step: Callable[[np.ndarray], Any], actions: np.ndarray, n: int, rounds: int, seconds: float) -> float:
    """Best env steps per second over the rounds; actions (K, n, n_actions) cycled."""
    for k in range(5):
        step(actions[k % len(actions)])
    best = 0.0
    for _ in range(rounds):
        done, t0 = 0, time.perf_counter()
        while True:
            step(actions[done % len(actions)])
            done += 1
            dt = time.perf_counter() - t0
            if dt >= seconds and done >= 3:
                break
        best = max(best, done * n / dt)
    return best


def simphant_env(task: str, n: int, backend: str):
    import simphant.gym

    env = simphant.gym.make(task, num_envs=n, backend=backend)
    env.reset(seed=0)
    return env, env.sim.backend


def gymnasium_env(task: str, n: int, mode: str):
    import gymnasium as gym

    env = gym.make_vec(task, num_envs=n, vectorization_mode=mode)
    env.reset(seed=0)
    return env, mode


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", choices=TASKS, default=TASKS[0])
    ap.add_argument("--envs", type=int, nargs="+", default=[1, 64, 4096])
    ap.add_argument("--async-max", type=int, default=64, help="largest env count for Gymnasium's async mode")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0, help="shortest round [s]")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args(argv)

    import gymnasium
    import mujoco

    import simphant

    rng = np.random.default_rng(0)
    rows: List[Dict[str, Any]] = []
    configs = [("simphant", "cpu"), ("simphant", "cpu-simd"), ("gymnasium", "sync"), ("gymnasium", "async")]
    for n in args.envs:
        n_actions = {"Reacher-v5": 2, "Hopper-v5": 3, "Walker2d-v5": 6, "HalfCheetah-v5": 6, "Ant-v5": 8,
                     "Pusher-v5": 7, "Humanoid-v5": 17}.get(args.task, 1)
        actions = rng.uniform(-1.0, 1.0, (16, n, n_actions))
        for side, mode in configs:
            row: Dict[str, Any] = {"envs": n, "side": side, "mode": mode}
            if side == "gymnasium" and mode == "async" and n > args.async_max:
                row["skipped"] = f"over --async-max {args.async_max} (one process per env)"
                rows.append(row)
                print(f"{n:>6} {side:>9} {mode:>9}: skipped ({row['skipped']})", flush=True)
                continue
            t0 = time.perf_counter()
            try:
                env, what = simphant_env(args.task, n, mode) if side == "simphant" else gymnasium_env(args.task, n, mode)
            except ValueError as e:  # a backend that does not run the task says why
                row["skipped"] = f"not supported: {e}"
                rows.append(row)
                print(f"{n:>6} {side:>9} {mode:>9}: {row['skipped']}", flush=True)
                continue
            row["build_s"] = time.perf_counter() - t0
            row["backend"] = what
            row["env_steps_per_s"] = timed(env.step, actions, n, args.rounds, args.seconds)
            env.close()
            rows.append(row)
            print(f"{n:>6} {side:>9} {mode:>9}: {row['env_steps_per_s']:.4g} env steps/s "
                  f"(built in {row['build_s']:.2f} s)", flush=True)

    machine = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
               "python": sys.version.split()[0], "simphant": simphant.__version__, "gymnasium": gymnasium.__version__,
               "mujoco": mujoco.__version__, "date": time.strftime("%Y-%m-%d")}
    try:
        with open("/proc/cpuinfo") as f:
            machine["cpu"] = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"\n{args.task}, env steps per second (best of {args.rounds} rounds of >= {args.seconds} s); "
          f"{machine['cpu']}, {machine['cores']} cores, {machine['date']}")
    cols = [(s, m) for s, m in configs]
    print("| envs | " + " | ".join(f"{s} {m}" for s, m in cols) + " | simphant best / gymnasium best |")
    print("| ---: | " + " | ".join("---:" for _ in cols) + " | ---: |")
    for n in args.envs:
        cells, sp, gy = [], 0.0, 0.0
        for s, m in cols:
            r = next(r for r in rows if r["envs"] == n and r["side"] == s and r["mode"] == m)
            v = r.get("env_steps_per_s")
            cells.append(("not supported" if r.get("skipped", "").startswith("not supported") else "skipped")
                         if v is None else f"{v:.3g}")
            if v is not None:
                sp, gy = (max(sp, v), gy) if s == "simphant" else (sp, max(gy, v))
        print(f"| {n} | " + " | ".join(cells) + f" | {sp / gy:.3g} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"task": args.task, "machine": machine, "rounds": args.rounds, "seconds": args.seconds,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
