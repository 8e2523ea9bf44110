#!/usr/bin/env bash
# Per-call time of our RNEA / ABA / CGA-ABA / DAE evaluate and of
# Pinocchio's aba / rnea on Panda, UR5 and xArm7, in one run on this machine, with the
# ratios ours / Pinocchio. One thread each.
# Then the integrator's view: SimPhant's joint-space `aba` per instance-step (one RK4 step
# = 4 ABA evaluations + the stage updates; `simphant bench --models <robot>_aba --configs
# cpu1-dense[,cpu1-simd] --cpu-sizes 8`, one thread, 8 instances, shortest of 5) beside
# Pinocchio's C++ aba per call, and the ratios per RK4 instance-step / per call and
# (per instance-step / 4) / per call.
#
#   bash bench/robot_bench.sh [BUILD_DIR]        (default: build; pip install pin example-robot-data;
#                                                 bench_robot_dynamics (Google Benchmark) when built)
# Pinocchio is timed three ways (bench/pinocchio_bench.py): from a Python loop (includes
# the ~0.6 us Python call overhead), the same minus a 1-dof call, and Pinocchio's own C++
# loop over a batch (abaInParallel, 1 thread). When the pin wheel ships its headers, also
# pinocchio::aba called directly from C++ (bench/pinocchio_aba_bench.cpp, compiled here).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ -x "$BUILD/bench/bench_robot_dynamics" ]; then
  "$BUILD/bench/bench_robot_dynamics" --benchmark_min_time=0.5 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=json >"$TMP/ours.json"
else
  echo "($BUILD/bench/bench_robot_dynamics not built (Google Benchmark missing): per-call table left out)"
  echo '{"benchmarks": []}' >"$TMP/ours.json"
fi
python3 bench/pinocchio_bench.py --json >"$TMP/pin.json" || { echo "pinocchio_bench.py failed or skipped"; exit 0; }

# Optional: Pinocchio from C++ (the pin wheel's headers and libraries).
PREFIX=$(python3 -c "import importlib.metadata as m; print(m.distribution('pin').locate_file('cmeel.prefix'))" 2>/dev/null || true)
ROBOTS=$(python3 -c "import importlib.metadata as m; print(m.distribution('example-robot-data').locate_file('cmeel.prefix/share/example-robot-data/robots'))")
: >"$TMP/pin_cpp.txt"
if [ -n "$PREFIX" ] && [ -f "$PREFIX/include/pinocchio/algorithm/aba.hpp" ]; then
  # Kept in BUILD_DIR and rebuilt only when the source is newer (Pinocchio's headers take minutes).
  PIN_BIN="$BUILD/pinocchio_aba_bench"
  if [ ! -x "$PIN_BIN" ] || [ bench/pinocchio_aba_bench.cpp -nt "$PIN_BIN" ]; then
    g++ -std=c++17 -O3 -DNDEBUG -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30 \
      -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 -DBOOST_FUSION_INVOKE_MAX_ARITY=12 -I"$PREFIX/include" -I/usr/include/eigen3 \
      bench/pinocchio_aba_bench.cpp -o "$PIN_BIN" -L"$PREFIX/lib" -Wl,-rpath,"$PREFIX/lib" -lpinocchio_parsers \
      -lpinocchio_default 2>"$TMP/pin_cpp_build.log" ||
      { echo "(pinocchio C++ bench did not compile: see g++ output; the Python timings stand)"; rm -f "$PIN_BIN"; }
  fi
  if [ -x "$PIN_BIN" ]; then
    "$PIN_BIN" "$ROBOTS/panda_description/urdf/panda.urdf" "$ROBOTS/ur_description/urdf/ur5_robot.urdf" \
      "$ROBOTS/xarm_description/urdf/xarm7.urdf" >"$TMP/pin_cpp.txt"
  fi
fi

# SimPhant's joint-space aba per instance-step, one thread (cpu1-simd too where the build has it).
: >"$TMP/simphant_aba.json"
if [ -x "$BUILD/simphant" ] && python3 bench/robot_scenes.py "$TMP/robots" >/dev/null; then
  CONFIGS=cpu1-dense
  if "$BUILD/simphant" bench --models chain_1 --configs cpu1-simd --cpu-sizes 1 --min-seconds 0.001 --no-cpu-peak \
       >/dev/null 2>&1; then CONFIGS=cpu1-dense,cpu1-simd; fi
  nice -n 5 "$BUILD/simphant" bench --examples "$TMP/robots" --models panda_aba,ur5_aba,xarm7_aba \
    --configs "$CONFIGS" --cpu-sizes 8 --repeats 5 --no-cpu-peak --json "$TMP/simphant_aba.json" >/dev/null 2>&1 ||
    echo "(simphant bench of the joint-space robots failed; see: $BUILD/simphant bench --examples ...)"
fi

python3 - "$TMP" <<'PY'
import json, sys, os
tmp = sys.argv[1]
ours = {}
for b in json.load(open(os.path.join(tmp, "ours.json")))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        ours[b["run_name"]] = b["cpu_time"]  # ns
pin = json.load(open(os.path.join(tmp, "pin.json")))
cpp = {}
for line in open(os.path.join(tmp, "pin_cpp.txt")):
    path, alg, ns = line.split()
    name = "panda" if "panda" in path else ("ur5" if "ur5" in path else "xarm7")
    cpp[(name, alg)] = float(ns)
print(f"Pinocchio {pin['pinocchio']}; Python call overhead (1-dof aba) {pin['overhead_1dof_ns']['aba']:.0f} ns")
print(f"{'robot':6s} {'algorithm':9s} {'ours ns':>8s} {'pin py':>8s} {'pin-1dof':>8s} {'pin batch':>9s} {'pin C++':>8s}"
      f" {'ours/batch':>10s} {'ours/C++':>8s}")
for name, r in pin["robots"].items():
    for alg, pin_alg in (("rnea", "rnea"), ("aba", "aba"), ("cga_rnea", "rnea"), ("cga_aba", "aba"), ("dae_evaluate", "aba")):
        t = ours.get(f"{alg}/{name}")
        if t is None:
            continue
        batch = r[pin_alg + "_batch_ns"]
        c = cpp.get((name, pin_alg))
        print(f"{name:6s} {alg:9s} {t:8.0f} {r[pin_alg + '_python_ns']:8.0f} {r[pin_alg + '_minus_1dof_ns']:8.0f}"
              f" {batch:9.0f} {c if c else float('nan'):8.0f} {t / batch:10.2f} {(t / c) if c else float('nan'):8.2f}")

sim = {}
if os.path.getsize(os.path.join(tmp, "simphant_aba.json")) > 0:
    for row in json.load(open(os.path.join(tmp, "simphant_aba.json")))["rows"]:
        if row["status"] != "ok" or row["not_ok_instances"]:  # frozen instances: no throughput
            print(f"{row['model']} {row['config']}: not timed: {row['status']} {row.get('error') or ''} "
                  f"({row['not_ok_instances']} instances not ok)")
        else:
            sim[(row["model"][:-4], row["config"])] = 1e9 / row["instance_steps_per_s"]  # ns per instance-step
if sim:
    print()
    print("SimPhant joint-space aba per RK4 instance-step (simphant bench, 1 thread, 8 instances) vs Pinocchio C++ aba "
          "per call; one RK4 step = 4 aba evaluations")
    print(f"{'robot':6s} {'config':10s} {'ns/step':>8s} {'ns/eval':>8s} {'pin C++':>8s} {'step/pin':>8s} {'eval/pin':>8s}")
    for (name, config), ns in sorted(sim.items()):
        c = cpp.get((name, "aba"))
        print(f"{name:6s} {config:10s} {ns:8.0f} {ns / 4:8.0f} {c if c else float('nan'):8.0f}"
              f" {(ns / c) if c else float('nan'):8.2f} {(ns / 4 / c) if c else float('nan'):8.2f}")
PY
