"""examples/slurm: the job-array sweep and its dependent merge, run without Slurm. A
stand-in sbatch (slurm_shim/sbatch) runs each job at once with the environment Slurm
gives it, so submit.sh, sweep.sbatch and merge.sbatch run exactly as on a cluster; the
merged file must equal the one-shot `simphant run`, bit for bit, also after a task was
killed (SIGKILL: node failure) or stopped (SIGTERM: preemption) and run again (requeue)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import h5py
import pytest

import simphant
from conftest import run_cli
from h5_compare import assert_same_file

SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slurm_shim")


@pytest.fixture
def slurm_env(cli, tmp_path):
    state = tmp_path / "slurm"
    state.mkdir()
    return dict(os.environ, PATH=SHIM + os.pathsep + os.environ["PATH"], FAKE_SLURM_DIR=str(state), SIMPHANT=cli,
                SIMPHANT_CHECKPOINT_EVERY="0.2")


def one_shot(cli, scene, folder, *args):
    threads = [] if "--threads" in args else ["--threads", "1"]
    proc = run_cli(cli, "run", str(scene), *threads, *args, "--out", str(folder / "one.h5"), cwd=folder)
    assert proc.returncode in (0, 3), proc.stderr
    return folder / "one.h5"


def test_submit_runs_the_array_then_the_merge(root, examples, cli, slurm_env, tmp_path):
    args = ["--instances", "7", "--t-end", "0.5", "--seed", "3", "--backend", "cpu", "--threads", "1"]
    proc = subprocess.run(["bash", str(root / "examples/slurm/submit.sh"), str(examples / "four_bar.json"),
                           str(tmp_path / "study.h5"), "3", *args], env=slurm_env, capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "array job 1000 (shards 0-2), merge job 1001"
    statuses = (tmp_path / "slurm" / "1000.status").read_text().split()
    assert statuses == ["0", "0", "0"] and (tmp_path / "slurm" / "1001.status").read_text() == "0"
    log = (tmp_path / "slurm" / "1000_1.log").read_text()
    assert f"run {examples / 'four_bar.json'} --shard 1/3 --checkpoint-every 0.2" in log
    assert sorted(os.listdir(tmp_path / "study.shards")) == sorted(
        [f"study.shard-{k}-of-3.h5" for k in range(3)] + [f"study.shard-{k}-of-3.h5.summary.json" for k in range(3)])
    assert assert_same_file(one_shot(cli, examples / "four_bar.json", tmp_path, *args), tmp_path / "study.h5") >= 10


def test_a_shard_whose_instances_all_diverged_still_lets_the_merge_run(root, cli, slurm_env, tmp_path):
    """Shard 0 holds only instances that diverge at once (simphant exits 3, its file is
    complete): the task succeeds, so that the merge (afterok) runs."""
    scene = tmp_path / "grid.json"
    scene.write_text(json.dumps({
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
        "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                    "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
        "solver": {"dt": 0.001, "t_end": 0.05, "record_every": 10, "violation_bound": 1.0},
        "sweep": {"mode": "grid", "seed": 3, "parameters": [
            {"path": "solver.violation_bound", "dist": "list", "values": [1e-300, 1e-300, 1.0, 1.0]}]}}))
    proc = subprocess.run(["bash", str(root / "examples/slurm/submit.sh"), str(scene), str(tmp_path / "g.h5"), "2"],
                          env=slurm_env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "slurm" / "1000.status").read_text() == "0 0"
    with h5py.File(tmp_path / "g.h5", "r") as f:
        assert list(f["status"][()]) == [2, 2, 0, 0]
    assert_same_file(one_shot(cli, scene, tmp_path), tmp_path / "g.h5")


def test_a_requeued_task_continues_its_shard(root, examples, cli, slurm_env, tmp_path):
    """Task 1 is killed (SIGKILL to its processes, as when its node fails) after a
    checkpoint, task 2 stopped (SIGTERM to its processes, as on preemption); run again,
    both continue (--resume) and the merge equals the one-shot run."""
    scene = examples / "four_bar.json"
    # 2 instances x 15000 steps per shard: a few tenths of a second, checkpointed every 0.05 s
    args = ["--instances", "6", "--t-end", "15", "--seed", "3", "--backend", "cpu", "--threads", "1"]
    out = tmp_path / "study.h5"
    shards = tmp_path / "study.shards"

    def task(k):
        return subprocess.Popen(["bash", str(root / "examples/slurm/sweep.sbatch"), str(scene), str(out), "3", *args],
                                env=dict(slurm_env, SLURM_ARRAY_TASK_ID=str(k), SIMPHANT_CHECKPOINT_EVERY="0.05"),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                                start_new_session=True)

    for k, sig in ((1, signal.SIGKILL), (2, signal.SIGTERM)):
        shard = shards / f"study.shard-{k}-of-3.h5"
        p = task(k)
        deadline = time.monotonic() + 120
        while not os.path.exists(simphant._simphant.checkpoint_file_name(str(shard))):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()[0]
            time.sleep(0.01)
        os.killpg(p.pid, sig)  # every process of the job, as Slurm signals them
        log = p.communicate(timeout=120)[0]
        assert p.returncode == (-signal.SIGKILL if sig == signal.SIGKILL else 143), log
        if sig == signal.SIGTERM:
            with h5py.File(shard, "r") as f:  # the state is stored in the stopped shard file
                assert f.attrs["interrupted"] == 1 and f.attrs["stop_reason"] == "signal SIGTERM"
        p = task(k)  # the requeued task
        log = p.communicate(timeout=300)[0]
        assert p.returncode == 0 and f"--resume {shard}" in log, log
        summary = json.loads((shards / f"study.shard-{k}-of-3.h5.summary.json").read_text())
        assert summary["resumed_from_step"] > 0 and summary["stop_reason"] == "completed"
    p = task(0)
    assert p.communicate(timeout=300)[0] is not None and p.returncode == 0
    p = task(1)  # a task run again after it completed does nothing
    assert "is complete" in p.communicate(timeout=60)[0] and p.returncode == 0

    proc = subprocess.run(["bash", str(root / "examples/slurm/merge.sbatch"), str(out), "3"], env=slurm_env,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert assert_same_file(one_shot(cli, scene, tmp_path, *args), out) >= 10
