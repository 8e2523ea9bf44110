#!/usr/bin/env bash
# SimPhant beside MuJoCo on the same models (bench/mujoco_compare.py): speed on one core
# and on all cores against MuJoCo's C mj_step loop (bench/mujoco_step_loop.cpp, the ratio
# basis) and mujoco.rollout, SimPhant's cpu and cpu-simd paths, the FLOP rate and the
# fraction of the core's FMA peak, and the trajectory agreement. Writes
# docs/perf/mujoco-compare.json and prints the markdown tables.
#
#   bash bench/mujoco_bench.sh [BUILD_DIR] [extra mujoco_compare.py flags...]
#                                           (default build; needs BUILD_DIR/simphant with `bench`)
# Installs the benchmark-only dependency `mujoco` (pip, --user; --break-system-packages
# where Debian's system Python refuses) when it is missing, compiles the C loop against
# the wheel (bench/build_mujoco_step_loop.sh -> BUILD_DIR/mujoco_step_loop), exports the
# models with `simphant bench --export`, then compares, at nice 5 (on a shared machine
# the medians of interleaved rounds absorb the rest). Network is needed only for pip.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
SIMPHANT="$BUILD/simphant"
[ -x "$SIMPHANT" ] || { echo "error: no $SIMPHANT (build it: cmake --build $BUILD --target simphant)"; exit 2; }

if ! python3 -c "import mujoco, mujoco.rollout" 2>/dev/null; then
  echo "installing mujoco (pip --user) ..."
  python3 -m pip install --user mujoco 2>/dev/null ||
    python3 -m pip install --user --break-system-packages mujoco ||
    { echo "error: could not install mujoco (python3 -m pip install --user mujoco)"; exit 77; }
fi
python3 -c "import h5py" 2>/dev/null || python3 -m pip install --user h5py 2>/dev/null ||
  python3 -m pip install --user --break-system-packages h5py

STEP_LOOP=$(bash bench/build_mujoco_step_loop.sh "$BUILD/mujoco_step_loop") ||
  { echo "error: could not build the MuJoCo C loop (bench/build_mujoco_step_loop.sh)"; exit 77; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$SIMPHANT" bench --help >/dev/null 2>&1; then
  echo "error: $SIMPHANT has no 'bench' subcommand (needed for --export)"; exit 2
fi
"$SIMPHANT" bench --export "$TMP/models" >/dev/null
mkdir -p docs/perf
nice -n 5 python3 bench/mujoco_compare.py --models-dir "$TMP/models" --simphant "$SIMPHANT" \
  --step-loop "$STEP_LOOP" --json docs/perf/mujoco-compare.json "$@"
echo "wrote docs/perf/mujoco-compare.json"
