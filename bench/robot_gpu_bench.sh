#!/usr/bin/env bash
# The robot benchmark, whole, on a GPU machine (docs/performance.md, "Robots"): SimPhant's
# Panda and 7-link arm in joint coordinates (`simphant bench --models panda_aba,panda_cga,
# arm7_aba,arm7_cga`: ABA and CGA-ABA, RK4, dt 1 ms) on the GPU in fp64 and fp32 at 1 ..
# 1,048,576 instances and on all host cores at 4,096 (the cpu backend), then MuJoCo /
# MJX on the same Panda at the same batch sizes (bench/mjx_panda_bench.py), then one
# report with the ratios and the targets (bench/robot_bench_report.py). Writes
# $OUT/robot-bench.md, $OUT/robot-bench.json (both parts merged) and the two logs.
#
#   bash bench/robot_gpu_bench.sh              # OUT defaults to ./robot-bench-out
#
# Parts: ROBOT_BENCH_PARTS=simphant,mjx (default both). A part whose prerequisites are
# missing is recorded as not run, with the reason:
#   simphant: a CUDA build in $BUILD (default build-gpu; built here when missing, from
#             the copied .gpu-deps of scripts/gpu_deps.sh);
#   mjx:      mujoco and mujoco-mjx importable, or .mjx-deps/site (bench/fetch_mjx_wheels.sh;
#             with .mjx-deps copied over); JAX comes with the machine.
# Each part's JSON is kept in robot-bench-out/ (git-ignored, kept on a warm machine), and
# the report merges what is there, so the two parts may run in two consecutive calls:
# .gpu-deps (about 57 MB) and .mjx-deps (about 32 MB) together exceed the 64 MiB of files
# copied to the GPU machine. First call: .gpu-deps copied over, ROBOT_BENCH_PARTS=simphant; second call,
# while the machine is still up: .mjx-deps copied over, ROBOT_BENCH_PARTS=mjx.
# ROBOT_BENCH_TIME_LIMIT (default 240 s) bounds each part's rows (rows not started by
# then are recorded as skipped); ROBOT_BENCH_MIN_SECONDS (default 0.1) is each timed batch.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
keep="$PWD/robot-bench-out"
OUT="${OUT:-$keep}"
mkdir -p "$OUT" "$keep"
build=${BUILD:-build-gpu}
parts=${ROBOT_BENCH_PARTS:-simphant,mjx}
limit=${ROBOT_BENCH_TIME_LIMIT:-240}
min_s=${ROBOT_BENCH_MIN_SECONDS:-0.1}
gpu_sizes=${ROBOT_BENCH_GPU_SIZES:-1,16,256,4096,65536,262144,1048576}
source scripts/gpu_env.sh  # cmake_args, LD_LIBRARY_PATH, SIMPHANT_ROBOT_DATA
notes="$keep/not-run.txt"
[ -f "$notes" ] || : > "$notes"

if [[ ",$parts," == *",simphant,"* ]]; then
  sed -i '/^simphant:/d' "$notes"
  if [ ! -x "$build/simphant" ]; then
    echo "building $build/simphant (CUDA) ..."
    { cmake "${cmake_args[@]}" && cmake --build "$build" -j"$(nproc)" --target simphant; } > "$OUT/robot-build.log" 2>&1 ||
      echo "simphant: not run: the CUDA build failed (robot-build.log)" >> "$notes"
  fi
  if [ -x "$build/simphant" ]; then
    "$build/simphant" bench --models panda_aba,panda_cga,arm7_aba,arm7_cga --configs cuda64,cuda32,cpu-dense \
      --gpu-sizes "$gpu_sizes" --cpu-sizes 4096 --min-seconds "$min_s" --time-limit "$limit" \
      --json "$keep/simphant-robots.json" 2>&1 | tee "$OUT/simphant-robots.log"
    # exit 3 = some rows failed (recorded in the JSON); the report shows them
  fi
fi

if [[ ",$parts," == *",mjx,"* ]]; then
  sed -i '/^mjx:/d' "$notes"
  [ -d .mjx-deps/site ] && export PYTHONPATH="$PWD/.mjx-deps/site${PYTHONPATH:+:$PYTHONPATH}"
  if python3 -c "import mujoco, mujoco.mjx, mujoco.rollout, jax" > /dev/null 2>&1; then
    PYTHONUNBUFFERED=1 python3 bench/mjx_panda_bench.py --batches "$gpu_sizes" --cpu-batches 4096 --cpu-threads 0 \
      --min-seconds "$min_s" --time-limit "$limit" --json "$keep/mjx-panda.json" 2>&1 | tee "$OUT/mjx-panda.log"
    [ -f "$keep/mjx-panda.json" ] || echo "mjx: not run: bench/mjx_panda_bench.py failed (mjx-panda.log)" >> "$notes"
  else
    echo "mjx: not run: mujoco / mujoco-mjx / jax not importable (bench/fetch_mjx_wheels.sh, copy .mjx-deps)" >> "$notes"
  fi
fi

python3 bench/robot_bench_report.py --simphant "$keep/simphant-robots.json" --mjx "$keep/mjx-panda.json" \
  --not-run "$notes" --markdown "$OUT/robot-bench.md" --json "$OUT/robot-bench.json"
cat "$OUT/robot-bench.md"
