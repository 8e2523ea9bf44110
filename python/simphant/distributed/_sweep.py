"""run_sweep: the shards of one job as Ray tasks, then their merge (docs/scaling-out.md)."""
from __future__ import annotations

import dataclasses
import glob
import os
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from .. import _simphant
from ..merge import merge
from ..scene import Scene, SceneSource, load_scene
from ._progress import ProgressBoard, ProgressPrinter, SweepProgress
from ._shard import ShardSpec, run_shard

PathLike = Union[str, "os.PathLike[str]"]
ProgressArg = Union[bool, None, Callable[[SweepProgress], None]]


@dataclasses.dataclass
class SweepResult:
    """What run_sweep returns.

    Attributes:
        out_file: the merged HDF5 file; it reads like the one-shot run's (README "Output
            (HDF5)"; simphant.open_results reads it).
        shard_files: the shard files, by shard index. With copy=False the merged file's
            datasets are views of them: keep them beside it. With copy=True they have
            been removed.
        shard_results: per shard (by index): {"index", "out_file", "summary" (the shard
            run's summary, as simphant.run returns it), "attempt" (1 without a retry),
            "resumed" (the last attempt continued from a checkpoint), "resumed_from_step"
            (its step, else None), "pid", "node"}.
        merge: the merge's summary (simphant.merge: instances, frames, mode, bytes, seconds).
        retries: task starts beyond the first, summed over the shards.
        wall_time_s: [s] from the submission of the tasks to the end of the merge.
        exit_code: 0 when at least one instance of the design ended ok, else 3 (as
            simphant.run).
    """

    out_file: str
    shard_files: List[str]
    shard_results: List[Dict[str, Any]]
    merge: Dict[str, Any]
    retries: int
    wall_time_s: float
    exit_code: int


def _ray():
    try:
        import ray
    except ImportError as e:
        raise ImportError("simphant.distributed needs Ray: pip install 'ray>=2.9'") from e
    return ray


_RESOURCE_KEYS = {"num_cpus", "num_gpus", "memory", "resources", "accelerator_type", "scheduling_strategy"}


def _check_resources(resources: Optional[Mapping[str, Any]]) -> None:
    if resources is None:
        return
    unknown = sorted(set(resources) - _RESOURCE_KEYS)
    if unknown:
        raise ValueError(f"resources: unknown key(s) {unknown}; allowed: {sorted(_RESOURCE_KEYS)}")


def _task_options(ray: Any, resources: Optional[Mapping[str, Any]], n_shards: int) -> Dict[str, Any]:
    """Ray options of a shard task: `resources` when given, else one GPU (and one CPU) where
    the cluster has GPUs, else an equal share of the cluster's CPUs."""
    if resources is not None:
        return dict(resources)
    cluster = ray.cluster_resources()
    if cluster.get("GPU", 0) >= 1:
        return {"num_gpus": 1, "num_cpus": 1}
    return {"num_cpus": max(1, int(cluster.get("CPU", 1) // n_shards))}


def _default_shards(ray: Any) -> int:
    """One shard per GPU of the cluster, else one per alive node."""
    gpus = int(ray.cluster_resources().get("GPU", 0))
    return gpus if gpus >= 1 else max(1, sum(1 for n in ray.nodes() if n.get("Alive")))


def _shard_path(folder: str, stem: str, k: int, n: int) -> str:
    return os.path.join(folder, f"{stem}.shard-{k}-of-{n}.h5")


def _remove_run_files(path: str, partial_only: bool = False) -> None:
    """Removes a shard file's checkpoint and the temporary files of killed attempts
    (job/output_file.hpp, job/checkpoint.hpp names), and the file itself unless partial_only."""
    folder, name = os.path.split(path)
    doomed = glob.glob(os.path.join(folder, glob.escape("." + name) + ".partial-*"))
    if not partial_only:
        checkpoint = _simphant.checkpoint_file_name(path)
        doomed += [path, checkpoint, checkpoint + ".tmp"]
    for p in doomed:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass


def _cpu_backend_of_auto(sc: "Scene", design_size: int, solver: Optional[str]) -> str:
    """The CPU backend that `--backend auto` picks without a CUDA device for a design of
    design_size instances, as the job runner decides it (cpu_backend_of_auto,
    sim/backend_rules.hpp): every shard runs it, so that the merged file equals the
    one-shot run bit for bit."""
    return sc._handle.cpu_backend_of_auto(int(design_size), solver or "")


def run_sweep(scene: SceneSource, instances: Optional[int] = None, shards: Optional[int] = None,
              out: Optional[PathLike] = None, address: Optional[str] = None,
              resources: Optional[Mapping[str, Any]] = None, *, dt: Optional[float] = None,
              t_end: Optional[float] = None, seed: Optional[int] = None, backend: str = "auto",
              precision: str = "fp64", solver: Optional[str] = None, checkpoint_every: Optional[float] = None,
              max_retries: int = 3, copy: bool = False, progress: ProgressArg = True) -> SweepResult:
    """Runs the job of ``simphant run`` as `shards` Ray tasks, each the job runner on one
    slice of the design (``simphant.run(..., shard=(K, N))``), and merges their files into
    `out` (simphant.merge). The merged file equals the one-shot run's (same scene, options
    and seed, same backend and precision) dataset by dataset, bit for bit (wall_time_s
    aside), whether or not tasks failed and were retried (docs/scaling-out.md).

    Arguments (None keeps the scene's own value, as in simphant.run):
        scene: a Scene or anything simphant.load_scene accepts.
        instances: overrides sweep.instances (the design's size I).
        shards: the number of tasks N (1 <= N <= I); default one per GPU of the cluster,
            else one per node.
        out: the merged file; default "<scene file stem>.h5" in the current folder
            (required for a scene given as a dict or a string). The shard files go to the
            folder "<out stem>.shards" beside it: it must be on a file system that every
            worker and the driver see (the same path everywhere).
        address: the Ray cluster to connect to ("auto", "ray://host:10001", ...) when
            Ray is not initialised yet; None starts a local one (or joins $RAY_ADDRESS).
            A cluster started here is shut down at the end.
        resources: Ray options of each task (num_cpus, num_gpus, memory, resources,
            accelerator_type, scheduling_strategy). Default: {"num_gpus": 1, "num_cpus":
            1} where the cluster has GPUs, else {"num_cpus": CPUs // N}. A task
            without a GPU runs backend "auto" as `simphant run --backend auto` chooses
            without a device for the whole design ("cpu-simd" where it runs the scene and
            the design has at least 8 instances, else "cpu"; the job runner's own rule,
            _cpu_backend_of_auto); every task runs num_cpus threads.
        dt, t_end, seed, backend, precision, solver: as simphant.run. Every shard must
            run the same backend and precision (the merge refuses a mix).
        checkpoint_every: [s] of wall time between a shard's checkpoints; None: the job
            runner's default, 300 s. A retried task continues from its shard's last
            checkpoint. A checkpoint copies the shard's file so far, so its cost grows
            with the file (docs/checkpoints.md, docs/scaling-out.md).
        max_retries: Ray's retries of a task whose worker process or node died. An error
            raised by the run itself (bad scene, full disk) is not retried.
        copy: False: the merged file's instance datasets are HDF5 virtual datasets over
            the shard files (no copy; keep the shards beside it). True: a self-contained
            file; the shard files are removed after the merge.
        progress: True prints one line on stderr (rewritten in place on a terminal, else
            every 5 s): done fraction, shards done / running / pending, retries, ETA.
            False or None: silent. A callable is called with a SweepProgress about every
            0.5 s on the driver's thread (an exception it raises cancels the sweep).

    Returns a SweepResult.

    Raises ImportError without Ray, ValueError for a bad scene or option (the message
    names it), the error of a shard's run (a ray.exceptions.RayTaskError that is also an
    instance of the original error class) after cancelling the other shards, or
    ray.exceptions.WorkerCrashedError / NodeDiedError when a task died more than
    max_retries times. The shard files and checkpoints written so far stay for
    inspection. A new run_sweep with the same out starts the shards afresh.
    """
    ray = _ray()
    sc = load_scene(scene)
    if out is None:
        if sc.file is None:
            raise ValueError("out: required for a scene that was not read from a file")
        out = os.path.splitext(os.path.basename(sc.file))[0] + ".h5"
    out = os.path.abspath(os.fspath(out))
    design_size = instances if instances is not None else sc.instances
    if design_size is None or int(design_size) < 1:
        raise ValueError(f"instances: must be > 0 (got {design_size})")
    if checkpoint_every is not None and not checkpoint_every >= 0:
        raise ValueError(f"checkpoint_every: must be >= 0 (got {checkpoint_every})")
    if max_retries < 0:
        raise ValueError(f"max_retries: must be >= 0 (got {max_retries})")

    if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool)
                               or not 1 <= shards <= int(design_size)):
        raise ValueError(f"shards: must be an integer in [1, {design_size}] (the design's instances), got {shards!r}")

    _check_resources(resources)

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, log_to_driver=False)
    try:
        n = min(_default_shards(ray), int(design_size)) if shards is None else shards
        opts = _task_options(ray, resources, n)
        threads = max(1, int(opts.get("num_cpus", 1)))
        task_backend = (_cpu_backend_of_auto(sc, int(design_size), solver) if backend == "auto" and not opts.get("num_gpus")
                        else backend)

        stem = os.path.splitext(os.path.basename(out))[0]
        folder = os.path.join(os.path.dirname(out), stem + ".shards")
        os.makedirs(folder, exist_ok=True)
        specs = [ShardSpec(scene_text=sc.text, scene_file=sc.file or sc.source, index=k, count=n,
                           out=_shard_path(folder, stem, k, n), instances=instances, dt=dt, t_end=t_end, seed=seed,
                           backend=task_backend, precision=precision, threads=threads, solver=solver,
                           checkpoint_every=checkpoint_every) for k in range(n)]
        for s in specs:  # a leftover of an earlier sweep must not be resumed
            _remove_run_files(s.out)

        show = ProgressPrinter() if progress is True else (progress or None)
        board = ray.remote(num_cpus=0)(ProgressBoard).remote([s.out for s in specs])
        task = ray.remote(run_shard).options(max_retries=max_retries, retry_exceptions=False, **opts)
        t0 = time.monotonic()
        pending = [task.remote(s, board) for s in specs]
        results: List[Dict[str, Any]] = []
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1, timeout=0.5)
                results += ray.get(ready)
                if show is not None:
                    show(SweepProgress(ray.get(board.snapshot.remote()), time.monotonic() - t0))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        if show is not None:
            snap = SweepProgress(ray.get(board.snapshot.remote()), time.monotonic() - t0)
            if getattr(show, "takes_final", False):
                show(snap, final=True)
            else:
                show(snap)
        results.sort(key=lambda r: r["index"])
        final = ray.get(board.snapshot.remote())
        for r in results:
            r["attempt"] = final[r["index"]].attempt
        retries = SweepProgress(final).retries
    finally:
        if started_here:
            ray.shutdown()

    shard_files = [r["out_file"] for r in results]
    merged = merge(out, shard_files, copy=copy)
    for s in specs:
        _remove_run_files(s.out, partial_only=not copy)
    if copy:
        try:
            os.rmdir(folder)
        except OSError:
            pass  # something else is in it
    ok = sum(int(r["summary"].get("instances_ok") or 0) for r in results)
    return SweepResult(out_file=out, shard_files=shard_files, shard_results=results, merge=merged, retries=retries,
                       wall_time_s=time.monotonic() - t0, exit_code=0 if ok > 0 else 3)
