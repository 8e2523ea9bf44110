#!/usr/bin/env python3
"""The cost of sharding and merging (README "Command line": `run --shard K/N`, `merge`).

1. Sharding: the same design run as one process on all cores (`run -j 0`), as one
   process on one thread (`-j 1`) and as N = 1, 2, 4, 8 shard processes started side by
   side (each `--shard K/N -j max(1, cores/N)`),
   wall time from the first start to the last exit, and the CPU time (user + system) of
   all processes; the best of --repeats rounds, each round running the one process and
   every N in turn. Wall time against the one process on all cores is what sharding on
   this machine gains or loses; CPU time against the one-thread process is the work that
   sharding adds (process start-up, every shard sampling the whole design, N files
   instead of one), the figure that a load from other processes disturbs least.
   Each N's shards are merged and compared with the one-process file (h5py, /state and
   /params bit for bit) when h5py is installed.
2. Merging: the shards of a larger record (record_every = 1) merged as virtual datasets
   and with --copy; seconds per GB of instance data (the figure `merge --json` reports
   as "bytes"), and the time to read /state of the merged file whole through h5py. The
   shards were just written, so they are read from the page cache.

    python3 bench/shard_overhead.py --simphant build/simphant --json shard_bench.json

Prints a Markdown table of both. Speeds measured side by side in one run only compare
with each other (docs/benchmarks.md).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def run_all(cmds):
    """Starts every command at once; returns (wall time until the last one exits, CPU
    time (user + system) of all of them) [s]."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in cmds]
    for p, c in zip(procs, cmds):
        _, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"failed ({p.returncode}): {' '.join(c)}\n{err.decode()}")
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def merge(simphant, out, shards, copy):
    cmd = [simphant, "merge", out, *shards, "--json"] + (["--copy"] if copy else [])
    t0 = time.perf_counter()
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary = json.loads(res.stdout)
    summary["process_wall_s"] = wall
    return summary


def same_data(a, b):
    try:
        import h5py
    except ImportError:
        return None
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names = ["state", "reactions", "status"] + [f"params/{p}" for p in fa["params"]]
        return all(fa[n][()].tobytes() == fb[n][()].tobytes() for n in names)


def read_seconds(path, repeats):
    """Best time to read /state whole through h5py [s] (None without h5py)."""
    try:
        import h5py
    except ImportError:
        return None
    best = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        with h5py.File(path, "r") as f:
            f["state"][()]
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--simphant", default=os.path.join(root, "build", "simphant"))
    ap.add_argument("--scene", default=os.path.join(root, "examples", "pendulum.json"))
    ap.add_argument("--instances", type=int, default=2000)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--shards", default="1,2,4,8")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--merge-instances", type=int, default=4000, help="instances of the merge benchmark (record_every 1)")
    ap.add_argument("--merge-shards", type=int, default=4)
    ap.add_argument("--workdir", default=None, help="folder for the files (default: a temporary one, removed)")
    ap.add_argument("--json", default=None, help="write the results here")
    a = ap.parse_args()

    cores = os.cpu_count() or 1
    work = a.workdir or tempfile.mkdtemp(prefix="simphant_shard_bench_")
    os.makedirs(work, exist_ok=True)
    base = [a.simphant, "run", a.scene, "-n", str(a.instances), "--t-end", str(a.t_end), "--progress-interval", "1e6"]
    one = os.path.join(work, "one.h5")
    results = {"cores": cores, "scene": os.path.basename(a.scene), "instances": a.instances, "t_end_s": a.t_end,
               "sharding": [], "merge": []}

    # Rounds: in each, the one process and every N side by side, so that a load that comes
    # and goes (a shared machine) weighs on all alike; the best round of each is kept.
    ns = [int(x) for x in a.shards.split(",")]
    best = {}
    for _ in range(a.repeats):
        for n in [0, -1] + ns:  # 0: the one process on all cores, -1: on one thread
            if n <= 0:
                cmds = [base + ["-j", str(-n), "--out", one]]
            else:
                outs = [os.path.join(work, f"s{n}_{k}.h5") for k in range(n)]
                cmds = [base + ["-j", str(max(1, cores // n)), "--shard", f"{k}/{n}", "--out", o]
                        for k, o in enumerate(outs)]
            wall, cpu = run_all(cmds)
            w0, c0 = best.get(n, (float("inf"), float("inf")))
            best[n] = (min(w0, wall), min(c0, cpu))
    t_one, cpu_all = best[0]
    t_one_j1, cpu_one = best[-1]
    results.update({"one_process_s": t_one, "one_process_cpu_s": cpu_all, "one_thread_s": t_one_j1,
                    "one_thread_cpu_s": cpu_one})
    for n in ns:
        outs = [os.path.join(work, f"s{n}_{k}.h5") for k in range(n)]
        m = merge(a.simphant, os.path.join(work, f"m{n}.h5"), outs, copy=False)
        wall, cpu = best[n]
        results["sharding"].append({"shards": n, "threads_each": max(1, cores // n), "wall_s": wall,
                                    "ratio": wall / t_one, "cpu_s": cpu, "cpu_ratio": cpu / cpu_one,
                                    "merge_virtual_s": m["process_wall_s"],
                                    "bit_identical": same_data(one, os.path.join(work, f"m{n}.h5"))})
        for o in outs + [os.path.join(work, f"m{n}.h5")]:
            os.remove(o)

    # Merge per GB: a record of every step.
    with open(a.scene) as f:
        scene = json.load(f)
    scene["solver"]["record_every"] = 1
    big_scene = os.path.join(work, "record_every_step.json")
    with open(big_scene, "w") as f:
        json.dump(scene, f)
    n = a.merge_shards
    outs = [os.path.join(work, f"big_{k}.h5") for k in range(n)]
    run_all([[a.simphant, "run", big_scene, "-n", str(a.merge_instances), "--t-end", str(a.t_end), "-j",
              str(max(1, cores // n)), "--shard", f"{k}/{n}", "--out", o, "--progress-interval", "1e6"]
             for k, o in enumerate(outs)])
    for copy in (False, True):
        best = None
        for _ in range(a.repeats):
            m = merge(a.simphant, os.path.join(work, "big_merged.h5"), outs, copy)
            best = m if best is None or m["seconds"] < best["seconds"] else best
        gb = best["bytes"] / 1e9
        results["merge"].append({"mode": best["mode"], "shards": n, "instances": a.merge_instances,
                                 "frames": best["frames"], "gb": gb, "seconds": best["seconds"],
                                 "seconds_per_gb": best["seconds"] / gb,
                                 "file_mb": os.path.getsize(os.path.join(work, "big_merged.h5")) / 1e6,
                                 "read_state_s": read_seconds(os.path.join(work, "big_merged.h5"), a.repeats)})

    print(f"{results['scene']}, {a.instances} instances, t_end {a.t_end} s, {cores} cores, best of {a.repeats} "
          f"rounds; one process on all cores (-j 0): {t_one:.2f} s wall, {cpu_all:.2f} s CPU; "
          f"one process on one thread (-j 1): {t_one_j1:.2f} s wall, {cpu_one:.2f} s CPU\n")
    print("| shards N | threads each | wall [s] | wall vs one process -j 0 | CPU [s] | CPU vs one process -j 1 "
          "| merge (virtual) [s] | merged = one-shot |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results["sharding"]:
        print(f"| {r['shards']} | {r['threads_each']} | {r['wall_s']:.2f} | {r['ratio']:.2f} | {r['cpu_s']:.2f} | "
              f"{r['cpu_ratio']:.2f} | {r['merge_virtual_s']:.3f} | {r['bit_identical']} |")
    print("\n| merge | shards | GB of instance data | seconds | seconds per GB | merged file [MB] "
          "| read /state (h5py) [s] |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in results["merge"]:
        read = "n/a" if r["read_state_s"] is None else f"{r['read_state_s']:.3f}"
        print(f"| {r['mode']} | {r['shards']} | {r['gb']:.3f} | {r['seconds']:.3f} | {r['seconds_per_gb']:.3f} | "
              f"{r['file_mb']:.3f} | {read} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    if a.workdir is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
