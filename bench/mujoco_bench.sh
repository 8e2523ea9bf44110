#!/usr/bin/env bash
# SimPhant beside MuJoCo on the same models, one CPU core, and the
# trajectory agreement (bench/mujoco_compare.py). Writes docs/perf/mujoco-compare.json
# and prints the markdown tables.
#
#   bash bench/mujoco_bench.sh [BUILD_DIR] [extra mujoco_compare.py flags...]
#                                           (default build; needs BUILD_DIR/simphant with `bench`)
# Installs the benchmark-only dependency `mujoco` (pip, --user; --break-system-packages
# where Debian's system Python refuses) when it is missing, exports the models with
# `simphant bench --export`, then compares. Network is needed only for the pip install.
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

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$SIMPHANT" bench --help >/dev/null 2>&1; then
  echo "error: $SIMPHANT has no 'bench' subcommand (needed for --export)"; exit 2
fi
"$SIMPHANT" bench --export "$TMP/models" >/dev/null
mkdir -p docs/perf
python3 bench/mujoco_compare.py --models-dir "$TMP/models" --simphant "$SIMPHANT" \
  --json docs/perf/mujoco-compare.json "$@"
echo "wrote docs/perf/mujoco-compare.json"
