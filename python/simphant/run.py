"""simphant.run: the main job of `simphant run` as a function call."""
from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from . import _simphant
from .scene import SceneSource, load_scene

#: progress(steps_done, steps_total, sim_time [s], n_instances), called about every 50 ms.
ProgressCallback = Callable[[int, int, float, int], None]


@dataclasses.dataclass
class RunResult:
    """What simphant.run returns.

    Attributes:
        out_file: the HDF5 file written (README "Output (HDF5)"; read it with
            simphant.open_results).
        summary: every figure of the run, as ``simphant run --json`` prints it:
            instances, instances_ok, instances_assembly_failed, instances_diverged,
            steps, frames, sim_time_s, throughput_instance_steps_per_s, wall_time_s,
            max_constraint_violation, energy_drift_rel, energy_drift_abs_J, interrupted,
            backend, seed, ... (None where a figure does not exist).
        exit_code: the CLI's exit code: 0 ok (at least one instance ended ok), 3 no
            instance ended ok.
    """

    out_file: str
    summary: Dict[str, Any]
    exit_code: int


def run(scene: Optional[SceneSource], out: Union[str, "os.PathLike[str]", None] = None,
        instances: Optional[int] = None, dt: Optional[float] = None, t_end: Optional[float] = None,
        seed: Optional[int] = None, backend: str = "auto", precision: str = "fp64", threads: int = 0,
        solver: Optional[str] = None, progress: Optional[ProgressCallback] = None,
        shard: Optional[Tuple[int, int]] = None, checkpoint_every: Optional[float] = None,
        resume: Union[str, "os.PathLike[str]", None] = None, datasets: Optional[Sequence[str]] = None,
        frames: Optional[str] = None, reductions: Union[str, Sequence[str], None] = None,
        compression: Optional[int] = None, projection: Optional[str] = None,
        integrator: Optional[str] = None, rtol: Optional[float] = None, atol: Optional[float] = None,
        error_estimate: bool = False, sensitivities: Optional[Sequence[str]] = None) -> RunResult:
    """Runs the job of ``simphant run``: samples the sweep, assembles and integrates every
    instance, records the HDF5 file and returns its summary.

    The same scene, options and seed give the same file as the CLI, bit for bit (apart
    from the wall-time attributes).

    Arguments (None keeps the scene's own value):
        scene: a Scene or anything simphant.load_scene accepts; None with `resume`.
        out: the output file; default "<scene file stem>.h5" in the current folder
            (required for a scene given as a dict or a string). An existing file is
            overwritten.
        instances: overrides sweep.instances.
        dt, t_end: override solver.dt and solver.t_end [s].
        seed: overrides sweep.seed.
        backend: "auto", "cpu", "cpu-simd", "cuda" or "cuda-fused"; precision: "fp64" or "fp32".
        threads: CPU worker threads, 0 = every CPU this process may use (its affinity mask,
            capped by a cgroup CPU quota).
        solver: robot scenes only, "dae", "aba" or "cga" (docs/robots.md).
        progress: called as progress(steps_done, steps_total, sim_time, n_instances) about
            every 50 ms; None: the library logs a progress line every 5 s (level info,
            see simphant.set_log_level). An exception it raises stops the run and is
            re-raised.
        shard: (K, N), 0 <= K < N: run shard K of N, as ``simphant run --shard K/N``: the
            whole design is sampled and the instances [K*I/N, (K+1)*I/N) of its I are run,
            bit-identical to the same instances of the one-shot run; the file records the
            slice (root attributes shard_index, shard_count, instance_offset,
            n_instances_total) for simphant.merge. None: the whole design.
        checkpoint_every: [s] of wall time between checkpoints, as ``--checkpoint-every``:
            the batch state and the frames so far are copied to ".<out name>.checkpoint.h5"
            beside the output (docs/checkpoints.md), from which `resume` continues after
            the process was killed; 0: none; None: the default, 300 s.
        resume: the output of an interrupted run to continue, as ``simphant run --resume``:
            from the checkpoint beside it, else from the file itself when a stop request
            (Ctrl-C, SIGTERM) stored its state there. The scene and the options are the
            run's; scene may be None, and an option given must have the run's value.
            The finished file equals an uninterrupted run's, bit for bit.
        datasets, frames, reductions, compression: override the scene's "output" section
            (docs/scene-format.md, "Output"), as ``--datasets``, ``--frames``,
            ``--reductions``, ``--compression``: the per-frame datasets to write (names),
            "every" | "first_last" | "none", the quantities reduced over time ("all",
            "none" or names), the deflate level 0..9.
        projection: "none", "velocity", "position_velocity" or "auto", as ``--projection``
            (overrides solver.projection; docs/solver.md).
        integrator: "rk4", "euler", "symplectic_euler", "dopri5" or "bdf", as
            ``--integrator`` (overrides solver.integrator; docs/solver.md, "Integrators").
        rtol, atol: the adaptive integrators' relative (> 0) and absolute (>= 0) error
            tolerances, as ``--rtol`` / ``--atol`` (override solver.rtol / solver.atol).
        error_estimate: True runs a fixed-step batch again at dt/2 and stores the
            estimated global error of the positions at the end, as ``--error-estimate``
            (sets solver.error_estimate; False keeps the scene's).
        sensitivities: scene values (sweep paths) whose forward sensitivities the run
            computes and writes as /state_sensitivities (T, I, B, 13, S),
            /reaction_sensitivities (T, I, J, 6, S), /joint_load_sensitivities,
            /bearing_load_sensitivities, /driver_load_sensitivities and
            /energy_sensitivities and for robot scenes /joint_state_sensitivities/{q,qd,tau}
            (each its frame's shape with S last), with reductions their derivatives
            /reduction_sensitivities/<quantity>/{max,min,mean,rms} (I, ..., S), as
            ``--sensitivities`` (replaces the scene's "sensitivities" section;
            docs/sensitivities.md). A run with sensitivities writes no checkpoints.

    The GIL is released while the job runs. Ctrl-C (KeyboardInterrupt) stops the run
    cleanly: the state reached is recorded, the file is closed with the attribute
    interrupted = 1, then KeyboardInterrupt is raised.

    Raises ValueError for a bad scene or option (the message names the JSON path or the
    option), simphant.BackendError when the backend cannot run here, OSError /
    RuntimeError when the output cannot be written or the batch does not fit in memory.
    """
    sc = None if scene is None else load_scene(scene)
    if sc is None and resume is None:
        raise ValueError("scene: required unless resume is given")
    if out is None and sc is not None and sc.file is None and resume is None:
        raise ValueError("out: required for a scene that was not read from a file")
    a = _simphant._RunArgs()
    a.instances = instances
    a.dt = None if dt is None else float(dt)
    a.t_end = None if t_end is None else float(t_end)
    a.seed = seed
    a.threads = int(threads)
    a.backend = backend
    a.precision = precision
    a.solver = solver or ""
    a.out = "" if out is None else os.fspath(out)
    if shard is not None:
        a.shard_index, a.shard_count = _shard_pair(shard)
    a.checkpoint_every = None if checkpoint_every is None else float(checkpoint_every)
    a.resume = "" if resume is None else os.fspath(resume)
    a.datasets = "" if datasets is None else _names(datasets, "datasets")
    a.frames = frames or ""
    a.reductions = "" if reductions is None else (reductions if isinstance(reductions, str)
                                                  else _names(reductions, "reductions"))
    a.compression = None if compression is None else int(compression)
    a.projection = projection or ""
    a.integrator = integrator or ""
    a.rtol = None if rtol is None else float(rtol)
    a.atol = None if atol is None else float(atol)
    a.error_estimate = bool(error_estimate)
    a.sensitivities = "" if sensitivities is None else _names(sensitivities, "sensitivities")
    handle, name = (None, "") if sc is None else (sc._handle, sc.file or sc.source)
    exit_code, out_file, summary = _simphant.run_job(handle, name, a, progress)
    return RunResult(out_file=out_file, summary=json.loads(summary), exit_code=exit_code)


def _names(names: Sequence[str], what: str) -> str:
    """A list of names as the comma-separated text of the CLI flag (ValueError naming `what`)."""
    if isinstance(names, str) or not all(isinstance(n, str) and n and "," not in n for n in names) or not names:
        raise ValueError(f"{what}: expected a non-empty list of names, got {names!r}")
    return ",".join(names)


def _shard_pair(shard: Tuple[int, int]) -> Tuple[int, int]:
    """(K, N) checked: two integers with 0 <= K < N (ValueError naming `shard` otherwise)."""
    try:
        k, n = shard
    except (TypeError, ValueError):
        raise ValueError(f"shard: expected a pair (K, N), got {shard!r}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (k, n)) or not 0 <= k < n:
        raise ValueError(f"shard: expected integers 0 <= K < N, got {shard!r}")
    return k, n
