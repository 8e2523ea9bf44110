"""simphant-ray / python -m simphant.distributed: run_sweep from a shell.

    simphant-ray examples/four_bar.json --instances 100000 --shards 8 --out four_bar.h5 --address auto

Prints the progress line on stderr and, at the end, the merge and per-shard summary (or
one JSON object with --json). Exit codes as `simphant run` (README "Exit codes"): 0 ok,
2 bad input (a message naming the option or the JSON path), 3 no instance ended ok or a
shard failed, 130 interrupted.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import List, Optional


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="simphant-ray", description="Run a sweep's shards as Ray tasks and merge them "
                                 "(docs/scaling-out.md).")
    ap.add_argument("scene", help="the scene file")
    ap.add_argument("--instances", type=int, help="the design's size (default: the scene's sweep.instances)")
    ap.add_argument("--shards", type=int, help="number of shard tasks (default: one per GPU, else one per node)")
    ap.add_argument("--out", help="the merged file (default: <scene stem>.h5); shards go to <out stem>.shards/")
    ap.add_argument("--address", help="Ray cluster address (default: $RAY_ADDRESS, else a local cluster)")
    ap.add_argument("--num-cpus", type=float, help="CPUs per task (default: a GPU and a CPU where there are GPUs, "
                    "else the cluster's CPUs / shards)")
    ap.add_argument("--num-gpus", type=float, help="GPUs per task")
    ap.add_argument("--dt", type=float, help="[s] overrides solver.dt")
    ap.add_argument("--t-end", type=float, help="[s] overrides solver.t_end")
    ap.add_argument("--seed", type=int, help="overrides sweep.seed")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cpu-simd", "cuda", "cuda-fused"])
    ap.add_argument("--precision", default="fp64", choices=["fp64", "fp32"])
    ap.add_argument("--solver", choices=["dae", "aba", "cga"], help="robot scenes: overrides solver.type")
    ap.add_argument("--checkpoint-every", type=float,
                    help="[s] between a shard's checkpoints (default: simphant run's, 300)")
    ap.add_argument("--max-retries", type=int, default=3, help="retries of a task whose worker died")
    ap.add_argument("--copy", action="store_true", help="a self-contained merged file (default: virtual datasets "
                    "over the shard files)")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    ap.add_argument("--progress-file", help="append progress records to this file, one JSON object a line, as "
                    "simphant run --progress-file (for programs that follow the sweep)")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    from . import run_sweep
    from ._progress import ProgressFanout, ProgressPrinter, ProgressRecords

    resources = None
    if args.num_cpus is not None or args.num_gpus is not None:
        resources = {k: v for k, v in (("num_cpus", args.num_cpus), ("num_gpus", args.num_gpus)) if v is not None}
    sinks = ([] if args.quiet else [ProgressPrinter()])
    try:
        if args.progress_file:
            sinks.append(ProgressRecords(args.progress_file))
    except OSError as e:
        print(f"simphant-ray: error: --progress-file: {e}", file=sys.stderr)
        return 2
    try:
        r = run_sweep(args.scene, args.instances, shards=args.shards, out=args.out, address=args.address,
                      resources=resources, dt=args.dt, t_end=args.t_end, seed=args.seed, backend=args.backend,
                      precision=args.precision, solver=args.solver, checkpoint_every=args.checkpoint_every,
                      max_retries=args.max_retries, copy=args.copy,
                      progress=ProgressFanout(*sinks) if sinks else None)
    except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
        print(f"simphant-ray: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simphant-ray: interrupted; the shards' checkpoints are kept", file=sys.stderr)
        return 130
    except ImportError as e:
        print(f"simphant-ray: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a shard's run failed or its worker died too often
        print(f"simphant-ray: error: a shard failed: {e}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(dataclasses.asdict(r)))
    else:
        ok = sum(int(s["summary"].get("instances_ok") or 0) for s in r.shard_results)
        print(f"{r.out_file}: {r.merge['instances']} instances ({ok} ok), {r.merge['frames']} frames, "
              f"{len(r.shard_files)} shards, {r.retries} retries, merge {r.merge['seconds']:.3f} s "
              f"({r.merge['mode']}), wall time {r.wall_time_s:.1f} s")
    return r.exit_code


if __name__ == "__main__":
    sys.exit(main())
