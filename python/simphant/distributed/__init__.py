"""Sweeps scaled out over a Ray cluster (docs/scaling-out.md): the shards of one job
(``simphant run --shard K/N``) as Ray tasks, each on one GPU where the cluster has GPUs
(else on CPUs), retried from the shard's last checkpoint when a worker dies, their
progress aggregated on the driver, and their files merged into one that equals the
one-shot run's bit for bit.

    from simphant.distributed import run_sweep
    r = run_sweep("examples/four_bar.json", instances=100_000, shards=8, out="four_bar.h5",
                  address="auto")
    r.out_file, r.retries, r.merge["seconds"]

From a shell: ``simphant-ray SCENE --instances I --shards N --out OUT.h5 [--address auto]``
(the same as ``python -m simphant.distributed``). Needs Ray (``pip install 'ray>=2.9'``),
imported when a sweep starts, and simphant installed on every node.
"""
from __future__ import annotations

from ._progress import ShardProgress, SweepProgress
from ._sweep import SweepResult, run_sweep

__all__ = ["ShardProgress", "SweepProgress", "SweepResult", "run_sweep"]
