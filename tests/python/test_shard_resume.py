"""simphant.run(shard=, checkpoint_every=, resume=) and simphant.merge: the command line's
--shard, --checkpoint-every, --resume and `merge` from Python, with the same files."""
from __future__ import annotations

import pytest

import simphant
from conftest import run_cli
from h5_compare import assert_same_file

ARGS = dict(instances=7, t_end=0.3, seed=2, backend="cpu", threads=1)


@pytest.fixture
def one_shot(examples, cli, tmp_path):
    proc = run_cli(cli, "run", str(examples / "four_bar.json"), "--instances", "7", "--t-end", "0.3", "--seed", "2",
                   "--backend", "cpu", "--out", str(tmp_path / "one.h5"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "one.h5"


def test_shards_merged_equal_the_one_shot_run(examples, one_shot, tmp_path):
    files = []
    for k in (2, 0, 1):
        r = simphant.run(examples / "four_bar.json", out=tmp_path / f"s{k}.h5", shard=(k, 3), **ARGS)
        assert r.exit_code == 0 and r.summary["shard_index"] == k and r.summary["instances_total"] == 7
        files.append(r.out_file)
    m = simphant.merge(tmp_path / "virtual.h5", files)
    assert m["instances"] == 7 and m["mode"] == "virtual" and m["shards"] == 3
    assert_same_file(one_shot, tmp_path / "virtual.h5")
    assert simphant.merge(tmp_path / "copy.h5", files, copy=True)["mode"] == "copy"
    assert_same_file(one_shot, tmp_path / "copy.h5")


def test_bad_shards_and_merges_are_refused(examples, tmp_path):
    for bad in ((3, 3), (-1, 2), (1,), "0/2", (0.0, 2), (True, 2)):
        with pytest.raises(ValueError, match="shard: expected"):
            simphant.run(examples / "four_bar.json", out=tmp_path / "x.h5", shard=bad, **ARGS)
    with pytest.raises(ValueError, match="--shard"):  # more shards than instances (the core's check)
        simphant.run(examples / "four_bar.json", out=tmp_path / "x.h5", shard=(0, 9), **ARGS)
    r = simphant.run(examples / "four_bar.json", out=tmp_path / "s0.h5", shard=(0, 2), **ARGS)
    with pytest.raises(ValueError, match=r"instances \[3, 7\)"):  # shard 1 of 2 is missing
        simphant.merge(tmp_path / "m.h5", [r.out_file])
    with pytest.raises(TypeError, match="shards: a sequence"):
        simphant.merge(tmp_path / "m.h5", r.out_file)
    assert not (tmp_path / "m.h5").exists() and not (tmp_path / "x.h5").exists()


def test_a_stopped_run_resumed_equals_the_uninterrupted_one(examples, one_shot, tmp_path):
    """Ctrl-C from the progress callback stops the run (its state is stored in the output);
    resume= continues it to the file of the uninterrupted run."""
    def interrupt(done, total, t, n):
        if done >= total // 3:
            raise KeyboardInterrupt

    out = tmp_path / "r.h5"
    with pytest.raises(KeyboardInterrupt):
        simphant.run(examples / "four_bar.json", out=out, progress=interrupt, checkpoint_every=0, **ARGS)
    assert simphant._simphant.resumable(str(out))
    with pytest.raises(ValueError, match="--seed"):  # an option that differs from the run's
        simphant.run(None, resume=out, seed=3)
    r = simphant.run(None, resume=out, threads=1)
    assert r.exit_code == 0 and 0 < r.summary["resumed_from_step"] < 300 and r.out_file == str(out)
    assert_same_file(one_shot, out)
    assert not simphant._simphant.resumable(str(out))
    with pytest.raises(ValueError, match="checkpoint_every: must be >= 0"):
        simphant.run(examples / "four_bar.json", out=tmp_path / "y.h5", checkpoint_every=-1, **ARGS)
    with pytest.raises(ValueError, match="scene: required unless resume"):
        simphant.run(None)
