"""One shard of a sweep as a Ray task: the job runner's run (simphant.run with shard=(K, N)),
continued from the shard's checkpoint when an earlier attempt of the task died."""
from __future__ import annotations

import dataclasses
import os
import time
from typing import Any, Dict, Optional

from .. import _simphant
from ..run import run
from ..scene import Scene


@dataclasses.dataclass(frozen=True)
class ShardSpec:
    """What a shard task runs: the scene, shard K of N, the options of simphant.run, and
    the shard's output file (an absolute path that the workers and the driver share)."""

    scene_text: str
    scene_file: str            # the scene's file (names it in the output; resolves a relative robot.urdf)
    index: int
    count: int
    out: str
    instances: Optional[int] = None
    dt: Optional[float] = None
    t_end: Optional[float] = None
    seed: Optional[int] = None
    backend: str = "auto"
    precision: str = "fp64"
    threads: int = 1
    solver: Optional[str] = None
    checkpoint_every: Optional[float] = None  # None: the job runner's default
    report_every_s: float = 0.5


def run_shard(spec: ShardSpec, board: Any) -> Dict[str, Any]:
    """Runs shard spec.index of spec.count into spec.out and returns {"index", "out_file",
    "summary", "resumed", "resumed_from_step", "pid", "node"}. An attempt after a failure (the board counts
    the attempts) continues from the shard's checkpoint when there is one
    (simphant.run(resume=...)), else starts over; either way the shard's file is the
    same, bit for bit. Reports progress to `board` (a ProgressBoard actor) about every
    spec.report_every_s seconds. Raises the run's error (bad scene, output) after telling
    the board; a stopped run (SIGINT, SIGTERM) raises RuntimeError naming its stop_reason (a
    shard that ended because none of its instances was left ok is complete)."""
    import ray

    node = ray.util.get_node_ip_address()
    resumed = bool(_simphant.resumable(spec.out))
    # Not waited for (nor anything else here): a task blocked in ray.get lends its CPUs
    # to another task, which would then share them with this one.
    board.start.remote(spec.index, os.getpid(), node, resumed)
    last = [-float("inf")]

    def progress(done: int, total: int, sim_time: float, n_instances: int) -> None:
        now = time.monotonic()
        if now - last[0] >= spec.report_every_s or done == total:
            last[0] = now
            board.report.remote(spec.index, done, total)

    try:
        # A resumed run is given the same scene and options: it checks them against the
        # checkpoint's.
        scene = Scene(_simphant._Scene.from_text(spec.scene_text, spec.scene_file))
        r = run(scene, out=spec.out, instances=spec.instances, dt=spec.dt, t_end=spec.t_end, seed=spec.seed,
                backend=spec.backend, precision=spec.precision, threads=spec.threads, solver=spec.solver,
                shard=(spec.index, spec.count), checkpoint_every=spec.checkpoint_every, progress=progress,
                resume=spec.out if resumed else None)
        # A shard whose instances all failed ended there: its file is complete (merge
        # reads its later frames as NaN), not a run to continue.
        if r.summary.get("interrupted") and r.summary.get("stop_reason") != "no instance alive":
            raise RuntimeError(f"shard {spec.index}/{spec.count}: the run stopped early "
                               f"({r.summary.get('stop_reason', 'stop requested')}); its file {r.out_file} "
                               "can be continued with simphant run --resume")
    except BaseException:
        board.finish.remote(spec.index, False)
        raise
    board.finish.remote(spec.index, True)
    return {"index": spec.index, "out_file": r.out_file, "summary": r.summary, "resumed": resumed,
            "resumed_from_step": r.summary.get("resumed_from_step"), "pid": os.getpid(), "node": node}
