#!/usr/bin/env python3
"""What running a sweep's shards as Ray tasks costs (simphant.distributed.run_sweep,
docs/scaling-out.md) against the same shards started by hand on the same machine.

On a local Ray cluster of all cores, in rounds that run each configuration in turn (best
of --repeats), for N = 1, 2, 4 shards of the same design:

  * by hand: N `simphant run --shard K/N -j max(1, cores/N)` processes started side by
    side, then `simphant merge` (what the Slurm scripts do on one node); wall time from
    the first start to the end of the merge;
  * Ray: run_sweep(..., shards=N) on the running cluster, num_cpus = cores/N per task,
    checkpoints every --checkpoint-every s; wall time of the call, and its parts: the
    slowest shard's own wall time (its summary's wall_time_s) and the merge's seconds.
    What is left is Ray's: scheduling, a worker process and `import simphant` per task,
    the progress reports, collecting the results.

Also the time to start the local cluster (ray.init). Every merged file is compared with
the by-hand merged file (h5py, /state, /reactions, /status bit for bit).

    PYTHONPATH=build/python python3 bench/ray_sweep_overhead.py --simphant build/simphant

Prints a Markdown table. Speeds measured side by side in one run only compare with each
other (docs/benchmarks.md).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def by_hand(simphant, scene, common, n, cores, folder):
    shards = [os.path.join(folder, f"hand.{k}.h5") for k in range(n)]
    threads = str(max(1, cores // n))
    t0 = time.perf_counter()
    procs = [subprocess.Popen([simphant, "run", scene, *common, "--shard", f"{k}/{n}", "-j", threads, "--out", s],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for k, s in enumerate(shards)]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"a shard failed ({p.returncode}): {err.decode()}")
    out = os.path.join(folder, f"hand-{n}.h5")
    subprocess.run([simphant, "merge", out, *shards], check=True, capture_output=True)
    return time.perf_counter() - t0, out


def with_ray(scene, args, n, cores, folder, checkpoint_every):
    from simphant.distributed import run_sweep

    t0 = time.perf_counter()
    r = run_sweep(scene, args.instances, shards=n, out=os.path.join(folder, f"ray-{n}.h5"), t_end=args.t_end,
                  seed=args.seed, backend="cpu", resources={"num_cpus": max(1, cores // n)},
                  checkpoint_every=checkpoint_every, progress=False)
    wall = time.perf_counter() - t0
    slowest = max(s["summary"]["wall_time_s"] for s in r.shard_results)
    return wall, slowest, r.merge["seconds"], r.out_file


def same_data(a, b):
    import h5py

    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        return all(fa[n][()].tobytes() == fb[n][()].tobytes() for n in ("state", "reactions", "status"))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simphant", default=os.path.join(root, "build", "simphant"))
    ap.add_argument("--scene", default=os.path.join(root, "examples", "pendulum.json"))
    ap.add_argument("--instances", type=int, default=2000)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shards", default="1,2,4")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--checkpoint-every", type=float, default=30.0)
    ap.add_argument("--json", help="write the measurements here")
    args = ap.parse_args()
    import ray

    cores = os.cpu_count() or 1
    t0 = time.perf_counter()
    ray.init(num_cpus=cores, object_store_memory=200 * 1024**2, include_dashboard=False, log_to_driver=False)
    init_s = time.perf_counter() - t0
    common = ["--instances", str(args.instances), "--t-end", str(args.t_end), "--seed", str(args.seed),
              "--backend", "cpu"]
    ns = [int(v) for v in args.shards.split(",")]
    best = {}
    folder = tempfile.mkdtemp(prefix="ray_sweep_bench.")
    try:
        for _ in range(args.repeats):
            for n in ns:
                hand_s, hand_out = by_hand(args.simphant, args.scene, common, n, cores, folder)
                ray_s, slowest, merge_s, ray_out = with_ray(args.scene, args, n, cores, folder, args.checkpoint_every)
                if not same_data(hand_out, ray_out):
                    sys.exit(f"N = {n}: the Ray sweep's file differs from the shards merged by hand")
                b = best.setdefault(n, {"hand_s": hand_s, "ray_s": ray_s, "slowest_shard_s": slowest,
                                        "merge_s": merge_s})
                if hand_s < b["hand_s"]:
                    b["hand_s"] = hand_s
                if ray_s < b["ray_s"]:
                    b.update(ray_s=ray_s, slowest_shard_s=slowest, merge_s=merge_s)
    finally:
        ray.shutdown()
        shutil.rmtree(folder, ignore_errors=True)

    print(f"{args.instances} instances of {os.path.basename(args.scene)}, t_end = {args.t_end} s, {cores} cores; "
          f"local Ray cluster started in {init_s:.2f} s; best of {args.repeats}\n")
    print("| N | by hand + merge [s] | run_sweep [s] | slowest shard [s] | merge [s] | Ray's part [s] |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in ns:
        b = best[n]
        ray_part = b["ray_s"] - b["slowest_shard_s"] - b["merge_s"]
        print(f"| {n} | {b['hand_s']:.2f} | {b['ray_s']:.2f} | {b['slowest_shard_s']:.2f} | {b['merge_s']:.3f} | "
              f"{ray_part:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cores": cores, "ray_init_s": init_s, "instances": args.instances, "t_end": args.t_end,
                       "best": best}, f, indent=1)


if __name__ == "__main__":
    main()
