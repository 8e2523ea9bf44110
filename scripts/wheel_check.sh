#!/usr/bin/env bash
# The install path of a pip user, tried on the Release build: builds the self-contained
# wheel (scripts/build_wheel.sh) in ./build itself (the folder scripts/setup.sh configured
# and built, with its own configure arguments, so that nothing compiles twice), installs it
# into a fresh venv (timed: the wheel and numpy only), then with the `results` and `serve`
# extras, and from outside the source tree runs tests/wheel/test_installed.py (the console
# command, a run, the report's missing extra, the service from its console command, the
# bundled libraries and their licences), the README's Python quick start and a short
# pytest selection against the installed package.
# Run after scripts/setup.sh (and scripts/setup_tests.sh: pytest); .ci/run runs it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
source scripts/setup_common.sh
[ -f build/CMakeCache.txt ] || { echo "wheel_check: run scripts/setup.sh first (no build/CMakeCache.txt)" >&2; exit 2; }
python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv

# The cache's own values for the variables pyproject.toml sets (every other cache value
# stays): the wheel reuses every object of the Release build, and the build keeps its tests.
cache() { sed -n "s/^$1:[A-Z]*=//p" build/CMakeCache.txt; }
defines=()
for v in SIMPHANT_CUDA SIMPHANT_BUILD_TESTS SIMPHANT_BUILD_BENCH; do
  value=$(cache "$v")
  [ -z "$value" ] || defines+=(-C "cmake.define.$v=$value")
done
export SIMPHANT_SIMD_LEVELS=$(cache SIMPHANT_SIMD_LEVELS)
work=$(mktemp -d /tmp/simphant-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "wheel_check: building the wheel in build/ (${defines[*]})"
bash scripts/build_wheel.sh -o "$work/dist" -- -C build-dir=build "${defines[@]}" | tee "$work/build_wheel.log"
wheel=$(tail -n 1 "$work/build_wheel.log")
echo "wheel_check: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"

python3 -m venv "$work/venv"
py="$work/venv/bin/python"
start=$EPOCHREALTIME
"$py" -m pip install -q --disable-pip-version-check "$wheel"
echo "wheel_check: the wheel and numpy installed into a fresh venv in $(python3 -c "print(f'{$EPOCHREALTIME - $start:.1f}')") s"
"$py" -m pip install -q --disable-pip-version-check "$wheel[results,serve]" pytest
mkdir "$work/run"
cd "$work/run"
unset PYTHONPATH
# The installed package's own tests, then the README's Python quick start
# (tests/python/test_readme.py) and a short selection of the package's tests; skips are
# checked as in scripts/run_tests.sh.
skips="$work/skipped_tests.txt"
SIMPHANT_SOURCE_DIR="$root" SIMPHANT_SKIPPED_TESTS="$skips" "$py" -m pytest -q -p no:cacheprovider \
  --rootdir "$work/run" "$root/tests/wheel/test_installed.py"
SIMPHANT_CLI="$root/build/simphant" SIMPHANT_SKIPPED_TESTS="$skips" "$py" -m pytest -q -p no:cacheprovider \
  --rootdir "$work/run" "$root/tests/python/test_readme.py" "$root/tests/python/test_simulator.py" \
  "$root/tests/python/test_results.py" "$root/tests/python/test_state.py"
python3 "$root/scripts/check_skips.py" check "$skips"
echo "wheel_check: the wheel installs and runs in a fresh venv"
