#!/usr/bin/env bash
# The GPU check (docs/gpu-check.md): on the GPU machine, builds SimPhant with
# CUDA (sm_90 + PTX), runs the GPU tests (tests/test_cuda_backend.cpp,
# tests/test_cuda_instance_state.cpp, tests/test_cuda_reduced_backend.cpp) and the CPU-side
# kernel tests, runs the benchmark suite (`simphant bench`, docs/benchmarks.md: every
# model at every GPU batch size on cuda / cuda-fused, fp64 / fp32, plus the cpu baseline
# on all cores at 4,096 instances for the GPU / CPU ratio) and plots it, and writes
# $OUT/gpu-check.md, $OUT/bench-gpu.json, $OUT/*.png and the logs. The machine has no
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

cmake_args=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPHANT_CUDA=ON)
deps="$PWD/.gpu-deps/root"
if [ -d "$deps" ]; then
  lib="$deps/usr/lib/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$lib:$lib/hdf5/serial:${LD_LIBRARY_PATH:-}"
  # Some packages' CMake exports name libraries by absolute path (urdfdom:
  # /usr/lib/x86_64-linux-gnu/libtinyxml.so); point them into the carried tree.
  grep -rlE '["; ]/usr/lib/x86_64-linux-gnu/lib' --include='*.cmake' "$deps" 2>/dev/null |
    xargs -r sed -i -E "s#([\"; ])/usr/lib/x86_64-linux-gnu/lib#\\1$lib/lib#g"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$deps/usr;$lib/cmake"
               -DCMAKE_CXX_FLAGS="-isystem $deps/usr/include -isystem $deps/usr/include/hdf5/serial"
               -DCMAKE_CUDA_FLAGS="-isystem $deps/usr/include"
               -DHDF5_C_INCLUDE_DIR="$deps/usr/include/hdf5/serial"
               -DHDF5_C_LIBRARY_hdf5="$lib/hdf5/serial/libhdf5.so"
               -DHDF5_NO_FIND_PACKAGE_CONFIG_FILE=ON)
fi

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
step configure configure.log cmake "${cmake_args[@]}" &&
  step build build.log cmake --build "$build" -j"$jobs" --target simphant test_cuda_backend test_cuda_instance_state test_kernel_grid \
    test_cuda_dopri5 test_dopri5_grid test_cuda_reduced_backend test_reduced_batch_grid
built=$?
if [ $built -eq 0 ] && ldd "$build/simphant" | grep -q "not found"; then
  { echo "- shared libraries missing for simphant:"; ldd "$build/simphant" | grep "not found" | sed 's/^/  /'; } >> "$report"
fi
if [ $built -eq 0 ]; then
  step "GPU tests (test_cuda_backend)" test_cuda_backend.log "$build/tests/test_cuda_backend"
  step "GPU per-instance state tests (test_cuda_instance_state)" test_cuda_instance_state.log \
    "$build/tests/test_cuda_instance_state"
  step "GPU adaptive-step tests (test_cuda_dopri5)" test_cuda_dopri5.log "$build/tests/test_cuda_dopri5"
  # Robot scenes on the GPU (docs/cuda-backend.md, "Robots"); the robots come from
  # example-robot-data (SIMPHANT_ROBOT_DATA), and the tests skip without them.
  step "GPU robot tests (test_cuda_reduced_backend)" test_cuda_reduced_backend.log "$build/tests/test_cuda_reduced_backend"
  step "CPU-side robot kernel tests (test_reduced_batch_grid)" test_reduced_batch_grid.log \
    "$build/tests/test_reduced_batch_grid"
  step "CPU-side kernel tests (test_kernel_grid)" test_kernel_grid.log "$build/tests/test_kernel_grid"
  step "CPU-side adaptive-step kernel tests (test_dopri5_grid)" test_dopri5_grid.log "$build/tests/test_dopri5_grid"
  step "simphant run four_bar --backend cuda" run_cuda.log "$build/simphant" run examples/four_bar.json --backend cuda \
    --instances 1000 --out "$OUT/four_bar_cuda.h5"
  rm -f "$OUT/four_bar_cuda.h5"
  # About 3 minutes on an H200; --time-limit skips the rows not started after 210 s, so
  # that the whole check stays within about 8 minutes.
  # SIMPHANT_BENCH_ARGS replaces the suite's arguments (a partial rerun).
  read -r -a bench_args <<< "${SIMPHANT_BENCH_ARGS:---configs gpu,cpu --cpu-sizes 4096 --min-seconds 0.1 --time-limit 210}"
  step "benchmark suite (simphant bench ${bench_args[*]})" bench.log "$build/simphant" \
    bench "${bench_args[@]}" --json "$OUT/bench-gpu.json"
  if python3 -c "import matplotlib" 2>/dev/null; then
    step "plots (bench/plot_bench.py)" plot.log python3 bench/plot_bench.py "$OUT/bench-gpu.json" --out "$OUT"
  else
    echo "- plots: skipped (python3 has no matplotlib)" >> "$report"
  fi
  {
    echo
    echo "## GPU tests"
    echo '```'
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/test_cuda_backend.log" | head -40
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/test_cuda_instance_state.log" | head -20
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/test_cuda_dopri5.log" | head -20
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/test_cuda_reduced_backend.log" | head -20
    echo '```'
    echo
    echo "## Benchmark suite (instance-steps per second, measured in one run; bench-gpu.json)"
    echo '```'
    grep -v '^\[' "$OUT/bench.log"
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
