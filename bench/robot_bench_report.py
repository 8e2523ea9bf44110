#!/usr/bin/env python3
"""The robot benchmark's report: SimPhant's joint-space robots (`simphant bench --json`
with models <robot>_aba / <robot>_cga) beside MuJoCo / MJX on the same Panda
(bench/mjx_panda_bench.py --json), with the ratios and the issue's targets.

Every ratio divides two figures of the same machine; SimPhant's and MuJoCo's rows come
from two runs on it (bench/robot_gpu_bench.sh runs them one after the other), which the
report says. Missing inputs are reported as not run, with the reason given in --not-run
(one "part: reason" per line).

Usage: robot_bench_report.py [--simphant S.json] [--mjx M.json] [--not-run FILE]
                             [--markdown OUT.md] [--json OUT.json]
"""
import argparse
import json
import os
import sys

TARGET_MIN_INSTANCES = 262144


def load(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def e(x):
    return "-" if x is None else f"{x:.3g}"


def ok_rows(doc, **match):
    out = []
    for r in (doc or {}).get("rows", []):
        if r.get("status") == "ok" and all(r.get(k) == v for k, v in match.items()):
            out.append(r)
    return out


def rate(doc, **match):
    rows = ok_rows(doc, **match)
    return rows[0]["instance_steps_per_s"] if rows else None


def simphant_tables(sp, L):
    models = []
    for r in sp["rows"]:
        if r["model"] not in models:
            models.append(r["model"])
    gpu_sizes = sorted({r["instances"] for r in sp["rows"] if r["backend"] != "cpu"})
    if gpu_sizes:
        L += ["", "### SimPhant on the GPU (instance-steps/s; cuda64 = fp64, cuda32 = fp32)", "",
              "| model | solver | instances | fp64 | fp32 | fp32/fp64 |", "|---|---|---|---|---|---|"]
        for m in models:
            for n in gpu_sizes:
                a = rate(sp, model=m, config="cuda64", instances=n)
                b = rate(sp, model=m, config="cuda32", instances=n)
                errs = [r for r in sp["rows"] if r["model"] == m and r["instances"] == n and r["backend"] != "cpu"
                        and r["status"] != "ok"]
                note = f" ({errs[0]['status']}: {(errs[0].get('error') or '')[:80]})" if errs and a is None else ""
                solver = next((r.get("solver", "") for r in sp["rows"] if r["model"] == m), "")
                L.append(f"| {m} | {solver} | {n} | {e(a)}{note} | {e(b)} | {e(b / a) if a and b else '-'} |")
    cpu_rows = [r for r in sp["rows"] if r["backend"] == "cpu"]
    if cpu_rows:
        L += ["", "### SimPhant on the CPU (cpu backend, fp64; instance-steps/s)", "",
              "| model | solver | config | threads | instances | instance-steps/s | µs per instance-step per thread |",
              "|---|---|---|---|---|---|---|"]
        for r in cpu_rows:
            if r["status"] != "ok":
                L.append(f"| {r['model']} | {r.get('solver', '')} | {r['config']} | {r.get('threads')} | "
                         f"{r['instances']} | {r['status']}: {(r.get('error') or '')[:80]} | |")
                continue
            us = 1e6 * max(r["threads"], 1) / r["instance_steps_per_s"]
            L.append(f"| {r['model']} | {r.get('solver', '')} | {r['config']} | {r['threads']} | {r['instances']} | "
                     f"{e(r['instance_steps_per_s'])} | {us:.3g} |")


def mjx_tables(mx, L):
    L += ["", "### MuJoCo / MJX on the same Panda (instance-steps/s)", ""]
    m = mx.get("model", {})
    L.append(f"MuJoCo {mx['machine'].get('mujoco')}; model {m.get('nbody')} bodies (fusestatic), nv {m.get('nv')}, "
             f"dt {m.get('dt')}, {m.get('integrator')}, disabled: {', '.join(m.get('disabled', []))}.")
    for c in mx.get("mjx", []):
        if "agreement" in c:
            L.append(f"MJX {c['precision']} (JAX {c.get('jax')}, {c.get('device')}): max |qpos - mj_step's| after "
                     f"{c['agreement']['steps']} steps {c['agreement']['max_abs_qpos_difference_vs_mj_step']:.3g} rad.")
    L += ["", "| engine | precision | threads | instances | instance-steps/s | compile s | note |",
          "|---|---|---|---|---|---|---|"]
    for r in mx["rows"]:
        note = "" if r.get("status") == "ok" else f"{r.get('status')}: {(r.get('error') or '')[:80]}"
        comp = r.get("compile_seconds")
        L.append(f"| {r['engine']} | {r.get('precision', '')} | {r.get('threads') or '-'} | {r.get('instances', '')} | "
                 f"{e(r.get('instance_steps_per_s'))} | {e(comp)} | {note} |")


def ratios(sp, mx):
    out = []
    if sp:
        for q in sp.get("ratios", []):
            if q["kind"] in ("gpu/cpu", "cga/aba", "fp32/fp64"):
                out.append(dict(q))
    if sp and mx:
        # SimPhant vs MJX, same precision and batch; CPU: all cores vs mujoco.rollout on all cores.
        for model in ("panda_aba", "panda_cga"):
            for cfg, prec in (("cuda64", "fp64"), ("cuda32", "fp32")):
                for r in ok_rows(sp, model=model, config=cfg):
                    b = rate(mx, engine="mjx", precision=prec, instances=r["instances"])
                    if b:
                        out.append({"kind": "simphant/mjx", "model": model, "instances": r["instances"],
                                    "config": cfg, "baseline": f"mjx {prec}", "value": r["instance_steps_per_s"] / b})
            for cfg in ("cpu1-dense", "cpu-dense"):
                for r in ok_rows(sp, model=model, config=cfg):
                    for b in ok_rows(mx, engine="mujoco-rollout", instances=r["instances"], threads=r["threads"]):
                        if cfg == "cpu-dense" and r["threads"] == 1 and r["instances"] > 1:
                            continue  # a one-core machine: the cpu1 row says it
                        out.append({"kind": "simphant/mujoco", "model": model, "instances": r["instances"],
                                    "config": f"{cfg} ({r['threads']} threads)",
                                    "baseline": f"mujoco-rollout ({b['threads']} threads)",
                                    "value": r["instance_steps_per_s"] / b["instance_steps_per_s"]})
                        break
    return out


def targets(sp, qs):
    def best(model, cfg):
        rows = [r for r in ok_rows(sp, model=model, config=cfg) if r["instances"] >= TARGET_MIN_INSTANCES]
        return max(rows, key=lambda r: r["instance_steps_per_s"]) if rows else None

    T = []
    for cfg, goal, prec in (("cuda64", 50e6, "fp64"), ("cuda32", 100e6, "fp32")):
        r = best("panda_aba", cfg)
        T.append({"target": f"Panda aba RK4 >= {goal / 1e6:.0f} M instance-steps/s {prec} at >= 262,144 instances",
                  "measured": f"{r['instance_steps_per_s']:.3g} at {r['instances']}" if r else "not run",
                  "met": (r["instance_steps_per_s"] >= goal) if r else None})
    cga = [q for q in qs if q["kind"] == "cga/aba" and q["config"] in ("cuda64", "cuda32") and
           q["instances"] >= TARGET_MIN_INSTANCES]
    T.append({"target": "cga within 1.5x of aba (GPU, >= 262,144 instances)",
              "measured": ", ".join(f"{q['model']} {q['config']} {q['instances']}: {q['value']:.2f}" for q in cga)
              or "not run", "met": all(q["value"] >= 1 / 1.5 for q in cga) if cga else None})
    vs = [q for q in qs if q["kind"] == "simphant/mjx" and q["model"] == "panda_aba" and
          q["instances"] >= TARGET_MIN_INSTANCES]
    T.append({"target": ">= 3x MJX (Panda aba, same precision and batch, >= 262,144)",
              "measured": ", ".join(f"{q['config']} {q['instances']}: {q['value']:.2f}" for q in vs) or "not run",
              "met": all(q["value"] >= 3 for q in vs) if vs else None})
    g = [q for q in qs if q["kind"] == "gpu/cpu" and q["model"] == "panda_aba"]
    T.append({"target": "GPU >= 30x our CPU path on all host cores (Panda aba)",
              "measured": ", ".join(f"{q['config']}: {q['value']:.1f} (vs {q['baseline']})" for q in g) or "not run",
              "met": all(q["value"] >= 30 for q in g) if g else None})
    return T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--simphant")
    ap.add_argument("--mjx")
    ap.add_argument("--not-run")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    a = ap.parse_args()
    sp, mx = load(a.simphant), load(a.mjx)
    notes = []
    if a.not_run and os.path.exists(a.not_run):
        notes = [line.strip() for line in open(a.not_run) if line.strip()]
    if sp is None and not any(n.startswith("simphant:") for n in notes):
        notes.append("simphant: not run: no results file")
    if mx is None and not any(n.startswith("mjx:") for n in notes):
        notes.append("mjx: not run: no results file")
    qs = ratios(sp, mx)
    T = targets(sp, qs)
    L = ["# Robot benchmark", ""]
    if sp:
        m = sp["machine"]
        gpu = m.get("gpu", {})
        L.append(f"- SimPhant run: {m.get('date_utc')}, commit {m.get('git_commit')}, host {m.get('host_cpu')} "
                 f"({m.get('cores')} threads), GPU: {gpu.get('name', gpu.get('error', 'none'))}")
    if mx:
        m = mx["machine"]
        L.append(f"- MuJoCo run: {m.get('date_utc')}, host {m.get('cpu')} ({m.get('cores')} cores), "
                 f"mujoco {m.get('mujoco')}")
    for n in notes:
        L.append(f"- {n}")
    if sp and mx:
        L.append("- SimPhant's and MuJoCo's rows come from two runs on the same machine, one after the other.")
    if sp:
        simphant_tables(sp, L)
    if mx:
        mjx_tables(mx, L)
    if qs:
        L += ["", "### Ratios", "", "| kind | model | instances | config | baseline | value |", "|---|---|---|---|---|---|"]
        for q in qs:
            L.append(f"| {q['kind']} | {q['model']} | {q['instances']} | {q['config']} | {q['baseline']} | "
                     f"{q['value']:.3g} |")
    L += ["", "### Targets (GPU, report only)", "", "| target | measured | met? |", "|---|---|---|"]
    for t in T:
        met = "not run" if t["met"] is None else ("yes" if t["met"] else "no")
        L.append(f"| {t['target']} | {t['measured']} | {met} |")
    text = "\n".join(L) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"simphant": sp, "mjx": mx, "ratios": qs, "targets": T, "not_run": notes}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
