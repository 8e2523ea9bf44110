#!/usr/bin/env python3
"""Plots of `simphant bench --json` results (docs/benchmarks.md).

    python3 bench/plot_bench.py RESULTS.json [MORE.json ...] [--out DIR]

Writes into DIR (default docs/perf/):
  throughput_vs_batch.png  instance-steps per second against the batch size, one panel
                           per model, one line per configuration (log-log);
  chain_scaling.png        the chains chain_N: throughput (top) and wall time per
                           instance-step (bottom, 1 / throughput) against N at fixed batch sizes, one line
                           per configuration (log-log);
  ratios.png               the suite's ratios (sparse/dense, threads, fused/cuda,
                           fp32/fp64, gpu/cpu) per model at the largest batch size each
                           ratio was measured at (only when the results hold ratios).
Several JSON files (e.g. a CPU run and a GPU run) are merged (a row of a later file
replaces the same model / config / size of an earlier one); only rows with status "ok"
are drawn. Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402


def load(files):
    """The ok rows and the ratios of every file; a (model, config, instances) row of a
    later file replaces the same row of an earlier one."""
    rows, ratios = {}, []
    for f in files:
        with open(f) as fh:
            doc = json.load(fh)
        for r in doc.get("rows", []):
            if r.get("status") == "ok" and r.get("instance_steps_per_s"):
                rows[(r["model"], r["config"], r["instances"])] = r
        ratios += doc.get("ratios", [])
    return list(rows.values()), ratios


def model_order(name):
    """Chains first, by N, then the other models by name."""
    m = re.fullmatch(r"chain_(\d+)", name)
    return (0, int(m.group(1)), "") if m else (1, 0, name)


def style(config):
    """Colour by backend family, line style by precision / thread count."""
    colours = {"cpu1": "tab:gray", "cpu": "tab:blue", "cuda": "tab:green", "fused": "tab:red",
               "simd": "tab:orange"}
    family = ("simd" if config.endswith("-simd") else config.split("-")[0]) if config.startswith("cpu") \
        else config.rstrip("0123456789")
    dashed = config.endswith("32") or config.endswith("-sparse") or config == "cpu1-simd"
    return {"color": colours.get(family, "black"), "linestyle": "--" if dashed else "-", "marker": "o", "markersize": 3}


def plot_throughput(rows, out):
    models = sorted({r["model"] for r in rows}, key=model_order)
    if not models:
        return None
    cols = min(4, len(models))
    nrows = math.ceil(len(models) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    for ax, model in zip(axes.flat, models):
        mine = [r for r in rows if r["model"] == model]
        for config in sorted({r["config"] for r in mine}):
            pts = sorted((r["instances"], r["instance_steps_per_s"]) for r in mine if r["config"] == config)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=config, **style(config))
        r0 = mine[0]
        ax.set_title(f"{model} (N={r0['n_bodies']}, m={r0['m']})", fontsize=10)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("instances")
        ax.set_ylabel("instance-steps / s")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(models):]:
        ax.axis("off")
    fig.suptitle("SimPhant: RK4 instance-steps per second vs batch size")
    fig.tight_layout()
    path = os.path.join(out, "throughput_vs_batch.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_chain_scaling(rows, out):
    chains = [r for r in rows if re.fullmatch(r"chain_\d+", r["model"])]
    if not chains:
        return None
    cpu_sizes = sorted({r["instances"] for r in chains if r["backend"] == "cpu"})
    gpu_sizes = sorted({r["instances"] for r in chains if r["backend"] != "cpu"})
    # Fixed batch sizes: the largest CPU one, and up to two GPU ones (a middle and the largest).
    sizes = []
    if cpu_sizes:
        sizes.append(cpu_sizes[-1])
    if gpu_sizes:
        for s in {gpu_sizes[len(gpu_sizes) // 2], gpu_sizes[-1]}:
            if s not in sizes:
                sizes.append(s)
    sizes.sort()
    fig, axes = plt.subplots(2, len(sizes), figsize=(4.6 * len(sizes), 7), squeeze=False)
    for c, n in enumerate(sizes):
        at = [r for r in chains if r["instances"] == n]
        for config in sorted({r["config"] for r in at}):
            pts = sorted((r["n_bodies"], r["instance_steps_per_s"]) for r in at if r["config"] == config)
            xs = [p[0] for p in pts]
            axes[0][c].plot(xs, [p[1] for p in pts], label=config, **style(config))
            axes[1][c].plot(xs, [1e6 / p[1] for p in pts], label=config, **style(config))
        axes[0][c].set_title(f"chain_N, {n} instances", fontsize=10)
        axes[0][c].set_ylabel("instance-steps / s")
        axes[1][c].set_ylabel("time per instance-step [us]\n(1 / throughput)")
        for ax in (axes[0][c], axes[1][c]):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.set_yscale("log")
            ax.set_xlabel("links N")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle("SimPhant: N-link chain, cost vs model size")
    fig.tight_layout()
    path = os.path.join(out, "chain_scaling.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_ratios(ratios, out):
    ratios = [q for q in ratios if q.get("value")]
    if not ratios:
        return None
    kinds = sorted({(q["kind"], q["config"]) for q in ratios})
    models = sorted({q["model"] for q in ratios}, key=model_order)
    fig, ax = plt.subplots(figsize=(min(16, max(7, 0.35 * len(models) * len(kinds) + 2)), 4.5))
    width = 0.8 / len(kinds)
    for k, (kind, config) in enumerate(kinds):
        vals = []
        for model in models:
            mine = [q for q in ratios if q["kind"] == kind and q["config"] == config and q["model"] == model]
            vals.append(max(mine, key=lambda q: q["instances"])["value"] if mine else float("nan"))
        ax.bar([i + k * width for i in range(len(models))], vals, width, label=f"{kind} ({config})")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(models))])
    ax.set_xticklabels(models, rotation=30, ha="right")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_ylabel("ratio (largest batch measured)")
    ax.legend(fontsize=6, ncol=2)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.suptitle("SimPhant: ratios measured in the same run")
    fig.tight_layout()
    path = os.path.join(out, "ratios.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="simphant bench --json output(s)")
    ap.add_argument("--out", default="docs/perf", help="folder for the PNGs (default docs/perf)")
    args = ap.parse_args()
    rows, ratios = load(args.json)
    os.makedirs(args.out, exist_ok=True)
    if not rows:
        print("plot_bench: no row with status ok in " + ", ".join(args.json), file=sys.stderr)
        return 1
    for path in (plot_throughput(rows, args.out), plot_chain_scaling(rows, args.out), plot_ratios(ratios, args.out)):
        if path:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
