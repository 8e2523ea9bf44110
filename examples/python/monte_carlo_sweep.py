#!/usr/bin/env python3
"""A Monte Carlo sweep with simphant.run, analysed with xarray and pandas, plotted with
matplotlib: how the four-bar's crank-pivot load depends on the sampled coupler mass.

    PYTHONPATH=build/python python3 examples/python/monte_carlo_sweep.py [--out-dir DIR]

Writes four_bar_sweep.h5 and four_bar_sweep.png into DIR (default: the current folder).
"""
from __future__ import annotations

import argparse
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import simphant  # noqa: E402

SCENE = pathlib.Path(__file__).resolve().parents[1] / "four_bar.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", default=".")
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--t-end", type=float, default=1.0, help="[s]")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    result = simphant.run(SCENE, out=os.path.join(args.out_dir, "four_bar_sweep.h5"), instances=args.instances,
                          t_end=args.t_end, backend="cpu", seed=7)
    s = result.summary
    print(f"{s['instances_ok']} of {s['instances']} instances ok, {s['frames']} frames, "
          f"{s['throughput_instance_steps_per_s']:.3g} instance-steps/s")

    with simphant.open_results(result.out_file) as ds:
        ok = ds.status == 0
        joint = ds.joint.values[0]
        force = ds.reactions.sel(joint=joint, reaction_component=["f_x", "f_y", "f_z"])
        magnitude = np.sqrt((force ** 2).sum("reaction_component")).where(ok)       # (time, instance) [N]
        table = simphant.instance_table(ds)
        table["peak_force_N"] = magnitude.max("time").values
        param = "bodies.coupler.mass"
        print(table[[param, "status", "max_constraint_violation", "peak_force_N"]].describe().to_string())

        fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(10, 4))
        q = magnitude.quantile([0.05, 0.5, 0.95], dim="instance")
        ax_t.fill_between(ds.time, q.sel(quantile=0.05), q.sel(quantile=0.95), alpha=0.3, label="5-95 %")
        ax_t.plot(ds.time, q.sel(quantile=0.5), label="median")
        ax_t.set(xlabel="time [s]", ylabel=f"|force| of {joint} [N]", title="load over the sweep")
        ax_t.legend()
        ax_p.scatter(table[param], table["peak_force_N"], s=10)
        ax_p.set(xlabel=param, ylabel="peak |force| [N]", title="peak load per instance")
        fig.tight_layout()
        png = os.path.join(args.out_dir, "four_bar_sweep.png")
        fig.savefig(png, dpi=100)
        print(f"figure: {png}")


if __name__ == "__main__":
    main()
