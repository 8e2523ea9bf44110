#!/usr/bin/env bash
# Builds SimPhant with AddressSanitizer + UndefinedBehaviorSanitizer (SIMPHANT_SANITIZE=ON,
# CPU only, RelWithDebInfo) in build-asan and runs the CTest suite there; any sanitizer
# report fails the test that triggered it (docs/reliability.md, "Sanitizers").
# Usage: scripts/sanitize_tests.sh [extra ctest arguments, e.g. -R Urdf]
# SIMPHANT_SANITIZE_EXCLUDE: a ctest -E regex of tests left out (default: the Pinocchio
# cross-check, a Python script, and the GPU tests, which skip without a device anyway).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exclude=${SIMPHANT_SANITIZE_EXCLUDE:-PinocchioCheck}
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPHANT_CUDA=OFF -DSIMPHANT_BUILD_BENCH=OFF \
  -DSIMPHANT_SANITIZE=ON "${launcher[@]}"
cmake --build build-asan -j"$(nproc)"
# halt_on_error: the first report ends the process (UBSan recovers by default);
# detect_leaks: LeakSanitizer at exit. The suppressions file lists known reports in code
# outside this project (each with its reason).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp}
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -E "$exclude" "$@"
