#!/usr/bin/env bash
# The GPU check (docs/gpu-check.md): on the GPU machine, builds SimPhant with
# CUDA (sm_90 + PTX), runs every GPU test (the test_cuda_* targets: tests/test_cuda_*.cpp,
# the robots' GPU == CPU tests included) and the CPU-side kernel tests (the test_*grid*
# targets), runs the benchmark suite (`simphant bench`, docs/benchmarks.md: every
# model at every GPU batch size on cuda / cuda-fused, fp64 / fp32, plus the cpu baseline
# on all cores at 4,096 instances for the GPU / CPU ratio) and plots it, runs the robot
# benchmark at three sizes (bench/robot_gpu_bench.sh runs all of it), and writes
# $OUT/gpu-check.md, $OUT/bench-gpu.json, $OUT/bench-robots.json, $OUT/*.png and the logs. The machine has no
# Debian packages: prepare .gpu-deps here first with scripts/gpu_deps.sh and carry it
# (`carry: [".gpu-deps"]`); on a machine with the packages installed (docker/Dockerfile)
# it builds without them.
#
#   bash scripts/gpu_check.sh            # OUT defaults to ./gpu-check-out
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$OUT"
report="$OUT/gpu-check.md"
build=build-gpu
jobs=$(nproc)

source scripts/gpu_env.sh  # cmake_args, LD_LIBRARY_PATH, SIMPHANT_ROBOT_DATA

{
  echo "# GPU check"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- commit: ${SIMPHANT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "  (the device's copy of .git can be stale: pass SIMPHANT_COMMIT=<hash> to name the source)"
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "- device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
  else
    echo "- device: none found (nvidia-smi is not installed); the GPU tests skip and the cuda rows say so"
  fi
  echo "- nvcc: $(nvcc --version 2>&1 | tail -1)"
  echo "- host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo
} > "$report"

failures=0
step() {  # step NAME LOG CMD...: runs CMD, logs it, records pass/fail/skip in the report
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  if "$@" > "$OUT/$log" 2>&1; then
    local skipped
    skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+ tests?' "$OUT/$log" | grep -oE '[0-9]+' | head -1 || true)
    if [ "${skipped:-0}" -gt 0 ] && ! grep -q '^\[  PASSED  \] [1-9]' "$OUT/$log"; then
      echo "- $name: skipped ($skipped tests; no CUDA device) ($((SECONDS - t0)) s, log $log)" >> "$report"
    else
      echo "- $name: ok ($((SECONDS - t0)) s, log $log)" >> "$report"
    fi
    return 0
  fi
  failures=$((failures + 1))
  echo "- $name: FAILED ($((SECONDS - t0)) s, log $log); its last lines:" >> "$report"
  { echo '```'; tail -40 "$OUT/$log"; echo '```'; } >> "$report"
  return 1
}

echo "## Steps" >> "$report"
step configure configure.log cmake "${cmake_args[@]}"
configured=$?
# Every GPU test (test_cuda_*) and every CPU-grid twin of a kernel (test_*grid*) the build
# defines, robots' included.
gpu_tests=$(ninja -C "$build" -t targets all 2>/dev/null | grep -oE '^test_cuda_[A-Za-z0-9_]+: phony' | cut -d: -f1 | sort -u)
grid_tests=$(ninja -C "$build" -t targets all 2>/dev/null | grep -oE '^test_[A-Za-z0-9_]*grid[A-Za-z0-9_]*: phony' |
  cut -d: -f1 | sort -u)
# shellcheck disable=SC2086  # $gpu_tests and $grid_tests split into the target names
[ $configured -eq 0 ] &&
  step build build.log cmake --build "$build" -j"$jobs" --target simphant $gpu_tests $grid_tests
built=$?
if [ $built -eq 0 ] && ldd "$build/simphant" | grep -q "not found"; then
  { echo "- shared libraries missing for simphant:"; ldd "$build/simphant" | grep "not found" | sed 's/^/  /'; } >> "$report"
fi
if [ $built -eq 0 ]; then
  for t in $gpu_tests; do step "GPU tests ($t)" "$t.log" "$build/tests/$t"; done
  for t in $grid_tests; do step "CPU-side kernel tests ($t)" "$t.log" "$build/tests/$t"; done
  step "simphant run four_bar --backend cuda" run_cuda.log "$build/simphant" run examples/four_bar.json --backend cuda \
    --instances 1000 --out "$OUT/four_bar_cuda.h5"
  rm -f "$OUT/four_bar_cuda.h5"
  # About 3 minutes on an H200; --time-limit skips the rows not started after 210 s, so
  # that the whole check stays within about 8 minutes.
  # SIMPHANT_BENCH_ARGS replaces the suite's arguments (a partial rerun).
  read -r -a bench_args <<< "${SIMPHANT_BENCH_ARGS:---configs gpu,cpu --cpu-sizes 4096 --min-seconds 0.1 --time-limit 210}"
  step "benchmark suite (simphant bench ${bench_args[*]})" bench.log "$build/simphant" \
    bench "${bench_args[@]}" --json "$OUT/bench-gpu.json"
  # The robot benchmark, short (bench/robot_gpu_bench.sh runs it whole): Panda and arm7
  # in joint coordinates, aba and cga, on the GPU in fp64 / fp32 and on all host cores.
  read -r -a robot_args <<< "${SIMPHANT_ROBOT_BENCH_ARGS:---models panda_aba,panda_cga,arm7_aba,arm7_cga --configs cuda64,cuda32,cpu-dense --gpu-sizes 1,4096,262144 --cpu-sizes 4096 --min-seconds 0.05 --time-limit 60}"
  step "robot benchmark (simphant bench ${robot_args[*]})" bench_robots.log "$build/simphant" \
    bench "${robot_args[@]}" --json "$OUT/bench-robots.json"
  if python3 -c "import matplotlib" 2>/dev/null; then
    step "plots (bench/plot_bench.py)" plot.log python3 bench/plot_bench.py "$OUT/bench-gpu.json" --out "$OUT"
  else
    echo "- plots: skipped (python3 has no matplotlib)" >> "$report"
  fi
  {
    echo
    echo "## GPU tests"
    echo '```'
    for t in $gpu_tests; do echo "$t:"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/$t.log" | head -40; done
    echo '```'
    echo
    echo "## Benchmark suite (instance-steps per second, measured in one run; bench-gpu.json)"
    echo '```'
    grep -v '^\[' "$OUT/bench.log"
    echo '```'
    echo
    echo "## Robot benchmark, short (instance-steps per second; bench-robots.json)"
    echo '```'
    grep -v '^\[' "$OUT/bench_robots.log"
    echo '```'
  } >> "$report"
fi
echo >> "$report"
echo "failed steps: $failures" >> "$report"
cat "$report"
# Non-zero when something failed; without a device the cuda run is expected to fail.
if command -v nvidia-smi >/dev/null 2>&1; then
  [ "$failures" -eq 0 ]
else
  [ "$built" -eq 0 ]
fi
