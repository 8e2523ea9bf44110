"""The speed report of bench/mujoco_compare.py: medians of interleaved rounds, ratios to
MuJoCo's C `mj_step` loop, the FLOP rate and the fraction of the core's FMA peak, the
JSON schema check and the markdown table. Pure Python (no MuJoCo, no numpy), so that
tests/test_compare_report.py checks it anywhere.

Per model, `speed` (what mujoco_compare.py measures, each quantity a list of rounds):
  mujoco_c_loop_1     steps/s of bench/mujoco_step_loop (one thread, one MjData)
  mujoco_c_loop_all   steps/s of the same with --threads = the machine's cores (sum)
  mujoco_rollout_1    steps/s of mujoco.rollout.rollout, one MjData
  simphant:<config>   instance-steps/s of `simphant bench` rows: cpu1-dense, cpu1-sparse,
                      cpu1-simd (one thread), cpu-dense, cpu-sparse, cpu-simd (all
                      threads), aba (<model>_aba, one thread)
summarize() turns it into medians, the columns (the better of dense / sparse is the `cpu`
column), the ratios to the C loop (one core: against mujoco_c_loop_1; all cores: against
mujoco_c_loop_all) and the FLOP rates (flop_rate()).
"""
import math

# Column name -> the configs it takes the best of (one core, all cores).
SCALAR = ("cpu1-dense", "cpu1-sparse")
SCALAR_ALL = ("cpu-dense", "cpu-sparse")
SIMD, SIMD_ALL = "cpu1-simd", "cpu-simd"


def median(xs):
    """Median of a non-empty list of numbers (mean of the two middle ones for an even count);
    None for an empty list or one holding None."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def ratio(a, b):
    """a / b, or None when either is missing or b is not positive."""
    if a is None or b is None or not b > 0:
        return None
    return a / b


def flop_rate(flops_per_step, steps_per_s, peak_gflops_per_core, threads=1):
    """{"GFLOPs": flops_per_step x steps_per_s / 1e9, "fraction_of_peak": that / (peak x
    threads)}; entries None where an input is missing (or the peak is not positive)."""
    if flops_per_step is None or steps_per_s is None:
        return {"GFLOPs": None, "fraction_of_peak": None}
    g = flops_per_step * steps_per_s / 1e9
    peak = None if peak_gflops_per_core is None else peak_gflops_per_core * threads
    return {"GFLOPs": g, "fraction_of_peak": ratio(g, peak)}


def best_of(medians, configs):
    """(config, value) of the largest median among configs, or (None, None)."""
    got = [(c, medians[c]) for c in configs if medians.get(c) is not None]
    return max(got, key=lambda cv: cv[1]) if got else (None, None)


def summarize(speed, flops, peak_gflops_per_core, threads_all):
    """The columns of one model. speed: {quantity: [rounds]} (see the module docstring,
    SimPhant configs as "simphant:<config>"); flops: {config: FLOPs per instance-step from
    the cost model} (the bench rows' flops_per_instance_step); threads_all: threads of the
    all-core rows. Returns {"medians", "columns", "ratios", "flop_rates"}."""
    med = {k: median(v) for k, v in speed.items()}
    sim = {k.split(":", 1)[1]: v for k, v in med.items() if k.startswith("simphant:")}
    c1, call = med.get("mujoco_c_loop_1"), med.get("mujoco_c_loop_all")
    cpu_cfg, cpu1 = best_of(sim, SCALAR)
    cpu_all_cfg, cpu_all = best_of(sim, SCALAR_ALL)
    cols = {
        "mujoco_c_loop_1": c1,
        "mujoco_rollout_1": med.get("mujoco_rollout_1"),
        "cpu_1": cpu1, "cpu_1_config": cpu_cfg,
        "cpu_simd_1": sim.get(SIMD),
        "aba_1": sim.get("aba"),
        "mujoco_c_loop_all": call,
        "cpu_all": cpu_all, "cpu_all_config": cpu_all_cfg,
        "cpu_simd_all": sim.get(SIMD_ALL),
    }
    ratios = {
        "rollout/c_loop": ratio(cols["mujoco_rollout_1"], c1),
        "cpu/c_loop": ratio(cpu1, c1),
        "cpu_simd/c_loop": ratio(cols["cpu_simd_1"], c1),
        "aba/c_loop": ratio(cols["aba_1"], c1),
        "cpu_simd/cpu": ratio(cols["cpu_simd_1"], cpu1),
        "cpu_all/c_loop_all": ratio(cpu_all, call),
        "cpu_simd_all/c_loop_all": ratio(cols["cpu_simd_all"], call),
    }
    rates = {
        "cpu_1": dict(flop_rate(flops.get(cpu_cfg), cpu1, peak_gflops_per_core, 1), flops_per_step=flops.get(cpu_cfg)),
        "cpu_simd_1": dict(flop_rate(flops.get(SIMD), cols["cpu_simd_1"], peak_gflops_per_core, 1),
                           flops_per_step=flops.get(SIMD)),
        "cpu_all": dict(flop_rate(flops.get(cpu_all_cfg), cpu_all, peak_gflops_per_core, threads_all),
                        flops_per_step=flops.get(cpu_all_cfg)),
        "cpu_simd_all": dict(flop_rate(flops.get(SIMD_ALL), cols["cpu_simd_all"], peak_gflops_per_core, threads_all),
                             flops_per_step=flops.get(SIMD_ALL)),
    }
    return {"medians": med, "columns": cols, "ratios": ratios, "flop_rates": rates}


# ---------------------------------------------------------------------------- schema
SCHEMA_TOP = {"mujoco_version": str, "host": str, "date": str, "method": dict, "cpu_peak": dict, "models": list}
SCHEMA_SUMMARY = ("medians", "columns", "ratios", "flop_rates")
COLUMNS = ("mujoco_c_loop_1", "mujoco_rollout_1", "cpu_1", "cpu_simd_1", "aba_1", "mujoco_c_loop_all", "cpu_all",
           "cpu_simd_all")


def _num_or_none(x):
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x))


def validate_report(doc):
    """The schema of mujoco_compare.py's --json (speed part): a list of problems, empty
    when the document is well formed."""
    errs = []
    for k, t in SCHEMA_TOP.items():
        if not isinstance(doc.get(k), t):
            errs.append(f"{k}: missing or not a {t.__name__}")
    peak = doc.get("cpu_peak") or {}
    if not _num_or_none(peak.get("fp64_GFLOPs_per_core")):
        errs.append("cpu_peak.fp64_GFLOPs_per_core: not a number")
    for i, m in enumerate(doc.get("models") or []):
        where = f"models[{i}]"
        if not isinstance(m.get("model"), str):
            errs.append(f"{where}.model: missing")
            continue
        where = f"models[{i}] ({m['model']})"
        s = m.get("speed_summary")
        if s is None:
            continue  # speed not measured (--no-speed) or skipped
        for k in SCHEMA_SUMMARY:
            if not isinstance(s.get(k), dict):
                errs.append(f"{where}.speed_summary.{k}: missing")
        for c in COLUMNS:
            if c not in s.get("columns", {}) or not _num_or_none(s["columns"][c]):
                errs.append(f"{where}.speed_summary.columns.{c}: missing or not a number / null")
        for k, v in s.get("ratios", {}).items():
            if not _num_or_none(v):
                errs.append(f"{where}.speed_summary.ratios.{k}: not a number / null")
        for k, v in s.get("flop_rates", {}).items():
            for f in ("GFLOPs", "fraction_of_peak", "flops_per_step"):
                if f not in v or not _num_or_none(v[f]):
                    errs.append(f"{where}.speed_summary.flop_rates.{k}.{f}: missing or not a number / null")
    return errs


# ---------------------------------------------------------------------------- markdown
def f3(x):
    return "-" if x is None else f"{x:.3g}"


def f2(x):
    return "-" if x is None else f"{x:.2f}"


def pct(x):
    return "-" if x is None else f"{100 * x:.1f} %"


def markdown_speed(report):
    """The speed tables: one core (C loop first, the ratio basis), all cores, FLOP rates."""
    peak = report.get("cpu_peak", {})
    L = [f"Speed: medians of {report['method'].get('rounds', '?')} interleaved rounds; one core = one thread "
         f"(SimPhant {report['method'].get('instances_1', '?')} instances, MuJoCo one MjData); all cores = "
         f"{report['method'].get('threads_all', '?')} threads (SimPhant {report['method'].get('instances_all', '?')} "
         "instances, MuJoCo one MjData per thread). Rates in (instance-)steps/s; ratios to MuJoCo's C loop.", ""]
    if report["method"].get("cpu_simd_note"):
        L += [f"cpu-simd: {report['method']['cpu_simd_note']}", ""]
    L.append("| model | MuJoCo C loop | mujoco.rollout | SimPhant cpu | cpu-simd | aba | rollout / C | cpu / C | "
             "cpu-simd / C | aba / C | cpu-simd / cpu |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in report["models"]:
        s = m.get("speed_summary")
        if not s:
            continue
        c, r = s["columns"], s["ratios"]
        cfg = f" ({c['cpu_1_config'].split('-')[1]})" if c.get("cpu_1_config") else ""
        L.append(f"| {m['model']} | {f3(c['mujoco_c_loop_1'])} | {f3(c['mujoco_rollout_1'])} | {f3(c['cpu_1'])}{cfg} | "
                 f"{f3(c['cpu_simd_1'])} | {f3(c['aba_1'])} | {f2(r['rollout/c_loop'])} | {f2(r['cpu/c_loop'])} | "
                 f"{f2(r['cpu_simd/c_loop'])} | {f2(r['aba/c_loop'])} | {f2(r['cpu_simd/cpu'])} |")
    L += ["", "All cores:", "",
          "| model | MuJoCo C loop | SimPhant cpu | cpu-simd | cpu / C | cpu-simd / C |", "|---|---|---|---|---|---|"]
    for m in report["models"]:
        s = m.get("speed_summary")
        if not s:
            continue
        c, r = s["columns"], s["ratios"]
        L.append(f"| {m['model']} | {f3(c['mujoco_c_loop_all'])} | {f3(c['cpu_all'])} | {f3(c['cpu_simd_all'])} | "
                 f"{f2(r['cpu_all/c_loop_all'])} | {f2(r['cpu_simd_all/c_loop_all'])} |")
    L += ["", f"FLOP rate (cost model's FLOPs per instance-step x instance-steps/s) and fraction of the measured "
              f"FMA peak: {f3(peak.get('fp64_GFLOPs_per_core'))} GFLOP/s per core ({peak.get('isa', '?')}, "
              f"nominal {peak.get('nominal_formula', '?')}):", "",
          "| model | kFLOP / step | cpu GFLOP/s | cpu % peak | cpu-simd GFLOP/s | cpu-simd % peak | "
          "all cores cpu % peak | all cores cpu-simd % peak |", "|---|---|---|---|---|---|---|---|"]
    for m in report["models"]:
        s = m.get("speed_summary")
        if not s:
            continue
        fr = s["flop_rates"]
        fl = fr["cpu_1"]["flops_per_step"] or fr["cpu_simd_1"]["flops_per_step"]
        L.append(f"| {m['model']} | {f3(None if fl is None else fl / 1e3)} | {f3(fr['cpu_1']['GFLOPs'])} | "
                 f"{pct(fr['cpu_1']['fraction_of_peak'])} | {f3(fr['cpu_simd_1']['GFLOPs'])} | "
                 f"{pct(fr['cpu_simd_1']['fraction_of_peak'])} | {pct(fr['cpu_all']['fraction_of_peak'])} | "
                 f"{pct(fr['cpu_simd_all']['fraction_of_peak'])} |")
    for m in report["models"]:
        if m.get("speed_skipped"):
            L += ["", f"{m['model']}: MuJoCo side not run: {m['speed_skipped']}"]
    return "\n".join(L)
