"""examples/slurm on a real one-node Slurm cluster (scripts/slurm_cluster.sh: slurmctld,
slurmd and munge on this machine, started once for this file). submit.sh, sweep.sbatch
and merge.sbatch run through the real sbatch; the merged file must equal the one-shot
`simphant run`, bit for bit, also after a task was killed (SIGKILL), requeued while
running (`scontrol requeue`: Slurm's SIGTERM) or stopped before its time limit (Slurm's
SIGUSR1, then the task requeues itself), each continuing its shard from what was left.

The cluster needs root (SlurmUser=root) and Debian's slurm packages, which the script
installs when they are missing. Every wait polls Slurm (`scontrol show job`, `squeue`,
the job-completion log of the cluster) or the files a job writes, with a deadline; a run
is caught at a known step by the job runner's test hook (SIMPHANT_TEST_HOLD)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import h5py
import pytest

from conftest import ROOT, run_cli
from h5_compare import assert_same_file

SCRIPT = ROOT / "scripts" / "slurm_cluster.sh"
SLURM = ROOT / "examples" / "slurm"
HOLD = 1000  # the step at which a test holds a run (SIMPHANT_TEST_HOLD, docs/reliability.md "Test hooks")
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
            "PREEMPTED"}


def _unavailable(why: str):
    if os.environ.get("CI"):
        raise RuntimeError(f"{why}; CI must run the Slurm tests (scripts/slurm_cluster.sh installs Slurm as root)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The cluster's state folder and the environment of its commands (SLURM_CONF)."""
    if os.geteuid() != 0:
        _unavailable("the test Slurm cluster runs as root (scripts/slurm_cluster.sh)")
    state = tmp_path_factory.mktemp("slurm")
    proc = subprocess.run(["bash", str(SCRIPT), "start", str(state)], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        _unavailable(f"scripts/slurm_cluster.sh start failed ({proc.returncode}): {proc.stderr[-3000:]}")
    env = dict(os.environ)
    for line in proc.stdout.splitlines():
        m = re.fullmatch(r"export (\w+)=(.*)", line.strip())
        if m:
            env[m.group(1)] = m.group(2)
    assert "SLURM_CONF" in env, proc.stdout
    yield state, env
    subprocess.run(["bash", str(SCRIPT), "stop", str(state)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def slurm(cluster, cli):
    state, env = cluster
    # a checkpoint after every slice of steps, so also at a held step
    return Slurm(state, dict(env, SIMPHANT=cli, SIMPHANT_CHECKPOINT_EVERY="1e-9"))


class Slurm:
    """Submits and watches the jobs of the test cluster."""

    def __init__(self, state, env):
        self.state, self.env = state, env

    def run(self, *args, cwd, env=None, timeout=60):
        return subprocess.run(list(args), env=env or self.env, capture_output=True, text=True, cwd=cwd,
                              timeout=timeout)

    def submit(self, scene, out, n, *args, cwd, sbatch_args=""):
        proc = self.run("bash", str(SLURM / "submit.sh"), str(scene), str(out), str(n), *args, cwd=cwd,
                        env=dict(self.env, SIMPHANT_SBATCH_ARGS=sbatch_args))
        assert proc.returncode == 0, proc.stderr
        m = re.fullmatch(rf"array job (\d+) \(shards 0-{n - 1}\), merge job (\d+)", proc.stdout.strip())
        assert m, proc.stdout
        return m.group(1), m.group(2)

    def job(self, job_id) -> dict:
        """`scontrol show job` of one job or array task ("A_K"), as a dict; {} once Slurm
        has forgotten it."""
        proc = self.run("scontrol", "show", "job", "-o", job_id, cwd=self.state)
        if proc.returncode != 0:
            return {}
        return dict(re.findall(r"(\w+)=(\S*)", proc.stdout.splitlines()[0]))

    def queued(self, job_id) -> bool:
        """Pending, running or completing (squeue's default states)."""
        proc = self.run("squeue", "-h", "-o", "%i", "-j", job_id, cwd=self.state)
        return proc.returncode == 0 and proc.stdout.strip() != ""

    def ends(self, job_id, task=None) -> list:
        """The states in which each start of the job (or array task) ended, from the
        cluster's job-completion log (a requeue is logged as an end in state PENDING)."""
        try:
            lines = (self.state / "jobcomp.log").read_text().splitlines()
        except FileNotFoundError:
            return []
        ends = []
        for line in lines:
            rec = dict(re.findall(r"(\w+)=(\S*)", line))
            if (rec.get("ArrayJobId") == job_id and rec.get("ArrayTaskId") == str(task)) if task is not None \
                    else rec.get("JobId") == job_id:
                ends.append(rec["JobState"])
        return ends

    def wait(self, what, ok, timeout=240, logs=()):
        """Polls ok() until it returns a true value (which is returned), or fails after
        `timeout` seconds naming `what`, with the queue and the logs."""
        deadline = time.monotonic() + timeout
        while True:
            value = ok()
            if value:
                return value
            if time.monotonic() > deadline:
                queue = self.run("squeue", "-a", cwd=self.state).stdout
                tails = "\n".join(f"--- {p}:\n{p.read_text()[-2000:] if p.exists() else '(none)'}" for p in logs)
                ctld = (self.state / "slurmctld.log").read_text()[-2000:]
                pytest.fail(f"{what}: not within {timeout} s\n{queue}\n{tails}\n--- slurmctld.log:\n{ctld}")
            time.sleep(0.1)

    def wait_ended(self, job_id, task=None, timeout=240, logs=()):
        """Waits until the job (or array task) has left the queue; returns its ends."""
        name = f"{job_id}_{task}" if task is not None else job_id

        def ended():
            ends = self.ends(job_id, task)
            return ends if not self.queued(name) and ends and ends[-1] in TERMINAL else None

        return self.wait(f"job {name} to end", ended, timeout, logs)


def one_shot(cli, scene, folder, *args):
    threads = [] if "--threads" in args else ["--threads", "1"]
    proc = run_cli(cli, "run", str(scene), *threads, *args, "--out", str(folder / "one.h5"), cwd=folder)
    assert proc.returncode in (0, 3), proc.stderr
    return folder / "one.h5"


def shard_summary(folder, k, n=3):
    return json.loads((folder / "study.shards" / f"study.shard-{k}-of-{n}.h5.summary.json").read_text())


def test_submit_runs_the_array_then_the_merge(slurm, examples, cli, tmp_path):
    args = ["--instances", "7", "--t-end", "0.5", "--seed", "3", "--backend", "cpu", "--threads", "1"]
    array, merge = slurm.submit(examples / "four_bar.json", tmp_path / "study.h5", 3, *args, cwd=tmp_path)
    assert int(merge) > int(array)
    assert slurm.job(merge)["Dependency"] in (f"afterany:{array}_*(unfulfilled)", "(null)")
    assert slurm.wait_ended(merge, logs=[tmp_path / f"simphant-merge-{merge}.log"]) == ["COMPLETED"]
    for k in range(3):
        assert slurm.ends(array, k) == ["COMPLETED"]
    log = (tmp_path / f"simphant-shard-{array}_1.log").read_text()
    assert f"run {examples / 'four_bar.json'} --shard 1/3 --checkpoint-every 1e-9" in log
    assert sorted(os.listdir(tmp_path / "study.shards")) == sorted(
        [f"study.shard-{k}-of-3.h5" for k in range(3)] + [f"study.shard-{k}-of-3.h5.summary.json" for k in range(3)])
    assert assert_same_file(one_shot(cli, examples / "four_bar.json", tmp_path, *args), tmp_path / "study.h5") >= 10

    # The same task submitted again finds its shard complete and does nothing.
    proc = slurm.run("sbatch", "--parsable", "--array=1", str(SLURM / "sweep.sbatch"), str(examples / "four_bar.json"),
                     str(tmp_path / "study.h5"), "3", *args, cwd=tmp_path)
    again = proc.stdout.strip().split(";")[0]
    assert proc.returncode == 0 and slurm.wait_ended(again, 1) == ["COMPLETED"], proc.stderr
    assert "study.shard-1-of-3.h5 is complete" in (tmp_path / f"simphant-shard-{again}_1.log").read_text()


def test_a_shard_whose_instances_all_diverged_still_lets_the_merge_run(slurm, cli, tmp_path):
    """Shard 0 holds only instances that diverge at once (simphant exits 3 after their
    first step, "no instance alive": its file is complete): the task succeeds and the merge
    joins it, its instances NaN after the first frame."""
    scene = tmp_path / "grid.json"
    scene.write_text(json.dumps({
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
        "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                    "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
        "solver": {"dt": 0.001, "t_end": 0.05, "record_every": 10, "violation_bound": 1.0},
        "sweep": {"mode": "grid", "seed": 3, "parameters": [
            {"path": "solver.violation_bound", "dist": "list", "values": [1e-300, 1e-300, 1.0, 1.0]}]}}))
    array, merge = slurm.submit(scene, tmp_path / "g.h5", 2, "--threads", "1", cwd=tmp_path)
    assert slurm.wait_ended(merge, logs=[tmp_path / f"simphant-merge-{merge}.log"]) == ["COMPLETED"]
    assert slurm.ends(array, 0) == ["COMPLETED"] and slurm.ends(array, 1) == ["COMPLETED"]
    with h5py.File(tmp_path / "g.h5", "r") as f:
        assert list(f["status"][()]) == [2, 2, 0, 0]
    assert json.loads((tmp_path / "g.shards" / "g.shard-0-of-2.h5.summary.json").read_text())["steps"] == 1
    assert_same_file(one_shot(cli, scene, tmp_path), tmp_path / "g.h5", nan_frames=(1, 0, 2))


def held(gates, name, timeout=240, slurm=None, logs=()):
    """Waits until the run writing `name` is held at HOLD (SIMPHANT_TEST_HOLD); returns its
    .held record (pid, steps_done)."""
    path = gates / f"{name}.held"
    slurm.wait(f"{name} held at step {HOLD}", path.exists, timeout, logs)
    return json.loads(path.read_text())


def test_a_killed_task_and_a_requeued_task_continue_their_shards(slurm, examples, cli, tmp_path):
    """Tasks 1 and 2 are held at step HOLD, after a checkpoint (SIMPHANT_TEST_HOLD). There
    task 1's simphant is killed (SIGKILL, as by the out-of-memory killer) and task 2 is
    requeued (`scontrol requeue`: Slurm's SIGTERM, as on preemption). Task 2 stores its
    state, starts again and continues. Task 1 fails; the merge still runs (it does not wait
    forever on a failed dependency), names shard 1 and writes nothing. Task 1 requeued as
    the merge says continues from its checkpoint, and the merge submitted again equals the
    one-shot run."""
    scene = examples / "four_bar.json"
    args = ["--instances", "6", "--t-end", "3", "--seed", "3", "--backend", "cpu", "--threads", "1"]
    out = tmp_path / "study.h5"
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "study.shard-0-of-3.h5").touch()  # task 0 is not held
    slurm.env.update(SIMPHANT_TEST_HOLD=f"step={HOLD}:{gates}/{{name}}")
    array, merge = slurm.submit(scene, out, 3, *args, cwd=tmp_path)
    logs = [tmp_path / f"simphant-shard-{array}_{k}.log" for k in range(3)]
    merge_log = tmp_path / f"simphant-merge-{merge}.log"

    def shard(k):
        return str(tmp_path / "study.shards" / f"study.shard-{k}-of-3.h5")

    os.kill(held(gates, "study.shard-1-of-3.h5", slurm=slurm, logs=logs)["pid"], signal.SIGKILL)
    held(gates, "study.shard-2-of-3.h5", slurm=slurm, logs=logs)
    proc = slurm.run("scontrol", "requeue", f"{array}_2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr

    # The merge runs once every task has ended, and refuses, naming the failed shard.
    assert slurm.wait_ended(merge, logs=logs + [merge_log]) == ["FAILED"]
    assert slurm.ends(array, 0) == ["COMPLETED"]
    assert slurm.ends(array, 1) == ["FAILED"]  # simphant's exit 137
    assert slurm.ends(array, 2) == ["PENDING", "COMPLETED"]  # requeued while running, then completed
    summary = shard_summary(tmp_path, 2)
    assert summary["resumed_from_step"] == HOLD and summary["stop_reason"] == "completed"
    log2 = logs[2].read_text()
    assert "DUE TO JOB REQUEUE" in log2 and f"--resume {shard(2)}" in log2, log2
    message = merge_log.read_text()
    assert "shard 1 of 3 did not complete (a checkpoint is left of it" in message, message
    assert f"scontrol requeue {array}_[1]" in message and not out.exists()

    # As the merge says: requeue task 1, then the merge again.
    proc = slurm.run("scontrol", "requeue", f"{array}_[1]", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = slurm.run("sbatch", "--parsable", f"--dependency=afterany:{array}", str(SLURM / "merge.sbatch"), str(out),
                     "3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    merge2 = proc.stdout.strip().split(";")[0]
    assert slurm.wait_ended(merge2, logs=logs + [tmp_path / f"simphant-merge-{merge2}.log"]) == ["COMPLETED"]
    assert slurm.ends(array, 1) == ["FAILED", "PENDING", "COMPLETED"]
    summary = shard_summary(tmp_path, 1)
    assert summary["resumed_from_step"] == HOLD and summary["stop_reason"] == "completed"
    assert assert_same_file(one_shot(cli, scene, tmp_path, *args), out) >= 10


def test_a_task_stopped_before_its_time_limit_is_requeued_and_completes(slurm, examples, cli, tmp_path):
    """Every task has a time limit of 1 minute, so Slurm sends SIGUSR1 (--signal=B:USR1@120)
    when it next looks at the running jobs' limits (within about 30 s). Task 0 is held at
    step HOLD until then. The task stops the run, which stores its state, requeues itself
    and, started again, continues from there; the merge equals the one-shot run."""
    scene = examples / "four_bar.json"
    args = ["--instances", "4", "--t-end", "3", "--seed", "5", "--backend", "cpu", "--threads", "1"]
    out = tmp_path / "study.h5"
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "study.shard-1-of-2.h5").touch()  # task 1 is not held
    slurm.env.update(SIMPHANT_TEST_HOLD=f"step={HOLD}:{gates}/{{name}}")
    array, merge = slurm.submit(scene, out, 2, *args, cwd=tmp_path, sbatch_args="--time=1")
    log0 = tmp_path / f"simphant-shard-{array}_0.log"
    logs = [log0, tmp_path / f"simphant-shard-{array}_1.log", tmp_path / f"simphant-merge-{merge}.log"]
    shard0 = str(tmp_path / "study.shards" / "study.shard-0-of-2.h5")

    held(gates, "study.shard-0-of-2.h5", slurm=slurm, logs=logs)
    assert slurm.wait_ended(merge, logs=logs) == ["COMPLETED"]
    # Requeued by itself, then completed. (Should Slurm's first look come before the run
    # reached the hold, the run stops earlier, is held at the next start and requeued again.)
    ends = slurm.ends(array, 0)
    assert ends[-1] == "COMPLETED" and set(ends[:-1]) == {"PENDING"}, ends
    text = log0.read_text()
    assert "SIGUSR1, the time limit is near" in text, text
    assert "stopped before the time limit, state stored; requeuing job" in text, text
    assert f"--resume {shard0}" in text and "DUE TO TIME LIMIT" not in text, text
    summary = json.loads((tmp_path / "study.shards" / "study.shard-0-of-2.h5.summary.json").read_text())
    assert summary["resumed_from_step"] == HOLD and summary["stop_reason"] == "completed"
    assert assert_same_file(one_shot(cli, scene, tmp_path, *args), out) >= 10
