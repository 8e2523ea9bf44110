"""simphant.distributed on a real local Ray cluster (two worker processes): a sharded sweep
in which one worker is killed mid-run, its task retried from the shard's checkpoint, and
the merged file equal, bit for bit, to the one-shot `simphant run` of the same design."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from conftest import python_env, run_cli
from h5_compare import assert_same_file

try:
    import ray
except ImportError as e:  # scripts/setup_tests.sh installs it; under CI the skip fails the run (scripts/check_skips.py)
    pytest.skip(f"Ray is not installed ({e}); pip install 'ray>=2.9'", allow_module_level=True)

import simphant
from simphant.distributed import SweepProgress, run_sweep

# A design of 12 four-bars, 3 s simulated: 3 shards of 4 instances (3000 steps each).
INSTANCES, SHARDS, T_END, SEED = 12, 3, 3.0, 5
# The shard runs of this module's cluster are held at this step (SIMPHANT_TEST_HOLD,
# docs/reliability.md "Test hooks"), each at its own gate "<gates>/<shard file name>",
# so that a worker is killed at a known point whatever the machine's speed. Only the sweep
# of test_a_killed_worker_is_retried_from_its_checkpoint runs that far; the other runs
# on this cluster must stay shorter.
HOLD_STEP = 1000


@pytest.fixture(scope="module")
def gates(tmp_path_factory):
    return tmp_path_factory.mktemp("gates")


@pytest.fixture(scope="module")
def cluster(gates):
    """A local Ray cluster of two CPUs: two shard tasks (worker processes) at a time."""
    ray.init(num_cpus=2, object_store_memory=200 * 1024**2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"SIMPHANT_TEST_HOLD": f"step={HOLD_STEP}:{gates}/{{name}}"}})
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def one_shot(cli, scene, folder, instances, t_end):
    """The one-shot run of the design, by the command line, on the CPU backend that a sweep's
    tasks without a GPU run for backend "auto": cpu-simd from 8 instances of a fixed-step
    scene, else cpu (one thread: the results do not depend on it, and two threads on two
    busy cores wait on each other)."""
    backend = "cpu-simd" if instances >= 8 else "cpu"
    proc = run_cli(cli, "run", str(scene), "--instances", str(instances), "--t-end", str(t_end), "--seed", str(SEED),
                   "--backend", backend, "--threads", "1", "--out", str(folder / "one.h5"), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return folder / "one.h5"


def test_a_killed_worker_is_retried_from_its_checkpoint(cluster, gates, examples, cli, tmp_path):
    killed = {}
    lines = []
    for f in gates.glob("sweep.shard-*"):  # an earlier run's gates would let the shards pass
        f.unlink()

    def watch(p: SweepProgress) -> None:
        # Called about every 0.5 s, also while every running shard is held. The first
        # shard held at HOLD_STEP, where it has just written a checkpoint (one after every
        # slice of steps), has its worker process SIGKILLed; the others are released.
        lines.append(p.line())
        for held in sorted(gates.glob("sweep.shard-*.held")):
            gate = held.with_suffix("")
            if gate.exists():
                continue
            report = json.loads(held.read_text())
            if not killed:
                out = tmp_path / "sweep.shards" / gate.name
                assert report["steps_done"] == HOLD_STEP and os.path.exists(
                    simphant._simphant.checkpoint_file_name(str(out))), report
                os.kill(report["pid"], signal.SIGKILL)
                killed.update(index=int(re.search(r"shard-(\d+)-of", gate.name).group(1)), pid=report["pid"])
            gate.write_text("")

    r = run_sweep(examples / "four_bar.json", INSTANCES, shards=SHARDS, out=tmp_path / "sweep.h5", t_end=T_END,
                  seed=SEED, checkpoint_every=1e-9, max_retries=2, progress=watch)

    assert killed, "no shard was held: " + " / ".join(lines)
    assert r.exit_code == 0 and r.retries == 1, (killed, r.shard_results)
    k = killed["index"]
    retried = r.shard_results[k]
    assert retried["attempt"] == 2 and retried["resumed"] and retried["pid"] != killed["pid"], (killed, retried)
    assert retried["resumed_from_step"] == HOLD_STEP  # continued from the held step's checkpoint
    assert all(s["attempt"] == 1 and not s["resumed"] for s in r.shard_results if s["index"] != k), r.shard_results
    assert r.merge["instances"] == INSTANCES and r.merge["mode"] == "virtual"
    assert [os.path.basename(f) for f in r.shard_files] == [f"sweep.shard-{i}-of-3.h5" for i in range(SHARDS)]
    # the killed attempt's temporary file is cleared; the checkpoints went with their runs
    assert sorted(os.listdir(tmp_path / "sweep.shards")) == sorted(os.path.basename(f) for f in r.shard_files)
    assert assert_same_file(one_shot(cli, examples / "four_bar.json", tmp_path, INSTANCES, T_END), r.out_file) >= 10
    assert lines[-1].startswith("sweep 100% | shards 3 done of 3 | retries 1"), lines[-3:]


def test_command_line_joins_the_cluster(cluster, examples, cli, tmp_path):
    """simphant-ray (python -m simphant.distributed) against the running cluster, --copy,
    its progress as records in a file (--progress-file, as simphant run's)."""
    records = tmp_path / "progress.jsonl"
    proc = subprocess.run([sys.executable, "-m", "simphant.distributed", str(examples / "four_bar.json"),
                           "--instances", "5", "--t-end", "0.5", "--seed", str(SEED), "--shards", "2",
                           "--address", cluster, "--copy", "--quiet", "--json", "--out", str(tmp_path / "c.h5"),
                           "--progress-file", str(records)],
                          env=python_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "sweep" not in proc.stderr  # --quiet: no progress line
    progress = [json.loads(line) for line in records.read_text().splitlines()]
    assert progress and progress[-1]["progress"] == 1.0 and progress[-1]["shards_done"] == 2
    assert progress[-1]["steps_done"] == progress[-1]["steps_total"] == 2 * 500
    assert all(0.0 <= p["progress"] <= 1.0 and p["eta_s"] >= 0 for p in progress)
    r = json.loads(proc.stdout.splitlines()[-1])
    assert r["merge"]["mode"] == "copy" and r["retries"] == 0 and r["exit_code"] == 0
    assert not (tmp_path / "c.shards").exists()  # a copied merge needs no shards
    assert_same_file(one_shot(cli, examples / "four_bar.json", tmp_path, 5, 0.5), tmp_path / "c.h5")


def test_bad_input_is_refused_before_any_work(examples, tmp_path):
    with pytest.raises(ValueError, match="shards: must be an integer in \\[1, 12\\]"):
        run_sweep(examples / "four_bar.json", 12, shards=13, out=tmp_path / "x.h5")
    with pytest.raises(ValueError, match="resources: unknown key"):
        run_sweep(examples / "four_bar.json", 4, shards=2, out=tmp_path / "x.h5", resources={"gpus": 1},
                  address="local")
    proc = subprocess.run([sys.executable, "-m", "simphant.distributed", str(examples / "four_bar.json"),
                           "--instances", "2", "--shards", "3"], env=python_env(), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "shards: must be an integer in [1, 2]" in proc.stderr
    assert not (tmp_path / "x.shards").exists()


def test_the_design_size_defaults_to_the_scenes_sweep_instances(cluster, examples, cli, tmp_path):
    """run_sweep without `instances` (as `simphant-ray SCENE` without --instances) runs the
    scene's sweep.instances."""
    scene = json.loads((examples / "four_bar.json").read_text())
    scene["sweep"]["instances"] = 4
    (tmp_path / "four.json").write_text(json.dumps(scene))
    r = run_sweep(tmp_path / "four.json", shards=2, out=tmp_path / "d.h5", t_end=0.3, seed=SEED, progress=False)
    assert r.exit_code == 0 and r.merge["instances"] == 4
    assert_same_file(one_shot(cli, tmp_path / "four.json", tmp_path, 4, 0.3), r.out_file)


def test_a_task_without_gpu_runs_the_job_runners_auto_choice(examples, tmp_path):
    """The backend pinned for tasks without a GPU is the job runner's own `auto` choice for
    the whole design (sim/backend_rules.hpp, cpu_backend_of_auto), including what the Python
    side used to miss: a robot in joint coordinates steps in SIMD lanes, --solver chooses
    the formulation, an adaptive integrator stays on cpu; checked against the backend a
    one-shot run with --backend auto reports on this machine (no CUDA device in CI)."""
    from simphant.distributed._sweep import _cpu_backend_of_auto

    four_bar, panda = simphant.load_scene(examples / "four_bar.json"), simphant.load_scene(examples / "panda_sweep.json")
    assert _cpu_backend_of_auto(four_bar, 8, None) == "cpu-simd"
    assert _cpu_backend_of_auto(four_bar, 7, None) == "cpu"
    assert _cpu_backend_of_auto(panda, 8, None) == "cpu-simd"
    assert _cpu_backend_of_auto(panda, 8, "dae") == "cpu-simd"
    assert _cpu_backend_of_auto(panda, 7, "aba") == "cpu"
    doc = json.loads((examples / "four_bar.json").read_text())
    doc["solver"]["integrator"] = "dopri5"
    assert _cpu_backend_of_auto(simphant.load_scene(doc), 64, None) == "cpu"
    if not simphant.cuda_available():
        for scene, n, expected in ((examples / "four_bar.json", 8, "cpu-simd"), (examples / "panda_sweep.json", 8,
                                                                                 "reduced-aba-lanes")):
            r = simphant.run(scene, out=tmp_path / f"{n}_{scene.stem}.h5", instances=n, t_end=0.002, threads=1)
            assert re.match(re.escape(expected) + r"[ ,]", r.summary["backend"]), r.summary["backend"]
