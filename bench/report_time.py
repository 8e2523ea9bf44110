#!/usr/bin/env python3
"""Wall time of `simphant.report` (docs/report.md) against the number of instances.

Writes synthetic results files (tests/python/report_data.py: 2 joints, 1 driver,
3 parameters, all reductions, --frames frames of every per-frame dataset) of each size
in --instances and times make_report on each (wall and CPU time of this process), the whole report: reading, statistics,
figures, page and files (best of --repeats).

Usage: PYTHONPATH=build/python bench/report_time.py [--instances 1000 100000] [--frames 21]
                                                     [--repeats 1] [--dir DIR] [--json OUT]
"""
import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"))
import report_data  # noqa: E402

from simphant.report import build  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, nargs="+", default=[1000, 100000])
    ap.add_argument("--frames", type=int, default=21)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        for n in a.instances:
            path = os.path.join(d, f"synthetic_{n}.h5")
            report_data.write(path, instances=n, frames=a.frames, failed=(3, 7))
            best = None
            for _ in range(a.repeats):
                t0, c0 = time.perf_counter(), time.process_time()
                r = build.make_report(path, os.path.join(d, f"out_{n}"))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                best = (wall, cpu) if best is None or wall < best[0] else best
            row = {"instances": n, "frames": a.frames, "file_mb": os.path.getsize(path) / 1e6,
                   "figures": len(r["figures"]), "wall_s": best[0], "cpu_s": best[1]}
            rows.append(row)
            print(f"{n:>9} instances, {a.frames} frames, {row['file_mb']:8.1f} MB: {best[0]:7.2f} s wall, "
                  f"{best[1]:7.2f} s CPU ({row['figures']} figures)", flush=True)
            os.remove(path)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps({"cpus": os.cpu_count(), "loadavg": os.getloadavg(),
                                                    "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
