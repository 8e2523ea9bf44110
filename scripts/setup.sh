#!/usr/bin/env bash
# Set-up for a build on Debian / Ubuntu (idempotent): installs the missing build packages
# with apt-get, makes h5py and numpy (reading the output) and nanobind (the Python module)
# importable, then configures and builds SimPhant in ./build (Release, Ninja,
# SIMPHANT_PYTHON=ON: the module in build/python/simphant) with all cores.
#   bash scripts/setup.sh                  # every target: library, CLI, module, tests
#   bash scripts/setup.sh --target simphant  # only these targets (scripts/run_example.sh)
#   bash scripts/setup.sh --no-build         # the packages only
# The CUDA backends are compiled as CMake's SIMPHANT_CUDA says: AUTO (the default) when
# nvcc is found and a CUDA device is visible. SIMPHANT_CMAKE_ARGS (environment, split at
# spaces) adds configure arguments, e.g. "-DSIMPHANT_CUDA=ON" on a GPU cluster's login
# node, or CI's "-DSIMPHANT_CUDA=OFF -DSIMPHANT_CUDA_PTX_CHECK=ON -DSIMPHANT_BUILD_BENCH=OFF"
# (docs/ci.md). The packages only the tests need are installed by scripts/setup_tests.sh
# (scripts/run_tests.sh runs both).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup_common.sh

targets=() build=1
while [ $# -gt 0 ]; do
  case $1 in
    --target) [ $# -ge 2 ] || { echo "setup.sh: --target needs a target name" >&2; exit 2; }
              targets+=("$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "setup.sh: unknown argument '$1' (usage: setup.sh [--no-build] [--target NAME]...)" >&2; exit 2 ;;
  esac
done

phase apt-build
apt_install_missing build-essential cmake ninja-build pkg-config libeigen3-dev nlohmann-json3-dev libcli11-dev \
  libhdf5-dev libspdlog-dev libboost-dev libgtest-dev libbenchmark-dev liburdfdom-dev libtinyxml2-dev libsundials-dev libassimp-dev python3

# h5py and numpy read the output (README); nanobind builds the module. pip installs them
# for the python3 on PATH (the interpreter the module is built for).
phase pip-build
pip_install_missing "h5py numpy nanobind" h5py numpy nanobind

if [ "$build" -eq 0 ]; then
  phase_end
  exit 0
fi

phase configure
python=$(python3 -c 'import sys; print(sys.executable)')
read -r -a extra_args <<<"${SIMPHANT_CMAKE_ARGS:-}"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPHANT_PYTHON=ON -DPython_EXECUTABLE="$python" \
    "${extra_args[@]}"
else
  cmake -S . -B build -DSIMPHANT_PYTHON=ON -DPython_EXECUTABLE="$python" "${extra_args[@]}"
fi

phase build
build_args=()
for t in "${targets[@]}"; do build_args+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${build_args[@]}"
phase_end
