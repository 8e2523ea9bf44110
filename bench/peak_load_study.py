#!/usr/bin/env python3
"""The cost of recording in a peak-load study (docs/mechanism-studies.md, "Cost of
recording").

The crank press (examples/crank_press.json) run with three output settings, side by
side in one invocation:

  a. study:     frames "first_last", reductions "all" (the study as the example runs it)
  b. bare:      frames "none", reductions "none" (the step loop alone, nothing recorded)
  c. every:     frames "every" with record_every 1, every dataset, no reductions (what a
                peak-load study had to record before reductions over time existed)

Each round runs a, b and c once in turn (the order rotated from round to round, so that
a slow spell of the shared machine falls on each setting alike); the table gives the
median over --rounds of the run's own figures (`simphant run --json`:
`loop_wall_time_s`, the step loop with its frame and reduction writes) and of the
process wall time (start-up, assembly, writing and closing the file included), the file
size, and the ratios a / b (the price of reductions and two frames; target: within 10 %)
and c / a (what the study saves against recording every step; target: >= 4x).

    python3 bench/peak_load_study.py --simphant build/simphant --instances 500 --t-end 1.0

Prints a Markdown table; --json writes the numbers. Speeds measured side by side in one
run only compare with each other (docs/benchmarks.md).
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SETTINGS = [
    ("a", "study: first/last frames + all reductions", ["--frames", "first_last", "--reductions", "all"]),
    ("b", "bare: no frames, no reductions", ["--frames", "none", "--reductions", "none"]),
    ("c", "every step, every dataset, no reductions", ["--frames", "every", "--reductions", "none"]),
]


def run_once(args, scene, out, flags):
    cmd = [args.simphant, "run", scene, "--backend", "cpu", "--instances", str(args.instances),
           "--t-end", str(args.t_end), "--threads", str(args.threads), "--out", out, "--json", *flags]
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("simphant run failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-3000:]))
    summary = json.loads(p.stdout)
    return {"loop_s": float(summary["loop_wall_time_s"]), "process_s": wall, "bytes": os.path.getsize(out),
            "instance_steps": int(summary["steps"]) * int(summary["instances"])}


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d logical cores, %s" % (cpu, os.cpu_count() or 0, platform.platform())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--simphant", default=os.path.join(here, "..", "build", "simphant"))
    ap.add_argument("--scene", default=os.path.join(here, "..", "examples", "crank_press.json"))
    ap.add_argument("--instances", type=int, default=500)
    ap.add_argument("--t-end", type=float, default=1.0, help="[s] simulated (one crank revolution is 1 s)")
    ap.add_argument("--threads", type=int, default=0, help="0: all cores")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default=None, help="folder for the runs' files (default: a temporary folder)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    folder = args.dir or tempfile.mkdtemp(prefix="simphant_peak_load_")
    os.makedirs(folder, exist_ok=True)
    with open(args.scene) as f:
        doc = json.load(f)
    doc.setdefault("solver", {})["record_every"] = 1  # setting c records every step
    doc.pop("output", None)  # the CLI flags choose the output of each setting
    scene = os.path.join(folder, "scene.json")
    with open(scene, "w") as f:
        json.dump(doc, f)

    res = {key: [] for key, _, _ in SETTINGS}
    for r in range(args.rounds):
        order = SETTINGS[r % 3:] + SETTINGS[:r % 3]
        for key, _, flags in order:
            res[key].append(run_once(args, scene, os.path.join(folder, key + ".h5"), flags))

    med = {k: {m: statistics.median(x[m] for x in v) for m in ("loop_s", "process_s", "bytes")} for k, v in res.items()}
    steps = res["a"][0]["instance_steps"]
    print("crank press, %d instances, t_end %g s (%d instance-steps), cpu backend, %d rounds, medians; %s; %s" %
          (args.instances, args.t_end, steps, args.rounds, time.strftime("%Y-%m-%d", time.gmtime()), machine()))
    print()
    print("| setting | step loop [s] | process [s] | file [MB] |")
    print("| --- | ---: | ---: | ---: |")
    for key, label, _ in SETTINGS:
        m = med[key]
        print("| %s. %s | %.3f | %.3f | %.2f |" % (key, label, m["loop_s"], m["process_s"], m["bytes"] / 1e6))
    ratios = {
        "a_over_b_loop": med["a"]["loop_s"] / med["b"]["loop_s"],
        "a_over_b_process": med["a"]["process_s"] / med["b"]["process_s"],
        "c_over_a_loop": med["c"]["loop_s"] / med["a"]["loop_s"],
        "c_over_a_process": med["c"]["process_s"] / med["a"]["process_s"],
        "c_over_a_bytes": med["c"]["bytes"] / med["a"]["bytes"],
    }
    print()
    print("a / b: step loop %.3f, process %.3f (target <= 1.10)" % (ratios["a_over_b_loop"], ratios["a_over_b_process"]))
    print("c / a: step loop %.2f, process %.2f, file %.0f (target >= 4)" %
          (ratios["c_over_a_loop"], ratios["c_over_a_process"], ratios["c_over_a_bytes"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"instances": args.instances, "t_end": args.t_end, "rounds": args.rounds, "machine": machine(),
                       "runs": res, "median": med, "ratios": ratios}, f, indent=1)
    if not args.dir:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
