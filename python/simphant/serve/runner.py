"""The workers: each takes the oldest queued job and runs it with the `simphant run` CLI
(or, with a Ray address, `python -m simphant.distributed`) in the job's folder, with
checkpoints, reading its progress records (docs/service.md, "Queue").

A job's process runs in its own session (a Ctrl-C of the service does not reach it),
under `setpriv --pdeathsig TERM` where util-linux has it (a service killed with SIGKILL
stops its runs, which store their state in their output for the restarted service to
resume; without setpriv such a run goes on and the restarted service stops it), writes
stdout (the --json summary) to <job>/run.json, stderr to <job>/run.log and progress
records (--progress-file) to <job>/progress.jsonl, which the worker follows. Outcomes:

- exit 0: successful (summary from run.json; `simphant report` into <job>/report/ when
  the config asks for it: the job's stage is "report" while it is written, its progress
  the finished simulation's, its ETA none);
- exit 2 / 3 with an error: failed, with the run's last error line;
- stopped by the cancel of DELETE /jobs/{id} (SIGTERM): dismissed, its output holds the
  frames so far and is resumable (docs/checkpoints.md);
- stopped by the service's own shutdown: left running, resumed at the next start;
- killed by anything else (SIGKILL, out of memory): queued again to resume from its
  checkpoint, failed with the reason after config.max_attempts runs;
- not started because the service is out of file descriptors (EMFILE, ENFILE): queued
  again as it was (the attempt not counted), and the worker waits RESOURCE_RETRY_S
  before it takes the next job.
"""
from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional

from .._cli import executable
from .config import ServeConfig
from .store import DISMISSED, FAILED, REPORT, SIMULATION, SUCCESSFUL, JobStore

log = logging.getLogger("simphant.serve")

#: The file of progress records a job's `simphant run --progress-file` appends to, one
#: JSON object a line (src/simphant/job/progress_log.hpp).
PROGRESS_FILE = "progress.jsonl"
#: A test hook (docs/service.md, "Test hook"): "report:<gate path>" holds each job at the
#: start of its report stage until the gate file exists, so that a test observes that
#: stage whatever the speed of the machine. "{name}" in the path is the job's id; a
#: relative path is relative to the job's folder. At the hold "<gate path>.held" is
#: written (a JSON object: point, job, pid). For tests only.
TEST_HOLD_ENV = "SIMPHANT_SERVE_TEST_HOLD"
#: The longest a job's report may take [s]; then it is stopped and the job ends without it.
REPORT_TIMEOUT_S = 600
#: Seconds a worker waits after a job could not start for want of file descriptors.
RESOURCE_RETRY_S = 1.0
#: The errors of a process start that pass: out of file descriptors (process, system).
_SHORTAGE = (errno.EMFILE, errno.ENFILE)


class ResourceShortage(Exception):
    """A job's process could not be started for want of a passing resource (the OSError
    as __cause__); nothing of the job ran."""


#: The prefix that has a job's process receive SIGTERM when the service dies.
_PDEATHSIG = ["setpriv", "--pdeathsig", "TERM"] if shutil.which("setpriv") else []


def find_cli(config: ServeConfig) -> str:
    """The simphant executable: config.simphant, $SIMPHANT_EXECUTABLE (set by `simphant serve`),
    the one the package comes with (an installed wheel's simphant/bin/simphant, or a build
    tree's build/simphant beside build/python/simphant), or PATH."""
    if config.simphant:
        return config.simphant
    env = os.environ.get("SIMPHANT_EXECUTABLE")
    if env:
        return env
    bundled = executable()
    if bundled:
        return bundled
    found = shutil.which("simphant")
    if not found:
        raise ValueError("simphant: the simphant executable was not found (set \"simphant\" in the config, "
                         "or $SIMPHANT_EXECUTABLE, or put it on PATH)")
    return found


def list_gpus() -> List[str]:
    """The indices of the GPUs `nvidia-smi -L` lists ([] without nvidia-smi or GPUs)."""
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    if out.returncode != 0:
        return []
    return [ln.split(":")[0].split()[1] for ln in out.stdout.splitlines() if ln.startswith("GPU ")]


def worker_devices(config: ServeConfig) -> List[Optional[str]]:
    """One entry per worker: the GPU index its jobs see (CUDA_VISIBLE_DEVICES), or None.

    config.workers > 0: that many workers, spread over the GPUs when there are some (or
    all seeing every device without); 0: one per GPU, else half the CPU cores (at least 1).
    """
    gpus = [] if config.ray_address else list_gpus()
    n = config.workers or len(gpus) or max(1, (os.cpu_count() or 2) // 2)
    return [gpus[k % len(gpus)] if gpus else None for k in range(n)]


def option_flags(options: Dict[str, Any]) -> List[str]:
    """The `simphant run` flags of a job's options (api.JobOptions, already checked)."""
    flags: List[str] = []
    for key, flag in (("instances", "--instances"), ("dt", "--dt"), ("t_end", "--t-end"), ("seed", "--seed"),
                      ("backend", "--backend"), ("precision", "--precision"), ("solver", "--solver"),
                      ("projection", "--projection"), ("integrator", "--integrator"), ("rtol", "--rtol"),
                      ("atol", "--atol"), ("frames", "--frames"), ("compression", "--compression")):
        v = options.get(key)
        if v is not None:
            flags += [flag, repr(v) if isinstance(v, float) else str(v)]
    for key, flag in (("datasets", "--datasets"), ("reductions", "--reductions")):
        v = options.get(key)
        if v is not None:
            flags += [flag, v if isinstance(v, str) else ",".join(v)]
    if options.get("error_estimate"):
        flags.append("--error-estimate")
    return flags


def last_error(log_path: str) -> str:
    """The last `error:` line of a run's stderr (or its last line)."""
    try:
        with open(log_path, "rb") as f:
            f.seek(max(0, os.path.getsize(log_path) - 65536))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    errors = [ln for ln in lines if ln.startswith("error:")]
    return (errors or lines or [""])[-1][:2000]


class WorkerPool:
    """config.workers threads running queued jobs; `notify()` wakes them, `cancel(id)`
    stops a job, `stop()` stops the pool leaving its running jobs to be resumed."""

    def __init__(self, config: ServeConfig, store: JobStore) -> None:
        self.config = config
        self.store = store
        self.cli = find_cli(config)
        self.devices = worker_devices(config)
        self.size = len(self.devices)
        self._wake = threading.Condition()
        self._stopping = threading.Event()
        self._procs: Dict[str, subprocess.Popen] = {}
        self._cancelled: set = set()
        self._lock = threading.Lock()
        self._threads: List[threading.Thread] = []

    # -- life cycle --------------------------------------------------------------------
    def start(self) -> None:
        if os.environ.get(TEST_HOLD_ENV):
            log.warning("%s is set: every job waits at the start of its report stage for its gate file (a test "
                        "hook)", TEST_HOLD_ENV)
        self.recover()
        for k in range(self.size):
            t = threading.Thread(target=self._loop, args=(self.devices[k],), name=f"simphant-worker-{k}", daemon=True)
            t.start()
            self._threads.append(t)

    def recover(self) -> None:
        """Jobs left running by a previous service: their process (if it outlived the
        service) is stopped with SIGTERM, so that it stores its state in its output, then
        they are queued again to resume from it."""
        for job in self.store.running():
            pid = job.get("pid")
            if pid and _is_run_of(pid, self.job_dir(job["id"])):
                _stop_process(pid)
            self.store.requeue(job["id"], resume=True, message="service restarted; resuming from the checkpoint")

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()
        with self._lock:
            procs = list(self._procs.values())
        for p in procs:
            _signal(p, signal.SIGTERM)
        self.notify()
        end = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, end - time.monotonic()))

    def notify(self) -> None:
        with self._wake:
            self._wake.notify_all()

    def cancel(self, job_id: str) -> None:
        """SIGTERM to the job's process: it stops at its next slice keeping its state."""
        with self._lock:
            self._cancelled.add(job_id)
            p = self._procs.get(job_id)
        if p is not None:
            _signal(p, signal.SIGTERM)

    def job_dir(self, job_id: str) -> str:
        return os.path.join(self.config.jobs_dir, job_id)

    # -- the work ------------------------------------------------------------------------
    def _loop(self, device: Optional[str]) -> None:
        while not self._stopping.is_set():
            try:
                job = self.store.claim_next()
            except Exception:  # noqa: BLE001 - a database error must not end the worker
                log.exception("claiming a job")
                job = None
            if job is None:
                with self._wake:
                    self._wake.wait(1.0)
                continue
            try:
                self._run(job, device)
            except ResourceShortage as e:
                log.warning("job %s not started (%s); queued again", job["id"], e.__cause__)
                self.store.unclaim(job, f"queued again: the service is out of file descriptors ({e.__cause__})")
                self._stopping.wait(RESOURCE_RETRY_S)
            except Exception as e:  # noqa: BLE001 - the job fails with the reason, the worker goes on
                log.exception("job %s", job["id"])
                self.store.update(job["id"], state=FAILED, pid=None, message=f"internal error: {e}")
            finally:
                with self._lock:
                    self._procs.pop(job["id"], None)
                    self._cancelled.discard(job["id"])

    def _command(self, job: Dict[str, Any], resume: bool) -> List[str]:
        return _PDEATHSIG + self._run_command(job, resume)

    def _run_command(self, job: Dict[str, Any], resume: bool) -> List[str]:
        o = job["options"]
        if self.config.ray_address:
            cmd = [sys.executable, "-m", "simphant.distributed", "scene.json", "--out", "out.h5", "--address",
                   self.config.ray_address, "--json", "--quiet", "--copy", "--progress-file", PROGRESS_FILE,
                   "--checkpoint-every", str(self.config.checkpoint_every)]
            for key, flag in (("instances", "--instances"), ("dt", "--dt"), ("t_end", "--t-end"), ("seed", "--seed"),
                              ("backend", "--backend"), ("precision", "--precision"), ("solver", "--solver")):
                if o.get(key) is not None:
                    cmd += [flag, repr(o[key]) if isinstance(o[key], float) else str(o[key])]
            return cmd
        common = ["--json", "--progress-interval", "0.25", "--progress-file", PROGRESS_FILE,
                  "--checkpoint-every", str(self.config.checkpoint_every), "--threads", str(self.config.threads)]
        if resume:
            return [self.cli, "run", "--resume", "out.h5", *common]
        return [self.cli, "run", "scene.json", "--out", "out.h5", *common, *option_flags(o)]

    def _run(self, job: Dict[str, Any], device: Optional[str] = None) -> None:
        jid, folder = job["id"], self.job_dir(job["id"])
        earlier = _read_json(os.path.join(folder, "run.json")) if job["resume"] else None
        if job.get("exit_code") == 0 and earlier is not None and earlier.get("interrupted") is False:
            # The run had completed (exit 0, its summary says so) when the service stopped,
            # in the report stage: only the report is left.
            self._finish(job, 0)
            return
        resume = bool(job["resume"]) and not self.config.ray_address and any(
            os.path.exists(os.path.join(folder, name)) for name in ("out.h5", ".out.h5.checkpoint.h5"))
        rc = self._spawn(job, self._command(job, resume), device)
        if rc is None:
            return
        if resume and rc == 2 and not self._was_cancelled(jid):
            # Nothing to resume (killed before the first checkpoint, or after the file
            # completed): the run is deterministic, so it runs again from the start.
            rc = self._spawn(job, self._command(job, False), device)
            if rc is None:
                return
        self._finish(job, rc)

    def _was_cancelled(self, job_id: str) -> bool:
        with self._lock:
            return job_id in self._cancelled

    def _spawn(self, job: Dict[str, Any], cmd: List[str], device: Optional[str] = None) -> Optional[int]:
        """Runs cmd in the job's folder (seeing only GPU `device` when given), following its
        progress; its exit code, or None when the service is stopping (the job stays
        running, to be resumed)."""
        jid, folder = job["id"], self.job_dir(job["id"])
        progress_path = os.path.join(folder, PROGRESS_FILE)
        try:  # a resumed job's file holds the earlier sessions' records: read the new ones
            progress_from = os.path.getsize(progress_path)
        except OSError:
            progress_from = 0
        log_path = os.path.join(folder, "run.log")
        env = dict(os.environ)
        env.setdefault("MPLBACKEND", "Agg")
        if device is not None:
            env["CUDA_VISIBLE_DEVICES"] = device
        files = contextlib.ExitStack()
        try:
            out = files.enter_context(open(os.path.join(folder, "run.json"), "wb"))
            err = files.enter_context(open(log_path, "ab"))
            with self._lock:
                if self._stopping.is_set() or jid in self._cancelled:
                    p = None
                else:
                    p = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                         start_new_session=True)
                    self._procs[jid] = p
        except OSError as e:
            files.close()
            if e.errno in _SHORTAGE:
                raise ResourceShortage(e.strerror) from e
            raise
        with files:
            if p is None:
                return None if self._stopping.is_set() else -int(signal.SIGTERM)
            self.store.update(jid, pid=p.pid, stage=SIMULATION)
            self._follow(jid, p, progress_path, progress_from)
        rc = p.returncode
        if self._stopping.is_set() and not self._was_cancelled(jid) and (rc < 0 or rc >= 128):
            # stopped by the service's signal (a run that ended by itself meanwhile is finished)
            self.store.update(jid, pid=None, exit_code=rc, message="service stopped; the job resumes when it "
                              "starts again")
            return None
        return rc

    def _follow(self, jid: str, p: subprocess.Popen, progress_path: str, offset: int) -> None:
        """Waits for p, turning its progress records (PROGRESS_FILE, from `offset`) into the
        job's progress, steps and ETA."""
        buf = b""
        last = (-1, -1)
        while True:
            done = p.poll() is not None
            try:
                with open(progress_path, "rb") as f:
                    f.seek(offset)
                    chunk = f.read()
            except FileNotFoundError:  # before the run's step loop
                chunk = b""
            offset += len(chunk)
            buf += chunk
            lines = buf.split(b"\n")
            buf = lines.pop()  # a record not yet complete
            for ln in reversed(lines):
                try:
                    r = json.loads(ln)
                    steps, total, eta = int(r["steps_done"]), int(r["steps_total"]), float(r["eta_s"])
                    fraction = float(r["progress"])
                except (ValueError, KeyError, TypeError):
                    continue
                if (steps, total) != last:
                    last = (steps, total)
                    self.store.update(jid, steps_done=steps, steps_total=total, eta_s=eta,
                                      progress=min(1.0, max(0.0, fraction)))
                break
            if done:
                return
            try:
                p.wait(0.2)  # returns at the exit, else after 0.2 s for the next record
            except subprocess.TimeoutExpired:
                pass

    def _finish(self, job: Dict[str, Any], rc: int) -> None:
        jid, folder = job["id"], self.job_dir(job["id"])
        summary = _read_json(os.path.join(folder, "run.json"))
        if summary is not None:
            with open(os.path.join(folder, "summary.json"), "w") as f:
                json.dump(summary, f, indent=1)
        if self._was_cancelled(jid):
            self.store.update(jid, state=DISMISSED, pid=None, exit_code=rc, summary=summary,
                              message="dismissed while running: the output holds the frames computed so far "
                                      "and is resumable (simphant run --resume out.h5)")
            return
        if rc == 0:
            message = ""
            steps = (summary or {}).get("steps")
            done = {"steps_done": steps, "steps_total": steps} if isinstance(steps, int) else {}
            if self.config.report and not self.config.ray_address:
                # the simulation is done: its progress is complete, the report's length unknown
                self.store.update(jid, stage=REPORT, progress=1.0, eta_s=None, pid=None, exit_code=0,
                                  message="simulation done; writing the report (simphant report)", **done)
                self._hold_at_report(jid, folder)
                report = self._report(jid, folder)
                if report is None:  # the service stops: the report is written when it starts again
                    self.store.update(jid, pid=None, message="service stopped; the report is written when it "
                                      "starts again")
                    return
                message = report
            if self._was_cancelled(jid):
                self.store.update(jid, state=DISMISSED, pid=None, exit_code=0, summary=summary,
                                  message="dismissed while its report was written: the simulation's output "
                                          "(out.h5) is complete, the report is not")
                return
            self.store.update(jid, state=SUCCESSFUL, pid=None, exit_code=0, summary=summary, progress=1.0, eta_s=0.0,
                              message=message, **done)
            return
        if rc < 0 or rc > 128:
            sig = -rc if rc < 0 else rc - 128
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if job["attempts"] < self.config.max_attempts:
                self.store.requeue(jid, resume=True, message=f"simphant run was killed by {name}; resuming from "
                                   f"the checkpoint (attempt {job['attempts'] + 1} of {self.config.max_attempts})")
                self.notify()
            else:
                self.store.update(jid, state=FAILED, pid=None, exit_code=rc, summary=summary,
                                  message=f"simphant run was killed by {name} in each of {job['attempts']} attempts")
            return
        reason = _relative(last_error(os.path.join(folder, "run.log")), folder)
        if rc == 3 and summary is not None and not reason:
            reason = "no instance ended ok"
        self.store.update(jid, state=FAILED, pid=None, exit_code=rc, summary=summary,
                          message=reason or f"simphant run exited with {rc}")

    def _hold_at_report(self, jid: str, folder: str) -> None:
        """The test hook TEST_HOLD_ENV: waits at the report stage until the gate exists
        (or the job is cancelled, or the service stops)."""
        spec = os.environ.get(TEST_HOLD_ENV, "")
        if not spec.startswith("report:"):
            return
        gate = os.path.join(folder, spec[len("report:"):].replace("{name}", jid))
        held = {"point": "report", "job": jid, "pid": os.getpid()}
        with open(gate + ".held.tmp", "w") as f:
            json.dump(held, f)
        os.replace(gate + ".held.tmp", gate + ".held")
        while not os.path.exists(gate) and not self._stopping.is_set() and not self._was_cancelled(jid):
            self._stopping.wait(0.01)

    def _report(self, jid: str, folder: str) -> Optional[str]:
        """`simphant report out.h5 -o report` (docs/report.md), with this interpreter (the
        CLI runs the report's module with $SIMPHANT_PYTHON); '' or the reason it failed.
        The process is the job's while it runs (cancel and stop signal it); None when the
        service stops meanwhile."""
        env = dict(os.environ)
        env.setdefault("SIMPHANT_PYTHON", sys.executable)
        env.setdefault("MPLBACKEND", "Agg")
        with self._lock:
            if self._stopping.is_set() and jid not in self._cancelled:
                return None
            if jid in self._cancelled:
                return "report not written: the job was dismissed"
            try:
                p = subprocess.Popen(_PDEATHSIG + [self.cli, "report", "out.h5", "-o", "report"], cwd=folder,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=env, start_new_session=True)
            except OSError as e:
                return f"report not written: {e}"
            self._procs[jid] = p
        self.store.update(jid, pid=p.pid)  # recover() stops it should it outlive the service
        try:
            _, err = p.communicate(timeout=REPORT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            try:  # its session: the CLI and the report's interpreter it started
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.communicate()
            return f"report not written: it took longer than {REPORT_TIMEOUT_S} s"
        finally:
            with self._lock:
                self._procs.pop(jid, None)
        if self._stopping.is_set() and not self._was_cancelled(jid):
            return None
        return "" if p.returncode == 0 else "report not written: " + _relative(
            (err.strip().splitlines() or ["?"])[-1], folder)


def _relative(msg: str, folder: str) -> str:
    """msg with the job's folder left out (the client sees out.h5, not the server's path)."""
    for root in {os.path.abspath(folder), os.path.realpath(folder)}:
        msg = msg.replace(root + os.sep, "").replace(root, ".")
    return msg


def _read_json(path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read() or b"null")
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _signal(p: subprocess.Popen, sig: int) -> None:
    try:
        p.send_signal(sig)
    except ProcessLookupError:
        pass


def _is_run_of(pid: int, folder: str) -> bool:
    """Whether process pid is alive and runs in `folder` (a job's process that outlived its service)."""
    try:
        return os.path.realpath(f"/proc/{pid}/cwd") == os.path.realpath(folder)
    except OSError:
        return False


def _stop_process(pid: int, timeout: float = 60.0) -> None:
    """SIGTERM, then SIGKILL after timeout; returns when the process is gone."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not os.path.exists(f"/proc/{pid}") or _zombie(pid):
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True
