#!/usr/bin/env python3
"""--threads 1 against --threads 0 (the default) on a loaded machine.

Starts one busy process per usable CPU (a shell loop `while :; do :; done`, in this
script's session, so that the scheduler shares the CPUs between them and SimPhant's
threads thread by thread), then times `simphant run SCENE --frames none` with
--threads 1 and --threads 0 for each build given, in interleaved rounds (the order
within a round shuffled), and reports the median wall time of each and the ratio
threads-0 / threads-1 (< 1: the default is faster). `--before` names a second build,
e.g. one whose CPU backend uses OpenMP (the OMP_WAIT_POLICY of its runs is set with
--omp-wait-policy). The busy processes are stopped on exit, also on Ctrl-C.

    python3 bench/threads_loaded.py --simphant build/simphant \
        [--before /path/to/old/simphant] [--models four_bar,arm7] [--instances 64] \
        [--t-end 0.5] [--rounds 5] [--load N] [--json out.json]

docs/performance.md, "Threads", shows a measurement and how it was taken.
"""
import argparse
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def usable_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def start_load(n, own_sessions):
    """n busy shell loops, in this session or each in a session of its own (with Linux's
    autogroup scheduling, sched_autogroup_enabled = 1, every session then gets an equal
    share of the CPUs, however many threads it runs); returns their Popen objects."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=own_sessions) for _ in range(n)]


def stop_load(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def child_cpu_seconds():
    """User + system CPU time of the children waited for so far [s] (the busy processes
    are not among them until they end)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_run(binary, scene, instances, t_end, threads, out, env):
    """Wall time [s] of one `simphant run`, and its exit code."""
    cmd = [binary, "run", scene, "--instances", str(instances), "--t-end", str(t_end), "--threads", str(threads),
           "--frames", "none", "--checkpoint-every", "0", "--backend", "cpu", "--out", out, "--json"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.decode()[-500:]}\n")
    return wall, r.returncode


def time_bench(binary, model, instances, min_seconds, threads, out, env):
    """Seconds per 10^5 instance-steps of one `simphant bench` row (cpu1-sparse for one
    thread, cpu-sparse for the default count), and the exit code."""
    cmd = [binary, "bench", "--models", model, "--configs", "cpu1-sparse" if threads == 1 else "cpu-sparse",
           "--cpu-sizes", str(instances), "--min-seconds", str(min_seconds), "--json", out]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.decode()[-500:]}\n")
        return float("nan"), r.returncode
    with open(out) as f:
        row = json.load(f)["rows"][0]
    if row.get("status") != "ok" or not row.get("instance_steps_per_s"):
        sys.stderr.write(f"{' '.join(cmd)}: row status {row.get('status')}\n")
        return float("nan"), 1
    return 1e5 / row["instance_steps_per_s"], 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simphant", default=os.path.join(ROOT, "build", "simphant"), help="the build to measure")
    ap.add_argument("--before", default=None, help="a second build to measure beside it (e.g. the OpenMP one)")
    ap.add_argument("--omp-wait-policy", default="unset", choices=["unset", "active", "passive"],
                    help="OMP_WAIT_POLICY of the runs (matters only for a build that uses OpenMP)")
    ap.add_argument("--mode", default="run", choices=["run", "bench"],
                    help="run: wall time of `simphant run --frames none` (advance slices and the record points' "
                         "reads, as a user's run); bench: `simphant bench`'s timed advance only, reported as "
                         "seconds per 10^5 instance-steps")
    ap.add_argument("--min-seconds", type=float, default=1.0, help="bench mode: --min-seconds of each row")
    ap.add_argument("--models", default="four_bar,arm7", help="comma-separated scene stems of examples/")
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--t-end", type=float, default=0.5, help="simulated time per run [s] (dt from the scene)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--load", type=int, default=None, help="busy processes (default: one per usable CPU; 0: idle)")
    ap.add_argument("--own-sessions", action="store_true",
                    help="start each busy process in a session of its own (see start_load)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the order within each round")
    ap.add_argument("--json", default=None, help="write the raw times and medians here")
    a = ap.parse_args()

    builds = [("after", a.simphant)] + ([("before", a.before)] if a.before else [])
    for _, b in builds:
        if not os.access(b, os.X_OK):
            sys.exit(f"threads_loaded.py: not an executable: {b}")
    models = [m for m in a.models.split(",") if m]
    for m in models if a.mode == "run" else []:
        if not os.path.isfile(os.path.join(ROOT, "examples", m + ".json")):
            sys.exit(f"threads_loaded.py: --models: no examples/{m}.json")
    n_load = usable_cpus() if a.load is None else a.load
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if a.omp_wait_policy != "unset":
        env["OMP_WAIT_POLICY"] = a.omp_wait_policy

    rng = random.Random(a.seed)
    times = {(m, b, t): [] for m in models for b, _ in builds for t in (1, 0)}
    cpus = {(m, b, t): [] for m in models for b, _ in builds for t in (1, 0)}  # CPU time of each run [s]
    load = start_load(n_load, a.own_sessions)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        with tempfile.TemporaryDirectory(prefix="threads_loaded_") as tmp:
            out = os.path.join(tmp, "run.h5")
            for r in range(a.rounds):
                for m in models:
                    combos = [(b, path, t) for b, path in builds for t in (1, 0)]
                    rng.shuffle(combos)
                    for b, path, t in combos:
                        cpu0 = child_cpu_seconds()
                        if a.mode == "run":
                            scene = os.path.join(ROOT, "examples", m + ".json")
                            wall, rc = time_run(path, scene, a.instances, a.t_end, t, out, env)
                        else:
                            wall, rc = time_bench(path, m, a.instances, a.min_seconds, t, out + ".json", env)
                        if rc != 0:
                            sys.exit(1)
                        cpu = child_cpu_seconds() - cpu0
                        times[(m, b, t)].append(wall)
                        cpus[(m, b, t)].append(cpu)
                        print(f"round {r + 1}/{a.rounds} {m:10s} {b:6s} --threads {t}: {wall:7.3f} s"
                              f" ({cpu:.3f} s CPU)", flush=True)
    finally:
        stop_load(load)

    what = f"t_end {a.t_end} s, wall [s] of the run" if a.mode == "run" else "bench: [s] per 10^5 instance-steps"
    sessions = "each in its own session" if a.own_sessions else "in this session"
    print(f"\n{n_load} busy process(es) {sessions} on {usable_cpus()} usable CPU(s); {a.instances} instances, {what},"
          f" median of {a.rounds} interleaved rounds, OMP_WAIT_POLICY {a.omp_wait_policy}")
    print(f"{'model':10s} {'build':6s} {'threads 1 [s]':>14s} {'threads 0 [s]':>14s} {'0 / 1':>7s}"
          f" {'CPU s, 1':>9s} {'CPU s, 0':>9s}")
    summary = []
    for m in models:
        for b, _ in builds:
            t1 = statistics.median(times[(m, b, 1)])
            t0 = statistics.median(times[(m, b, 0)])
            c1 = statistics.median(cpus[(m, b, 1)])
            c0 = statistics.median(cpus[(m, b, 0)])
            print(f"{m:10s} {b:6s} {t1:14.3f} {t0:14.3f} {t0 / t1:7.2f} {c1:9.3f} {c0:9.3f}")
            summary.append({"model": m, "build": b, "threads_1_s": t1, "threads_0_s": t0, "ratio_0_over_1": t0 / t1,
                            "cpu_threads_1_s": c1, "cpu_threads_0_s": c0,
                            "runs_threads_1": times[(m, b, 1)], "runs_threads_0": times[(m, b, 0)],
                            "cpu_runs_threads_1": cpus[(m, b, 1)], "cpu_runs_threads_0": cpus[(m, b, 0)]})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"mode": a.mode, "load_processes": n_load, "own_sessions": a.own_sessions, "usable_cpus": usable_cpus(), "instances": a.instances,
                       "t_end": a.t_end, "rounds": a.rounds, "omp_wait_policy": a.omp_wait_policy,
                       "builds": dict(builds), "results": summary}, f, indent=1)


if __name__ == "__main__":
    main()
