#!/usr/bin/env python3
"""The cost of checkpoints (`simphant run --checkpoint-every`, docs/checkpoints.md).

A checkpoint copies the run's output file so far (write-then-rename, with fsync), so its
cost grows with the file. This script measures, side by side in one invocation:

  * the same run without checkpoints (--checkpoint-every 0) and with a checkpoint every
    --interval seconds: step-loop wall time of each (best of --repeats), hence the
    overhead of the checkpoints;
  * each checkpoint's own wall time and the size of the file it wrote (from the run's
    debug log: "checkpoint ... at step S (F frames, B bytes) in T s"), and a least-squares
    line T = a + B / r through them: a fixed part a [s] and a copy rate r [MB/s];
  * from the line, the cost of one checkpoint at output sizes of 10 MB .. 10 GB and the
    cost per hour of run at the default interval (--default-interval, 300 s): 3600 /
    interval checkpoints, as seconds per hour and as a share of the run.

Sizes above the largest file measured are extrapolated from the line (marked so).
Usage: checkpoint_cost.py [--simphant build/simphant] [--scene examples/four_bar.json]
                          [--instances 2000] [--t-end 0.3] [--record-every 1] [--interval 0.5]
                          [--repeats 2] [--dir DIR] [--json OUT]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"checkpoint \S+ at step (\d+) \((\d+) frames, (\d+) bytes\) in ([0-9.]+) s")


def run(args, simphant, scene, out, interval, extra_log):
    cmd = [simphant, "run", scene, "--instances", str(args.instances), "--t-end", str(args.t_end),
           "--threads", str(args.threads), "--out", out, "--json", "--checkpoint-every", str(interval)]
    if extra_log:
        cmd += ["--log-level", "debug"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("simphant run failed (%d): %s" % (p.returncode, p.stderr[-2000:]))
    summary = json.loads(p.stdout)
    points = [(int(s), int(f), int(b), float(t)) for s, f, b, t in LINE.findall(p.stderr)]
    return summary, points, wall, os.path.getsize(out)


def fit(points):
    """Least-squares T = a + b * bytes over (bytes, seconds)."""
    n = len(points)
    xs = [p[2] for p in points]
    ys = [p[3] for p in points]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    return my - b * mx, b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--simphant", default=os.path.join(here, "..", "build", "simphant"))
    ap.add_argument("--scene", default=os.path.join(here, "..", "examples", "four_bar.json"))
    ap.add_argument("--instances", type=int, default=2000)
    ap.add_argument("--t-end", type=float, default=0.3, help="[s] simulated")
    ap.add_argument("--record-every", type=int, default=1,
                    help="steps between frames (written into a copy of the scene; a large file quickly)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--interval", type=float, default=0.5, help="[s] between checkpoints in the measured run")
    ap.add_argument("--default-interval", type=float, default=300.0, help="[s] the default --checkpoint-every")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--dir", default=None, help="folder for the runs' files (default: a temporary folder)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    folder = args.dir or tempfile.mkdtemp(prefix="simphant_checkpoint_cost_")
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, "cost.h5")
    with open(args.scene) as f:
        doc = json.load(f)
    doc.setdefault("solver", {})["record_every"] = args.record_every
    scene = os.path.join(folder, "scene.json")
    with open(scene, "w") as f:
        json.dump(doc, f)
    plain, with_ckpt, points, counts = [], [], [], []
    for _ in range(args.repeats):  # alternated, so that both see the same machine
        s, _, _, size = run(args, args.simphant, scene, out, 0, False)
        plain.append(s["loop_wall_time_s"])
        s, pts, _, size = run(args, args.simphant, scene, out, args.interval, True)
        with_ckpt.append(s["loop_wall_time_s"])
        counts.append(len(pts))
        points += pts
    if len(points) < 2:
        sys.exit("fewer than two checkpoints: use a longer run (--t-end) or a shorter --interval")
    a, b = fit(points)
    rate_mb_s = 1e-6 / b if b > 0 else float("inf")
    largest = max(p[2] for p in points)
    t_plain, t_ckpt = min(plain), min(with_ckpt)
    per_ckpt = sum(p[3] for p in points) / len(points)
    print("output file %.1f MB, %d checkpoints measured (file %.1f .. %.1f MB)" %
          (size / 1e6, len(points), min(p[2] for p in points) / 1e6, largest / 1e6))
    print("step loop without checkpoints %.3f s, with one every %.2f s %.3f s: overhead %.1f %% "
          "(mean checkpoint %.4f s)" % (t_plain, args.interval, t_ckpt, 100 * (t_ckpt / t_plain - 1), per_ckpt))
    print("one checkpoint: %.4f s + size / %.0f MB/s" % (a, rate_mb_s))
    # End to end: the step loop's extra time per checkpoint (the copy's writeback also
    # slows the run's own writes), against the mean size copied.
    n_run = counts[with_ckpt.index(t_ckpt)]
    mean_mb = sum(p[2] for p in points) / len(points) / 1e6
    e2e = (t_ckpt - t_plain) / n_run if n_run else float("nan")
    e2e_rate = mean_mb / e2e if e2e > 0 else float("inf")
    print("end to end: %.3f s of step loop per checkpoint of %.0f MB on average: %.0f MB/s" % (e2e, mean_mb, e2e_rate))
    rows = []
    per_hour = 3600.0 / args.default_interval
    print("%12s %14s %22s %10s %18s %10s" % ("file", "per checkpoint", "per hour at %g s" % args.default_interval,
                                             "share", "end to end / hour", "share"))
    for mb in (10, 100, 1000, 10000):
        cost = a + b * mb * 1e6
        hour = per_hour * cost
        hour_e2e = per_hour * mb / e2e_rate
        rows.append({"file_mb": mb, "checkpoint_s": cost, "per_hour_s": hour, "share": hour / 3600,
                     "end_to_end_per_hour_s": hour_e2e, "extrapolated": mb * 1e6 > largest})
        print("%9d MB %13.3f s %21.1f s %9.2f %% %17.1f s %9.2f %%%s" %
              (mb, cost, hour, 100 * hour / 3600, hour_e2e, 100 * hour_e2e / 3600,
               "  (extrapolated)" if mb * 1e6 > largest else ""))
    result = {"instances": args.instances, "t_end": args.t_end, "interval_s": args.interval,
              "file_bytes": size, "fixed_s": a, "copy_rate_mb_s": rate_mb_s,
              "loop_s_without": t_plain, "loop_s_with": t_ckpt, "checkpoints": points,
              "end_to_end_s_per_checkpoint": e2e, "end_to_end_mb_s": e2e_rate,
              "default_interval_s": args.default_interval, "table": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if not args.dir:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
